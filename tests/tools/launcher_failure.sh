#!/bin/sh
# launcher_failure.sh STATUS PATTERN -- MPIEXEC-COMMAND...
# Runs a job of several OS processes that fails, with one more argument
# that names its processes (launch_fail.c ignores it), and passes when:
# mpiexec exits with STATUS within BOUND seconds (default 15: the job must
# end within 5 s of the failure; the margin is for loaded machines), its
# output has a line matching the extended regex PATTERN, and no process of
# the job is left once mpiexec has returned.
want=$1
pattern=$2
shift 3
bound=${BOUND:-15}
token="launcher-test-$$-$(date +%s%N)"
fail() { echo "FAIL: $*"; exit 1; }
# Processes whose command line holds the token: one grep over /proc (a
# process per entry is slow on a loaded machine); "[l]" keeps grep from
# finding itself.
leftovers() {
    grep -lsa -- "[l]${token#l}" /proc/[0-9]*/cmdline | sed 's|^/proc/\([0-9]*\)/cmdline$|\1|'
}
start=$(date +%s%N)
out=$("$@" "$token" 2>&1)
status=$?
end=$(date +%s%N)
left=$(leftovers)
printf '%s\n' "$out"
elapsed_ms=$(( (end - start) / 1000000 ))
echo "mpiexec ended with status $status after $elapsed_ms ms"
if [ -n "$left" ]; then
    kill -KILL $left 2>/dev/null
    fail "processes of the job outlived mpiexec: $left"
fi
[ "$status" -eq "$want" ] || fail "expected status $want"
[ "$elapsed_ms" -le $((bound * 1000)) ] || fail "the job took more than $bound s to end"
printf '%s\n' "$out" | grep -Eq -- "$pattern" || fail "no line matches: $pattern"
echo "ok: status $status, the line, no process left"
