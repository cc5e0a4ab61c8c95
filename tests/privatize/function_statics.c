/* function_statics.c — static variables inside functions: a call counter,
 * a static result buffer (as strtok or asctime keep) and a lazily
 * allocated block. Each rank takes rank+1 tickets with the other ranks
 * running between calls, and finds the buffer and the block as it left
 * them. */
#include <string.h>

#include "priv.h"

static int next_ticket(void)
{
    static int issued;
    return ++issued;
}

static const char *label(int rank)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "rank %d", rank);
    return buf;
}

static int *lazy_block(void)
{
    static int *block;
    if (!block) {
        block = malloc(sizeof *block);
        if (block)
            *block = 0;
    }
    return block;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = 1, last = 0;
    for (int i = 0; i <= rank; i++) {
        int t = next_ticket();
        ok = ok && t == last + 1;
        last = t;
        MPIX_Yield();
    }
    ok = ok && last == rank + 1;
    const char *l = label(rank);
    int *b = lazy_block();
    ok = ok && b && *b == 0;
    if (b)
        *b = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    priv_yield(2);
    char want[32];
    snprintf(want, sizeof want, "rank %d", rank);
    ok = ok && strcmp(l, want) == 0 && lazy_block() == b && *b == rank;
    ok = priv_all(ok);
    int distinct = priv_all_distinct((uintptr_t)b);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok && distinct)
        printf("function_statics: %d ranks, each saw only its own statics\n", size);
    else
        printf("function_statics: %d ranks, WRONG: %s\n", size,
               !ok ? "a rank saw another rank's statics" : "blocks shared");
    return ok && distinct ? 0 : 1;
}
