/* counter.c — a global counter that every rank counts in.
 *
 * Rank r adds 1 to it r+1 times, letting the other ranks run between
 * increments, then reads it after a barrier. With private globals each rank
 * reads 1000 + r + 1 (it starts from the initial value of its own copy);
 * with shared ones every rank reads 1000 + N(N+1)/2. Rank 0 prints which
 * one the ranks saw. The increments are atomic so the shared answer is
 * exact on several workers. */
#include "priv.h"

int counter = 1000;   /* initialised data */
long increments;      /* bss */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int start = __atomic_load_n(&counter, __ATOMIC_RELAXED);
    int fresh = start == 1000;  /* only a private copy is sure to be */
    for (int i = 0; i <= rank; i++) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&increments, 1, __ATOMIC_RELAXED);
        MPIX_Yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = __atomic_load_n(&counter, __ATOMIC_RELAXED);
    long done = __atomic_load_n(&increments, __ATOMIC_RELAXED);
    long sum = (long)size * (size + 1) / 2;
    int own = priv_all(fresh && seen == 1000 + rank + 1 && done == rank + 1);
    int shared = priv_all(seen == 1000 + sum && done == sum);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (own)
        printf("counter: %d ranks, each counted in its own counter\n", size);
    else if (shared)
        printf("counter: %d ranks, all counted in one shared counter (%d)\n",
               size, seen);
    else
        printf("counter: %d ranks, WRONG: rank 0 saw %d, %ld increments\n",
               size, seen, done);
    return own || shared ? 0 : 1;
}
