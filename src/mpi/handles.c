/*
 * handles.c — MPI_X_c2f and MPI_X_f2c (MPI 3.1, 17.2.4): every C handle as
 * a Fortran INTEGER and back. Myriad's C handles are pointers, so the
 * integers come from one table for the OS process: a handle gets the next
 * index the first time it is converted and keeps it (a handle value the
 * library reuses for a new object converts to the same integer, which is
 * what the standard asks of a live handle). 0 is the null handle of every
 * kind; a value that was never given converts to the null handle.
 *
 * There are no Fortran bindings yet; C programs and tools that keep handles
 * as integers (MPICH's tests among them) use these.
 */
#include "mpi/mpi_impl.h"

#include <stdint.h>
#include <stdlib.h>

static myr_spinlock lock;
static void **by_index;      /* [n]: the handle of integer i + 1 */
static int n, cap;
/* Open addressing, pointer -> index + 1 (0: empty); size a power of two
 * kept above twice n. */
static struct slot {
    void *handle;
    int index;
} *slots;
static size_t nslots;

static size_t hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static struct slot *lookup(void *h)
{
    for (size_t i = hash(h) & (nslots - 1);; i = (i + 1) & (nslots - 1))
        if (slots[i].handle == h || slots[i].handle == NULL)
            return &slots[i];
}

static bool grow(void)
{
    size_t want = nslots ? 2 * nslots : 64;
    struct slot *fresh = calloc(want, sizeof *fresh);
    if (!fresh)
        return false;
    struct slot *old = slots;
    size_t old_n = nslots;
    slots = fresh;
    nslots = want;
    for (size_t i = 0; i < old_n; i++)
        if (old[i].handle)
            *lookup(old[i].handle) = old[i];
    free(old);
    return true;
}

static MPI_Fint c2f(void *h)
{
    if (!h)
        return 0;
    MPI_Fint f = 0;
    myr_spin_lock(&lock);
    if (2 * (size_t)(n + 1) >= nslots && !grow())
        goto out;
    struct slot *s = lookup(h);
    if (s->handle) {
        f = s->index;
        goto out;
    }
    if (n == cap) {
        int c = cap ? 2 * cap : 64;
        void **b = realloc(by_index, (size_t)c * sizeof *b);
        if (!b)
            goto out;
        by_index = b;
        cap = c;
    }
    by_index[n++] = h;
    *s = (struct slot){h, n};
    f = n;
out:
    myr_spin_unlock(&lock);
    return f;   /* 0 only when out of memory: the null handle */
}

static void *f2c(MPI_Fint f)
{
    void *h = NULL;
    myr_spin_lock(&lock);
    if (f > 0 && f <= n)
        h = by_index[f - 1];
    myr_spin_unlock(&lock);
    return h;
}

#define CONVERSIONS(Kind, Type)                                                    \
    MPI_Fint PMPI_##Kind##_c2f(Type h)                                             \
    {                                                                              \
        return c2f((void *)h);                                                     \
    }                                                                              \
    MPI_Fint MPI_##Kind##_c2f(Type h) MYR_PMPI(Kind##_c2f);                        \
    Type PMPI_##Kind##_f2c(MPI_Fint f)                                             \
    {                                                                              \
        return (Type)f2c(f);                                                       \
    }                                                                              \
    Type MPI_##Kind##_f2c(MPI_Fint f) MYR_PMPI(Kind##_f2c);

CONVERSIONS(Comm, MPI_Comm)
CONVERSIONS(Type, MPI_Datatype)
CONVERSIONS(Group, MPI_Group)
CONVERSIONS(Request, MPI_Request)
CONVERSIONS(Op, MPI_Op)
CONVERSIONS(Info, MPI_Info)
CONVERSIONS(Errhandler, MPI_Errhandler)
CONVERSIONS(Message, MPI_Message)
