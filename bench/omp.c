/*
 * omp.c — EPCC-style OpenMP overheads: the cost of a construct around a
 * small delay minus the delay itself, in µs per construct. The same source
 * builds with plain `gcc -fopenmp` (libgomp) and, with -DMYR_BENCH_MPI,
 * as a Myriad MPI program whose every rank runs it at once (rank 0
 * prints): scripts/bench-omp (make bench-omp) prints both side by side.
 *
 *   omp_bench [--quick] [--label NAME]
 */
#ifdef MYR_BENCH_MPI
#include <mpi.h>
#endif
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reps = 2000;
static volatile double sink;

static void delay(int n)
{
    double a = 0;
    for (int i = 0; i < n; i++)
        a += i * 0.5;
    if (a < 0)
        sink = a;
}

#define DELAY 50

static double per_rep(double t0, double t1, int n) { return (t1 - t0) * 1e6 / n; }

/* Time of `reps` delays, the reference subtracted from every figure. */
static double reference(void)
{
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++)
        delay(DELAY);
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_parallel(void)
{
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++) {
        #pragma omp parallel
        delay(DELAY);
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_barrier(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    for (int r = 0; r < reps; r++) {
        delay(DELAY);
        #pragma omp barrier
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_for(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    for (int r = 0; r < reps; r++) {
        int n = omp_get_num_threads();
        #pragma omp for schedule(dynamic)
        for (int j = 0; j < n; j++)
            delay(DELAY);
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_single(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    for (int r = 0; r < reps; r++) {
        #pragma omp single
        delay(DELAY);
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_critical(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    {
        int n = omp_get_num_threads();
        for (int r = 0; r < reps / n; r++) {
            #pragma omp critical
            delay(DELAY);
        }
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_reduction(void)
{
    double t0 = omp_get_wtime();
    long x = 0;
    for (int r = 0; r < reps; r++) {
        #pragma omp parallel reduction(+:x)
        {
            delay(DELAY);
            x++;
        }
    }
    sink = (double)x;
    return per_rep(t0, omp_get_wtime(), reps);
}

static double bench_task(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    #pragma omp single
    {
        for (int r = 0; r < reps; r++) {
            #pragma omp task
            delay(DELAY);
        }
        #pragma omp taskwait
    }
    return per_rep(t0, omp_get_wtime(), reps);
}

/* BOLT's headline case: parallel regions inside parallel regions. */
static double bench_nested(void)
{
    int saved = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    int n = reps / 10 > 0 ? reps / 10 : 1;
    double t0 = omp_get_wtime();
    #pragma omp parallel num_threads(2)
    for (int r = 0; r < n; r++) {
        #pragma omp parallel num_threads(2)
        delay(DELAY);
    }
    omp_set_max_active_levels(saved);
    return per_rep(t0, omp_get_wtime(), n);
}

int main(int argc, char **argv)
{
    const char *label = "";
    int rank = 0, nranks = 1;
#ifdef MYR_BENCH_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#endif
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            reps = 20;
        else if (!strcmp(argv[i], "--label") && i + 1 < argc)
            label = argv[++i];
    }
    int team = 0;
    #pragma omp parallel
    #pragma omp master
    team = omp_get_num_threads();
    double ref = reference();
    static const struct { const char *name; double (*fn)(void); } tests[] = {
        { "parallel", bench_parallel }, { "barrier", bench_barrier },
        { "for(dynamic)", bench_for }, { "single", bench_single },
        { "critical", bench_critical }, { "reduction", bench_reduction },
        { "task", bench_task }, { "nested 2x2 parallel", bench_nested },
    };
    double fig[8];
    for (int i = 0; i < 8; i++) {
        tests[i].fn();  /* warm-up */
        fig[i] = tests[i].fn() - ref;
    }
#ifdef MYR_BENCH_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (rank == 0) {
        printf("# %s: %d rank(s) x %d thread(s), %d reps, delay %.3f us\n",
               label, nranks, team, reps, ref);
        for (int i = 0; i < 8; i++)
            printf("%-22s %10.3f us\n", tests[i].name, fig[i]);
    }
#ifdef MYR_BENCH_MPI
    MPI_Finalize();
#endif
    return 0;
}
