#!/bin/sh
# job_check.sh [--bound SEC] [--last] STATUS PATTERN... -- MPIEXEC-COMMAND...
# Runs a job (of several OS processes) that must end by itself (a failure,
# a deadlock, a time limit), with one more argument that names its
# processes (the test programs ignore it), and passes when: mpiexec exits
# with STATUS within SEC seconds (default 15: the job must end within 5 s;
# the margin is for loaded machines), the extended regexes PATTERN match
# lines of its output in their order, with --last the last PATTERN its
# last line, and no process of the job is left once mpiexec has returned.
bound=15
last_line=0
while :; do
    case "$1" in
        --bound) bound=$2; shift 2 ;;
        --last) last_line=1; shift ;;
        *) break ;;
    esac
done
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
token="job-check-$$-$(date +%s%N)"
fail() { echo "FAIL: $*"; exit 1; }
# Processes whose command line holds the token: one grep over /proc (a
# process per entry is slow on a loaded machine); "[j]" keeps grep from
# finding itself.
leftovers() {
    grep -lsa -- "[j]${token#j}" /proc/[0-9]*/cmdline | sed 's|^/proc/\([0-9]*\)/cmdline$|\1|'
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
if [ "$last_line" = 1 ]; then
    printf '%s\n' "$out" | sed '/^$/d' | tail -n 1 | grep -Eq -- "$last" ||
        fail "the last line does not match: $last"
fi
echo "ok: status $status, the lines, no process left"
