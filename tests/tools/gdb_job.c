/* gdb_job.c — a job stopped in gdb with ranks in known states, for the
 * test of tools/gdb/myriad-gdb.py: ranks 1.. wait in MPI_Recv from rank 0,
 * which stops in gdb_stop_here() before it sends. Run with one worker. */
#include <mpi.h>

__attribute__((noinline)) void gdb_stop_here(int rank)
{
    __asm__ volatile("" ::"r"(rank) : "memory");
}

__attribute__((noinline)) static int wait_for_rank_0(void)
{
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        /* Let every other rank reach its receive first (one worker). */
        for (int i = 0; i < 4 * size; i++)
            MPIX_Yield();
        gdb_stop_here(rank);
        for (int r = 1; r < size; r++)
            MPI_Send(&x, 1, MPI_INT, r, 9, MPI_COMM_WORLD);
    } else {
        x = wait_for_rank_0();
    }
    MPI_Finalize();
    return x == 1 ? 0 : 1;
}
