/*
 * park.c — waiting on a 32-bit word without holding a worker.
 *
 * A parking lot as in futexes: waiters of a word queue in one of a few
 * hashed buckets. park(word, seen) queues the calling ULT only if the word
 * still holds `seen` (checked under the bucket lock), then suspends it;
 * a waker changes the word first, then unparks, so a waiter either sees the
 * change before queueing or is in the queue when the waker looks. A waiter
 * lives on its ULT's stack until `woken` is set: the waker reads the ULT
 * handle before setting it, and never touches the waiter after.
 *
 * myr_ult_suspend may return early (one stray resume is remembered), hence
 * the loop on `woken`.
 *
 * A waker whose bucket has no waiter leaves at once, without its lock:
 * most wake-ups find nobody parked (a barrier's other threads still
 * spin), and the lock's line then went from core to core with every
 * barrier. A waiter counts itself in before it checks the word, a waker
 * changes the word before it reads the count, each with a full fence
 * between (Dekker): either the waiter sees the change, or the waker sees
 * the count and takes the lock, which the waiter holds until it is in
 * the queue.
 */
#include <stdlib.h>

#include "omp/omp_impl.h"

typedef struct waiter {
    _Atomic uint32_t *word;
    myr_ult_t *ult;
    _Atomic int woken;
    struct waiter *next;
} waiter;

typedef struct bucket {
    atomic_flag lock;
    _Atomic unsigned parked;   /* waiters queued or about to be */
    waiter *head;
} __attribute__((aligned(64))) bucket;

#define NBUCKETS 256
static bucket buckets[NBUCKETS];

static bucket *bucket_of(const void *word)
{
    uintptr_t a = (uintptr_t)word;
    return &buckets[((a >> 2) ^ (a >> 12)) % NBUCKETS];
}

static void bucket_lock(bucket *b)
{
    while (atomic_flag_test_and_set_explicit(&b->lock, memory_order_acquire))
        myr_cpu_relax();
}

static void bucket_unlock(bucket *b)
{
    atomic_flag_clear_explicit(&b->lock, memory_order_release);
}

void myr_omp_park(_Atomic uint32_t *word, uint32_t seen)
{
    myr_ult_t *self = myr_ult_self();
    if (!self)
        myr_omp_unsupported("waiting outside a ULT (an OpenMP construct run "
                            "from a thread Myriad does not schedule)");
    bucket *b = bucket_of(word);
    waiter w = { .word = word, .ult = self, .woken = 0, .next = NULL };
    bucket_lock(b);
    atomic_fetch_add_explicit(&b->parked, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(word) != seen) {
        atomic_fetch_sub_explicit(&b->parked, 1, memory_order_relaxed);
        bucket_unlock(b);
        return;
    }
    waiter **p = &b->head;  /* FIFO: at the tail */
    while (*p)
        p = &(*p)->next;
    *p = &w;
    bucket_unlock(b);
    while (!atomic_load_explicit(&w.woken, memory_order_acquire))
        myr_ult_suspend();
}

void myr_omp_unpark(_Atomic uint32_t *word, bool all)
{
    bucket *b = bucket_of(word);
    atomic_thread_fence(memory_order_seq_cst);   /* the caller changed the word */
    if (atomic_load_explicit(&b->parked, memory_order_relaxed) == 0)
        return;
    waiter *wake = NULL, **tail = &wake;
    bucket_lock(b);
    for (waiter **p = &b->head; *p;) {
        waiter *w = *p;
        if (w->word == word) {
            *p = w->next;
            w->next = NULL;
            *tail = w;
            tail = &w->next;
            atomic_fetch_sub_explicit(&b->parked, 1, memory_order_relaxed);
            if (!all)
                break;
        } else {
            p = &w->next;
        }
    }
    bucket_unlock(b);
    while (wake) {
        waiter *w = wake;
        wake = w->next;
        myr_ult_t *u = w->ult;
        atomic_store_explicit(&w->woken, 1, memory_order_release);
        myr_ult_resume(u);
    }
}

void myr_omp_wait_change(_Atomic uint32_t *word, uint32_t seen)
{
    for (int i = 0; i < OMP_SPIN; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return;
        myr_cpu_relax();
    }
    while (atomic_load_explicit(word, memory_order_acquire) == seen)
        myr_omp_park(word, seen);
}

bool myr_omp_mutex_trylock(_Atomic uint32_t *m)
{
    uint32_t zero = 0;
    return atomic_compare_exchange_strong_explicit(m, &zero, 1,
               memory_order_acquire, memory_order_relaxed);
}

void myr_omp_mutex_lock(_Atomic uint32_t *m)
{
    if (myr_omp_mutex_trylock(m))
        return;
    for (int i = 0; i < OMP_SPIN; i++) {
        myr_cpu_relax();
        if (atomic_load_explicit(m, memory_order_relaxed) == 0 &&
            myr_omp_mutex_trylock(m))
            return;
    }
    /* 2 says "someone may be parked": the unlocker then wakes one. */
    while (atomic_exchange_explicit(m, 2, memory_order_acquire) != 0)
        myr_omp_park(m, 2);
}

void myr_omp_mutex_unlock(_Atomic uint32_t *m)
{
    if (atomic_exchange_explicit(m, 0, memory_order_release) == 2)
        myr_omp_unpark(m, false);
}
