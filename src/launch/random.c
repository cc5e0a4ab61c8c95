/*
 * random.c — rand, srand, random and srandom per rank.
 *
 * glibc keeps the state of rand() and random() in one process-wide
 * generator. Ranks are threads of one process, so without this every rank
 * would draw from the same sequence: a program that seeds with srand(j) and
 * draws the same numbers in every rank (MPICH's comm_group_rand picks its
 * random groups that way) would see each rank get different numbers as
 * soon as two ranks interleave on two workers — and deadlock. A process of
 * its own has its own generator; so does a rank here: these definitions come
 * first in every object's lookup order and, called by a rank, use the
 * rank's own state (random_r.h: the same sequence glibc gives for a seed;
 * an unseeded rank starts as if seeded with 1, as a process does). Anywhere
 * else they are libc's. Not covered: initstate/setstate (they still act on
 * libc's generator only). The drand48 family: drand48.c.
 */
#include <stdlib.h>

#include "core/core.h"
#include "launch/privatize.h"
#include "launch/random_r.h"

/* The calling rank's generator (created seeded with 1), or NULL outside
 * a rank; its lock taken. */
static myr_random *rank_generator(myr_rank_image **out)
{
    myr_rank_image *ri = myr_privatize_current();
    *out = ri;
    if (!ri)
        return NULL;
    myr_spin_lock(&ri->random_lock);
    if (!ri->random) {
        ri->random = malloc(sizeof *ri->random);
        if (!ri->random) {
            myr_spin_unlock(&ri->random_lock);
            return NULL;   /* out of memory: libc's generator */
        }
        myr_random_seed(ri->random, 1);
    }
    return ri->random;
}

long random(void)
{
    myr_rank_image *ri;
    myr_random *g = rank_generator(&ri);
    if (!g)
        return MYR_LIBC_NEXT(long (*)(void), "random")();
    long v = myr_random_next(g);
    myr_spin_unlock(&ri->random_lock);
    return v;
}

void srandom(unsigned seed)
{
    myr_rank_image *ri;
    myr_random *g = rank_generator(&ri);
    if (!g) {
        MYR_LIBC_NEXT(void (*)(unsigned), "srandom")(seed);
        return;
    }
    myr_random_seed(g, seed);
    myr_spin_unlock(&ri->random_lock);
}

/* As in glibc, rand() and srand() are random() and srandom(). */
int rand(void)
{
    return (int)random();
}

void srand(unsigned seed)
{
    srandom(seed);
}
