/*
 * deque.h — a worker's ready queue: a growable work-stealing deque after
 * Chase and Lev ("Dynamic circular work-stealing deque", SPAA 2005), used
 * first-in first-out by everyone.
 *
 * Only the owner pushes, at the bottom, with plain stores and a release
 * store of `bottom`: no lock, no atomic read-modify-write. Everyone, owner
 * and thieves alike, takes from the top with one compare-and-swap on `top`.
 * Taking from the top on the owner side too makes the queue FIFO, which is
 * what fairness needs: a ULT that yields goes behind every ready ULT, and a
 * rank polling in a loop cannot starve the rank it waits for.
 *
 * `top` and `bottom` only grow. When the ring is full the owner copies the
 * live range into one twice as large and publishes it; the old ring is kept
 * (retired list) until the deque is destroyed, because a thief may still be
 * reading it. A thief that read a stale `top` or ring fails its CAS.
 */
#ifndef MYR_ULT_DEQUE_H
#define MYR_ULT_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/cpu.h"

/* Internal to libmyriad: hidden, called directly (no PLT). */
#pragma GCC visibility push(hidden)

typedef struct myr_deque_ring {
    int64_t mask;
    struct myr_deque_ring *retired;
    _Atomic(void *) slot[];
} myr_deque_ring;

typedef struct myr_deque {
    _Alignas(MYR_CACHE_LINE) _Atomic int64_t top;
    _Alignas(MYR_CACHE_LINE) _Atomic int64_t bottom;
    _Atomic(myr_deque_ring *) ring;
} myr_deque;

/* 0 on success, -1 when out of memory. */
int myr_deque_init(myr_deque *d, int64_t capacity);
void myr_deque_destroy(myr_deque *d);

/* Owner only. -1 when growing the ring failed (out of memory). */
static inline int myr_deque_push(myr_deque *d, void *item);
int myr_deque_grow_and_push(myr_deque *d, void *item);

/* Any thread. NULL when empty or when another taker won the race. */
static inline void *myr_deque_take(myr_deque *d);

/* Any thread; a hint only, it may be stale by the time it returns. */
static inline int64_t myr_deque_size_hint(myr_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - t;
}

static inline int myr_deque_push(myr_deque *d, void *item)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    if (__builtin_expect(b - t > r->mask, 0))
        return myr_deque_grow_and_push(d, item);
    atomic_store_explicit(&r->slot[b & r->mask], item, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    return 0;
}

static inline void *myr_deque_take(myr_deque *d)
{
    for (;;) {
        int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
        /* Acquire on bottom makes the slot and ring written before it
         * visible; bottom is read before the ring for the same reason. */
        int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
        if (t >= b)
            return NULL;
        myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_acquire);
        void *item = atomic_load_explicit(&r->slot[t & r->mask], memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
                                                    memory_order_seq_cst,
                                                    memory_order_relaxed))
            return item;
        /* Lost to another taker: the queue may still hold items. */
    }
}

/* Any thread: take the first item only if it is `item` (as a thief
 * takes: one compare-and-swap, so exactly one taker gets it). */
static inline bool myr_deque_take_if_first(myr_deque *d, void *item)
{
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (t >= b)
        return false;
    myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_acquire);
    if (atomic_load_explicit(&r->slot[t & r->mask], memory_order_relaxed) != item)
        return false;
    return atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                   memory_order_relaxed);
}

/* Owner only, and only when no other thread ever takes from this deque (a
 * runtime with a single worker has no thieves): myr_deque_take without the
 * compare-and-swap, the costliest instruction of a same-worker switch. */
static inline void *myr_deque_take_alone(myr_deque *d)
{
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (t >= b)
        return NULL;
    myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    void *item = atomic_load_explicit(&r->slot[t & r->mask], memory_order_relaxed);
    atomic_store_explicit(&d->top, t + 1, memory_order_release);
    return item;
}

#pragma GCC visibility pop

#endif
