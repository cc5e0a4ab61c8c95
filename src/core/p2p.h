/*
 * p2p.h — point-to-point between collocated ranks: requests, envelopes and
 * the matching engine (p2p.c).
 *
 * Protocol (one copy, no rendezvous messages):
 *   - A send locks the receiver's queues and looks for the first matching
 *     posted receive. Found: it unlinks it, unlocks, and copies straight from
 *     its buffer into the receive buffer; both requests complete.
 *   - Not found: it appends an envelope to the receiver's unexpected queue.
 *     Small standard sends (<= MYR_EAGER_BYTES) and buffered sends put a copy
 *     of the data in the envelope and complete at once; other sends leave a
 *     pointer to their own buffer and complete when a receive takes it.
 *     Synchronous sends never complete before they are matched.
 *   - A receive locks its own queues and takes the first matching envelope
 *     (copying from it outside the lock), or appends itself to the posted
 *     queue and waits.
 * Both queues are FIFO and matched in order under one lock per receiving
 * rank, which gives MPI's non-overtaking rule, ANY_SOURCE and ANY_TAG.
 * A blocking send makes a request only when it has to wait for its
 * receive; a blocking receive sets up its request (on its stack) in the
 * same call that matches or posts it and waits.
 *
 * Completion may come from any thread (another rank's worker today, the
 * network's communication thread later): myr_request_complete only sets
 * the request's state and notifies the owning rank's wait cell.
 */
#ifndef MYR_CORE_P2P_H
#define MYR_CORE_P2P_H

#include "core/core.h"
#include "ult/core_api.h"

#define MYR_EAGER_BYTES 16384
/* Eager data up to this size is kept inside its envelope. */
#define MYR_ENVELOPE_INLINE 64

/* Used only inside libmyriad: called directly, not through the PLT. */
#define MYR_INTERNAL __attribute__((visibility("hidden")))

/* MYR_REQ_COLL: a nonblocking collective (coll/nbc.c), completed by the
 * ULT that runs it; its status carries only MPI_ERROR. MYR_REQ_GREQ: a
 * generalized request (mpi/greq.c), completed by the program. */
typedef enum {
    MYR_REQ_SEND = 1, MYR_REQ_RECV = 2, MYR_REQ_COLL = 3, MYR_REQ_GREQ = 4
} myr_req_kind;
typedef enum {
    MYR_MODE_STANDARD, MYR_MODE_BUFFERED, MYR_MODE_SYNC, MYR_MODE_READY
} myr_send_mode;

#define MYR_WAITER_CLAIMED ((myr_ult_t *)1)
/* Nobody waits, but the completion calls request->notify(notify_arg):
 * tasks that depend on the request (task/request.c). Point-to-point
 * requests only (myr_request_complete). */
#define MYR_WAITER_NOTIFY ((myr_ult_t *)2)

/* Several requests' waiter (MPI_Waitall, core/p2p.c myr_request_wait_all):
 * each pending request's `waiter` holds the group's address tagged with
 * MYR_WAITER_GROUP_TAG, and its completer wakes the group's ULT only when
 * it completes the last of them. The group lives on the waiter's stack. */
typedef struct myr_wait_group {
    _Atomic unsigned pending;   /* registered requests not yet completed, + a
                                   guard while the waiter registers */
    myr_ult_t *ult;
} myr_wait_group;
#define MYR_WAITER_GROUP_TAG ((uintptr_t)4)

static inline bool myr_waiter_is_group(myr_ult_t *waiter)
{
    return ((uintptr_t)waiter & MYR_WAITER_GROUP_TAG) != 0;
}

/* A completer's part for a group waiter: one fewer pending; the last one
 * returns the ULT to resume (NULL otherwise). The ULT is read before the
 * decrement, after which the group may be gone; the ULT stays, because the
 * waiter leaves only once each of its requests is COMPLETE, which the
 * completer sets after its resume. */
static inline myr_ult_t *myr_wait_group_arrive(myr_ult_t *waiter)
{
    myr_wait_group *g = (myr_wait_group *)((uintptr_t)waiter & ~MYR_WAITER_GROUP_TAG);
    myr_ult_t *ult = g->ult;
    return atomic_fetch_sub(&g->pending, 1) == 1 ? ult : NULL;
}

/* Request state bits. */
enum { MYR_REQ_COMPLETE = 1, MYR_REQ_FREED = 2 };

/* How a posted receive is counted by the network (expects_remote). */
enum { MYR_EXPECTS_NOW = 1, MYR_EXPECTS_SOON = 2 };

struct myr_mpi_request {
    /* First line: what a sender matching a posted receive reads and
     * writes, but for the receive's buffer description and status (second
     * line); so a receive posted by a rank on another worker costs the
     * sender, and then the receiver, two lines (with the request aligned
     * to a line, as a blocking receive's is). */
    unsigned magic;
    _Atomic int state;          /* MYR_REQ_COMPLETE | MYR_REQ_FREED */
    unsigned char kind;         /* myr_req_kind */
    unsigned char mode;         /* myr_send_mode, for sends */
    bool persistent;
    bool active;                /* started and not yet waited for */
    bool heap;                  /* allocated by myr_request_new */
    bool solo;                  /* a blocking call's own request, on its stack,
                                   its waiter registered from the start: no
                                   atomic read-modify-write completes it */
    unsigned char expects_remote;  /* posted, counted by the network
                                   (net.h): MYR_EXPECTS_NOW by
                                   myr_net_expect_begin, MYR_EXPECTS_SOON by
                                   myr_net_expect_soon_begin; set whenever
                                   it is posted */
    _Atomic(myr_ult_t *) waiter;  /* the ULT blocked on this request alone */
    MPI_Comm comm;
    int peer;                   /* comm rank, MPI_ANY_SOURCE, MPI_PROC_NULL */
    int tag;
    /* A receive's links in its owner's posted queue and its buffer, or a
     * send's envelope while it waits in the receiver's queue, the
     * receiving rank and its buffer: a request is one or the other (kind),
     * and either touches only its first two lines. */
    union {
        struct myr_mpi_request *next;
        struct myr_mpi_message *env;
    };
    union {
        struct myr_mpi_request *prev;
        myr_rank *dest;
    };
    union {
        void *rbuf;
        const void *sbuf;
    };
    /* Second line. */
    int count;
    /* Its owner's start_seq when it started, modulo 2^32 (0: not a
     * point-to-point one): which of several completed requests
     * MPI_Waitany returns (myr_request_started_before). */
    unsigned start_seq;
    MPI_Datatype type;
    MPI_Status status;
    myr_rank *owner;            /* whose wait cell a completion notifies */
    /* A failed collective: what went wrong, in full (malloc'd; freed with
     * the request). NULL otherwise. In the second line with what follows,
     * which every release reads: a request from myr_request_new starts a
     * line, so waiting for it, retiring and releasing it touch two lines
     * (with many ranks per worker, two misses each). */
    char *why;
    /* What releasing the request must do with an upper layer's part of it
     * (`ext`, below), last: a request that is not `heap` may live in that
     * part's block (a nonblocking collective's operation, coll/nbc.c). */
    void (*release_ext)(struct myr_mpi_request *r);
    /* Third line: what only rarer calls read (myr_request_init leaves it
     * unwritten: with many ranks per worker a request is cold when it is
     * reused). A send to a rank of another process: how far a cancel of
     * it has gone (remote.c's CANCEL_* bits, set when it is posted). */
    _Atomic int remote_cancel;
    /* An upper layer's part of the request (a generalized request's
     * callbacks, set when it is made). */
    void *ext;
    /* A send to a rank of another process (remote.c, set when it is
     * posted): its message's number in this process, by which MPI_Cancel
     * names it to the receiving process. */
    unsigned long long remote_serial;
    /* Read only when waiter is MYR_WAITER_NOTIFY. */
    void (*notify)(void *arg);
    void *notify_arg;
    /* Posted: its source's receives in the same queue while it has an
     * index, and its place in posting order (p2p.c, myr_match_index). */
    struct myr_mpi_request *snext, *sprev;
    unsigned long post_seq;
};
_Static_assert(__builtin_offsetof(struct myr_mpi_request, rbuf) < 64 &&
               __builtin_offsetof(struct myr_mpi_request, status) + sizeof(MPI_Status) <= 128 &&
               __builtin_offsetof(struct myr_mpi_request, release_ext) + sizeof(void *) <= 128 &&
               __builtin_offsetof(struct myr_mpi_request, remote_cancel) >= 128,
               "a receive's matching, completion and release fields are in two lines");

/* An envelope: a message that arrived before its receive, or one taken by
 * MPI_Mprobe (then it is the MPI_Message handle). */
struct myr_mpi_message {
    unsigned magic;
    struct myr_mpi_message *next, *prev;
    unsigned context_id;
    int source;                 /* sender's rank in the communicator */
    int tag;
    size_t bytes;               /* data bytes */
    const void *data;           /* sender's buffer, or `eager` */
    int count;
    MPI_Datatype type;
    struct myr_mpi_request *sreq;  /* completed when taken (NULL: already) */
    void *eager;                /* our own copy of the data, freed when taken */
    myr_rank *bsend_owner;      /* buffered send: whose buffer space to release */
    size_t bsend_bytes;
    myr_rank *receiver;         /* whose unexpected queue holds it */
    /* From a rank of another OS process (remote.c): the sending process
     * (-1: a collocated sender, and none of the fields below is set); the
     * data of a rendezvous message, still at its sender, to fetch (NULL:
     * the data is here); for a synchronous send, the cookie to
     * acknowledge when the message is matched; and the message's number
     * in its process, by which a cancel names it. */
    int proc;
    bool sync;
    void *rndv;
    unsigned long long ack_cookie;
    unsigned long long serial;
    /* Its source's messages in the same queue, while it has an index
     * (p2p.c, myr_match_index). */
    struct myr_mpi_message *snext, *sprev;
    /* `eager` for messages this small: no second allocation. */
    _Alignas(16) unsigned char small[MYR_ENVELOPE_INLINE];
};


/* myr_rank_self without the PLT, for the point-to-point entry points. */
static inline myr_rank *myr_rank_self_internal(void)
{
    return (myr_rank *)myr_ult_inherited_internal();
}

/* The part of a request every one needs: its identity, its completion
 * fields and what releasing it reads. A blocking receive writes only this
 * and its envelope (myr_p2p_recv_blocking): whoever completes it writes
 * its whole status, and it has no send side. */
static inline void myr_request_init_head(struct myr_mpi_request *r, myr_rank *owner,
                                         myr_req_kind kind, bool solo, myr_ult_t *waiter)
{
    r->magic = MYR_MAGIC_REQUEST;
    r->kind = (unsigned char)kind;
    r->mode = MYR_MODE_STANDARD;
    r->persistent = false;
    r->active = false;
    r->heap = false;
    r->solo = solo;
    atomic_init(&r->state, 0);
    atomic_init(&r->waiter, waiter);
    r->owner = owner;
    r->why = NULL;
    r->release_ext = NULL;
}

/* A receive's envelope and buffer. */
static inline void myr_request_set_recv(struct myr_mpi_request *r, void *buf, int count,
                                        MPI_Datatype type, int source, int tag,
                                        MPI_Comm comm)
{
    r->rbuf = buf;
    r->count = count;
    r->type = type;
    r->peer = source;
    r->tag = tag;
    r->comm = comm;
}

/* Field by field, not memset: for a request this size the compiler emits
 * `rep stos`, whose start-up cost was a fifth of a same-worker ping-pong. */
static inline void myr_request_init(struct myr_mpi_request *r, myr_rank *owner,
                                    myr_req_kind kind)
{
    myr_request_init_head(r, owner, kind, false, NULL);
    myr_request_set_recv(r, NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_NULL);
    r->status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG,
                             .MPI_ERROR = MPI_SUCCESS};
    r->next = r->prev = NULL;   /* a send's env and dest */
    r->start_seq = 0;
}

/* Number a request as its owner starts it (see myr_rank.start_seq). */
static inline void myr_request_number(struct myr_mpi_request *r)
{
    unsigned long n = atomic_load_explicit(&r->owner->start_seq, memory_order_relaxed) + 1;
    if ((unsigned)n == 0)
        n++;   /* 0 names a request that is not point-to-point */
    atomic_store_explicit(&r->owner->start_seq, n, memory_order_relaxed);
    r->start_seq = (unsigned)n;
}

/* Whether a started before b (numbers modulo 2^32: within 2^31 starts of
 * each other); one that is not point-to-point (0) counts as earliest. */
static inline bool myr_request_started_before(const struct myr_mpi_request *a,
                                              const struct myr_mpi_request *b)
{
    if (a->start_seq == 0 || b->start_seq == 0)
        return a->start_seq == 0 && b->start_seq != 0;
    return (int)(a->start_seq - b->start_seq) < 0;
}

/* A blocking call's own request (`solo`): the calling ULT is its waiter
 * before the request is published, and nothing else waits for or frees it. */
static inline void myr_request_init_solo(struct myr_mpi_request *r, myr_rank *owner,
                                         myr_req_kind kind)
{
    myr_request_init(r, owner, kind);
    r->solo = true;
    atomic_init(&r->waiter, myr_ult_self_internal());
}

MYR_INTERNAL struct myr_mpi_request *myr_request_new(myr_rank *owner, myr_req_kind kind);
/* Memory for an envelope's eager copy of `bytes` (> MYR_ENVELOPE_INLINE),
 * freed with its envelope (envelope->bytes must say the same size). */
MYR_INTERNAL void *myr_p2p_eager_alloc(size_t bytes);
MYR_INTERNAL void myr_request_release(struct myr_mpi_request *r);
/* Inline: MPI_Wait and MPI_Test check every request they are given. */
static inline bool myr_request_valid(MPI_Request r)
{
    return r && myr_handle_magic(r) == MYR_MAGIC_REQUEST;
}
static inline bool myr_request_done(const struct myr_mpi_request *r)
{
    return atomic_load_explicit(&r->state, memory_order_acquire) & MYR_REQ_COMPLETE;
}
/* Mark complete (status already filled), wake its waiter and notify the
 * owner's wait cell. After this, the caller must not touch `r`.
 *
 * The single waiter of a blocking call registers in `waiter` (CAS from NULL)
 * and suspends until COMPLETE. The completer exchanges `waiter` for
 * MYR_WAITER_CLAIMED, resumes the waiter, and only then sets COMPLETE with
 * its last touch of the request, so the waiter (which yields while it reads
 * CLAIMED without COMPLETE) cannot return and free a request the completer
 * still uses. A solo request's waiter is registered before its request is
 * published, so the completer uses plain stores for the same two steps and
 * does not notify the wait cell (no other waiter can want it). Except a
 * blocking receive that will spin on its request (its worker idle): it
 * publishes none, so that its completer need not resume it (which would
 * move its descriptor's line to the completer's core), and registers with
 * a CAS from NULL if its spin ends first; its completer, seeing no waiter,
 * takes the field with an exchange. */
MYR_INTERNAL void myr_request_complete(struct myr_mpi_request *r);
/* Wait (suspended) until r is complete. */
MYR_INTERNAL void myr_request_wait(myr_rank *self, struct myr_mpi_request *r);
/* Wait until every active request of requests[0..count) is complete
 * (MPI_Waitall; NULL entries and inactive requests are skipped), woken
 * once, by the completer of the last one. `note` describes the wait for
 * the deadlock report. */
MYR_INTERNAL void myr_request_wait_all(myr_rank *self, int count,
                                       struct myr_mpi_request *const requests[],
                                       const myr_wait_note *note);

/* Start the operation described by the request's fields. Returns an MPI
 * error class (MPI_ERR_BUFFER when a buffered send does not fit). */
MYR_INTERNAL int myr_p2p_start_send(struct myr_mpi_request *r);
/* A blocking send (MPI_Send and its modes) without a request while it need
 * not wait: done when it matched a posted receive or left its data in an
 * eager envelope. MYR_P2P_NEEDS_REQUEST: it must wait for its receive and
 * has queued nothing; the caller starts a request of its own. Otherwise an
 * MPI error class, as myr_p2p_start_send. */
#define MYR_P2P_NEEDS_REQUEST (-1)
MYR_INTERNAL int myr_p2p_send_blocking(myr_rank *self, const void *buf, int count,
                                       MPI_Datatype type, int peer, int tag,
                                       MPI_Comm comm, myr_send_mode mode);
MYR_INTERNAL void myr_p2p_start_recv(struct myr_mpi_request *r);
/* A blocking receive (MPI_Recv) in one call: `r`, the caller's storage,
 * becomes its request; on return it is complete, its result in r->status. */
MYR_INTERNAL void myr_p2p_recv_blocking(myr_rank *self, struct myr_mpi_request *r,
                                        void *buf, int count, MPI_Datatype type,
                                        int source, int tag, MPI_Comm comm);
/* Start a receive of a message taken by MPI_Mprobe. */
MYR_INTERNAL void myr_p2p_start_mrecv(struct myr_mpi_request *r, myr_envelope *msg);

/* Look for a matching message for `self`. Returns true and fills *status
 * when found; with `take`, the envelope is removed and returned in *msg.
 * With `block`, waits until one arrives. */
MYR_INTERNAL bool myr_p2p_probe(myr_rank *self, MPI_Comm comm, int source, int tag,
                   bool block, bool take, MPI_Status *status, myr_envelope **msg);

/* Try to cancel an active (started, not yet waited for) request. True:
 * cancelled now (complete, with status.myr_cancelled set). False: not
 * now; it completes, or has completed, normally, except a send to a
 * rank of another process, whose cancel asks the receiving process
 * (remote.c): its request completes when the answer is here, cancelled
 * or not, even if it had completed already. Either way the caller waits
 * for the request (MPI 3.1, 3.8.4). */
MYR_INTERNAL bool myr_p2p_cancel(struct myr_mpi_request *r);

/* A buffered send's room in its rank's attached buffer (MPI_Buffer_attach):
 * reserve `bytes` for it (false: they do not fit), and give them back once
 * the message no longer needs them (MPI_Buffer_detach may be waiting). */
static inline bool myr_bsend_reserve(myr_rank *self, size_t bytes)
{
    size_t used = atomic_load(&self->bsend.used);
    do {
        if (used + bytes > self->bsend.size)
            return false;
    } while (!atomic_compare_exchange_weak(&self->bsend.used, &used, used + bytes));
    return true;
}
MYR_INTERNAL void myr_bsend_release(myr_rank *owner, size_t bytes);

/* ---- messages from ranks of other OS processes (remote.c) ---------------
 * An arriving message is matched as a collocated send is: against the
 * receiver's posted queue, else appended to its unexpected queue, under
 * the receiver's lock, so ANY_SOURCE sees collocated and remote senders in
 * one order. */

/* The first posted receive of `dest` matching (ctx, src, tag), unlinked;
 * NULL when none. */
MYR_INTERNAL struct myr_mpi_request *myr_p2p_match_posted(myr_rank *dest, unsigned ctx,
                                                          int src, int tag);
/* Queue `e` (built by the caller, fields complete) in its receiver's
 * unexpected queue, unless a matching receive was posted since the
 * caller's myr_p2p_match_posted: then that receive is returned, unlinked,
 * and `e` is not queued. */
MYR_INTERNAL struct myr_mpi_request *myr_p2p_queue_unexpected(myr_envelope *e);
/* The error a receive of `bytes` into a buffer of `capacity` bytes of
 * `type` carries: MPI_ERR_TRUNCATE, or MPI_ERR_TYPE for a shorter message
 * that ends inside a basic element of the type (3 chars received as ints:
 * the type signatures cannot match; MPICH reports it too). A message that
 * fills the buffer ends where its last element does: one compare. */
static inline int myr_p2p_recv_error(MPI_Datatype type, size_t bytes, size_t capacity)
{
    if (__builtin_expect(bytes == capacity, 1))
        return MPI_SUCCESS;
    if (bytes > capacity)
        return MPI_ERR_TRUNCATE;
    return myr_datatype_elements(type, (MPI_Count)bytes) < 0 ? MPI_ERR_TYPE : MPI_SUCCESS;
}
/* Complete receive `rr` with `bytes` of packed data (the message's) from
 * (source, tag): copied into its buffer, truncated to fit with
 * MPI_ERR_TRUNCATE (see myr_p2p_recv_error). From any thread. */
MYR_INTERNAL void myr_p2p_complete_recv(struct myr_mpi_request *rr, int source, int tag,
                                        const void *data, size_t bytes);
/* The message of process `proc` numbered `serial` (remote.c), unlinked
 * from `dest`'s unexpected queue for a cancel; NULL when it is not there:
 * matched already (by a receive, or taken by MPI_Mprobe). */
MYR_INTERNAL myr_envelope *myr_p2p_unqueue_remote(myr_rank *dest, int proc,
                                                  unsigned long long serial);
/* An envelope from the caches, with the fields a remote one does not set
 * cleared; and its release (with its data copy). */
MYR_INTERNAL myr_envelope *myr_p2p_envelope_new(void);
MYR_INTERNAL void myr_p2p_envelope_free(myr_envelope *e);

/* MPI's empty status (for MPI_PROC_NULL and inactive requests). */
MYR_INTERNAL void myr_status_empty(MPI_Status *s);
/* A status out to the user. Its MPI_ERROR field stays the user's: calls
 * that complete one operation never write it (MPI 3.1, 3.2.5: their return
 * value says it); the multiple-completion calls set it themselves, for
 * every entry, when they return MPI_ERR_IN_STATUS. */
static inline void myr_status_copy(MPI_Status *to, const MPI_Status *from)
{
    if (to) {
        int keep = to->MPI_ERROR;
        *to = *from;
        to->MPI_ERROR = keep;
    }
}

#endif
