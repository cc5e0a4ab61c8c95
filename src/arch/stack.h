/*
 * stack.h — ULT stacks: one mmap each, a PROT_NONE guard page below the
 * usable area, and the stack's own descriptor in its top bytes (no malloc).
 *
 *   map                lo                                   desc
 *   | guard (no access) | usable: grows down from here <--- | myr_stack |
 *
 * Pages are reserved, not committed: a ULT that touches 8 KiB of a 1 MiB
 * stack costs 8 KiB of RAM. Each stack is two kernel mappings (the guard
 * splits it), which is what bounds live stacks by vm.max_map_count / 2.
 *
 * A myr_stack_pool is a LIFO cache owned by one worker (no synchronisation):
 * a freed stack is reused while its pages are still warm. Pools trade
 * stacks in batches with one shared myr_stack_depot (a mutex, taken once per
 * batch), so a worker that frees many stacks another worker allocates does
 * not unmap and re-map them: mmap/munmap cost tens of microseconds each and
 * munmap shoots down TLBs on every core. Stacks are unmapped only when the
 * depot is drained (at finalize), so the resident memory of a run is that of
 * its peak number of live ULTs.
 */
#ifndef MYR_ARCH_STACK_H
#define MYR_ARCH_STACK_H

#include <pthread.h>
#include <stddef.h>

typedef struct myr_stack {
    void *lo;                /* lowest usable byte (just above the guard) */
    size_t size;             /* bytes from lo to the end of the mapping;
                                this descriptor takes the top 64 of them */
    size_t guard;            /* guard bytes below lo */
    struct myr_stack *next;  /* pool link */
} myr_stack;

size_t myr_page_size(void);

/* Where the stack starts (it grows down from here): just below this
 * descriptor, 64-byte aligned. */
static inline void *myr_stack_top(const myr_stack *s)
{
    return (void *)s;
}

/* Round a requested stack size to what myr_stack_create will give. */
size_t myr_stack_round(size_t usable);

/* NULL with errno set (ENOMEM when out of memory or mappings). */
myr_stack *myr_stack_create(size_t usable);
void myr_stack_destroy(myr_stack *s);

typedef struct myr_stack_depot {
    pthread_mutex_t lock;
    myr_stack *head;
    size_t count;
} myr_stack_depot;

void myr_stack_depot_init(myr_stack_depot *d);
/* Unmap every stack in the depot. */
void myr_stack_depot_drain(myr_stack_depot *d);

typedef struct myr_stack_pool {
    myr_stack *head;
    unsigned count;
    unsigned max;      /* beyond this, half the pool goes to the depot */
    size_t size;       /* usable size of the stacks this pool hands out */
    myr_stack_depot *depot;  /* may be NULL: then excess stacks are unmapped */
} myr_stack_pool;

void myr_stack_pool_init(myr_stack_pool *p, size_t usable, unsigned max,
                         myr_stack_depot *depot);
myr_stack *myr_stack_pool_get(myr_stack_pool *p);
void myr_stack_pool_put(myr_stack_pool *p, myr_stack *s);
/* Hand every stack of the pool to its depot (or unmap it without one). */
void myr_stack_pool_drain(myr_stack_pool *p);

/* Is `addr` inside the guard region of `s`? */
static inline int myr_stack_in_guard(const myr_stack *s, const void *addr)
{
    const char *a = (const char *)addr, *lo = (const char *)s->lo;
    return a < lo && a >= lo - s->guard;
}

#endif
