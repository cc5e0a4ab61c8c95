/*
 * heat_bound.c — the main job's blocks with no runtime at all: the bound
 * beside which scripts/bench-demo prints Myriad's times (issue 19).
 *
 * examples/heat.c on N ranks does, per rank and iteration, work of its
 * own besides MPI's: it unpacks the two columns its west and east
 * neighbours sent, sweeps its block, and packs its two edge columns for
 * the next exchange; and each of its four halos is copied once from the
 * sender's memory into the receiver's (what a single-copy MPI does for a
 * receive that is already posted). This program does exactly that on the
 * same blocks (heat_kernel.h: the same cut, layout, allocation order and
 * sweep), on T threads that each own consecutive blocks, as Myriad's
 * workers own consecutive ranks, a block waiting only for its
 * neighbours' previous iteration (and every thread for the others at the
 * residual checks, heat's MPI_Allreduce), and nothing else: no requests,
 * no matching, no switches. Its time is meant as what the N-rank run
 * would take on T cores if MPI cost nothing; its time at N blocks against
 * its time at 2 is what over-decomposing costs the program itself
 * (smaller sweeps, more rows, more halo per point), which no runtime can
 * remove. It is no proof of a bound: on this virtual machine Myriad's
 * heat at 16 to 256 ranks ran 10-20 % faster than it, with the same
 * instructions and simulated cache misses per point and the same sweep
 * machine code (bench/README.md).
 *
 *   heat_bound -b BLOCKS [-T THREADS] [-n SIDE] [-i MAX_ITERATIONS]
 *              [-k CHECK_EVERY] [-t TOLERANCE]
 *
 * heat's defaults and stopping rule; prints `time: S s` (the iterations
 * and the checksum, as heat's time) and `checksum: X`, which is heat's
 * checksum for the same options: every point gets the same operations in
 * the same order (the test bench.heat_bound_checksum compares them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* pthread_setaffinity_np, CPU_SET */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heat_kernel.h"

typedef struct options {
    params p;                    /* heat's own */
    int blocks, threads;
} options;

/* One block and what heat's rank keeps for its exchange; the packed
 * columns are kept for two iterations (parity), since a neighbour later
 * in the same iteration reads the ones packed for this iteration while
 * this block has already packed its next. */
typedef struct piece {
    block b;
    double *arr[2];              /* u and v: arr[it & 1] is the current iterate */
    double *send_w[2], *send_e[2];
    double *recv_w, *recv_e;
    int n, s, w, e;              /* neighbours' block numbers, -1 at the plate's edges */
    int done;                    /* iterations it has finished (atomic) */
} piece;

/* The threads' barrier at the residual checks (as heat's MPI_Allreduce):
 * a count and a generation, spun on, yielding the CPU after a while in
 * case threads outnumber CPUs. */
typedef struct spin_barrier {
    int count, threads;
    unsigned gen;
} spin_barrier;

static void spin_wait(spin_barrier *sb)
{
    unsigned gen = __atomic_load_n(&sb->gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&sb->count, 1, __ATOMIC_ACQ_REL) == sb->threads) {
        __atomic_store_n(&sb->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&sb->gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    for (unsigned spins = 0; __atomic_load_n(&sb->gen, __ATOMIC_ACQUIRE) == gen; spins++)
        if (spins >= 1000)
            sched_yield();
}

typedef struct job {
    options o;
    int px, py;
    piece *pieces;
    pthread_barrier_t start;     /* the threads and the main thread */
    spin_barrier step;           /* the threads, at the residual checks */
    double *residual;            /* per thread, at check iterations */
    int iters;                   /* iterations done (written by thread 0) */
    int failed;                  /* out of memory in some thread */
} job;

typedef struct worker {
    job *j;
    int id, first, last;         /* blocks [first, last) */
    int cpu;                     /* to pin to, or -1 */
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The two edge columns of the current iterate a, packed as heat packs
 * them before its sends. */
static void pack(piece *p, const double *a, int parity)
{
    const block *b = &p->b;
    for (int i = 0; i < b->rows; i++) {
        p->send_w[parity][i] = AT(b, a, i + 1, 1);
        p->send_e[parity][i] = AT(b, a, i + 1, b->cols);
    }
}

/* What heat's exchange leaves in block p's current iterate: the halo rows
 * copied from the neighbours' edge rows, the columns copied from their
 * packed buffers into p's, then unpacked. One copy per message. `cur`:
 * which of the two arrays holds this iteration's values. */
static void receive(job *j, piece *p, int cur)
{
    const block *b = &p->b;
    double *u = p->arr[cur];
    size_t row = (size_t)b->cols * sizeof(double);
    if (p->n >= 0) {
        piece *q = &j->pieces[p->n];
        memcpy(&AT(b, u, 0, 1), &AT(&q->b, q->arr[cur], q->b.rows, 1), row);
    }
    if (p->s >= 0) {
        piece *q = &j->pieces[p->s];
        memcpy(&AT(b, u, b->rows + 1, 1), &AT(&q->b, q->arr[cur], 1, 1), row);
    }
    size_t col = (size_t)b->rows * sizeof(double);
    if (p->w >= 0) {
        memcpy(p->recv_w, j->pieces[p->w].send_e[cur], col);
        for (int i = 0; i < b->rows; i++)
            AT(b, u, i + 1, 0) = p->recv_w[i];
    }
    if (p->e >= 0) {
        memcpy(p->recv_e, j->pieces[p->e].send_w[cur], col);
        for (int i = 0; i < b->rows; i++)
            AT(b, u, i + 1, b->cols + 1) = p->recv_e[i];
    }
}

/* Block k's arrays, allocated by its own thread in heat's order (u, v,
 * then the halo buffers), and initialised as heat initialises them. */
static int setup(job *j, int k)
{
    piece *p = &j->pieces[k];
    int py = j->py, bi = k / py, bj = k % py;
    p->b = block_of(j->o.p.n, j->px, py, k);
    size_t pts = (size_t)(p->b.rows + 2) * (size_t)(p->b.cols + 2);
    size_t col = (size_t)p->b.rows * sizeof(double);
    p->arr[0] = malloc(pts * sizeof(double));
    p->arr[1] = malloc(pts * sizeof(double));
    p->send_w[0] = malloc(col);
    p->send_e[0] = malloc(col);
    p->recv_w = malloc(col);
    p->recv_e = malloc(col);
    p->send_w[1] = malloc(col);
    p->send_e[1] = malloc(col);
    if (!p->arr[0] || !p->arr[1] || !p->send_w[0] || !p->send_e[0] || !p->recv_w ||
        !p->recv_e || !p->send_w[1] || !p->send_e[1])
        return -1;
    for (int a = 0; a < 2; a++)
        init_array(p->arr[a], j->o.p.n, p->b.row0, p->b.col0, p->b.rows, p->b.cols);
    p->n = bi > 0 ? k - py : -1;
    p->s = bi < j->px - 1 ? k + py : -1;
    p->w = bj > 0 ? k - 1 : -1;
    p->e = bj < py - 1 ? k + 1 : -1;
    pack(p, p->arr[0], 0);
    return 0;
}

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);   /* best effort */
}

/* Until neighbour `q` (or none) has finished `iters` iterations: its
 * arrays then hold what p reads next, and it has read what p overwrites.
 * Only a neighbour of another thread can be behind. */
static void await_neighbour(job *j, int q, int iters)
{
    if (q < 0)
        return;
    for (unsigned spins = 0; __atomic_load_n(&j->pieces[q].done, __ATOMIC_ACQUIRE) < iters;
         spins++)
        if (spins >= 1000)
            sched_yield();
}

/* heat's loop, for this thread's blocks: the same iterations, checks and
 * stopping rule (the residual's maximum over every block, agreed at a
 * barrier of the threads as heat's MPI_Allreduce agrees it). Between
 * checks, as in heat, a block waits only for its neighbours' previous
 * iteration: a thread may run ahead of the other as a worker may. */
static void *run(void *arg)
{
    worker *me = arg;
    job *j = me->j;
    pin(me->cpu);
    for (int k = me->first; k < me->last; k++)
        if (setup(j, k) != 0)
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    pthread_barrier_wait(&j->start);   /* every block exists */
    pthread_barrier_wait(&j->start);   /* the clock started */
    if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED))
        return NULL;
    int it = 0;
    while (it < j->o.p.max_iters) {
        int cur = it & 1;   /* iteration it + 1 reads arr[cur], writes the other */
        it++;
        int check = it % j->o.p.check_every == 0 || it == j->o.p.max_iters;
        double res = 0.0;
        for (int k = me->first; k < me->last; k++) {
            piece *p = &j->pieces[k];
            await_neighbour(j, p->n, it - 1);
            await_neighbour(j, p->s, it - 1);
            await_neighbour(j, p->w, it - 1);
            await_neighbour(j, p->e, it - 1);
            receive(j, p, cur);
            double r = sweep(p->arr[cur], p->arr[cur ^ 1], j->o.p.n, p->b.row0, p->b.col0,
                             p->b.rows, p->b.cols, check);
            res = r > res ? r : res;
            pack(p, p->arr[cur ^ 1], cur ^ 1);
            __atomic_store_n(&p->done, it, __ATOMIC_RELEASE);
        }
        if (check) {
            j->residual[me->id] = res;
            spin_wait(&j->step);   /* every block's iteration is done */
            double all = 0.0;
            for (int t = 0; t < j->o.threads; t++)
                all = j->residual[t] > all ? j->residual[t] : all;
            spin_wait(&j->step);   /* all read before the next check's writes */
            if (all < j->o.p.tol)
                break;
        }
    }
    if (me->id == 0)
        j->iters = it;
    return NULL;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.p = params_default(), .blocks = 0, .threads = 2};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return -1;
        const char *opt = argv[i], *val = argv[i + 1];
        int *mine = strcmp(opt, "-b") == 0 ? &o->blocks : strcmp(opt, "-T") == 0 ? &o->threads : NULL;
        if (mine) {
            char *end;
            *mine = (int)strtol(val, &end, 10);
            if (*end != '\0')
                return -1;
        } else if (params_option(opt, val, &o->p) != 1) {
            return -1;
        }
    }
    return params_ok(&o->p) && o->blocks >= 1 && o->threads >= 1 && o->threads <= o->blocks
               ? 0
               : -1;
}

/* The i-th CPU of this process's affinity mask, or -1. */
static int nth_cpu(int i)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && i-- == 0)
            return c;
    return -1;
}

int main(int argc, char **argv)
{
    job j = {0};
    if (parse(argc, argv, &j.o) != 0) {
        fprintf(stderr, "usage: heat_bound -b BLOCKS [-T THREADS] [-n SIDE] "
                        "[-i MAX_ITERATIONS] [-k CHECK_EVERY] [-t TOLERANCE]\n"
                        "  (THREADS <= BLOCKS)\n");
        return 2;
    }
    grid_dims(j.o.blocks, &j.px, &j.py);
    if (j.o.p.n < j.py) {
        fprintf(stderr, "heat_bound: a %d x %d plate cannot be cut into %d x %d blocks\n",
                j.o.p.n, j.o.p.n, j.px, j.py);
        return 2;
    }
    int threads = j.o.threads;
    j.step.threads = threads;
    j.pieces = calloc((size_t)j.o.blocks, sizeof *j.pieces);
    j.residual = calloc((size_t)threads, sizeof *j.residual);
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!j.pieces || !j.residual || !w || !tid ||
        pthread_barrier_init(&j.start, NULL, (unsigned)threads + 1) != 0) {
        fprintf(stderr, "heat_bound: out of memory\n");
        return 1;
    }
    /* The main thread only starts and stops the clock; thread t is pinned
     * to the t-th CPU, as Myriad's workers are. */
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.j = &j, .id = t,
                        .first = (int)((long)t * j.o.blocks / threads),
                        .last = (int)((long)(t + 1) * j.o.blocks / threads),
                        .cpu = nth_cpu(t)};
        if (pthread_create(&tid[t], NULL, run, &w[t]) != 0) {
            fprintf(stderr, "heat_bound: cannot start thread %d\n", t);
            return 1;
        }
    }
    pthread_barrier_wait(&j.start);   /* every block exists */
    double t0 = now();
    pthread_barrier_wait(&j.start);   /* go */
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    if (j.failed) {
        fprintf(stderr, "heat_bound: out of memory for the blocks\n");
        return 1;
    }
    /* heat's checksum: each block's sum, then their sum in rank order. */
    double checksum = 0.0;
    for (int k = 0; k < j.o.blocks; k++) {
        piece *p = &j.pieces[k];
        const double *u = p->arr[j.iters & 1];
        double s = 0.0;
        for (int i = 1; i <= p->b.rows; i++)
            for (int c = 1; c <= p->b.cols; c++)
                s += AT(&p->b, u, i, c);
        checksum += s;
    }
    double t = now() - t0;
    printf("heat_bound: %d x %d plate, %d blocks as %d x %d, %d thread%s\n", j.o.p.n, j.o.p.n,
           j.o.blocks, j.px, j.py, threads, threads == 1 ? "" : "s");
    printf("iterations: %d\n", j.iters);
    printf("checksum: %.12e (sum over the plate)\n", checksum);
    printf("time: %.3f s, %.1f M point-updates/s\n", t,
           (double)j.o.p.n * j.o.p.n * j.iters / t * 1e-6);
    for (int k = 0; k < j.o.blocks; k++) {
        piece *p = &j.pieces[k];
        for (int a = 0; a < 2; a++) {
            free(p->arr[a]);
            free(p->send_w[a]);
            free(p->send_e[a]);
        }
        free(p->recv_w);
        free(p->recv_e);
    }
    pthread_barrier_destroy(&j.start);
    free(j.pieces);
    free(j.residual);
    free(w);
    free(tid);
    return 0;
}
