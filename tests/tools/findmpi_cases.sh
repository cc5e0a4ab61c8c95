#!/bin/sh
# findmpi_cases.sh WAY BIN PROJECT WORK: configure the CMake project in
# PROJECT (tests/tools/findmpi) with FindMPI finding Myriad's wrappers in BIN
# in one of two ways, build it in WORK, and run its C and C++ programs as
# singletons and at 1000 ranks. WAY:
#   path      the wrappers first on PATH, nothing given to CMake
#   compiler  -DMPI_C_COMPILER=BIN/mpicc -DMPI_CXX_COMPILER=BIN/mpicxx
# In both, FindMPI's MPIEXEC_EXECUTABLE must be BIN/mpiexec (with the
# compiler given, FindMPI looks for mpiexec on PATH and under MPI_HOME
# only, so the test gives MPI_HOME too, as docs/building.md says).
set -u
way=$1 bin=$2 project=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# FINDMPI_LINK_FLAGS: what FindMPI drops but the link needs (-fsanitize).
link_flags=${FINDMPI_LINK_FLAGS:-}
set -- -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCMAKE_SHARED_LINKER_FLAGS="$link_flags"
case $way in
    path)
        PATH="$bin:$PATH" cmake -S "$project" -B "$work" "$@" >"$work.configure.log" 2>&1 ;;
    compiler)
        cmake -S "$project" -B "$work" "$@" -DMPI_C_COMPILER="$bin/mpicc" \
            -DMPI_CXX_COMPILER="$bin/mpicxx" -DMPI_HOME="$(dirname "$bin")" \
            >"$work.configure.log" 2>&1 ;;
    *) fail "unknown way $way" ;;
esac || { cat "$work.configure.log"; fail "configure"; }
grep -E "Found MPI" "$work.configure.log"
found=$(cat "$work/mpiexec.txt")
[ "$found" = "$bin/mpiexec" ] || fail "FindMPI's mpiexec is '$found', not $bin/mpiexec"
echo "ok: MPIEXEC_EXECUTABLE is $found"

cmake --build "$work" >"$work.build.log" 2>&1 || { cat "$work.build.log"; fail "build"; }
echo "ok: built"

# Code that CMake compiled as -fPIE reaches libc's variables through COPY
# relocations: the test is only worth something if they are there.
if command -v readelf >/dev/null; then
    readelf -rW "$work/app_c" | grep -q "_COPY .*stderr" ||
        echo "note: app_c has no COPY relocation for stderr (built -fPIC?)"
    ! readelf -rW "$work/app_c" "$work/app_cxx" | grep -q "_COPY .*myr_" ||
        fail "a COPY relocation of one of Myriad's objects"
fi

run() {  # expected-line-regex command...
    want=$1
    shift
    out=$("$@" 2>&1)
    status=$?
    printf '%s\n' "$out" | tail -n 5
    [ $status -eq 0 ] || fail "status $status: $*"
    printf '%s\n' "$out" | grep -Eq "$want" || fail "no line '$want' from: $*"
}
run "^app_c: 1 ranks \(sum 0\), mode fast, each counted" "$work/app_c" -k 5 -m fast rest
run "^app_cxx: 1 ranks, each had its own" "$work/app_cxx"
for n in 4 1000; do
    run "^app_c: $n ranks \(sum $((n * (n - 1) / 2))\), mode fast, each counted" \
        "$bin/mpiexec" -n $n "$work/app_c" -k 5 -m fast rest
    run "^app_cxx: $n ranks, each had its own" "$bin/mpiexec" -n $n "$work/app_cxx"
done
# main in a static library: private as from an object. In a shared library:
# one main for the process, so one rank only here (the globals are shared).
run "^app_c: 1 ranks \(sum 0\), mode fast, each counted" "$work/app_c_archive" -k 5 -m fast rest
run "^app_c: 4 ranks \(sum 6\), mode fast, each counted" \
    "$bin/mpiexec" -n 4 "$work/app_c_archive" -k 5 -m fast rest
run "^app_c: 1 ranks \(sum 0\), mode fast, each counted" "$work/app_c_shared" -k 5 -m fast rest
# The copies were made (not a shared run that happened to pass).
run "globals private to each rank" "$bin/mpiexec" -v -n 4 "$work/app_c" -k 5 rest
echo "ok: FindMPI ($way) builds that run at 1 and 1000 ranks"
