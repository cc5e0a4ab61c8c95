/* thread_vars.c — a program's __thread variables are its ranks' own (as a
 * thread's are in a process-based MPI): each rank starts with the
 * variables' initial values, sets its own, and finds them after many
 * barriers, during which the ranks of a worker take turns on its thread
 * and, with several workers, move between them (src/ult/tls.c). */
#include "priv.h"

#include <string.h>

static __thread int mine = -1;
_Thread_local char note[40] = "initial";
static __thread double zeroed[64];   /* .tbss: starts at zero */
static int calls;  /* a writable global: auto privatizes */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    calls++;
    int ok = mine == -1 && strcmp(note, "initial") == 0;
    for (int i = 0; i < 64; i++)
        ok = ok && zeroed[i] == 0;
    char want[40];
    snprintf(want, sizeof want, "rank %d", rank);
    for (int round = 0; round < 100; round++) {
        mine = rank;
        strcpy(note, want);
        zeroed[round % 64] = rank + round;
        MPI_Barrier(MPI_COMM_WORLD);
        ok = ok && mine == rank && strcmp(note, want) == 0 &&
             zeroed[round % 64] == rank + round;
    }
    ok = priv_all(ok);
    MPI_Finalize();
    if (rank == 0)
        printf("thread_vars: %d ranks, %s\n", size,
               ok ? "each kept its own __thread variables" : "WRONG");
    return ok ? 0 : 1;
}
