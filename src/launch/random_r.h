/*
 * random_r.h — the generator behind glibc's random() and rand(), as a value
 * a rank can own (random.c gives each rank one, as a process of its own
 * would have).
 *
 * The additive feedback generator of random(3) with 31 words of state
 * (x[i] = x[i-3] + x[i-31] mod 2^32, output x >> 1): seeding fills the
 * words with 16807 * x mod (2^31 - 1) from the seed (0 counts as 1) and
 * throws away the first 310 outputs, so for every seed the sequence is
 * the one glibc gives (tests/launch/random_r_test.c checks it against
 * random_r).
 */
#ifndef MYR_LAUNCH_RANDOM_R_H
#define MYR_LAUNCH_RANDOM_R_H

#include <stdint.h>

#define MYR_RANDOM_DEGREE 31
#define MYR_RANDOM_SEPARATION 3

typedef struct myr_random {
    int32_t x[MYR_RANDOM_DEGREE];
    int front, rear;   /* indices of x[i-3]'s successor and x[i-31] */
} myr_random;

void myr_random_seed(myr_random *g, unsigned seed);
/* The next value, 0 .. 2^31 - 1. */
int32_t myr_random_next(myr_random *g);

#endif
