/* deque.c — ring allocation and growth for the ready deque (see deque.h). */
#include "deque.h"

#include <stdlib.h>

static myr_deque_ring *ring_new(int64_t capacity)
{
    myr_deque_ring *r = malloc(sizeof *r + (size_t)capacity * sizeof r->slot[0]);
    if (!r)
        return NULL;
    r->mask = capacity - 1;
    r->retired = NULL;
    return r;
}

int myr_deque_init(myr_deque *d, int64_t capacity)
{
    int64_t cap = 16;
    while (cap < capacity)
        cap <<= 1;
    myr_deque_ring *r = ring_new(cap);
    if (!r)
        return -1;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    atomic_init(&d->ring, r);
    return 0;
}

void myr_deque_destroy(myr_deque *d)
{
    myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    while (r) {
        myr_deque_ring *older = r->retired;
        free(r);
        r = older;
    }
    atomic_store_explicit(&d->ring, NULL, memory_order_relaxed);
}

int myr_deque_grow_and_push(myr_deque *d, void *item)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    myr_deque_ring *old = atomic_load_explicit(&d->ring, memory_order_relaxed);
    if (b - t > old->mask) {
        myr_deque_ring *r = ring_new(2 * (old->mask + 1));
        if (!r)
            return -1;
        for (int64_t i = t; i < b; i++)
            atomic_store_explicit(&r->slot[i & r->mask],
                                  atomic_load_explicit(&old->slot[i & old->mask],
                                                       memory_order_relaxed),
                                  memory_order_relaxed);
        r->retired = old;
        atomic_store_explicit(&d->ring, r, memory_order_release);
        old = r;
    }
    atomic_store_explicit(&old->slot[b & old->mask], item, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    return 0;
}
