/* big_array.c — a 1 MiB static array (bss) and an initialised one (data).
 *
 * Each rank finds both as the program defines them (zeros; the
 * initialiser), fills them with its rank, lets every other rank do the same,
 * and finds only its own rank in them.
 *
 * `big_array [KIB]` uses only the first KIB KiB of the big array (default:
 * all of it): every page a rank touches costs a page fault and a zeroed
 * page, ~1 GB and 10 s for 1000 ranks using all of it. */
#include "priv.h"

#define BIG_WORDS (1 << 18)   /* 1 MiB of int */
static int big[BIG_WORDS];
static int table[1024] = {[0] = 11, [512] = 12, [1023] = 13};

static int words = BIG_WORDS;   /* the part in use */

static int big_is(int value)
{
    for (int i = 0; i < words; i++)
        if (big[i] != value)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= BIG_WORDS / 256)
        words = atoi(argv[1]) * 256;
    int ok = big_is(0) && table[0] == 11 && table[1] == 0 &&
             table[512] == 12 && table[1023] == 13;
    /* Fill in two halves with the other ranks running in between. */
    for (int i = 0; i < words / 2; i++)
        big[i] = rank;
    MPIX_Yield();
    for (int i = words / 2; i < words; i++)
        big[i] = rank;
    for (int i = 0; i < 1024; i++)
        table[i] = -rank;
    MPI_Barrier(MPI_COMM_WORLD);
    priv_yield(3);
    ok = ok && big_is(rank);
    for (int i = 0; i < 1024; i++)
        ok = ok && table[i] == -rank;
    ok = priv_all(ok);
    int distinct = priv_all_distinct((uintptr_t)big);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok && distinct)
        printf("big_array: %d ranks, each filled and found its own %d KiB of "
               "the array\n", size, words / 256);
    else
        printf("big_array: %d ranks, WRONG: %s\n", size,
               !ok ? "a rank found another rank's values" : "arrays at the same address");
    return ok && distinct ? 0 : 1;
}
