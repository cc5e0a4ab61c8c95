/*
 * sched.c — the ULT scheduler.
 *
 * Model. W workers, each a kernel thread pinned to a core. A worker runs
 * ULTs; when none is ready it runs its scheduler context (on the worker's
 * own stack), which looks for work and, failing that, sleeps on a futex.
 * ULTs switch directly to one another (one context switch per yield); they
 * switch to the scheduler only when their worker has nothing else ready.
 *
 * Where a ready ULT lives. Every ready ULT is in exactly one place:
 *   - a worker's deque (deque.h): pushed only by that worker, taken
 *     first-in first-out by the worker or by thieves (with one worker
 *     there are no thieves, and the owner takes without a CAS);
 *   - a worker's inbox (inbox.h): pushed by any thread, drained into the
 *     deque by the owner, or popped by a thief when the owner is busy.
 * A running ULT is in no queue; a suspended ULT is in no queue.
 *
 * States (ult->state) and who moves a ULT between them:
 *   RUNNABLE  -> SUSPENDED  only in the suspend callback, which runs on the
 *                           next context after the ULT's registers are
 *                           saved, so a concurrent resume can never start
 *                           a half-saved context.
 *   SUSPENDED -> RUNNABLE   only in resume, by CAS; the winner queues it.
 *   RUNNABLE  -> +PENDING   resume of a ULT that is not suspended (yet):
 *                           suspend, or its callback, sees the bit, clears
 *                           it and keeps (or re-queues) the ULT.
 *   RUNNABLE  -> DONE       only in the exit callback, after the stack is
 *                           back in a pool.
 * Because every transition that publishes a ULT happens in a callback on the
 * next stack (arch/context.h), "resume before the ULT finished switching
 * out" is just another interleaving of the same CAS.
 *
 * Home and locality. ult->worker is the worker the ULT runs on, or last ran
 * on: its home. resume makes a ULT ready at home (deque when the resumer is
 * the home worker itself, inbox otherwise). A thief that takes a ULT makes
 * itself the ULT's new home, except for a ULT placed with spawn_on (MPI
 * ranks): that one is anchored, and every resume makes it ready at its
 * anchor again, so a thief runs it only until it next blocks. Ranks that
 * synchronise through per-worker counters (coll/round.c) stay with the
 * ranks they were grouped with.
 *
 * Stealing waits MYR_STEAL_DELAY_US after a worker runs dry (find_work):
 * its own ULTs are usually about to be resumed there.
 *
 * Stuck workers. A worker's one ready ULT is left to it while it keeps
 * switching: it is about to run it (two ranks that ping-pong on one
 * worker hand the turn back and forth through its deque; a thief taking
 * it would split them over two cores, and waking a sleeper to take it
 * cost the pusher a futex call per message). Queuing one ULT on one's own
 * deque therefore wakes nobody when a watcher exists (notify_local): a
 * worker looking for work, or sleeping with a timeout while other workers
 * queue such ULTs. A watcher takes a worker's ULTs, its single one or its
 * inbox, once the worker's progress count (turns) has not moved for
 * MYR_STEAL_DELAY_US: it runs one ULT for that long (computing), or its
 * kernel thread is not running (preempted on a loaded machine, or not yet
 * back from a futex wake-up). A rank taken from a stuck worker is
 * anchored to its thief from then on, so ranks that communicate more than
 * they compute end up on one worker and ranks that compute spread out,
 * whichever worker they started on (launch: small jobs start on one).
 * Two or more ready ULTs wake a sleeper as before.
 *
 * Sleeping without lost wake-ups (Dekker on sequentially consistent ops):
 *   sleeper:  sleep_state = SLEEPING; n_sleeping++;  then re-check every
 *             queue it could take from; if empty, futex_wait(SLEEPING).
 *   pusher:   push to an inbox (seq_cst) then read the owner's sleep_state:
 *             wake it if SLEEPING. Pushes to one's own deque are followed by
 *             a fence and a read of n_sleeping: wake one sleeper so it can
 *             steal. Either the pusher sees the sleeper, or the sleeper's
 *             re-check sees the work.
 * A yield does not wake anybody: the yielding worker is busy and will run
 * the ULT itself, so no work can be stranded by it. A single ULT queued
 * without a wake-up (notify_local) follows the same pattern on `watchers`:
 * the pusher reads it after its push; a watcher that stops watching
 * decrements it, then re-checks every queue (work_visible).
 *
 * Thread-local storage. The program's own thread-local variables follow
 * their ULT (tls.c: saved and restored at each switch, like errno). The
 * compiler keeps a thread-local variable's address across calls, as if the
 * thread could not change; so in a program that has such variables a ULT
 * that has started never runs on another worker (no thief takes it, and it
 * is anchored where it first ran): an address kept across a switch stays
 * its own variable's. Otherwise, after any switch the code may be running on
 * another kernel thread. Nothing here caches a TLS address or errno's
 * address across a switch: the worker is read with a volatile asm
 * (myr_worker_current, internal.h), and errno through the address each
 * worker recorded for its own thread (errno_save/errno_restore).
 */
#include "ult/core_api.h"

#include <errno.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef MYR_SANITIZE
#include <sanitizer/common_interface_defs.h>
#endif

static void futex_wait(_Atomic int *word, int expected)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static myr_ult *ult_of_qnode(myr_qnode *n)
{
    return (myr_ult *)((char *)n - offsetof(myr_ult, qnode));
}

/* ---- switching ------------------------------------------------------- */

/* errno lives in the kernel thread, so it is saved when a ULT leaves a
 * worker and restored on the worker it comes back on. Each worker recorded
 * its thread's errno address once at start; u->worker is always set to the
 * worker that switches to u before it does, so after a switch it names the
 * thread we now run on (no TLS lookup, no call on the switch path). */
static inline void errno_save(myr_worker *w, myr_ult *u)
{
    u->saved_errno = *w->errno_loc;
}

static inline void errno_restore(myr_ult *u)
{
    *u->worker->errno_loc = u->saved_errno;
}

/* Switch from fiber `from` to `to`, calling cb(arg) on `to`'s stack once
 * `from` is saved. `dying`: `from` will never run again. */
static inline void fiber_switch(myr_fiber *from, myr_fiber *to,
                                myr_context_fn cb, void *arg, bool dying)
{
#ifdef MYR_SANITIZE
    __sanitizer_start_switch_fiber(dying ? NULL : &from->asan_fake_stack,
                                   to->stack_lo, to->stack_size);
#else
    (void)dying;
#endif
    if (cb)
        myr_context_switch_cb(&from->ctx, &to->ctx, cb, arg);
    else
        myr_context_switch(&from->ctx, &to->ctx);
#ifdef MYR_SANITIZE
    __sanitizer_finish_switch_fiber(from->asan_fake_stack, NULL, NULL);
#endif
}

static void ult_entry(void *arg)
{
    myr_ult *u = arg;
#ifdef MYR_SANITIZE
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    *u->worker->errno_loc = 0;
    void *result = u->fn(u->arg);
    u->result = result;
    myr_sched_finish(u);
}

/* Say why no stack could be had, and stop. */
static _Noreturn void out_of_stacks(myr_worker *w, myr_ult *u)
{
    char label[64], detail[600];
    int err = errno;
    if (myr_rt.stack_guard == MYR_STACK_GUARD_ALWAYS)
        snprintf(detail, sizeof detail,
                 "cannot map a %zu-byte stack for %s: %s. With "
                 "MYR_STACK_GUARD=always each live ULT needs two memory "
                 "mappings and the kernel allows vm.max_map_count (%ld) of "
                 "them; raise it with `sysctl -w vm.max_map_count=N`, unset "
                 "MYR_STACK_GUARD (stacks beyond the budget then get canaries "
                 "instead of guard pages) or run fewer live ULTs",
                 w->stacks.size, myr_ult_label(u, label), strerror(err),
                 myr_rt.max_map_count);
    else
        snprintf(detail, sizeof detail,
                 "cannot map a %zu-byte stack for %s: %s (out of memory, of "
                 "address space, or of memory mappings: vm.max_map_count is "
                 "%ld); lower MYR_STACK_SIZE or run fewer live ULTs",
                 w->stacks.size, myr_ult_label(u, label), strerror(err),
                 myr_rt.max_map_count);
    myr_fatal("out of stacks", detail);
}

static void reanchor(myr_ult *u, myr_worker *w);

/* Give `u` a stack on its first run (stacks are bound lazily, so a ULT that
 * is spawned but not started costs only its descriptor). */
static void bind_stack(myr_worker *w, myr_ult *u)
{
    if (__builtin_expect(u->started, 1))
        return;
    myr_stack *s = myr_stack_pool_get(&w->stacks);
    if (!s)
        out_of_stacks(w, u);
    u->stack = s;
    u->canary = myr_stack_canary_word(s);
    myr_fiber_set_bounds(&u->fiber, s->lo, s->size);
    myr_context_make(&u->fiber.ctx, s->lo,
                     (size_t)((char *)myr_stack_top(s) - (char *)s->lo), ult_entry, u);
    /* Pinned ULTs (see "Thread-local storage") stay where they start. */
    if (myr_rt.tls_bytes && u->anchor && u->anchor != w)
        reanchor(u, w);
    u->started = true;
}

/* w made progress (it starts a ULT, or looks for work): see "Stuck
 * workers". Owner only: a plain increment, published relaxed. */
static inline void advance(myr_worker *w)
{
    atomic_store_explicit(&w->turns,
                          atomic_load_explicit(&w->turns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Start loading what the next ULTs of w's deque read first when they run,
 * while the ULT we switch to runs: the stack top of the first (its
 * descriptor, with the saved stack pointer, was asked for at the previous
 * switch) and the descriptor of the second. With many ranks per worker a
 * rank runs again only after every other one, so these lines come from
 * memory. Owner only, and a hint: a slot may be taken by a thief at any
 * moment (its ULT then runs elsewhere and the addresses go stale, which
 * only wastes the prefetch; descriptors are never unmapped). */
static inline void prefetch_ahead(myr_worker *w)
{
#ifndef MYR_SANITIZE   /* a stale slot's descriptor may be a freed one */
    myr_deque *d = &w->deque;
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (t >= b)
        return;
    myr_deque_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    myr_ult *first = atomic_load_explicit(&r->slot[t & r->mask], memory_order_relaxed);
    myr_ult_prefetch_stack(first);
    myr_ult_prefetch_inherited(first);
    if (t + 1 < b)
        __builtin_prefetch(atomic_load_explicit(&r->slot[(t + 1) & r->mask],
                                                memory_order_relaxed), 1);
#else
    (void)w;
#endif
}

/* Run `next` in place of `cur` on worker `w`; cb(cur) publishes `cur`.
 * Returns when `cur` runs again, possibly on another worker. */
static void ult_switch(myr_worker *w, myr_ult *cur, myr_ult *next,
                       myr_context_fn cb, bool dying)
{
    bind_stack(w, next);
    next->worker = w;
    w->current = next;
    advance(w);
    prefetch_ahead(w);
    errno_save(w, cur);
    if (!dying)
        myr_tls_save(w, cur);
    myr_tls_restore(w, next);
    fiber_switch(&cur->fiber, &next->fiber, cb, cur, dying);
    errno_restore(cur);
}

/* Leave `cur` for the scheduler context of `w`. */
static void ult_switch_to_sched(myr_worker *w, myr_ult *cur,
                                myr_context_fn cb, bool dying)
{
    w->current = NULL;
    errno_save(w, cur);
    if (!dying)
        myr_tls_save(w, cur);
    fiber_switch(&cur->fiber, &w->sched, cb, cur, dying);
    errno_restore(cur);
}

/* ---- ready queues ---------------------------------------------------- */

static void push_local(myr_worker *w, myr_ult *u)
{
    if (__builtin_expect(myr_deque_push(&w->deque, u) != 0, 0))
        myr_fatal("out of memory", "cannot grow a worker's ready deque");
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* w, the caller's worker, queued ULTs on its own deque: two or more, wake
 * a sleeper to steal (myr_sched_notify_idle); a single one is most likely
 * run by w at its next switch, so only make sure that some worker watches
 * (see "Stuck workers"): wake one only when none does. */
static void notify_local(myr_worker *w)
{
    if (myr_rt.nworkers == 1)
        return;
    int64_t n = myr_deque_size_hint(&w->deque);
    if (n >= 2) {
        myr_sched_notify_idle();
        return;
    }
    if (n <= 0)
        return;   /* taken already */
    atomic_store_explicit(&w->quiet_pushes,
                          atomic_load_explicit(&w->quiet_pushes, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&myr_rt.watchers, memory_order_relaxed) == 0)
        myr_sched_notify_idle();
}

/* Take from w's own deque (owner only). With one worker nobody else takes
 * from it (steal() returns at once), so no compare-and-swap is needed. */
static inline myr_ult *own_deque_take(myr_worker *w)
{
    if (myr_rt.nworkers == 1)
        return myr_deque_take_alone(&w->deque);
    return myr_deque_take(&w->deque);
}

/* The next ready ULT of w's own queues, or NULL. Owner only. The deque's
 * older work comes first; the inbox is then drained behind it, except that
 * when the deque was empty its first ULT is returned directly: pushed to the
 * deque, it could be stolen in the instant before we take it back. */
static myr_ult *local_next_with_inbox(myr_worker *w)
{
    myr_ult *u = own_deque_take(w);
    if (!myr_inbox_trylock(&w->inbox))
        return u;
    myr_inbox_status st;
    myr_qnode *n;
    bool pushed = false;
    while ((n = myr_inbox_pop(&w->inbox, &st))) {
        if (!u) {
            u = ult_of_qnode(n);
            continue;
        }
        push_local(w, ult_of_qnode(n));
        pushed = true;
    }
    myr_inbox_unlock(&w->inbox);
    /* Work that was only stealable while this worker was busy (its inbox
     * is left to it while it looks for work) now sits in its deque: a
     * sleeper must learn of it, or it stays there for as long as this
     * worker runs one ULT — forever, if that ULT blocks in the kernel
     * waiting for one of them. */
    if (pushed)
        notify_local(w);
    return u;
}

static inline myr_ult *local_next(myr_worker *w)
{
    if (__builtin_expect(myr_inbox_nonempty(&w->inbox), 0))
        return local_next_with_inbox(w);
    return own_deque_take(w);
}

/* Can a thief take something from v? (deque items, or the inbox of a
 * worker that is busy running a ULT). */
static bool stealable(myr_worker *v)
{
    return myr_deque_size_hint(&v->deque) > 0 ||
           (myr_inbox_nonempty(&v->inbox) &&
            !atomic_load_explicit(&v->looking, memory_order_relaxed));
}

/* v has ready ULTs: has it held them without progress for
 * MYR_STEAL_DELAY_US, as thief w saw it? Only looks that all found work
 * count (looked_ns 0: the last look found none, or w was not looking):
 * a worker that was asleep, idle, and is just being woken is not stuck
 * until it has had the delay to get going. */
static bool stuck(myr_worker *w, myr_worker *v, long now)
{
    int i = v->index;
    unsigned long t = atomic_load_explicit(&v->turns, memory_order_relaxed);
    bool continued = w->looked_ns[i] != 0;
    w->looked_ns[i] = now;
    if (t != w->seen_turns[i] || !continued) {
        w->seen_turns[i] = t;
        w->seen_ns[i] = now;
        return false;
    }
    return now - w->seen_ns[i] >= myr_rt.steal_delay_ns;
}

/* Anchor u, which the caller owns (in no queue, not running), to w. */
static void reanchor(myr_ult *u, myr_worker *w)
{
    atomic_fetch_sub_explicit(&u->anchor->anchored, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->anchored, 1, memory_order_relaxed);
    u->anchor = w;
}

static long cpu_ns(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) != 0)
        return -1;
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Is stuck worker v's kernel thread running (computing in one ULT), as
 * opposed to waiting for a CPU? Its CPU time over a short look: two
 * system calls and 20 us, paid only by an idle thief, once per stuck
 * worker it takes from. */
static bool running_on_cpu(myr_worker *v)
{
    if (!atomic_load_explicit(&v->cpu_clock_set, memory_order_acquire))
        return true;
    long c0 = cpu_ns(v->cpu_clock), t0 = now_ns();
    if (c0 < 0)
        return true;
    while (now_ns() - t0 < 20000)
        myr_cpu_relax();
    long c1 = cpu_ns(v->cpu_clock), t1 = now_ns();
    return c1 < 0 || 2 * (c1 - c0) >= t1 - t0;
}

static myr_ult *steal(myr_worker *w)
{
    int n = myr_rt.nworkers;
    if (n == 1)
        return NULL;
    /* A program with thread-local variables: a ULT that has run stays on
     * its worker (see "Thread-local storage"); a thief takes only ULTs
     * that have not started, and leaves inboxes (resumed ULTs) alone. */
    bool pinned = myr_rt.tls_bytes != 0;
    w->rng = w->rng * 1103515245u + 12345u;
    int start = (int)((w->rng >> 16) % (unsigned)n);
    long now = 0;
    for (int i = 0; i < n; i++) {
        myr_worker *v = &myr_rt.workers[(start + i) % n];
        if (v == w)
            continue;
        int64_t size = myr_deque_size_hint(&v->deque);
        bool inbox = myr_inbox_nonempty(&v->inbox);
        if (size <= 0 && !inbox) {
            w->looked_ns[v->index] = 0;
            continue;
        }
        if (now == 0)
            now = now_ns();
        bool is_stuck = stuck(w, v, now);
        myr_ult *u = NULL;
        if (size >= 2 || (size == 1 && is_stuck))
            u = myr_deque_take(&v->deque);
        if (u && pinned && u->started) {
            myr_sched_make_ready(u);   /* back to its worker, by its inbox */
            continue;
        }
        if (!u && inbox && !pinned &&
            (is_stuck || !atomic_load_explicit(&v->looking, memory_order_relaxed)) &&
            myr_inbox_trylock(&v->inbox)) {
            myr_inbox_status st;
            myr_qnode *node = myr_inbox_pop(&v->inbox, &st);
            myr_inbox_unlock(&v->inbox);
            u = node ? ult_of_qnode(node) : NULL;
        }
        if (u) {
            /* From a stuck worker a rank moves here for good (see "Stuck
             * workers") when that worker computes: the rank was waiting
             * for a core. When that worker's thread is not running (a
             * loaded machine, a preempted vCPU), only if ranks live here
             * already and none is left with it there: it joins them (a
             * pair that a preemption split comes back together). A rank
             * of a block of ranks (the launcher's placement, which the
             * collectives' groups follow) runs here until it next blocks
             * and goes home: moved for good, every later round of its
             * group crossed the cores for it (16 ranks: Ibarrier+Wait
             * 0.6 -> 1.8 us after a preemption moved two). We own u now,
             * and nothing reads its anchor until it is queued again. */
            if (is_stuck && u->anchor && u->anchor != w &&
                ((atomic_load_explicit(&w->anchored, memory_order_relaxed) > 0 &&
                  atomic_load_explicit(&u->anchor->anchored, memory_order_relaxed) <= 1) ||
                 running_on_cpu(v)))
                reanchor(u, w);
            w->steals++;
            return u;
        }
    }
    return NULL;
}

/* After the sleeper announced itself: anything it could take now
 * (VISIBLE_NOW), only single ULTs of other workers, left to them while
 * they progress (VISIBLE_WATCH), or nothing? */
enum { VISIBLE_NONE, VISIBLE_WATCH, VISIBLE_NOW };
static int work_visible(myr_worker *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (myr_inbox_nonempty(&w->inbox) || myr_deque_size_hint(&w->deque) > 0)
        return VISIBLE_NOW;
    int seen = VISIBLE_NONE;
    for (int i = 0; i < myr_rt.nworkers; i++) {
        myr_worker *v = &myr_rt.workers[i];
        if (v == w)
            continue;
        if (myr_deque_size_hint(&v->deque) >= 2 ||
            (myr_inbox_nonempty(&v->inbox) &&
             !atomic_load_explicit(&v->looking, memory_order_relaxed)))
            return VISIBLE_NOW;
        if (stealable(v))
            seen = VISIBLE_WATCH;
    }
    return seen;
}

/* The sum of every worker's quiet pushes (notify_local). */
static unsigned long quiet_pushes(void)
{
    unsigned long sum = 0;
    for (int i = 0; i < myr_rt.nworkers; i++)
        sum += atomic_load_explicit(&myr_rt.workers[i].quiet_pushes, memory_order_relaxed);
    return sum;
}

void myr_sched_wake(myr_worker *w)
{
    int s = WORKER_SLEEPING;
    if (atomic_load(&w->sleep_state) == WORKER_SLEEPING &&
        atomic_compare_exchange_strong(&w->sleep_state, &s, WORKER_AWAKE))
        futex_wake(&w->sleep_state);
}

void myr_sched_wake_all(void)
{
    for (int i = 0; i < myr_rt.nworkers; i++)
        myr_sched_wake(&myr_rt.workers[i]);
}

/* New work sits in a deque: if some worker sleeps, wake one to steal it. */
void myr_sched_notify_idle(void)
{
    if (myr_rt.nworkers == 1)
        return;  /* nobody to wake */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&myr_rt.n_sleeping, memory_order_relaxed) == 0)
        return;
    for (int i = 0; i < myr_rt.nworkers; i++) {
        myr_worker *v = &myr_rt.workers[i];
        int s = WORKER_SLEEPING;
        if (atomic_load_explicit(&v->sleep_state, memory_order_relaxed) ==
                WORKER_SLEEPING &&
            atomic_compare_exchange_strong(&v->sleep_state, &s, WORKER_AWAKE)) {
            futex_wake(&v->sleep_state);
            return;
        }
    }
}

void myr_sched_make_ready_quiet(myr_ult *u)
{
    myr_worker *home = u->anchor ? u->anchor : u->worker;
    if (home != NULL && myr_worker_current() == home) {
        push_local(home, u);
        home->batch_pushed = true;  /* myr_ult_resume_batch_end owes a check */
    } else {
        myr_sched_make_ready(u);
    }
}

void myr_sched_batch_end_slow(myr_worker *w)
{
    w->batch_pushed = false;
    notify_local(w);
}

bool myr_sched_quiescent(unsigned long *epoch)
{
    bool idle = atomic_load(&myr_rt.externals_running) == 0;
    unsigned long e = 0;
    for (int i = 0; i < myr_rt.nworkers; i++) {
        myr_worker *w = &myr_rt.workers[i];
        if (atomic_load(&w->sleep_state) != WORKER_SLEEPING)
            idle = false;
        e += atomic_load_explicit(&w->sleeps, memory_order_relaxed);
    }
    *epoch = e;
    return idle;
}

/* Make a RUNNABLE (just resumed or spawned) ULT ready at its home. */
void myr_sched_make_ready(myr_ult *u)
{
    myr_worker *home = u->anchor ? u->anchor : u->worker;
    if (__builtin_expect(home == NULL, 0)) {
        myr_external_wake(u);  /* an adopted kernel thread: no queue */
        return;
    }
    if (myr_worker_current() == home) {
        push_local(home, u);
        notify_local(home);
        return;
    }
    myr_inbox_push(&home->inbox, &u->qnode);
    if (atomic_load(&home->sleep_state) == WORKER_SLEEPING)
        myr_sched_wake(home);
    else if (!atomic_load_explicit(&home->looking, memory_order_relaxed))
        myr_sched_notify_idle();  /* home is busy: let a sleeper steal it */
}

/* ---- the scheduler context ------------------------------------------- */

/* A spinning worker gives its CPU away this often (sched_yield), for
 * whoever else is runnable there: a waiter's answer may need that thread
 * to run. Between two processes of a node, each comm thread runs on the
 * other's worker's CPU (net.c): a ping-pong whose workers had gone to
 * sleep was answered by comm threads that each waited behind the other
 * process's spinning worker for the rest of its spin (~115 us a hop), so
 * the workers slept again before each answer: 8 KiB ping-pong 0.6 us or
 * 140 us per run, as it happened to start. An answer within the interval
 * costs nothing; a system call per interval of a spin is ~2 %. */
enum { SPIN_YIELD_EVERY_NS = 10000 };

/* That yield, at `now`, for a spin that last yielded at *yielded. */
static inline void spin_yield_now_and_then(long *yielded, long now)
{
    if (now - *yielded >= SPIN_YIELD_EVERY_NS) {
        sched_yield();
        *yielded = now;
    }
}

/* The spin of the two functions below: until seen(word, value) or the
 * worker has other work or the budget is spent. */
static inline bool spin_while_idle(const void *word, unsigned value,
                                   bool (*seen)(const void *, unsigned))
{
    myr_worker *w = myr_worker_current();
    if (!w || (myr_rt.nworkers == 1 && !myr_rt.outside_completions) || myr_rt.spin_ns == 0)
        return false;
    /* No switch happens in here: w stays this thread's worker. */
    const myr_ult_idle_hooks *hooks =
        atomic_load_explicit(&myr_rt.idle_hooks, memory_order_acquire);
    if (hooks)
        hooks->begin();
    long until = 0, start = 0, yielded = 0;
    bool result, past_budget = false;
    for (unsigned round = 0;; round++) {
        if (seen(word, value)) {
            result = true;
            break;
        }
        if (myr_worker_has_work(w)) {
            result = false;
            break;
        }
        int polled = hooks ? hooks->poll() : 0;
        if (polled & MYR_ULT_IDLE_MOVED)
            until = 0;   /* it moved: the spin's budget starts again */
        /* What it moved may be ours: look before giving the CPU away (a
         * yield first cost a whole turn of a crowded CPU per message, 4
         * processes of one rank on 2 CPUs). */
        if ((polled & MYR_ULT_IDLE_MOVED) && seen(word, value)) {
            result = true;
            break;
        }
        if (round % 64 == 63) {
            long now = now_ns();
            if (start == 0)
                start = yielded = now;
            spin_yield_now_and_then(&yielded, now);
            past_budget = now - start >= myr_rt.spin_ns;
            if (until == 0) {
                until = now + myr_rt.spin_ns;
            } else if (now >= until) {
                result = false;
                break;
            }
        }
        /* A hook's YIELD only once the usual budget is spent: what ends
         * within it is not worth a system call per turn. */
        if (myr_rt.spin_yield || ((polled & MYR_ULT_IDLE_YIELD) && past_budget))
            sched_yield();
        else
            myr_cpu_relax();
    }
    if (hooks)
        hooks->end();
    return result;
}

static bool bits_set(const void *word, unsigned mask)
{
    return (unsigned)atomic_load_explicit((const _Atomic int *)word, memory_order_acquire) &
           mask;
}

static bool changed(const void *word, unsigned old)
{
    return atomic_load_explicit((const _Atomic unsigned *)word, memory_order_acquire) != old;
}

void myr_ult_expect_outside_completions(void)
{
    myr_rt.outside_completions = true;
}

void myr_ult_set_idle_hooks(const myr_ult_idle_hooks *hooks)
{
    atomic_store_explicit(&myr_rt.idle_hooks, hooks, memory_order_release);
}

bool myr_ult_spin_while_idle_slow(const _Atomic int *word, int mask)
{
    return spin_while_idle(word, (unsigned)mask, bits_set);
}

bool myr_ult_spin_while_idle_unchanged(const _Atomic unsigned *word, unsigned old)
{
    return spin_while_idle(word, old, changed);
}

/* Wait on w's futex until woken, or, with nap_ns > 0, for at most that
 * long. True when the nap ran out unwoken; w is awake again either way. */
static bool sleep_until_woken(myr_worker *w, long nap_ns)
{
    if (nap_ns <= 0) {
        while (atomic_load(&w->sleep_state) == WORKER_SLEEPING)
            futex_wait(&w->sleep_state, WORKER_SLEEPING);
        return false;
    }
    struct timespec ts = {nap_ns / 1000000000L, nap_ns % 1000000000L};
    while (atomic_load(&w->sleep_state) == WORKER_SLEEPING) {
        long rc = syscall(SYS_futex, (int *)&w->sleep_state, FUTEX_WAIT_PRIVATE,
                          WORKER_SLEEPING, &ts, NULL, 0);
        if (rc == -1 && errno == ETIMEDOUT) {
            int s = WORKER_SLEEPING;
            /* Failing, a waker got here first: a plain wake-up. */
            return atomic_compare_exchange_strong(&w->sleep_state, &s, WORKER_AWAKE);
        }
    }
    return false;
}

/* Block until work is found (returned) or the runtime shuts down (NULL). */
static myr_ult *find_work(myr_worker *w)
{
    myr_ult *u = NULL;
    atomic_store_explicit(&w->looking, 1, memory_order_relaxed);
    atomic_fetch_add(&myr_rt.watchers, 1);
    /* What this worker saw before, while it ran ULTs, does not count. */
    memset(w->looked_ns, 0, (size_t)myr_rt.nworkers * sizeof *w->looked_ns);
    long now = now_ns(), spin_until = now + myr_rt.spin_ns, yielded = now;
    /* Steal only after a delay (MYR_STEAL_DELAY_US): this worker's ULTs
     * are often about to be woken here, and a stolen rank drags its cache
     * lines to the thief. Once woken from a sleep, steal at once: the
     * waker saw work to take. */
    long steal_from = now + myr_rt.steal_delay_ns;
    bool may_steal = myr_rt.steal_delay_ns == 0;
    /* A watcher's sleep: one delay, doubled (up to 16) while what it
     * watches keeps progressing, so that a long ping-pong on another
     * worker costs a few hundred wake-ups a second at most. */
    long nap_min = myr_rt.steal_delay_ns > 10000 ? myr_rt.steal_delay_ns : 10000;
    long nap = nap_min;
    /* While it looks, the worker drives the network for its ULTs that
     * wait on it (suspended beside others: blocked_busy), and before it
     * sleeps hands the watching over (blocked). */
    const myr_ult_idle_hooks *hooks =
        atomic_load_explicit(&myr_rt.idle_hooks, memory_order_acquire);
    if (hooks)
        hooks->begin();
    for (unsigned round = 0;; round++) {
        if ((u = local_next(w)) || (may_steal && (u = steal(w))))
            break;
        if (atomic_load_explicit(&myr_rt.shutdown, memory_order_acquire))
            break;
        if (hooks && (hooks->poll() & MYR_ULT_IDLE_MOVED) && (u = local_next(w)))
            break;
        if (round % 16 != 15) {
            if (myr_rt.spin_yield)
                sched_yield();
            else
                myr_cpu_relax();
            continue;
        }
        advance(w);
        if ((now = now_ns()) >= steal_from)
            may_steal = true;
        if (now < spin_until) {
            spin_yield_now_and_then(&yielded, now);
            myr_cpu_relax();
            continue;
        }
        /* Sleep (see the protocol at the top of this file): as a watcher,
         * with a timeout, while other workers' single ULTs wait or quiet
         * pushes went on since the last look; else until woken. */
        if (hooks) {
            hooks->end();
            hooks->blocked();
        }
        atomic_store(&w->sleep_state, WORKER_SLEEPING);
        atomic_fetch_add(&myr_rt.n_sleeping, 1);
        atomic_fetch_sub(&myr_rt.watchers, 1);
        int seen = work_visible(w);
        unsigned long quiet = quiet_pushes();
        bool watch = seen == VISIBLE_WATCH || quiet != w->seen_quiet;
        w->seen_quiet = quiet;
        if (watch)
            atomic_fetch_add(&myr_rt.watchers, 1);
        bool napped = false;
        if (seen != VISIBLE_NOW && !atomic_load(&myr_rt.shutdown)) {
            atomic_fetch_add_explicit(&w->sleeps, 1, memory_order_relaxed);
            napped = sleep_until_woken(w, watch ? nap : 0);
        } else {
            int s = WORKER_SLEEPING;
            atomic_compare_exchange_strong(&w->sleep_state, &s, WORKER_AWAKE);
        }
        atomic_fetch_sub(&myr_rt.n_sleeping, 1);
        if (!watch)
            atomic_fetch_add(&myr_rt.watchers, 1);
        if (hooks)
            hooks->begin();
        may_steal = true;
        /* After a nap, one look and back to sleep; after a wake-up, the
         * usual spin. */
        spin_until = napped ? 0 : (yielded = now_ns()) + myr_rt.spin_ns;
        nap = napped ? (nap < 16 * nap_min ? 2 * nap : nap) : nap_min;
    }
    if (hooks)
        hooks->end();
    atomic_fetch_sub(&myr_rt.watchers, 1);
    atomic_store_explicit(&w->looking, 0, memory_order_relaxed);
    /* More ready work than the one ULT we take: let a sleeper steal it. */
    if (u && myr_deque_size_hint(&w->deque) > 0)
        notify_local(w);
    return u;
}

void myr_sched_loop(myr_worker *w)
{
    myr_ult *u;
    while ((u = find_work(w))) {
        bind_stack(w, u);
        u->worker = w;
        w->current = u;
        advance(w);
        prefetch_ahead(w);
        myr_tls_restore(w, u);
        fiber_switch(&w->sched, &u->fiber, NULL, NULL, false);
        /* Back: some ULT switched here and its callback already ran. */
    }
}

/* ---- yield, suspend, resume, exit ------------------------------------ */

static void cb_requeue(void *arg)
{
    myr_ult *u = arg;
    myr_canary_check(u);
    push_local(u->worker, u);
}

void myr_ult_yield_internal(void)
{
    myr_worker *w = myr_worker_current();
    myr_ult *cur = w ? w->current : NULL;
    if (!cur) {
        if (myr_tls_external)
            sched_yield();  /* an adopted thread polling: let others run */
        return;
    }
    myr_ult *next = local_next(w);
    if (next)
        ult_switch(w, cur, next, cb_requeue, false);
}
void myr_ult_yield(void) __attribute__((alias("myr_ult_yield_internal")));

void myr_ult_yield_waiting_internal(void)
{
    const myr_ult_idle_hooks *hooks =
        atomic_load_explicit(&myr_rt.idle_hooks, memory_order_relaxed);
    if (__builtin_expect(hooks != NULL, 0))
        hooks->blocked();
    myr_ult_yield_internal();
}

static void cb_suspend(void *arg)
{
    myr_ult *u = arg;
    myr_canary_check(u);
    unsigned expected = ULT_RUNNABLE;
    if (atomic_compare_exchange_strong(&u->state, &expected, ULT_SUSPENDED))
        return;
    /* A resume arrived while u was switching out: it stays runnable. */
    atomic_store(&u->state, ULT_RUNNABLE);
    push_local(u->worker, u);
}

int myr_ult_suspend_local_internal(void)
{
    myr_worker *w = myr_worker_current();
    myr_ult *cur = w ? w->current : NULL;
    if (!cur)
        return myr_tls_external ? myr_external_suspend(myr_tls_external) : MYR_ERR_STATE;
    if (atomic_load(&cur->state) & ULT_RESUME_PENDING) {
        atomic_fetch_and(&cur->state, ~(unsigned)ULT_RESUME_PENDING);
        return MYR_OK;
    }
    myr_ult *next = local_next(w);
    if (next)
        ult_switch(w, cur, next, cb_suspend, false);
    else
        ult_switch_to_sched(w, cur, cb_suspend, false);
    return MYR_OK;
}

int myr_ult_suspend_internal(void)
{
    const myr_ult_idle_hooks *hooks =
        atomic_load_explicit(&myr_rt.idle_hooks, memory_order_relaxed);
    if (__builtin_expect(hooks != NULL, 0)) {
        myr_worker *w = myr_worker_current();
        if (w && myr_worker_has_work(w))
            hooks->blocked_busy();  /* find_work watches after the others */
        else
            hooks->blocked();
    }
    return myr_ult_suspend_local_internal();
}
int myr_ult_suspend(void) __attribute__((alias("myr_ult_suspend_internal")));

int myr_ult_resume_slow(myr_ult *u)
{
    if (!u)
        return MYR_ERR_ARG;
    unsigned s = atomic_load(&u->state);
    for (;;) {
        if ((s & ULT_STATE_MASK) == ULT_DONE)
            return MYR_ERR_STATE;
        if (s == ULT_SUSPENDED) {
            if (atomic_compare_exchange_weak(&u->state, &s, ULT_RUNNABLE)) {
                myr_sched_make_ready(u);
                return MYR_OK;
            }
            continue;
        }
        if (s & ULT_RESUME_PENDING)
            return MYR_OK;
        if (atomic_compare_exchange_weak(&u->state, &s, s | ULT_RESUME_PENDING))
            return MYR_OK;
    }
}
int myr_ult_resume(myr_ult *u) __attribute__((alias("myr_ult_resume_slow")));

static void cb_migrate(void *arg)
{
    myr_ult *u = arg;
    myr_canary_check(u);
    myr_worker *target = u->migrate_to;
    u->worker = target;
    if (u->anchor)
        reanchor(u, target);
    myr_inbox_push(&target->inbox, &u->qnode);
    myr_sched_wake(target);
}

/* Move the running ULT `cur` to `target`'s inbox (it may still be stolen
 * from there; callers loop until they are where they want to be). */
void myr_sched_migrate(myr_ult *cur, myr_worker *target)
{
    myr_worker *w = myr_worker_current();
    cur->migrate_to = target;
    myr_ult *next = local_next(w);
    if (next)
        ult_switch(w, cur, next, cb_migrate, false);
    else
        ult_switch_to_sched(w, cur, cb_migrate, false);
}

static void cb_exit(void *arg)
{
    myr_ult *u = arg;
    myr_worker *w = u->worker;  /* the worker this callback runs on */
    /* All of the canary: the stack goes back to a pool, and its next ULT
     * must not inherit an overflow nobody reported. */
    if (!myr_stack_canary_intact(u->stack))
        myr_overflow_canary(u);
    myr_stack_pool_put(&w->stacks, u->stack);
    u->stack = NULL;
    if (u->anchor)
        atomic_fetch_sub_explicit(&u->anchor->anchored, 1, memory_order_relaxed);
    myr_ult_release_done(w, u);
}

void myr_sched_finish(myr_ult *cur)
{
    myr_tls_run_destructors(cur);   /* before the keys', as glibc orders them */
    myr_key_run_destructors(cur);
    myr_worker *w = myr_worker_current();
    myr_ult *next = local_next(w);
    if (next)
        ult_switch(w, cur, next, cb_exit, true);
    else
        ult_switch_to_sched(w, cur, cb_exit, true);
    myr_fatal("internal error", "a finished ULT was switched to");
}
