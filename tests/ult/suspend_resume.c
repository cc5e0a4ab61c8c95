/* suspend_resume.c — blocking a ULT outside every ready queue, and making it
 * ready again from any thread, with no lost wake-up and no double run.
 * Usage: suspend_resume CASE. Run with MYR_WORKERS=2 (set by CTest). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../check.h"
#include "myr_ult.h"

/* Detects a ULT running on two workers at once: set when it wakes up,
 * cleared just before it suspends. */
typedef struct {
    _Atomic int running;
    long wakes;
} run_guard;

static void guard_enter(run_guard *g)
{
    CHECK(atomic_exchange(&g->running, 1) == 0);
    g->wakes++;
}

static void guard_leave(run_guard *g)
{
    atomic_store(&g->running, 0);
}

/* ---- pairs handing a turn back and forth ----------------------------- */

enum { PAIRS = 64, ROUNDS = 3000 };

typedef struct {
    _Atomic int turn;          /* 0 or 1: whose turn it is */
    myr_ult_t *_Atomic ult[2];
    run_guard guard[2];
    long done[2];
} pair;

static pair pairs[PAIRS];

typedef struct {
    pair *p;
    int side;
} pair_arg;

static pair_arg pair_args[PAIRS][2];

static void *pair_player(void *arg)
{
    pair_arg *a = arg;
    pair *p = a->p;
    int me = a->side, other = 1 - me;
    atomic_store(&p->ult[me], myr_ult_self());
    while (!atomic_load(&p->ult[other]))
        myr_ult_yield();
    guard_enter(&p->guard[me]);
    for (int r = 0; r < ROUNDS; r++) {
        while (atomic_load(&p->turn) != me) {
            guard_leave(&p->guard[me]);
            CHECK_OK(myr_ult_suspend());
            guard_enter(&p->guard[me]);
        }
        p->done[me]++;
        atomic_store(&p->turn, other);
        if (me == 1 && r == ROUNDS - 1)
            break;  /* side 0 has played its last round and may be gone */
        CHECK_OK(myr_ult_resume(atomic_load(&p->ult[other])));
    }
    guard_leave(&p->guard[me]);
    return NULL;
}

/* 64 pairs of ULTs pass a turn 3000 times each over two workers: every
 * round happens exactly once, nobody hangs, nobody runs twice at once. */
static void pairs_pass_turns_across_workers(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *h[PAIRS][2];
    for (int i = 0; i < PAIRS; i++)
        for (int s = 0; s < 2; s++) {
            pair_args[i][s] = (pair_arg){&pairs[i], s};
            CHECK_OK(myr_ult_spawn_on(s % myr_worker_count(), &h[i][s],
                                      pair_player, &pair_args[i][s]));
        }
    for (int i = 0; i < PAIRS; i++)
        for (int s = 0; s < 2; s++)
            CHECK_OK(myr_ult_join(h[i][s], NULL));
    for (int i = 0; i < PAIRS; i++)
        CHECK(pairs[i].done[0] == ROUNDS && pairs[i].done[1] == ROUNDS);
    CHECK_OK(myr_finalize());
}

/* ---- resumes from a kernel thread that is not a worker --------------- */

enum { SLEEPERS = 500, NAPS = 200 };

typedef struct {
    _Atomic int asleep;        /* 1: waiting for the resumer */
    myr_ult_t *_Atomic self;
    run_guard guard;
} sleeper;

static sleeper sleepers[SLEEPERS];
static _Atomic int sleepers_finished;

static void *sleeper_main(void *arg)
{
    sleeper *s = arg;
    atomic_store(&s->self, myr_ult_self());
    for (int n = 0; n < NAPS; n++) {
        atomic_store(&s->asleep, 1);
        while (atomic_load(&s->asleep))
            CHECK_OK(myr_ult_suspend());
        guard_enter(&s->guard);
        guard_leave(&s->guard);
    }
    atomic_fetch_add(&sleepers_finished, 1);
    return NULL;
}

static void *external_resumer(void *arg)
{
    (void)arg;
    CHECK(myr_worker_self() == -1);
    while (atomic_load(&sleepers_finished) < SLEEPERS)
        for (int i = SLEEPERS - 1; i >= 0; i--) {
            sleeper *s = &sleepers[i];
            myr_ult_t *u = atomic_load(&s->self);
            if (u && atomic_exchange(&s->asleep, 0))
                CHECK_OK(myr_ult_resume(u));
        }
    return NULL;
}

/* 500 ULTs suspend 200 times each; a plain pthread resumes them: every
 * wake-up arrives (no hang), each ULT counts exactly its naps. */
static void kernel_thread_resumes_ults(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *h[SLEEPERS];
    for (int i = 0; i < SLEEPERS; i++)
        CHECK_OK(myr_ult_spawn(&h[i], sleeper_main, &sleepers[i]));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, external_resumer, NULL) == 0);
    for (int i = 0; i < SLEEPERS; i++)
        CHECK_OK(myr_ult_join(h[i], NULL));
    CHECK(pthread_join(t, NULL) == 0);
    for (int i = 0; i < SLEEPERS; i++)
        CHECK(sleepers[i].guard.wakes == NAPS);
    CHECK_OK(myr_finalize());
}

/* ---- a resume racing with the switch-out ----------------------------- */

enum { RACES = 100000 };
static _Atomic int about_to_suspend;
static myr_ult_t *_Atomic racer;

static void *suspends_at_once(void *arg)
{
    (void)arg;
    atomic_store(&racer, myr_ult_self());
    for (int i = 0; i < RACES; i++) {
        atomic_store(&about_to_suspend, 1);
        /* The resumer may act before, during or after this suspend. */
        while (atomic_load(&about_to_suspend))
            CHECK_OK(myr_ult_suspend());
    }
    return NULL;
}

static void *resumes_immediately(void *arg)
{
    (void)arg;
    while (!atomic_load(&racer))
        myr_ult_yield();
    for (int i = 0; i < RACES; i++) {
        while (!atomic_load(&about_to_suspend))
            myr_ult_yield();
        atomic_store(&about_to_suspend, 0);
        CHECK_OK(myr_ult_resume(atomic_load(&racer)));
    }
    return NULL;
}

/* A ULT on worker 0 suspends while a ULT on worker 1 resumes it as soon as
 * it announces it: 100,000 times, never lost. */
static void resume_racing_switch_out(void)
{
    CHECK_OK(myr_init());
    CHECK(myr_worker_count() >= 2);
    myr_ult_t *a, *b;
    CHECK_OK(myr_ult_spawn_on(0, &a, suspends_at_once, NULL));
    CHECK_OK(myr_ult_spawn_on(1, &b, resumes_immediately, NULL));
    CHECK_OK(myr_ult_join(a, NULL));
    CHECK_OK(myr_ult_join(b, NULL));
    CHECK_OK(myr_finalize());
}

/* ---- the remembered resume ------------------------------------------- */

/* A resume of a running ULT is kept: its next suspend returns at once; a
 * second resume before that suspend is not counted twice. */
static void resume_before_suspend_is_remembered(void)
{
    myr_config_t cfg = {.workers = 1};
    CHECK_OK(myr_init_config(&cfg));
    myr_ult_t *self = myr_ult_self();
    CHECK_OK(myr_ult_resume(self));
    CHECK_OK(myr_ult_resume(self));
    CHECK_OK(myr_ult_suspend());  /* returns at once: a resume is pending */
    CHECK_OK(myr_finalize());
}

static void *suspend_then_report(void *arg)
{
    _Atomic int *stage = arg;
    atomic_store(stage, 1);
    CHECK_OK(myr_ult_suspend());
    atomic_store(stage, 2);
    return NULL;
}

/* A suspended ULT does not run until resumed, even when its worker is idle. */
static void suspended_ult_stays_out_of_queues(void)
{
    myr_config_t cfg = {.workers = 1};
    CHECK_OK(myr_init_config(&cfg));
    _Atomic int stage = 0;
    myr_ult_t *h;
    CHECK_OK(myr_ult_spawn(&h, suspend_then_report, &stage));
    while (atomic_load(&stage) == 0)
        myr_ult_yield();
    for (int i = 0; i < 1000; i++)
        myr_ult_yield();
    CHECK(atomic_load(&stage) == 1);
    CHECK_OK(myr_ult_resume(h));
    CHECK_OK(myr_ult_join(h, NULL));
    CHECK(atomic_load(&stage) == 2);
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"pairs_pass_turns_across_workers", pairs_pass_turns_across_workers},
    {"kernel_thread_resumes_ults", kernel_thread_resumes_ults},
    {"resume_racing_switch_out", resume_racing_switch_out},
    {"resume_before_suspend_is_remembered", resume_before_suspend_is_remembered},
    {"suspended_ult_stays_out_of_queues", suspended_ult_stays_out_of_queues},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
