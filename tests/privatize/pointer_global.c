/* pointer_global.c — globals initialised with addresses of other globals
 * (relocated data): each rank's pointers must lead to its own variables,
 * which lie at different addresses in different ranks. */
#include "priv.h"

int x;
int *p = &x;
static int arr[4];
static int *const slots[4] = {&arr[0], &arr[1], &arr[2], &arr[3]};  /* relro */
struct node {
    struct node *next;
    int value;
};
static struct node second = {NULL, 2};
static struct node first = {&second, 1};
static int twice(int v) { return 2 * v; }
int (*op)(int) = twice;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = p == &x && first.next == &second && op == twice && op(rank) == 2 * rank;
    for (int i = 0; i < 4; i++)
        ok = ok && slots[i] == &arr[i];
    *p = rank;
    for (int i = 0; i < 4; i++)
        *slots[i] = rank + i;
    first.next->value = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    priv_yield(2);
    ok = ok && x == rank && second.value == rank;
    for (int i = 0; i < 4; i++)
        ok = ok && arr[i] == rank + i;
    ok = priv_all(ok);
    int distinct = priv_all_distinct((uintptr_t)p);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok && distinct)
        printf("pointer_global: %d ranks, each p points to its own x\n", size);
    else
        printf("pointer_global: %d ranks, WRONG: %s\n", size,
               !ok ? "a pointer led to another rank's variable"
                   : "p is the same address in two ranks");
    return ok && distinct ? 0 : 1;
}
