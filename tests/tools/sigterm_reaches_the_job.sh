#!/bin/sh
# sigterm_reaches_the_job.sh MPIEXEC-COMMAND...
# Starts the sleeper job under mpiexec (with a time limit, so mpiexec stays
# as the job's parent) in the background; rank 0 writes the job's process id
# to the file given as its last argument. Then SIGTERM goes to mpiexec
# alone, and the job must end too: a killed mpiexec leaves no orphan.
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$@" "$dir/pid" &
mpiexec_pid=$!
i=0
until grep -q . "$dir/pid" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "the job did not start"
    sleep 0.1
done
job_pid=$(cat "$dir/pid")
echo "mpiexec $mpiexec_pid, job $job_pid"
[ "$job_pid" != "$mpiexec_pid" ] || fail "mpiexec did not run the job as its child"
kill -TERM "$mpiexec_pid"
wait "$mpiexec_pid"
status=$?
echo "mpiexec ended with status $status"
[ $status -eq 143 ] || fail "expected status 143 (128 + SIGTERM)"
if kill -0 "$job_pid" 2>/dev/null; then
    kill -KILL "$job_pid"
    fail "the job outlived mpiexec"
fi
echo "ok: the job ended with mpiexec"
