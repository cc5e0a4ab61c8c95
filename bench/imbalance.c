/*
 * imbalance.c — an over-decomposed program whose ranks do unequal work
 * (issue 19, item 3). Every iteration each rank runs a compute kernel for
 * w units of work, then all ranks meet in an MPI_Allreduce (or, with
 * -c halo, exchange a few doubles with their ring neighbours). Patterns of
 * w for rank r at iteration it:
 *
 *   a   r mod 8 + 1
 *   b   10 for rank 0, 1 for the others
 *   c   1 + a hash of (seed, it, r) mod 8: changes every iteration; the same
 *       seed everywhere, so every rank knows the total
 *
 * The program has no load-balancing hint of any kind: whatever balance
 * there is comes from the MPI library (Myriad: idle workers taking ready
 * ranks).
 *
 * The work unit is calibrated in the same run: rank 0 times the kernel
 * alone while the others wait, then the unit is sized so that one
 * iteration's total work takes -t ms on one core. Perfect balance is the
 * total work / -C cores (default 2); the ratio printed is measured time /
 * perfect time.
 *
 * -V V runs V virtual ranks split statically over the P real ones: real
 * rank p runs the work of virtual ranks p V / P ... (p + 1) V / P - 1 in
 * sequence each iteration (the reference: Open MPI at -np 2 with the same
 * total work). Without -V, V = P.
 *
 * Bookkeeping: the kernel steps done, summed over all ranks, must equal the
 * total every rank computes from the pattern (`check: ok`).
 *
 * Usage: imbalance [-p a|b|c|all] [-i iters] [-t ms] [-c allreduce|halo]
 *                  [-V vranks] [-C cores] [-s seed]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Four dependent chains of multiply-adds: pure core time, no memory, so a
 * unit costs the same on any core and in any order. Opaque to the
 * optimiser (noipa): a pure function's calls would otherwise be merged or
 * moved across the clock reads. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#elif defined(__GNUC__)
__attribute__((noinline, optnone))
#endif
static double kernel(long steps, double x)
{
    double a = x, b = x + 1, c = x + 2, d = x + 3;
    for (long s = 0; s < steps; s++) {
        a = a * 0.9999999 + 1e-9;
        b = b * 0.9999998 + 2e-9;
        c = c * 0.9999997 + 3e-9;
        d = d * 0.9999996 + 4e-9;
    }
    return a + b + c + d;
}

static long weight(char pattern, uint64_t seed, int it, int v)
{
    switch (pattern) {
    case 'a': return v % 8 + 1;
    case 'b': return v == 0 ? 10 : 1;
    default: return 1 + (long)(mix(seed ^ mix((uint64_t)it << 32 ^ (uint64_t)v)) % 8);
    }
}

/* The kernels' results end here, so that the compiler keeps them. */
volatile double kept;

static double now(void)
{
    return MPI_Wtime();
}

/* The kernel's time per step on one core: rank 0 alone (the others wait
 * in the Bcast), best of five, so that a round disturbed by another
 * process does not shrink the work and flatter the ratio. */
static double calibrate(int rank)
{
    double best = 0;
    if (rank == 0) {
        long steps = 1 << 16;
        double t;
        while ((t = now(), kept = kernel(steps, 1), now() - t) < 0.02)
            steps *= 2;
        for (int r = 0; r < 5; r++) {
            t = now();
            kept = kernel(steps, 1);
            double ns = (now() - t) * 1e9 / (double)steps;
            best = r == 0 || ns < best ? ns : best;
        }
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}

int main(int argc, char **argv)
{
    const char *patterns = "abc", *comm = "allreduce";
    int iters = 25, vranks = 0, cores = 2;
    double ms = 40;
    uint64_t seed = 7;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            bad = 1;
        else if (!strcmp(o, "-p"))
            patterns = !strcmp(v, "all") ? "abc" : v;
        else if (!strcmp(o, "-i"))
            iters = atoi(v);
        else if (!strcmp(o, "-t"))
            ms = atof(v);
        else if (!strcmp(o, "-c"))
            comm = v;
        else if (!strcmp(o, "-V"))
            vranks = atoi(v);
        else if (!strcmp(o, "-C"))
            cores = atoi(v);
        else if (!strcmp(o, "-s"))
            seed = strtoull(v, NULL, 10);
        else
            bad = 1;
        i++;
    }
    if (!vranks)
        vranks = size;
    int halo = !strcmp(comm, "halo");
    bad |= iters < 1 || ms <= 0 || cores < 1 || vranks < size || (!halo && strcmp(comm, "allreduce"));
    for (const char *p = patterns; *p; p++)
        bad |= *p < 'a' || *p > 'c';
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: imbalance [-p a|b|c|all] [-i iters] [-t ms] [-c allreduce|halo]\n"
                            "                 [-V vranks >= ranks] [-C cores] [-s seed]\n");
        MPI_Finalize();
        return 2;
    }

    double ns_per_step = calibrate(rank), sink = 0;
    if (rank == 0)
        printf("imbalance: ranks=%d vranks=%d comm=%s iters=%d, %.3f ns per kernel step on one "
               "core, %.0f ms of one-core work per iteration\n",
               size, vranks, comm, iters, ns_per_step, ms);

    int v0 = (int)((long)rank * vranks / size), v1 = (int)((long)(rank + 1) * vranks / size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int ok = 1;
    for (const char *p = patterns; *p; p++) {
        /* Steps per weight unit: the iteration's total weight (pattern c:
         * its mean) makes -t ms on one core. */
        double mean = *p == 'a' ? 0 : *p == 'b' ? (vranks - 1 + 10.0) : vranks * 4.5;
        if (*p == 'a')
            for (int v = 0; v < vranks; v++)
                mean += weight('a', seed, 0, v);
        long unit = (long)(ms * 1e6 / ns_per_step / mean);
        if (unit < 1)
            unit = 1;
        long long expected = 0, done = 0;
        for (int it = 0; it < iters; it++)
            for (int v = 0; v < vranks; v++)
                expected += weight(*p, seed, it, v) * unit;

        double out[8] = {0}, in[8] = {0};
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (int it = 0; it < iters; it++) {
            double acc = 0;
            for (int v = v0; v < v1; v++) {
                long steps = weight(*p, seed, it, v) * unit;
                acc += kernel(steps, (double)v);
                done += steps;
            }
            if (halo) {
                out[0] = out[4] = acc;
                MPI_Sendrecv(out, 4, MPI_DOUBLE, right, 0, in, 4, MPI_DOUBLE, left, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Sendrecv(out + 4, 4, MPI_DOUBLE, left, 1, in + 4, 4, MPI_DOUBLE, right, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                sink += in[0] + in[4];
            } else {
                MPI_Allreduce(MPI_IN_PLACE, &acc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                sink += acc;
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t = now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        double perfect = (double)expected * ns_per_step * 1e-9 / cores;
        ok &= done == expected;
        if (rank == 0)
            printf("imbalance: pattern=%c ranks=%d vranks=%d time=%.4f s perfect=%.4f s ratio=%.3f "
                   "steps=%lld expected=%lld\n",
                   *p, size, vranks, t, perfect, t / perfect, done, expected);
    }
    /* Timed again after the runs: a much faster figure here says the first
     * was disturbed and every perfect time above too long. */
    double again = calibrate(rank);
    if (rank == 0) {
        printf("imbalance: %.3f ns per kernel step timed again after the runs%s\n", again,
               again < 0.95 * ns_per_step ? " (faster: the machine was busy, ratios flattered)" : "");
        printf("check: %s\n", ok ? "ok" : "FAILED");
    }
    kept = sink;
    MPI_Finalize();
    return !ok;
}
