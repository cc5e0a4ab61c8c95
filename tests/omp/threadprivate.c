/* threadprivate.c — OpenMP threadprivate variables (gcc: thread-local
 * storage) are each OpenMP thread's, in every rank (src/ult/tls.c): the
 * master keeps its own values and the others start from the initial ones;
 * each thread's values survive its barriers and the next region of the
 * same team size (OpenMP 5.2, 5.2: "persist between parallel regions");
 * copyin gives every thread the master's scalar. A separate program from
 * omp_calls.c: a program with thread-local variables keeps each started
 * ULT on its worker, which the other cases must not be run under.
 *
 *   MYR_NRANKS=N MYR_WORKERS=W threadprivate
 * Prints "threadprivate: N ranks, every thread had its own variables" from
 * rank 0, or the failures and exit status 1. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define TEAM 4

static int counter = 5;
static double history[TEAM];
#pragma omp threadprivate(counter, history)

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter = 1000 + rank;
    #pragma omp parallel num_threads(TEAM) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        if (t == 0 ? counter != 1000 + rank : counter != 5)
            bad++;
        for (int round = 0; round < 20; round++) {
            counter = 100 * rank + t + round;
            history[round % TEAM] = t;
            #pragma omp barrier
            if (counter != 100 * rank + t + round || history[round % TEAM] != t)
                bad++;
        }
    }
    #pragma omp parallel num_threads(TEAM) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        if (counter != 100 * rank + t + 19)
            bad++;
    }
    counter = 7 * rank;
    #pragma omp parallel num_threads(TEAM) copyin(counter) reduction(+ : bad)
    {
        if (counter != 7 * rank)
            bad++;
    }
    if (bad)
        fprintf(stderr, "rank %d: %d wrong threadprivate values\n", rank, bad);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threadprivate: %d ranks, %s\n", size,
               all ? "WRONG" : "every thread had its own variables");
    MPI_Finalize();
    return all != 0;
}
