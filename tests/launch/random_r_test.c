/* random_r_test.c — myr_random gives glibc's random() sequence for every
 * seed tried (random_r as the oracle): small, large, zero and top-bit
 * seeds, 2000 values each. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/random_r.h"
#include "../check.h"

static void compare(unsigned seed)
{
    struct random_data buf;
    char state[128];
    memset(&buf, 0, sizeof buf);
    CHECK(initstate_r(seed, state, sizeof state, &buf) == 0);
    CHECK(srandom_r(seed, &buf) == 0);
    myr_random g;
    myr_random_seed(&g, seed);
    for (int i = 0; i < 2000; i++) {
        int32_t want;
        CHECK(random_r(&buf, &want) == 0);
        int32_t got = myr_random_next(&g);
        if (got != want) {
            fprintf(stderr, "seed %u, value %d: %d, glibc %d\n", seed, i, got, want);
            exit(1);
        }
    }
}

int main(void)
{
    unsigned seeds[] = {0, 1, 2, 3, 42, 127773, 2147483646u, 2147483647u, 2147483648u,
                        4294967295u, 12345, 99991};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++)
        compare(seeds[i]);
    for (unsigned s = 0; s < 300; s++)
        compare(s * 2654435761u);
    printf("random_r: 312 seeds x 2000 values match glibc\n");
    return 0;
}
