/*
 * p2p.c — the matching engine and the one-copy protocol (see p2p.h).
 *
 * Invariants:
 *   - A receive request is in its owner's posted queue, or being delivered
 *     by exactly one sender (who unlinked it under the lock), or complete.
 *   - An envelope is in its receiver's unexpected queue, or owned by exactly
 *     one receiver (who unlinked it, or took it with Mprobe), or freed.
 *   - The copy of the data happens outside the lock, by whoever unlinked the
 *     other side. A large send's buffer stays valid because its request is
 *     not complete until that copy is done.
 *   - `sreq->env` (the send's envelope) is written and cleared under the
 *     receiver's lock, so MPI_Cancel of a send races safely with matching.
 */
#include "core/p2p.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/remote.h"
#include "net/net.h"

/* ---- requests -------------------------------------------------------- */

/* Requests, envelopes and small eager copies come from per-worker caches
 * (ult/core_api.h; coll/nbc.c has cache 2). An eager copy of at most
 * EAGER_BLOCK bytes takes a whole block: malloc and free of the sizes a
 * halo exchange sends cost a few hundred instructions per message, and
 * the free of a copy another worker made takes its arena's lock. */
enum { CACHE_REQUEST = 0, CACHE_ENVELOPE = 1, CACHE_EAGER = 3, EAGER_BLOCK = 1024 };

void *myr_p2p_eager_alloc(size_t bytes)
{
    return bytes <= EAGER_BLOCK ? myr_ult_cache_get(CACHE_EAGER, EAGER_BLOCK) : malloc(bytes);
}

static void eager_free(void *copy, size_t bytes)
{
    if (bytes <= EAGER_BLOCK)
        myr_ult_cache_put(CACHE_EAGER, copy, EAGER_BLOCK);
    else
        free(copy);
}

struct myr_mpi_request *myr_request_new(myr_rank *owner, myr_req_kind kind)
{
    struct myr_mpi_request *r = myr_ult_cache_get(CACHE_REQUEST, sizeof *r);
    if (r) {
        myr_request_init(r, owner, kind);
        r->heap = true;
    }
    return r;
}

void myr_request_release(struct myr_mpi_request *r)
{
    r->magic = MYR_MAGIC_DEAD;
    bool heap = r->heap;
    if (__builtin_expect(r->why != NULL, 0)) {
        free(r->why);
        r->why = NULL;
    }
    if (heap) {
        myr_comm_release(r->comm);  /* the reference describe_* took */
        if (r->type)
            myr_datatype_release(r->type);  /* taken by the MPI layer */
    }
    /* Last but for the cache: a request that is not `heap` may live
     * inside its upper layer's block (a nonblocking collective's
     * operation, coll/nbc.c), which this gives back. */
    if (__builtin_expect(r->release_ext != NULL, 0))
        r->release_ext(r);
    if (heap)
        myr_ult_cache_put(CACHE_REQUEST, r, sizeof *r);
}

/* An envelope nobody references any more, with its data copy. */
static void envelope_free(myr_envelope *e)
{
    if (e->eager && e->eager != e->small)
        eager_free(e->eager, e->bytes);
    e->magic = MYR_MAGIC_DEAD;
    myr_ult_cache_put(CACHE_ENVELOPE, e, sizeof *e);
}

/* A blocking call's request: its waiter registered before the request was
 * published and nothing else can wait for it or free it, so plain stores do
 * (CLAIMED is ordered before the resume's sequentially consistent CAS,
 * COMPLETE is the last touch). Inline: the same-worker ping-pong path. */
static inline void complete_solo(struct myr_mpi_request *r)
{
    myr_ult_t *waiter = atomic_load_explicit(&r->waiter, memory_order_relaxed);
    if (__builtin_expect(waiter == NULL, 0)) {
        /* A waiter spinning on the request (myr_p2p_recv_blocking), which
         * registers itself if it stops: take its place atomically. Spinning,
         * it needs no resume, and its descriptor's line stays where it is. */
        waiter = atomic_exchange_explicit(&r->waiter, MYR_WAITER_CLAIMED,
                                          memory_order_acq_rel);
    } else {
        atomic_store_explicit(&r->waiter, MYR_WAITER_CLAIMED, memory_order_release);
    }
    if (waiter)
        myr_ult_resume_internal(waiter);
    atomic_store_explicit(&r->state, MYR_REQ_COMPLETE, memory_order_release);
}

/* myr_request_complete, with the solo case inline. */
static inline void complete(struct myr_mpi_request *r)
{
    if (r->solo)
        complete_solo(r);
    else
        myr_request_complete(r);
}

void myr_request_complete(struct myr_mpi_request *r)
{
    if (r->solo) {
        complete_solo(r);
        return;
    }
    myr_rank *owner = r->owner;  /* read before r may be freed */
    myr_ult_t *waiter = atomic_exchange(&r->waiter, MYR_WAITER_CLAIMED);
    void (*notify)(void *) = NULL;
    void *notify_arg = NULL;
    if (__builtin_expect(waiter == MYR_WAITER_NOTIFY, 0)) {
        notify = r->notify;
        notify_arg = r->notify_arg;
    } else if (waiter && waiter != MYR_WAITER_CLAIMED) {
        if (myr_waiter_is_group(waiter))
            waiter = myr_wait_group_arrive(waiter);
        if (waiter)
            myr_ult_resume_internal(waiter);
    }
    int old = atomic_fetch_or(&r->state, MYR_REQ_COMPLETE);
    if (old & MYR_REQ_FREED)
        myr_request_release(r);  /* MPI_Request_free came first: ours now */
    if (notify)
        notify(notify_arg);
    myr_wait_notify(owner);
}

static bool request_done_cb(void *arg)
{
    return myr_request_done(arg);
}

/* Suspended until COMPLETE; while the completer is between its CLAIMED and
 * COMPLETE steps (it resumed us already) we only yield. */
static void wait_claimed(struct myr_mpi_request *r)
{
    if (__builtin_expect(myr_wait_yields, 0)) {
        /* Polling: withdraw the registration so the completer resumes
         * nobody; if it has claimed us already, its resume only leaves a
         * pending one behind (waits tolerate those). */
        myr_ult_t *me = myr_ult_self_internal();
        atomic_compare_exchange_strong(&r->waiter, &me, NULL);
        while (!myr_request_done(r))
            myr_ult_yield_waiting_internal();
        return;
    }
    while (!myr_request_done(r)) {
        if (atomic_load_explicit(&r->waiter, memory_order_acquire) == MYR_WAITER_CLAIMED)
            myr_ult_yield_internal();
        else
            myr_ult_suspend_internal();
    }
}

/* wait_claimed, noted for the deadlock report. */
static inline void wait_claimed_noted(myr_rank *self, struct myr_mpi_request *r)
{
    myr_wait_note_set_request(self, r);
    wait_claimed(r);
    myr_wait_note_clear(self);
}

void myr_request_wait(myr_rank *self, struct myr_mpi_request *r)
{
    if (myr_request_done(r))
        return;
    /* A worker with nothing else to run would only spin in its scheduler:
     * spin here instead, and a completion from another worker costs a
     * store the waiter sees, not a resume through the inbox (for a solo
     * request the completer still resumes the registered waiter, which
     * then only leaves a pending resume behind: waits tolerate those). */
    if (myr_ult_spin_while_idle(&r->state, MYR_REQ_COMPLETE))
        return;
    if (r->solo) {
        wait_claimed_noted(self, r);  /* registered by myr_request_init_solo */
        return;
    }
    myr_ult_t *expected = NULL;
    if (atomic_compare_exchange_strong(&r->waiter, &expected, myr_ult_self_internal()) ||
        expected == MYR_WAITER_CLAIMED) {
        wait_claimed_noted(self, r);
        return;
    }
    /* Another ULT of this rank waits on it already (MPI_THREAD_MULTIPLE). */
    myr_wait_note note = {.kind = MYR_WAIT_REQUEST, .what = r};
    myr_wait_until(self, request_done_cb, r, &note);
}

void myr_request_wait_all(myr_rank *self, int count, struct myr_mpi_request *const requests[],
                          const myr_wait_note *note)
{
    /* The guard (1) keeps the count above 0 while we register: a request
     * completing meanwhile then cannot resume us before we are ready. */
    myr_wait_group group = {.ult = myr_ult_self_internal()};
    atomic_init(&group.pending, 1);
    myr_ult_t *tagged = (myr_ult_t *)((uintptr_t)&group | MYR_WAITER_GROUP_TAG);
    bool foreign = false;   /* a request another ULT waits for, or a task */
    for (int i = 0; i < count; i++) {
        struct myr_mpi_request *r = requests[i];
        if (!r || !r->active || myr_request_done(r))
            continue;
        /* Counted before it is published: its completer may arrive at once. */
        atomic_fetch_add_explicit(&group.pending, 1, memory_order_relaxed);
        myr_ult_t *expected = NULL;
        if (!atomic_compare_exchange_strong(&r->waiter, &expected, tagged)) {
            atomic_fetch_sub_explicit(&group.pending, 1, memory_order_relaxed);
            /* CLAIMED: being completed (its COMPLETE is awaited below). */
            if (expected != MYR_WAITER_CLAIMED)
                foreign = true;
        }
    }
    if (atomic_fetch_sub(&group.pending, 1) != 1) {
        bool noted = false;
        unsigned left;
        while ((left = atomic_load(&group.pending)) != 0) {
            /* A worker with nothing else to run watches the count instead:
             * a completer from another worker then only decrements it. */
            if (myr_ult_spin_while_idle_unchanged(&group.pending, left))
                continue;
            if (note && !noted) {
                myr_wait_note_set(self, note);
                noted = true;
            }
            /* The last completer resumes us; a resume left over from an
             * earlier wait only brings us back to the test. */
            myr_ult_suspend_internal();
        }
        if (noted)
            myr_wait_note_clear(self);
    }
    /* Each completer sets COMPLETE last, after its decrement and resume:
     * until then the request (and our ULT) may still be in its hands. */
    for (int i = 0; i < count; i++) {
        struct myr_mpi_request *r = requests[i];
        if (r && r->active)
            while (atomic_load_explicit(&r->waiter, memory_order_acquire) ==
                       MYR_WAITER_CLAIMED &&
                   !myr_request_done(r))
                myr_ult_yield_internal();
    }
    if (foreign) {
        for (int i = 0; i < count; i++)
            if (requests[i] && requests[i]->active)
                myr_request_wait(self, requests[i]);
    }
}

/* Completion by the request's own blocking call: nobody else can be
 * waiting for it, so a plain store is enough. */
static void complete_own(struct myr_mpi_request *r)
{
    if (r->solo)
        atomic_store_explicit(&r->state, MYR_REQ_COMPLETE, memory_order_relaxed);
    else
        myr_request_complete(r);
}

/* Completion while the request is being started: its handle is not yet
 * the program's (or, for MPI_Start, the program is inside the call), so no
 * ULT can wait for it, free it or make a task depend on it yet: plain
 * stores, no notification. CLAIMED, as any completer leaves it, tells the
 * later registrations (a wait, a task's dependence) that it is done. */
static inline void complete_at_start(struct myr_mpi_request *r)
{
    atomic_store_explicit(&r->waiter, MYR_WAITER_CLAIMED, memory_order_relaxed);
    atomic_store_explicit(&r->state, MYR_REQ_COMPLETE, memory_order_relaxed);
}

void myr_status_empty(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->myr_cancelled = 0;
    s->myr_bytes = 0;
}

/* ---- copying ---------------------------------------------------------- */

/* Copy `bytes` of data from (src, stype) to (dst, dtype). Contiguous on
 * both sides: one memcpy. Otherwise the two layouts are walked together,
 * block by block, with no intermediate buffer (typewalk.c). */
static void copy_data(void *dst, MPI_Datatype dtype, const void *src,
                      MPI_Datatype stype, int scount, size_t bytes)
{
    (void)scount;
    if (bytes == 0)
        return;
    if (__builtin_expect(stype->contig && dtype->contig, 1)) {
        memcpy(dst, src, bytes);
        return;
    }
    myr_datatype_transfer(dst, dtype, src, stype, bytes);
}

/* Deliver envelope data into receive request `rr`, complete it. Always
 * inline: it is most of a matched send, and its callers pass constants. */
static inline __attribute__((always_inline)) void
fill_and_complete_recv(struct myr_mpi_request *rr, int source, int tag,
                       const void *data, MPI_Datatype stype, int scount,
                       size_t bytes, bool own)
{
    size_t capacity = (size_t)rr->count * rr->type->size;
    size_t n = bytes <= capacity ? bytes : capacity;
    copy_data(rr->rbuf, rr->type, data, stype, scount, n);
    rr->status.MPI_SOURCE = source;
    rr->status.MPI_TAG = tag;
    rr->status.MPI_ERROR = myr_p2p_recv_error(rr->type, bytes, capacity);
    rr->status.myr_cancelled = 0;
    rr->status.myr_bytes = (MPI_Count)n;
    if (own)
        complete_at_start(rr);
    else
        complete(rr);
}

void myr_bsend_release(myr_rank *owner, size_t bytes)
{
    atomic_fetch_sub(&owner->bsend.used, bytes);
    myr_wait_notify(owner);  /* MPI_Buffer_detach may wait */
}

static void release_bsend(myr_envelope *e)
{
    if (e->bsend_owner)
        myr_bsend_release(e->bsend_owner, e->bsend_bytes);
}

/* Receiver side: `e` was unlinked by us; copy and finish both sides.
 * False when rr completes later: a rendezvous message of another process,
 * whose data is being fetched. */
static bool take_envelope(struct myr_mpi_request *rr, myr_envelope *e)
{
    if (__builtin_expect(e->proc >= 0, 0)) {
        /* From another process. */
        if (e->sync)
            myr_remote_ack(e);
        if (e->rndv) {
            myr_remote_take_rndv(rr, e);
            return false;
        }
    }
    fill_and_complete_recv(rr, e->source, e->tag, e->data, e->type, e->count,
                           e->bytes, true);
    if (e->sreq) {
        e->sreq->status.MPI_ERROR = MPI_SUCCESS;
        myr_request_complete(e->sreq);
    }
    release_bsend(e);
    envelope_free(e);
    return true;
}

/* ---- queues (caller holds the receiver's lock) ----------------------- */

static inline bool matches(unsigned ctx, int src, int tag, unsigned want_ctx,
                           int want_src, int want_tag)
{
    return ctx == want_ctx && (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

/* ---- the queues by source -------------------------------------------------
 * A receive that names its source takes the first message of that source
 * it matches (MPI orders messages per source), and a message the first
 * receive posted for its source or for any; a walk of either queue finds
 * it behind every earlier entry of the other sources, so N messages taken
 * in another order than they came, or N receives posted before their
 * messages, cost N^2 / 2 steps (65,536 ranks each sending to rank 0: 6.3
 * s to receive from N - 1 down to 1, 3.7 s with the receives posted
 * first). Once a search walks INDEX_FROM entries, each source's entries
 * are also chained (snext, sprev) from an open-addressing table of
 * sources, kept until the queue empties. Searches that find their entry
 * at once, the usual case, only count their steps (counting every append
 * instead cost 4 ns of a 40 ns round trip). Posted receives of
 * MPI_ANY_SOURCE have a chain of their own, and a message takes the
 * earlier (post_seq) of the first match of its source's chain and of
 * that one; a receive of MPI_ANY_SOURCE still walks the unexpected
 * messages. */
enum { INDEX_FROM = 64 };

typedef struct source_chain {
    int source;                  /* INT_MIN: a free slot */
    void *head, *tail;           /* myr_envelope or struct myr_mpi_request */
} source_chain;

struct myr_match_index {
    unsigned cap, used;          /* cap a power of two, used <= cap / 2 */
    source_chain slot[];
};

static struct myr_match_index *index_new(unsigned cap)
{
    struct myr_match_index *ix = malloc(sizeof *ix + cap * sizeof ix->slot[0]);
    if (!ix)
        return NULL;
    ix->cap = cap;
    ix->used = 0;
    for (unsigned i = 0; i < cap; i++)
        ix->slot[i] = (source_chain){.source = INT_MIN};
    return ix;
}

/* The slot of `source`, or where it would go (a free one). */
static source_chain *index_slot(struct myr_match_index *ix, int source)
{
    unsigned mask = ix->cap - 1, i = ((unsigned)source * 0x9e3779b1u) & mask;
    while (ix->slot[i].source != INT_MIN && ix->slot[i].source != source)
        i = (i + 1) & mask;
    return &ix->slot[i];
}

/* `source`'s slot in *ixp, added (the table grown first if need be);
 * NULL when out of memory. */
static source_chain *index_slot_for(struct myr_match_index **ixp, int source)
{
    struct myr_match_index *ix = *ixp;
    source_chain *c = index_slot(ix, source);
    if (c->source == source)
        return c;
    if (2 * (ix->used + 1) > ix->cap) {
        struct myr_match_index *grown = index_new(2 * ix->cap);
        if (!grown)
            return NULL;
        for (unsigned i = 0; i < ix->cap; i++)
            if (ix->slot[i].source != INT_MIN) {
                *index_slot(grown, ix->slot[i].source) = ix->slot[i];
                grown->used++;
            }
        free(ix);
        *ixp = ix = grown;
        c = index_slot(ix, source);
    }
    c->source = source;
    c->head = c->tail = NULL;
    ix->used++;
    return c;
}

static void index_drop(struct myr_match_index **ixp)
{
    free(*ixp);
    *ixp = NULL;
}

/* A new table for the sources of `count` entries, or NULL. */
static struct myr_match_index *index_for(unsigned long count)
{
    unsigned cap = 64;
    while (cap < 2 * count && cap < (1u << 30))
        cap *= 2;
    return index_new(cap);
}

/* The chain links of the two kinds of entries. The same steps for both
 * (a macro, not a copy each): append `x` at `source`'s chain's end, or
 * take it out of it. */
#define CHAIN_APPEND(c, x, type)                                           \
    do {                                                                   \
        (x)->snext = NULL;                                                 \
        (x)->sprev = (type *)(c)->tail;                                    \
        if ((c)->tail) ((type *)(c)->tail)->snext = (x); else (c)->head = (x); \
        (c)->tail = (x);                                                   \
    } while (0)
#define CHAIN_REMOVE(c, x)                                                 \
    do {                                                                   \
        if ((x)->sprev) (x)->sprev->snext = (x)->snext; else (c)->head = (x)->snext; \
        if ((x)->snext) (x)->snext->sprev = (x)->sprev; else (c)->tail = (x)->sprev; \
        (x)->snext = (x)->sprev = NULL;                                    \
    } while (0)

/* e, the queue's newest, at the end of its source's chain. */
static void unexpected_index(myr_match_queues *q, myr_envelope *e)
{
    source_chain *c = index_slot_for(&q->by_source, e->source);
    if (!c) {
        index_drop(&q->by_source);   /* out of memory: walk the queue */
        return;
    }
    CHAIN_APPEND(c, e, myr_envelope);
}

/* The unexpected queue's index, built after a long walk (of `walked`). */
static __attribute__((noinline)) void unexpected_build_index(myr_match_queues *q,
                                                             unsigned long walked)
{
    unsigned long n = walked;
    for (myr_envelope *x = q->unexpected_head; x && n < 2 * walked; x = x->next)
        n++;   /* a size hint: at least what was walked */
    if (!(q->by_source = index_for(n)))
        return;
    for (myr_envelope *x = q->unexpected_head; x && q->by_source; x = x->next)
        unexpected_index(q, x);
}

static __attribute__((noinline)) myr_envelope *
unexpected_find_indexed(myr_match_queues *q, unsigned ctx, int src, int tag)
{
    source_chain *c = index_slot(q->by_source, src);
    myr_envelope *e = c->source == src ? c->head : NULL;
    for (; e; e = e->snext)
        if (matches(e->context_id, e->source, e->tag, ctx, src, tag))
            return e;
    return NULL;
}

/* Inline, the index out of line: the usual search finds its entry first. */
static inline __attribute__((always_inline)) myr_envelope *
unexpected_find(myr_match_queues *q, unsigned ctx, int src, int tag)
{
    if (__builtin_expect(q->by_source != NULL, 0) && src != MPI_ANY_SOURCE)
        return unexpected_find_indexed(q, ctx, src, tag);
    unsigned long walked = 0;
    for (myr_envelope *e = q->unexpected_head; e; e = e->next, walked++)
        if (matches(e->context_id, e->source, e->tag, ctx, src, tag)) {
            if (__builtin_expect(walked >= INDEX_FROM, 0) && !q->by_source)
                unexpected_build_index(q, walked);
            return e;
        }
    if (__builtin_expect(walked >= INDEX_FROM, 0) && !q->by_source)
        unexpected_build_index(q, walked);
    return NULL;
}

static __attribute__((noinline)) void unexpected_unindex(myr_match_queues *q,
                                                         myr_envelope *e)
{
    source_chain *c = index_slot(q->by_source, e->source);
    CHAIN_REMOVE(c, e);
    if (!q->unexpected_head)
        index_drop(&q->by_source);
}

static inline __attribute__((always_inline)) void unexpected_unlink(myr_match_queues *q,
                                                                    myr_envelope *e)
{
    if (e->prev) e->prev->next = e->next; else q->unexpected_head = e->next;
    if (e->next) e->next->prev = e->prev; else q->unexpected_tail = e->prev;
    e->next = e->prev = NULL;
    if (__builtin_expect(q->by_source != NULL, 0))
        unexpected_unindex(q, e);
    if (e->sreq)
        e->sreq->env = NULL;  /* no longer cancellable */
}

static inline __attribute__((always_inline)) void unexpected_append(myr_match_queues *q,
                                                                    myr_envelope *e)
{
    e->next = NULL;
    e->prev = q->unexpected_tail;
    if (q->unexpected_tail) q->unexpected_tail->next = e; else q->unexpected_head = e;
    q->unexpected_tail = e;
    if (__builtin_expect(q->by_source != NULL, 0))
        unexpected_index(q, e);
}

/* r, the queue's newest, at the end of its source's chain (MPI_ANY_SOURCE
 * is a chain too). */
static void posted_index(myr_match_queues *q, struct myr_mpi_request *r)
{
    source_chain *c = index_slot_for(&q->posted_by_source, r->peer);
    if (!c) {
        index_drop(&q->posted_by_source);
        return;
    }
    CHAIN_APPEND(c, r, struct myr_mpi_request);
    r->post_seq = ++q->posted_seq;   /* indexed in posting order */
}

/* The first receive of chain c that a message (ctx, src, tag) matches. */
static struct myr_mpi_request *posted_first(struct myr_match_index *ix, int chain,
                                            unsigned ctx, int src, int tag)
{
    source_chain *c = index_slot(ix, chain);
    struct myr_mpi_request *r = c->source == chain ? c->head : NULL;
    for (; r; r = r->snext)
        if (matches(ctx, src, tag, r->comm->context_id, r->peer, r->tag))
            return r;
    return NULL;
}

/* The posted queue's index, built after a long walk (of `walked`). */
static __attribute__((noinline)) void posted_build_index(myr_match_queues *q,
                                                         unsigned long walked)
{
    unsigned long n = walked;
    for (struct myr_mpi_request *x = q->posted_head; x && n < 2 * walked; x = x->next)
        n++;
    if (!(q->posted_by_source = index_for(n)))
        return;
    for (struct myr_mpi_request *x = q->posted_head; x && q->posted_by_source; x = x->next)
        posted_index(q, x);
}

static __attribute__((noinline)) struct myr_mpi_request *
posted_find_indexed(myr_match_queues *q, unsigned ctx, int src, int tag)
{
    struct myr_mpi_request *named = posted_first(q->posted_by_source, src, ctx, src, tag),
                           *any = posted_first(q->posted_by_source, MPI_ANY_SOURCE,
                                               ctx, src, tag);
    if (named && any)
        return named->post_seq < any->post_seq ? named : any;
    return named ? named : any;
}

static inline __attribute__((always_inline)) struct myr_mpi_request *
posted_find(myr_match_queues *q, unsigned ctx, int src, int tag)
{
    if (__builtin_expect(q->posted_by_source != NULL, 0))
        return posted_find_indexed(q, ctx, src, tag);
    unsigned long walked = 0;
    for (struct myr_mpi_request *r = q->posted_head; r; r = r->next, walked++)
        if (matches(ctx, src, tag, r->comm->context_id, r->peer, r->tag)) {
            if (__builtin_expect(walked >= INDEX_FROM, 0))
                posted_build_index(q, walked);
            return r;
        }
    if (__builtin_expect(walked >= INDEX_FROM, 0))
        posted_build_index(q, walked);
    return NULL;
}

static __attribute__((noinline)) void posted_unindex(myr_match_queues *q,
                                                     struct myr_mpi_request *r)
{
    source_chain *c = index_slot(q->posted_by_source, r->peer);
    CHAIN_REMOVE(c, r);
    if (!q->posted_head)
        index_drop(&q->posted_by_source);
}

static inline __attribute__((always_inline)) void posted_unlink(myr_match_queues *q,
                                                                struct myr_mpi_request *r)
{
    if (r->prev) r->prev->next = r->next; else q->posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else q->posted_tail = r->prev;
    r->next = r->prev = NULL;
    if (__builtin_expect(q->posted_by_source != NULL, 0))
        posted_unindex(q, r);
    if (__builtin_expect(r->expects_remote, 0)) {
        if (r->expects_remote == MYR_EXPECTS_SOON)
            myr_net_expect_soon_end();
        else
            myr_net_expect_end();
        r->expects_remote = 0;
    }
}

static inline __attribute__((always_inline)) void posted_append(myr_match_queues *q,
                                                                struct myr_mpi_request *r)
{
    r->next = NULL;
    r->prev = q->posted_tail;
    if (q->posted_tail) q->posted_tail->next = r; else q->posted_head = r;
    q->posted_tail = r;
    if (__builtin_expect(q->posted_by_source != NULL, 0))
        posted_index(q, r);
}

void myr_p2p_queues_fini(myr_match_queues *q)
{
    index_drop(&q->by_source);
    index_drop(&q->posted_by_source);
}

/* ---- send -------------------------------------------------------------- */

/* The job rank of comm rank `peer` of `comm`, for a peer in another
 * process (which has no myr_rank here). */
static inline long remote_job_rank(MPI_Comm comm, int peer)
{
    return comm->kind == MYR_COMM_WORLD ? peer
           : comm->kind == MYR_COMM_INTER ? comm->remote_members[peer]
           : comm->members[peer];
}

/* A send, with its request `s` or, for a blocking send, none (NULL): then
 * it returns MYR_P2P_NEEDS_REQUEST, having queued nothing, when it has to
 * wait for its receive (a synchronous or large send with no receive
 * posted yet); the caller makes a request and starts it again. Always
 * inline: instantiated once with a request and once without, and the
 * blocking one is most of a same-worker ping-pong. */
static inline __attribute__((always_inline)) int
send_core(myr_rank *self, const void *buf, int count, MPI_Datatype type, int peer,
          int tag, MPI_Comm comm, myr_send_mode mode, struct myr_mpi_request *s)
{
    if (peer == MPI_PROC_NULL) {
        if (s) {
            myr_status_empty(&s->status);
            complete_at_start(s);
        }
        return MPI_SUCCESS;
    }
    myr_rank *dest;
    int src;
    if (__builtin_expect(comm->kind == MYR_COMM_WORLD, 1)) {
        /* What myr_comm_peer/myr_comm_rank answer for MPI_COMM_WORLD
         * (peer checked by the caller), without two calls through the PLT. */
        dest = myr_job_rank(peer);
        src = self->world_rank;
    } else {
        dest = myr_comm_peer(comm, self, peer);
        src = myr_comm_rank(comm, self);
    }
    if (s)
        s->dest = dest;
    if (__builtin_expect(dest == NULL, 0)) {
        /* A rank of another OS process. */
        return myr_remote_send(self, buf, count, type, remote_job_rank(comm, peer), src,
                               tag, comm->context_id, mode, s);
    }
    unsigned ctx = comm->context_id;
    size_t bytes = (size_t)count * type->size;

    /* Buffered sends reserve space in the attached buffer first. */
    size_t reserve = mode == MYR_MODE_BUFFERED ? bytes + MPI_BSEND_OVERHEAD : 0;
    if (reserve && !myr_bsend_reserve(self, reserve))
        return MPI_ERR_BUFFER;

    myr_match_queues *q = &dest->match;
    myr_spin_lock(&q->lock);
    struct myr_mpi_request *rr = posted_find(q, ctx, src, tag);
    if (rr) {
        posted_unlink(q, rr);
        myr_spin_unlock(&q->lock);
        fill_and_complete_recv(rr, src, tag, buf, type, count, bytes, false);
        if (reserve)
            atomic_fetch_sub(&self->bsend.used, reserve);
        if (s) {
            s->status.MPI_ERROR = MPI_SUCCESS;
            complete_at_start(s);
        }
        return MPI_SUCCESS;
    }
    myr_spin_unlock(&q->lock);

    /* No receive yet: build an envelope (outside the lock: allocation,
     * copy). A small eager copy lives in the envelope itself. */
    bool eager = mode == MYR_MODE_BUFFERED ||
                 (mode != MYR_MODE_SYNC && bytes <= MYR_EAGER_BYTES);
    if (!s && !eager)
        return MYR_P2P_NEEDS_REQUEST;  /* reserve is 0: not buffered */
    myr_envelope *e = myr_ult_cache_get(CACHE_ENVELOPE, sizeof *e);
    if (!e) {
        if (reserve)
            atomic_fetch_sub(&self->bsend.used, reserve);
        return MPI_ERR_NO_MEM;
    }
    void *copy = NULL;
    if (eager && bytes) {
        copy = bytes <= sizeof e->small ? e->small : myr_p2p_eager_alloc(bytes);
        if (copy) {
            copy_data(copy, MPI_BYTE, buf, type, count, bytes);
        } else if (!s) {
            /* No memory for the copy: with a request, it need not copy. */
            if (reserve)
                atomic_fetch_sub(&self->bsend.used, reserve);
            myr_ult_cache_put(CACHE_ENVELOPE, e, sizeof *e);
            return MYR_P2P_NEEDS_REQUEST;
        } else {
            eager = false;  /* it waits for its receive instead */
        }
    }
    /* Field by field: an initialiser would also clear `small`. */
    e->magic = MYR_MAGIC_MESSAGE;
    e->next = e->prev = NULL;
    e->context_id = ctx;
    e->source = src;
    e->tag = tag;
    e->bytes = bytes;
    e->data = eager ? copy : buf;
    e->count = eager ? (int)bytes : count;
    e->type = eager ? MPI_BYTE : type;
    e->sreq = eager ? NULL : s;
    e->eager = copy;
    e->bsend_owner = reserve ? self : NULL;
    e->bsend_bytes = reserve;
    e->receiver = dest;
    e->rndv = NULL;
    e->proc = -1;

    myr_spin_lock(&q->lock);
    /* A receive may have been posted while we were unlocked. It found no
     * matching envelope when it was posted, and every envelope since then
     * checked it first: so ours is the first message it can match. */
    rr = posted_find(q, ctx, src, tag);
    if (rr) {
        posted_unlink(q, rr);
        myr_spin_unlock(&q->lock);
        fill_and_complete_recv(rr, src, tag, buf, type, count, bytes, false);
        if (reserve)
            atomic_fetch_sub(&self->bsend.used, reserve);
        envelope_free(e);
        if (s) {
            s->status.MPI_ERROR = MPI_SUCCESS;
            complete_at_start(s);
        }
        return MPI_SUCCESS;
    }
    if (s && !eager)
        s->env = e;
    unexpected_append(q, e);
    myr_spin_unlock(&q->lock);
    myr_wait_notify(dest);  /* a probe may be waiting for this message */
    if (eager && s) {
        s->status.MPI_ERROR = MPI_SUCCESS;
        complete_at_start(s);
    }
    return MPI_SUCCESS;
}

int myr_p2p_start_send(struct myr_mpi_request *s)
{
    myr_request_number(s);
    atomic_store_explicit(&s->state, 0, memory_order_relaxed);
    if (!s->solo)
        atomic_store_explicit(&s->waiter, NULL, memory_order_relaxed);
    s->env = NULL;
    return send_core(s->owner, s->sbuf, s->count, s->type, s->peer, s->tag, s->comm,
                     (myr_send_mode)s->mode, s);
}

int myr_p2p_send_blocking(myr_rank *self, const void *buf, int count, MPI_Datatype type,
                          int peer, int tag, MPI_Comm comm, myr_send_mode mode)
{
    return send_core(self, buf, count, type, peer, tag, comm, mode, NULL);
}

/* ---- receive ------------------------------------------------------------ */

/* A receive from MPI_PROC_NULL: done at once, with an empty status. */
static void recv_from_proc_null(struct myr_mpi_request *r)
{
    myr_status_empty(&r->status);
    r->status.MPI_SOURCE = MPI_PROC_NULL;
    complete_at_start(r);
}

/* Whether a message from comm rank `source` will likely be copied on this
 * core: its sender is placed on the caller's worker (ranks stay on the
 * worker they are anchored to, launch/rank_start.c). Computed from the
 * placement, not read from the peer's state, which lives in another
 * core's cache when it is not. */
static inline bool sender_shares_worker(myr_rank *self, MPI_Comm comm, int source)
{
    int workers = myr_rt.nworkers;
    if (workers == 1)
        return true;
    if (source < 0)
        return false;   /* MPI_ANY_SOURCE */
    myr_rank *sender = comm->kind == MYR_COMM_WORLD ? myr_job_rank(source)
                                                    : myr_comm_peer(comm, self, source);
    if (!sender)
        return false;   /* another process: the comm thread copies */
    long n = myr_the_job.local, first = myr_the_job.first;
    return myr_job_worker_of(self->world_rank - first, n, workers) ==
           myr_job_worker_of(sender->world_rank - first, n, workers);
}

/* A posted receive waits for its sender to copy into its buffer. When the
 * sender will copy on this core, start bringing a small contiguous
 * buffer's lines into the cache for writing now: the copy's stores then
 * find their lines (a store whose line is missing holds the store queue,
 * and every store of the sender's own work after the copy waits behind
 * it). Not for a sender on another core, which would have to take the
 * lines back (and usually has them: it wrote the previous message there).
 * Small only: a large buffer would push the rest out of the cache, and
 * its copy is long enough for the hardware's own prefetching. */
static inline void prefetch_receive_buffer(myr_rank *self, const struct myr_mpi_request *r)
{
    size_t bytes = (size_t)r->count * r->type->size;
    if (bytes < 2 * MYR_FETCH_LINE || bytes > 4096 || !r->type->contig ||
        !sender_shares_worker(self, r->comm, r->peer))
        return;
    uintptr_t at = (uintptr_t)r->rbuf & ~(uintptr_t)(MYR_FETCH_LINE - 1);
    for (; at < (uintptr_t)r->rbuf + bytes; at += MYR_FETCH_LINE)
        __builtin_prefetch((const void *)at, 1);
}

/* Take the first matching message of `self`'s unexpected queue into r, or
 * post r (true: it waits, in the posted queue or for a remote message's
 * data). The envelope (ctx, source,
 * tag) is r's own, passed as values: the callers have them in registers.
 * A receive that a message of another process may match tells the
 * network it is awaited (net.h); `waiting`: its caller waits for it now. */
static inline __attribute__((always_inline)) bool
take_or_post(myr_rank *self, struct myr_mpi_request *r, unsigned ctx, int source, int tag,
             bool waiting)
{
    myr_match_queues *q = &self->match;
    myr_spin_lock(&q->lock);
    myr_envelope *e = unexpected_find(q, ctx, source, tag);
    if (e) {
        unexpected_unlink(q, e);
        myr_spin_unlock(&q->lock);
        return !take_envelope(r, e);
    }
    /* Counted before a match can uncount it (both under the lock); the
     * comm thread is woken, if need be, outside it. */
    unsigned char remote = 0;
    if (__builtin_expect(myr_comm_reaches_processes(r->comm), 0)) {
        /* Watched soon when only an eager message fits (net.h), at once
         * if a rendezvous transfer may follow. */
        if ((size_t)r->count * r->type->size <= myr_net_eager_limit()) {
            remote = MYR_EXPECTS_SOON;
            myr_net_expect_soon_begin();
        } else {
            remote = MYR_EXPECTS_NOW;
            myr_net_expect_begin(true);
        }
    }
    r->expects_remote = remote;
    posted_append(q, r);
    myr_spin_unlock(&q->lock);
    if (__builtin_expect(remote && !waiting, 0)) {
        if (remote == MYR_EXPECTS_SOON)
            myr_net_watch_soon();
        else
            myr_net_blocked();   /* nobody waits for it now: watch */
    }
    prefetch_receive_buffer(self, r);
    return true;
}

void myr_p2p_start_recv(struct myr_mpi_request *r)
{
    myr_request_number(r);
    atomic_store_explicit(&r->state, 0, memory_order_relaxed);
    if (!r->solo)
        atomic_store_explicit(&r->waiter, NULL, memory_order_relaxed);
    if (r->peer == MPI_PROC_NULL)
        recv_from_proc_null(r);
    else
        take_or_post(r->owner, r, r->comm->context_id, r->peer, r->tag, false);
}

void myr_p2p_recv_blocking(myr_rank *self, struct myr_mpi_request *r, void *buf,
                           int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm)
{
    /* A waiter that will spin (its worker has nothing else to run) says so
     * with no waiter registered (see complete_solo). */
    bool spin = myr_ult_may_spin();
    /* Only what is read of a receive's request (myr_request_init_head):
     * fewer stores, each of which queues behind the previous message's
     * copy when that missed the cache (bench/README, overhead). */
    myr_request_init_head(r, self, MYR_REQ_RECV, true,
                          spin ? NULL : myr_ult_self_internal());
    myr_request_set_recv(r, buf, count, type, source, tag, comm);
    if (source == MPI_PROC_NULL) {
        recv_from_proc_null(r);
        return;
    }
    if (!take_or_post(self, r, comm->context_id, source, tag, true))
        return;
    /* myr_request_wait for a solo request that was just posted. */
    if (spin) {
        if (myr_ult_spin_while_idle(&r->state, MYR_REQ_COMPLETE))
            return;
        /* Register to be resumed; failing, the completer has claimed the
         * request, and wait_claimed yields until it is complete. */
        myr_ult_t *none = NULL;
        atomic_compare_exchange_strong(&r->waiter, &none, myr_ult_self_internal());
    }
    wait_claimed_noted(self, r);
}

void myr_p2p_start_mrecv(struct myr_mpi_request *r, myr_envelope *msg)
{
    myr_request_number(r);
    atomic_store_explicit(&r->state, 0, memory_order_relaxed);
    if (!r->solo)
        atomic_store_explicit(&r->waiter, NULL, memory_order_relaxed);
    take_envelope(r, msg);
}

/* ---- messages from other processes (see p2p.h) ------------------------ */

struct myr_mpi_request *myr_p2p_match_posted(myr_rank *dest, unsigned ctx, int src,
                                             int tag)
{
    myr_match_queues *q = &dest->match;
    myr_spin_lock(&q->lock);
    struct myr_mpi_request *rr = posted_find(q, ctx, src, tag);
    if (rr)
        posted_unlink(q, rr);
    myr_spin_unlock(&q->lock);
    return rr;
}

struct myr_mpi_request *myr_p2p_queue_unexpected(myr_envelope *e)
{
    myr_rank *dest = e->receiver;
    myr_match_queues *q = &dest->match;
    myr_spin_lock(&q->lock);
    /* As in send_core: a receive posted since the caller looked matches
     * this message first. */
    struct myr_mpi_request *rr = posted_find(q, e->context_id, e->source, e->tag);
    if (rr) {
        posted_unlink(q, rr);
        myr_spin_unlock(&q->lock);
        return rr;
    }
    unexpected_append(q, e);
    myr_spin_unlock(&q->lock);
    myr_wait_notify(dest);  /* a probe may be waiting for this message */
    return NULL;
}

void myr_p2p_complete_recv(struct myr_mpi_request *rr, int source, int tag,
                           const void *data, size_t bytes)
{
    fill_and_complete_recv(rr, source, tag, data, MPI_BYTE, (int)bytes, bytes, false);
}

myr_envelope *myr_p2p_unqueue_remote(myr_rank *dest, int proc, unsigned long long serial)
{
    myr_match_queues *q = &dest->match;
    myr_spin_lock(&q->lock);
    myr_envelope *e = q->unexpected_head;
    while (e && !(e->proc == proc && e->serial == serial))
        e = e->next;
    if (e)
        unexpected_unlink(q, e);
    myr_spin_unlock(&q->lock);
    return e;
}

myr_envelope *myr_p2p_envelope_new(void)
{
    myr_envelope *e = myr_ult_cache_get(CACHE_ENVELOPE, sizeof *e);
    if (e) {
        e->magic = MYR_MAGIC_MESSAGE;
        e->next = e->prev = NULL;
        e->sreq = NULL;
        e->eager = NULL;
        e->bsend_owner = NULL;
        e->bsend_bytes = 0;
        e->proc = -1;
        e->sync = false;
        e->rndv = NULL;
    }
    return e;
}

void myr_p2p_envelope_free(myr_envelope *e)
{
    envelope_free(e);
}

/* ---- probe -------------------------------------------------------------- */

typedef struct probe_arg {
    myr_rank *self;
    unsigned ctx;
    int source, tag;
    bool take;
    MPI_Status *status;
    myr_envelope **msg;
} probe_arg;

static bool probe_once(void *p)
{
    probe_arg *a = p;
    myr_match_queues *q = &a->self->match;
    myr_spin_lock(&q->lock);
    myr_envelope *e = unexpected_find(q, a->ctx, a->source, a->tag);
    if (e) {
        if (a->status) {
            a->status->MPI_SOURCE = e->source;
            a->status->MPI_TAG = e->tag;
            a->status->MPI_ERROR = MPI_SUCCESS;
            a->status->myr_cancelled = 0;
            a->status->myr_bytes = (MPI_Count)e->bytes;
        }
        if (a->take) {
            unexpected_unlink(q, e);
            *a->msg = e;
        }
    }
    myr_spin_unlock(&q->lock);
    return e != NULL;
}

bool myr_p2p_probe(myr_rank *self, MPI_Comm comm, int source, int tag,
                   bool block, bool take, MPI_Status *status, myr_envelope **msg)
{
    probe_arg a = {self, comm->context_id, source, tag, take, status, msg};
    bool remote = myr_comm_reaches_processes(comm);
    /* A message of another process reaches our queues only when someone
     * drives the network: a nonblocking probe does, once (a loop of them
     * would otherwise never see it); a blocking one awaits it. */
    if (__builtin_expect(remote, 0) && !block)
        myr_net_idle_poll();
    if (probe_once(&a))
        return true;
    if (!block)
        return false;
    myr_wait_note note = {.kind = MYR_WAIT_PROBE, .comm = comm, .peer = source, .tag = tag};
    if (__builtin_expect(remote, 0))
        myr_net_expect_begin(true);
    myr_wait_until(self, probe_once, &a, &note);
    if (__builtin_expect(remote, 0))
        myr_net_expect_end();
    return true;
}

/* ---- cancel ------------------------------------------------------------- */

bool myr_p2p_cancel(struct myr_mpi_request *r)
{
    if (r->kind == MYR_REQ_SEND && !r->dest && r->peer != MPI_PROC_NULL) {
        /* To a rank of another process: only its process can tell whether
         * the message is still unmatched, even once the request is
         * complete (a copied send's is from its start). */
        myr_remote_cancel(r, remote_job_rank(r->comm, r->peer));
        return false;
    }
    if (myr_request_done(r))
        return false;
    if (r->kind == MYR_REQ_RECV) {
        myr_match_queues *q = &r->owner->match;
        myr_spin_lock(&q->lock);
        bool queued = false;
        for (struct myr_mpi_request *p = q->posted_head; p; p = p->next)
            if (p == r) {
                queued = true;
                break;
            }
        if (queued)
            posted_unlink(q, r);
        myr_spin_unlock(&q->lock);
        if (!queued)
            return false;
    } else {
        if (!r->dest)
            return false;
        myr_match_queues *q = &r->dest->match;
        myr_spin_lock(&q->lock);
        myr_envelope *e = r->env;
        if (e)
            unexpected_unlink(q, e);
        myr_spin_unlock(&q->lock);
        if (!e)
            return false;
        release_bsend(e);
        envelope_free(e);
    }
    myr_status_empty(&r->status);
    r->status.myr_cancelled = 1;
    complete_own(r);  /* the owner cancels: a solo request is its own call's */
    return true;
}
