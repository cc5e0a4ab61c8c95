/* pie.c — built with mpicc -fPIE (not mpicc's -fPIC), as CMake's FindMPI
 * builds: on x86_64 it reads optind and stdout, libc variables, through
 * COPY relocations, which each private copy of the program gets its own
 * instances of. It has a global, so auto privatizes it. */
#include <getopt.h>

#include "priv.h"

int runs;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = __atomic_load_n(&runs, __ATOMIC_RELAXED);
    MPI_Finalize();
    if (rank == 0)
        fprintf(stdout, "pie: %d ranks, optind %d, %d runs counted\n", size,
                optind, seen);
    return 0;
}
