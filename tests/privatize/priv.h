/* priv.h — what the privatization test programs share.
 *
 * Each program checks, in every rank, that the rank saw only its own copy of
 * some kind of global state, and rank 0 prints one summary line that the
 * test matches. The programs say what they saw rather than assume a mode,
 * so one program can show both the private answer (MYR_PRIVATIZE=always or
 * auto) and the shared one (never). Only point-to-point, MPI_Barrier and
 * MPI_Allreduce exist so far: gathers are done by hand. */
#ifndef MYR_TEST_PRIV_H
#define MYR_TEST_PRIV_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* True in every rank when `ok` is true in every rank. */
static inline int priv_all(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Rank 0 learns whether every rank's `value` differs from every other
 * rank's (an address, say); the other ranks get 1. */
static inline int priv_all_distinct(uintptr_t value)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long v = (unsigned long)value;
    if (rank != 0) {
        MPI_Send(&v, 1, MPI_UNSIGNED_LONG, 0, 77, MPI_COMM_WORLD);
        return 1;
    }
    unsigned long *all = malloc((size_t)size * sizeof *all);
    if (!all)
        return 0;
    all[0] = v;
    for (int r = 1; r < size; r++)
        MPI_Recv(&all[r], 1, MPI_UNSIGNED_LONG, r, 77, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* Insertion sort, then neighbours: N is at most a few thousand. */
    for (int i = 1; i < size; i++)
        for (int j = i; j > 0 && all[j - 1] > all[j]; j--) {
            unsigned long t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    int distinct = 1;
    for (int i = 1; i < size; i++)
        distinct &= all[i] != all[i - 1];
    free(all);
    return distinct;
}

/* Let the other ranks run `n` times over, so they interleave with the
 * caller (and, on several workers, the caller may move). */
static inline void priv_yield(int n)
{
    for (int i = 0; i < n; i++)
        MPIX_Yield();
}

#endif
