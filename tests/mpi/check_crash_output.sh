#!/bin/sh
# check_crash_output.sh STATUS NRANKS PATTERN... -- PROGRAM [ARGS...]
# Runs PROGRAM ARGS FILE (FILE: a path for rank 0's own file) twice, with
# stdout to a file and to a pipe, and passes when both times it exits with
# STATUS, stdout holds every rank's line "rank R of NRANKS: before the
# crash" and rank 1's unfinished "rank 1 unfinished" (each optionally
# tagged "[R] " by mpiexec -l), FILE holds rank 0's line if the program
# wrote one, and every extended regex PATTERN matches a line of stderr.
want=$1 nranks=$2
shift 2
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    patterns="$patterns$1
"
    shift
done
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

check() {  # how: what stdout was
    how=$1 status=$2
    echo "--- stdout to $how: status $status"
    cat "$dir/err"
    fail=0
    if [ "$status" -ne "$want" ]; then echo "expected status $want"; fail=1; fi
    r=0
    while [ $r -lt "$nranks" ]; do
        if ! grep -Eq "^(\\[$r\\] )?rank $r of $nranks: before the crash$" "$dir/out"; then
            echo "rank $r's line is missing from stdout"; fail=1
        fi
        r=$((r + 1))
    done
    if ! grep -Eq "^(\\[1\\] )?rank 1 unfinished" "$dir/out"; then
        echo "rank 1's unfinished line is missing from stdout"; fail=1
    fi
    if [ -e "$dir/file" ] && ! grep -q "^rank 0 wrote this to its own file$" "$dir/file"; then
        echo "rank 0's own file lost its line"; fail=1
    fi
    # A subshell for the loop: a pipeline's exit status is its last command's.
    if ! printf '%s' "$patterns" | (
        bad=0
        while IFS= read -r p; do
            if ! grep -Eq -- "$p" "$dir/err"; then echo "stderr does not match: $p"; bad=1; fi
        done
        exit $bad); then
        fail=1
    fi
    if [ $fail -ne 0 ]; then echo "stdout:"; cat "$dir/out"; fi
    return $fail
}

rm -f "$dir/file"
"$@" "$dir/file" >"$dir/out" 2>"$dir/err"
check "a file" $? || exit 1
rm -f "$dir/file"
{ "$@" "$dir/file" 2>"$dir/err"; echo $? >"$dir/status"; } | cat >"$dir/out"
check "a pipe" "$(cat "$dir/status")" || exit 1
echo "ok: status $want, every rank's output arrived, stdout to a file and to a pipe"
