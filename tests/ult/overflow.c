/* overflow.c — a ULT that overflows its stack must be named in a report
 * that says how to raise the stack size, then the process aborts. Run by
 * tests/expect_crash.sh, which checks the status and the message.
 *
 * Usage: overflow [MODE [NAME]]
 *   recurse         unbounded recursion: hits a guard page (the default)
 *   canary_exit     overflows its stack a little, then returns
 *   canary_yield    overflows a little, then yields to another ULT
 *   canary_suspend  overflows a little, then suspends
 *   canary_beyond_budget
 *                   as canary_exit, after enough live ULTs to use up the
 *                   guarded stacks of MYR_STACK_GUARD=auto
 * NAME, if given, is set as the overflowing ULT's name. */
#include <alloca.h>
#include <stdatomic.h>
#include <stdio.h>
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

/* A local array as large as the whole stack: below this frame there is
 * less than that, so writing it runs a few hundred bytes (the frames above
 * this one, and the stack's descriptor) below the stack's lowest byte,
 * through the canary. The array is allocated at run time, so it lives on
 * the ULT's stack even where the sanitizer moves fixed-size locals to the
 * heap. Without a guard page nothing faults; the damage stays behind when
 * the function returns. */
__attribute__((noinline)) static void overflow_a_little(void)
{
    size_t n = myr_stack_size();
    volatile char *array = alloca(n);
    memset((char *)array, 0x5a, n);
    sink += array[n / 2];
}

static _Atomic int partner_stop;

static void *partner(void *arg)
{
    (void)arg;
    while (!atomic_load(&partner_stop))
        myr_ult_yield();
    return NULL;
}

static void *overflows_then(void *arg)
{
    const char *then = arg;
    overflow_a_little();
    if (strcmp(then, "yield") == 0) {
        myr_ult_yield();  /* the partner is ready: a real switch */
        fprintf(stderr, "overflow: not detected when yielding\n");
    } else if (strcmp(then, "suspend") == 0) {
        myr_ult_suspend();
        fprintf(stderr, "overflow: not detected when suspending\n");
    } else {
        return NULL;  /* detected when the ULT ends */
    }
    atomic_store(&partner_stop, 1);
    return NULL;
}

static void *parks(void *arg)
{
    (void)arg;
    myr_ult_suspend();
    return NULL;
}

/* With default settings, the first vm.max_map_count / 4 stacks are
 * guarded: keep that many ULTs alive so the next one gets a canary. It is
 * the first canary stack after guarded ones, with unused bytes below it, so
 * the sanitizer build does not see its overflow land on a parked ULT's
 * frames (and report that first). */
static void use_up_guarded_stacks(void)
{
    long max = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1)
            max = 65530;
        fclose(f);
    }
    for (long i = 0; i < max / 4; i++)
        CHECK_OK(myr_ult_spawn(NULL, parks, NULL));
    myr_ult_yield();  /* one worker: every one of them runs and parks */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "recurse";
    const char *name = argc > 2 ? argv[2] : NULL;
    myr_ult_fn fn = overflows_then;
    void *arg = NULL;
    if (strcmp(mode, "recurse") == 0)
        fn = overflows;
    else if (strcmp(mode, "canary_exit") == 0 ||
             strcmp(mode, "canary_beyond_budget") == 0)
        arg = "exit";
    else if (strcmp(mode, "canary_yield") == 0)
        arg = "yield";
    else if (strcmp(mode, "canary_suspend") == 0)
        arg = "suspend";
    else {
        fprintf(stderr, "overflow: unknown mode %s\n", mode);
        return 2;
    }
    /* Canary cases run on one worker: stacks are then carved in spawn order
     * and the bytes below the overflowing stack belong to no live ULT. */
    myr_config_t cfg = {.workers = fn == overflows ? 0 : 1};
    CHECK_OK(myr_init_config(&cfg));
    if (strcmp(mode, "canary_beyond_budget") == 0)
        use_up_guarded_stacks();
    myr_ult_t *h;
    CHECK_OK(myr_ult_spawn(&h, fn, arg));
    if (name)
        CHECK_OK(myr_ult_set_name(h, name));
    if (strcmp(mode, "canary_yield") == 0)
        CHECK_OK(myr_ult_spawn(NULL, partner, NULL));
    myr_ult_join(h, NULL);
    return 1;  /* not reached: the overflow aborts the process */
}
