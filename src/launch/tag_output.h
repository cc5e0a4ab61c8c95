/*
 * tag_output.h — `mpiexec -l`: every line a rank writes to stdout or stderr
 * comes out prefixed with "[rank] ", whole (lines of different ranks are
 * never mixed).
 *
 * stdout and stderr are replaced by streams (glibc fopencookie) whose write
 * function looks up the calling ULT's rank and keeps each rank's unfinished
 * line apart until its newline arrives. Output written with write(2), or
 * through C++ streams (bound to the original stdout before main), is not
 * tagged.
 */
#ifndef MYR_LAUNCH_TAG_OUTPUT_H
#define MYR_LAUNCH_TAG_OUTPUT_H

/* Start tagging when MYR_TAG_OUTPUT=1, for this process's `nranks` ranks,
 * job ranks first.. (tags name job ranks). Returns 0, or -1 after printing
 * why it could not. Call before the ranks start. */
int myr_tag_output_start(int first, int nranks);

/* Job rank `rank` (of this process) is done: its unfinished lines go out, ended by a newline. */
void myr_tag_output_rank_done(int rank);

/* Every rank is done: write what is left, and give back the original
 * stdout and stderr. */
void myr_tag_output_finish(void);

#endif
