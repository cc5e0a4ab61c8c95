#!/bin/sh
# expect_lines.sh STATUS COUNT REGEX -- PROGRAM [ARGS...]
# Passes when PROGRAM exits with STATUS and exactly COUNT lines of its
# output (stdout and stderr together) match the extended regex REGEX.
want=$1 count=$2 pattern=$3
shift 4
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then echo "expected status $want, got $status"; exit 1; fi
got=$(printf '%s\n' "$out" | grep -Ec -- "$pattern")
if [ "$got" -ne "$count" ]; then
    echo "expected $count lines matching $pattern, got $got"; exit 1
fi
echo "ok: status $status, $count lines matched"
