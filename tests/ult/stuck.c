/* stuck.c — a worker's one ready ULT is queued without waking anybody
 * (sched.c, "Stuck workers"): it is left to that worker while the worker
 * switches, and taken by a watcher once the worker runs one ULT for long
 * (here: a ULT that waits for it by spinning, never yielding, which would
 * wait forever if no other worker took it). Ranks taken that way may move
 * for good, so ping-pong pairs that compute now and then move between
 * workers; every message's payload is checked. Nothing here is timed.
 * Usage: stuck CASE. */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "../check.h"
#include "myr_ult.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

static void busy_for_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* ---- a spinning waiter's one ready ULT is taken ------------------------- */

enum { SPIN_ROUNDS = 300, WORDS = 64 };

typedef struct job {
    int round;
    uint64_t out[WORDS];
    _Atomic int done;
} job;

static void *producer(void *arg)
{
    job *j = arg;
    for (int i = 0; i < WORDS; i++)
        j->out[i] = mix((uint64_t)j->round * WORDS + (uint64_t)i);
    atomic_store_explicit(&j->done, 1, memory_order_release);
    return NULL;
}

/* On worker 0: spawn a ULT on this same worker (a single ready ULT, queued
 * quietly), then wait for its result without ever yielding. */
static void *spinning_driver(void *arg)
{
    (void)arg;
    for (int r = 0; r < SPIN_ROUNDS; r++) {
        job j = {.round = r};
        atomic_init(&j.done, 0);
        myr_ult_t *h;
        CHECK_OK(myr_ult_spawn_on(myr_worker_self(), &h, producer, &j));
        while (!atomic_load_explicit(&j.done, memory_order_acquire))
            ;   /* no yield: only another worker can run the producer */
        for (int i = 0; i < WORDS; i++)
            CHECK(j.out[i] == mix((uint64_t)r * WORDS + (uint64_t)i));
        CHECK_OK(myr_ult_join(h, NULL));
    }
    return NULL;
}

static void single_ready_ult_of_a_spinning_worker_is_taken(void)
{
    CHECK_OK(myr_init());
    CHECK(myr_worker_count() >= 2);
    /* One driver: a second one spinning on the other worker would leave
     * no worker to run the producers with two workers. */
    myr_ult_t *d;
    CHECK_OK(myr_ult_spawn_on(0, &d, spinning_driver, NULL));
    CHECK_OK(myr_ult_join(d, NULL));
    CHECK_OK(myr_finalize());
}

/* ---- ping-pong pairs that compute now and then ---------------------------- */

enum { PAIRS = 4, MESSAGES = 4000, COMPUTE_EVERY = 500 };

typedef struct pair {
    _Atomic long turn;            /* the number of messages sent so far */
    uint64_t box[8];              /* the last message */
    myr_ult_t *side[2];
    _Atomic int started;
    int id;
} pair;

typedef struct side_arg {
    pair *p;
    int me;
} side_arg;

static void *ping_pong_side(void *arg)
{
    side_arg *a = arg;
    pair *p = a->p;
    int me = a->me;
    atomic_fetch_add(&p->started, 1);
    while (atomic_load(&p->started) < 2)
        myr_ult_yield();
    for (long m = me; m < MESSAGES; m += 2) {
        /* Our turn once the other side has sent message m - 1. */
        while (atomic_load_explicit(&p->turn, memory_order_acquire) != m)
            myr_ult_suspend();   /* may return early: checked again */
        if (m > 0)
            for (int i = 0; i < 8; i++)
                CHECK(p->box[i] == mix((uint64_t)p->id << 40 ^ (uint64_t)(m - 1) << 3 ^ (uint64_t)i));
        /* Now and then one side computes before it answers (its partner
         * waits suspended, possibly queued behind it on this worker). */
        if (m % COMPUTE_EVERY == (me ? 1 : 0) + 2 * (p->id % 2))
            busy_for_us(300);
        for (int i = 0; i < 8; i++)
            p->box[i] = mix((uint64_t)p->id << 40 ^ (uint64_t)m << 3 ^ (uint64_t)i);
        atomic_store_explicit(&p->turn, m + 1, memory_order_release);
        myr_ult_resume(p->side[1 - me]);
    }
    return NULL;
}

/* Pairs start on worker 0 (as a two-rank job does) and pass MESSAGES turns
 * each, with computation between some of them. */
static void pairs_ping_pong_and_compute(void)
{
    CHECK_OK(myr_init());
    static pair pairs[PAIRS];
    static side_arg args[PAIRS][2];
    for (int k = 0; k < PAIRS; k++) {
        pairs[k] = (pair){.id = k};
        atomic_init(&pairs[k].turn, 0);
        atomic_init(&pairs[k].started, 0);
        for (int s = 0; s < 2; s++)
            args[k][s] = (side_arg){&pairs[k], s};
    }
    /* Both handles are set before either side can resume the other: the
     * sides wait for each other to have started. */
    for (int k = 0; k < PAIRS; k++)
        for (int s = 0; s < 2; s++)
            CHECK_OK(myr_ult_spawn_on(0, &pairs[k].side[s], ping_pong_side, &args[k][s]));
    for (int k = 0; k < PAIRS; k++)
        for (int s = 0; s < 2; s++)
            CHECK_OK(myr_ult_join(pairs[k].side[s], NULL));
    for (int k = 0; k < PAIRS; k++)
        CHECK(atomic_load(&pairs[k].turn) == MESSAGES);
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"single_ready_ult_of_a_spinning_worker_is_taken",
     single_ready_ult_of_a_spinning_worker_is_taken},
    {"pairs_ping_pong_and_compute", pairs_ping_pong_and_compute},
};

int main(int argc, char **argv)
{
    return run_test_case(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
