/* random_r.c — see random_r.h. */
#include "launch/random_r.h"

int32_t myr_random_next(myr_random *g)
{
    /* Unsigned arithmetic: the sum wraps modulo 2^32. */
    uint32_t sum = (uint32_t)g->x[g->front] + (uint32_t)g->x[g->rear];
    g->x[g->front] = (int32_t)sum;
    if (++g->front == MYR_RANDOM_DEGREE)
        g->front = 0;
    if (++g->rear == MYR_RANDOM_DEGREE)
        g->rear = 0;
    return (int32_t)(sum >> 1);
}

void myr_random_seed(myr_random *g, unsigned seed)
{
    if (seed == 0)
        seed = 1;
    int32_t word = (int32_t)seed;
    g->x[0] = word;
    for (int i = 1; i < MYR_RANDOM_DEGREE; i++) {
        /* 16807 * word mod (2^31 - 1) without overflow (Schrage). */
        long hi = word / 127773, lo = word % 127773;
        word = (int32_t)(16807 * lo - 2836 * hi);
        if (word < 0)
            word += 2147483647;
        g->x[i] = word;
    }
    g->front = MYR_RANDOM_SEPARATION;
    g->rear = 0;
    for (int i = 0; i < 10 * MYR_RANDOM_DEGREE; i++)
        (void)myr_random_next(g);
}
