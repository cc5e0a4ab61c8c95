/* pie_no_globals.c — built with mpicc -fPIE and reading stdout (a COPY
 * relocation) but defining no globals: auto shares, so it runs. */
#include "priv.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Finalize();
    if (rank == 0)
        fprintf(stdout, "pie_no_globals: %d ranks\n", size);
    return 0;
}
