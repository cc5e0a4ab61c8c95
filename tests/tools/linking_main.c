/* linking_main.c — a C program's main, linked in each way of
 * linking.cmake (an object, a static archive, a shared library, -flto).
 * Each rank counts once in a global: rank 0 says whether the ranks had
 * their own (private copies of the program) or one shared counter (main in
 * a shared library, loaded once). */
#include <mpi.h>
#include <stdio.h>

int counter;

int main(int argc, char **argv)
{
    int rank, size, sum = 0, most = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = __atomic_load_n(&counter, __ATOMIC_RELAXED);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&seen, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("linking: %d ranks, sum of ranks %d: %s, globals %s\n", size, sum,
               sum == size * (size - 1) / 2 ? "correct" : "WRONG",
               most == 1 ? "private" : "shared");
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
