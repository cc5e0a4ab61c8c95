/* exit.c — exit() from a rank ends that rank only, as returning from main
 * does, and atexit handlers run once per rank (private mode). Run as
 * `exit CASE`:
 *   ends_only_its_rank    after MPI_Finalize rank 1 calls exit(5); rank 0
 *                         runs on until rank 1's atexit handler has run (it
 *                         writes to a pipe), then prints a line
 *   lowest_rank_decides   rank 1 calls exit(0), rank 2 exit(7), rank 3
 *                         returns 4: the job's status is 7
 *   status_256            rank 1 calls exit(256): 0 mod 256 must not pass
 *   before_finalize R C   rank R calls exit(C) between MPI_Init and
 *                         MPI_Finalize: the job dies
 *   atexit                every rank registers a handler printing
 *                         "atexit R" (R: the rank that registered it, as
 *                         its copy of the program recorded); odd ranks end
 *                         with exit(0), even ones return 0 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "priv.h"

static int my_rank = -1;
static int signal_fd = -1;

static void signal_rank_0(void)
{
    char byte = 1;
    if (write(signal_fd, &byte, 1) != 1)
        fprintf(stderr, "rank %d: cannot write to the pipe\n", my_rank);
}

static void say_atexit(void)
{
    printf("atexit %d\n", my_rank);
}

/* Rank 0's side of ends_only_its_rank: wait (yielding) for the byte rank
 * 1's atexit handler writes. After MPI_Finalize MPIX_Yield is an error:
 * myr_ult_yield lets the other ranks run. The 60 s bound only keeps a
 * broken runtime from hanging the test. */
static int heard_from_rank_1(int fd)
{
    time_t give_up = time(NULL) + 60;
    while (time(NULL) < give_up) {
        char byte;
        ssize_t n = read(fd, &byte, 1);
        if (n == 1)
            return 1;
        if (n < 0 && errno != EAGAIN)
            return 0;
        myr_ult_yield();
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "ends_only_its_rank") == 0) {
        int fds[2] = {-1, -1};
        if (rank == 0) {
            if (pipe2(fds, O_NONBLOCK) != 0)
                return 2;
            MPI_Send(&fds[1], 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&signal_fd, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            atexit(signal_rank_0);
        }
        MPI_Finalize();
        if (rank == 1)
            exit(5);
        if (rank == 0) {
            if (!heard_from_rank_1(fds[0]))
                return 3;
            printf("exit: rank 0 ran on after rank 1 called exit\n");
        }
        return 0;
    }
    if (strcmp(what, "lowest_rank_decides") == 0) {
        MPI_Finalize();
        if (rank == 1)
            exit(0);
        if (rank == 2)
            exit(7);
        if (rank == 0)
            printf("exit: rank 0 returns 0\n");
        return rank == 3 ? 4 : 0;
    }
    if (strcmp(what, "status_256") == 0) {
        MPI_Finalize();
        if (rank == 1)
            exit(256);
        return 0;
    }
    if (strcmp(what, "before_finalize") == 0 && argc == 4) {
        if (rank == atoi(argv[2]))
            exit(atoi(argv[3]));
        MPI_Barrier(MPI_COMM_WORLD);  /* never completes: the job dies first */
        MPI_Finalize();
        return 0;
    }
    if (strcmp(what, "atexit") == 0) {
        atexit(say_atexit);
        MPI_Finalize();
        if (rank % 2)
            exit(0);
        return 0;
    }
    fprintf(stderr, "usage: exit ends_only_its_rank|lowest_rank_decides|"
            "status_256|before_finalize R C|atexit\n");
    MPI_Finalize();
    return 2;
}
