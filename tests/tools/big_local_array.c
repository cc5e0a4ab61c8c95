/* big_local_array.c — each rank fills and checks a 3 MiB local array, as
 * programs written for process-based MPI do (the main thread's stack is
 * `ulimit -s`, 8 MiB by default, in every other MPI): Myriad's default rank
 * stack is the thread default too. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BYTES (3u << 20)

/* Not inlined, so that the array is this frame's, below main's. */
__attribute__((noinline)) static int fill_and_check(int rank)
{
    volatile unsigned char local[BYTES];
    for (unsigned i = 0; i < BYTES; i += 512)
        local[i] = (unsigned char)(rank + i / 512);
    MPIX_Yield();   /* other ranks fill theirs meanwhile */
    int ok = 1;
    for (unsigned i = 0; i < BYTES; i += 512)
        ok &= local[i] == (unsigned char)(rank + i / 512);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ok, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ok = fill_and_check(rank);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("big_local_array: %d ranks, each filled its own 3 MiB local array: %s\n",
               size, all ? "correct" : "WRONG");
    MPI_Finalize();
    return all ? 0 : 1;
}
