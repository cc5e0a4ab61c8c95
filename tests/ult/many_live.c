/* many_live.c — more ULTs alive at once than the kernel's mapping limit
 * allows guard pages for (vm.max_map_count, 65,530 by default: ~32,000
 * guarded stacks), with the default settings: beyond its budget of guarded
 * stacks the runtime carves canary stacks from large mappings.
 * Usage: many_live CASE (see the table at the bottom). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "myr_ult.h"

enum { LIVE = 100000, TOUCH = 256 };

static myr_ult_t *handles[LIVE];
static atomic_long parked;
static _Atomic int released;

static long max_map_count(void)
{
    long n = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1)
            n = 65530;
        fclose(f);
    }
    return n;
}

/* Fills a bit of its stack with a pattern of its own, parks, and checks
 * the pattern when it is resumed: stacks that overlapped, or were handed
 * to two ULTs, would mix patterns. */
static void *parks(void *arg)
{
    long i = (long)arg;
    volatile unsigned char mine[TOUCH];
    for (int k = 0; k < TOUCH; k++)
        mine[k] = (unsigned char)(i * 31 + k);
    atomic_fetch_add(&parked, 1);
    while (!atomic_load(&released))
        CHECK_OK(myr_ult_suspend());
    for (int k = 0; k < TOUCH; k++)
        CHECK(mine[k] == (unsigned char)(i * 31 + k));
    return (void *)(i + 1);
}

/* 100,000 ULTs are alive at once, each suspended, with the default stack
 * size and MYR_STACK_GUARD; then every one is resumed and joined. */
static void hundred_thousand_live_at_once(void)
{
    CHECK_OK(myr_init());
    for (long i = 0; i < LIVE; i++)
        CHECK_OK(myr_ult_spawn(&handles[i], parks, (void *)i));
    while (atomic_load(&parked) < LIVE)
        myr_ult_yield();
    /* All parked at once, within the kernel's limit. */
    CHECK(check_mapping_count() < max_map_count());
    atomic_store(&released, 1);
    for (long i = 0; i < LIVE; i++)
        CHECK_OK(myr_ult_resume(handles[i]));
    for (long i = 0; i < LIVE; i++) {
        void *r = NULL;
        CHECK_OK(myr_ult_join(handles[i], &r));
        CHECK((long)r == i + 1);
    }
    CHECK_OK(myr_finalize());
}

static void *parks_for_good(void *arg)
{
    (void)arg;
    myr_ult_suspend();
    return NULL;
}

/* With MYR_STACK_GUARD=always (set by CTest) every stack has a guard page,
 * two mappings: more live ULTs than vm.max_map_count / 2 stop the program
 * with an out-of-stacks report naming the setting (expect_crash.sh checks
 * it). */
static void always_guarded_runs_out_of_stacks(void)
{
    CHECK_OK(myr_init());
    long n = max_map_count() / 2 + 1000;
    for (long i = 0; i < n; i++)
        CHECK_OK(myr_ult_spawn(NULL, parks_for_good, NULL));
    myr_ult_yield();  /* one worker: each runs, until no stack is left */
    fprintf(stderr, "many_live: %ld guarded stacks did not run out\n", n);
    exit(1);
}

static const test_case cases[] = {
    {"hundred_thousand_live_at_once", hundred_thousand_live_at_once},
    {"always_guarded_runs_out_of_stacks", always_guarded_runs_out_of_stacks},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
