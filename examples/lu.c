/*
 * lu.c — an HPL-style LU factorisation with partial pivoting of a random
 * N x N matrix, distributed 1-D block-cyclic by columns (block column j
 * of width NB on rank j mod P), trailing updates with single-threaded
 * OpenBLAS. Three variants (-v):
 *
 *   plain      factor panel k, broadcast it, update every trailing block
 *              column, in that order.
 *   lookahead  depth 1, by hand: the owner of block column k+1 updates it
 *              first and factors panel k+1, whose broadcast (MPI_Ibcast)
 *              then overlaps the rest of update k.
 *   dataflow   tasks (myr_task.h, Myriad only): panel factorisation and
 *              the panel's sends and receives are high-priority tasks,
 *              each block column's update is a task; dependences are the
 *              block columns and a ring of panel buffers. The runtime finds
 *              the look-ahead (the critical path) by itself.
 *
 * The factors are gathered on rank 0, which solves Ax = b and checks
 * HPL's scaled residual ||Ax - b||inf / (eps (||A||inf ||x||inf +
 * ||b||inf) N) < 16. Prints Gflop/s as (2/3 N^3 + 2 N^2) / t, t the
 * factorisation's time.
 *
 * Usage: lu [-n N] [-b NB] [-v plain|lookahead|dataflow] [-s seed]
 * Builds with any MPI (the dataflow variant only with Myriad's mpi.h).
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MYRIAD_VERSION
#include <myr_task.h>
#define LU_HAVE_TASKS 1
#endif

enum variant { PLAIN, LOOKAHEAD, DATAFLOW };
enum { RING = 3 };   /* dataflow: panel buffers in flight */

typedef struct lu {
    int n, nb, nbc;              /* order, block size, block columns */
    int rank, size;
    double *a;                   /* my block columns, each n x nb, lda n */
    int *ipiv;                   /* global pivot rows, all n of them */
    double *pbuf[RING];          /* panels: rows k*nb..n-1 x jb, then jb pivots */
    MPI_Comm comm;
} lu;

static int width(const lu *s, int j)
{
    int w = s->n - j * s->nb;
    return w < s->nb ? w : s->nb;
}

static int owner(const lu *s, int j)
{
    return j % s->size;
}

static double *col(const lu *s, int j)
{
    return s->a + (size_t)(j / s->size) * s->nb * s->n;
}

static size_t panel_count(const lu *s, int k)
{
    size_t m = (size_t)(s->n - k * s->nb);
    return m * (size_t)width(s, k) + (size_t)width(s, k);
}

/* The matrix and right-hand side, the same on every rank. */
static double entry(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0 - 0.5;
}

static double a_ij(uint64_t seed, int n, int i, int j)
{
    return entry(seed, (uint64_t)j * (uint64_t)n + (uint64_t)i);
}

static double b_i(uint64_t seed, int i)
{
    return entry(seed + 1, (uint64_t)i);
}

/* ---- the kernels ---------------------------------------------------------- */

/* LU with partial pivoting of the m x jb panel at p (lda), in place;
 * piv[c]: the panel row swapped with row c. Column by column: for narrow
 * panels only. */
static void panel_unblocked(double *p, int lda, int m, int jb, int *piv)
{
    for (int c = 0; c < jb; c++) {
        int r = c + (int)cblas_idamax(m - c, p + c + (size_t)c * lda, 1);
        piv[c] = r;
        if (r != c)
            cblas_dswap(jb, p + c, lda, p + r, lda);
        double d = p[c + (size_t)c * lda];
        if (d != 0.0 && m - c - 1 > 0)
            cblas_dscal(m - c - 1, 1.0 / d, p + c + 1 + (size_t)c * lda, 1);
        if (c + 1 < jb && m - c - 1 > 0)
            cblas_dger(CblasColMajor, m - c - 1, jb - c - 1, -1.0,
                       p + c + 1 + (size_t)c * lda, 1, p + c + (size_t)(c + 1) * lda, lda,
                       p + c + 1 + (size_t)(c + 1) * lda, lda);
    }
}

/* The same, recursively on halves of the columns, so that most of the
 * panel's work is dtrsm and dgemm: the panel is the critical path. */
static void panel_factor(double *p, int lda, int m, int n, int *piv)
{
    if (n <= 16) {
        panel_unblocked(p, lda, m, n, piv);
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    double *r = p + (size_t)n1 * lda;
    panel_factor(p, lda, m, n1, piv);
    for (int i = 0; i < n1; i++)
        if (piv[i] != i)
            cblas_dswap(n2, r + i, lda, r + piv[i], lda);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n1, n2, 1.0, p,
                lda, r, lda);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m - n1, n2, n1, -1.0, p + n1, lda, r,
                lda, 1.0, r + n1, lda);
    panel_factor(r + n1, lda, m - n1, n2, piv + n1);
    for (int i = n1; i < n; i++) {
        piv[i] += n1;
        if (piv[i] != i)
            cblas_dswap(n1, p + i, lda, p + piv[i], lda);
    }
}

/* Factor panel k in my block column and copy it, with its pivots (as
 * global rows), into buf. */
static void factor_panel(lu *s, int k, double *buf)
{
    int r0 = k * s->nb, m = s->n - r0, jb = width(s, k);
    double *p = col(s, k) + r0;
    int piv[jb];
    panel_factor(p, s->n, m, jb, piv);
    for (int c = 0; c < jb; c++) {
        memcpy(buf + (size_t)c * m, p + (size_t)c * s->n, (size_t)m * sizeof *buf);
        buf[(size_t)m * jb + c] = (double)(r0 + piv[c]);
    }
}

static void take_pivots(lu *s, int k, const double *buf)
{
    int r0 = k * s->nb, m = s->n - r0, jb = width(s, k);
    for (int c = 0; c < jb; c++)
        s->ipiv[r0 + c] = (int)buf[(size_t)m * jb + c];
}

/* Apply panel k (in buf) to block column j > k: its row swaps, then
 * U12 = L11^-1 A12 and A22 -= L21 U12. */
static void update(lu *s, int k, const double *buf, int j)
{
    int r0 = k * s->nb, m = s->n - r0, jb = width(s, k), w = width(s, j);
    double *c = col(s, j);
    for (int i = 0; i < jb; i++) {
        int p = (int)buf[(size_t)m * jb + i];
        if (p != r0 + i)
            cblas_dswap(w, c + r0 + i, s->n, c + p, s->n);
    }
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, jb, w, 1.0,
                buf, m, c + r0, s->n);
    if (m > jb)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m - jb, w, jb, -1.0, buf + jb, m,
                    c + r0, s->n, 1.0, c + r0 + jb, s->n);
}

/* The later panels' row swaps on each of my block columns (the L part of
 * a factored column), as LAPACK's getrf leaves them. */
static void swap_left(lu *s)
{
    for (int j = s->rank; j < s->nbc; j += s->size) {
        double *c = col(s, j);
        int w = width(s, j);
        for (int i = (j + 1) * s->nb; i < s->n; i++)
            if (s->ipiv[i] != i)
                cblas_dswap(w, c + i, s->n, c + s->ipiv[i], s->n);
    }
}

/* ---- plain and look-ahead ------------------------------------------------- */

static void run_plain(lu *s)
{
    for (int k = 0; k < s->nbc; k++) {
        double *buf = s->pbuf[0];
        if (owner(s, k) == s->rank)
            factor_panel(s, k, buf);
        MPI_Bcast(buf, (int)panel_count(s, k), MPI_DOUBLE, owner(s, k), s->comm);
        take_pivots(s, k, buf);
        for (int j = k + 1; j < s->nbc; j++)
            if (owner(s, j) == s->rank)
                update(s, k, buf, j);
    }
}

static void run_lookahead(lu *s)
{
    if (owner(s, 0) == s->rank)
        factor_panel(s, 0, s->pbuf[0]);
    MPI_Bcast(s->pbuf[0], (int)panel_count(s, 0), MPI_DOUBLE, owner(s, 0), s->comm);
    for (int k = 0; k < s->nbc; k++) {
        double *buf = s->pbuf[k % 2], *next = s->pbuf[(k + 1) % 2];
        take_pivots(s, k, buf);
        MPI_Request req = MPI_REQUEST_NULL;
        bool ahead = false;
        if (k + 1 < s->nbc) {
            if (owner(s, k + 1) == s->rank) {
                update(s, k, buf, k + 1);   /* the critical path first */
                factor_panel(s, k + 1, next);
                ahead = true;
            }
            MPI_Ibcast(next, (int)panel_count(s, k + 1), MPI_DOUBLE, owner(s, k + 1), s->comm,
                       &req);
        }
        for (int j = k + 1; j < s->nbc; j++)
            if (owner(s, j) == s->rank && !(ahead && j == k + 1))
                update(s, k, buf, j);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

/* ---- dataflow ------------------------------------------------------------- */

#ifdef LU_HAVE_TASKS
typedef struct job {
    lu *s;
    int k, j;
} job;

static void panel_task(void *arg)
{
    job *t = arg;
    factor_panel(t->s, t->k, t->s->pbuf[t->k % RING]);
    take_pivots(t->s, t->k, t->s->pbuf[t->k % RING]);
}

/* The panel to every other rank: this task waits, the others compute. */
static void send_task(void *arg)
{
    job *t = arg;
    lu *s = t->s;
    MPI_Request req[s->size];
    int n = 0;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            MPI_Isend(s->pbuf[t->k % RING], (int)panel_count(s, t->k), MPI_DOUBLE, r, t->k,
                      s->comm, &req[n++]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}

static void recv_task(void *arg)
{
    job *t = arg;
    lu *s = t->s;
    MPI_Recv(s->pbuf[t->k % RING], (int)panel_count(s, t->k), MPI_DOUBLE, owner(s, t->k), t->k,
             s->comm, MPI_STATUS_IGNORE);
    take_pivots(s, t->k, s->pbuf[t->k % RING]);
}

static void update_task(void *arg)
{
    job *t = arg;
    update(t->s, t->k, t->s->pbuf[t->k % RING], t->j);
}

static int run_dataflow(lu *s)
{
    size_t max = (size_t)s->nbc * (size_t)(s->nbc / s->size + 3);
    job *jobs = malloc(max * sizeof *jobs);
    if (!jobs)
        return 1;
    size_t nj = 0;
    long colbytes = (long)s->n * s->nb * (long)sizeof(double);
    for (int k = 0; k < s->nbc; k++) {
        double *buf = s->pbuf[k % RING];
        myr_task_dep_t pb_out = {buf, (long)(panel_count(s, 0) * sizeof(double)), MYR_TASK_OUT};
        myr_task_dep_t pb_in = {buf, pb_out.size, MYR_TASK_IN};
        if (owner(s, k) == s->rank) {
            myr_task_dep_t d[] = {{col(s, k), colbytes, MYR_TASK_INOUT}, pb_out};
            jobs[nj] = (job){s, k, k};
            if (myr_task_create(panel_task, &jobs[nj++], d, 2, MYR_TASK_HIGH_PRIORITY))
                return 1;
            if (s->size > 1) {
                jobs[nj] = (job){s, k, k};
                if (myr_task_create(send_task, &jobs[nj++], &pb_in, 1, MYR_TASK_HIGH_PRIORITY))
                    return 1;
            }
        } else {
            jobs[nj] = (job){s, k, k};
            if (myr_task_create(recv_task, &jobs[nj++], &pb_out, 1, MYR_TASK_HIGH_PRIORITY))
                return 1;
        }
        for (int j = k + 1; j < s->nbc; j++) {
            if (owner(s, j) != s->rank)
                continue;
            myr_task_dep_t d[] = {pb_in, {col(s, j), colbytes, MYR_TASK_INOUT}};
            jobs[nj] = (job){s, k, j};
            /* The next panel's column is on the critical path. */
            if (myr_task_create(update_task, &jobs[nj++], d, 2,
                                j == k + 1 ? MYR_TASK_HIGH_PRIORITY : 0))
                return 1;
        }
    }
    int err = myr_taskwait();
    free(jobs);
    return err;
}
#endif

/* ---- checking --------------------------------------------------------------- */

/* Rank 0 gathers the factors, solves and returns the scaled residual. */
static double check(lu *s, uint64_t seed)
{
    int n = s->n;
    double *f = NULL;
    if (s->rank == 0) {
        f = malloc((size_t)n * n * sizeof *f);
        if (!f)
            return INFINITY;
    }
    for (int j = 0; j < s->nbc; j++) {
        int cnt = n * width(s, j);
        if (owner(s, j) == 0 && s->rank == 0)
            memcpy(f + (size_t)j * s->nb * n, col(s, j), (size_t)cnt * sizeof *f);
        else if (s->rank == 0)
            MPI_Recv(f + (size_t)j * s->nb * n, cnt, MPI_DOUBLE, owner(s, j), j, s->comm,
                     MPI_STATUS_IGNORE);
        else if (owner(s, j) == s->rank)
            MPI_Send(col(s, j), cnt, MPI_DOUBLE, 0, j, s->comm);
    }
    if (s->rank != 0)
        return 0;
    double *x = malloc((size_t)n * sizeof *x);
    if (!x) {
        free(f);
        return INFINITY;
    }
    for (int i = 0; i < n; i++)
        x[i] = b_i(seed, i);
    for (int i = 0; i < n; i++) {
        double t = x[i];
        x[i] = x[s->ipiv[i]];
        x[s->ipiv[i]] = t;
    }
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, n, f, n, x, 1);
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, n, f, n, x, 1);
    double rmax = 0, anorm = 0, xnorm = 0, bnorm = 0;
    for (int i = 0; i < n; i++) {
        double r = -b_i(seed, i), row = 0;
        for (int j = 0; j < n; j++) {
            double a = a_ij(seed, n, i, j);
            r += a * x[j];
            row += fabs(a);
        }
        rmax = fmax(rmax, fabs(r));
        anorm = fmax(anorm, row);
        xnorm = fmax(xnorm, fabs(x[i]));
        bnorm = fmax(bnorm, fabs(b_i(seed, i)));
    }
    free(x);
    free(f);
    return rmax / (DBL_EPSILON * (anorm * xnorm + bnorm) * n);
}

/* ---- main ------------------------------------------------------------------ */

extern void openblas_set_num_threads(int num_threads);

int main(int argc, char **argv)
{
    int n = 1000, nb = 64;
    uint64_t seed = 42;
    enum variant v = PLAIN;
    const char *vname = "plain";
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    openblas_set_num_threads(1);   /* the runtime gives the parallelism */
    lu s = {.comm = MPI_COMM_WORLD};
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-b"))
            nb = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-v")) {
            vname = argv[i + 1];
            v = !strcmp(vname, "plain") ? PLAIN : !strcmp(vname, "lookahead") ? LOOKAHEAD
                : !strcmp(vname, "dataflow") ? DATAFLOW : (enum variant)-1;
        }
    }
    if (n < 1 || nb < 1 || (int)v < 0) {
        if (s.rank == 0)
            fprintf(stderr, "usage: lu [-n N] [-b NB] [-v plain|lookahead|dataflow] [-s seed]\n");
        MPI_Finalize();
        return 2;
    }
#ifndef LU_HAVE_TASKS
    if (v == DATAFLOW) {
        if (s.rank == 0)
            fprintf(stderr, "lu: the dataflow variant needs Myriad's tasks\n");
        MPI_Finalize();
        return 2;
    }
#endif
    s.n = n;
    s.nb = nb;
    s.nbc = (n + nb - 1) / nb;
    int mine = s.nbc / s.size + (s.rank < s.nbc % s.size);
    s.a = malloc((size_t)(mine ? mine : 1) * nb * n * sizeof *s.a);
    s.ipiv = malloc((size_t)n * sizeof *s.ipiv);
    int ok = s.a && s.ipiv;
    for (int r = 0; r < RING; r++)
        ok &= (s.pbuf[r] = malloc(panel_count(&s, 0) * sizeof(double))) != NULL;
    if (!ok) {
        fprintf(stderr, "lu: out of memory\n");
        MPI_Abort(s.comm, 1);
    }
    for (int j = s.rank; j < s.nbc; j += s.size)
        for (int c = 0; c < width(&s, j); c++)
            for (int i = 0; i < n; i++)
                col(&s, j)[(size_t)c * n + i] = a_ij(seed, n, i, j * nb + c);

    MPI_Barrier(s.comm);
    double t0 = MPI_Wtime();
    int err = 0;
    if (v == PLAIN)
        run_plain(&s);
    else if (v == LOOKAHEAD)
        run_lookahead(&s);
#ifdef LU_HAVE_TASKS
    else
        err = run_dataflow(&s);
#endif
    swap_left(&s);
    MPI_Barrier(s.comm);
    double t = MPI_Wtime() - t0;

    double resid = check(&s, seed);
    int status = 0;
    if (s.rank == 0) {
        double gflops = (2.0 / 3.0 * n * (double)n * n + 2.0 * n * (double)n) / t / 1e9;
        printf("lu: %s N=%d NB=%d ranks=%d time=%.3f s %.2f Gflop/s residual=%.3g\n", vname, n,
               nb, s.size, t, gflops, resid);
        status = err || !(resid < 16.0);
        printf("check: %s\n", status ? "FAILED" : "ok");
    }
    for (int r = 0; r < RING; r++)
        free(s.pbuf[r]);
    free(s.ipiv);
    free(s.a);
    MPI_Finalize();
    return status;
}
