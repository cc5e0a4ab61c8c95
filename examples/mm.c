/*
 * mm.c — C = A B, N x N, over a q x q grid of ranks (P = q^2) by SUMMA:
 * rank (i, j) holds the b x b blocks A_ij, B_ij, C_ij (b = N / q); at step
 * k the owner of A_ik broadcasts it along its grid row, the owner of B_kj
 * along its grid column, and every rank adds A_ik B_kj to C_ij with
 * single-threaded OpenBLAS dgemm. Row and column communicators come from
 * MPI_Comm_split. The point (issue 19, item 2): with many more ranks than
 * cores the blocks shrink until they stay in cache.
 *
 * P must be a perfect square and q must divide N (the usage line says so);
 * no padding, so that every rank does the same work and the Gflop/s count
 * is exactly 2 N^3 / t.
 *
 * Inputs are a hash of (seed, matrix, global row, global column), so each
 * rank fills its own blocks and any P gives the same matrices. -v checks
 * the product by Freivalds' method, without a serial N^3 multiply: for a
 * random positive x, Cx and A(Bx) are computed distributed (O(N^2 / P) per
 * rank) and their largest difference, scaled by eps N (|A| |B| x), must be
 * below 16. -x adds 1.0 to one element of C (a test that a wrong product
 * is caught).
 *
 * Prints the best time of -r repetitions and its Gflop/s (2 N^3 / t).
 * Usage: mm [-n N] [-r reps] [-v] [-x] [-s seed]
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

/* Fills block (bi, bj) of matrix m (0 = A, 1 = B), column-major, with
 * values in [-0.5, 0.5). */
static void fill(double *blk, int b, uint64_t seed, int m, int bi, int bj)
{
    for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++)
            blk[(size_t)c * b + r] = unit(seed, (uint64_t)m, (uint64_t)bi * b + r,
                                          (uint64_t)bj * b + c) - 0.5;
}

/* out[r] += sum_c |blk[r, c]| v[c]: the magnitudes that bound rounding. */
static void absgemv(int b, const double *blk, const double *v, double *out)
{
    for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++)
            out[r] += fabs(blk[(size_t)c * b + r]) * v[c];
}

int main(int argc, char **argv)
{
    int n = 2048, reps = 3, verify = 0, corrupt = 0;
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
        else if (!strcmp(argv[i], "-v"))
            verify = 1;
        else if (!strcmp(argv[i], "-x"))
            corrupt = 1;
        else
            bad = 1;
    }
    int q = (int)lround(sqrt((double)size));
    if (bad || n < 1 || reps < 1 || q * q != size || n % q) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mm [-n N] [-r reps] [-v] [-x] [-s seed]\n"
                    "  the number of ranks P must be a perfect square q^2 and q must divide N\n"
                    "  (here P=%d, N=%d)\n"
                    "  -v  check C = AB by Freivalds' method; -x  corrupt one element of C\n",
                    size, n);
        MPI_Finalize();
        return 2;
    }
    int b = n / q, gi = rank / q, gj = rank % q;
    MPI_Comm row, col;
    MPI_Comm_split(MPI_COMM_WORLD, gi, gj, &row);   /* rank in row = grid column */
    MPI_Comm_split(MPI_COMM_WORLD, gj, gi, &col);   /* rank in column = grid row */

    size_t bb = (size_t)b * b;
    double *m = malloc(5 * bb * sizeof *m);
    if (!m) {
        fprintf(stderr, "mm: rank %d: out of memory (5 blocks of %d x %d)\n", rank, b, b);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *a = m, *bm = a + bb, *c = bm + bb, *pa = c + bb, *pb = pa + bb;
    fill(a, b, seed, 0, gi, gj);
    fill(bm, b, seed, 1, gi, gj);

    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        memset(c, 0, bb * sizeof *c);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < q; k++) {
            /* The owner broadcasts its own block; no copy into the panel. */
            double *ak = gj == k ? a : pa, *bk = gi == k ? bm : pb;
            MPI_Bcast(ak, (int)bb, MPI_DOUBLE, k, row);
            MPI_Bcast(bk, (int)bb, MPI_DOUBLE, k, col);
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, b, b, b, 1.0, ak, b, bk, b,
                        1.0, c, b);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    if (rank == 0)
        printf("mm: N=%d ranks=%d grid=%dx%d block=%d reps=%d time=%.4f s %.2f Gflop/s\n", n, size,
               q, q, b, reps, best, 2.0 * n * (double)n * n / best / 1e9);

    int status = 0;
    if (corrupt && rank == size - 1)
        c[bb - 1] += 1.0;   /* global element (N-1, N-1) */
    if (verify) {
        /* x in [0.5, 1): nonzero everywhere, so a wrong C_ij shows in (Cx)_i. */
        double *x = malloc((size_t)b * sizeof *x);
        double *v = calloc(5 * (size_t)n, sizeof *v);   /* y, |B|x, then Cx, A y, |A||B|x */
        if (!x || !v) {
            fprintf(stderr, "mm: rank %d: out of memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int t = 0; t < b; t++)
            x[t] = 0.5 + 0.5 * unit(seed, 2, 0, (uint64_t)gj * b + t);
        double *y = v, *ya = v + n, *w = v + 2 * n, *z = v + 3 * n, *za = v + 4 * n;
        /* Rank (i, j) adds B_ij x_j to segment i of y; the sum over all
         * ranks is Bx (each segment gets its q terms). */
        size_t off = (size_t)gi * b;
        cblas_dgemv(CblasColMajor, CblasNoTrans, b, b, 1.0, bm, b, x, 1, 0.0, y + off, 1);
        absgemv(b, bm, x, ya + off);
        MPI_Allreduce(MPI_IN_PLACE, v, 2 * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double *yj = y + (size_t)gj * b, *yaj = ya + (size_t)gj * b;
        cblas_dgemv(CblasColMajor, CblasNoTrans, b, b, 1.0, c, b, x, 1, 0.0, w + off, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, b, b, 1.0, a, b, yj, 1, 0.0, z + off, 1);
        absgemv(b, a, yaj, za + off);
        MPI_Allreduce(MPI_IN_PLACE, w, 3 * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* Rounding in either order stays below about 2 N eps (|A||B|x)_i,
         * so the scaled residual of a right product is well under 1. */
        double resid = 0;
        for (int i = 0; i < n; i++) {
            double e = fabs(w[i] - z[i]) / (DBL_EPSILON * n * za[i]);
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
