/*
 * ult.c — ult_bench: what a ULT operation costs, next to the raw context
 * switch below it and the kernel-thread operation it replaces, all measured
 * in the same run on the same machine.
 *
 *   bare switch      two raw contexts (arch layer) ping-ponging
 *   yield            two ULTs on one worker ping-ponging via myr_ult_yield
 *   create+join      spawn + join of an empty ULT, with 1 and 2 workers
 *                    (reference: pthread_create + pthread_join)
 *   handoff          two ULTs on two workers passing a turn with
 *                    suspend/resume (reference: futex ping-pong between
 *                    two kernel threads on two CPUs)
 *
 * Every figure is the best (minimum) and the median of REPS runs, after a
 * short warm-up run. This program reports; it never judges timings, except
 * for printing the yield / bare-switch ratio next to its target.
 *
 * Usage: ult_bench [--quick]   (--quick: tiny counts, only to check it runs)
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch/context.h"
#include "arch/stack.h"
#include "myr_ult.h"

#ifdef MYR_SANITIZE
#include <sanitizer/common_interface_defs.h>
#endif

enum { REPS = 5 };

/* Operations per run. The defaults keep the whole program at a few
 * seconds; the slow kernel references get fewer operations. */
typedef struct counts {
    long switch_rounds;  /* bare switch: 2 switches per round */
    long yield_rounds;   /* yield: 2 yields per round */
    long create_w1;      /* create+join pairs, 1 worker */
    long create_w2;      /* create+join pairs, 2 workers */
    long pthread_create; /* pthread_create+join pairs */
    long handoff_turns;  /* suspend/resume: turns in total (even) */
    long futex_turns;    /* futex ping-pong: turns in total (even) */
} counts;

static const counts default_counts = {
    .switch_rounds = 2000000, .yield_rounds = 1000000, .create_w1 = 200000,
    .create_w2 = 100000, .pthread_create = 5000, .handoff_turns = 200000,
    .futex_turns = 40000,
};

static const counts quick_counts = {
    .switch_rounds = 20000, .yield_rounds = 10000, .create_w1 = 2000,
    .create_w2 = 1000, .pthread_create = 100, .handoff_turns = 2000,
    .futex_turns = 400,
};

/* ---- helpers ---------------------------------------------------------- */

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "ult_bench: %s: %s\n", what, why);
    exit(1);
}

static void check(int rc, const char *what)
{
    if (__builtin_expect(rc != MYR_OK, 0))
        die(what, myr_strerror(rc));
}

typedef struct timing {
    double best, median;  /* ns per operation */
} timing;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run of `ops` operations; returns ns per operation. */
typedef double (*run_fn)(long ops);

static timing measure(run_fn run, long ops)
{
    /* The warm-up run fills stack pools, descriptor caches and the
     * branch predictors, and wakes the CPUs up from deep idle states. */
    run(ops / 10 > 2 ? ops / 10 : 2);
    double v[REPS];
    for (int r = 0; r < REPS; r++)
        v[r] = run(ops);
    qsort(v, REPS, sizeof v[0], cmp_double);
    timing s = {.best = v[0], .median = v[REPS / 2]};
    return s;
}

static void start_runtime(int workers)
{
    myr_config_t cfg = {.workers = workers};
    check(myr_init_config(&cfg), "myr_init_config");
}

/* ---- bare switch: the arch layer alone ------------------------------- */

/* A raw context plus the bounds of its stack (the sanitizers need them to
 * follow a switch between stacks). */
typedef struct raw_fiber {
    myr_context ctx;
    void *stack_lo;
    size_t stack_size;
    void *asan_fake_stack;
} raw_fiber;

static struct {
    raw_fiber main, a, b;
    myr_stack *stack_a, *stack_b;
    long rounds;
    long t0, t1;
} bare;

static inline void raw_switch(raw_fiber *from, raw_fiber *to)
{
#ifdef MYR_SANITIZE
    __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_lo,
                                   to->stack_size);
    myr_context_switch(&from->ctx, &to->ctx);
    __sanitizer_finish_switch_fiber(from->asan_fake_stack, NULL, NULL);
#else
    myr_context_switch(&from->ctx, &to->ctx);
#endif
}

static void raw_entered(void)
{
#ifdef MYR_SANITIZE
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}

/* Context A times the ping-pong: each round is A->B then B->A. */
static void bare_a_entry(void *arg)
{
    (void)arg;
    raw_entered();
    bare.t0 = now_ns();
    for (long i = 0; i < bare.rounds; i++)
        raw_switch(&bare.a, &bare.b);
    bare.t1 = now_ns();
    raw_switch(&bare.a, &bare.main);
    abort();  /* never switched to again */
}

/* Context B only bounces back; it is abandoned mid-loop at the end (its
 * stack is remade for the next run). */
static void bare_b_entry(void *arg)
{
    (void)arg;
    raw_entered();
    for (;;)
        raw_switch(&bare.b, &bare.a);
}

static void raw_fiber_make(raw_fiber *f, myr_stack *s, myr_context_fn entry)
{
    size_t usable = (size_t)((char *)myr_stack_top(s) - (char *)s->lo);
    myr_context_make(&f->ctx, s->lo, usable, entry, NULL);
    f->stack_lo = s->lo;
    f->stack_size = s->size;
}

static double run_bare_switch(long rounds)
{
    raw_fiber_make(&bare.a, bare.stack_a, bare_a_entry);
    raw_fiber_make(&bare.b, bare.stack_b, bare_b_entry);
    bare.rounds = rounds;
    raw_switch(&bare.main, &bare.a);
    return (double)(bare.t1 - bare.t0) / (double)(2 * rounds);
}

static timing bench_bare_switch(long rounds)
{
    bare.stack_a = myr_stack_create(64 * 1024);
    bare.stack_b = myr_stack_create(64 * 1024);
    if (!bare.stack_a || !bare.stack_b)
        die("myr_stack_create", strerror(errno));
    pthread_attr_t attr;  /* the main fiber's bounds, for the sanitizers */
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &bare.main.stack_lo, &bare.main.stack_size);
        pthread_attr_destroy(&attr);
    }
    timing s = measure(run_bare_switch, rounds);
    myr_stack_destroy(bare.stack_a);
    myr_stack_destroy(bare.stack_b);
    return s;
}

/* ---- yield: two ULTs on one worker ----------------------------------- */

static struct {
    _Atomic int b_started;
    _Atomic int stop;
    long rounds;
    long t0, t1;
} yld;

/* A times `rounds` of its yields; each lets B run one loop turn, which
 * yields straight back: 2 yields (2 switches) per round. */
static void *yield_a(void *arg)
{
    (void)arg;
    while (!atomic_load(&yld.b_started))
        myr_ult_yield();
    yld.t0 = now_ns();
    for (long i = 0; i < yld.rounds; i++)
        myr_ult_yield();
    yld.t1 = now_ns();
    atomic_store(&yld.stop, 1);
    return NULL;
}

static void *yield_b(void *arg)
{
    (void)arg;
    atomic_store(&yld.b_started, 1);
    while (!atomic_load_explicit(&yld.stop, memory_order_relaxed))
        myr_ult_yield();
    return NULL;
}

static double run_yield(long rounds)
{
    atomic_store(&yld.b_started, 0);
    atomic_store(&yld.stop, 0);
    yld.rounds = rounds;
    myr_ult_t *a, *b;
    check(myr_ult_spawn(&a, yield_a, NULL), "myr_ult_spawn");
    check(myr_ult_spawn(&b, yield_b, NULL), "myr_ult_spawn");
    /* The main ULT is suspended in join, so A and B are alone. */
    check(myr_ult_join(a, NULL), "myr_ult_join");
    check(myr_ult_join(b, NULL), "myr_ult_join");
    return (double)(yld.t1 - yld.t0) / (double)(2 * rounds);
}

/* ---- create+join ----------------------------------------------------- */

static long create_elsewhere;  /* children that ran on another worker */
static long create_total;

/* Empty, except that it reports where it ran (one TLS read). */
static void *empty_ult(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)myr_worker_self();
}

static double run_create_join(long pairs)
{
    long elsewhere = 0;
    long t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
        int spawner = myr_worker_self();
        myr_ult_t *h;
        void *ran_on;
        check(myr_ult_spawn(&h, empty_ult, NULL), "myr_ult_spawn");
        check(myr_ult_join(h, &ran_on), "myr_ult_join");
        elsewhere += (intptr_t)ran_on != spawner;
    }
    long t1 = now_ns();
    create_elsewhere += elsewhere;
    create_total += pairs;
    return (double)(t1 - t0) / (double)pairs;
}

static void *empty_thread(void *arg)
{
    return arg;
}

static double run_pthread_create_join(long pairs)
{
    long t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, empty_thread, NULL);
        if (rc != 0)
            die("pthread_create", strerror(rc));
        pthread_join(t, NULL);
    }
    return (double)(now_ns() - t0) / (double)pairs;
}

/* ---- suspend->resume handoff across two workers ---------------------- */

/* Two ULTs pass a turn: turn t belongs to side t % 2. The holder records
 * where it runs, publishes turn t+1 and resumes the other side, then
 * suspends until its next turn (a resume that comes early is remembered,
 * and a spurious one only makes it look again). */
static struct {
    _Alignas(128) _Atomic long turn;      /* written by the holder */
    _Atomic int last_worker;              /* worker of the last holder */
    _Alignas(128) myr_ult_t *_Atomic side[2];
    _Atomic int finished;
    myr_ult_t *main_ult;
    long total;                           /* turns; even */
    long t0, t1;
    long crossed[2];
} ho;

static long handoff_crossed, handoff_count;

static void *handoff_side(void *arg)
{
    int me = (int)(intptr_t)arg, other = 1 - me;
    atomic_store(&ho.side[me], myr_ult_self());
    /* The other side starts on the other worker: wait until it can be
     * resumed (a short spin; yield returns at once when alone). */
    while (!atomic_load(&ho.side[other]))
        myr_ult_yield();
    myr_ult_t *peer = atomic_load(&ho.side[other]);
    long crossed = 0;
    for (long t = me; t < ho.total; t += 2) {
        while (atomic_load(&ho.turn) != t)
            check(myr_ult_suspend(), "myr_ult_suspend");
        int w = myr_worker_self();
        if (t == 0)
            ho.t0 = now_ns();
        else
            crossed += w != atomic_load_explicit(&ho.last_worker,
                                                 memory_order_relaxed);
        atomic_store_explicit(&ho.last_worker, w, memory_order_relaxed);
        atomic_store(&ho.turn, t + 1);  /* seq_cst: publishes last_worker */
        if (t + 1 == ho.total)
            ho.t1 = now_ns();  /* the last turn: the other side has left */
        else
            check(myr_ult_resume(peer), "myr_ult_resume");
    }
    ho.crossed[me] = crossed;
    /* The main ULT joins only after both sides are past their last resume:
     * joining one side while the other still resumes it would free a
     * handle that is in use. */
    if (atomic_fetch_add(&ho.finished, 1) == 1)
        check(myr_ult_resume(ho.main_ult), "myr_ult_resume");
    return NULL;
}

static double run_handoff(long turns)
{
    turns += turns & 1;
    atomic_store(&ho.turn, 0);
    atomic_store(&ho.last_worker, -1);
    atomic_store(&ho.side[0], NULL);
    atomic_store(&ho.side[1], NULL);
    atomic_store(&ho.finished, 0);
    ho.main_ult = myr_ult_self();
    ho.total = turns;
    myr_ult_t *h0, *h1;
    check(myr_ult_spawn_on(0, &h0, handoff_side, (void *)(intptr_t)0),
          "myr_ult_spawn_on");
    check(myr_ult_spawn_on(1, &h1, handoff_side, (void *)(intptr_t)1),
          "myr_ult_spawn_on");
    while (atomic_load(&ho.finished) < 2)
        check(myr_ult_suspend(), "myr_ult_suspend");
    check(myr_ult_join(h0, NULL), "myr_ult_join");
    check(myr_ult_join(h1, NULL), "myr_ult_join");
    handoff_crossed += ho.crossed[0] + ho.crossed[1];
    handoff_count += turns - 1;
    return (double)(ho.t1 - ho.t0) / (double)(turns - 1);
}

/* ---- futex ping-pong between two kernel threads ---------------------- */

static struct {
    _Alignas(128) _Atomic int turn;  /* 0 or 1: whose turn */
    long total;                      /* turns; even */
    long t0, t1;
    pthread_barrier_t start;
    int cpu[2];                      /* -1: not pinned */
} fx;

static void futex_wait(_Atomic int *word, int expected)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Same shape as handoff_side, with the kernel doing the blocking: no
 * spinning, so every handoff is a wake-up of a sleeping thread. */
static void *futex_side(void *arg)
{
    int me = (int)(intptr_t)arg, other = 1 - me;
    if (fx.cpu[me] >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(fx.cpu[me], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_barrier_wait(&fx.start);
    if (me == 0)
        fx.t0 = now_ns();
    for (long t = me; t < fx.total; t += 2) {
        while (atomic_load(&fx.turn) != me)
            futex_wait(&fx.turn, other);
        atomic_store(&fx.turn, other);
        futex_wake(&fx.turn);
    }
    if (me == 1)
        fx.t1 = now_ns();
    return NULL;
}

static double run_futex(long turns)
{
    turns += turns & 1;
    fx.total = turns;
    atomic_store(&fx.turn, 0);
    pthread_barrier_init(&fx.start, NULL, 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        int rc = pthread_create(&t[i], NULL, futex_side, (void *)(intptr_t)i);
        if (rc != 0)
            die("pthread_create", strerror(rc));
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&fx.start);
    return (double)(fx.t1 - fx.t0) / (double)(turns - 1);
}

/* The first two CPUs we may run on, like the runtime's first two workers
 * (without the core-before-sibling order hwloc gives it). */
static void pick_futex_cpus(void)
{
    cpu_set_t set;
    fx.cpu[0] = fx.cpu[1] = -1;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            fx.cpu[n++] = c;
}

/* ---- machine context and report -------------------------------------- */

/* The value of the first "key : value" line of /proc/cpuinfo, or "". */
static void cpuinfo_field(const char *key, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    size_t len = strlen(key);
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, len) != 0 || !colon)
            continue;
        char *v = colon + 1 + (colon[1] == ' ');
        v[strcspn(v, "\n")] = '\0';
        snprintf(buf, size, "%s", v);
        break;
    }
    fclose(f);
}

/* x86 kernels print a model name; aarch64 ones only the vendor and part
 * numbers. */
static void cpu_model(char *buf, size_t size)
{
    char implementer[64], part[64];
    cpuinfo_field("model name", buf, size);
    if (buf[0])
        return;
    cpuinfo_field("CPU implementer", implementer, sizeof implementer);
    cpuinfo_field("CPU part", part, sizeof part);
    if (implementer[0])
        snprintf(buf, size, "implementer %s, part %s", implementer, part);
    else
        snprintf(buf, size, "unknown");
}

static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    return CPU_COUNT(&set);
}

static void print_context(int quick)
{
    char model[256];
    cpu_model(model, sizeof model);
    printf("ult_bench: ULT operations vs. their references, same run\n");
    printf("CPU:  %s\n", model);
    printf("CPUs: %ld online, %d usable by this process\n",
           sysconf(_SC_NPROCESSORS_ONLN), usable_cpus());
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "MYR_", 4) == 0)
            printf("env:  %s\n", *e);
    printf("each figure: best and median of %d runs%s\n\n", REPS,
           quick ? " (--quick: tiny counts, figures are not meaningful)" : "");
}

static void print_header(void)
{
    printf("%-46s %9s %10s %10s\n", "measurement", "ops/run", "best ns",
           "median ns");
}

static void print_row(const char *name, long ops, timing s, const char *note)
{
    printf("%-46s %9ld %10.1f %10.1f%s%s\n", name, ops, s.best, s.median,
           note[0] ? "   " : "", note);
}

int main(int argc, char **argv)
{
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick]\n"
                            "  --quick  tiny iteration counts (checks that "
                            "the benchmark runs)\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    const counts *n = quick ? &quick_counts : &default_counts;
    print_context(quick);
    fflush(stdout);

    /* Kernel-thread references first, while no worker is running. */
    timing bare_s = bench_bare_switch(n->switch_rounds);
    timing pthread_s = measure(run_pthread_create_join, n->pthread_create);
    pick_futex_cpus();
    timing futex_s = measure(run_futex, n->futex_turns);

    start_runtime(1);
    timing yield_s = measure(run_yield, n->yield_rounds);
    create_elsewhere = create_total = 0;
    timing create1_s = measure(run_create_join, n->create_w1);
    check(myr_finalize(), "myr_finalize");

    start_runtime(2);
    create_elsewhere = create_total = 0;
    timing create2_s = measure(run_create_join, n->create_w2);
    long create2_elsewhere = create_elsewhere, create2_total = create_total;
    timing handoff_s = measure(run_handoff, n->handoff_turns);
    check(myr_finalize(), "myr_finalize");

    char note[200];
    print_header();
    print_row("bare switch (myr_context_switch)", 2 * n->switch_rounds,
              bare_s, "");
    snprintf(note, sizeof note, "%.2fx bare switch (target <= 1.5x)",
             yield_s.best / bare_s.best);
    print_row("yield ping-pong, 2 ULTs on 1 worker", 2 * n->yield_rounds,
              yield_s, note);
    print_row("create+join empty ULT, 1 worker", n->create_w1, create1_s, "");
    snprintf(note, sizeof note, "child ran on the other worker: %.1f%%",
             create2_total ? 100.0 * (double)create2_elsewhere /
                                 (double)create2_total : 0.0);
    print_row("create+join empty ULT, 2 workers", n->create_w2, create2_s,
              note);
    snprintf(note, sizeof note, "%.0fx create+join W=1, %.0fx W=2",
             pthread_s.best / create1_s.best, pthread_s.best / create2_s.best);
    print_row("  ref: pthread_create+pthread_join", n->pthread_create,
              pthread_s, note);
    snprintf(note, sizeof note, "crossed workers (all runs): %ld of %ld (%.1f%%)",
             handoff_crossed, handoff_count,
             handoff_count ? 100.0 * (double)handoff_crossed /
                                 (double)handoff_count : 0.0);
    print_row("suspend->resume handoff, 2 ULTs on 2 workers",
              n->handoff_turns - 1, handoff_s, note);
    snprintf(note, sizeof note, "%.1fx suspend->resume handoff%s",
             futex_s.best / handoff_s.best,
             fx.cpu[0] >= 0 ? "" : " (threads not pinned: <2 CPUs)");
    print_row("  ref: futex ping-pong, 2 threads on 2 CPUs", n->futex_turns - 1,
              futex_s, note);
    printf("\nratios compare best figures; ops/run: switches, yields, "
           "create+join pairs, one-way handoffs\n");
    if (usable_cpus() < 2)
        printf("note: fewer than 2 usable CPUs; the 2-worker figures share "
               "one CPU\n");
    return 0;
}
