/*
 * threads.c — threads_bench: blocking MPI from many threads of a rank
 * (MPI_THREAD_MULTIPLE), seed 001's measurements (MPI + user-level
 * threads). Under Myriad the threads are ULTs the rank spawns (myr_ult.h);
 * under any other MPI they are pthreads.
 *
 *   lat      2 ranks, T threads each; thread t of rank 0 and thread t of
 *            rank 1 ping-pong 8 bytes with blocking MPI_Send / MPI_Recv on
 *            tag t. Figure: aggregate messages per second (2 per round
 *            trip, every thread's), and the mean round trip of one pair.
 *   overlap  rank 0: one thread computes (a calibrated dependent loop)
 *            while another waits in a blocking MPI_Recv for a message that
 *            rank 1 sends after a delay (nanosleep). Timed alone and both
 *            at once: overlap % = (comp + wait - both) / min(comp, wait).
 *
 * Each lat figure is the best of --reps runs of a count calibrated to
 * take about --time-ms, timed from a barrier taken once every thread has
 * started (starting them is not timed); ranks beyond 2 take no part. Output (rank 0):
 * '#' lines are comments;
 *   lat T ITERS MSGS_PER_S RTT_US
 *   overlap COMP_MS WAIT_MS BOTH_MS OVERLAP_PCT
 * Ranks share a process under Myriad: no mutable global state here.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep under -std=c11 */
#endif
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MYRIAD_VERSION
#include <myr_ult.h>
typedef myr_ult_t *thread_t;
static int thread_start(thread_t *t, void *(*fn)(void *), void *arg)
{
    return myr_ult_spawn(t, fn, arg);
}
static int thread_join(thread_t t)
{
    return myr_ult_join(t, NULL);
}
static void thread_yield(void)
{
    myr_ult_yield();
}
#define THREAD_KIND "ULTs (myr_ult.h)"
#else
#include <pthread.h>
#include <sched.h>
typedef pthread_t thread_t;
static int thread_start(thread_t *t, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 256 * 1024);  /* 512 threads: keep it small */
    int rc = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}
static int thread_join(thread_t t)
{
    return pthread_join(t, NULL);
}
static void thread_yield(void)
{
    sched_yield();
}
#define THREAD_KIND "pthreads"
#endif

enum { MAX_T = 4096, OVERLAP_TAG = MAX_T + 1 };

#define CHECK_MPI(expr)                                                     \
    do {                                                                    \
        if ((expr) != MPI_SUCCESS) {                                        \
            fprintf(stderr, "threads_bench: %s failed\n", #expr);           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

typedef struct options {
    int ts[32], nts;
    double time_s;   /* target duration of one lat run */
    int reps;
    double overlap_s;  /* computation and delay of the overlap test */
    int lat, overlap;
} options;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- lat -------------------------------------------------------------- */

/* Threads are started before the clock: they check in, then wait for
 * `go` (yielding), so that starting 512 of them is not timed. */
typedef struct start_gate {
    atomic_int arrived, go;
} start_gate;

typedef struct pair_arg {
    int t, peer;
    long iters;
    int first;  /* sends first */
    start_gate *gate;
} pair_arg;

static void *ping_pong(void *p)
{
    const pair_arg *a = p;
    atomic_fetch_add(&a->gate->arrived, 1);
    while (!atomic_load(&a->gate->go))
        thread_yield();
    uint64_t out = (uint64_t)a->t, in = 0;
    for (long i = 0; i < a->iters; i++) {
        if (a->first) {
            CHECK_MPI(MPI_Send(&out, 1, MPI_UINT64_T, a->peer, a->t, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(&in, 1, MPI_UINT64_T, a->peer, a->t, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(&in, 1, MPI_UINT64_T, a->peer, a->t, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(&in, 1, MPI_UINT64_T, a->peer, a->t, MPI_COMM_WORLD));
        }
    }
    if (a->iters && in != (uint64_t)a->t) {
        fprintf(stderr, "threads_bench: thread %d got %llu\n", a->t, (unsigned long long)in);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return NULL;
}

/* One run of T pairs of `iters` round trips; seconds between the barrier
 * and the last thread's end (rank 0's view). */
static double lat_run(MPI_Comm pair, int rank, int nt, long iters, pair_arg *args,
                      thread_t *th)
{
    start_gate gate;
    atomic_init(&gate.arrived, 0);
    atomic_init(&gate.go, 0);
    for (int t = 0; t < nt; t++)
        args[t] = (pair_arg){.t = t, .peer = 1 - rank, .iters = iters, .first = rank == 0,
                             .gate = &gate};
    for (int t = 0; t < nt; t++)
        if (thread_start(&th[t], ping_pong, &args[t]) != 0) {
            fprintf(stderr, "threads_bench: cannot start thread %d\n", t);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    while (atomic_load(&gate.arrived) < nt)
        thread_yield();
    CHECK_MPI(MPI_Barrier(pair));
    double t0 = now_s();
    atomic_store(&gate.go, 1);
    for (int t = 0; t < nt; t++)
        thread_join(th[t]);
    return now_s() - t0;
}

static void lat(const options *o, int rank, MPI_Comm pair)
{
    pair_arg *args = malloc(MAX_T * sizeof *args);
    thread_t *th = malloc(MAX_T * sizeof *th);
    if (!args || !th)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int k = 0; k < o->nts; k++) {
        int nt = o->ts[k];
        /* Calibration: a short run, scaled to the target time. */
        long iters = 1;
        double t;
        for (;;) {
            t = lat_run(pair, rank, nt, iters, args, th);
            CHECK_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, 0, pair));  /* both decide alike */
            if (t >= o->time_s / 8 || iters >= (1L << 30))
                break;
            iters *= 4;
        }
        double per = t / (double)iters;
        long n = (long)(o->time_s / per);
        if (n < 4)
            n = 4;
        CHECK_MPI(MPI_Bcast(&n, 1, MPI_LONG, 0, pair));
        double best = 1e30;
        for (int r = 0; r < o->reps; r++) {
            double s = lat_run(pair, rank, nt, n, args, th);
            if (s < best)
                best = s;
        }
        if (rank == 0)
            printf("lat %d %ld %.0f %.2f\n", nt, n, 2.0 * nt * (double)n / best,
                   1e6 * best / (double)n);
        fflush(stdout);
    }
    free(args);
    free(th);
}

/* ---- overlap ------------------------------------------------------------ */

/* `n` steps of a dependent chain: no memory, nothing to fold or overlap. */
static double chain(long n, double x)
{
    for (long i = 0; i < n; i++)
        x = x * 0.999999 + 1e-7;
    return x;
}

typedef struct comp_arg {
    long steps;
    double x, seconds;
} comp_arg;

static void *compute(void *p)
{
    comp_arg *a = p;
    double t0 = now_s();
    a->x = chain(a->steps, a->x);
    a->seconds = now_s() - t0;
    return NULL;
}

typedef struct wait_arg {
    double seconds;
} wait_arg;

static void *wait_message(void *p)
{
    wait_arg *a = p;
    double t0 = now_s();
    int v;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, OVERLAP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    a->seconds = now_s() - t0;
    return NULL;
}

static long calibrate(double seconds)
{
    long n = 1000;
    double x = 1.0;
    for (;;) {
        double t0 = now_s();
        x = chain(n, x);
        double t = now_s() - t0;
        if (t >= 0.01 || n > (1L << 40))
            return (long)((double)n * seconds / (t > 0 ? t : 1e-9)) + (x < 0);
        n *= 2;
    }
}

/* One measurement: mode 1 computes, 2 waits, 3 both; seconds on rank 0. */
static double overlap_run(MPI_Comm pair, int rank, int mode, long steps, double delay)
{
    CHECK_MPI(MPI_Barrier(pair));
    if (rank == 1) {
        if (mode & 2) {
            struct timespec d = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
            nanosleep(&d, NULL);
            int v = 1;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, OVERLAP_TAG, MPI_COMM_WORLD));
        }
        return 0;
    }
    comp_arg c = {.steps = steps, .x = 1.0};
    wait_arg w = {0};
    thread_t tc, tw;
    double t0 = now_s();
    if (mode & 1)
        thread_start(&tc, compute, &c);
    if (mode & 2)
        thread_start(&tw, wait_message, &w);
    if (mode & 1)
        thread_join(tc);
    if (mode & 2)
        thread_join(tw);
    if (c.x < 0)
        printf("# %g\n", c.x);  /* keeps the chain's result alive */
    return now_s() - t0;
}

static void overlap(const options *o, int rank, MPI_Comm pair)
{
    long steps = rank == 0 ? calibrate(o->overlap_s) : 0;
    double best[4] = {0, 1e30, 1e30, 1e30};
    for (int r = 0; r < o->reps; r++)
        for (int mode = 1; mode <= 3; mode++) {
            double s = overlap_run(pair, rank, mode, steps, o->overlap_s);
            if (s < best[mode])
                best[mode] = s;
        }
    if (rank == 0) {
        double comp = best[1], wait = best[2], both = best[3];
        double lo = comp < wait ? comp : wait;
        printf("overlap %.2f %.2f %.2f %.0f\n", 1e3 * comp, 1e3 * wait, 1e3 * both,
               100.0 * (comp + wait - both) / lo);
    }
}

/* ---- main --------------------------------------------------------------- */

static void usage(void)
{
    fputs("usage: threads_bench [--test lat,overlap] [--threads 1,2,8,64,512]\n"
          "       [--time-ms MS] [--reps R] [--overlap-ms MS] [--quick]\n",
          stderr);
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.nts = 0, .time_s = 0.2, .reps = 3, .overlap_s = 0.05, .lat = 1,
                   .overlap = 1};
    const char *threads = "1,2,8,64,512";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quick") == 0) {
            threads = "1,8";
            o->time_s = 0.002;
            o->reps = 1;
            o->overlap_s = 0.002;
        } else if (strcmp(a, "--test") == 0 && v) {
            o->lat = strstr(v, "lat") != NULL;
            o->overlap = strstr(v, "overlap") != NULL;
            i++;
        } else if (strcmp(a, "--threads") == 0 && v) {
            threads = v;
            i++;
        } else if (strcmp(a, "--time-ms") == 0 && v) {
            o->time_s = atof(v) / 1e3;
            i++;
        } else if (strcmp(a, "--reps") == 0 && v) {
            o->reps = atoi(v);
            i++;
        } else if (strcmp(a, "--overlap-ms") == 0 && v) {
            o->overlap_s = atof(v) / 1e3;
            i++;
        } else {
            return -1;
        }
    }
    for (const char *p = threads; *p && o->nts < 32;) {
        int t = atoi(p);
        if (t < 1 || t > MAX_T)
            return -1;
        o->ts[o->nts++] = t;
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    return o->nts > 0 && o->reps > 0 && o->time_s > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    options o;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (parse(argc, argv, &o) != 0) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    if (size < 2 || provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "threads_bench: needs 2 ranks and MPI_THREAD_MULTIPLE "
                            "(size %d, provided %d)\n", size, provided);
        MPI_Finalize();
        return 1;
    }
    /* Ranks 0 and 1 measure; the others wait in MPI_Finalize. */
    MPI_Comm pair;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
    if (rank < 2) {
        if (rank == 0) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int len;
            MPI_Get_library_version(lib, &len);
            lib[strcspn(lib, "\n")] = '\0';
            printf("# %s; threads: %s\n", lib, THREAD_KIND);
        }
        if (o.lat)
            lat(&o, rank, pair);
        if (o.overlap)
            overlap(&o, rank, pair);
        MPI_Comm_free(&pair);
    }
    MPI_Finalize();
    return 0;
}
