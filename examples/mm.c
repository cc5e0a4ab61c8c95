/*
 * mm.c — C = A B, N x N, over a pr x pc grid of ranks by SUMMA: rank
 * (i, j) holds the mb x nb blocks A_ij, B_ij, C_ij (mb = N / pr, nb =
 * N / pc). The inner dimension goes in L = lcm(pr, pc) panels of width
 * w = N / L; at step k the owner of A's panel column broadcasts its piece
 * (mb x w) along its grid row, the owner of B's panel row its piece (w x
 * nb) along its grid column, and every rank adds their product to C_ij
 * with single-threaded OpenBLAS dgemm. Row and column communicators come
 * from MPI_Comm_split. The point (issue 19, item 2): with many more ranks
 * than cores the blocks shrink until they stay in cache.
 *
 * The grid is q x q when P = q^2, else pr x pc with pr the largest divisor
 * of P not above sqrt(P) (P = 2: 1 x 2, so Open MPI's -np 2 runs too).
 * L must divide N (the usage line says so); no padding, so that every rank
 * does the same work and the Gflop/s count is exactly 2 N^3 / t. B's blocks
 * are stored by rows so that a panel of rows is contiguous, as A's panel
 * of columns is.
 *
 * Inputs are a hash of (seed, matrix, global row, global column), so each
 * rank fills its own blocks and any P gives the same matrices. -v checks
 * the product by Freivalds' method, without a serial N^3 multiply: for a
 * random positive x, Cx and A(Bx) are computed distributed (O(N^2 / P) per
 * rank) and their largest difference, scaled by eps N (|A| |B| x), must be
 * below 16. -x adds 1.0 to one element of C (a test that a wrong product
 * is caught).
 *
 * -k loop replaces dgemm by a plain loop (columns of C updated by axpys of
 * A's panel, vectorised by the compiler): no cache blocking of its own,
 * so it is fast only when a rank's panel fits in cache, as in FG-MPI's
 * matrix multiply; it shows what over-decomposition does for a kernel
 * that is not already tuned.
 *
 * Prints the best time of -r repetitions and its Gflop/s (2 N^3 / t).
 * Usage: mm [-n N] [-r reps] [-k blas|loop] [-v] [-x] [-s seed]
 * Builds with any MPI and OpenBLAS (cblas.h).
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int num_threads);

/* splitmix64: a well-mixed value from any (seed, matrix, i, j). */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unit(uint64_t seed, uint64_t m, uint64_t i, uint64_t j)
{
    return (mix(seed ^ mix(m ^ mix(i ^ mix(j)))) >> 11) * 0x1.0p-53;
}

/* Fills block (bi, bj) (mb x nb) of matrix m (0 = A, 1 = B) with values
 * in [-0.5, 0.5): element (r, c) at r * rs + c * cs. */
static void fill(double *blk, int mb, int nb, size_t rs, size_t cs, uint64_t seed, int m,
                 int bi, int bj)
{
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < mb; r++)
            blk[r * rs + c * cs] = unit(seed, (uint64_t)m, (uint64_t)bi * mb + r,
                                        (uint64_t)bj * nb + c) - 0.5;
}

/* out[r] += sum_c |blk(r, c)| v[c]: the magnitudes that bound rounding. */
static void absgemv(int mb, int nb, size_t rs, size_t cs, const double *blk, const double *v,
                    double *out)
{
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < mb; r++)
            out[r] += fabs(blk[r * rs + c * cs]) * v[c];
}

/* C (mb x nb, by columns) += A panel (mb x w, by columns) B panel (w x
 * nb, by rows): each column of C takes w axpys over the whole A panel. */
static void loop_kernel(int mb, int nb, int w, const double *restrict ak,
                        const double *restrict bk, double *restrict c)
{
    for (int j = 0; j < nb; j++) {
        double *cj = c + (size_t)j * mb;
        for (int p = 0; p < w; p++) {
            const double *ap = ak + (size_t)p * mb;
            double bpj = bk[(size_t)p * nb + j];
            for (int i = 0; i < mb; i++)
                cj[i] += ap[i] * bpj;
        }
    }
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int main(int argc, char **argv)
{
    int n = 2048, reps = 3, verify = 0, corrupt = 0, loop = 0;
    uint64_t seed = 42;
    MPI_Init(&argc, &argv);
    openblas_set_num_threads(1);   /* the ranks are the parallelism */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
            i++;
            loop = !strcmp(argv[i], "loop");
            bad |= !loop && strcmp(argv[i], "blas");
        } else if (!strcmp(argv[i], "-v"))
            verify = 1;
        else if (!strcmp(argv[i], "-x"))
            corrupt = 1;
        else
            bad = 1;
    }
    int pr = (int)sqrt((double)size);
    while (pr > 1 && size % pr)
        pr--;
    int pc = size / pr, L = pr / gcd(pr, pc) * pc;
    if (bad || n < 1 || reps < 1 || n % L) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mm [-n N] [-r reps] [-k blas|loop] [-v] [-x] [-s seed]\n"
                    "  P ranks form a pr x pc grid (q x q when P = q^2, else pr the largest\n"
                    "  divisor of P <= sqrt(P)); lcm(pr, pc) must divide N\n"
                    "  (here P=%d: %d x %d, lcm %d, N=%d)\n"
                    "  -v  check C = AB by Freivalds' method; -x  corrupt one element of C\n",
                    size, pr, pc, L, n);
        MPI_Finalize();
        return 2;
    }
    int mb = n / pr, nb = n / pc, w = n / L, gi = rank / pc, gj = rank % pc;
    MPI_Comm row, col;
    MPI_Comm_split(MPI_COMM_WORLD, gi, gj, &row);   /* rank in row = grid column */
    MPI_Comm_split(MPI_COMM_WORLD, gj, gi, &col);   /* rank in column = grid row */

    size_t ab = (size_t)mb * nb, bb = ab;   /* A, B and C blocks are all mb x nb */
    size_t pan = (size_t)mb * w, pbn = (size_t)w * nb;
    double *m = malloc((3 * ab + pan + pbn) * sizeof *m);
    if (!m) {
        fprintf(stderr, "mm: rank %d: out of memory (blocks of %d x %d)\n", rank, mb, nb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *a = m, *bm = a + ab, *c = bm + bb, *pa = c + ab, *pb = pa + pan;
    fill(a, mb, nb, 1, (size_t)mb, seed, 0, gi, gj);   /* by columns, lda mb */
    fill(bm, mb, nb, (size_t)nb, 1, seed, 1, gi, gj);  /* by rows, ldb nb */

    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        memset(c, 0, bb * sizeof *c);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < L; k++) {
            /* The owners broadcast straight from their blocks: A's panel
             * columns and B's panel rows are contiguous there. */
            int ka = k * w / nb, kb = k * w / mb;
            double *ak = gj == ka ? a + (size_t)(k * w - ka * nb) * mb : pa;
            double *bk = gi == kb ? bm + (size_t)(k * w - kb * mb) * nb : pb;
            MPI_Bcast(ak, (int)pan, MPI_DOUBLE, ka, row);
            MPI_Bcast(bk, (int)pbn, MPI_DOUBLE, kb, col);
            /* bk is w x nb by rows, i.e. its transpose by columns. */
            if (loop)
                loop_kernel(mb, nb, w, ak, bk, c);
            else
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, mb, nb, w, 1.0, ak, mb, bk,
                            nb, 1.0, c, mb);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    if (rank == 0)
        printf("mm: N=%d ranks=%d grid=%dx%d block=%dx%d kernel=%s reps=%d time=%.4f s %.2f "
               "Gflop/s\n",
               n, size, pr, pc, mb, nb, loop ? "loop" : "blas", reps, best,
               2.0 * n * (double)n * n / best / 1e9);

    int status = 0;
    if (corrupt && rank == size - 1)
        c[ab - 1] += 1.0;   /* global element (N-1, N-1) */
    if (verify) {
        /* x in [0.5, 1): nonzero everywhere, so a wrong C_ij shows in (Cx)_i. */
        double *x = malloc((size_t)nb * sizeof *x);
        double *v = calloc(5 * (size_t)n, sizeof *v);   /* y, |B|x, then Cx, A y, |A||B|x */
        if (!x || !v) {
            fprintf(stderr, "mm: rank %d: out of memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int t = 0; t < nb; t++)
            x[t] = 0.5 + 0.5 * unit(seed, 2, 0, (uint64_t)gj * nb + t);
        double *y = v, *ya = v + n, *cx = v + 2 * n, *z = v + 3 * n, *za = v + 4 * n;
        /* Rank (i, j) adds B_ij x_j to segment i of y; the sum over all
         * ranks is Bx (each segment gets its pc terms). */
        size_t off = (size_t)gi * mb;
        cblas_dgemv(CblasRowMajor, CblasNoTrans, mb, nb, 1.0, bm, nb, x, 1, 0.0, y + off, 1);
        absgemv(mb, nb, (size_t)nb, 1, bm, x, ya + off);
        MPI_Allreduce(MPI_IN_PLACE, v, 2 * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double *yj = y + (size_t)gj * nb, *yaj = ya + (size_t)gj * nb;
        cblas_dgemv(CblasColMajor, CblasNoTrans, mb, nb, 1.0, c, mb, x, 1, 0.0, cx + off, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, mb, nb, 1.0, a, mb, yj, 1, 0.0, z + off, 1);
        absgemv(mb, nb, 1, (size_t)mb, a, yaj, za + off);
        MPI_Allreduce(MPI_IN_PLACE, cx, 3 * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* Rounding in either order stays below about 2 N eps (|A||B|x)_i,
         * so the scaled residual of a right product is well under 1. */
        double resid = 0;
        for (int i = 0; i < n; i++) {
            double e = fabs(cx[i] - z[i]) / (DBL_EPSILON * n * za[i]);
            resid = e > resid || e != e ? e : resid;
        }
        status = !(resid < 16.0);
        if (rank == 0) {
            printf("freivalds: scaled residual %.3g (pass < 16)\n", resid);
            printf("check: %s\n", status ? "FAILED" : "ok");
        }
        free(v);
        free(x);
    }
    free(m);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Finalize();
    return status;
}
