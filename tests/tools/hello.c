/* hello.c — the hello world of the tools tests, built with mpicc: the ranks
 * add up their ranks and count themselves with MPI_Allreduce; rank 0 checks
 * that every rank ran exactly once and prints one line. No globals, so
 * MYR_PRIVATIZE=auto shares them and 100,000 ranks fit. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine[2] = {rank, 1}, total[2];
    MPI_Allreduce(mine, total, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long expected = (long)size * (size - 1) / 2;
    int status = total[0] != expected || total[1] != size;
    if (rank == 0)
        printf("hello from %ld ranks: sum of ranks %ld, expected %ld: %s\n",
               total[1], total[0], expected, status ? "WRONG" : "correct");
    MPI_Finalize();
    return status;
}
