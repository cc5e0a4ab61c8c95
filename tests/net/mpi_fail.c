/*
 * mpi_fail.c — an MPI job of several OS processes in which one rank of
 * the second process fails as its first argument says, while every other
 * rank waits for it (in MPI_Recv from it, then in a barrier):
 *
 *   abort   MPI_Abort(MPI_COMM_WORLD, 5) (not from rank 0)
 *   segv    a NULL dereference
 *   kill    the process SIGKILLs itself
 *   early   the process exits with status 0 before MPI_Init
 *
 * The job must end within the bound, with the right line and status, and
 * leave no process behind (tests/net/CMakeLists.txt, with
 * tests/tools/launcher_failure.sh). Other arguments are ignored.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "abort";
    /* The first rank of the second process: MYR_NRANKS ranks per process. */
    const char *local = getenv("MYR_NRANKS");
    int per_process = local ? atoi(local) : 1;
    if (strcmp(how, "early") == 0 && getenv("PMIX_RANK") && atoi(getenv("PMIX_RANK")) == 1)
        exit(0);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int culprit = per_process < size ? per_process : size - 1;
    if (rank == culprit) {
        printf("rank %d fails (%s)\n", rank, how);
        fflush(stdout);
        usleep(100000);   /* the others are waiting by now */
        if (strcmp(how, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 5);
        if (strcmp(how, "segv") == 0) {
            volatile int *nowhere = NULL;
            *nowhere = 1;
        }
        if (strcmp(how, "kill") == 0)
            raise(SIGKILL);
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, culprit, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
