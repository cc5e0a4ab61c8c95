#!/bin/sh
# install_cases.sh CASE CMAKE BUILD_DIR SOURCE_DIR
# Myriad installed with `cmake --install BUILD_DIR --prefix P` into a fresh
# temporary directory (one per case, so cases run in parallel), used from
# there as a user would, then moved and used again (one CASE per test).
# Environment: EXPECT_CXX: the C++ compiler mpicxx runs (empty: none).
# Exit status 77: the case cannot run here (ctest reports it skipped).
case_name=$1 cmake=$2 build=$3 source=$4
here=$source/tests/tools

fail() { echo "FAIL: $*"; exit 1; }
run() { echo "+ $*" >&2; "$@"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/p
run "$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "cmake --install failed"; }

# Moves the installed tree to a directory whose name needs quoting.
moved="$tmp/moved/another prefix"
move() {
    mkdir "$tmp/moved" && mv "$prefix" "$moved" || fail "mv"
    echo "moved $prefix to $moved"
}

hello_1="hello from 1 ranks: sum of ranks 0, expected 0: correct"
hello_4="hello from 4 ranks: sum of ranks 6, expected 6: correct"
expect_run() {  # COMMAND...: the command prints exactly the line $want
    out=$(run "$@") || fail "status $?: $out"
    echo "$out"
    [ "$out" = "$want" ] || fail "expected: $want"
}
# hello built with PREFIX's mpicc (however it is called: ARGS before the
# compiler arguments), run alone and with PREFIX's mpiexec -n 4.
build_and_run_hello() {  # PREFIX COMMAND...
    p=$1
    shift
    rm -f "$tmp/hello"
    run "$@" -O2 -o "$tmp/hello" "$here/hello.c" || fail "building hello"
    readelf -d "$tmp/hello" | grep -E 'RUNPATH|RPATH' | grep -qF "[$p/lib]" ||
        fail "the rpath is not $p/lib: $(readelf -d "$tmp/hello" | grep PATH)"
    want=$hello_1
    expect_run "$tmp/hello"
    want=$hello_4
    expect_run "$p/bin/mpiexec" -n 4 "$tmp/hello"
}

case $case_name in
installs_every_part)
    for f in include/mpi.h include/myr_ult.h lib/libmyriad.so lib/libmyriad.a \
             lib/libmyriad_main.a lib/pkgconfig/myriad.pc lib/pkgconfig/mpi.pc \
             share/myriad/myriad-gdb.py share/doc/myriad/README.md \
             share/doc/myriad/docs/building.md share/doc/myriad/docs/debugging.md; do
        [ -f "$prefix/$f" ] || fail "$f is not installed"
    done
    for f in mpicc mpicxx mpifort mpif90 mpif77 mpiexec myriad-info; do
        [ -x "$prefix/bin/$f" ] || fail "bin/$f is not installed"
    done
    move
    # myriad-info finds libmyriad.so relative to itself.
    out=$(run "$moved/bin/myriad-info") || fail "myriad-info: status $?"
    printf '%s\n' "$out" | head -n 1
    printf '%s\n' "$out" | grep -q '^Myriad [0-9]' || fail "myriad-info output"
    for w in mpifort mpif90 mpif77; do
        err=$("$moved/bin/$w" -c x.f90 2>&1 >/dev/null) && fail "$w succeeded"
        echo "$err"
        [ "$err" = "$w: Myriad has no Fortran bindings yet (only C and C++: mpicc, mpicxx)" ] ||
            fail "$w: wrong message"
    done
    ;;
no_path_into_the_source_or_build_tree)
    # The wrappers and .pc files find the prefix from where they are.
    for dir in "$source" "$build" "$prefix"; do
        if run grep -rlF "$dir" "$prefix/bin/mpicc" "$prefix/bin/mpicxx" \
                "$prefix/bin/mpifort" "$prefix/bin/mpif90" "$prefix/bin/mpif77" \
                "$prefix/lib/pkgconfig"; then
            fail "the files above name $dir"
        fi
    done
    out=$(run "$prefix/bin/mpicc" -showme:incdirs) || fail "status $?"
    [ "$out" = "$prefix/include" ] || fail "incdirs: $out"
    move
    out=$(run "$moved/bin/mpicc" -showme:incdirs) || fail "status $?"
    echo "$out"
    [ "$out" = "'$moved/include'" ] || fail "incdirs after the move: $out"
    out=$(run "$moved/bin/mpicc" -showme:libdirs) || fail "status $?"
    echo "$out"
    case $out in "'$moved/lib'"|"'$moved/lib' "*) ;; *) fail "libdirs after the move: $out" ;; esac
    ;;
mpicc_builds_and_runs_then_moved)
    build_and_run_hello "$prefix" "$prefix/bin/mpicc"
    move
    build_and_run_hello "$moved" "$moved/bin/mpicc"
    # Through PATH, and through a symbolic link elsewhere (as in
    # /usr/local/bin/mpicc -> /opt/myriad/bin/mpicc).
    build_and_run_hello "$moved" env PATH="$moved/bin:$PATH" mpicc
    mkdir "$tmp/links" && ln -s "$moved/bin/mpicc" "$tmp/links/mpicc" || fail "ln"
    build_and_run_hello "$moved" "$tmp/links/mpicc"
    ;;
mpicxx_builds_and_runs_then_moved)
    [ -n "${EXPECT_CXX:-}" ] || { echo "no C++ compiler: skipped"; exit 77; }
    for p in "$prefix" "$moved"; do
        [ "$p" = "$moved" ] && move
        run "$p/bin/mpicxx" -O2 -o "$tmp/cxx" "$here/cxx_main_args.cc" || fail "mpicxx"
        want="C++ main(argc, argv): 4 ranks, all got [first] [second two]"
        expect_run "$p/bin/mpiexec" -n 4 "$tmp/cxx" first "second two"
    done
    ;;
pkg_config_builds_and_runs_then_moved)
    command -v pkg-config >/dev/null || { echo "no pkg-config: skipped"; exit 77; }
    cc=$("$prefix/bin/mpicc" -showme:command) || fail "-showme:command"
    # pkg-config splits a path with spaces in -Wl,-rpath, so the moved tree
    # has none in its name here.
    moved=$tmp/moved/elsewhere
    for p in "$prefix" "$moved"; do
        [ "$p" = "$moved" ] && move
        for pc in myriad mpi; do
            flags=$(run env PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags "$pc") &&
                libs=$(run env PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --libs "$pc") ||
                fail "pkg-config $pc"
            echo "$pc: $flags $libs"
            rm -f "$tmp/hello"
            # shellcheck disable=SC2086  # the flags are words
            run "$cc" $flags -O2 -o "$tmp/hello" "$here/hello.c" $libs || fail "building hello"
            want=$hello_1
            expect_run "$tmp/hello"
            want=$hello_4
            expect_run "$p/bin/mpiexec" -n 4 "$tmp/hello"
        done
    done
    ;;
mpiexec_gdb_uses_the_installed_commands)
    # A stand-in gdb that prints what it was given.
    mkdir "$tmp/fake" || fail "mkdir"
    printf '#!/bin/sh\nfor a do echo "[$a]"; done\n' >"$tmp/fake/gdb"
    chmod +x "$tmp/fake/gdb"
    "$prefix/bin/mpicc" -o "$tmp/hello" "$here/hello.c" || fail "building hello"
    for p in "$prefix" "$moved"; do
        [ "$p" = "$moved" ] && move
        out=$(run env PATH="$tmp/fake:$PATH" "$p/bin/mpiexec" -gdb -n 2 "$tmp/hello") ||
            fail "status $?"
        echo "$out"
        printf '%s\n' "$out" | grep -qxF "[$p/share/myriad/myriad-gdb.py]" ||
            fail "gdb was not given $p/share/myriad/myriad-gdb.py"
    done
    ;;
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "$case_name: ok"
