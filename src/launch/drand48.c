/*
 * drand48.c — the drand48 family per rank.
 *
 * drand48, lrand48 and mrand48 step one process-wide 48-bit state, which
 * srand48, seed48 and lcong48 set; erand48, nrand48 and jrand48 step the
 * caller's state but take the multiplier and addend that lcong48 set. Ranks
 * are threads of one process, so they would step each other's sequence (a
 * Monte Carlo rank seeded with its rank number would not draw the numbers
 * it draws in a process of its own). Called by a rank, these step the
 * rank's own state with glibc's reentrant functions (the same sequence for
 * a seed; an unseeded rank starts as a fresh process does); anywhere else
 * they are libc's. No lock, as in glibc: the kernel threads acting for one
 * rank share its state as a process's threads share it.
 */
#include <stdlib.h>

#include "launch/privatize.h"

/* The calling rank's state, or NULL outside a rank. */
static struct drand48_data *rank_state(void)
{
    myr_rank_image *ri = myr_privatize_current();
    return ri ? &ri->drand48 : NULL;
}

double drand48(void)
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(double (*)(void), "drand48")();
    double v;
    drand48_r(d, &v);
    return v;
}

double erand48(unsigned short xsubi[3])
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(double (*)(unsigned short *), "erand48")(xsubi);
    double v;
    erand48_r(xsubi, d, &v);
    return v;
}

long lrand48(void)
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(long (*)(void), "lrand48")();
    long v;
    lrand48_r(d, &v);
    return v;
}

long nrand48(unsigned short xsubi[3])
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(long (*)(unsigned short *), "nrand48")(xsubi);
    long v;
    nrand48_r(xsubi, d, &v);
    return v;
}

long mrand48(void)
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(long (*)(void), "mrand48")();
    long v;
    mrand48_r(d, &v);
    return v;
}

long jrand48(unsigned short xsubi[3])
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(long (*)(unsigned short *), "jrand48")(xsubi);
    long v;
    jrand48_r(xsubi, d, &v);
    return v;
}

void srand48(long seed)
{
    struct drand48_data *d = rank_state();
    if (!d) {
        MYR_LIBC_NEXT(void (*)(long), "srand48")(seed);
        return;
    }
    srand48_r(seed, d);
}

/* Returns the previous state, kept in the rank's data as glibc keeps it
 * in its own. */
unsigned short *seed48(unsigned short seed16v[3])
{
    struct drand48_data *d = rank_state();
    if (!d)
        return MYR_LIBC_NEXT(unsigned short *(*)(unsigned short *), "seed48")(seed16v);
    seed48_r(seed16v, d);
    return d->__old_x;
}

void lcong48(unsigned short param[7])
{
    struct drand48_data *d = rank_state();
    if (!d) {
        MYR_LIBC_NEXT(void (*)(unsigned short *), "lcong48")(param);
        return;
    }
    lcong48_r(param, d);
}
