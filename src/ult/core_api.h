/*
 * core_api.h — the ULT calls the layers above make on their hot paths
 * (blocking and completing a request), without the PLT.
 *
 * The public functions of myr_ult.h are exported from libmyriad, so a call
 * to them from inside the library goes through the PLT and cannot be
 * inlined (a program could interpose them). These are the same functions
 * under hidden names (the public ones are aliases of them), plus inline
 * versions of self/inherited, which are two loads. Semantics are exactly
 * those of the public functions; see sched.c for the invariants.
 */
#ifndef MYR_ULT_CORE_API_H
#define MYR_ULT_CORE_API_H

#include <stdlib.h>

#include "ult/internal.h"

#ifdef MYR_SANITIZE
#include <sanitizer/asan_interface.h>
#endif

#define MYR_ULT_HIDDEN __attribute__((visibility("hidden")))

/* myr_ult_resume, myr_ult_suspend, myr_ult_yield. */
MYR_ULT_HIDDEN int myr_ult_resume_slow(myr_ult_t *ult);
MYR_ULT_HIDDEN int myr_ult_suspend_internal(void);
/* A suspend for what only threads of this process complete (a collocated
 * round): the idle hooks' `blocked` does not run, since this wait gives
 * the network no reason to need a watcher (the waits that do call it). */
MYR_ULT_HIDDEN int myr_ult_suspend_local_internal(void);
MYR_ULT_HIDDEN void myr_ult_yield_internal(void);
/* A detached ULT whose handle is stored in *handle before it can run;
 * the handle stays valid only until the ULT begins (the caller must know
 * that it has not: see coll/nbc.c). */
MYR_ULT_HIDDEN int myr_ult_spawn_detached_internal(myr_ult_fn fn, void *arg,
                                                   _Atomic(myr_ult_t *) *handle);
/* Take back such a ULT that has not begun, if it is the next ULT of the
 * caller's worker: it never runs. False when it is elsewhere (then it
 * runs as usual). */
MYR_ULT_HIDDEN bool myr_ult_unspawn_internal(myr_ult_t *u);
/* A yield in place of a suspend (a waiter that polls): the idle hooks'
 * `blocked` runs first, as at a suspend, since the ULT stops watching. */
MYR_ULT_HIDDEN void myr_ult_yield_waiting_internal(void);

/* The usual case inline: `ult` is suspended, our CAS makes it runnable and
 * we queue it (sched.c: SUSPENDED -> RUNNABLE); anything else is the full
 * protocol of myr_ult_resume. */
static inline int myr_ult_resume_internal(myr_ult_t *ult)
{
    unsigned s = ULT_SUSPENDED;
    /* No load before the CAS: from another worker, a load would fetch the
     * line shared and the CAS fetch it again to own it. */
    if (__builtin_expect(ult != NULL, 1) &&
        atomic_compare_exchange_strong(&ult->state, &s, ULT_RUNNABLE)) {
        myr_sched_make_ready(ult);
        return MYR_OK;
    }
    return myr_ult_resume_slow(ult);
}

/* Is the whole runtime idle: every worker asleep for want of work, and no
 * kernel thread of the program (adopted, external.c) running? *epoch
 * changes whenever a worker goes back to sleep, so two snapshots that
 * agree mean that no worker ran anything between them. For the deadlock
 * check (launch/watchdog.c). */
MYR_ULT_HIDDEN bool myr_sched_quiescent(unsigned long *epoch);

/* Wait for a bit of *word without leaving the ready ULTs waiting: while
 * the calling ULT's worker has nothing else to run (empty deque and inbox)
 * and for at most its idle-spin budget (MYR_SPIN_US), spin on *word, as the
 * worker's scheduler would spin for work once the ULT suspended. A
 * completion from another worker then moves the word's cache line only,
 * instead of the ULT's descriptor, the worker's inbox and back. Returns
 * whether (*word & mask) != 0 (acquire); false at once off a worker, with
 * one worker (only another thread could set the bit), or when other work
 * is ready. The caller then blocks as usual. */
MYR_ULT_HIDDEN bool myr_ult_spin_while_idle_slow(const _Atomic int *word, int mask);
static inline bool myr_ult_spin_while_idle(const _Atomic int *word, int mask)
{
    if (myr_rt.nworkers == 1 && !myr_rt.outside_completions)
        return false;   /* the one-worker ping-pong pays no call for it */
    return myr_ult_spin_while_idle_slow(word, mask);
}
/* Whether worker w has other ULTs ready (a hint): a waiting ULT spins only
 * while it has not. */
static inline bool myr_worker_has_work(myr_worker *w)
{
    return myr_deque_size_hint(&w->deque) > 0 || myr_inbox_nonempty(&w->inbox);
}
/* Whether myr_ult_spin_while_idle would spin if called now: a waiter that
 * will spin can tell its completer so before it publishes what it waits
 * on. A hint: the spin may still end at once. */
static inline bool myr_ult_may_spin(void)
{
    if ((myr_rt.nworkers == 1 && !myr_rt.outside_completions) || myr_rt.spin_ns == 0)
        return false;
    myr_worker *w = myr_worker_current();
    return w && !myr_worker_has_work(w);
}
/* From now on, requests may also be completed by a thread that is not a
 * worker (the network's comm thread): waiters spin as with several
 * workers. Before the ULTs that wait start. */
MYR_ULT_HIDDEN void myr_ult_expect_outside_completions(void);
/* Work an idle worker can do for a layer above while one of its ULTs
 * spins waiting (myr_ult_spin_while_idle), and while it looks for work
 * before it sleeps: drive the network itself, so that a completion needs
 * no other thread. begin/end bracket a spin; poll runs every few turns of
 * it and returns MYR_ULT_IDLE_* bits (MOVED: it did something, or
 * something is under way, so the spin's budget starts again; YIELD: what
 * is under way needs a CPU of another thread, give this one away at this
 * turn). blocked runs when a ULT suspends with nothing else for its
 * worker to run, and when an idle worker goes to sleep: nobody here
 * watches any more, someone else may have to. blocked_busy runs instead
 * when the worker has other ULTs to run: it comes back to watch once they
 * stop, so only what cannot wait for that needs another watcher. Set
 * once, before the ULTs that wait start. */
typedef struct myr_ult_idle_hooks {
    void (*begin)(void);
    int (*poll)(void);
    void (*end)(void);
    void (*blocked)(void);
    void (*blocked_busy)(void);
} myr_ult_idle_hooks;
enum { MYR_ULT_IDLE_MOVED = 1, MYR_ULT_IDLE_YIELD = 2 };
MYR_ULT_HIDDEN void myr_ult_set_idle_hooks(const myr_ult_idle_hooks *hooks);
/* The same, waiting for *word to differ from `old` (a generation count). */
MYR_ULT_HIDDEN bool myr_ult_spin_while_idle_unchanged(const _Atomic unsigned *word,
                                                      unsigned old);

/* myr_ult_resume_internal for one of a batch of resumes: the caller calls
 * myr_ult_resume_batch_end() after the last one (one wake-up check of the
 * idle workers for the whole batch, instead of a fence per resume). */
static inline int myr_ult_resume_batch_internal(myr_ult_t *ult)
{
    unsigned s = ULT_SUSPENDED;
    if (__builtin_expect(ult != NULL, 1) &&
        atomic_compare_exchange_strong(&ult->state, &s, ULT_RUNNABLE)) {
        myr_sched_make_ready_quiet(ult);
        return MYR_OK;
    }
    return myr_ult_resume_slow(ult);
}

/* Only a batch that queued something on this worker's deque looks for a
 * sleeper to wake: a futex wake-up costs the caller microseconds, and the
 * woken worker then spins for work that does not exist (issue 23: a
 * collective of one rank paid 2-36 us per call for it). Work queued in
 * another worker's inbox was announced by myr_sched_make_ready already.
 * No switch happens within a batch, so this is the worker of its pushes. */
static inline void myr_ult_resume_batch_end(void)
{
    myr_worker *w = myr_worker_current();
    if (w && w->batch_pushed)
        myr_sched_batch_end_slow(w);
}

/* A hint that `ult`, just resumed, is about to run on this worker: start
 * loading the top of its saved stack, which its switch and its return to
 * its caller read first (the saved stack pointer is in the descriptor's
 * first line, which the resume has just read). Six lines: the switch
 * frame and the frames of a blocking call above it (measured: more was
 * slower). The caller must know that the ULT cannot have ended yet. If
 * the ULT had not finished suspending, the address may be stale, which
 * only makes the hint useless. */
static inline void myr_ult_prefetch_stack(myr_ult_t *ult)
{
    if (!ult)
        return;
    const char *sp = __atomic_load_n(&ult->fiber.ctx.sp, __ATOMIC_RELAXED);
    /* Unrolled: six prefetches, not a loop of 26 instructions per switch. */
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
        __builtin_prefetch(sp + 64 * i);
}

/* A hint that `ult` is about to be resumed: start loading, for writing, the
 * descriptor line whose state word the resume's compare-and-swap takes (a
 * locked instruction, which a miss stalls for the whole trip). */
static inline void myr_ult_prefetch_for_resume(myr_ult_t *ult)
{
    if (ult)
        __builtin_prefetch(ult, 1);
}

/* A hint that `ult` runs soon and reads its inherited value (every MPI
 * call of a rank does, first thing): start loading the descriptor's second
 * line, which a switch does not touch. */
static inline void myr_ult_prefetch_inherited(myr_ult_t *ult)
{
    if (ult)
        __builtin_prefetch(&ult->inherited);
}

/* myr_ult_self: the running ULT (or the adopted kernel thread's descriptor,
 * external.c), NULL elsewhere. Read afresh after any switch
 * (myr_worker_current, internal.h). */
static inline myr_ult_t *myr_ult_self_internal(void)
{
    myr_worker *w = myr_worker_current();
    return w ? w->current : myr_tls_external;
}

/* myr_ult_inherited. */
static inline void *myr_ult_inherited_internal(void)
{
    myr_ult *u = myr_ult_self_internal();
    return u ? u->inherited : NULL;
}

/* Per-worker caches of free malloc'd blocks (requests, envelopes), so that
 * the hot paths allocate without malloc: `which` < MYR_ULT_NCACHES names a
 * kind of block, each of one size chosen by the caller. The caller's
 * worker's list is used with plain loads and stores (nothing switches
 * between reading the worker and using its list). Off a worker (the
 * network's thread), or with MYR_ULT_CACHE_BYTES cached already, a
 * block goes to free(); cached blocks are freed at runtime shutdown. While
 * cached, a block's second pointer-sized word is the list link: its first
 * word keeps what the caller left there (a dead handle's magic number). */
struct myr_block_link {
    void *first;
    void *next;
};

/* A block of `size` bytes from `which`'s cache, or a new one. */
static inline void *myr_ult_cache_get(int which, size_t size)
{
    myr_worker *w = myr_worker_current();
    if (w) {
        myr_block_cache *c = &w->caches[which];
        struct myr_block_link *b = c->head;
        if (b) {
            c->head = b->next;
            c->n--;
#ifdef MYR_SANITIZE
            ASAN_UNPOISON_MEMORY_REGION(b, size);
#endif
            return b;
        }
    }
    /* Line-aligned: a block then starts a line, and the layers above put
     * what they touch together in its first lines. */
    return aligned_alloc(MYR_FETCH_LINE, (size + MYR_FETCH_LINE - 1) & ~(size_t)(MYR_FETCH_LINE - 1));
}

/* Give back a block of `size` bytes (the size it was got with). */
static inline void myr_ult_cache_put(int which, void *block, size_t size)
{
    myr_worker *w = myr_worker_current();
    if (w && w->caches[which].n < MYR_ULT_CACHE_BYTES / size) {
        myr_block_cache *c = &w->caches[which];
        ((struct myr_block_link *)block)->next = c->head;
        c->head = block;
        c->n++;
#ifdef MYR_SANITIZE
        /* A use after free still trips AddressSanitizer. */
        ASAN_POISON_MEMORY_REGION((char *)block + sizeof(struct myr_block_link),
                                  size - sizeof(struct myr_block_link));
#endif
        return;
    }
    (void)size;
    free(block);
}

#endif
