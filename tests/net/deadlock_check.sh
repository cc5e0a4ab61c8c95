#!/bin/sh
# deadlock_check.sh STATUS PATTERN... -- MPIEXEC-COMMAND...
# Runs a job of several OS processes that must be ended (a deadlock, or
# the time limit), with one more argument that names its processes
# (deadlock_across.c ignores it), and passes when: mpiexec exits with
# STATUS within BOUND seconds (default 30), the extended regexes PATTERN
# match lines of its output in their order, the last PATTERN its last
# line, and no process of the job is left once mpiexec has returned.
want=$1
shift
patterns=""
last=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    patterns="$patterns$1
"
    last=$1
    shift
done
shift
bound=${BOUND:-30}
token="deadlock-test-$$-$(date +%s%N)"
fail() { echo "FAIL: $*"; exit 1; }
# Processes whose command line holds the token ("[d]" keeps grep from
# finding itself).
leftovers() {
    grep -lsa -- "[d]${token#d}" /proc/[0-9]*/cmdline | sed 's|^/proc/\([0-9]*\)/cmdline$|\1|'
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
# In order: each pattern matches a line after the previous one's.
after=0
printf '%s' "$patterns" | while IFS= read -r p; do
    at=$(printf '%s\n' "$out" | grep -En -- "$p" |
         awk -F: -v after="$after" '$1 > after { print $1; exit }')
    [ -n "$at" ] || { echo "FAIL: no line after line $after matches: $p"; exit 1; }
    after=$at
done || exit 1
printf '%s\n' "$out" | sed '/^$/d' | tail -n 1 | grep -Eq -- "$last" ||
    fail "the last line does not match: $last"
echo "ok: status $status, the lines, no process left"
