/*
 * heat_kernel.h — what every solver of the heat plate shares: the plate's
 * fixed values, its cut into blocks, a block's layout and the Jacobi
 * sweep. examples/heat.c (the main job) and bench/heat_bound.c (the same
 * blocks with no MPI at all: the bound of scripts/bench-demo) include it,
 * so that both do the same floating-point operations on the same layout.
 * Plain C: any MPI's mpicc builds heat.c with it.
 */
#ifndef HEAT_KERNEL_H
#define HEAT_KERNEL_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The run's options: -n SIDE, -i MAX_ITERATIONS, -k CHECK_EVERY, -t
 * TOLERANCE (heat's, which heat_bound takes too). */
typedef struct params {
    int n;            /* interior points per side */
    int max_iters;
    int check_every;  /* iterations between two residual checks */
    double tol;       /* stop once the residual is below it */
} params;

static inline params params_default(void)
{
    return (params){.n = 2048, .max_iters = 500, .check_every = 50, .tol = 1e-6};
}

/* Option `opt` with value `val` into *p: 1 taken, 0 not one of these, -1 a
 * bad value. */
static inline int params_option(const char *opt, const char *val, params *p)
{
    char *end;
    if (strcmp(opt, "-n") == 0)
        p->n = (int)strtol(val, &end, 10);
    else if (strcmp(opt, "-i") == 0)
        p->max_iters = (int)strtol(val, &end, 10);
    else if (strcmp(opt, "-k") == 0)
        p->check_every = (int)strtol(val, &end, 10);
    else if (strcmp(opt, "-t") == 0)
        p->tol = strtod(val, &end);
    else
        return 0;
    return *end == '\0' ? 1 : -1;
}

static inline int params_ok(const params *p)
{
    return p->n >= 1 && p->max_iters >= 1 && p->check_every >= 1 && p->tol >= 0;
}

/* A block of the plate with a one-point halo: (rows+2) x (cols+2). */
typedef struct block {
    int row0, col0;   /* global index of the first interior point (from 0) */
    int rows, cols;
    double *u, *v;    /* current and next iterate */
} block;

#define AT(b, a, i, j) ((a)[(size_t)(i) * (size_t)((b)->cols + 2) + (size_t)(j)])

/* Factor `size` as px * py with px <= py, as square as possible. */
static inline void grid_dims(int size, int *px, int *py)
{
    int best = 1;
    for (int d = 1; (long)d * d <= size; d++)
        if (size % d == 0)
            best = d;
    *px = best;
    *py = size / best;
}

/* Block `rank` of a px x py grid of blocks over an n x n plate (blocks in
 * row-major order): its first interior point and size, no arrays yet. */
static inline block block_of(int n, int px, int py, int rank)
{
    int bi = rank / py, bj = rank % py;
    int r0 = (int)((long)bi * n / px), r1 = (int)((long)(bi + 1) * n / px);
    int c0 = (int)((long)bj * n / py), c1 = (int)((long)(bj + 1) * n / py);
    return (block){.row0 = r0, .col0 = c0, .rows = r1 - r0, .cols = c1 - c0};
}

/* Fixed values: the plate's edges, and the heater in the middle. Points
 * are indexed 0..n+1 with the edges at 0 and n+1; the heater covers rows
 * and columns [heater_lo, heater_hi). */
static inline int heater_lo(int n)
{
    return n / 2 - n / 16 + 1;
}

static inline int heater_hi(int n)
{
    return heater_lo(n) + n / 8;
}

static inline int in_heater(int n, int gi, int gj)
{
    return gi >= heater_lo(n) && gi < heater_hi(n) && gj >= heater_lo(n) &&
           gj < heater_hi(n);
}

static inline double edge_value(int n, int gi, int gj)
{
    (void)gj;
    (void)n;
    return gi == 0 ? 1.0 : 0.0;
}

/* Set every point of a (rows+2) x (cols+2) array whose global position is
 * (row0-1+i, col0-1+j): edges and heater to their values, the rest to 0. */
static inline void init_array(double *a, int n, int row0, int col0, int rows, int cols)
{
    for (int i = 0; i < rows + 2; i++)
        for (int j = 0; j < cols + 2; j++) {
            int gi = row0 + i, gj = col0 + j;   /* row0 counts from 0 = first interior */
            double x = 0.0;
            if (gi == 0 || gj == 0 || gi == n + 1 || gj == n + 1)
                x = edge_value(n, gi, gj);
            else if (in_heater(n, gi, gj))
                x = 1.0;
            a[(size_t)i * (size_t)(cols + 2) + (size_t)j] = x;
        }
}

/* One Jacobi sweep of the interior of a (rows+2) x (cols+2) array from u
 * into v; points of the heater keep their value. Returns the largest
 * change when `want_residual`, else 0. The same function serves the ranks
 * and the serial check, so both do the same operations. Out of line and
 * aligned to 64 bytes, so that every program built with it (heat with any
 * MPI, heat_bound) runs the same machine code at the same alignment: the
 * comparisons between them are then not about where the compiler put
 * the loop (the same source inlined elsewhere ran up to ~15 % apart on
 * this machine's AMD EPYC, bench/README.md). */
__attribute__((noinline, aligned(64))) static double sweep(const double *u, double *v, int n, int row0, int col0,
                    int rows, int cols, int want_residual)
{
    size_t w = (size_t)cols + 2;
    double res = 0.0;
    for (int i = 1; i <= rows; i++) {
        const double *restrict up = u + (size_t)(i - 1) * w;
        const double *restrict mid = u + (size_t)i * w;
        const double *restrict down = u + (size_t)(i + 1) * w;
        double *restrict out = v + (size_t)i * w;
        for (int j = 1; j <= cols; j++)
            out[j] = 0.25 * ((up[j] + down[j]) + (mid[j - 1] + mid[j + 1]));
        /* The heater: put its points back (few rows touch it). */
        int gi = row0 + i;
        if (gi >= heater_lo(n) && gi < heater_hi(n)) {
            for (int j = 1; j <= cols; j++)
                if (in_heater(n, gi, col0 + j))
                    out[j] = 1.0;
        }
        if (want_residual)
            for (int j = 1; j <= cols; j++) {
                double d = fabs(out[j] - mid[j]);
                res = d > res ? d : res;
            }
    }
    return res;
}

#endif
