/* hello.c — the hello world of the tools tests, built with mpicc: every rank
 * adds its rank to a sum; the last rank to arrive checks that each rank ran
 * exactly once and prints one line. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

/* Shared by every rank: ranks are threads of one process. */
static atomic_long rank_sum;
static atomic_int arrived;

int main(int argc, char **argv)
{
    int rank, size, status = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    atomic_fetch_add(&rank_sum, rank);
    if (atomic_fetch_add(&arrived, 1) + 1 == size) {
        long expected = (long)size * (size - 1) / 2;
        long sum = atomic_load(&rank_sum);
        printf("hello from %d ranks: sum of ranks %ld, expected %ld: %s\n", size,
               sum, expected, sum == expected ? "correct" : "WRONG");
        status = sum != expected;
    }
    MPI_Finalize();
    return status;
}
