#!/bin/sh
# wrapper_cases.sh CASE BIN_DIR INCLUDE_DIR LIB_DIR SOURCE_DIR [EMULATOR...]
# The behaviours of the generated mpicc and mpicxx (one CASE per test).
# Environment: EXPECT_HWLOC=1 when the build found hwloc; EXPECT_CXX: the
# C++ compiler mpicxx should use (empty: none was found).
case_name=$1 bin=$2 inc=$3 lib=$4 src=$5
shift 5
# "$@" is now the emulator (empty on a native build).

fail() { echo "FAIL: $*"; exit 1; }
has() {  # has TEXT WORD: WORD is one of TEXT's words
    case " $1 " in *" $2 "*) return 0 ;; esac
    return 1
}
expect_words() {  # TEXT WORD...
    text=$1
    shift
    for w do has "$text" "$w" || fail "'$w' missing from: $text"; done
}
expect_none() {  # TEXT PATTERN: no word of TEXT matches PATTERN (a glob)
    for w in $1; do
        case $w in $2) fail "'$w' should not be in: $1" ;; esac
    done
}
run() { echo "+ $*" >&2; "$@"; }

link_words="-L$lib -Wl,-rpath,$lib -lmyriad_main -lmyriad -lpthread"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

case $case_name in
show_prints_the_compile_and_link_command)
    out=$(run "$bin/mpicc" -show -O2 -o prog prog.c) || fail "status $?"
    echo "$out"
    expect_words "$out" "-I$inc" -O2 -o prog prog.c $link_words
    # Objects and sources come before the libraries that resolve them.
    case "$out" in *" prog.c "*"-lmyriad_main -lmyriad "*) ;; *) fail "library order" ;; esac
    ;;
show_with_c_compiles_only)
    for flag in -c -S -E; do
        out=$(run "$bin/mpicc" -show $flag prog.c) || fail "status $?"
        echo "$out"
        expect_words "$out" "-I$inc" $flag prog.c
        expect_none "$out" "-l*"
        expect_none "$out" "-L*"
    done
    ;;
compile_info_prints_the_compile_flags)
    out=$(run "$bin/mpicc" -compile-info) || fail "status $?"
    echo "$out"
    expect_words "$out" "-I$inc"
    expect_none "$out" "-l*"
    ;;
link_info_prints_the_link_flags)
    out=$(run "$bin/mpicc" -link-info) || fail "status $?"
    echo "$out"
    expect_words "$out" "-I$inc" $link_words
    if [ "${EXPECT_HWLOC:-0}" = 1 ]; then expect_words "$out" -lhwloc
    else expect_none "$out" "-lhwloc"; fi
    ;;
show_quotes_arguments_that_need_it)
    out=$(run "$bin/mpicc" -show -DGREETING='"hi there"' "my prog.c") || fail "status $?"
    echo "$out"
    case "$out" in *" '-DGREETING=\"hi there\"' 'my prog.c' "*) ;; *) fail "quoting" ;; esac
    ;;
arguments_reach_the_compiler_unchanged)
    # A macro whose value has spaces and quotes, and a source path with a
    # space: the program prints the macro.
    mkdir "$tmp/a dir"
    cat >"$tmp/a dir/greet.c" <<'PROGRAM'
#include <mpi.h>
#include <stdio.h>
int main(void) { puts(GREETING); return 0; }
PROGRAM
    run "$bin/mpicc" -DGREETING='"hi there, \"you\""' -o "$tmp/greet" "$tmp/a dir/greet.c" ||
        fail "mpicc failed"
    out=$(run "$@" "$tmp/greet") || fail "the program failed"
    echo "$out"
    [ "$out" = 'hi there, "you"' ] || fail "wrong output"
    ;;
compile_then_link_in_two_steps)
    run "$bin/mpicc" -c -o "$tmp/hello.o" "$src/hello.c" || fail "compiling"
    run "$bin/mpicc" -o "$tmp/hello" "$tmp/hello.o" || fail "linking"
    out=$(run "$@" "$tmp/hello") || fail "the program failed"
    echo "$out"
    [ "$out" = "hello from 1 ranks: sum of ranks 0, expected 0: correct" ] || fail "wrong output"
    ;;
program_needs_only_libmyriad)
    run "$bin/mpicc" -o "$tmp/hello" "$src/hello.c" || fail "mpicc failed"
    dyn=$(readelf -d "$tmp/hello") || fail "readelf"
    echo "$dyn"
    printf '%s\n' "$dyn" | grep -q 'NEEDED.*\[libmyriad\.so\]' || fail "not linked with libmyriad.so"
    printf '%s\n' "$dyn" | grep -Eq 'NEEDED.*\[lib(mpi|mpich|open-rte|open-pal|pmpi)' &&
        fail "linked with another MPI"
    printf '%s\n' "$dyn" | grep -E 'RUNPATH|RPATH' | grep -qF "[$lib]" || fail "no rpath to $lib"
    # The C runtime's start goes through the runtime's entry
    # (--wrap=__libc_start_main); the program's main is its own.
    for sym in __wrap___libc_start_main main; do
        readelf -sW "$tmp/hello" | awk -v s="$sym" '$8 == s && $4 == "FUNC" && $7 != "UND" { f = 1 }
                                        END { exit !f }' || fail "$sym not defined"
    done
    ;;
mpicxx_uses_the_cxx_compiler)
    out=$(run "$bin/mpicxx" -show -o prog prog.cc)
    status=$?
    echo "$out"
    if [ -n "${EXPECT_CXX:-}" ]; then
        [ $status -eq 0 ] || fail "status $status"
        expect_words "$out" "$EXPECT_CXX" "-I$inc" prog.cc $link_words
        [ "${out%% *}" = "$EXPECT_CXX" ] || fail "does not start with $EXPECT_CXX"
    else
        [ $status -ne 0 ] || fail "mpicxx without a C++ compiler succeeded"
    fi
    ;;
showme_is_show)
    a=$(run "$bin/mpicc" -show -O2 -o prog prog.c) || fail "-show: status $?"
    b=$(run "$bin/mpicc" -showme -O2 -o prog prog.c) || fail "-showme: status $?"
    echo "$b"
    [ "$a" = "$b" ] || fail "-showme differs from -show: $a"
    a=$(run "$bin/mpicc" -show) && b=$(run "$bin/mpicc" -showme) || fail "status $?"
    echo "$b"
    [ "$a" = "$b" ] || fail "bare -showme differs from -show: $a"
    expect_words "$b" "-I$inc" $link_words
    ;;
showme_compile_prints_the_compile_flags)
    # Open MPI's answer: the flags alone, without the compiler (FindMPI
    # takes them as they are).
    out=$(run "$bin/mpicc" -showme:compile) || fail "status $?"
    echo "$out"
    expect_words "$out" "-I$inc" -fPIC
    [ "${out%% *}" = "-I$inc" ] || fail "does not start with -I$inc"
    expect_none "$out" "-l*"
    expect_none "$out" "-L*"
    ;;
showme_link_prints_the_link_flags)
    out=$(run "$bin/mpicc" -showme:link) || fail "status $?"
    echo "$out"
    expect_words "$out" $link_words -Wl,--wrap=__libc_start_main -Wl,-z,noseparate-code
    [ "${out%% *}" = "-L$lib" ] || fail "does not start with -L$lib"
    expect_none "$out" "-I*"
    if [ "${EXPECT_HWLOC:-0}" = 1 ]; then expect_words "$out" -lhwloc; fi
    ;;
showme_dirs_and_libs_list_them_bare)
    out=$(run "$bin/mpicc" -showme:incdirs) || fail "status $?"
    echo "$out"
    [ "$out" = "$inc" ] || fail "incdirs: $out"
    out=$(run "$bin/mpicc" -showme:libdirs) || fail "status $?"
    echo "$out"
    [ "${out%% *}" = "$lib" ] || fail "libdirs: $out"
    out=$(run "$bin/mpicc" -showme:libs) || fail "status $?"
    echo "$out"
    expect_words "$out" myriad_main myriad pthread
    expect_none "$out" "-*"
    if [ "${EXPECT_HWLOC:-0}" = 1 ]; then expect_words "$out" hwloc; fi
    out=$(run "$bin/mpicc" -showme:command) || fail "status $?"
    echo "$out"
    [ -x "$out" ] || command -v "$out" >/dev/null || fail "command: $out is no compiler"
    ;;
showme_version_and_help)
    out=$(run "$bin/mpicc" -showme:version) || fail "status $?"
    echo "$out"
    printf '%s\n' "$out" | grep -Eq '^mpicc: Myriad [0-9]+\.[0-9]+\.[0-9]+ \(Language: C\)$' ||
        fail "version line"
    out=$(run "$bin/mpicxx" -showme:version) || fail "status $?"
    echo "$out"
    printf '%s\n' "$out" | grep -Eq '^mpicxx: Myriad [0-9.]+ \(Language: C\+\+\)$' ||
        fail "mpicxx version line"
    out=$(run "$bin/mpicc" -showme:help) || fail "status $?"
    for opt in -show -showme -compile-info -link-info -showme:compile -showme:link \
               -showme:incdirs -showme:libdirs -showme:libs -showme:version MYRIAD_CC MPICH_CC OMPI_CC; do
        has "$out" "$opt" || printf '%s\n' "$out" | grep -qF -- "$opt" || fail "help lacks $opt"
    done
    out=$("$bin/mpicc" -showme:frobnicate 2>&1) && fail "an unknown -showme: succeeded"
    echo "$out"
    [ "$out" = "mpicc: unknown option -showme:frobnicate (-showme:help lists the options)" ] ||
        fail "wrong message"
    ;;
version_options_reach_the_compiler_alone)
    # No input file: the compiler only reports, so nothing is added (the
    # link flags would make -v try to link a program).
    cc=$("$bin/mpicc" -showme:command) || fail "-showme:command"
    for opt in --version -dumpversion -v; do
        want=$("$cc" $opt 2>&1) || fail "$cc $opt failed"
        out=$("$bin/mpicc" $opt 2>&1) || fail "mpicc $opt: status $?"
        [ "$out" = "$want" ] || fail "mpicc $opt printed: $out"
        out=$(run "$bin/mpicc" -show $opt) || fail "status $?"
        [ "$out" = "$cc $opt" ] || fail "mpicc -show $opt: $out"
    done
    echo "$want"
    ;;
compiler_env_overrides)
    # A stand-in compiler that says how it was called.
    cat >"$tmp/fakecc" <<'SCRIPT'
#!/bin/sh
echo "fakecc[$FAKE_TAG]: $*"
SCRIPT
    chmod +x "$tmp/fakecc"
    out=$(run env MYRIAD_CC="$tmp/fakecc" "$bin/mpicc" -c prog.c) || fail "status $?"
    echo "$out"
    case $out in "fakecc[]: -I$inc -fPIC"*" -c prog.c") ;; *) fail "MYRIAD_CC not run" ;; esac
    # The value is split into words, as MPICH and Open MPI do ("ccache gcc").
    out=$(run env MYRIAD_CC="env FAKE_TAG=split $tmp/fakecc" "$bin/mpicc" -c prog.c) ||
        fail "status $?"
    echo "$out"
    case $out in "fakecc[split]: -I$inc"*" -c prog.c") ;; *) fail "MYRIAD_CC with words" ;; esac
    first() { set -- $1; echo "$1"; }
    for lang in CC CXX; do
        if [ $lang = CC ]; then w=mpicc; else w=mpicxx; fi
        out=$(run env MYRIAD_$lang=my MPICH_$lang=mpich OMPI_$lang=ompi "$bin/$w" -show x.c) ||
            fail "status $?"
        [ "$(first "$out")" = my ] || fail "$w: MYRIAD_$lang does not come first: $out"
        # Set but empty counts as not set.
        out=$(run env MYRIAD_$lang= MPICH_$lang=mpich OMPI_$lang=ompi "$bin/$w" -show x.c) ||
            fail "status $?"
        [ "$(first "$out")" = mpich ] || fail "$w: MPICH_$lang does not come second: $out"
        out=$(run env OMPI_$lang=ompi "$bin/$w" -showme:command) || fail "status $?"
        [ "$out" = ompi ] || fail "$w: OMPI_$lang ignored: $out"
    done
    # Each wrapper reads its own language's variables only.
    out=$(run env MYRIAD_CXX=my MPICH_CXX=mpich OMPI_CXX=ompi "$bin/mpicc" -showme:command) ||
        fail "status $?"
    case $out in my|mpich|ompi) fail "mpicc took a C++ variable: $out" ;; esac
    echo ok
    ;;
fortran_wrappers_fail_and_say_why)
    for w in mpifort mpif90 mpif77; do
        [ -x "$bin/$w" ] || fail "no $bin/$w"
        out=$("$bin/$w" -c prog.f90 2>"$tmp/err")
        status=$?
        err=$(cat "$tmp/err")
        echo "$err"
        [ $status -eq 1 ] || fail "$w: status $status"
        [ -z "$out" ] || fail "$w printed on stdout: $out"
        [ "$err" = "$w: Myriad has no Fortran bindings yet (only C and C++: mpicc, mpicxx)" ] ||
            fail "$w: wrong message"
        "$bin/$w" -showme:compile 2>/dev/null && fail "$w -showme:compile succeeded"
    done
    ;;
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "$case_name: ok"
