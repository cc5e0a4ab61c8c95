#!/bin/sh
# expect_crash.sh STATUS PATTERN... -- PROGRAM [ARGS...]
# Passes when PROGRAM exits with a non-zero status (STATUS: "nonzero", or an
# exact number) and every extended regex PATTERN matches a line of stderr.
want=$1
shift
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    patterns="$patterns$1
"
    shift
done
shift
err=$("$@" 2>&1 >/dev/null)
status=$?
printf '%s\n' "$err"
if [ "$status" -eq 0 ]; then echo "expected a failure, got status 0"; exit 1; fi
if [ "$want" != nonzero ] && [ "$status" -ne "$want" ]; then
    echo "expected status $want, got $status"; exit 1
fi
printf '%s' "$patterns" | while IFS= read -r p; do
    if ! printf '%s\n' "$err" | grep -Eq -- "$p"; then
        echo "stderr does not match: $p"; exit 1
    fi
done || exit 1
echo "ok: status $status, messages matched"
