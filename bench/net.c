/*
 * net.c — net_p2p_bench: point-to-point figures between ranks of two OS
 * processes (issue 17, item 7), one portable MPI-3.1 source built by
 * Myriad's, Open MPI's and MPICH's mpicc; scripts/bench-net runs it over
 * shared memory and over TCP on loopback and prints the libraries side by
 * side.
 *
 * The job has 2P ranks; pair i is rank i and rank i + P (the job's first
 * and second half: Myriad's -n 2P -nfg P puts each half in one OS process;
 * Open MPI and MPICH run one process per rank). The program checks, with
 * getpid(), how many OS processes the ranks live in and whether each pair
 * spans two of them, and prints it: placement is measured, not assumed.
 *
 *   latency    ping-pong MPI_Send/MPI_Recv between rank 0 and rank P,
 *              half round trip in us; 0 B and 1 B ... 4 MiB by powers of 4
 *   bandwidth  rank 0 posts a window of MPI_Isend, rank P a window of
 *              MPI_Irecv into distinct slots, both MPI_Waitall, rank P
 *              returns a 0 B ack; MB/s (10^6 B/s); 1 B ... 16 MiB
 *   rate       every pair at once: the same windows of --rate-size bytes
 *              (8 B), aggregate messages/s of the job, barrier to barrier
 *   overlap    seed 004's method on the receiving side: rank P posts
 *              MPI_Irecv of S bytes (1, 2, 4, 8 MiB), computes (a busy
 *              loop without MPI calls) for as long as the transfer alone
 *              takes, then MPI_Wait; rank 0 only sends (MPI_Send) once
 *              told the receive is posted. t_transfer is measured first,
 *              without computation; then per iteration
 *              overlap = 1 - (t_total - t_compute) / t_transfer,
 *              clamped to [0, 1], with t_transfer the median alone.
 *
 * Each latency, bandwidth and rate figure is the best and the median of
 * --reps runs calibrated to about --time ms; each overlap figure the best
 * and median of --overlap-reps iterations. The machine this was written
 * on has 2 CPUs shared with other work: the median says how noisy a
 * figure is, the best what the library can do.
 *
 * Every rank takes part in every step (idle ranks wait in MPI_Bcast):
 * after each timed run the rank that timed it broadcasts the time, so that
 * every rank takes the same calibration decisions without a command
 * protocol. Uses MPI_Init, MPI_Comm_rank/size, MPI_Send/Recv/Isend/Irecv,
 * MPI_Wait/Waitall, MPI_Barrier, MPI_Bcast, MPI_Allgather, MPI_Abort and
 * MPI_Finalize; the clock is clock_gettime(CLOCK_MONOTONIC).
 *
 * --init-only: MPI_Init and MPI_Finalize, nothing else (the start-up
 * figure of scripts/bench-net).
 *
 * Output: '#' lines are comments; each figure is one row that starts with
 * its test's name; `layout` says where the ranks ran; `# done` comes last,
 * before MPI_Finalize.
 *
 * Under Myriad collocated ranks are threads of one process: no mutable
 * global state here, everything a rank uses is on its stack or its heap.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strtok_r, getpid under -std=c11 */
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KiB 1024L
#define MiB (1024L * 1024L)
#define MAX_SIZES 40
#define MAX_REPS 101
#define MIN_ITERS 4 /* per timed run, unless --quick */

enum test_bit { TEST_LATENCY = 1, TEST_BANDWIDTH = 2, TEST_RATE = 4, TEST_OVERLAP = 8 };
enum tag { TAG_READY = 1, TAG_DATA, TAG_ACK, TAG_GO };
enum op { OP_PINGPONG, OP_STREAM, OP_RATE };

typedef struct sizes {
    long v[MAX_SIZES];
    int n;
} sizes;

typedef struct options {
    unsigned tests;
    sizes lat, bw, ov;  /* the sizes of each test */
    int window;         /* bandwidth: messages in flight */
    long area;          /* bandwidth: bytes of receive slots */
    long rate_size;     /* rate: bytes per message */
    int rate_window;    /* rate: messages in flight per pair */
    double run_s;       /* target duration of one timed run */
    int reps;           /* timed runs per figure */
    int ov_reps;        /* overlap: iterations per figure */
    int quick;          /* tiny counts: only checks that it runs */
    int init_only;      /* start-up: MPI_Init + MPI_Finalize */
} options;

/* Everything one rank uses. */
typedef struct bench {
    const options *opt;
    int rank, size, half; /* pair i: rank i and rank i + half */
    char *src, *dst;
    MPI_Request *reqs;
    MPI_Status *no_statuses; /* MPI_STATUSES_IGNORE, see allocate() */
} bench;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define NET_STR2(x) #x
#define NET_STR(x) NET_STR2(x)

static const char *library_name(void)
{
#if defined(MYRIAD_VERSION)
    return "Myriad " MYRIAD_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
    return "Open MPI " NET_STR(OMPI_MAJOR_VERSION) "." NET_STR(OMPI_MINOR_VERSION)
        "." NET_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "unknown MPI";
#endif
}

static void fail(const char *what)
{
    fprintf(stderr, "net_p2p_bench: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* Sorts v; returns the median. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* ---- the timed operations ---------------------------------------------- */

/* The partner tells the timing rank that it is in the operation, so that
 * the time does not include the partner's lateness (it may still be in
 * the previous step's MPI_Bcast). */
static void ready(bench *b, int timer, int partner)
{
    if (b->rank == partner)
        MPI_Send(NULL, 0, MPI_BYTE, timer, TAG_READY, MPI_COMM_WORLD);
    else if (b->rank == timer)
        MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double pingpong(bench *b, long size, long n)
{
    int peer = b->rank == 0 ? b->half : 0;
    if (b->rank != 0 && b->rank != b->half)
        return 0;
    ready(b, 0, b->half);
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        if (b->rank == 0) {
            MPI_Send(b->src, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(b->dst, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b->dst, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(b->src, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    return now_s() - t0;
}

/* n windows from this rank to its pair's other rank (or from it). Sending
 * one buffer several times at once is allowed since MPI-3.0. */
static void windows(bench *b, long size, long n, int window)
{
    int sender = b->rank < b->half;
    int peer = sender ? b->rank + b->half : b->rank - b->half;
    for (long i = 0; i < n; i++) {
        if (sender) {
            for (int j = 0; j < window; j++)
                MPI_Isend(b->src, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                          &b->reqs[j]);
            MPI_Waitall(window, b->reqs, b->no_statuses);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < window; j++)
                MPI_Irecv(b->dst + (long)j * size, (int)size, MPI_BYTE, peer, TAG_DATA,
                          MPI_COMM_WORLD, &b->reqs[j]);
            MPI_Waitall(window, b->reqs, b->no_statuses);
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
}

static double stream(bench *b, long size, long n, int window)
{
    if (b->rank != 0 && b->rank != b->half)
        return 0;
    ready(b, 0, b->half);
    double t0 = now_s();
    windows(b, size, n, window);
    return now_s() - t0;
}

/* All pairs at once, from a barrier to a barrier (rank 0's clock). */
static double rate(bench *b, long size, long n, int window)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    windows(b, size, n, window);
    MPI_Barrier(MPI_COMM_WORLD);
    return now_s() - t0;
}

typedef struct what {
    int op;
    long size;
    int window;
} what;

/* One run on every rank; every rank returns rank 0's time. */
static double run_once(bench *b, const what *w, long n)
{
    double t = 0;
    switch (w->op) {
    case OP_PINGPONG: t = pingpong(b, w->size, n); break;
    case OP_STREAM: t = stream(b, w->size, n, w->window); break;
    case OP_RATE: t = rate(b, w->size, n, w->window); break;
    default: fail("unknown operation");
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

typedef struct figure {
    double best, median; /* seconds per run of n iterations */
    long n;
} figure;

/* Calibrate the iteration count to about opt->run_s per run (the
 * calibration runs are the warm-up), then time opt->reps runs. The pace is
 * the fastest seen, so that one run slowed down by the rest of the machine
 * cannot end the calibration with a tiny count. Every rank computes the
 * same counts from the same broadcast times. */
static figure measure(bench *b, const what *w)
{
    const options *o = b->opt;
    const long max_n = 1L << 30;
    long n = 2;
    if (!o->quick) {
        double pace = 0; /* best seconds per iteration so far */
        n = 1;
        for (int runs = 1;; runs++) {
            double t = run_once(b, w, n) / (double)n;
            if (t > 0 && (pace == 0 || t < pace))
                pace = t;
            if (n >= max_n || (runs >= 3 && pace > 0 && (double)n * pace >= o->run_s / 2))
                break;
            if (pace > 0 && (double)n * pace >= o->run_s / 2)
                continue; /* long enough: only the three runs to go */
            double next = pace > 0 ? o->run_s / pace : (double)n * 16;
            if (next > (double)n * 1000)
                next = (double)n * 1000;
            n = next < (double)(2 * n) ? 2 * n : next > (double)max_n ? max_n : (long)next;
        }
        /* A window of the rate test is already 64 x P messages, and
         * oversubscribed references take seconds for one at P = 64. */
        double min_n = w->op == OP_RATE ? 1 : MIN_ITERS;
        double next = pace > 0 ? o->run_s / pace : (double)n;
        n = next < min_n ? (long)min_n : next > (double)max_n ? max_n : (long)next;
    } else {
        run_once(b, w, 1); /* warm-up */
    }
    double v[MAX_REPS];
    for (int r = 0; r < o->reps; r++)
        v[r] = run_once(b, w, n);
    double median = median_of(v, o->reps);
    figure f = {v[0], median, n};
    return f;
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

/* ---- latency, bandwidth, rate ------------------------------------------ */

static void test_latency(bench *b)
{
    if (b->rank == 0)
        printf("# latency: ping-pong MPI_Send/MPI_Recv rank 0 <-> rank %d, half round "
               "trip in us\n# %-8s %9s %9s %12s %12s\n", b->half, "test", "size", "iters",
               "best_us", "median_us");
    for (int i = 0; i < b->opt->lat.n; i++) {
        what w = {OP_PINGPONG, b->opt->lat.v[i], 0};
        figure f = measure(b, &w);
        if (b->rank != 0)
            continue;
        char sz[32];
        format_size(w.size, sz, sizeof sz);
        printf("%-10s %9s %9ld %12.3f %12.3f\n", "latency", sz, f.n,
               1e6 * f.best / (2.0 * (double)f.n), 1e6 * f.median / (2.0 * (double)f.n));
        fflush(stdout);
    }
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
    if (b->rank == 0) {
        char area[32];
        format_size(o->area, area, sizeof area);
        printf("# bandwidth: windows of up to %d MPI_Isend/MPI_Irecv + MPI_Waitall + 0 B "
               "ack, rank 0 -> rank %d,\n#   MB/s (10^6 B/s); receive slots: at most %s "
               "bytes\n# %-8s %9s %6s %9s %12s %12s\n", o->window, b->half, area, "test",
               "size", "window", "iters", "best_MB/s", "median_MB/s");
    }
    for (int i = 0; i < o->bw.n; i++) {
        what w = {OP_STREAM, o->bw.v[i], window_for(o, o->bw.v[i])};
        figure f = measure(b, &w);
        if (b->rank != 0)
            continue;
        double bytes = (double)w.size * w.window * (double)f.n;
        char sz[32];
        format_size(w.size, sz, sizeof sz);
        printf("%-10s %9s %6d %9ld %12.1f %12.1f\n", "bandwidth", sz, w.window, f.n,
               bytes / f.best / 1e6, bytes / f.median / 1e6);
        fflush(stdout);
    }
}

static void test_rate(bench *b)
{
    const options *o = b->opt;
    what w = {OP_RATE, o->rate_size, o->rate_window};
    if (b->rank == 0)
        printf("# rate: %d pairs at once (rank i -> rank i+%d), windows of %d MPI_Isend/"
               "MPI_Irecv of %ld B + 0 B ack,\n#   aggregate messages/s, barrier to barrier\n"
               "# %-8s %6s %6s %6s %9s %14s %14s\n", b->half, b->half, w.window, w.size,
               "test", "pairs", "size", "window", "iters", "best_msg/s", "median_msg/s");
    figure f = measure(b, &w);
    if (b->rank != 0)
        return;
    double msgs = (double)b->half * w.window * (double)f.n;
    printf("%-10s %6d %6ld %6d %9ld %14.0f %14.0f\n", "rate", b->half, w.size, w.window, f.n,
           msgs / f.best, msgs / f.median);
    fflush(stdout);
}

/* ---- overlap (seed 004's method, receiving side) ------------------------ */

/* A dependent floating-point chain: no MPI call, no memory traffic, and
 * nothing the compiler can shorten. */
static double busy(long iters)
{
    double x = 1.0;
    for (long k = 0; k < iters; k++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Iterations of busy() per second, the best of a few tries (the machine is
 * shared: the best is the loop's own speed). */
static double busy_rate(void)
{
    volatile double sink = 0;
    long iters = 100000;
    double best = 0;
    for (int k = 0; k < 5; k++) {
        double t0 = now_s();
        sink += busy(iters);
        double t = now_s() - t0;
        if (t > 0 && (double)iters / t > best)
            best = (double)iters / t;
    }
    (void)sink;
    return best;
}

/* One transfer of `size` bytes, timed on the receiver (rank half): post
 * the receive, tell the sender (which waits for this before MPI_Send, so
 * the receive is always posted first), compute for `iters`, wait.
 * t[0] = total, t[1] = compute. */
static void overlap_once(bench *b, long size, long iters, double t[2])
{
    if (b->rank == 0) {
        MPI_Recv(NULL, 0, MPI_BYTE, b->half, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b->src, (int)size, MPI_BYTE, b->half, TAG_DATA, MPI_COMM_WORLD);
    } else if (b->rank == b->half) {
        volatile double sink = 0;
        MPI_Request req;
        double t0 = now_s();
        MPI_Irecv(b->dst, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
        double c0 = now_s();
        if (iters > 0)
            sink += busy(iters);
        double c1 = now_s();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        t[0] = now_s() - t0;
        t[1] = c1 - c0;
        (void)sink;
    }
}

static void test_overlap(bench *b)
{
    const options *o = b->opt;
    int reps = o->ov_reps;
    int recv = b->rank == b->half;
    if (b->rank == 0)
        printf("# overlap (seed 004's method, receiving side): rank %d posts MPI_Irecv,\n"
               "#   computes (busy loop, no MPI) as long as the transfer alone takes, then "
               "MPI_Wait; rank 0 MPI_Send\n"
               "#   overlap = 1 - (t_total - t_compute) / t_transfer, clamped to [0,1], per "
               "iteration; %d iterations\n"
               "# %-8s %6s %12s %12s %12s %12s %9s %9s\n", b->half, reps, "test", "size",
               "xfer_best_us", "xfer_med_us", "compute_us", "total_med_us", "best_%",
               "median_%");
    double rate_per_s = recv ? busy_rate() : 0;
    for (int i = 0; i < o->ov.n; i++) {
        long size = o->ov.v[i];
        double t[2] = {0, 0};
        /* results, broadcast by the receiver: xfer best, xfer median,
         * compute median, total median, overlap best, overlap median */
        double res[6] = {0};
        double xfer[MAX_REPS], total[MAX_REPS], comp[MAX_REPS], ov[MAX_REPS];
        for (int k = 0; k < 2; k++) /* warm-up: registration, first touch */
            overlap_once(b, size, 0, t);
        for (int r = 0; r < reps; r++) {
            overlap_once(b, size, 0, t);
            xfer[r] = t[0];
        }
        if (recv) {
            res[1] = median_of(xfer, reps);
            res[0] = xfer[0];
        }
        long iters = (long)(res[1] * rate_per_s);
        for (int r = 0; r < reps; r++) {
            overlap_once(b, size, iters, t);
            total[r] = t[0];
            comp[r] = t[1];
            double x = recv && res[1] > 0 ? 1.0 - (t[0] - t[1]) / res[1] : 0;
            ov[r] = x < 0 ? 0 : x > 1 ? 1 : x;
        }
        if (recv) {
            res[2] = median_of(comp, reps);
            res[3] = median_of(total, reps);
            res[5] = median_of(ov, reps);
            res[4] = ov[reps - 1];
        }
        MPI_Bcast(res, 6, MPI_DOUBLE, b->half, MPI_COMM_WORLD);
        if (b->rank != 0)
            continue;
        char sz[32];
        format_size(size, sz, sizeof sz);
        printf("%-10s %6s %12.1f %12.1f %12.1f %12.1f %9.1f %9.1f\n", "overlap", sz,
               1e6 * res[0], 1e6 * res[1], 1e6 * res[2], 1e6 * res[3], 100 * res[4],
               100 * res[5]);
        fflush(stdout);
    }
}

/* ---- options ----------------------------------------------------------- */

/* "0", "64", "4K", "16M": bytes; -1 if malformed. */
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
    default: break;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end != '\0' || v > (1L << 30) / unit)
        return -1;
    return v * unit;
}

static int parse_sizes(const char *s, sizes *out)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    out->n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        long v = parse_size(t);
        if (v < 0 || v > 0x7fffffffL || out->n == MAX_SIZES)
            return -1;
        out->v[out->n++] = v;
    }
    return out->n ? 0 : -1;
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
        else if (strcmp(t, "rate") == 0)
            *tests |= TEST_RATE;
        else if (strcmp(t, "overlap") == 0)
            *tests |= TEST_OVERLAP;
        else if (strcmp(t, "all") == 0)
            *tests |= TEST_LATENCY | TEST_BANDWIDTH | TEST_RATE | TEST_OVERLAP;
        else
            return -1;
    }
    return *tests ? 0 : -1;
}

/* 0 (if lo is 0), then lo' ... hi by factors of `step`. */
static void geometric(sizes *s, long lo, long hi, long step)
{
    s->n = 0;
    if (lo == 0) {
        s->v[s->n++] = 0;
        lo = 1;
    }
    for (long v = lo; v <= hi && s->n < MAX_SIZES; v *= step)
        s->v[s->n++] = v;
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]   (run with 2P ranks: pair i is rank i and rank i+P;\n"
        "       latency, bandwidth and overlap use pair 0 only)\n"
        "  --test LIST        latency,bandwidth,rate,overlap or all (default all)\n"
        "  --lat-sizes LIST   latency sizes (default 0,1,4,16 ... 4M)\n"
        "  --bw-sizes LIST    bandwidth sizes (default 1,4,16 ... 16M)\n"
        "  --overlap-sizes L  overlap sizes (default 1M,2M,4M,8M)\n"
        "  --window N         bandwidth: messages in flight (default 64)\n"
        "  --area S           bandwidth: receive slots in bytes (default 64M);\n"
        "                     the window shrinks to fit large messages\n"
        "  --rate-size S      rate: bytes per message (default 8)\n"
        "  --rate-window N    rate: messages in flight per pair (default 64)\n"
        "  --time MS          target length of one timed run (default 10)\n"
        "  --reps N           timed runs per figure (default 5)\n"
        "  --overlap-reps N   overlap: iterations per figure (default 11)\n"
        "  --quick            few sizes, tiny counts: checks that it runs\n"
        "  --init-only        MPI_Init and MPI_Finalize only (start-up time)\n"
        "sizes take K and M suffixes (powers of 1024)\n", prog);
}

/* 0: run; 1: exit 0 (--help); 2: bad usage. Every rank parses argv. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    *o = (options){.tests = TEST_LATENCY | TEST_BANDWIDTH | TEST_RATE | TEST_OVERLAP,
                   .window = 64, .area = 64 * MiB, .rate_size = 8, .rate_window = 64,
                   .run_s = 0.010, .reps = 5, .ov_reps = 11};
    int lat_set = 0, bw_set = 0, ov_set = 0, reps_set = 0, ov_reps_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
            continue;
        }
        if (strcmp(a, "--init-only") == 0) {
            o->init_only = 1;
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
        } else if (strcmp(a, "--lat-sizes") == 0) {
            bad = parse_sizes(v, &o->lat) != 0;
            lat_set = 1;
        } else if (strcmp(a, "--bw-sizes") == 0) {
            bad = parse_sizes(v, &o->bw) != 0;
            bw_set = 1;
        } else if (strcmp(a, "--overlap-sizes") == 0) {
            bad = parse_sizes(v, &o->ov) != 0;
            ov_set = 1;
        } else if (strcmp(a, "--window") == 0) {
            o->window = atoi(v);
            bad = o->window < 1 || o->window > 100000;
        } else if (strcmp(a, "--area") == 0) {
            bad = (o->area = parse_size(v)) < 1;
        } else if (strcmp(a, "--rate-size") == 0) {
            bad = (o->rate_size = parse_size(v)) < 0 || o->rate_size > MiB;
        } else if (strcmp(a, "--rate-window") == 0) {
            o->rate_window = atoi(v);
            bad = o->rate_window < 1 || o->rate_window > 100000;
        } else if (strcmp(a, "--time") == 0) {
            o->run_s = atof(v) / 1000.0;
            bad = !(o->run_s > 0 && o->run_s < 100);
        } else if (strcmp(a, "--reps") == 0) {
            o->reps = atoi(v);
            bad = o->reps < 1 || o->reps > MAX_REPS;
            reps_set = 1;
        } else if (strcmp(a, "--overlap-reps") == 0) {
            o->ov_reps = atoi(v);
            bad = o->ov_reps < 1 || o->ov_reps > MAX_REPS;
            ov_reps_set = 1;
        } else {
            bad = 1;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "net_p2p_bench: bad option %s%s%s\n", a, v ? " " : "",
                        v ? v : "");
                usage(stderr, argv[0]);
            }
            return 2;
        }
        i++;
    }
    if (o->quick) {
        /* The sizes the targets need, and a few between. */
        if (!lat_set)
            parse_sizes("0,64,4K,256K,4M", &o->lat);
        if (!bw_set)
            parse_sizes("64,4K,256K,4M,16M", &o->bw);
        if (!ov_set)
            parse_sizes("1M,8M", &o->ov);
        if (!reps_set)
            o->reps = 3;
        if (!ov_reps_set)
            o->ov_reps = 5;
    }
    if (!lat_set && o->lat.n == 0)
        geometric(&o->lat, 0, 4 * MiB, 4);
    if (!bw_set && o->bw.n == 0)
        geometric(&o->bw, 1, 16 * MiB, 4);
    if (!ov_set && o->ov.n == 0)
        geometric(&o->ov, 1 * MiB, 8 * MiB, 2);
    return 0;
}

/* ---- buffers and layout ------------------------------------------------ */

/* Page-aligned and touched, so that no page fault lands in a timed run. */
static char *touched_buffer(long size)
{
    size_t bytes = ((size_t)size + 4095) / 4096 * 4096;
    char *p = aligned_alloc(4096, bytes ? bytes : 4096);
    if (!p)
        fail("out of memory for the buffers");
    memset(p, 0x5a, bytes);
    return p;
}

static long max_of(const sizes *s)
{
    long m = 0;
    for (int i = 0; i < s->n; i++)
        m = s->v[i] > m ? s->v[i] : m;
    return m;
}

/* Only what this rank's tests need: the rate test may run 128 processes. */
static void allocate(bench *b)
{
    const options *o = b->opt;
    int pair0 = b->rank == 0 || b->rank == b->half;
    long src = 0, dst = 0;
    int window = 1;
    if (pair0 && (o->tests & TEST_LATENCY)) {
        src = max_of(&o->lat);
        dst = src;
    }
    if (pair0 && (o->tests & TEST_BANDWIDTH)) {
        for (int i = 0; i < o->bw.n; i++) {
            long slots = (long)window_for(o, o->bw.v[i]) * o->bw.v[i];
            src = o->bw.v[i] > src ? o->bw.v[i] : src;
            dst = slots > dst ? slots : dst;
        }
        window = o->window;
    }
    if (pair0 && (o->tests & TEST_OVERLAP)) {
        long m = max_of(&o->ov);
        src = m > src ? m : src;
        dst = m > dst ? m : dst;
    }
    if (o->tests & TEST_RATE) {
        long slots = o->rate_size * o->rate_window;
        src = o->rate_size > src ? o->rate_size : src;
        dst = slots > dst ? slots : dst;
        window = o->rate_window > window ? o->rate_window : window;
    }
    b->src = touched_buffer(src);
    b->dst = touched_buffer(dst);
    b->reqs = malloc((size_t)window * sizeof *b->reqs);
    if (!b->reqs)
        fail("out of memory for the requests");
    /* Kept in a field: with MPICH's (MPI_Status *)1 as a literal argument,
     * GCC 12 warns that MPI_Waitall would write to an empty region. */
    b->no_statuses = MPI_STATUSES_IGNORE;
}

/* How many OS processes the ranks live in, and how many pairs span two:
 * under Myriad collocated ranks share a pid. Printed by rank 0. */
static void print_layout(bench *b)
{
    long me = (long)getpid();
    long *pids = malloc((size_t)b->size * sizeof *pids);
    if (!pids)
        fail("out of memory for the layout");
    MPI_Allgather(&me, 1, MPI_LONG, pids, 1, MPI_LONG, MPI_COMM_WORLD);
    if (b->rank == 0) {
        int procs = 0, across = 0;
        for (int i = 0; i < b->size; i++) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = pids[j] == pids[i];
            procs += !seen;
        }
        for (int i = 0; i < b->half; i++)
            across += pids[i] != pids[i + b->half];
        printf("layout ranks %d processes %d pairs %d pairs_across_processes %d\n", b->size,
               procs, b->half, across);
        if (across < b->half)
            printf("# WARNING: %d of %d pairs are inside one OS process: these are not "
                   "figures between processes\n", b->half - across, b->half);
    }
    free(pids);
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    options opt;
    int parsed = parse_options(argc, argv, &opt, rank);
    if (parsed != 0 || opt.init_only) {
        MPI_Finalize();
        return parsed == 2 ? 2 : 0;
    }
    if (nranks < 2 || nranks % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "net_p2p_bench: needs an even number of ranks, 2 or more (pair i: "
                            "rank i and rank i + N/2), has %d\n", nranks);
        MPI_Finalize();
        return 2;
    }

    bench b = {.opt = &opt, .rank = rank, .size = nranks, .half = nranks / 2};
    allocate(&b);
    if (rank == 0) {
        printf("net_p2p_bench: point-to-point between the two halves of %d ranks\n", nranks);
        printf("library %s\n", library_name());
        printf("# each figure: best and median of %d runs of ~%.0f ms%s\n", opt.reps,
               opt.run_s * 1e3, opt.quick ? " (--quick: tiny counts)" : "");
    }
    print_layout(&b);
    if (rank == 0)
        fflush(stdout);
    if (opt.tests & TEST_LATENCY)
        test_latency(&b);
    if (opt.tests & TEST_BANDWIDTH)
        test_bandwidth(&b);
    if (opt.tests & TEST_OVERLAP)
        test_overlap(&b);
    if (opt.tests & TEST_RATE)
        test_rate(&b);
    /* Every figure is out: scripts/bench-net ends a job that then hangs in
     * MPI_Finalize (MPICH over UCX's tcp does, now and then). */
    if (rank == 0) {
        printf("# done\n");
        fflush(stdout);
    }
    free(b.reqs);
    free(b.src);
    free(b.dst);
    MPI_Finalize();
    return 0;
}
