/*
 * heat.c — 2-D heat diffusion by Jacobi iteration, the main job
 * (`make demo` runs it on 1024 ranks).
 *
 * The square plate has n x n interior points. Its top edge is held at 1.0,
 * the other edges at 0.0, and a square in the middle (an eighth of the
 * side) is a heater held at 1.0. Each iteration replaces every free point
 * by the mean of its four neighbours.
 *
 * The plate is cut into a near-square grid of blocks, one per rank. Every
 * iteration a rank exchanges its edges with its four neighbours
 * (MPI_Irecv/MPI_Isend/MPI_Waitall; edges of the plate talk to
 * MPI_PROC_NULL), then updates its block. Every k iterations the ranks
 * agree on the residual (the largest change of any point in that
 * iteration) with MPI_Allreduce(MPI_MAX) and stop once it is below the
 * tolerance, or at the iteration limit.
 *
 * At the end rank 0 gathers the plate (MPI_Send/MPI_Recv), prints the
 * figures, then runs the same iterations alone on the whole plate and
 * compares: the update of a point does the same floating-point operations
 * in the same order whatever the decomposition, so the two plates must be
 * identical, bit for bit. It prints `check: ok`, or the differences and
 * exits with status 1.
 *
 *   heat [-n SIDE] [-i MAX_ITERATIONS] [-k CHECK_EVERY] [-t TOLERANCE]
 *
 * Plain MPI: builds with any MPI's mpicc as well (the worker count is only
 * printed under Myriad).
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_kernel.h"


enum { TAG_N = 1, TAG_S, TAG_W, TAG_E, TAG_GATHER };

static int parse(int argc, char **argv, params *p)
{
    *p = params_default();
    for (int i = 1; i < argc; i += 2)
        if (i + 1 >= argc || params_option(argv[i], argv[i + 1], p) != 1)
            return -1;
    return params_ok(p) ? 0 : -1;
}

/* ---- the parallel solver -------------------------------------------------- */

typedef struct neighbours {
    int n, s, w, e;   /* ranks, or MPI_PROC_NULL at the plate's edges */
} neighbours;

typedef struct halo_bufs {
    double *send_w, *send_e, *recv_w, *recv_e;   /* columns, packed */
} halo_bufs;

/* Exchange the edges of b->u with the four neighbours. Rows are contiguous;
 * columns go through packed buffers. */
static void exchange(block *b, const neighbours *nb, halo_bufs *h)
{
    MPI_Request req[8];
    int rows = b->rows, cols = b->cols;
    double *u = b->u;
    MPI_Irecv(&AT(b, u, 0, 1), cols, MPI_DOUBLE, nb->n, TAG_S, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&AT(b, u, rows + 1, 1), cols, MPI_DOUBLE, nb->s, TAG_N, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(h->recv_w, rows, MPI_DOUBLE, nb->w, TAG_E, MPI_COMM_WORLD, &req[2]);
    MPI_Irecv(h->recv_e, rows, MPI_DOUBLE, nb->e, TAG_W, MPI_COMM_WORLD, &req[3]);
    for (int i = 0; i < rows; i++) {
        h->send_w[i] = AT(b, u, i + 1, 1);
        h->send_e[i] = AT(b, u, i + 1, cols);
    }
    MPI_Isend(&AT(b, u, 1, 1), cols, MPI_DOUBLE, nb->n, TAG_N, MPI_COMM_WORLD, &req[4]);
    MPI_Isend(&AT(b, u, rows, 1), cols, MPI_DOUBLE, nb->s, TAG_S, MPI_COMM_WORLD, &req[5]);
    MPI_Isend(h->send_w, rows, MPI_DOUBLE, nb->w, TAG_W, MPI_COMM_WORLD, &req[6]);
    MPI_Isend(h->send_e, rows, MPI_DOUBLE, nb->e, TAG_E, MPI_COMM_WORLD, &req[7]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    if (nb->w != MPI_PROC_NULL)
        for (int i = 0; i < rows; i++)
            AT(b, u, i + 1, 0) = h->recv_w[i];
    if (nb->e != MPI_PROC_NULL)
        for (int i = 0; i < rows; i++)
            AT(b, u, i + 1, cols + 1) = h->recv_e[i];
}

static double block_sum(const block *b)
{
    double s = 0.0;
    for (int i = 1; i <= b->rows; i++)
        for (int j = 1; j <= b->cols; j++)
            s += AT(b, b->u, i, j);
    return s;
}

/* ---- the serial check (rank 0 alone) -------------------------------------- */

/* Run `iters` iterations on the whole plate; the result is in *out (n+2
 * square, edges included) and the residual of the last iteration in *res. */
static int serial_solve(int n, int iters, double **out, double *res)
{
    size_t pts = (size_t)(n + 2) * (size_t)(n + 2);
    double *u = malloc(pts * sizeof *u), *v = malloc(pts * sizeof *v);
    if (!u || !v) {
        free(u);
        free(v);
        return -1;
    }
    init_array(u, n, 0, 0, n, n);
    init_array(v, n, 0, 0, n, n);
    for (int it = 1; it <= iters; it++) {
        *res = sweep(u, v, n, 0, 0, n, n, it == iters);
        double *t = u;
        u = v;
        v = t;
    }
    free(v);
    *out = u;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    params p;
    if (parse(argc, argv, &p) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: heat [-n SIDE] [-i MAX_ITERATIONS] [-k CHECK_EVERY] "
                            "[-t TOLERANCE]\n");
        MPI_Finalize();
        return 2;
    }
    int px, py;
    grid_dims(size, &px, &py);
    if (p.n < py) {
        if (rank == 0)
            fprintf(stderr, "heat: a %d x %d plate cannot be cut into %d x %d blocks\n",
                    p.n, p.n, px, py);
        MPI_Finalize();
        return 2;
    }

    /* My block: rows [r0, r0 + rows) and columns [c0, c0 + cols) of the
     * interior. */
    int bi = rank / py, bj = rank % py;
    block b = block_of(p.n, px, py, rank);
    int r0 = b.row0, c0 = b.col0;
    size_t pts = (size_t)(b.rows + 2) * (size_t)(b.cols + 2);
    b.u = malloc(pts * sizeof(double));
    b.v = malloc(pts * sizeof(double));
    halo_bufs h = {malloc(b.rows * sizeof(double)), malloc(b.rows * sizeof(double)),
                   malloc(b.rows * sizeof(double)), malloc(b.rows * sizeof(double))};
    if (!b.u || !b.v || !h.send_w || !h.send_e || !h.recv_w || !h.recv_e) {
        fprintf(stderr, "heat: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    init_array(b.u, p.n, r0, c0, b.rows, b.cols);
    init_array(b.v, p.n, r0, c0, b.rows, b.cols);
    neighbours nb = {
        .n = bi > 0 ? rank - py : MPI_PROC_NULL,
        .s = bi < px - 1 ? rank + py : MPI_PROC_NULL,
        .w = bj > 0 ? rank - 1 : MPI_PROC_NULL,
        .e = bj < py - 1 ? rank + 1 : MPI_PROC_NULL,
    };

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int it = 0;
    double residual = INFINITY;
    while (it < p.max_iters) {
        it++;
        int check = it % p.check_every == 0 || it == p.max_iters;
        exchange(&b, &nb, &h);
        double local = sweep(b.u, b.v, p.n, r0, c0, b.rows, b.cols, check);
        double *t = b.u;
        b.u = b.v;
        b.v = t;
        if (check) {
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (residual < p.tol)
                break;
        }
    }
    double local_sum = block_sum(&b), checksum;
    MPI_Allreduce(&local_sum, &checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t_par = MPI_Wtime() - t0;

    /* Gather the plate on rank 0: each block's interior, packed row by row. */
    size_t inner = (size_t)b.rows * (size_t)b.cols;
    double *mine = malloc(inner * sizeof(double));
    for (int i = 0; i < b.rows; i++)
        memcpy(mine + (size_t)i * b.cols, &AT(&b, b.u, i + 1, 1), b.cols * sizeof(double));
    int status = 0;
    if (rank != 0) {
        MPI_Send(mine, (int)inner, MPI_DOUBLE, 0, TAG_GATHER, MPI_COMM_WORLD);
    } else {
        int workers = 0;
#ifdef MYRIAD_VERSION
        workers = myr_worker_count();
#endif
        printf("heat: %d x %d plate, %d rank%s as %d x %d blocks of about %d x %d",
               p.n, p.n, size, size == 1 ? "" : "s", px, py, p.n / px, p.n / py);
        if (workers)
            printf(", %d workers", workers);
        printf("\n");
        printf("iterations: %d (%s; residual checked every %d, tolerance %g)\n", it,
               residual < p.tol ? "converged" : "stopped at the limit", p.check_every, p.tol);
        printf("final residual: %.6e (largest change in the last iteration)\n", residual);
        printf("checksum: %.12e (sum over the plate)\n", checksum);
        printf("time: %.3f s, %.1f M point-updates/s\n", t_par,
               (double)p.n * p.n * it / t_par * 1e-6);

        size_t w = (size_t)p.n;
        double *plate = malloc(w * w * sizeof(double));
        double *tmp = malloc(w * w * sizeof(double));   /* largest block fits */
        if (!plate || !tmp) {
            fprintf(stderr, "heat: out of memory for the check\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int r = 0; r < size; r++) {
            block q = block_of(p.n, px, py, r);
            int q0 = q.row0, s0 = q.col0, nr = q.rows, nc = q.cols;
            if (r == 0)
                memcpy(tmp, mine, inner * sizeof(double));
            else
                MPI_Recv(tmp, nr * nc, MPI_DOUBLE, r, TAG_GATHER, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            for (int i = 0; i < nr; i++)
                memcpy(plate + (size_t)(q0 + i) * w + s0, tmp + (size_t)i * nc,
                       nc * sizeof(double));
        }

        double t1 = MPI_Wtime(), sres = 0.0, *ref = NULL;
        if (serial_solve(p.n, it, &ref, &sres) != 0) {
            fprintf(stderr, "heat: out of memory for the serial check\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double t_ser = MPI_Wtime() - t1;
        double ssum = 0.0, maxdiff = 0.0;
        size_t differ = 0;
        for (size_t i = 0; i < w; i++)
            for (size_t j = 0; j < w; j++) {
                double x = ref[(i + 1) * (w + 2) + j + 1], y = plate[i * w + j];
                ssum += x;
                if (x != y) {
                    differ++;
                    maxdiff = fabs(x - y) > maxdiff ? fabs(x - y) : maxdiff;
                }
            }
        double rel = fabs(ssum - checksum) / (fabs(ssum) > 0 ? fabs(ssum) : 1.0);
        printf("serial check: the same %d iterations on one rank: %.3f s (parallel "
               "speed-up %.2fx), checksum %.12e (relative difference %.1e), residual "
               "%.6e, %zu of %zu points differ\n", it, t_ser, t_ser / t_par, ssum, rel,
               sres, differ, w * w);
        if (differ == 0 && sres == residual && rel < 1e-9) {
            printf("check: ok\n");
        } else {
            printf("check: FAILED (largest difference %.3e)\n", maxdiff);
            status = 1;
        }
        free(ref);
        free(plate);
        free(tmp);
    }
    free(mine);
    free(b.u);
    free(b.v);
    free(h.send_w);
    free(h.send_e);
    free(h.recv_w);
    free(h.recv_e);
    MPI_Finalize();
    return status;
}
