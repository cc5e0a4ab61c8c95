/*
 * compute.c — compute_bench: what a small collective costs when the ranks
 * compute between calls, as applications do (a dot product of a CG
 * solver every few hundred microseconds), instead of calling it back to
 * back as coll_bench does.
 *
 *   allreduce  MPI_Allreduce of 1 double (MPI_SUM)
 *   barrier    MPI_Barrier
 *   bcast      MPI_Bcast of 1 double from rank 0
 *
 * Each iteration computes for about --compute-us (a chain of dependent
 * floating-point operations, calibrated once on rank 0 and the same count
 * on every rank, touching no memory), then makes one call, timed alone
 * with clock_gettime. A figure is the mean time of one call, the maximum
 * over the ranks, the best (and the median) of --reps runs of --iters
 * iterations each. The reference row "none" times no call at all: the
 * cost of the two clock reads, which every figure includes (tens of ns in
 * a virtual machine, as much as a one-rank call itself).
 *
 * The communicator is MPI_COMM_WORLD, or with --comm self MPI_COMM_SELF
 * (every rank alone in its own collectives: a one-rank group inside a
 * bigger job). Typically run with one rank: scripts/bench-compute runs it
 * under Myriad (default workers, one worker) and Open MPI (-np 1) side by
 * side.
 *
 * One portable MPI-3.1 source. Output (rank 0): '#' lines are comments;
 *   figure OP COMM N ITERS BEST_US MEDIAN_US
 * Ranks share a process under Myriad: no mutable global state here.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 101

enum coll { COLL_NONE, COLL_ALLREDUCE, COLL_BARRIER, COLL_BCAST, NCOLL };
static const char *const coll_name[] = {"none", "allreduce", "barrier", "bcast"};

typedef struct options {
    unsigned tests;    /* bit per enum coll (none: always) */
    double compute_s;  /* computation between two calls */
    long iters;        /* iterations per run */
    int reps;
    int self;          /* --comm self */
    int quick;
} options;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* `n` steps of a dependent chain: the compiler cannot fold it, the CPU
 * cannot overlap its steps, and it touches no memory. */
static double compute(long n, double x)
{
    for (long i = 0; i < n; i++)
        x = x * 0.999999 + 1e-7;
    return x;
}

/* Steps of compute() that take about `seconds` on this CPU. */
static long calibrate(double seconds)
{
    double sink = 1.0;
    long n = 1000;
    double t = 0;
    for (;;) {
        double t0 = now_s();
        sink = compute(n, sink);
        t = now_s() - t0;
        if (t >= 0.01 || n > (1L << 40))
            break;
        n *= 4;
    }
    /* The fastest of three: a preempted one would shorten the computation. */
    for (int k = 0; k < 2; k++) {
        double t0 = now_s();
        sink = compute(n, sink);
        double again = now_s() - t0;
        t = again < t ? again : t;
    }
    long steps = (long)((double)n * seconds / t);
    /* sink is always finite: keeps the loop from being dropped */
    return (sink == sink && steps > 0) ? steps : 1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static double max_over(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* One run: iters x (compute, call); returns the mean per call, the
 * maximum over the ranks. *wrong counts results that were not right. */
static double timed_run(const options *o, MPI_Comm comm, int coll, long steps, long *wrong)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const double sum = (double)size * (size + 1) / 2;
    double x = 1.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double in_calls = 0;
    for (long i = 0; i < o->iters; i++) {
        x = compute(steps, x);
        double a = now_s();
        switch (coll) {
        case COLL_NONE:
            break;
        case COLL_ALLREDUCE: {
            double mine = rank + 1.0, total = 0;
            MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
            *wrong += total != sum;
            break;
        }
        case COLL_BARRIER:
            MPI_Barrier(comm);
            break;
        case COLL_BCAST: {
            double v = rank == 0 ? (double)i : -1.0;
            MPI_Bcast(&v, 1, MPI_DOUBLE, 0, comm);
            *wrong += v != (double)i;
            break;
        }
        }
        in_calls += now_s() - a;
    }
    *wrong += x != x;  /* uses x: the computation stays */
    return max_over(in_calls / (double)o->iters);
}

static void report(const options *o, MPI_Comm comm, int coll, long steps, int wrank, int wsize)
{
    double call[MAX_REPS];
    long wrong = 0;
    timed_run(o, comm, coll, steps, &wrong);  /* warm-up */
    for (int r = 0; r < o->reps; r++)
        call[r] = timed_run(o, comm, coll, steps, &wrong);
    if (max_over((double)wrong) > 0) {
        if (wrank == 0)
            fprintf(stderr, "compute_bench: %s gave wrong results\n", coll_name[coll]);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    qsort(call, (size_t)o->reps, sizeof call[0], cmp_double);
    if (wrank == 0) {
        printf("figure %-9s %-5s %4d %7ld %10.3f %10.3f\n", coll_name[coll],
               o->self ? "self" : "world", wsize, o->iters, 1e6 * call[0],
               1e6 * call[o->reps / 2]);
        fflush(stdout);
    }
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --test LIST       allreduce,barrier,bcast or all (default all)\n"
            "  --compute-us US   computation between two calls (default 200)\n"
            "  --iters N         iterations per run (default 2000)\n"
            "  --reps R          runs per figure (default 5, at most %d)\n"
            "  --comm world|self the communicator (default world)\n"
            "  --quick           tiny counts: only checks that it runs\n",
            prog, MAX_REPS);
}

/* 0: run; 1: exit 0 (--help); 2: bad usage. Every rank parses argv alike. */
static int parse(int argc, char **argv, options *o, int rank)
{
    *o = (options){.tests = 14, .compute_s = 200e-6, .iters = 2000, .reps = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (rank == 0)
                usage(stdout, argv[0]);
            return 1;
        }
        if (!v)
            goto bad;
        i++;
        if (strcmp(a, "--test") == 0) {
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            o->tests = 0;
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
                 t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < NCOLL && strcmp(t, coll_name[k]) != 0)
                    k++;
                if (strcmp(t, "all") == 0)
                    o->tests = 14;
                else if (k > COLL_NONE && k < NCOLL)
                    o->tests |= 1u << k;
                else
                    goto bad;
            }
        } else if (strcmp(a, "--compute-us") == 0) {
            o->compute_s = atof(v) * 1e-6;
        } else if (strcmp(a, "--iters") == 0) {
            o->iters = atol(v);
        } else if (strcmp(a, "--reps") == 0) {
            o->reps = atoi(v);
        } else if (strcmp(a, "--comm") == 0) {
            if (strcmp(v, "self") != 0 && strcmp(v, "world") != 0)
                goto bad;
            o->self = strcmp(v, "self") == 0;
        } else {
            goto bad;
        }
    }
    if (o->quick) {
        o->iters = 20;
        o->reps = 1;
        o->compute_s = 20e-6;
    }
    if (o->iters < 1 || o->reps < 1 || o->reps > MAX_REPS || o->compute_s < 0)
        goto bad;
    return 0;
bad:
    if (rank == 0)
        usage(stderr, argv[0]);
    return 2;
}

#define STR2(x) #x
#define STR(x) STR2(x)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options o;
    int rc = parse(argc, argv, &o, rank);
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    long steps = rank == 0 ? calibrate(o.compute_s) : 0;
    MPI_Bcast(&steps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
#if defined(MYRIAD_VERSION)
        const char *lib = "Myriad " MYRIAD_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
        const char *lib = "Open MPI " STR(OMPI_MAJOR_VERSION) "." STR(OMPI_MINOR_VERSION) "."
            STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
        const char *lib = "MPICH " MPICH_VERSION;
#else
        const char *lib = "unknown MPI";
#endif
        printf("library %s\n# %d ranks, %.0f us of computation (%ld steps) before each call,"
               " %ld iterations per run, best and median of %d runs; us per call (timed"
               " alone, two clock reads included: row none), maximum over the ranks\n",
               lib, size, o.compute_s * 1e6, steps, o.iters, o.reps);
        printf("# figure OP COMM N ITERS BEST_US MEDIAN_US\n");
        fflush(stdout);
    }
    MPI_Comm comm = o.self ? MPI_COMM_SELF : MPI_COMM_WORLD;
    for (int c = 0; c < NCOLL; c++)
        if (c == COLL_NONE || (o.tests & (1u << c)))
            report(&o, comm, c, steps, rank, size);
    MPI_Finalize();
    return 0;
}
