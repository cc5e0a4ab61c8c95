/*
 * inbox.h — where other threads put ULTs that become ready on this worker
 * (a resume from another worker or from a thread that is not a worker, a
 * spawn_on). Multi-producer, intrusive, after Vyukov's MPSC node queue.
 *
 * Producers never wait: one atomic exchange on `tail`, then a link store.
 * The single consumer role is taken with a try-lock, by the owner or by a
 * thief (which steals from the inbox of a worker busy in a long ULT); a
 * consumer that fails to get it goes elsewhere, it never spins on it.
 *
 * Between a producer's exchange and its link store the queue looks
 * non-empty but cannot be popped: pop then says MYR_INBOX_BUSY and the
 * caller must treat the inbox as holding work (never go to sleep on it).
 *
 * `pending` counts pushed-but-not-popped nodes. It, not the shape of the
 * list, answers "is there work?": the list can briefly end in the stub
 * while a node sits before it, and a sleeping worker must not miss that.
 */
#ifndef MYR_ULT_INBOX_H
#define MYR_ULT_INBOX_H

#include <stdatomic.h>

#include "arch/cpu.h"

/* Internal to libmyriad: hidden, called directly (no PLT). */
#pragma GCC visibility push(hidden)

typedef struct myr_qnode {
    _Atomic(struct myr_qnode *) next;
} myr_qnode;

/* The stub shares the producers' line: a push to an empty inbox writes its
 * link, and the consumer reads tail and pending anyway, so a hop between
 * threads moves this one line instead of two. */
typedef struct myr_inbox {
    _Alignas(MYR_CACHE_LINE) _Atomic(myr_qnode *) tail;
    _Atomic long pending;
    myr_qnode stub;
    _Alignas(MYR_CACHE_LINE) atomic_flag consumer;
    myr_qnode *head;   /* consumer side, guarded by `consumer` */
} myr_inbox;

typedef enum { MYR_INBOX_EMPTY, MYR_INBOX_BUSY } myr_inbox_status;

void myr_inbox_init(myr_inbox *q);

/* Any thread. Full barrier (the exchange is sequentially consistent), so a
 * producer may read the owner's sleep state right after it. */
void myr_inbox_push(myr_inbox *q, myr_qnode *n);

/* Any thread. Sequentially consistent, for the sleep protocol: a pusher
 * that finds the owner awake is sure the owner will see its node. */
static inline int myr_inbox_nonempty(myr_inbox *q)
{
    return atomic_load(&q->pending) > 0;
}

/* Take the consumer role; 0 if another thread holds it. */
static inline int myr_inbox_trylock(myr_inbox *q)
{
    return !atomic_flag_test_and_set_explicit(&q->consumer, memory_order_acquire);
}

static inline void myr_inbox_unlock(myr_inbox *q)
{
    atomic_flag_clear_explicit(&q->consumer, memory_order_release);
}

/* Consumer only (hold the lock). The oldest node, or NULL with *status
 * telling empty from busy. */
myr_qnode *myr_inbox_pop(myr_inbox *q, myr_inbox_status *status);

#pragma GCC visibility pop

#endif
