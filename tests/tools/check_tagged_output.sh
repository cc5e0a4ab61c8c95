#!/bin/sh
# check_tagged_output.sh NRANKS LINES -- MPIEXEC-COMMAND...
# Runs the tag_lines program under `mpiexec -l` (the command given) and
# checks that every line of stdout and stderr is whole and carries the tag
# of the rank that wrote it, in that rank's order, and that nothing is lost.
nranks=$1 lines=$2
shift 3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" >"$dir/out" 2>"$dir/err"
status=$?
if [ $status -ne 0 ]; then
    echo "the job failed with status $status"; head -n 20 "$dir/out" "$dir/err"; exit 1
fi
awk -v nranks="$nranks" -v lines="$lines" '
    # "[R] rank R line I", "[R] rank R multi a|b", "[0] rank 0 thread" (a
    # kernel thread of rank 0), "[0] rank 0 unfinished", and one untagged
    # "outside any rank" (a kernel thread that no rank created).
    $0 == "outside any rank" { outside++; next }
    {
        if ($1 != "[" $3 "]" || $2 != "rank" || $3 !~ /^[0-9]+$/ || $3 >= nranks) {
            print "bad line: " $0; bad = 1; next
        }
        r = $3
        if ($4 == "line" && NF == 5) {
            if ($5 != next_line[r] + 0) { print "rank " r " out of order: " $0; bad = 1 }
            next_line[r]++
        } else if ($4 == "multi" && NF == 5 && ($5 == "a" || $5 == "b")) {
            multi[r]++
        } else if ($4 == "thread" && NF == 4 && r == 0) {
            thread++
        } else if ($4 == "unfinished" && NF == 4 && r == 0) {
            unfinished++
        } else {
            print "bad line: " $0; bad = 1
        }
    }
    END {
        for (r = 0; r < nranks; r++)
            if (next_line[r] != lines || multi[r] != 2) {
                print "rank " r ": " next_line[r] + 0 " lines, " multi[r] + 0 " multi"; bad = 1
            }
        if (outside != 1) { print "untagged line seen " outside + 0 " times"; bad = 1 }
        if (thread != 1) { print "rank 0 thread line seen " thread + 0 " times"; bad = 1 }
        if (unfinished != 1) { print "unfinished line seen " unfinished + 0 " times"; bad = 1 }
        if (bad) exit 1
        print "stdout: " NR " lines, all tagged with their writer"
    }' "$dir/out" || { head -n 20 "$dir/out"; exit 1; }
awk -v nranks="$nranks" '
    $1 == "[" $3 "]" && $2 == "rank" && $4 == "on" && $5 == "stderr" && NF == 5 { seen[$3]++; next }
    { print "bad stderr line: " $0; bad = 1 }
    END {
        for (r = 0; r < nranks; r++)
            if (seen[r] != 1) { print "rank " r ": " seen[r] + 0 " stderr lines"; bad = 1 }
        if (bad) exit 1
        print "stderr: " NR " lines, all tagged with their writer"
    }' "$dir/err" || { head -n 20 "$dir/err"; exit 1; }
