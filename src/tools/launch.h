/*
 * launch.h — what mpiexec and the runtime main (rank_main.c) agree on.
 *
 * mpiexec hands the job's shape to the program through the environment
 * (variables of the table in base/env.c): MYR_NRANKS, MYR_WORKERS and
 * MYR_TAG_OUTPUT. Both sides refuse the same values, so a bad -n is caught
 * by mpiexec with a message about -n rather than by the program.
 */
#ifndef MYR_TOOLS_LAUNCH_H
#define MYR_TOOLS_LAUNCH_H

/* Ranks in one job: well below INT_MAX, so rank arithmetic in int (sizes,
 * sums of ranks in long) cannot overflow. */
#define MYR_MAX_RANKS 100000000L

#endif
