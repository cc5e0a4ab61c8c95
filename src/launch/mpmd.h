/*
 * mpmd.h — several programs in one job, one OS process:
 * `mpiexec -n 2 ./a : -n 3 ./b` makes one MPI_COMM_WORLD of 5 ranks, 0-1
 * running a's main (MPI_APPNUM 0) and 2-4 b's (MPI_APPNUM 1).
 *
 * mpiexec execs the first program as for any job, with MYR_NRANKS the
 * job's size, and describes the whole job in MYR_MPMD. Its runtime
 * (rank_start.c) runs the program itself for the first program's ranks
 * (privatized as usual) and asks this file for the others: each other
 * program is loaded into the process with dlopen, from a memfd copy of its
 * file marked loadable (as privatize.c loads copies of the program itself),
 * once per rank when it has writable globals (each copy brings fresh
 * globals; MYR_PRIVATIZE decides as for the program itself), and the
 * rank runs that copy's main with its own program's argv. Every program
 * must be built with Myriad's mpicc (position-independent, calling the
 * launcher) against this libmyriad; otherwise the job stops with one line
 * saying why.
 *
 * MYR_MPMD holds fields written `<length>:<bytes>`, one after the other:
 *   count of programs, ranks of the first, then for each further program:
 *   ranks, absolute path of its file, argc, argv[0] ... argv[argc-1].
 */
#ifndef MYR_LAUNCH_MPMD_H
#define MYR_LAUNCH_MPMD_H

#include "launch/privatize.h"

/* Read MYR_MPMD for a job of `nranks` ranks: *own is how many of them (the
 * first) run the program itself — all of them without MPMD. Returns 0, or
 * -1 after printing why not. */
int myr_mpmd_plan(long nranks, long *own);

/* Load the other programs for ranks own..nranks-1, filling their entries
 * of p->ranks (which grows to nranks). Call after the program's own ranks
 * were loaded, before the runtime starts. Returns 0, or -1 after printing
 * why not. */
int myr_mpmd_load(myr_privatization *p, long nranks);

/* Memory mappings the loaded programs take (to keep out of stack budgets). */
long myr_mpmd_mappings(void);

/* The argc and argv of the program rank `rank` runs: left as they are for
 * the program's own ranks. */
void myr_mpmd_args(long rank, int *argc, char ***argv);

#endif
