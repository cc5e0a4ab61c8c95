#!/bin/sh
# expect_output.sh STATUS STDOUT STDERR_ERE -- PROGRAM [ARGS...]
# Passes when PROGRAM exits with status STATUS, its stdout is exactly STDOUT
# and its stderr is exactly one line, matching the extended regex STDERR_ERE
# (for "a fatal error prints one line, even when every rank hits it").
want=$1
expected=$2
pattern=$3
shift 4
errfile=$(mktemp) || exit 1
out=$("$@" 2>"$errfile")
status=$?
err=$(cat "$errfile")
lines=$(wc -l <"$errfile")
rm -f "$errfile"
printf 'stdout: %s\nstderr: %s\n' "$out" "$err"
if [ "$status" -ne "$want" ]; then echo "expected status $want, got $status"; exit 1; fi
if [ "$out" != "$expected" ]; then echo "expected stdout: $expected"; exit 1; fi
if [ "$lines" -ne 1 ]; then echo "expected one line on stderr, got $lines"; exit 1; fi
if ! printf '%s\n' "$err" | grep -Eq -- "$pattern"; then
    echo "stderr does not match: $pattern"; exit 1
fi
echo "ok: status $status, output matched"
