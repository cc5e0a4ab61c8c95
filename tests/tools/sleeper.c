/* sleeper.c — a job that never ends: every rank sleeps. With an argument,
 * rank 0 first writes the process id to that file (for the test that checks
 * mpiexec passes SIGTERM on). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (!f)
            return 1;
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    for (;;)
        sleep(1000);
}
