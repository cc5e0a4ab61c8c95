/* tag_lines.c — output for `mpiexec -l`: each rank writes LINES lines to
 * stdout, each in three pieces with yields between them (so that ranks
 * interleave in the middle of lines), two lines in one printf, and one line
 * to stderr. Rank 0 also has a kernel thread, outside any rank, print a
 * line, and ends with a line without its newline. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *print_outside(void *arg)
{
    (void)arg;
    printf("outside any rank\n");
    return NULL;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int lines = argc > 1 ? atoi(argv[1]) : 5;
    for (int i = 0; i < lines; i++) {
        printf("rank %d ", rank);
        myr_ult_yield();
        printf("line %d", i);
        myr_ult_yield();
        putchar('\n');
    }
    printf("rank %d multi a\nrank %d multi b\n", rank, rank);
    fprintf(stderr, "rank %d on stderr\n", rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, print_outside, NULL);
        pthread_join(t, NULL);
        printf("rank 0 unfinished");
    }
    MPI_Finalize();
    return 0;
}
