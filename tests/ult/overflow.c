/* overflow.c — a ULT that overflows its stack must be named in a report
 * that says how to raise the stack size, then the process aborts. Run by
 * tests/expect_crash.sh, which checks the status and the message. */
#include <string.h>

#include "../check.h"
#include "myr_ult.h"

static volatile long sink;

static long recurse(long depth)
{
    volatile char frame[512];
    memset((char *)frame, (int)depth, sizeof frame);
    sink += frame[depth % 512];
    if (depth < 0)  /* never true; keeps the recursion unbounded at runtime */
        return 0;
    return recurse(depth + 1) + frame[0];
}

static void *overflows(void *arg)
{
    (void)arg;
    return (void *)recurse(0);
}

int main(int argc, char **argv)
{
    CHECK_OK(myr_init());
    myr_ult_t *h;
    CHECK_OK(myr_ult_spawn(&h, overflows, NULL));
    if (argc > 1)
        CHECK_OK(myr_ult_set_name(h, argv[1]));
    myr_ult_join(h, NULL);
    return 0;  /* not reached: the overflow aborts the process */
}
