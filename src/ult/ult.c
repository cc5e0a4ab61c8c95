/*
 * ult.c — ULT descriptors: spawn, join, exit, names.
 *
 * Join protocol. `joiner` is one of: NULL (joinable, nobody waiting yet),
 * JOIN_DETACHED, a waiting ULT, JOIN_CLAIMED or JOIN_DONE. The exit
 * callback (after the result is stored and the stack released) exchanges it
 * for JOIN_CLAIMED, frees a detached descriptor or resumes the joiner, and
 * only then stores JOIN_DONE. The joiner CASes NULL -> itself, suspends
 * while it reads a ULT, yields while it reads JOIN_CLAIMED (the exiting
 * side is between its two steps), and leaves on JOIN_DONE. So the joiner
 * cannot return, end, and have its own descriptor recycled while the
 * exiting side is still resuming it. The joiner frees the descriptor.
 *
 * Descriptors are recycled through per-worker free lists (owner only, so no
 * synchronisation); a list beyond FREE_ULTS_MAX goes back to malloc.
 */
#include "ult/core_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREE_ULTS_MAX 1024

static myr_ult *ult_alloc(myr_worker *w)
{
    myr_ult *u;
    if (w && w->free_ults) {
        u = w->free_ults;
        w->free_ults = u->pool_next;
        w->nfree_ults--;
    } else {
        u = aligned_alloc(64, (sizeof *u + 63) & ~(size_t)63);
        if (!u)
            return NULL;
    }
    memset(u, 0, sizeof *u);
    return u;
}

void myr_ult_free(myr_worker *w, myr_ult *u)
{
    free(u->keys);
    u->keys = NULL;
    myr_tls_free(u);
    if (w && w->nfree_ults < FREE_ULTS_MAX) {
        u->pool_next = w->free_ults;
        w->free_ults = u;
        w->nfree_ults++;
    } else {
        free(u);
    }
}

void myr_ult_pool_drain(myr_worker *w)
{
    while (w->free_ults) {
        myr_ult *u = w->free_ults;
        w->free_ults = u->pool_next;
        free(u);
    }
    w->nfree_ults = 0;
}

void myr_ult_caches_drain(myr_worker *w)
{
    for (int i = 0; i < MYR_ULT_NCACHES; i++) {
        myr_block_cache *c = &w->caches[i];
        while (c->head) {
            struct myr_block_link *b = c->head;
            c->head = b->next;
            free(b);
        }
        c->n = 0;
    }
}

/* ULTs spawned and not yet ended, main excluded. Ends are read before
 * spawns: every count is monotonic and a ULT's spawn happens before its
 * end (the spawn's count is stored before the ULT is published, and its
 * end's after it ran), so a spawn counted before an end that the first
 * pass saw is seen by the second, and the difference is never below the
 * number alive between the two passes: 0 means none was. */
long myr_ult_live(void)
{
    unsigned long ended = 0, spawned = 0;
    for (int i = 0; i < myr_rt.nworkers; i++)
        ended += atomic_load(&myr_rt.workers[i].ended);
    for (int i = 0; i < myr_rt.nworkers; i++)
        spawned += atomic_load(&myr_rt.workers[i].spawned);
    spawned += atomic_load(&myr_rt.outside_spawned);
    return (long)(spawned - ended);
}

/* Owner-only counts: a store, no locked add. An end's is sequentially
 * consistent (against myr_finalize, below), a spawn's a release. */
static inline void count(_Atomic unsigned long *c, memory_order order)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, order);
}

/* Exit callback, on worker w after u's stack went back to the pool. */
void myr_ult_release_done(myr_worker *w, myr_ult *u)
{
    atomic_store(&u->state, ULT_DONE);
    myr_ult *old = atomic_exchange(&u->joiner, JOIN_CLAIMED);
    if (old == JOIN_DETACHED) {
        myr_ult_free(w, u);
    } else {
        if (old)
            myr_ult_resume(old);
        atomic_store(&u->joiner, JOIN_DONE);  /* last touch of u */
    }
    count(&w->ended, memory_order_seq_cst);
    /* Against myr_finalize's store then myr_ult_live: one of the two
     * sees the other (both sequentially consistent). */
    if (__builtin_expect(atomic_load(&myr_rt.finalize_waiter) != NULL, 0) &&
        myr_ult_live() == 0) {
        myr_ult *waiter = atomic_exchange(&myr_rt.finalize_waiter, NULL);
        if (waiter)
            myr_ult_resume(waiter);
    }
}

/* A new ULT's id: from blocks a worker takes of the runtime's count. */
unsigned long myr_ult_new_id(myr_worker *w)
{
    enum { ID_BLOCK = 1024 };
    if (!w)
        return atomic_fetch_add_explicit(&myr_rt.next_id, 1, memory_order_relaxed);
    if (w->id_next == w->id_end) {
        w->id_next = atomic_fetch_add_explicit(&myr_rt.next_id, ID_BLOCK, memory_order_relaxed);
        w->id_end = w->id_next + ID_BLOCK;
    }
    return w->id_next++;
}

/* Not inlinable and opaque: every errno access through it asks this kernel
 * thread afresh (see myr_ult.h). */
__attribute__((noinline)) int *myr_errno_location(void)
{
    int *p = __errno_location();
    __asm__ __volatile__("" : "+r"(p));
    return p;
}

const char *myr_strerror(int err)
{
    switch (err) {
    case MYR_OK: return "no error";
    case MYR_ERR_ARG: return "invalid argument";
    case MYR_ERR_NOMEM: return "out of memory";
    case MYR_ERR_STATE: return "not allowed in this runtime state";
    case MYR_ERR_SYS: return "system call failed";
    default: return "unknown error code";
    }
}

static int spawn(myr_worker *target, bool anchored, myr_ult **out, myr_ult_fn fn, void *arg,
                 _Atomic(myr_ult *) *detached)
{
    if (out)
        *out = NULL;
    if (!myr_rt.initialized)
        return MYR_ERR_STATE;
    if (!fn)
        return MYR_ERR_ARG;
    myr_worker *me = myr_worker_current();
    myr_ult *u = ult_alloc(me);
    if (!u)
        return MYR_ERR_NOMEM;
    u->fn = fn;
    u->arg = arg;
    myr_ult *parent = myr_ult_self_internal();  /* a ULT or an adopted thread */
    if (parent)
        u->inherited = parent->inherited;
    u->id = myr_ult_new_id(me);
    atomic_init(&u->state, ULT_RUNNABLE);
    atomic_init(&u->joiner, out ? NULL : JOIN_DETACHED);
    if (me)
        count(&me->spawned, memory_order_release);
    else
        atomic_fetch_add(&myr_rt.outside_spawned, 1);
    if (!target)
        target = me ? me
                    : &myr_rt.workers[atomic_fetch_add(&myr_rt.spawn_rr, 1) %
                                      (unsigned)myr_rt.nworkers];
    u->worker = target;
    u->anchor = anchored ? target : NULL;
    if (anchored)
        atomic_fetch_add_explicit(&target->anchored, 1, memory_order_relaxed);
    if (out)
        *out = u;
    if (detached)
        atomic_store_explicit(detached, u, memory_order_relaxed);
    myr_sched_make_ready(u);
    return MYR_OK;
}

int myr_ult_spawn_detached_internal(myr_ult_fn fn, void *arg, _Atomic(myr_ult_t *) *handle)
{
    return spawn(NULL, false, NULL, fn, arg, handle);
}

/* The ULT spawned last may be the next this worker's deque gives out:
 * taken like a thief takes (one compare-and-swap on top, so a thief that
 * wants it too either gets it or fails), it never runs, and ends here. */
bool myr_ult_unspawn_internal(myr_ult_t *u)
{
    myr_worker *w = myr_worker_current();
    if (!w || !u || !myr_deque_take_if_first(&w->deque, u))
        return false;
    myr_ult_release_done(w, u);   /* detached, and no stack yet: freed */
    return true;
}

int myr_ult_spawn(myr_ult **out, myr_ult_fn fn, void *arg)
{
    return spawn(NULL, false, out, fn, arg, NULL);
}

int myr_ult_spawn_on(int worker, myr_ult **out, myr_ult_fn fn, void *arg)
{
    if (out)
        *out = NULL;
    if (!myr_rt.initialized)
        return MYR_ERR_STATE;
    if (worker < 0 || worker >= myr_rt.nworkers)
        return MYR_ERR_ARG;
    return spawn(&myr_rt.workers[worker], true, out, fn, arg, NULL);
}

int myr_ult_join(myr_ult *u, void **result)
{
    myr_ult *self = myr_ult_self();
    if (!u)
        return MYR_ERR_ARG;
    if (!self)
        return MYR_ERR_STATE;
    if (u == self || u->is_main || u->external)
        return MYR_ERR_ARG;
    myr_ult *expected = NULL;
    if (!atomic_compare_exchange_strong(&u->joiner, &expected, self) &&
        expected != JOIN_DONE && expected != JOIN_CLAIMED)
        return MYR_ERR_ARG;  /* detached, or another ULT joins it */
    for (myr_ult *j; (j = atomic_load(&u->joiner)) != JOIN_DONE;) {
        if (j == JOIN_CLAIMED)
            myr_ult_yield();
        else
            myr_ult_suspend();
    }
    if (result)
        *result = u->result;
    myr_ult_free(myr_worker_current(), u);
    return MYR_OK;
}

int myr_ult_exit(void *result)
{
    myr_ult *self = myr_ult_self();
    if (!self)
        return MYR_ERR_STATE;
    if (self->is_main || self->external)
        return MYR_ERR_STATE;
    self->result = result;
    myr_sched_finish(self);
}

myr_ult *myr_ult_self(void)
{
    return myr_ult_self_internal();
}

void *myr_ult_inherited(void)
{
    return myr_ult_inherited_internal();
}

int myr_ult_set_inherited(void *value)
{
    myr_ult *self = myr_ult_self();
    if (!self)
        return MYR_ERR_STATE;
    self->inherited = value;
    return MYR_OK;
}

unsigned long myr_ult_id(const myr_ult *u)
{
    return u ? u->id : 0;
}

int myr_ult_set_name(myr_ult *u, const char *name)
{
    if (!u)
        return MYR_ERR_ARG;
    if (!name) {
        u->name[0] = '\0';
        return MYR_OK;
    }
    size_t n = strlen(name);
    if (n >= sizeof u->name)
        n = sizeof u->name - 1;
    memcpy(u->name, name, n);
    u->name[n] = '\0';
    return MYR_OK;
}

const char *myr_ult_label(const myr_ult *u, char buf[64])
{
    if (u->name[0])
        return u->name;
    if (u->is_main)
        return "the main ULT";
    snprintf(buf, 64, "ULT %lu", u->id);
    return buf;
}
