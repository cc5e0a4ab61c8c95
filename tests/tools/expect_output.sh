#!/bin/sh
# expect_output.sh STATUS PATTERN... -- PROGRAM [ARGS...]
# Passes when PROGRAM exits with STATUS (a number) and every extended regex
# PATTERN matches a line of its output (stdout and stderr together); a
# PATTERN written !REGEX must match no line.
want=$1
shift
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    patterns="$patterns$1
"
    shift
done
shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then echo "expected status $want, got $status"; exit 1; fi
printf '%s' "$patterns" | while IFS= read -r p; do
    case $p in
        !*) if printf '%s\n' "$out" | grep -Eq -- "${p#!}"; then
                echo "output matches what it must not: ${p#!}"; exit 1
            fi ;;
        *) if ! printf '%s\n' "$out" | grep -Eq -- "$p"; then
               echo "output does not match: $p"; exit 1
           fi ;;
    esac
done || exit 1
echo "ok: status $status, output matched"
