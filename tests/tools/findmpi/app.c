/* A C program with writable globals and libc variables read directly
 * (stderr, optind, optarg): built -fPIE by CMake, each rank must see its
 * own globals and parse its own arguments. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int counter;
static int k_value = -1;
static const char *mode = "none";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int opt;
    while ((opt = getopt(argc, argv, "k:m:")) != -1) {
        if (opt == 'k')
            k_value = atoi(optarg);
        else if (opt == 'm')
            mode = optarg;
    }
    int args_ok = k_value == 5 && optind == argc - 1;
    for (int i = 0; i <= rank % 7; i++) {
        counter += 1;
        MPIX_Yield();   /* let other ranks write theirs in between */
    }
    int own = counter == rank % 7 + 1 && args_ok;
    int all_own = 0, sum = 0;
    MPI_Allreduce(&own, &all_own, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!own)
        fprintf(stderr, "rank %d: counter %d (expected %d), k %d, optind %d of %d\n",
                rank, counter, rank % 7 + 1, k_value, optind, argc);
    if (rank == 0)
        printf("app_c: %d ranks (sum %d), mode %s, %s\n", size, sum, mode,
               all_own ? "each counted in its own counter and parsed its own arguments"
                       : "SHARED STATE");
    MPI_Finalize();
    return all_own ? 0 : 1;
}
