/* gdb_deadlock.c — a deadlock for the gdb commands: ranks 0-2 wait in
 * MPI_Barrier while rank 3 waits for a message nobody sends. Under gdb
 * with tools/gdb/myriad-gdb.py the job stops before it ends, every rank
 * still there to look at. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 3)
        MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return value;
}
