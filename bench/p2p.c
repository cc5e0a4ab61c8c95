/*
 * p2p.c — p2p_bench: point-to-point figures between ranks 0 and 1, each
 * printed next to a reference measured in the same run.
 *
 *   latency    ping-pong (MPI_Send / MPI_Recv), half round trip in us,
 *              0 B, 1 B, 2 B, 4 B ... 4 MiB
 *   bandwidth  streaming: rank 0 posts a window of MPI_Isend, rank 1 a
 *              window of MPI_Irecv into distinct slots, both MPI_Waitall,
 *              then rank 1 returns a 0 B acknowledgement; 1 B ... 16 MiB,
 *              in MB/s (10^6 B/s). Reference: memcpy of the same bytes from
 *              the same send buffer into the same slots, in this process.
 *   overhead   messaging cost over memcpy (the method of FG-MPI's Table I):
 *              a ping-pong in which every message starts at a random offset
 *              of a large send pool and lands at a random offset of a large
 *              receive pool (64 MiB each, so that the caches do not help);
 *              reference: one memcpy per message between random offsets of
 *              two such pools, each copy waiting for the previous one's
 *              data as messages do; overhead = half round trip - memcpy
 *              time. 2 B ... 1 MiB.
 *
 * One portable MPI-3.1 source: built by Myriad (CMake's p2p_bench, or
 * Myriad's mpicc) and by Open MPI's and MPICH's mpicc, so that
 * scripts/bench-mpi can print the libraries side by side. It uses only
 * MPI_Init, MPI_Comm_rank/size, MPI_Send/Recv/Isend/Irecv/Waitall,
 * MPI_Abort and MPI_Finalize; the clock is clock_gettime(CLOCK_MONOTONIC)
 * for messages and references alike.
 *
 * Rank 0 drives: it sends rank 1 a command (operation, size, iterations,
 * window), waits for rank 1's "ready", times the run, and receives a "done"
 * that carries where rank 1 ran (CPU, and under Myriad its worker), so the
 * placement of the two ranks is reported as measured, not as intended.
 * memcpy references run on rank 0 while rank 1 waits for its next command.
 * Every run's iteration count is calibrated to last about --time ms; each
 * figure is the best and the median of --reps runs. This program reports;
 * it never judges a timing (scripts/bench-mpi prints the targets).
 *
 * Output: '#' lines are comments; each figure is one row that starts with
 * its test's name (latency, bandwidth, overhead) and ends with where ranks
 * 0 and 1 ran during its runs (same_worker=k/n under Myriad, else
 * same_cpu=k/n); a `placement` line sums up each test.
 *
 * Ranks share a process under Myriad (they are threads): no mutable global
 * state here, everything a rank uses is on its stack or its heap.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KiB 1024L
#define MiB (1024L * 1024L)
#define MAX_SIZES 64
#define MAX_REPS 101
#define MIN_ITERS 4 /* per timed run, unless --quick */

enum test_bit { TEST_LATENCY = 1, TEST_BANDWIDTH = 2, TEST_OVERHEAD = 4 };

/* Commands rank 0 sends to rank 1: {op, size, iterations, window}. */
enum op { OP_STOP, OP_PINGPONG, OP_STREAM, OP_RANDOM_PINGPONG };
enum tag { TAG_CMD = 1, TAG_READY, TAG_DONE, TAG_DATA, TAG_ACK };

typedef struct options {
    unsigned tests;
    long min_size, max_size; /* -1: each test's default range */
    long sizes[MAX_SIZES];   /* --sizes: an explicit list instead */
    int nsizes;
    int window;              /* bandwidth: messages in flight */
    long area;               /* bandwidth: bytes of receive slots */
    long pool;               /* overhead: bytes of each random-offset pool */
    int ref_stores;          /* overhead: stores after each reference copy */
    int ref_work;            /* overhead: register adds after each reference copy */
    double run_s;            /* target duration of one timed run */
    int reps;                /* timed runs per figure */
    int quick;               /* tiny fixed counts: only checks that it runs */
} options;

/* Where a rank runs: its CPU, and its Myriad worker (-1 elsewhere). */
typedef struct place {
    int cpu, worker;
} place;

typedef struct placement_count {
    long samples, same_cpu, same_worker, worker_samples;
} placement_count;

/* Everything one rank uses. Both ranks allocate the same buffers, so that
 * rank 0 can run each memcpy reference on buffers like the ones rank 1
 * receives into. */
typedef struct bench {
    const options *opt;
    int rank;
    char *src, *dst;       /* send side and receive side */
    long src_size, dst_size;
    /* overhead, rank 0: the peer's pools as the reference sees them (a
     * ping-pong's messages go from rank 0's send pool to rank 1's receive
     * pool and from rank 1's send pool to rank 0's receive pool: four pools,
     * so the reference copies alternate between two pairs of pools too,
     * with the same footprint for the TLB and the page-table walks) */
    char *peer_src, *peer_dst;
    MPI_Request *reqs;     /* window */
    MPI_Status *no_statuses; /* MPI_STATUSES_IGNORE, see allocate() */
    uint64_t rng;          /* per-rank random offsets (xorshift64) */
    placement_count where; /* of the current test */
    placement_count row;   /* of the current figure */
} bench;

/* A call through a volatile pointer: the compiler can neither drop a copy
 * whose result it thinks unused nor inline it into something cheaper than
 * the library call that MPI implementations make. Never written. */
static void *(*volatile const copy_bytes)(void *, const void *, size_t) = memcpy;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static place here(void)
{
    place p = {sched_getcpu(), -1};
#ifdef MYRIAD_VERSION
    p.worker = myr_worker_self();
#endif
    return p;
}

#define P2P_STR2(x) #x
#define P2P_STR(x) P2P_STR2(x)

static const char *library_name(void)
{
#if defined(MYRIAD_VERSION)
    return "Myriad " MYRIAD_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
    return "Open MPI " P2P_STR(OMPI_MAJOR_VERSION) "." P2P_STR(OMPI_MINOR_VERSION)
        "." P2P_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "unknown MPI";
#endif
}

static void fail(const char *what)
{
    fprintf(stderr, "p2p_bench: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- random offsets ---------------------------------------------------- */

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/* A random 8-byte-aligned offset at which `size` bytes fit in `pool`. */
static long random_offset(uint64_t *state, long pool, long size)
{
    uint64_t slots = (uint64_t)(pool - size) / 8 + 1; /* < 2^32 */
    return (long)((((next_random(state) >> 32) * slots) >> 32) * 8);
}

/* Feed the first byte that a copy or a message just wrote into the offset
 * generator: the next copy's addresses then wait for this one's data, as the
 * next message of a ping-pong waits for this one. Without it, the CPU would
 * overlap the cache misses of successive memcpy calls, which messages that
 * follow one another cannot do, and the reference would be too cheap. The
 * low bit keeps the xorshift state non-zero. */
static void depend_on(bench *b, const char *written, long size)
{
    if (size > 0)
        b->rng = (b->rng ^ (unsigned char)written[0]) | 1;
}

/* ---- the operations both ranks run ------------------------------------- */

static void pingpong(bench *b, int size, long n)
{
    int peer = 1 - b->rank;
    for (long i = 0; i < n; i++) {
        if (b->rank == 0) {
            MPI_Send(b->src, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(b->dst, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b->dst, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(b->src, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

static void random_pingpong(bench *b, int size, long n)
{
    int peer = 1 - b->rank;
    long pool = b->opt->pool;
    for (long i = 0; i < n; i++) {
        char *s = b->src + random_offset(&b->rng, pool, size);
        char *d = b->dst + random_offset(&b->rng, pool, size);
        if (b->rank == 0) {
            MPI_Send(s, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(d, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(d, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(s, size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
        }
        depend_on(b, d, size);
    }
}

/* Rank 0 sends windows, rank 1 receives each message of a window into its
 * own slot and acknowledges the window. Sending one buffer several times at
 * once is allowed since MPI-3.0. */
static void stream(bench *b, int size, long n, int window)
{
    for (long i = 0; i < n; i++) {
        if (b->rank == 0) {
            for (int j = 0; j < window; j++)
                MPI_Isend(b->src, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                          &b->reqs[j]);
            MPI_Waitall(window, b->reqs, b->no_statuses);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < window; j++)
                MPI_Irecv(b->dst + (long)j * size, size, MPI_BYTE, 0, TAG_DATA,
                          MPI_COMM_WORLD, &b->reqs[j]);
            MPI_Waitall(window, b->reqs, b->no_statuses);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
}

static void run_op(bench *b, const int cmd[4])
{
    switch (cmd[0]) {
    case OP_PINGPONG: pingpong(b, cmd[1], cmd[2]); break;
    case OP_STREAM: stream(b, cmd[1], cmd[2], cmd[3]); break;
    case OP_RANDOM_PINGPONG: random_pingpong(b, cmd[1], cmd[2]); break;
    default: fail("unknown command");
    }
}

/* Rank 1: run rank 0's commands until OP_STOP. */
static void follow(bench *b)
{
    for (;;) {
        int cmd[4];
        MPI_Recv(cmd, 4, MPI_INT, 0, TAG_CMD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (cmd[0] == OP_STOP)
            return;
        place p[2];
        p[0] = here();
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
        run_op(b, cmd);
        p[1] = here();
        MPI_Send(p, 4, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
    }
}

static void count_placement(placement_count *c, place mine, place peer)
{
    c->samples++;
    c->same_cpu += mine.cpu == peer.cpu;
    if (mine.worker >= 0 && peer.worker >= 0) {
        c->worker_samples++;
        c->same_worker += mine.worker == peer.worker;
    }
}

/* Rank 0: one run of an operation with rank 1; returns seconds. */
static double remote_run(bench *b, int op, long size, long n, int window)
{
    if (n > 0x7fffffff)
        n = 0x7fffffff;
    int cmd[4] = {op, (int)size, (int)n, window};
    place mine[2], peer[2];
    MPI_Send(cmd, 4, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    mine[0] = here();
    double t0 = now_s();
    run_op(b, cmd);
    double t = now_s() - t0;
    mine[1] = here();
    MPI_Recv(peer, 4, MPI_INT, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; i++) {
        count_placement(&b->where, mine[i], peer[i]);
        count_placement(&b->row, mine[i], peer[i]);
    }
    return t;
}

/* ---- memcpy references (rank 0 alone) ---------------------------------- */

static double copy_windows(bench *b, long size, long n, int window)
{
    double t0 = now_s();
    for (long i = 0; i < n; i++)
        for (int j = 0; j < window; j++)
            copy_bytes(b->dst + (long)j * size, b->src, (size_t)size);
    return now_s() - t0;
}

/* --ref-stores: what a messaging library's own work writes between two
 * messages (its stack frames, its state), as plain stores to a few lines
 * that stay in the cache. Through a volatile pointer: not inlined. */
static volatile long ref_scratch[64];
static void stores_after_copy(int n)
{
    for (int i = 0; i < n; i++)
        ref_scratch[i & 63] = i;
}
static void (*volatile const store_some)(int) = stores_after_copy;

/* --ref-work: the same for a library's instructions that neither load nor
 * store, as register additions in eight independent chains (eight per
 * round of the loop, plus its three of control; n rounded up to eight). They take a few cycles to
 * execute, but each needs a place in the CPU's window of instructions in
 * flight: with enough of them after a copy, the window fills before the
 * copy's cache misses are served, and the next copy can no longer start
 * under them (bench/README, overhead). */
static void work_after_copy(int n)
{
    unsigned long a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    for (int i = 0; i < n; i += 8) {
        a0++, a1++, a2++, a3++, a4++, a5++, a6++, a7++;
        __asm__ volatile("" : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4),
                         "+r"(a5), "+r"(a6), "+r"(a7));
    }
}
static void (*volatile const work_some)(int) = work_after_copy;

static double copy_random(bench *b, long size, long n)
{
    long pool = b->opt->pool;
    int stores = b->opt->ref_stores;
    int work = b->opt->ref_work;
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        /* Even copies as the ping (rank 0 -> rank 1), odd ones as the pong. */
        char *s = (i & 1 ? b->peer_src : b->src) + random_offset(&b->rng, pool, size);
        char *d = (i & 1 ? b->dst : b->peer_dst) + random_offset(&b->rng, pool, size);
        copy_bytes(d, s, (size_t)size);
        if (stores)
            store_some(stores);
        if (work)
            work_some(work);
        depend_on(b, d, size);
    }
    return now_s() - t0;
}

/* ---- measuring --------------------------------------------------------- */

typedef struct what {
    int op;        /* OP_*, or -1 for a memcpy reference */
    int random;    /* memcpy reference: random offsets (else windows) */
    long size;
    int window;
} what;

typedef struct figure {
    double best, median; /* seconds per run of `n` iterations */
    long n;
} figure;

static double run_once(bench *b, const what *w, long n)
{
    if (w->op >= 0)
        return remote_run(b, w->op, w->size, n, w->window);
    return w->random ? copy_random(b, w->size, n)
                     : copy_windows(b, w->size, n, w->window);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* Calibrate the iteration count to about opt->run_s per run, then time
 * opt->reps runs. The calibration runs are the warm-up. The estimate of
 * one iteration is the fastest seen, so that one run slowed down by the
 * rest of the machine (a preempted rank, a worker waking up) cannot stop
 * the calibration early with a tiny count: it takes at least 3 runs and
 * goes on until a run at the best pace would take half the target. */
static figure measure(bench *b, const what *w)
{
    const options *o = b->opt;
    const long max_n = 1L << 30;
    long n = 2;
    b->row = (placement_count){0};
    if (!o->quick) {
        double pace = 0; /* best seconds per iteration so far */
        n = 1;
        for (int runs = 1;; runs++) {
            double t = run_once(b, w, n) / (double)n;
            if (t > 0 && (pace == 0 || t < pace))
                pace = t;
            if (n >= max_n ||
                (runs >= 3 && pace > 0 && (double)n * pace >= o->run_s / 2))
                break;
            double next = pace > 0 ? o->run_s / pace : (double)n * 16;
            if (next > (double)n * 1000)
                next = (double)n * 1000;
            n = next < (double)(2 * n) ? 2 * n : next > (double)max_n ? max_n : (long)next;
        }
        double next = pace > 0 ? o->run_s / pace : (double)n;
        n = next < MIN_ITERS ? MIN_ITERS : next > (double)max_n ? max_n : (long)next;
    }
    double v[MAX_REPS];
    for (int r = 0; r < o->reps; r++)
        v[r] = run_once(b, w, n);
    qsort(v, (size_t)o->reps, sizeof v[0], cmp_double);
    figure f = {v[0], v[o->reps / 2], n};
    return f;
}

/* ---- sizes ------------------------------------------------------------- */

/* The sizes of a test: --sizes, or powers of two within the test's default
 * range narrowed by --min-size / --max-size (0 B first when in range). */
static int test_sizes(const options *o, long lo, long hi, long *out)
{
    int k = 0;
    if (o->nsizes > 0) {
        memcpy(out, o->sizes, (size_t)o->nsizes * sizeof *out);
        return o->nsizes;
    }
    if (o->min_size >= 0)
        lo = o->min_size;
    if (o->max_size >= 0)
        hi = o->max_size;
    if (lo == 0 && hi >= 0)
        out[k++] = 0;
    for (long s = 1; s <= hi && k < MAX_SIZES; s *= 2)
        if (s >= lo)
            out[k++] = s;
    return k;
}

static void format_size(long s, char *buf, size_t len)
{
    if (s >= MiB && s % MiB == 0)
        snprintf(buf, len, "%ldM", s / MiB);
    else if (s >= KiB && s % KiB == 0)
        snprintf(buf, len, "%ldK", s / KiB);
    else
        snprintf(buf, len, "%ld", s);
}

/* The last field of a row: where ranks 0 and 1 ran during that figure's
 * runs (calibration included): on the same worker (Myriad) or CPU. */
static void print_where(const placement_count *c)
{
    if (c->worker_samples)
        printf(" same_worker=%ld/%ld\n", c->same_worker, c->worker_samples);
    else
        printf(" same_cpu=%ld/%ld\n", c->same_cpu, c->samples);
}

static void print_placement(const char *test, const placement_count *c)
{
    printf("placement %s same_cpu %ld/%ld", test, c->same_cpu, c->samples);
    if (c->worker_samples)
        printf(" same_worker %ld/%ld", c->same_worker, c->worker_samples);
    printf("   # ranks 0 and 1, sampled at the start and end of every run\n\n");
}

/* ---- the three tests (rank 0) ------------------------------------------ */

static void test_latency(bench *b)
{
    long sizes[MAX_SIZES];
    int k = test_sizes(b->opt, 0, 4 * MiB, sizes);
    b->where = (placement_count){0};
    printf("# latency: ping-pong MPI_Send/MPI_Recv, half round trip in us\n");
    printf("# %-8s %9s %8s %12s %12s %s\n", "test", "size", "iters", "best_us",
           "median_us", "where");
    for (int i = 0; i < k; i++) {
        what w = {OP_PINGPONG, 0, sizes[i], 0};
        figure f = measure(b, &w);
        char sz[32];
        format_size(sizes[i], sz, sizeof sz);
        printf("%-10s %9s %8ld %12.3f %12.3f", "latency", sz, f.n,
               1e6 * f.best / (2.0 * (double)f.n),
               1e6 * f.median / (2.0 * (double)f.n));
        print_where(&b->row);
        fflush(stdout);
    }
    print_placement("latency", &b->where);
}

static int window_for(const options *o, long size)
{
    long fit = size > 0 ? o->area / size : o->window;
    if (fit < 1)
        fit = 1;
    return (int)(fit < o->window ? fit : o->window);
}

static void test_bandwidth(bench *b)
{
    const options *o = b->opt;
    long sizes[MAX_SIZES];
    int k = test_sizes(o, 1, 16 * MiB, sizes);
    b->where = (placement_count){0};
    char area[32];
    format_size(o->area, area, sizeof area);
    printf("# bandwidth: windows of up to %d MPI_Isend/MPI_Irecv + MPI_Waitall"
           " + 0 B ack, MB/s (10^6 B/s);\n"
           "#   receive slots: at most %s bytes; memcpy: the same copies "
           "(send buffer -> slots) in this process\n",
           o->window, area);
    printf("# %-8s %9s %6s %8s %12s %12s %12s %8s %s\n", "test", "size",
           "window", "iters", "best_MB/s", "median_MB/s", "memcpy_MB/s",
           "%memcpy", "where");
    for (int i = 0; i < k; i++) {
        long size = sizes[i];
        int window = window_for(o, size);
        what w = {OP_STREAM, 0, size, window};
        figure f = measure(b, &w);
        placement_count at = b->row;
        what c = {-1, 0, size, window};
        figure m = measure(b, &c);
        double bytes = (double)size * window;
        double best = bytes * (double)f.n / f.best / 1e6;
        double median = bytes * (double)f.n / f.median / 1e6;
        double copy = bytes * (double)m.n / m.best / 1e6;
        char sz[32];
        format_size(size, sz, sizeof sz);
        printf("%-10s %9s %6d %8ld %12.1f %12.1f %12.1f %7.1f%%", "bandwidth",
               sz, window, f.n, best, median, copy, 100.0 * best / copy);
        print_where(&at);
        fflush(stdout);
    }
    print_placement("bandwidth", &b->where);
}

static void test_overhead(bench *b)
{
    const options *o = b->opt;
    long sizes[MAX_SIZES];
    int k = test_sizes(o, 2, 1 * MiB, sizes);
    b->where = (placement_count){0};
    char pool[32];
    format_size(o->pool, pool, sizeof pool);
    printf("# overhead over memcpy (FG-MPI Table I method): ping-pong, each "
           "message from a random\n"
           "#   offset of a %s-byte pool to a random offset of another; "
           "memcpy: one copy between\n"
           "#   random offsets of two such pools, one after the other (each "
           "copy's addresses depend\n"
           "#   on the previous copy's data); overhead = half round trip"
           " - memcpy (best figures)\n", pool);
    if (o->ref_stores)
        printf("#   each memcpy followed by %d plain stores (--ref-stores)\n",
               o->ref_stores);
    if (o->ref_work)
        printf("#   each memcpy followed by %d register additions (--ref-work)\n",
               o->ref_work);
    printf("# %-8s %9s %8s %12s %12s %12s %12s %s\n", "test", "size", "iters",
           "msg_us", "memcpy_us", "overhead_us", "msg_med_us", "where");
    for (int i = 0; i < k; i++) {
        long size = sizes[i];
        what w = {OP_RANDOM_PINGPONG, 0, size, 0};
        figure f = measure(b, &w);
        placement_count at = b->row;
        what c = {-1, 1, size, 0};
        figure m = measure(b, &c);
        double msg = 1e6 * f.best / (2.0 * (double)f.n);
        double copy = 1e6 * m.best / (double)m.n;
        char sz[32];
        format_size(size, sz, sizeof sz);
        printf("%-10s %9s %8ld %12.3f %12.3f %12.3f %12.3f", "overhead", sz,
               f.n, msg, copy, msg - copy,
               1e6 * f.median / (2.0 * (double)f.n));
        print_where(&at);
        fflush(stdout);
    }
    print_placement("overhead", &b->where);
}

/* ---- options ----------------------------------------------------------- */

/* "0", "64", "4K", "16M", "1G": bytes; -1 if malformed. */
static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    long unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = KiB; end++; break;
    case 'm': case 'M': unit = MiB; end++; break;
    case 'g': case 'G': unit = 1024 * MiB; end++; break;
    default: break;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end != '\0' || v > (1L << 40) / unit)
        return -1;
    return v * unit;
}

static int parse_tests(const char *s, unsigned *tests)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    *tests = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "latency") == 0)
            *tests |= TEST_LATENCY;
        else if (strcmp(t, "bandwidth") == 0)
            *tests |= TEST_BANDWIDTH;
        else if (strcmp(t, "overhead") == 0)
            *tests |= TEST_OVERHEAD;
        else if (strcmp(t, "all") == 0)
            *tests |= TEST_LATENCY | TEST_BANDWIDTH | TEST_OVERHEAD;
        else
            return -1;
    }
    return *tests ? 0 : -1;
}

static int parse_size_list(const char *s, options *o)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    o->nsizes = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        long v = parse_size(t);
        if (v < 0 || v > 0x7fffffffL || o->nsizes == MAX_SIZES)
            return -1;
        o->sizes[o->nsizes++] = v;
    }
    return o->nsizes ? 0 : -1;
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]   (run with 2 ranks)\n"
        "  --test LIST      latency,bandwidth,overhead or all (default all)\n"
        "  --min-size S     smallest size (default per test: 0, 1, 2 B)\n"
        "  --max-size S     largest size (default per test: 4M, 16M, 1M)\n"
        "  --sizes LIST     exact sizes instead, e.g. 0,8,1K,64K,4M\n"
        "  --window N       bandwidth: messages in flight (default 64)\n"
        "  --area S         bandwidth: receive slots in bytes (default 64M);\n"
        "                   the window shrinks to fit large messages\n"
        "  --pool S         overhead: random-offset pools (default 64M)\n"
        "  --ref-stores N   overhead: N stores after each reference copy, as\n"
        "                   a library writes between messages (default 0)\n"
        "  --ref-work N     overhead: N register additions (rounded up to 8)\n"
        "                   after each reference copy, as a library's other\n"
        "                   instructions (default 0)\n"
        "  --time MS        target length of one timed run (default 10)\n"
        "  --reps N         timed runs per figure (default 5)\n"
        "  --quick          tiny counts, small pools: checks that it runs;\n"
        "                   the figures mean nothing\n"
        "sizes take K, M, G suffixes (powers of 1024)\n", prog);
}

/* 0: run; 1: exit 0 (--help); 2: bad usage. Ranks parse the same argv. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    *o = (options){.tests = TEST_LATENCY | TEST_BANDWIDTH | TEST_OVERHEAD,
                   .min_size = -1, .max_size = -1, .window = 64,
                   .area = 64 * MiB, .pool = 64 * MiB, .run_s = 0.010,
                   .reps = 5};
    int area_set = 0, pool_set = 0, reps_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (rank == 0)
                usage(stdout, argv[0]);
            return 1;
        }
        if (!v) {
            bad = 1;
        } else if (strcmp(a, "--test") == 0) {
            bad = parse_tests(v, &o->tests) != 0;
        } else if (strcmp(a, "--min-size") == 0) {
            bad = (o->min_size = parse_size(v)) < 0;
        } else if (strcmp(a, "--max-size") == 0) {
            bad = (o->max_size = parse_size(v)) < 0 || o->max_size > 0x40000000L;
        } else if (strcmp(a, "--sizes") == 0) {
            bad = parse_size_list(v, o) != 0;
        } else if (strcmp(a, "--window") == 0) {
            o->window = atoi(v);
            bad = o->window < 1 || o->window > 100000;
        } else if (strcmp(a, "--area") == 0) {
            bad = (o->area = parse_size(v)) < 1;
            area_set = 1;
        } else if (strcmp(a, "--pool") == 0) {
            bad = (o->pool = parse_size(v)) < 1 || o->pool > (16L << 30);
            pool_set = 1;
        } else if (strcmp(a, "--ref-stores") == 0) {
            o->ref_stores = atoi(v);
            bad = o->ref_stores < 0 || o->ref_stores > 100000;
        } else if (strcmp(a, "--ref-work") == 0) {
            o->ref_work = atoi(v);
            bad = o->ref_work < 0 || o->ref_work > 100000;
        } else if (strcmp(a, "--time") == 0) {
            o->run_s = atof(v) / 1000.0;
            bad = !(o->run_s > 0 && o->run_s < 100);
        } else if (strcmp(a, "--reps") == 0) {
            o->reps = atoi(v);
            bad = o->reps < 1 || o->reps > MAX_REPS;
            reps_set = 1;
        } else {
            bad = 1;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "p2p_bench: bad option %s%s%s\n", a,
                        v ? " " : "", v ? v : "");
                usage(stderr, argv[0]);
            }
            return 2;
        }
        i++;
    }
    if (o->quick) {
        /* Small buffers: the smoke test also runs under ASan and qemu. */
        if (!area_set)
            o->area = 64 * KiB;
        if (!pool_set)
            o->pool = 2 * MiB;
        if (!reps_set)
            o->reps = 2;
    }
    if (o->min_size >= 0 && o->max_size >= 0 && o->min_size > o->max_size) {
        if (rank == 0)
            fprintf(stderr, "p2p_bench: --min-size is above --max-size\n");
        return 2;
    }
    return 0;
}

/* ---- buffers ----------------------------------------------------------- */

static long max_of(const long *v, int k)
{
    long m = 0;
    for (int i = 0; i < k; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Page-aligned and touched, so that no page fault lands in a timed run. */
static char *touched_buffer(long size)
{
    size_t bytes = ((size_t)size + 4095) / 4096 * 4096;
    char *p = aligned_alloc(4096, bytes ? bytes : 4096);
    if (!p)
        fail("out of memory for the buffers (try smaller --area / --pool)");
    memset(p, 0x5a, bytes);
    return p;
}

static void allocate(bench *b)
{
    const options *o = b->opt;
    long sizes[MAX_SIZES];
    int k;
    if (o->tests & TEST_LATENCY) {
        k = test_sizes(o, 0, 4 * MiB, sizes);
        long m = max_of(sizes, k);
        b->src_size = m > b->src_size ? m : b->src_size;
        b->dst_size = m > b->dst_size ? m : b->dst_size;
    }
    if (o->tests & TEST_BANDWIDTH) {
        k = test_sizes(o, 1, 16 * MiB, sizes);
        for (int i = 0; i < k; i++) {
            long slots = (long)window_for(o, sizes[i]) * sizes[i];
            b->src_size = sizes[i] > b->src_size ? sizes[i] : b->src_size;
            b->dst_size = slots > b->dst_size ? slots : b->dst_size;
        }
    }
    if (o->tests & TEST_OVERHEAD) {
        k = test_sizes(o, 2, 1 * MiB, sizes);
        if (max_of(sizes, k) > o->pool) {
            if (b->rank == 0)
                fprintf(stderr, "p2p_bench: --pool must hold the largest "
                                "overhead message\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        b->src_size = o->pool > b->src_size ? o->pool : b->src_size;
        b->dst_size = o->pool > b->dst_size ? o->pool : b->dst_size;
        if (b->rank == 0) {
            b->peer_src = touched_buffer(o->pool);
            b->peer_dst = touched_buffer(o->pool);
        }
    }
    b->src = touched_buffer(b->src_size);
    b->dst = touched_buffer(b->dst_size);
    b->reqs = malloc((size_t)o->window * sizeof *b->reqs);
    if (!b->reqs)
        fail("out of memory for the requests");
    /* Kept in a field: with MPICH's (MPI_Status *)1 as a literal argument,
     * GCC 12 warns that MPI_Waitall would write to an empty region. */
    b->no_statuses = MPI_STATUSES_IGNORE;
}

/* ---- main -------------------------------------------------------------- */

static void print_context(const bench *b, int nranks)
{
    const options *o = b->opt;
    printf("p2p_bench: point-to-point between ranks 0 and 1 of %d, next to "
           "memcpy, same run\n", nranks);
    printf("library %s\n", library_name());
    place p = here();
    printf("rank0 cpu %d", p.cpu);
    if (p.worker >= 0)
        printf(" worker %d", p.worker);
    printf("\n");
    const char *workers = getenv("MYR_WORKERS");
    if (workers)
        printf("env MYR_WORKERS=%s\n", workers);
    printf("# each figure: best and median of %d runs of ~%.0f ms%s\n\n",
           o->reps, o->run_s * 1e3,
           o->quick ? " (--quick: tiny counts, the figures mean nothing)" : "");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    options opt;
    int parsed = parse_options(argc, argv, &opt, rank);
    if (parsed != 0) {
        MPI_Finalize();
        return parsed == 1 ? 0 : 2;
    }
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_bench: needs 2 ranks (mpiexec -n 2; under "
                            "Myriad MYR_NRANKS=2), has %d\n", nranks);
        MPI_Finalize();
        return 2;
    }
    if (rank > 1) { /* ranks beyond the pair take no part */
        MPI_Finalize();
        return 0;
    }

    bench b = {.opt = &opt, .rank = rank,
               .rng = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(rank + 1) * UINT64_C(0x2545f491)};
    allocate(&b);
    if (rank == 1) {
        follow(&b);
    } else {
        print_context(&b, nranks);
        if (opt.tests & TEST_LATENCY)
            test_latency(&b);
        if (opt.tests & TEST_BANDWIDTH)
            test_bandwidth(&b);
        if (opt.tests & TEST_OVERHEAD)
            test_overhead(&b);
        int stop[4] = {OP_STOP, 0, 0, 0};
        MPI_Send(stop, 4, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD);
        fflush(stdout);
    }
    free(b.reqs);
    free(b.src);
    free(b.dst);
    free(b.peer_src);
    free(b.peer_dst);
    MPI_Finalize();
    return 0;
}
