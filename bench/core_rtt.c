/*
 * core_rtt — the machine's state, for the benchmark scripts' headers: the
 * round trip of one cache line between two CPUs (two threads pinned to
 * them hand a counter back and forth), in ns.
 *
 * Every synchronizing figure of bench/ (a barrier, a wake-up on another
 * worker, a ping-pong between processes) is a few of these round trips.
 * On the virtual machine this project is measured on, it is ~80 ns in some
 * hours and ~400 ns in others (the host places the two vCPUs on cores that
 * share a cache, or not), which moves a barrier of 4 ranks from 0.2 to
 * 0.75 us with nothing else changed. The scripts print it before and after
 * their runs so that a table says which machine it was measured on.
 *
 * Usage: core_rtt [--cpus A,B] [--trips N] [--quick]
 * Prints "core_rtt A B NS" (the median of 5 batches of N round trips);
 * exits with 77 when it cannot run on both CPUs (a machine of one CPU).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Alignas(64) _Atomic long ball;   /* odd: the first CPU's serve; even: returned */
static _Atomic int ready;   /* the returner: 1 pinned, -1 could not pin */
static long trips;
static int cpu_b;

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *returner(void *arg)
{
    (void)arg;
    if (pin(cpu_b) != 0) {
        atomic_store(&ready, -1);
        return NULL;
    }
    atomic_store(&ready, 1);
    for (long i = 0; i < 5 * trips; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int cpu_a = 0;
    cpu_b = 1;
    trips = 200000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc &&
            sscanf(argv[i + 1], "%d,%d", &cpu_a, &cpu_b) == 2) {
            i++;
        } else if (strcmp(argv[i], "--trips") == 0 && i + 1 < argc && atol(argv[i + 1]) > 0) {
            trips = atol(argv[++i]);
        } else if (strcmp(argv[i], "--quick") == 0) {
            trips = 1000;
        } else {
            fprintf(stderr, "usage: core_rtt [--cpus A,B] [--trips N] [--quick]\n");
            return 2;
        }
    }
    if (cpu_a == cpu_b || pin(cpu_a) != 0) {
        fprintf(stderr, "core_rtt: cannot run on CPUs %d and %d\n", cpu_a, cpu_b);
        return 77;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, returner, NULL) != 0) {
        fprintf(stderr, "core_rtt: no second thread\n");
        return 1;
    }
    while (atomic_load(&ready) == 0)
        sched_yield();
    if (atomic_load(&ready) < 0) {
        pthread_join(t, NULL);
        fprintf(stderr, "core_rtt: cannot run on CPU %d\n", cpu_b);
        return 77;   /* a machine of one CPU: nothing to measure */
    }
    double batch[5];
    long i = 0;
    for (int b = 0; b < 5; b++) {
        double start = now_ns();
        for (long end = i + trips; i < end; i++) {
            atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
                ;
        }
        batch[b] = (now_ns() - start) / (double)trips;
    }
    pthread_join(t, NULL);
    qsort(batch, 5, sizeof batch[0], cmp_double);
    printf("core_rtt %d %d %.0f\n", cpu_a, cpu_b, batch[2]);
    return 0;
}
