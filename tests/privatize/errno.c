/* errno.c — errno belongs to each rank: a rank sets it (directly and by a
 * failing call), lets the other ranks run (and set theirs, possibly on the
 * same worker or after moving to another one) and finds its own value. The
 * program defines no writable globals of its own. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "priv.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errno = 1000 + rank;
    priv_yield(5);
    int ok = errno == 1000 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    /* Half the ranks fail one way, half the other. */
    int want = rank % 2 ? ENOENT : EBADF;
    int failed = rank % 2 ? open("/nonexistent/myriad-errno", O_RDONLY) : close(-1);
    ok = ok && failed == -1 && errno == want;
    priv_yield(5);
    ok = ok && errno == want;
    ok = priv_all(ok);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok)
        printf("errno: %d ranks, each kept its own errno\n", size);
    else
        printf("errno: %d ranks, WRONG: a rank saw another rank's errno\n", size);
    return ok ? 0 : 1;
}
