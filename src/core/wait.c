/*
 * wait.c — how a rank's ULTs block until something completes.
 *
 * Every completion that a rank may wait for (its receive matched, its send
 * taken, a message arriving for a probe, a collective step) calls
 * myr_wait_notify(rank): `gen` is incremented, then any registered sleeper
 * is resumed. A waiter evaluates its condition, registers itself under the
 * cell's lock, re-reads `gen`, and suspends only if nothing happened since
 * its evaluation. Both sides use sequentially consistent operations on
 * `gen` and `nsleepers`, so either the notifier sees the sleeper or the
 * sleeper sees the new generation: no completion is lost.
 *
 * A sleeper entry lives on the sleeper's stack and is unlinked by the
 * sleeper itself under the lock; notifiers resume sleepers while holding the
 * lock, so a resumed ULT cannot have left (or ended) during its resume.
 * Spurious wake-ups only make the waiter evaluate its condition again.
 *
 * Before it registers, a waiter whose worker has nothing else to run spins
 * on `gen` for a while (myr_ult_spin_while_idle_unchanged, MYR_SPIN_US):
 * a completion from another worker then costs its notifier one increment,
 * and the waiter no resume. The protocol above is unchanged: the spin only
 * delays the registration.
 *
 * `waiting` counts ULTs inside myr_wait_until. A waiter increments it before
 * its first evaluation; a notifier, after publishing its completion, skips
 * everything when it reads 0 (the usual case: a send completing while its
 * rank computes). Both are sequentially consistent: a notifier that reads 0
 * published before the waiter's increment, so the evaluation sees it.
 *
 * MYR_WAIT_POLICY=yield replaces the registration and suspend by a yield:
 * the waiter stays ready and polls (the policy seed 001 argues against,
 * kept so that bench/threads.c can measure both).
 */
#include "core/core.h"
#include "ult/core_api.h"

#include <sched.h>

void myr_spin_lock_slow(myr_spinlock *l)
{
    for (unsigned spins = 0;; spins++) {
        while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
            if (spins++ < 256)
                myr_cpu_relax();
            else
                sched_yield();  /* the holder's kernel thread was preempted */
        }
        if (!atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
            return;
    }
}

void myr_wait_notify(myr_rank *r)
{
    myr_waitcell *c = &r->wait;
    if (atomic_load(&c->waiting) == 0)
        return;
    atomic_fetch_add(&c->gen, 1);
    if (atomic_load(&c->nsleepers) == 0)
        return;
    myr_spin_lock(&c->lock);
    for (myr_sleeper *s = c->sleepers; s; s = s->next)
        myr_ult_resume_internal(s->ult);
    myr_spin_unlock(&c->lock);
}

void myr_wait_until(myr_rank *r, bool (*done)(void *), void *arg, const myr_wait_note *note)
{
    bool noted = false;
    myr_waitcell *c = &r->wait;
    myr_sleeper me = {.ult = myr_ult_self_internal(), .next = NULL};
    atomic_fetch_add(&c->waiting, 1);
    for (;;) {
        unsigned gen = atomic_load(&c->gen);
        if (done(arg)) {
            atomic_fetch_sub(&c->waiting, 1);
            if (noted)
                myr_wait_note_clear(r);
            return;
        }
        if (note && !noted) {
            myr_wait_note_set(r, note);
            noted = true;
        }
        /* With nothing else to run on this worker, watch the generation
         * instead of sleeping: a notifier then only increments it (no
         * sleeper to resume), and the condition is evaluated again. */
        if (myr_ult_spin_while_idle_unchanged(&c->gen, gen))
            continue;
        if (__builtin_expect(myr_wait_yields, 0)) {
            myr_ult_yield_waiting_internal();
            continue;
        }
        myr_spin_lock(&c->lock);
        me.next = c->sleepers;
        c->sleepers = &me;
        atomic_fetch_add(&c->nsleepers, 1);
        myr_spin_unlock(&c->lock);
        if (atomic_load(&c->gen) == gen)
            myr_ult_suspend_internal();
        myr_spin_lock(&c->lock);
        for (myr_sleeper **p = &c->sleepers; *p; p = &(*p)->next)
            if (*p == &me) {
                *p = me.next;
                break;
            }
        atomic_fetch_sub(&c->nsleepers, 1);
        myr_spin_unlock(&c->lock);
    }
}
