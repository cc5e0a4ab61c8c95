/* scheduling.c — how the scheduler shares workers: fairness of yield, work
 * stealing, idle sleep, and per-ULT state that must follow a ULT across
 * kernel threads (errno, thread-local storage). Usage: scheduling CASE. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "../check.h"
#include "myr_ult.h"

/* ---- yield is round-robin -------------------------------------------- */

enum { YIELDERS = 3, YIELDS = 1000 };
static long turns[YIELDERS];

static void *yielder(void *arg)
{
    long me = (long)arg;
    for (int i = 0; i < YIELDS; i++) {
        turns[me]++;
        /* Round robin on one worker: nobody gets two turns ahead. */
        for (int o = 0; o < YIELDERS; o++)
            CHECK(turns[me] - turns[o] <= 1 && turns[o] - turns[me] <= 1);
        myr_ult_yield();
    }
    return NULL;
}

/* Three ULTs yielding on one worker take turns in order. */
static void yield_is_round_robin(void)
{
    myr_config_t cfg = {.workers = 1};
    CHECK_OK(myr_init_config(&cfg));
    myr_ult_t *h[YIELDERS];
    for (long i = 0; i < YIELDERS; i++)
        CHECK_OK(myr_ult_spawn(&h[i], yielder, (void *)i));
    for (int i = 0; i < YIELDERS; i++)
        CHECK_OK(myr_ult_join(h[i], NULL));
    CHECK_OK(myr_finalize());
}

/* ---- stealing spreads work ------------------------------------------- */

enum { TASKS = 400 };
static _Atomic long ran_on[64];

static void busy_for_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void *busy_task(void *arg)
{
    (void)arg;
    busy_for_us(200);
    atomic_fetch_add(&ran_on[myr_worker_self()], 1);
    return NULL;
}

static void *producer(void *arg)
{
    (void)arg;
    myr_ult_t *h[TASKS];
    for (int i = 0; i < TASKS; i++)
        CHECK_OK(myr_ult_spawn(&h[i], busy_task, NULL));
    for (int i = 0; i < TASKS; i++)
        CHECK_OK(myr_ult_join(h[i], NULL));
    return NULL;
}

/* One producer on worker 0 spawns all the work; worker 1 steals some.
 * Another round while it has not: a loaded machine (the suite runs under
 * qemu beside other jobs) may keep worker 1's thread off the CPU for all
 * of one round's 80 ms of work. */
static void stealing_spreads_work(void)
{
    myr_config_t cfg = {.workers = 2};
    CHECK_OK(myr_init_config(&cfg));
    int rounds = 0;
    do {
        myr_ult_t *p;
        CHECK_OK(myr_ult_spawn_on(0, &p, producer, NULL));
        CHECK_OK(myr_ult_join(p, NULL));
        rounds++;
    } while (atomic_load(&ran_on[1]) == 0 && rounds < 20);
    long total = atomic_load(&ran_on[0]) + atomic_load(&ran_on[1]);
    printf("tasks run: worker 0: %ld, worker 1: %ld (%d rounds)\n", atomic_load(&ran_on[0]),
           atomic_load(&ran_on[1]), rounds);
    CHECK(total == (long)TASKS * rounds);
    CHECK(atomic_load(&ran_on[0]) > 0 && atomic_load(&ran_on[1]) > 0);
    CHECK_OK(myr_finalize());
}

/* ---- idle workers sleep ---------------------------------------------- */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* With nothing to run, the runtime's workers sleep: the process uses
 * (almost) no CPU time over one second of wall time. */
static void idle_runtime_uses_no_cpu(void)
{
    myr_config_t cfg = {.workers = 2};
    CHECK_OK(myr_init_config(&cfg));
    struct timespec settle = {0, 20 * 1000 * 1000}, second = {1, 0};
    nanosleep(&settle, NULL);  /* let the workers finish spinning */
    double before = cpu_seconds();
    nanosleep(&second, NULL);
    double used = cpu_seconds() - before;
    printf("CPU time over 1 s idle: %.4f s\n", used);
    CHECK(used < 0.05);
    CHECK_OK(myr_finalize());
}

/* ---- errno and TLS follow the ULT ------------------------------------ */

enum { MOVERS = 16, MOVES = 20000 };
static pthread_t worker_thread[64];
static _Atomic int worker_thread_known[64];

/* Not inlined: pthread_self() is declared const, so inside one function the
 * compiler may reuse its value across a yield. */
__attribute__((noinline)) static void check_worker_identity(void)
{
    int w = myr_worker_self();
    CHECK(w >= 0 && w < myr_worker_count());
    pthread_t me = pthread_self();
    int expected = 0;
    if (atomic_compare_exchange_strong(&worker_thread_known[w], &expected, 1)) {
        worker_thread[w] = me;
        atomic_store(&worker_thread_known[w], 2);
    }
    while (atomic_load(&worker_thread_known[w]) != 2)
        ;
    /* The worker the runtime reports is the kernel thread we run on. */
    CHECK(pthread_equal(worker_thread[w], me));
}

static void *mover(void *arg)
{
    myr_ult_t *self = myr_ult_self();
    int mine = (int)(long)arg + 1000;
    errno = mine;
    for (int i = 0; i < MOVES; i++) {
        myr_ult_yield();
        CHECK(errno == mine);
        CHECK(myr_ult_self() == self);
        check_worker_identity();
        if (i % 64 == 0) {
            /* Give the other worker a reason to steal us. */
            struct timespec ns = {0, 1000};
            nanosleep(&ns, NULL);
            errno = mine;
        }
    }
    return NULL;
}

/* ULTs moving between two workers keep their own errno, and always see the
 * worker and self of the kernel thread they are on now (no stale TLS). */
static void errno_and_tls_follow_the_ult(void)
{
    myr_config_t cfg = {.workers = 2};
    CHECK_OK(myr_init_config(&cfg));
    myr_ult_t *h[MOVERS];
    for (long i = 0; i < MOVERS; i++)
        CHECK_OK(myr_ult_spawn(&h[i], mover, (void *)i));
    for (int i = 0; i < MOVERS; i++)
        CHECK_OK(myr_ult_join(h[i], NULL));
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"yield_is_round_robin", yield_is_round_robin},
    {"stealing_spreads_work", stealing_spreads_work},
    {"idle_runtime_uses_no_cpu", idle_runtime_uses_no_cpu},
    {"errno_and_tls_follow_the_ult", errno_and_tls_follow_the_ult},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
