/*
 * ult_demo.c — the ULT runtime at work (run by `make demo`).
 *
 *   [1] many ULTs: 100,000 ULTs, each doing a little work with yields in
 *       between; where they ran and how many were alive at once.
 *   [2] fork-join: a parallel fib() by recursive spawn/join, checked against
 *       the serial computation.
 *   [3] a ring: 10,000 suspended ULTs passing a token around with
 *       resume/suspend, several laps, every visit counted.
 *
 * Each part ends with an "ok" or "MISMATCH" line; the exit status is
 * non-zero if any part mismatched. Worker count and stack size come from
 * the environment (MYR_WORKERS, MYR_STACK_SIZE; see `myriad-envvars`).
 *
 * Live ULTs. A ULT takes a stack (two kernel mappings) when it first runs
 * and gives it back when it ends, so what must stay bounded is the number of
 * started-but-unfinished ULTs, not the number spawned. Each part keeps it
 * at 10,000 or fewer, and prints the peak it saw.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "myr_ult.h"

static int mismatches;

static void check_ok(int rc, const char *what)
{
    if (rc != MYR_OK) {
        fprintf(stderr, "ult_demo: %s failed: %s\n", what, myr_strerror(rc));
        exit(2);
    }
}

#define CHECK_OK(call) check_ok((call), #call)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void verdict(bool good, const char *what)
{
    printf("    %-58s %s\n", what, good ? "ok" : "MISMATCH");
    mismatches += !good;
}

/* ---- live ULT accounting ------------------------------------------------ */

static _Atomic long live_now, live_peak;

static void live_reset(void)
{
    atomic_store(&live_now, 0);
    atomic_store(&live_peak, 0);
}

static void live_enter(void)
{
    long now = atomic_fetch_add(&live_now, 1) + 1;
    long peak = atomic_load_explicit(&live_peak, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak(&live_peak, &peak, now))
        ;
}

static void live_leave(void)
{
    atomic_fetch_sub(&live_now, 1);
}

/* ---- [1] many ULTs --------------------------------------------------- */

enum { MANY_TOTAL = 100000, MANY_BATCH = 250, MANY_STEPS = 4 };

/* A cheap, order-sensitive mix (so a lost or repeated step shows). */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t work_step(uint64_t acc, long index, int step)
{
    for (int k = 0; k < 32; k++)
        acc = mix(acc + (uint64_t)index * 131 + (uint64_t)step);
    return acc;
}

static struct {
    uint64_t *result;          /* per ULT */
    _Atomic long *finished_on; /* per worker: ULTs that ended there */
    _Atomic long moved;        /* ULTs that ended on another worker */
} many;

static void *many_ult(void *arg)
{
    long index = (long)(intptr_t)arg;
    live_enter();
    int started_on = myr_worker_self();
    uint64_t acc = (uint64_t)index;
    for (int step = 0; step < MANY_STEPS; step++) {
        acc = work_step(acc, index, step);
        myr_ult_yield();  /* let the rest of the batch run in between */
    }
    many.result[index] = acc;
    int ended_on = myr_worker_self();
    atomic_fetch_add_explicit(&many.finished_on[ended_on], 1, memory_order_relaxed);
    if (ended_on != started_on)
        atomic_fetch_add_explicit(&many.moved, 1, memory_order_relaxed);
    live_leave();
    return NULL;
}

static void demo_many(int workers)
{
    printf("[1] %d ULTs, %d spawned at a time, %d work steps each with a "
           "yield after each\n", MANY_TOTAL, MANY_BATCH, MANY_STEPS);
    many.result = calloc(MANY_TOTAL, sizeof *many.result);
    many.finished_on = calloc((size_t)workers, sizeof *many.finished_on);
    myr_ult_t **batch = calloc(MANY_BATCH, sizeof *batch);
    if (!many.result || !many.finished_on || !batch) {
        fprintf(stderr, "ult_demo: out of memory\n");
        exit(2);
    }
    atomic_store(&many.moved, 0);
    live_reset();

    /* In batches, because on one worker every ULT of a batch starts before
     * the first one finishes (yield puts it behind the not-yet-started
     * ones). A batch this small runs on stacks the workers keep cached; with
     * thousands alive at once most ULTs would map and unmap a fresh stack,
     * many times slower (part [3] shows that cost). */
    double t0 = now_s();
    for (long base = 0; base < MANY_TOTAL; base += MANY_BATCH) {
        for (long i = 0; i < MANY_BATCH; i++)
            CHECK_OK(myr_ult_spawn(&batch[i], many_ult,
                                   (void *)(intptr_t)(base + i)));
        for (long i = 0; i < MANY_BATCH; i++)
            CHECK_OK(myr_ult_join(batch[i], NULL));
    }
    double elapsed = now_s() - t0;

    uint64_t sum = 0, expected = 0;
    for (long i = 0; i < MANY_TOTAL; i++) {
        uint64_t acc = (uint64_t)i;
        for (int step = 0; step < MANY_STEPS; step++)
            acc = work_step(acc, i, step);
        expected += acc;
        sum += many.result[i];
    }
    long counted = 0;
    printf("    %.3f s, %.2f us per ULT; peak live ULTs %ld\n", elapsed,
           elapsed * 1e6 / MANY_TOTAL, atomic_load(&live_peak));
    printf("    finished on worker:");
    for (int w = 0; w < workers; w++) {
        long n = atomic_load(&many.finished_on[w]);
        counted += n;
        printf(" %d: %ld%s", w, n, w + 1 < workers ? "," : "");
    }
    printf("\n    moved to another worker while running: %ld\n",
           atomic_load(&many.moved));
    char what[128];
    snprintf(what, sizeof what, "%ld ULTs ran to the end", counted);
    verdict(counted == MANY_TOTAL, what);
    snprintf(what, sizeof what, "checksum %016llx = serial",
             (unsigned long long)sum);
    verdict(sum == expected, what);
    free(batch);
    free(many.finished_on);
    free(many.result);
}

/* ---- [2] fork-join fib ----------------------------------------------- */

enum { FIB_N = 36, FIB_SERIAL_BELOW = 24 };

static _Atomic long fib_spawned;

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

typedef struct fib_task {
    int n;
    long result;
} fib_task;

static long fib_parallel(int n);

static void *fib_ult(void *arg)
{
    fib_task *t = arg;
    live_enter();
    t->result = fib_parallel(t->n);
    live_leave();
    return NULL;
}

/* fib(n-1) in a child ULT (an idle worker may steal it), fib(n-2) here.
 * The cutoff keeps the tree at ~600 ULTs, each with ~30 us of serial work:
 * far under the live limit whatever order they run in, and coarse enough
 * for the ULT costs to stay small next to the work. */
static long fib_parallel(int n)
{
    if (n < FIB_SERIAL_BELOW)
        return fib_serial(n);
    fib_task child = {.n = n - 1};  /* on our stack: we join before return */
    myr_ult_t *h;
    CHECK_OK(myr_ult_spawn(&h, fib_ult, &child));
    atomic_fetch_add_explicit(&fib_spawned, 1, memory_order_relaxed);
    long other = fib_parallel(n - 2);
    CHECK_OK(myr_ult_join(h, NULL));
    return child.result + other;
}

static void demo_fib(void)
{
    printf("[2] fib(%d) by recursive spawn/join, serial below %d\n", FIB_N,
           FIB_SERIAL_BELOW);
    atomic_store(&fib_spawned, 0);
    live_reset();
    double t0 = now_s();
    long parallel = fib_parallel(FIB_N);
    double t_parallel = now_s() - t0;
    t0 = now_s();
    long serial = fib_serial(FIB_N);
    double t_serial = now_s() - t0;
    printf("    parallel %.1f ms with %ld ULTs (peak live %ld); serial %.1f ms;"
           " speed-up %.2fx\n", t_parallel * 1e3, atomic_load(&fib_spawned),
           atomic_load(&live_peak), t_serial * 1e3, t_serial / t_parallel);
    char what[128];
    snprintf(what, sizeof what, "fib(%d) = %ld, serial %ld", FIB_N, parallel,
             serial);
    verdict(parallel == serial, what);
}

/* ---- [3] token ring -------------------------------------------------- */

enum { RING_SIZE = 10000, RING_LAPS = 10 };

/* Member i waits (suspended) until holder == i, counts its visit, hands the
 * token to i+1 and resumes it; the last member on the last lap ends the
 * game. Members stay (suspended) until the game is over, so that stack
 * set-up and release are not timed as hops; the main ULT then resumes them
 * all and joins them once every one has finished: joining a member while
 * another one is still inside resume() on it would free a handle in use. */
static struct {
    myr_ult_t **member;
    long *visits;                /* per member; written by the holder only */
    _Atomic int holder;
    _Atomic long hops;
    _Atomic int last_worker;     /* worker of the previous holder */
    _Atomic long crossed;        /* hops that changed worker */
    _Atomic int started, over, finished;
    myr_ult_t *main_ult;
} ring;

static void *ring_member(void *arg)
{
    int me = (int)(intptr_t)arg, next = (me + 1) % RING_SIZE;
    live_enter();
    if (atomic_fetch_add(&ring.started, 1) + 1 == RING_SIZE)
        CHECK_OK(myr_ult_resume(ring.main_ult));
    long crossed = 0;
    for (int lap = 0; lap < RING_LAPS; lap++) {
        while (atomic_load(&ring.holder) != me)
            CHECK_OK(myr_ult_suspend());
        int w = myr_worker_self();
        int last = atomic_load_explicit(&ring.last_worker, memory_order_relaxed);
        crossed += last >= 0 && w != last;  /* the first hop comes from main */
        atomic_store_explicit(&ring.last_worker, w, memory_order_relaxed);
        ring.visits[me]++;
        atomic_fetch_add_explicit(&ring.hops, 1, memory_order_relaxed);
        if (me == RING_SIZE - 1 && lap == RING_LAPS - 1) {
            atomic_store(&ring.holder, -1);
            atomic_store(&ring.over, 1);
            CHECK_OK(myr_ult_resume(ring.main_ult));
        } else {
            atomic_store(&ring.holder, next);
            CHECK_OK(myr_ult_resume(ring.member[next]));
        }
    }
    atomic_fetch_add(&ring.crossed, crossed);
    while (!atomic_load(&ring.over))
        CHECK_OK(myr_ult_suspend());
    live_leave();
    if (atomic_fetch_add(&ring.finished, 1) + 1 == RING_SIZE)
        CHECK_OK(myr_ult_resume(ring.main_ult));
    return NULL;
}

static void demo_ring(void)
{
    printf("[3] ring of %d ULTs, token passed %d laps with resume/suspend\n",
           RING_SIZE, RING_LAPS);
    ring.member = calloc(RING_SIZE, sizeof *ring.member);
    ring.visits = calloc(RING_SIZE, sizeof *ring.visits);
    if (!ring.member || !ring.visits) {
        fprintf(stderr, "ult_demo: out of memory\n");
        exit(2);
    }
    atomic_store(&ring.holder, -1);
    atomic_store(&ring.hops, 0);
    atomic_store(&ring.last_worker, -1);
    atomic_store(&ring.crossed, 0);
    atomic_store(&ring.started, 0);
    atomic_store(&ring.over, 0);
    atomic_store(&ring.finished, 0);
    ring.main_ult = myr_ult_self();
    live_reset();

    double t0 = now_s();
    for (int i = 0; i < RING_SIZE; i++)
        CHECK_OK(myr_ult_spawn(&ring.member[i], ring_member, (void *)(intptr_t)i));
    while (atomic_load(&ring.started) < RING_SIZE)
        CHECK_OK(myr_ult_suspend());
    double t_started = now_s();
    /* Every handle is stored before the token starts moving. */
    atomic_store(&ring.holder, 0);
    CHECK_OK(myr_ult_resume(ring.member[0]));
    while (!atomic_load(&ring.over))
        CHECK_OK(myr_ult_suspend());
    double t_over = now_s();
    for (int i = 0; i < RING_SIZE; i++) {
        int rc = myr_ult_resume(ring.member[i]);
        if (rc != MYR_OK && rc != MYR_ERR_STATE)  /* STATE: already ended */
            check_ok(rc, "myr_ult_resume(member)");
    }
    while (atomic_load(&ring.finished) < RING_SIZE)
        CHECK_OK(myr_ult_suspend());
    for (int i = 0; i < RING_SIZE; i++)
        CHECK_OK(myr_ult_join(ring.member[i], NULL));
    double t_done = now_s();

    long hops = atomic_load(&ring.hops);
    long wrong_visits = 0;
    for (int i = 0; i < RING_SIZE; i++)
        wrong_visits += ring.visits[i] != RING_LAPS;
    printf("    start (spawn, first run, suspend) %.1f ms; peak live %ld\n",
           (t_started - t0) * 1e3, atomic_load(&live_peak));
    printf("    %ld hops in %.1f ms, %.2f us per hop, %ld of them to another "
           "worker\n", hops, (t_over - t_started) * 1e3,
           (t_over - t_started) * 1e6 / (double)(hops ? hops : 1),
           atomic_load(&ring.crossed));
    printf("    wind-down (resume, end, join) %.1f ms\n",
           (t_done - t_over) * 1e3);
    char what[128];
    snprintf(what, sizeof what, "%ld hops = %d members x %d laps", hops,
             RING_SIZE, RING_LAPS);
    verdict(hops == (long)RING_SIZE * RING_LAPS, what);
    snprintf(what, sizeof what, "every member visited %d times (%ld not)",
             RING_LAPS, wrong_visits);
    verdict(wrong_visits == 0, what);
    free(ring.visits);
    free(ring.member);
}

int main(void)
{
    CHECK_OK(myr_init());
    int workers = myr_worker_count();
    printf("Myriad ULT demo: %d worker%s, %zu KiB of stack per ULT\n", workers,
           workers == 1 ? "" : "s", myr_stack_size() / 1024);
    double t0 = now_s();
    demo_many(workers);
    demo_fib();
    demo_ring();
    CHECK_OK(myr_finalize());

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("total %.2f s, peak RSS %ld MiB\n", now_s() - t0, ru.ru_maxrss / 1024);
    if (mismatches) {
        printf("%d MISMATCH%s\n", mismatches, mismatches == 1 ? "" : "ES");
        return 1;
    }
    printf("all ok\n");
    return 0;
}
