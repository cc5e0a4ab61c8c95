/*
 * rank_stack.h — the default stack of a rank.
 */
#ifndef MYR_LAUNCH_RANK_STACK_H
#define MYR_LAUNCH_RANK_STACK_H

#include <stddef.h>

/* What a rank's stack is unless MYR_STACK_SIZE says otherwise, in a job of
 * `nranks` ranks in this process: what a thread of the process gets
 * (glibc's default, from `ulimit -s`: 8 MiB on most systems), so that a
 * rank's local arrays fit as they do in the main thread of a process-based
 * MPI's rank; at least 1 MiB, at most 1 GiB, and at most 32 GiB / nranks of
 * address space in all (8 MiB up to 4096 ranks). Pages are reserved, not committed (arch/stack.h). */
size_t myr_rank_stack_default(long nranks);

#endif
