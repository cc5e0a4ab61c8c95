/* spawn_join.c — creating ULTs, joining them, their results and lifetimes.
 * Usage: spawn_join CASE (see the table at the bottom). */
#include <pthread.h>
#include <stdatomic.h>
#include "../check.h"
#include "myr_ult.h"

static atomic_long counter;

static void *twice(void *arg)
{
    atomic_fetch_add(&counter, 1);
    return (void *)((long)arg * 2);
}

/* 100,000 ULTs spawned, then joined; every result is the right one. */
static void many_spawned_then_joined(void)
{
    enum { N = 100000 };
    static myr_ult_t *h[N];
    CHECK_OK(myr_init());
    for (long i = 0; i < N; i++)
        CHECK_OK(myr_ult_spawn(&h[i], twice, (void *)i));
    for (long i = 0; i < N; i++) {
        void *r = NULL;
        CHECK_OK(myr_ult_join(h[i], &r));
        CHECK((long)r == 2 * i);
    }
    CHECK(atomic_load(&counter) == N);
    CHECK_OK(myr_finalize());
}

static long fib_serial(long n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static void *fib(void *arg)
{
    long n = (long)arg;
    if (n < 2)
        return (void *)n;
    myr_ult_t *a, *b;
    void *ra, *rb;
    CHECK_OK(myr_ult_spawn(&a, fib, (void *)(n - 1)));
    CHECK_OK(myr_ult_spawn(&b, fib, (void *)(n - 2)));
    CHECK_OK(myr_ult_join(a, &ra));
    CHECK_OK(myr_ult_join(b, &rb));
    return (void *)((long)ra + (long)rb);
}

/* ULTs spawn and join ULTs (a tree of ~75,000): the sum is exact. */
static void nested_spawn_and_join(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *root;
    void *r;
    CHECK_OK(myr_ult_spawn(&root, fib, (void *)22L));
    CHECK_OK(myr_ult_join(root, &r));
    CHECK((long)r == fib_serial(22));
    CHECK_OK(myr_finalize());
}

static long deep(int depth, long value)
{
    if (depth == 0) {
        myr_ult_exit((void *)value);
        return -1;  /* not reached: exit does not return from a ULT */
    }
    return deep(depth - 1, value) + 1;
}

static void *exits_from_deep_call(void *arg)
{
    deep(10, (long)arg);
    return (void *)-1L;
}

/* myr_ult_exit from a nested call hands its argument to the joiner. */
static void exit_value_reaches_joiner(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *h;
    void *r;
    CHECK_OK(myr_ult_spawn(&h, exits_from_deep_call, (void *)1234L));
    CHECK_OK(myr_ult_join(h, &r));
    CHECK((long)r == 1234);
    CHECK_OK(myr_finalize());
}

static void *spawn_from_kernel_thread(void *arg)
{
    (void)arg;
    CHECK(myr_ult_self() == NULL);
    CHECK(myr_worker_self() == -1);
    for (long i = 0; i < 10000; i++)
        CHECK_OK(myr_ult_spawn(NULL, twice, (void *)i));
    return NULL;
}

/* A kernel thread that is not a worker spawns detached ULTs; finalize waits
 * for all of them to finish. */
static void external_thread_spawns_detached(void)
{
    CHECK_OK(myr_init());
    pthread_t t;
    CHECK(pthread_create(&t, NULL, spawn_from_kernel_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_OK(myr_finalize());
    CHECK(atomic_load(&counter) == 10000);
}

/* Detached ULTs spawned by ULTs are all run before finalize returns. */
static void *spawns_detached(void *arg)
{
    for (long i = 0; i < 1000; i++)
        CHECK_OK(myr_ult_spawn(NULL, twice, arg));
    return NULL;
}

static void finalize_waits_for_detached(void)
{
    CHECK_OK(myr_init());
    for (int i = 0; i < 20; i++)
        CHECK_OK(myr_ult_spawn(NULL, spawns_detached, NULL));
    CHECK_OK(myr_finalize());
    CHECK(atomic_load(&counter) == 20 * 1000 + 0);
}

/* The runtime can be started and stopped again, with other settings. */
static void init_finalize_repeatedly(void)
{
    for (int round = 0; round < 5; round++) {
        myr_config_t cfg = {.workers = 1 + round % 2, .stack_size = 65536 << round};
        CHECK_OK(myr_init_config(&cfg));
        CHECK(myr_initialized());
        CHECK(myr_worker_count() == cfg.workers);
        CHECK(myr_stack_size() >= cfg.stack_size);
        myr_ult_t *h;
        void *r;
        CHECK_OK(myr_ult_spawn(&h, twice, (void *)21L));
        CHECK_OK(myr_ult_join(h, &r));
        CHECK((long)r == 42);
        CHECK_OK(myr_finalize());
        CHECK(!myr_initialized());
    }
}

/* The main ULT has an identity and id 0; spawned ULTs get distinct ids. */
static void *report_self(void *arg)
{
    (void)arg;
    return myr_ult_self();
}

static void ult_self_and_ids(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *main_ult = myr_ult_self();
    CHECK(main_ult != NULL);
    CHECK(myr_ult_id(main_ult) == 0);
    myr_ult_t *a, *b;
    void *ra, *rb;
    CHECK_OK(myr_ult_spawn(&a, report_self, NULL));
    CHECK_OK(myr_ult_spawn(&b, report_self, NULL));
    CHECK(myr_ult_id(a) != myr_ult_id(b) && myr_ult_id(a) != 0);
    myr_ult_t *a_seen = a;
    CHECK_OK(myr_ult_join(a, &ra));
    CHECK_OK(myr_ult_join(b, &rb));
    CHECK(ra == a_seen);
    CHECK(ra != rb);
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"many_spawned_then_joined", many_spawned_then_joined},
    {"nested_spawn_and_join", nested_spawn_and_join},
    {"exit_value_reaches_joiner", exit_value_reaches_joiner},
    {"external_thread_spawns_detached", external_thread_spawns_detached},
    {"finalize_waits_for_detached", finalize_waits_for_detached},
    {"init_finalize_repeatedly", init_finalize_repeatedly},
    {"ult_self_and_ids", ult_self_and_ids},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
