/* job.c — what a job looks like from inside, and how it ends:
 *   job shape ARGS...          rank 0 prints the job's shape; every rank
 *                              checks that it got ARGS
 *   job return R C [R C]...    rank R returns C (the others return 0)
 *   job exit R C               rank R calls exit(C) before MPI_Finalize
 *   job exit-after R C         rank R calls exit(C) after MPI_Finalize; the
 *                              others go on running and say so
 *   job exit-before-init DIR C the one rank that creates directory DIR
 *                              calls exit(C) before MPI_Init (a rank cannot
 *                              know its number yet); the others run on */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int shape(int rank, int size, int argc, char **argv)
{
    int status = 0;
    /* Each rank has its own argv array, so a rank may permute it (as getopt
     * does): swap two entries, let the other ranks run, and find them as
     * this rank left them. */
    if (argc > 3) {
        char *a = argv[2], *b = argv[3];
        argv[2] = b;
        argv[3] = a;
        myr_ult_yield();
        if (argv[2] != b || argv[3] != a) {
            fprintf(stderr, "rank %d: another rank changed my argv\n", rank);
            status = 1;
        }
        argv[2] = a;
        argv[3] = b;
    }
    if (argv[argc] != NULL)
        status = 1;
    if (rank == 0) {
        printf("ranks=%d workers=%d args:", size, myr_worker_count());
        for (int i = 2; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n");
    }
    return status;
}

int main(int argc, char **argv)
{
    int rank, size, status = 0;
    if (argc == 4 && strcmp(argv[1], "exit-before-init") == 0 &&
        mkdir(argv[2], 0700) == 0)
        exit(atoi(argv[3]));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "shape") == 0) {
        status = shape(rank, size, argc, argv);
    } else if (strcmp(what, "return") == 0) {
        for (int i = 2; i + 1 < argc; i += 2)
            if (atoi(argv[i]) == rank)
                status = atoi(argv[i + 1]);
    } else if (strcmp(what, "exit") == 0 && argc == 4) {
        if (atoi(argv[2]) == rank)
            exit(atoi(argv[3]));
    } else if (strcmp(what, "exit-before-init") == 0 && argc == 4) {
        /* The others finish (below): MPI_Finalize does not wait for a
         * rank that ended without MPI_Init. */
        printf("rank %d finalized\n", rank);
    } else if (strcmp(what, "exit-after") == 0 && argc == 4) {
        MPI_Finalize();
        if (atoi(argv[2]) == rank)
            exit(atoi(argv[3]));
        /* Let the exiting rank run first: its exit must not end us. */
        for (int i = 0; i < 100; i++)
            myr_ult_yield();
        printf("rank %d ran to the end\n", rank);
        return 0;
    } else {
        fprintf(stderr, "usage: job shape|return|exit ...\n");
        status = 2;
    }
    MPI_Finalize();
    return status;
}
