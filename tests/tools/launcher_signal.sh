#!/bin/sh
# launcher_signal.sh SIGNAL STATUS PATTERN NPROCS -- MPIEXEC-COMMAND...
# Starts a job of NPROCS OS processes whose processes print "process P
# ready" and then wait (launch_fail.c sleep), sends SIGNAL to mpiexec once
# every process is ready (as Ctrl-C or a batch system would), and passes
# when mpiexec exits with STATUS within 15 s, its output matches PATTERN
# and no process of the job is left. SIGNAL KILL checks
# that the processes die with mpiexec (status and output are then the
# shell's).
sig=$1
want=$2
pattern=$3
nprocs=$4
shift 5
token="launcher-test-$$-$(date +%s%N)"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }
# Processes whose command line holds the token: one grep over /proc (a
# process per entry is slow on a loaded machine); "[l]" keeps grep from
# finding itself.
leftovers() {
    grep -lsa -- "[l]${token#l}" /proc/[0-9]*/cmdline | sed 's|^/proc/\([0-9]*\)/cmdline$|\1|'
}
"$@" "$token" > "$dir/out" 2>&1 &
mpiexec_pid=$!
i=0
until [ "$(grep -c ' ready$' "$dir/out")" -ge "$nprocs" ]; do
    i=$((i + 1))
    if [ $i -gt 300 ]; then
        kill -KILL "$mpiexec_pid" $(leftovers) 2>/dev/null
        fail "the job's processes did not all start"
    fi
    sleep 0.05
done
start=$(date +%s%N)
kill -"$sig" "$mpiexec_pid"
wait "$mpiexec_pid"
status=$?
end=$(date +%s%N)
elapsed_ms=$(( (end - start) / 1000000 ))
# After SIGKILL of mpiexec, its processes die from PR_SET_PDEATHSIG: give
# the kernel a moment to deliver it.
i=0
while [ "$sig" = KILL ] && [ -n "$(leftovers)" ] && [ $i -lt 100 ]; do
    i=$((i + 1))
    sleep 0.05
done
left=$(leftovers)
cat "$dir/out"
echo "mpiexec ended with status $status $elapsed_ms ms after SIG$sig"
if [ -n "$left" ]; then
    kill -KILL $left 2>/dev/null
    fail "processes of the job outlived mpiexec: $left"
fi
[ "$status" -eq "$want" ] || fail "expected status $want"
[ "$elapsed_ms" -le 15000 ] || fail "the job took more than 15 s to end"
[ -z "$pattern" ] || grep -Eq -- "$pattern" "$dir/out" || fail "no line matches: $pattern"
echo "ok: status $status, no process left"
