/* rank_stack.c — the default stack of a rank (see rank_stack.h). */
#include "launch/rank_stack.h"

#include <pthread.h>

#define RANK_STACK_MIN ((size_t)1 << 20)
#define RANK_STACK_MAX ((size_t)1 << 30)
/* Address space the ranks' default stacks may reserve in all: 8 MiB stacks
 * up to 4096 ranks in a process, 2 MiB at 16Ki, RANK_STACK_MIN from 32Ki.
 * Stack tops 8 MiB apart each take a page-table page and a TLB entry of
 * their own, which a collective's turn over every rank pays for: barrier of
 * 65536 ranks 11.1 ms with 8 MiB stacks, 6.9-7.3 ms with 1 MiB; 16384
 * ranks 1.3-2.5 ms against 1.0-1.3 with 2 MiB (2 workers; it was 4 TiB
 * here, 8 MiB up to 512Ki ranks). */
#define STACK_ADDRESS_BUDGET ((size_t)32 << 30)

size_t myr_rank_stack_default(long nranks)
{
    size_t size = 0;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
        if (pthread_attr_getstacksize(&attr, &size) != 0)
            size = 0;
        pthread_attr_destroy(&attr);
    }
    if (size < RANK_STACK_MIN)
        size = RANK_STACK_MIN;
    if (size > RANK_STACK_MAX)
        size = RANK_STACK_MAX;
    if (nranks > 0 && size > STACK_ADDRESS_BUDGET / (size_t)nranks)
        size = STACK_ADDRESS_BUDGET / (size_t)nranks;
    return size;
}
