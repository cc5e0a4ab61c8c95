/* dgemm_pair.c — the two cores' limit for the LU (scripts/bench-lu): two
 * kernel threads, each running single-threaded OpenBLAS dgemm on its own
 * N x N matrices at the same time. Prints the pair's Gflop/s (best of
 * `reps` rounds). With a third argument `threads`, instead one dgemm of
 * N x N on two OpenBLAS threads (the matrix multiply's limit,
 * scripts/bench-mm): the same work split the library's own way.
 * Usage: dgemm_pair [N] [reps] [threads] */
#include <cblas.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void openblas_set_num_threads(int num_threads);

static int n = 2000;
static pthread_barrier_t start;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *one(void *arg)
{
    double *m = malloc(3 * (size_t)n * n * sizeof *m);
    if (!m)
        abort();
    for (size_t i = 0; i < 3 * (size_t)n * n; i++)
        m[i] = (double)(i % 97) / 97.0;
    double *a = m, *b = m + (size_t)n * n, *c = b + (size_t)n * n;
    pthread_barrier_wait(&start);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    *(double *)arg = c[0];
    free(m);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (argc > 3 && !strcmp(argv[3], "threads")) {
        openblas_set_num_threads(2);
        double *m = malloc(3 * (size_t)n * n * sizeof *m), best = 0;
        if (!m)
            abort();
        for (size_t i = 0; i < 3 * (size_t)n * n; i++)
            m[i] = (double)(i % 97) / 97.0;
        double *a = m, *b = m + (size_t)n * n, *c = b + (size_t)n * n;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0,
                        c, n);
            double t = now() - t0, g = 2.0 * n * (double)n * n / t / 1e9;
            best = g > best ? g : best;
        }
        printf("dgemm_threads: N=%d %.2f Gflop/s (one dgemm on two OpenBLAS threads)\n", n, best);
        int status = c[0] != c[0];
        free(m);
        return status;
    }
    openblas_set_num_threads(1);
    double best = 0, sink[2];
    for (int r = 0; r < reps; r++) {
        pthread_t t[2];
        pthread_barrier_init(&start, NULL, 3);
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, one, &sink[i]);
        pthread_barrier_wait(&start);
        double t0 = now();
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        double g = 2 * 2.0 * n * (double)n * n / (now() - t0) / 1e9;
        best = g > best ? g : best;
        pthread_barrier_destroy(&start);
    }
    printf("dgemm_pair: N=%d %.2f Gflop/s (two single-threaded dgemm at once)\n", n, best);
    return sink[0] != sink[0];
}
