#!/bin/sh
# once_per_rank.sh STATUS N WORD tagged|untagged PATTERN... -- COMMAND...
# Runs COMMAND (stdout and stderr together) and passes when it exits with
# STATUS, every extended regex PATTERN matches a line, and the lines whose
# words hold WORD are:
#   tagged    "[R] WORD R" (mpiexec -l), exactly once for each rank R in
#             0..N-1: each rank's own line, written on that rank
#   untagged  "WORD X", exactly N of them, X any rank (written outside the
#             ranks, at the process's exit)
want=$1 n=$2 word=$3 form=$4
shift 4
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    patterns="$patterns$1
"
    shift
done
shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out" | grep -v -- "$word" | head -n 20
if [ "$status" -ne "$want" ]; then echo "expected status $want, got $status"; exit 1; fi
printf '%s' "$patterns" | while IFS= read -r p; do
    if ! printf '%s\n' "$out" | grep -Eq -- "$p"; then
        echo "output does not match: $p"; exit 1
    fi
done || exit 1
printf '%s\n' "$out" | awk -v n="$n" -v word="$word" -v form="$form" '
    {
        found = 0
        for (i = 1; i <= NF; i++)
            if ($i == word) found = 1
        if (!found) next
        if (form == "tagged") {
            if (NF != 3 || $2 != word || $1 != "[" $3 "]" || $3 !~ /^[0-9]+$/ || $3 + 0 >= n) {
                print "bad line: " $0; bad = 1; next
            }
            seen[$3 + 0]++
        } else {
            if (NF != 2 || $1 != word || $2 !~ /^-?[0-9]+$/) { print "bad line: " $0; bad = 1; next }
            lines++
        }
    }
    END {
        if (form == "tagged") {
            for (r = 0; r < n; r++)
                if (seen[r] != 1) { print "rank " r ": " seen[r] + 0 " lines of " word; bad = 1 }
        } else if (lines != n) {
            print lines + 0 " lines of " word ", expected " n; bad = 1
        }
        exit bad
    }' || exit 1
echo "ok: status $status, one $word line per rank"
