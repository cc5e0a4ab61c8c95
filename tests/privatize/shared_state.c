/* shared_state.c — a program that uses a shared library of its own
 * (shared_state_lib.c) whose globals every rank shares: the job warns
 * without -v, naming the library and its globals; one rank shares nothing
 * and is not warned. */
#include "priv.h"

int shared_state_next(void);

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shared_state_next();
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = shared_state_next() + 1;   /* 2 * size once every rank is past */
    int max = 0;
    MPI_Reduce(&seen, &max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("shared_state: %d ranks, the library counted %d calls\n", size, max);
    return 0;
}
