/* crash_output.c — what the ranks printed before a fatal end of the job
 * reaches stdout, a pipe or a file (ult/overflow.c, myr_job_end_*).
 * Usage: crash_output CASE [FILE]. Every rank prints a line with printf,
 * rank 1 an unfinished one, rank 0 a line to FILE (fopen'ed, never
 * flushed or closed); then rank 2 ends the job in the way CASE names while
 * the others wait in MPI (or, for time_limit, rank 2 computes). With
 * stdout a file or a pipe, stdio holds all of it in its buffers: only the
 * runtime's flush on the way out brings it out. */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any stack: each frame keeps 1 KiB live. */
__attribute__((noinline)) int recurse(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    return depth > 1 << 30 ? frame[0] : recurse(depth + 1) + frame[0];
}

static void end_in_rank_2(const char *how, MPI_Comm halo)
{
    if (strcmp(how, "segfault") == 0) {
        *(int *volatile)NULL = 7;
    } else if (strcmp(how, "stack_overflow") == 0) {
        printf("%d\n", recurse(0));
    } else if (strcmp(how, "abort") == 0) {
        abort();
    } else if (strcmp(how, "sigbus") == 0) {
        raise(SIGBUS);
    } else if (strcmp(how, "sigfpe") == 0) {
        raise(SIGFPE);
    } else if (strcmp(how, "mpi_abort") == 0) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (strcmp(how, "errors_are_fatal") == 0) {
        int x = 0;
        MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    } else if (strcmp(how, "deadlock") == 0) {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 7, halo, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "time_limit") == 0) {
        for (volatile unsigned long i = 0;; i++)
            continue;
    } else {
        fprintf(stderr, "crash_output: unknown case %s\n", how);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2)
        return 2;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm halo;
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
    MPI_Comm_set_name(halo, "halo");
    FILE *f = me == 0 && argc > 2 ? fopen(argv[2], "w") : NULL;
    if (f)
        fprintf(f, "rank 0 wrote this to its own file\n");
    printf("rank %d of %d: before the crash\n", me, n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1)
        printf("rank 1 unfinished");
    MPI_Barrier(MPI_COMM_WORLD);
    /* Rank 2 ends the job; rank 0 waits for a message from rank 1 that
     * never comes, the others in a barrier rank 0 and 2 do not reach. */
    if (me == 2) {
        end_in_rank_2(argv[1], halo);
    } else if (me == 0) {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 1, 9, halo, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "rank %d: the job went on after rank 2's %s\n", me, argv[1]);
    MPI_Finalize();
    return 1;
}
