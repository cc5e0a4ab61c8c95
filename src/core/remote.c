/*
 * remote.c — point-to-point with ranks of other OS processes, over the
 * network engine (net/net.h). Collocated ranks never come here.
 *
 * Sending. A message is a wire header (below) and its data, handed to the
 * comm thread. Small standard, ready and buffered sends, and any send of
 * a non-contiguous type, copy (pack) their data into the operation and
 * complete at once, as a collocated eager send does; the others send
 * from the user's buffer and complete when the engine is done with it
 * (eager: copied out; rendezvous: fetched by the receiver). A synchronous
 * send also waits for the receiver's acknowledgement, sent when the
 * message is matched.
 *
 * Receiving. The comm thread hands every arriving message to on_arrival,
 * which matches it exactly as a collocated send would (p2p.c): a posted
 * receive gets the data at once (eager) or fetches it straight into its
 * buffer (rendezvous); otherwise the message waits in the receiver's
 * unexpected queue as an envelope, with an eager message's data copied
 * and a rendezvous message's handle kept until a receive takes it.
 * Ordering: the engine delivers a process's messages in the order they
 * were posted, and a rank posts its sends in program order, so MPI's
 * non-overtaking rule holds per (source, tag, communicator).
 *
 * Cancelling a send (MPI 3.1, 3.8.4: it succeeds if the message is not
 * matched yet). Only the receiving process knows, so MPI_Cancel asks it:
 * a WIRE_CANCEL names the message by its number in the sending process
 * (`serial`, its traffic count, unique), and the receiver drops it if it
 * is still in the unexpected queue, as its match would end it (a
 * synchronous send is acknowledged, a rendezvous message's data is
 * fetched into scratch), then answers whether it did. The messages of a
 * pair of processes keep their order, so the message is always there
 * before its cancel: not found means matched. The request completes when
 * the answer is here and its operation has ended, whichever comes last
 * (its remote_cancel bits, below); cancelled or not, as the answer says.
 * A copied send's request, complete since its post, is reopened for
 * that: its message may well be unmatched still. What a send never
 * cancelled pays: 8 more header bytes, two stores into its request when
 * posted, and, if it completes late (not copied), an atomic or on its
 * request's line at its end.
 *
 * Counting (remote.h, for the deadlock check across processes): every
 * message is counted sent before its post and received after on_arrival
 * has done with it; a rendezvous message's end counts as one more, from
 * the receiver's fetch to the sender's done. Control messages (the
 * check's own) are not counted, nor is a rendezvous send waiting for its
 * fetch counted busy: both are in the engine's in_flight, and subtracted
 * from it (`idle_in_flight`).
 */
#include "core/remote.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "net/net.h"

enum {
    WIRE_MESSAGE = 1, WIRE_ACK = 2, WIRE_CONTROL = 3, WIRE_CANCEL = 4,
    WIRE_CANCEL_ANSWER = 5
};

typedef struct wire_header {
    uint8_t kind;          /* WIRE_* (WIRE_CONTROL: control_header) */
    uint8_t sync;          /* acknowledge when matched (MPI_Ssend) */
    uint8_t removed;       /* WIRE_CANCEL_ANSWER: the message was dropped */
    uint8_t unused;
    uint32_t context_id;
    int32_t source;        /* the sender's rank in the communicator */
    int32_t tag;
    int64_t dest;          /* the receiver's job rank */
    /* The sender's operation, for the acknowledgement; WIRE_CANCEL and
     * its answer: the send's request. */
    uint64_t cookie;
    /* The message's number in its process (WIRE_CANCEL: the one to drop). */
    uint64_t serial;
} wire_header;
_Static_assert(sizeof(wire_header) <= MYR_NET_HEADER_MAX, "a header fits the engine's");

/* A control message: its body travels in the header, so that it never
 * goes by rendezvous whatever the eager limit. */
typedef struct control_header {
    uint8_t kind;          /* WIRE_CONTROL */
    uint8_t len;
    uint16_t unused;
    uint32_t unused2;
    _Alignas(8) unsigned char body[MYR_REMOTE_CONTROL_MAX];
} control_header;
_Static_assert(sizeof(control_header) <= MYR_NET_HEADER_MAX, "a control message fits");

/* The traffic counts (remote.h); each on its own line: senders write the
 * first, the driving thread the second. */
static _Alignas(64) atomic_ullong traffic_sent;
static _Alignas(64) atomic_ullong traffic_received;

/* One more message received. Only the thread driving the engine counts
 * them (arrivals and completions come from its progress), one at a time:
 * a store, not a locked addition; release, after the match and the
 * completion it counts (remote.h). */
static void count_received(void)
{
    atomic_store_explicit(&traffic_received,
                          atomic_load_explicit(&traffic_received, memory_order_relaxed) + 1,
                          memory_order_release);
}
/* Operations in the engine's in_flight that keep nothing going here:
 * rendezvous sends waiting for their fetch, control messages. Counted
 * after their post and uncounted in their done, before the engine drops
 * in_flight: never more than their share of it. */
static _Alignas(64) atomic_long idle_in_flight;
static _Atomic(myr_remote_control_handler) control_handler;

void myr_remote_traffic_read(myr_remote_traffic *t)
{
    t->sent = atomic_load(&traffic_sent);
    t->received = atomic_load(&traffic_received);
    /* in_flight first: an idle operation ending between the two reads
     * then makes busy look larger, never smaller. */
    long in_flight = myr_net_in_flight();
    t->busy = in_flight - atomic_load(&idle_in_flight);
}

/* A send request's remote_cancel (p2p.h). Without CANCEL_ASKED the
 * request completes when its operation ends (send_finish); with it, once
 * CANCEL_ENDED and CANCEL_ANSWERED are both set, by whoever sets the
 * second (an atomic or each, so exactly one sees the other's bit). */
enum {
    CANCEL_COPIED = 1,     /* data copied: complete at its post, and no
                              operation refers to the request */
    CANCEL_ASKED = 2,      /* MPI_Cancel asked the receiving process */
    CANCEL_ENDED = 4,      /* its operation has ended */
    CANCEL_ANSWERED = 8,   /* the receiving process answered */
};

/* A send in flight. `pending` counts what must happen before its request
 * completes and it is freed: the engine's done, and for a synchronous
 * send the acknowledgement (which may come first). */
typedef struct remote_send {
    myr_net_send net;                  /* first: the engine hands it back */
    struct myr_mpi_request *req;       /* NULL: completed when posted */
    _Atomic int pending;
    myr_rank *bsend_owner;             /* buffered: whose space to release */
    size_t bsend_bytes;
    _Alignas(16) unsigned char copy[]; /* the packed data, when copied */
} remote_send;

static void send_finish(remote_send *op, int err)
{
    struct myr_mpi_request *r = op->req;
    free(op);
    if (r) {
        if (err)
            r->status.MPI_ERROR = MPI_ERR_OTHER;
        int was = atomic_fetch_or(&r->remote_cancel, CANCEL_ENDED);
        if (!(was & CANCEL_ASKED) || (was & CANCEL_ANSWERED))
            myr_request_complete(r);
        /* Else the answer to the cancel completes it. */
    }
}

static bool by_rendezvous(size_t bytes)
{
    return bytes > myr_net_eager_limit();
}

static void send_done(myr_net_send *ns, int err)
{
    remote_send *op = (remote_send *)ns;
    bool rendezvous = by_rendezvous(op->net.len);
    if (op->bsend_owner)
        myr_bsend_release(op->bsend_owner, op->bsend_bytes);
    if (err && op->req)
        op->req->status.MPI_ERROR = MPI_ERR_OTHER;
    /* 1: nobody else is left (a send that waits for no acknowledgement,
     * or whose acknowledgement came first): no locked instruction. */
    if (atomic_load_explicit(&op->pending, memory_order_acquire) == 1 ||
        atomic_fetch_sub(&op->pending, 1) == 1)
        send_finish(op, 0);
    if (rendezvous) {
        /* The receiver took the data: the answer its fetch counted. */
        count_received();
        atomic_fetch_sub(&idle_in_flight, 1);
    }
}

static void header_init(wire_header *h, int kind, unsigned ctx, int src, int tag,
                        long dest)
{
    *h = (wire_header){.kind = (uint8_t)kind, .context_id = ctx, .source = src,
                       .tag = tag, .dest = dest};
}

int myr_remote_send(myr_rank *self, const void *buf, int count, MPI_Datatype type,
                    long dest_rank, int src, int tag, unsigned ctx, myr_send_mode mode,
                    struct myr_mpi_request *s)
{
    size_t bytes = (size_t)count * type->size;
    bool sync = mode == MYR_MODE_SYNC;
    bool copy = mode == MYR_MODE_BUFFERED ||
                (!sync && (bytes <= myr_net_eager_limit() || !type->contig));
    if (!copy && !s)
        return MYR_P2P_NEEDS_REQUEST;
    size_t reserve = mode == MYR_MODE_BUFFERED ? bytes + MPI_BSEND_OVERHEAD : 0;
    if (reserve && !myr_bsend_reserve(self, reserve))
        return MPI_ERR_BUFFER;
    remote_send *op = malloc(sizeof *op + (copy ? bytes : 0));
    if (!op) {
        if (reserve)
            atomic_fetch_sub(&self->bsend.used, reserve);
        return MPI_ERR_NO_MEM;
    }
    /* Counted before its post (remote.h); the count is also the message's
     * number in this process, by which a cancel names it. */
    unsigned long long serial = atomic_fetch_add(&traffic_sent, 1);
    wire_header h;
    header_init(&h, WIRE_MESSAGE, ctx, src, tag, dest_rank);
    h.sync = sync;
    h.cookie = (uint64_t)(uintptr_t)op;
    h.serial = serial;
    memcpy(op->net.hdr, &h, sizeof h);
    op->net.hdr_len = sizeof h;
    op->net.proc = myr_net_proc_of(dest_rank);
    op->net.len = bytes;
    op->net.done = send_done;
    op->bsend_owner = reserve ? self : NULL;
    op->bsend_bytes = reserve;
    if (copy) {
        if (bytes)
            myr_datatype_transfer(op->copy, MPI_BYTE, buf, type, bytes);
        op->net.data = op->copy;
        op->req = NULL;
        atomic_init(&op->pending, 1);
    } else {
        op->net.data = buf;
        op->req = s;
        atomic_init(&op->pending, sync ? 2 : 1);
    }
    if (s) {
        s->status.MPI_ERROR = MPI_SUCCESS;
        s->status.myr_cancelled = 0;   /* a persistent send cancelled before */
        s->env = NULL;
        s->remote_serial = serial;
        atomic_store_explicit(&s->remote_cancel, copy ? CANCEL_COPIED | CANCEL_ENDED : 0,
                              memory_order_relaxed);
    }
    /* A copied send is complete before the engine sees it: the request's
     * owner may reuse its buffer (and free the request) at once. */
    bool complete_now = copy && s;
    bool rendezvous = by_rendezvous(bytes);
    if (sync)
        myr_net_expect_begin(false);   /* its acknowledgement (on_ack) */
    myr_net_send_post(&op->net);
    if (rendezvous)
        atomic_fetch_add(&idle_in_flight, 1);  /* after: see idle_in_flight */
    if (complete_now)
        myr_request_complete(s);
    return MPI_SUCCESS;
}

/* ---- messages of a header alone: acknowledgements, cancels ---------------- */

static void header_done(myr_net_send *ns, int err)
{
    (void)err;
    free(ns);
}

/* Send `h` alone to process `proc`, counted as a message (remote.h). */
static void post_header(int proc, const wire_header *h, const char *what)
{
    myr_net_send *ns = malloc(sizeof *ns);
    if (!ns) {
        fprintf(stderr, "myriad: process %d: out of memory %s\n", myr_net_the_place.proc,
                what);
        abort();
    }
    memcpy(ns->hdr, h, sizeof *h);
    ns->hdr_len = sizeof *h;
    ns->proc = proc;
    ns->data = NULL;
    ns->len = 0;
    ns->done = header_done;
    atomic_fetch_add(&traffic_sent, 1);
    myr_net_send_post(ns);
}

void myr_remote_ack(const myr_envelope *e)
{
    wire_header h;
    header_init(&h, WIRE_ACK, 0, 0, 0, -1);
    h.cookie = e->ack_cookie;
    post_header(e->proc, &h, "acknowledging a synchronous send");
}

static void on_ack(const wire_header *h)
{
    remote_send *op = (remote_send *)(uintptr_t)h->cookie;
    myr_net_expect_end();
    if (atomic_fetch_sub(&op->pending, 1) == 1)
        send_finish(op, 0);
}

/* ---- rendezvous fetches ---------------------------------------------------- */

typedef struct remote_fetch {
    myr_net_fetch net;
    struct myr_mpi_request *rr;
    int source, tag;
    void *scratch;             /* the data when rr's buffer cannot take it as is */
    myr_envelope *env;         /* freed when done (NULL: none) */
} remote_fetch;

static void fetch_done(myr_net_fetch *nf, int err)
{
    remote_fetch *f = (remote_fetch *)nf;
    struct myr_mpi_request *rr = f->rr;
    if (f->scratch) {
        myr_p2p_complete_recv(rr, f->source, f->tag, f->scratch, f->net.len);
        free(f->scratch);
    } else {
        rr->status.MPI_SOURCE = f->source;
        rr->status.MPI_TAG = f->tag;
        /* Straight into a contiguous buffer at least this long: a short
         * message may still end inside a basic element. */
        rr->status.MPI_ERROR =
            err ? MPI_ERR_OTHER
                : myr_p2p_recv_error(rr->type, f->net.len,
                                     (size_t)rr->count * rr->type->size);
        rr->status.myr_cancelled = 0;
        rr->status.myr_bytes = (MPI_Count)f->net.len;
        myr_request_complete(rr);
    }
    if (f->env)
        myr_p2p_envelope_free(f->env);
    free(f);
}

/* Fetch rendezvous message `rndv` (bytes long) into rr: straight into its
 * buffer when it is contiguous and large enough, else through scratch
 * (unpacked, or truncated, by myr_p2p_complete_recv). */
static void fetch_into(struct myr_mpi_request *rr, void *rndv, size_t bytes, int source,
                       int tag, myr_envelope *env)
{
    remote_fetch *f = malloc(sizeof *f);
    size_t capacity = (size_t)rr->count * rr->type->size;
    bool direct = rr->type->contig && bytes <= capacity;
    void *scratch = direct ? NULL : malloc(bytes ? bytes : 1);
    if (!f || (!direct && !scratch)) {
        fprintf(stderr, "myriad: rank %d: out of memory receiving a message of %zu bytes "
                "from another process\n", rr->owner->world_rank, bytes);
        abort();
    }
    *f = (remote_fetch){.rr = rr, .source = source, .tag = tag, .scratch = scratch,
                        .env = env};
    f->net.rndv = rndv;
    f->net.buf = direct ? rr->rbuf : scratch;
    f->net.len = bytes;
    f->net.done = fetch_done;
    /* The answer to the sender (remote.h), counted before its send can
     * complete. */
    atomic_fetch_add(&traffic_sent, 1);
    myr_net_fetch_post(&f->net);
}

void myr_remote_take_rndv(struct myr_mpi_request *rr, myr_envelope *e)
{
    fetch_into(rr, e->rndv, e->bytes, e->source, e->tag, e);
}

/* ---- cancels of sends (see the top) ---------------------------------------- */

void myr_remote_cancel(struct myr_mpi_request *s, long dest_rank)
{
    int was = atomic_load_explicit(&s->remote_cancel, memory_order_acquire);
    if (was & CANCEL_COPIED) {
        if (was & CANCEL_ASKED)
            return;
        /* Complete since its post and touched by nobody since (no
         * operation refers to it): open again until the answer. */
        atomic_store_explicit(&s->waiter, NULL, memory_order_relaxed);
        atomic_store_explicit(&s->state, 0, memory_order_relaxed);
        atomic_store_explicit(&s->remote_cancel, was | CANCEL_ASKED, memory_order_relaxed);
    } else {
        int none = 0;
        if (!atomic_compare_exchange_strong(&s->remote_cancel, &none, CANCEL_ASKED))
            return;   /* asked already, or its operation ended: matched */
    }
    wire_header h;
    header_init(&h, WIRE_CANCEL, 0, 0, 0, dest_rank);
    h.cookie = (uint64_t)(uintptr_t)s;
    h.serial = s->remote_serial;
    myr_net_expect_begin(false);   /* the answer (on_cancel_answer) */
    post_header(myr_net_proc_of(dest_rank), &h, "cancelling a send");
}

static void drop_done(myr_net_fetch *f, int err)
{
    (void)err;
    free(f->buf);
    free(f);
}

/* A rendezvous message dropped by a cancel: the engine has each fetched
 * exactly once (net.h), so its data comes into scratch and goes. */
static void drop_rndv(myr_envelope *e)
{
    myr_net_fetch *f = malloc(sizeof *f);
    void *scratch = malloc(e->bytes ? e->bytes : 1);
    if (!f || !scratch) {
        fprintf(stderr, "myriad: process %d: out of memory dropping a cancelled message "
                "of %zu bytes\n", myr_net_the_place.proc, e->bytes);
        abort();
    }
    *f = (myr_net_fetch){.rndv = e->rndv, .buf = scratch, .len = e->bytes,
                         .done = drop_done};
    myr_p2p_envelope_free(e);
    /* The answer to the sender, as a fetch's (remote.h). */
    atomic_fetch_add(&traffic_sent, 1);
    myr_net_fetch_post(f);
}

/* The rank of this process that a message names as its receiver. */
static myr_rank *receiver_here(long dest)
{
    myr_rank *r = myr_job_rank(dest);
    if (!r) {
        fprintf(stderr, "myriad: process %d received a message for rank %ld, which it "
                "does not run\n", myr_net_the_place.proc, dest);
        abort();
    }
    return r;
}

/* Process `proc` cancels its message h->serial: dropped if unmatched. */
static void on_cancel(int proc, const wire_header *h)
{
    myr_envelope *e = myr_p2p_unqueue_remote(receiver_here(h->dest), proc, h->serial);
    bool removed = e != NULL;
    if (e) {
        /* Its send's operation ends as a match would end it. */
        if (e->sync)
            myr_remote_ack(e);
        if (e->rndv)
            drop_rndv(e);
        else
            myr_p2p_envelope_free(e);
    }
    wire_header a;
    header_init(&a, WIRE_CANCEL_ANSWER, 0, 0, 0, -1);
    a.removed = removed;
    a.cookie = h->cookie;
    post_header(proc, &a, "answering a cancel");
}

static void on_cancel_answer(const wire_header *h)
{
    struct myr_mpi_request *s = (struct myr_mpi_request *)(uintptr_t)h->cookie;
    if (h->removed) {
        myr_status_empty(&s->status);
        s->status.myr_cancelled = 1;
    }
    myr_net_expect_end();
    int was = atomic_fetch_or(&s->remote_cancel, CANCEL_ANSWERED);
    if (was & CANCEL_ENDED)
        myr_request_complete(s);
}

/* ---- control messages ---------------------------------------------------- */

static void control_done(myr_net_send *ns, int err)
{
    (void)err;
    free(ns);
    atomic_fetch_sub(&idle_in_flight, 1);
}

void myr_remote_control_handle(myr_remote_control_handler handler)
{
    atomic_store(&control_handler, handler);
}

int myr_remote_control_send(int proc, const void *msg, size_t len)
{
    if (len > MYR_REMOTE_CONTROL_MAX)
        return -1;
    myr_net_send *ns = malloc(sizeof *ns);
    if (!ns)
        return -1;
    control_header h = {.kind = WIRE_CONTROL, .len = (uint8_t)len};
    memcpy(h.body, msg, len);
    memcpy(ns->hdr, &h, sizeof h);
    ns->hdr_len = sizeof h;
    ns->proc = proc;
    ns->data = NULL;
    ns->len = 0;
    ns->done = control_done;
    myr_net_send_post(ns);
    atomic_fetch_add(&idle_in_flight, 1);  /* after: see idle_in_flight */
    return 0;
}

void myr_remote_control_await_begin(void)
{
    myr_net_expect_begin(false);
}

void myr_remote_control_await_end(void)
{
    myr_net_expect_end();
}

void myr_remote_poll(void)
{
    (void)myr_net_idle_poll();
}

static void on_control(const myr_net_arrival *m)
{
    control_header h;
    if (m->hdr_len < sizeof h)
        return;
    memcpy(&h, m->hdr, sizeof h);
    myr_remote_control_handler handler = atomic_load(&control_handler);
    if (handler && h.len <= MYR_REMOTE_CONTROL_MAX)
        handler(m->proc, h.body, h.len);
}

/* ---- arrivals (on the comm thread) ---------------------------------------- */

/* A message or an acknowledgement: matched, or queued as unexpected. */
static void take_arrival(const myr_net_arrival *m)
{
    wire_header h;
    memcpy(&h, m->hdr, sizeof h);
    switch (h.kind) {
    case WIRE_ACK:
        on_ack(&h);
        return;
    case WIRE_CANCEL:
        on_cancel(m->proc, &h);
        return;
    case WIRE_CANCEL_ANSWER:
        on_cancel_answer(&h);
        return;
    }
    myr_rank *dest = receiver_here(h.dest);
    struct myr_mpi_request *rr = myr_p2p_match_posted(dest, h.context_id, h.source, h.tag);
    myr_envelope *e = NULL;
    if (!rr) {
        /* Nobody waits for it yet: an envelope in the unexpected queue. */
        e = myr_p2p_envelope_new();
        void *copy = NULL;
        if (e && !m->rndv && m->len) {
            copy = m->len <= sizeof e->small ? e->small : myr_p2p_eager_alloc(m->len);
            if (copy)
                memcpy(copy, m->data, m->len);
        }
        if (!e || (!m->rndv && m->len && !copy)) {
            fprintf(stderr, "myriad: process %d: out of memory for a message of %zu "
                    "bytes from process %d\n", myr_net_the_place.proc, m->len, m->proc);
            abort();
        }
        e->context_id = h.context_id;
        e->source = h.source;
        e->tag = h.tag;
        e->bytes = m->len;
        e->data = copy;
        e->count = (int)m->len;
        e->type = MPI_BYTE;
        e->eager = copy;
        e->receiver = dest;
        e->proc = m->proc;
        e->sync = h.sync;
        e->rndv = m->rndv;
        e->ack_cookie = h.cookie;
        e->serial = h.serial;
        rr = myr_p2p_queue_unexpected(e);
        if (!rr)
            return;
        /* A receive was posted meanwhile: it takes the message now. */
    }
    if (h.sync) {
        myr_envelope ack = {.proc = m->proc, .ack_cookie = h.cookie};
        myr_remote_ack(&ack);
    }
    if (!m->rndv) {
        /* Eager (an empty message's data may be NULL). */
        myr_p2p_complete_recv(rr, h.source, h.tag, m->data, m->len);
        if (e)
            myr_p2p_envelope_free(e);
    } else {
        fetch_into(rr, m->rndv, m->len, h.source, h.tag, e);
    }
}

static void on_arrival(const myr_net_arrival *m)
{
    if (*(const uint8_t *)m->hdr == WIRE_CONTROL) {
        on_control(m);
        return;
    }
    take_arrival(m);
    /* After the match and the completion: see remote.h. */
    count_received();
}

/* MYR_NET_IDLE_DRIVE (base/env.c): 1 by default; 0 leaves the network to
 * the comm thread alone (to compare the two). */
static bool drive_network_when_idle(void)
{
    const char *v = myr_env_get(MYR_ENV_NET_IDLE_DRIVE);
    return !v || strcmp(v, "0") != 0;
}

/* A transfer under way keeps the spin going, giving the CPU away at each
 * turn once the usual spin is over (the scheduler's side): the data may
 * be moved by the peer's or our comm thread, which needs a CPU on a
 * machine whose workers take them all. */
static int drive_poll(void)
{
    int polled = myr_net_idle_poll();
    if (polled & MYR_NET_POLL_MOVED)
        return MYR_ULT_IDLE_MOVED;
    return polled & MYR_NET_POLL_TRANSFER ? MYR_ULT_IDLE_MOVED | MYR_ULT_IDLE_YIELD : 0;
}

static const myr_ult_idle_hooks drive_network = {
    .begin = myr_net_idle_begin, .poll = drive_poll, .end = myr_net_idle_end,
    .blocked = myr_net_blocked, .blocked_busy = myr_net_blocked_busy};

static int no_poll(void) { return 0; }
static void no_end(void) {}
/* Without driving, a ULT that waits leaves the watching to the comm
 * thread at once. */
static const myr_ult_idle_hooks watch_only = {
    .begin = myr_net_blocked, .poll = no_poll, .end = no_end, .blocked = myr_net_blocked,
    .blocked_busy = myr_net_blocked};

int myr_remote_start(void)
{
    /* The comm thread completes requests: with one worker, a waiting rank
     * that spins sees its completion without a wake-up; and its idle
     * worker drives the network meanwhile (net.h). */
    myr_ult_expect_outside_completions();
    int rc = myr_net_start(on_arrival);
    if (rc == 0)
        myr_ult_set_idle_hooks(drive_network_when_idle() ? &drive_network : &watch_only);
    return rc;
}

void myr_remote_stop(void)
{
    myr_net_stop();
}
