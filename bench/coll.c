/*
 * coll.c — coll_bench: latency of small collectives among all the ranks of
 * MPI_COMM_WORLD, for scripts/bench-coll to print Myriad, Open MPI and
 * MPICH side by side (one portable MPI-3.1 source, built by each).
 *
 *   barrier    MPI_Barrier
 *   allreduce  MPI_Allreduce of 1 double (MPI_SUM)
 *   rooted     TMPI's table: MPI_Reduce of 1 int (MPI_SUM), MPI_Bcast of
 *              1 int and MPI_Allreduce of 1 double, with the root
 *                same      rank 0 every time
 *                rotating  rank i mod N at iteration i
 *                combo     fixed for --combo iterations (default 8), then
 *                          the next rank
 *              (MPI_Allreduce has no root: it is measured once, "none").
 *   nb         MPI_Ibarrier, MPI_Iallreduce of 1 double, MPI_Ibcast of 1
 *              int from rank 0, each followed by MPI_Wait (and MPI_Bcast,
 *              root 0, unless rooted runs it): beside their blocking forms
 *   sizes      every collective (Bcast, Reduce, Allreduce, Gather,
 *              Scatter, Allgather, Alltoall, Reduce_scatter_block, Scan)
 *              for each --sizes block size in bytes (MPI_BYTE; the
 *              reductions: that many bytes of doubles, at least one)
 *   overlap    a --overlap-bytes MPI_Iallreduce with computation (see
 *              report_overlap)
 *   switch     no MPI: each rank gives its core to the next ready one once
 *              per operation (myr_ult_yield, Myriad only; "skip switch
 *              none N n/a" elsewhere). Every rank is switched out and in
 *              once, as in any blocking collective among ULTs, and
 *              nothing else is done: the floor under Myriad's Barrier and
 *              Allreduce at this N, whatever their algorithm. Timed from
 *              barrier to barrier, less one barrier (see timed_run).
 *
 * Method (FG-MPI's Table II): the ranks line up on a barrier, each times
 * a loop of n back-to-back operations and takes its mean per operation;
 * a figure is the MAXIMUM over the ranks of that mean (the rank that took
 * longest sets the pace of a real program), the best of --reps runs, each
 * run calibrated to about --time ms. Rank 0's own mean and the minimum
 * over the ranks are printed too. Every operation's result is checked.
 *
 * Time cap: during calibration, when operations take longer than
 * --budget-us (the maximum over the ranks of the mean of a run, in two
 * runs in a row), the figure is given up and
 * reported as too slow with the per-operation time measured so far (an
 * oversubscribed library that spins can take milliseconds per barrier);
 * scripts/bench-coll also puts a wall-clock limit on every run.
 *
 * MPI_Reduce: a library without it is reported "n/a" rather than failing
 * the run. Under Myriad (whose MPI_Reduce came after this benchmark) the
 * function is referenced weakly, so a library without it still links and
 * the rows say so; in any library, MPI_ERR_UNSUPPORTED_OPERATION from it
 * (errors return during the rooted tests) says the same.
 *
 * Output (rank 0): '#' lines are comments;
 *   figure OP ROOT N ITERS BEST_US MEDIAN_US RANK0_US MIN_US
 *   skip OP ROOT N REASON [PER_OP_US]     REASON: too_slow, n/a_MPI_Reduce_missing,
 *                                         too_big MiB (--mem-gib)
 *   (sizes: OP is s_bcast ..., ROOT the block size in bytes)
 *   overlap iallreduce BYTES N ITERS COMM_US COMP_US BOTH_US OVERLAP_PCT
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
#ifdef MYRIAD_VERSION
#include <myr_ult.h>
#endif

#define MAX_REPS 101

#ifdef MYRIAD_VERSION
/* The standard prototype, weak: NULL when the library lacks it. */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, int root, MPI_Comm comm) __attribute__((weak));
#define HAVE_REDUCE (MPI_Reduce != NULL)
#else
#define HAVE_REDUCE 1
#endif

enum test_bit {
    TEST_BARRIER = 1, TEST_ALLREDUCE = 2, TEST_ROOTED = 4, TEST_NB = 8, TEST_SIZES = 16,
    TEST_OVERLAP = 32, TEST_SWITCH = 64
};
enum coll {
    COLL_BARRIER, COLL_ALLREDUCE, COLL_REDUCE, COLL_BCAST,
    COLL_IBARRIER, COLL_IALLREDUCE, COLL_IBCAST,
    COLL_SWITCH,   /* --test switch: no collective, a yield */
    /* --test sizes: b->bytes per block (reductions: doubles, at least 1) */
    COLL_S_BCAST, COLL_S_REDUCE, COLL_S_ALLREDUCE, COLL_S_GATHER, COLL_S_SCATTER,
    COLL_S_ALLGATHER, COLL_S_ALLTOALL, COLL_S_REDUCE_SCATTER, COLL_S_SCAN,
    COLL_COUNT_
};
enum root_mode { ROOT_NONE, ROOT_SAME, ROOT_ROTATING, ROOT_COMBO, ROOT_BYTES };

static const char *const coll_name[] = {
    "barrier", "allreduce", "reduce", "bcast", "ibarrier", "iallreduce", "ibcast", "switch",
    "s_bcast", "s_reduce", "s_allreduce", "s_gather", "s_scatter", "s_allgather",
    "s_alltoall", "s_reduce_scatter_block", "s_scan"};
_Static_assert(sizeof coll_name / sizeof coll_name[0] == COLL_COUNT_, "a name per op");
static const char *const root_name[] = {"none", "same", "rotating", "combo", "bytes"};

typedef struct options {
    unsigned tests;
    double run_s;      /* target duration of one timed run */
    int reps;
    double budget_s;   /* per operation, beyond which a figure is given up */
    int combo;         /* iterations per root in the combo pattern */
    int quick;
    long sizes[16];    /* --sizes: bytes per block */
    int nsizes;
    unsigned size_ops; /* --size-ops: bit (c - COLL_S_BCAST) per collective run */
    double mem_gib;    /* --mem-gib: the job's buffers for one sized figure, at most */
    long overlap_bytes;
} options;

typedef struct bench {
    const options *opt;
    int rank, size;
    /* --test sizes and overlap: this rank's buffers (N blocks of `bytes`
     * each way, or N * count doubles) */
    long bytes;
    char *sbuf, *rbuf;
    double *din, *dout;
} bench;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define COLL_STR2(x) #x
#define COLL_STR(x) COLL_STR2(x)

static const char *library_name(void)
{
#if defined(MYRIAD_VERSION)
    return "Myriad " MYRIAD_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
    return "Open MPI " COLL_STR(OMPI_MAJOR_VERSION) "." COLL_STR(OMPI_MINOR_VERSION)
        "." COLL_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "unknown MPI";
#endif
}

static int root_at(const bench *b, int mode, long i)
{
    switch (mode) {
    case ROOT_ROTATING: return (int)(i % b->size);
    case ROOT_COMBO: return (int)((i / b->opt->combo) % b->size);
    default: return 0;
    }
}

/* --test sizes: the blocks this rank sends hold (rank * 31 + block) mod
 * 128 in their first byte (bcast: the iteration's number at the root);
 * the reductions' inputs are rank + 1 everywhere. One element of every
 * result is checked. */
/* The bytes of buffers one rank needs for a sized collective, as
 * fill_sized lays them out: the rooted and all-to-all ones N blocks each
 * way, the reductions `count` doubles each way (Reduce_scatter_block N
 * times that in). */
static double sized_need(int coll, long n, long bytes)
{
    double count = bytes / 8 > 0 ? (double)(bytes / 8) : 1;
    switch (coll) {
    case COLL_S_BCAST: return (double)bytes;
    case COLL_S_REDUCE:
    case COLL_S_ALLREDUCE:
    case COLL_S_SCAN: return 16 * count;
    case COLL_S_REDUCE_SCATTER: return 8 * count * (double)(n + 1);
    default: return 2 * (double)n * (double)bytes;
    }
}

/* Whether a sized figure runs: asked for (--size-ops) and its buffers,
 * over all the ranks, within --mem-gib. The same answer in every rank. */
static int sized_runs(const bench *b, int coll)
{
    return (b->opt->size_ops >> (coll - COLL_S_BCAST) & 1) &&
           sized_need(coll, b->size, b->bytes) * b->size <= b->opt->mem_gib * (1 << 30);
}

static void fill_sized(bench *b)
{
    long n = b->size, bytes = b->bytes;
    long count = bytes / 8 > 0 ? bytes / 8 : 1;
    /* As large as the collectives that run need: N blocks or one. */
    long blocks = 1, doubles = count;
    for (int c = COLL_S_BCAST; c < COLL_COUNT_; c++) {
        if (!sized_runs(b, c))
            continue;
        if (c == COLL_S_REDUCE_SCATTER)
            doubles = n * count;
        else if (c >= COLL_S_GATHER && c <= COLL_S_ALLTOALL)
            blocks = n;
    }
    free(b->sbuf);
    free(b->rbuf);
    free(b->din);
    free(b->dout);
    b->sbuf = calloc((size_t)(blocks * bytes), 1);
    b->rbuf = calloc((size_t)(blocks * bytes), 1);
    b->din = malloc((size_t)doubles * sizeof(double));
    b->dout = malloc((size_t)doubles * sizeof(double));
    if (!b->sbuf || !b->rbuf || !b->din || !b->dout) {
        fprintf(stderr, "coll_bench: out of memory for %ld-byte blocks\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    for (long j = 0; j < blocks; j++)
        b->sbuf[j * bytes] = (char)((b->rank * 31 + j) % 128);
    for (long k = 0; k < doubles; k++)
        b->din[k] = b->rank + 1.0;
}

static int run_sized(const bench *b, int coll, long i, long *wrong)
{
    const int n = b->size, me = b->rank, bytes = (int)b->bytes;
    const int count = bytes / 8 > 0 ? bytes / 8 : 1;
    const double sum = (double)n * (n + 1) / 2;
    char expect;
    int rc = MPI_SUCCESS;
    switch (coll) {
    case COLL_S_BCAST:
        if (me == 0)
            b->rbuf[0] = (char)(i % 128);
        rc = MPI_Bcast(b->rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && b->rbuf[0] != (char)(i % 128);
        break;
    case COLL_S_REDUCE:
        if (!HAVE_REDUCE)
            return MPI_ERR_UNSUPPORTED_OPERATION;
        rc = MPI_Reduce(b->din, b->dout, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && me == 0 && b->dout[count - 1] != sum;
        break;
    case COLL_S_ALLREDUCE:
        rc = MPI_Allreduce(b->din, b->dout, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && b->dout[count - 1] != sum;
        break;
    case COLL_S_SCAN:
        rc = MPI_Scan(b->din, b->dout, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && b->dout[0] != (double)(me + 1) * (me + 2) / 2;
        break;
    case COLL_S_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(b->din, b->dout, count, MPI_DOUBLE, MPI_SUM,
                                      MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && b->dout[0] != sum;
        break;
    case COLL_S_GATHER:
        rc = MPI_Gather(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        expect = (char)((n - 1) * 31 % 128);   /* the last rank's block 0 */
        *wrong += rc == MPI_SUCCESS && me == 0 && b->rbuf[(long)(n - 1) * bytes] != expect;
        break;
    case COLL_S_SCATTER:
        rc = MPI_Scatter(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        *wrong += rc == MPI_SUCCESS && b->rbuf[0] != (char)(me % 128);
        break;
    case COLL_S_ALLGATHER:
        rc = MPI_Allgather(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
        expect = (char)((n - 1) * 31 % 128);
        *wrong += rc == MPI_SUCCESS && b->rbuf[(long)(n - 1) * bytes] != expect;
        break;
    case COLL_S_ALLTOALL: {
        int q = (me + 1) % n;
        rc = MPI_Alltoall(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
        expect = (char)((q * 31 + me) % 128);
        *wrong += rc == MPI_SUCCESS && b->rbuf[(long)q * bytes] != expect;
        break;
    }
    }
    return rc;
}

/* n operations back to back; the seconds this rank took. *err: the first
 * error code (the loop stops there: with errors returned, every rank gets
 * the same one from these calls); *wrong: results that were not right. */
static double run_loop(const bench *b, int coll, int mode, long n, int *err, long *wrong)
{
    /* From N = 65536 on the sum no longer fits an int: the double is exact,
     * the int is what a wrapping MPI_SUM of ints gives. */
    const long long sum = (long long)b->size * (b->size + 1) / 2;
    const int sum_int = (int)(unsigned)sum;
    const double sum_double = (double)sum;
    double mine = b->rank + 1.0, total = 0;
    int rc = MPI_SUCCESS;
    double t0 = now_s();
    for (long i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int root = root_at(b, mode, i);
        switch (coll) {
        case COLL_BARRIER:
            rc = MPI_Barrier(MPI_COMM_WORLD);
            break;
        case COLL_ALLREDUCE:
            rc = MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            *wrong += rc == MPI_SUCCESS && total != sum_double;
            break;
        case COLL_BCAST: {
            int v = b->rank == root ? (int)(i & 0xffff) : -1;
            rc = MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
            *wrong += rc == MPI_SUCCESS && v != (int)(i & 0xffff);
            break;
        }
        case COLL_IBARRIER: {
            MPI_Request req;
            rc = MPI_Ibarrier(MPI_COMM_WORLD, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        }
        case COLL_IALLREDUCE: {
            MPI_Request req;
            rc = MPI_Iallreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            *wrong += rc == MPI_SUCCESS && total != sum_double;
            break;
        }
        case COLL_IBCAST: {
            MPI_Request req;
            int v = b->rank == root ? (int)(i & 0xffff) : -1;
            rc = MPI_Ibcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            *wrong += rc == MPI_SUCCESS && v != (int)(i & 0xffff);
            break;
        }
        case COLL_SWITCH:
#ifdef MYRIAD_VERSION
            myr_ult_yield();
#endif
            break;
        case COLL_REDUCE: {
            if (!HAVE_REDUCE) {
                rc = MPI_ERR_UNSUPPORTED_OPERATION;
                break;
            }
            int in = b->rank + 1, out = -1;
            rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            *wrong += rc == MPI_SUCCESS && b->rank == root && out != sum_int;
            break;
        }
        default:
            rc = run_sized(b, coll, i, wrong);
        }
    }
    double t = now_s() - t0;
    *err = rc;
    return t;
}

typedef struct result {
    enum { RESULT_OK, RESULT_TOO_SLOW, RESULT_NO_REDUCE } status;
    long n;
    double best, median, rank0, min;   /* seconds per operation */
    double slow;                       /* too slow: seconds per operation seen */
} result;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static double min_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return m;
}

/* One timed run of n operations, all ranks lined up first. Every rank
 * returns the maximum over the ranks of the per-operation mean. */
static double timed_run(const bench *b, int coll, int mode, long n, int *err,
                        double *rank0, double *min)
{
    long wrong = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t;
    if (coll == COLL_SWITCH) {
        /* A rank's own loop of yields would not count rounds: the first
         * ranks out of the barrier yield among themselves while the rest
         * are still being woken. The loop is timed from barrier to
         * barrier instead, less one barrier measured just before. */
        double b0 = now_s();
        MPI_Barrier(MPI_COMM_WORLD);
        double one = now_s() - b0;
        b0 = now_s();
        run_loop(b, coll, mode, n, err, &wrong);
        MPI_Barrier(MPI_COMM_WORLD);
        t = now_s() - b0 - one;
        t = t > 0 ? t : 0;
    } else {
        t = run_loop(b, coll, mode, n, err, &wrong);
    }
    double bad = max_over_ranks((double)wrong);
    if (bad > 0) {
        if (b->rank == 0)
            fprintf(stderr, "coll_bench: %s (root %s) gave wrong results\n",
                    coll_name[coll], root_name[mode]);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double mean = t / (double)n;
    double r0 = mean;
    MPI_Bcast(&r0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank0)
        *rank0 = r0;
    if (min)
        *min = min_over_ranks(mean);
    return max_over_ranks(mean);
}

/* Calibrate n so that one run lasts about opt->run_s (the calibration runs
 * are the warm-up, after 3 operations whose time is not judged: first
 * calls may set things up), giving up when an operation exceeds the
 * budget; then time opt->reps runs. All ranks take the same decisions:
 * they are made on maxima over the ranks. */
static result measure(const bench *b, int coll, int mode)
{
    const options *o = b->opt;
    result r = {0};
    long n = 2;
    int err = MPI_SUCCESS;
    if (!o->quick) {
        timed_run(b, coll, mode, 3, &err, NULL, NULL);
        int over = 0;
        for (n = 1; err == MPI_SUCCESS;) {
            double per = timed_run(b, coll, mode, n, &err, NULL, NULL);
            if (err != MPI_SUCCESS)
                break;
            /* Twice in a row: one run may just have been preempted. */
            if (per > o->budget_s) {
                if (++over < 2)
                    continue;
                r.status = RESULT_TOO_SLOW;
                r.slow = per;
                return r;
            }
            over = 0;
            if (per * (double)n >= o->run_s / 4 || n >= (1L << 30)) {
                double next = per > 0 ? o->run_s / per : (double)n;
                n = next < 4 ? 4 : next > (double)(1L << 30) ? 1L << 30 : (long)next;
                /* Rounds enough that the barrier taken off each run is
                 * small against them (a 10^5-rank barrier is ~20 ms). */
                if (coll == COLL_SWITCH && n < 256)
                    n = 256;
                break;
            }
            double next = per > 0 ? o->run_s / 4 / per : (double)n * 16;
            n = next > (double)n * 16 ? n * 16 : next < (double)(2 * n) ? 2 * n : (long)next;
        }
    }
    double v[MAX_REPS], rank0[MAX_REPS], min[MAX_REPS];
    int best = 0, runs = 0;
    for (; runs < o->reps && err == MPI_SUCCESS; runs++) {
        v[runs] = timed_run(b, coll, mode, n, &err, &rank0[runs], &min[runs]);
        if (v[runs] < v[best])
            best = runs;
    }
    if (err == MPI_ERR_UNSUPPORTED_OPERATION && (coll == COLL_REDUCE || coll == COLL_S_REDUCE)) {
        r.status = RESULT_NO_REDUCE;
        return r;
    }
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, msg, &len);
        if (b->rank == 0)
            fprintf(stderr, "coll_bench: %s failed: %s\n", coll_name[coll], msg);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    r.n = n;
    r.rank0 = rank0[best];
    r.min = min[best];
    qsort(v, (size_t)runs, sizeof v[0], cmp_double);
    r.best = v[0];
    r.median = v[runs / 2];
    return r;
}

static void report(const bench *b, int coll, int mode)
{
    const char *root_name_of = root_name[mode];
    result r = measure(b, coll, mode);
    if (b->rank != 0)
        return;
    char bytes[32];
    if (mode == ROOT_BYTES) {   /* --test sizes: the root column is the block size */
        snprintf(bytes, sizeof bytes, "%ld", b->bytes);
        root_name_of = bytes;
    }
    if (r.status == RESULT_TOO_SLOW)
        printf("skip %-9s %-8s %5d too_slow %.3f\n", coll_name[coll], root_name_of,
               b->size, 1e6 * r.slow);
    else if (r.status == RESULT_NO_REDUCE)
        printf("skip %-9s %-8s %5d n/a_MPI_Reduce_missing\n", coll_name[coll],
               root_name_of, b->size);
    else
        printf("figure %-9s %-8s %5d %9ld %10.3f %10.3f %10.3f %10.3f\n", coll_name[coll],
               root_name_of, b->size, r.n, 1e6 * r.best, 1e6 * r.median,
               1e6 * r.rank0, 1e6 * r.min);
    fflush(stdout);
}

/* ---- overlap of a nonblocking allreduce with computation ----------------------
 *
 * Wall-clock time per iteration of the whole job (all ranks, from a
 * barrier to the end of another after n iterations, the maximum over the
 * ranks) of
 *   comm  MPI_Iallreduce of --overlap-bytes (doubles, MPI_SUM); MPI_Wait
 *   comp  compute(c), a dependent floating-point loop, no MPI call
 *   both  MPI_Iallreduce; compute(c); MPI_Wait
 * with c calibrated so that comp takes about as long as comm. The
 * overlap is the part of the shorter of the two hidden in `both`:
 * (comm + comp - both) / min(comm, comp), 0 to 100 %. Measured per job,
 * not per rank: with more ranks than cores, a rank's own clock also
 * counts the others' turns on its core. */

static double compute(long iters)
{
    double x = 1.0;
    for (long k = 0; k < iters; k++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

enum { OV_COMM, OV_COMP, OV_BOTH };

static double wall_loop(const bench *b, int what, long n, long iters)
{
    long count = b->bytes / 8 > 0 ? b->bytes / 8 : 1;
    volatile double sink = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        if (what != OV_COMP)
            MPI_Iallreduce(b->din, b->dout, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                           &req);
        if (what != OV_COMM)
            sink += compute(iters);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now_s() - t0;
    (void)sink;
    if (what != OV_COMP && b->dout[count - 1] != (double)b->size * (b->size + 1) / 2) {
        fprintf(stderr, "coll_bench: overlap: wrong MPI_Iallreduce result\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return max_over_ranks(t / (double)n);
}

static void report_overlap(bench *b)
{
    const options *o = b->opt;
    b->bytes = o->overlap_bytes;
    fill_sized(b);
    long n = 2, iters = 1000;
    double comm = wall_loop(b, OV_COMM, n, 0);
    if (!o->quick) {
        comm = wall_loop(b, OV_COMM, n, 0);
        n = comm > 0 ? (long)(o->run_s / comm) : 1000;
        n = n < 4 ? 4 : n > 100000 ? 100000 : n;
        comm = wall_loop(b, OV_COMM, n, 0);
        /* c: comp as long as comm (the decision is made on maxima: the
         * same on every rank). */
        for (int k = 0; k < 3; k++) {
            double comp = wall_loop(b, OV_COMP, n, iters);
            double scale = comp > 0 ? comm / comp : 2;
            iters = (long)((double)iters * (scale > 100 ? 100 : scale));
            iters = iters < 1 ? 1 : iters;
        }
    }
    double best[3] = {0, 0, 0};
    for (int rep = 0; rep < o->reps; rep++)
        for (int w = OV_COMM; w <= OV_BOTH; w++) {
            double t = wall_loop(b, w, n, w == OV_COMM ? 0 : iters);
            if (rep == 0 || t < best[w])
                best[w] = t;
        }
    double shorter = best[OV_COMM] < best[OV_COMP] ? best[OV_COMM] : best[OV_COMP];
    double pct = shorter > 0 ? 100 * (best[OV_COMM] + best[OV_COMP] - best[OV_BOTH]) / shorter
                             : 0;
    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
    if (b->rank == 0) {
        printf("overlap iallreduce %ld %5d %9ld %10.3f %10.3f %10.3f %6.1f\n", b->bytes,
               b->size, n, 1e6 * best[OV_COMM], 1e6 * best[OV_COMP], 1e6 * best[OV_BOTH], pct);
        fflush(stdout);
    }
}

/* ---- options ---------------------------------------------------------------- */

static int parse_tests(const char *s, unsigned *tests)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    *tests = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (strcmp(t, "barrier") == 0)
            *tests |= TEST_BARRIER;
        else if (strcmp(t, "allreduce") == 0)
            *tests |= TEST_ALLREDUCE;
        else if (strcmp(t, "rooted") == 0)
            *tests |= TEST_ROOTED;
        else if (strcmp(t, "nb") == 0)
            *tests |= TEST_NB;
        else if (strcmp(t, "sizes") == 0)
            *tests |= TEST_SIZES;
        else if (strcmp(t, "overlap") == 0)
            *tests |= TEST_OVERLAP;
        else if (strcmp(t, "switch") == 0)
            *tests |= TEST_SWITCH;
        else if (strcmp(t, "all") == 0)
            *tests |= TEST_BARRIER | TEST_ALLREDUCE | TEST_ROOTED;
        else
            return -1;
    }
    return *tests ? 0 : -1;
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]   (any number of ranks)\n"
        "  --test LIST      barrier,allreduce,rooted,nb,sizes,overlap,switch or all\n"
        "                   (default all: barrier,allreduce,rooted)\n"
        "                   nb: MPI_Ibarrier, MPI_Iallreduce, MPI_Ibcast + MPI_Wait\n"
        "                   (and MPI_Bcast, root 0); sizes: every collective\n"
        "                   at each --sizes block size; overlap: see --overlap-bytes;\n"
        "                   switch: each rank yields its core once (Myriad only)\n"
        "  --sizes LIST     bytes per block for sizes (default 8,64,1024,16384)\n"
        "  --size-ops LIST  the collectives of sizes (default all: bcast,reduce,\n"
        "                   allreduce,gather,scatter,allgather,alltoall,\n"
        "                   reduce_scatter_block,scan)\n"
        "  --mem-gib G      skip a sized figure whose buffers, over all the\n"
        "                   ranks, exceed G GiB (default 8): \"skip ... too_big MiB\"\n"
        "  --overlap-bytes B  MPI_Iallreduce size of the overlap test (65536)\n"
        "  --time MS        target length of one timed run (default 100)\n"
        "  --reps N         timed runs per figure (default 3)\n"
        "  --budget-us US   give a figure up as too slow beyond this per\n"
        "                   operation (default 2000)\n"
        "  --combo K        rooted combo: iterations per root (default 8)\n"
        "  --quick          tiny counts: checks that it runs; the figures\n"
        "                   mean nothing\n", prog);
}

/* 0: run; 1: exit 0 (--help); 2: bad usage. Every rank parses argv. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    *o = (options){.tests = TEST_BARRIER | TEST_ALLREDUCE | TEST_ROOTED, .run_s = 0.1,
                   .reps = 3, .budget_s = 2e-3, .combo = 8,
                   .sizes = {8, 64, 1024, 16384}, .nsizes = 4, .overlap_bytes = 65536,
                   .size_ops = (1u << (COLL_COUNT_ - COLL_S_BCAST)) - 1, .mem_gib = 8};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
            o->reps = 1;
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
        } else if (strcmp(a, "--time") == 0) {
            o->run_s = atof(v) / 1e3;
            bad = !(o->run_s > 0 && o->run_s < 100);
        } else if (strcmp(a, "--reps") == 0) {
            o->reps = atoi(v);
            bad = o->reps < 1 || o->reps > MAX_REPS;
        } else if (strcmp(a, "--budget-us") == 0) {
            o->budget_s = atof(v) / 1e6;
            bad = !(o->budget_s > 0);
        } else if (strcmp(a, "--sizes") == 0) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            o->nsizes = 0;
            for (char *t = strtok(buf, ","); t && !bad; t = strtok(NULL, ",")) {
                long x = atol(t);
                bad = x < 1 || x > (1L << 26) || o->nsizes == 16;
                if (!bad)
                    o->sizes[o->nsizes++] = x;
            }
            bad = bad || o->nsizes == 0;
        } else if (strcmp(a, "--size-ops") == 0) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            o->size_ops = 0;
            for (char *t = strtok(buf, ","); t && !bad; t = strtok(NULL, ",")) {
                int c = COLL_S_BCAST;
                while (c < COLL_COUNT_ && strcmp(t, coll_name[c] + 2) != 0)
                    c++;
                bad = c == COLL_COUNT_;
                if (!bad)
                    o->size_ops |= 1u << (c - COLL_S_BCAST);
            }
            bad = bad || o->size_ops == 0;
        } else if (strcmp(a, "--mem-gib") == 0) {
            o->mem_gib = atof(v);
            bad = !(o->mem_gib > 0);
        } else if (strcmp(a, "--overlap-bytes") == 0) {
            o->overlap_bytes = atol(v);
            bad = o->overlap_bytes < 8 || o->overlap_bytes > (1L << 26);
        } else if (strcmp(a, "--combo") == 0) {
            o->combo = atoi(v);
            bad = o->combo < 1;
        } else {
            bad = 1;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "coll_bench: bad option %s%s%s\n", a, v ? " " : "",
                        v ? v : "");
                usage(stderr, argv[0]);
            }
            return 2;
        }
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b;
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    options opt;
    int parsed = parse_options(argc, argv, &opt, b.rank);
    if (parsed != 0) {
        MPI_Finalize();
        return parsed == 1 ? 0 : 2;
    }
    b.opt = &opt;
    b.bytes = 0;
    b.sbuf = b.rbuf = NULL;
    b.din = b.dout = NULL;
    if (b.rank == 0) {
        printf("coll_bench: collectives among %d ranks\n", b.size);
        printf("library %s\n", library_name());
        const char *workers = getenv("MYR_WORKERS");
        if (workers)
            printf("env MYR_WORKERS=%s\n", workers);
        printf("# each figure: per-operation mean of a loop, maximum over the ranks, "
               "best and median of %d runs of ~%.0f ms%s\n", opt.reps, opt.run_s * 1e3,
               opt.quick ? " (--quick: tiny counts, the figures mean nothing)" : "");
        printf("# too slow: one operation over %.0f us during calibration\n",
               opt.budget_s * 1e6);
        printf("# %-6s %-9s %-8s %5s %9s %10s %10s %10s %10s\n", "row", "op", "root", "N",
               "iters", "best_us", "median_us", "rank0_us", "min_us");
        fflush(stdout);
    }
    if (opt.tests & TEST_BARRIER)
        report(&b, COLL_BARRIER, ROOT_NONE);
    if (opt.tests & TEST_ALLREDUCE)
        report(&b, COLL_ALLREDUCE, ROOT_NONE);
    if (opt.tests & TEST_ROOTED) {
        /* A library may lack MPI_Reduce: its error must come back. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (int mode = ROOT_SAME; mode <= ROOT_COMBO; mode++)
            report(&b, COLL_REDUCE, mode);
        for (int mode = ROOT_SAME; mode <= ROOT_COMBO; mode++)
            report(&b, COLL_BCAST, mode);
        if (!(opt.tests & TEST_ALLREDUCE))
            report(&b, COLL_ALLREDUCE, ROOT_NONE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    if (opt.tests & TEST_NB) {
        /* Each beside its blocking form (barrier and allreduce come from
         * their own tests). */
        if (!(opt.tests & TEST_ROOTED))
            report(&b, COLL_BCAST, ROOT_SAME);
        report(&b, COLL_IBARRIER, ROOT_NONE);
        report(&b, COLL_IALLREDUCE, ROOT_NONE);
        report(&b, COLL_IBCAST, ROOT_SAME);
    }
    if (opt.tests & TEST_SIZES) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (int k = 0; k < opt.nsizes; k++) {
            b.bytes = opt.sizes[k];
            fill_sized(&b);
            for (int c = COLL_S_BCAST; c < COLL_COUNT_; c++) {
                if (sized_runs(&b, c))
                    report(&b, c, ROOT_BYTES);
                else if ((opt.size_ops >> (c - COLL_S_BCAST) & 1) && b.rank == 0)
                    printf("skip %-9s %-8ld %5d too_big %.0f\n", coll_name[c], b.bytes, b.size,
                           sized_need(c, b.size, b.bytes) * b.size / (1 << 20));
            }
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    if (opt.tests & TEST_OVERLAP)
        report_overlap(&b);
    if (opt.tests & TEST_SWITCH) {
#ifdef MYRIAD_VERSION
        report(&b, COLL_SWITCH, ROOT_NONE);
#else
        if (b.rank == 0)
            printf("skip %-9s %-8s %5d n/a\n", coll_name[COLL_SWITCH], "none", b.size);
#endif
    }
    free(b.sbuf);
    free(b.rbuf);
    free(b.din);
    free(b.dout);
    MPI_Finalize();
    return 0;
}
