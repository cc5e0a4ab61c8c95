/*
 * omp_stencil.c — a hybrid MPI+OpenMP Jacobi sweep: a G x G grid split in
 * row blocks over the ranks, halo rows exchanged with MPI_Sendrecv, each
 * rank's sweep an `omp parallel for` with the default team. The same
 * portable source runs under Myriad (mpicc -fopenmp: threads are ULTs,
 * default team = workers / ranks) and under Open MPI with libgomp;
 * scripts/bench-omp prints ms per iteration for N = 2, 16, 256 ranks.
 *
 *   omp_stencil [-g G] [-i ITERS]   (ITERS timed, after 2 untimed)
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_UP 2

int main(int argc, char **argv)
{
    int g = 1024, iters = 50;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-g"))
            g = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-i"))
            iters = atoi(argv[i + 1]);
    }
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int rows = g / n + (rank < g % n);
    /* rows + 2 halo rows, g columns */
    double *a = calloc((size_t)(rows + 2) * g, sizeof *a);
    double *b = calloc((size_t)(rows + 2) * g, sizeof *b);
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        for (int j = 0; j < g; j++)
            a[j] = b[j] = 1.0;  /* a hot top edge */
    double t0 = 0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < n - 1 ? rank + 1 : MPI_PROC_NULL;
    /* Two untimed iterations first: they touch every page of a and b
     * (calloc's memory is faulted in on first use, and page faults are
     * not what this measures) and start the runtimes' threads. */
    for (int it = 0; it < iters + WARM_UP; it++) {
        if (it == WARM_UP) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        MPI_Sendrecv(a + g, g, MPI_DOUBLE, up, 0, a + (size_t)(rows + 1) * g, g,
                     MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + (size_t)rows * g, g, MPI_DOUBLE, down, 1, a, g,
                     MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        #pragma omp parallel for schedule(static)
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j < g - 1; j++)
                b[(size_t)i * g + j] = 0.25 * (a[(size_t)(i - 1) * g + j] +
                    a[(size_t)(i + 1) * g + j] + a[(size_t)i * g + j - 1] +
                    a[(size_t)i * g + j + 1]);
        double *t = a;
        a = b;
        b = t;
        if (rank == 0)
            for (int j = 0; j < g; j++)
                a[j] = 1.0;
    }
    double dt = MPI_Wtime() - t0, max;
    MPI_Reduce(&dt, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double local = 0, sum;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < g; j++)
            local += a[(size_t)i * g + j];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int team = 0;
    #pragma omp parallel
    #pragma omp master
    team = omp_get_num_threads();
    if (rank == 0)
        printf("ranks %d threads/rank %d grid %d iters %d: %.3f ms/iter "
               "(checksum %.6e)\n", n, team, g, iters, max * 1e3 / iters, sum);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
