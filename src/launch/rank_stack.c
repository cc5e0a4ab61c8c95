/* rank_stack.c — the default stack of a rank (see rank_stack.h). */
#include "launch/rank_stack.h"

#include <pthread.h>

#define RANK_STACK_MIN ((size_t)1 << 20)
#define RANK_STACK_MAX ((size_t)1 << 30)
/* Address space the ranks' default stacks may reserve in all: 8 MiB stacks
 * up to 512Ki ranks, less beyond; a small share of x86_64's 128 TiB and
 * aarch64's 256 TiB. */
#define STACK_ADDRESS_BUDGET ((size_t)4 << 40)

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
