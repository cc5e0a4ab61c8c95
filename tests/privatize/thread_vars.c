/* thread_vars.c — a program with a __thread variable (which belongs to the
 * worker threads, not to the ranks): `mpiexec -v` warns about it; the
 * copies of the program, each with its own TLS block, still load and run. */
#include "priv.h"

static __thread int calls_on_this_thread;
static int calls;  /* a writable global: auto privatizes */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    calls_on_this_thread++;  /* no yield in between: nothing to check */
    calls++;
    int ok = priv_all(calls == 1 && calls_on_this_thread >= 1);
    MPI_Finalize();
    if (rank == 0)
        printf("thread_vars: %d ranks, %s\n", size, ok ? "ran" : "WRONG");
    return ok ? 0 : 1;
}
