/* constructor.c — a constructor that allocates: each rank's copy of the
 * program ran it once, before main, and the rank finds its own block
 * there, with the constructor's contents. */
#include "priv.h"

#define BLOCK_INTS 64
static int *block;
static int constructor_runs;

__attribute__((constructor)) static void make_block(void)
{
    constructor_runs++;
    block = malloc(BLOCK_INTS * sizeof *block);
    for (int i = 0; block && i < BLOCK_INTS; i++)
        block[i] = i;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = constructor_runs == 1 && block;
    for (int i = 0; ok && i < BLOCK_INTS; i++)
        ok = block[i] == i;
    MPI_Barrier(MPI_COMM_WORLD);  /* every rank has looked before any writes */
    for (int i = 0; ok && i < BLOCK_INTS; i++)
        block[i] = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    priv_yield(2);
    for (int i = 0; ok && i < BLOCK_INTS; i++)
        ok = block[i] == rank;
    ok = priv_all(ok);
    int distinct = priv_all_distinct((uintptr_t)block);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok && distinct)
        printf("constructor: %d ranks, each had its own constructor's block\n", size);
    else
        printf("constructor: %d ranks, WRONG: %s\n", size,
               !ok ? "a rank saw another rank's block or none"
                   : "two ranks share a block");
    return ok && distinct ? 0 : 1;
}
