/* mpmd_prog.c — built twice (PROGRAM "a" and "b") for mpiexec's MPMD
 * tests, and once more not position-independent. Every rank prints one
 * line: which program it runs, its rank, MPI_APPNUM, the sum of all ranks
 * (one MPI_COMM_WORLD over both programs), how many mains ran with its
 * globals (1: a copy of its own) and its arguments; `cwd` and `env=NAME`
 * print the working directory and a variable instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PROGRAM
#define PROGRAM "a"
#endif

static int mains_run;  /* a writable global: the ranks' own, or shared */

int main(int argc, char **argv)
{
    mains_run++;
    MPI_Init(&argc, &argv);
    int rank, size, flag, *appnum = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line,
                                "%s: rank %d of %d, appnum %d, sum %d, mains %d, args:",
                                PROGRAM, rank, size, flag ? *appnum : -1, sum, mains_run);
    for (int i = 1; i < argc && n < sizeof line; i++) {
        char cwd[1024];
        if (strcmp(argv[i], "cwd") == 0)
            n += (size_t)snprintf(line + n, sizeof line - n, " cwd=%s",
                                  getcwd(cwd, sizeof cwd) ? cwd : "?");
        else if (strncmp(argv[i], "env=", 4) == 0)
            n += (size_t)snprintf(line + n, sizeof line - n, " %s=%s", argv[i] + 4,
                                  getenv(argv[i] + 4) ? getenv(argv[i] + 4) : "(unset)");
        else
            n += (size_t)snprintf(line + n, sizeof line - n, " [%s]", argv[i]);
    }
    puts(line);
    MPI_Finalize();
    return 0;
}
