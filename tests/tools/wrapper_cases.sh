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
    # The C runtime enters through the runtime's __wrap_main; the program's
    # own main keeps its name (--wrap=main).
    for sym in __wrap_main main; do
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
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "$case_name: ok"
