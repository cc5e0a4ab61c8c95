/*
 * nbc.c — the engine of the nonblocking collectives (MPI_Ibarrier,
 * MPI_Ibcast, ..., MPI_Comm_idup): each runs its blocking algorithm on a
 * ULT acting for the calling rank, and its request completes when the
 * algorithm returns. Waiting inside the algorithm suspends that ULT only,
 * so the rank goes on computing meanwhile.
 *
 * Order. MPI requires the ranks of a communicator to start its
 * collectives, blocking and nonblocking together, in the same order. Each
 * rank keeps one FIFO per communicator (myr_coll_nb_queue, in its
 * myr_comm_local) of the operations it started there that have not
 * finished; the head is running. One ULT at a time, the *runner*, runs a
 * queue from its head until it is empty, then ends; a start that finds
 * the queue empty spawns a new runner. A blocking collective first waits
 * until the queue is empty (myr_coll_nb_drain). Hence at most one ULT of
 * a rank takes part in a communicator's collectives at any time, which is
 * what the algorithms of coll.c assume of a rank.
 *
 * States of an operation, and who moves it:
 *   queued   appended under the queue's lock by the starter (any ULT of
 *            the rank), `pending` incremented;
 *   running  it is the head: only the runner reads it, without the lock
 *            (a starter changes only the tail of a non-empty queue);
 *   finished the runner unlinks it under the lock, then decrements
 *            `pending` (sequentially consistent: drain waiters, wait.c);
 *   complete the runner completes its request (myr_request_complete
 *            notifies the rank) and drops the operation's reference to
 *            the communicator, after which it touches neither.
 * The runner that empties the queue clears `runner` under the lock; a
 * start after that spawns the next runner, while the old one may still be
 * completing its last request (it no longer touches the queue).
 *
 * Lifetimes. An operation holds its own reference to the communicator
 * handle (the queue lives in it), and the request another (released with
 * the request), so MPI_Comm_free with operations pending frees nothing
 * they use. Runners are detached ULTs: the runtime's finalize waits for
 * them, so the job's ranks outlive them.
 *
 * Several ULTs of one rank (its own, its runners on several
 * communicators, its tasks) may sleep on the rank's wait cell at once:
 * each has its own sleeper entry, every notification resumes them all,
 * and each re-checks its own condition (wait.c).
 */
#include "coll/coll.h"
#include "core/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct myr_coll_nb_op {
    struct myr_coll_nb_op *next;
    MPI_Comm comm;                 /* a reference of its own */
    myr_rank *self;
    const char *call;
    myr_coll_nb_fn fn;
    myr_coll_nb_cleanup cleanup;
    struct myr_mpi_request *request;
    max_align_t args[];            /* the starter's arguments, copied */
};

static myr_coll_nb_queue *queue_of(MPI_Comm comm, myr_rank *self)
{
    return &myr_comm_local_of(comm, self)->nb;
}

/* The request's outcome: a collective's status says only MPI_ERROR. */
static void settle(struct myr_mpi_request *r, const char *call, int err, const char *why)
{
    myr_status_empty(&r->status);
    r->status.MPI_ERROR = err;
    if (err == MPI_SUCCESS)
        return;
    const char *what = why && why[0] ? why : "the operation failed";
    size_t n = strlen(call) + strlen(what) + 3;
    r->why = malloc(n);
    if (r->why)
        snprintf(r->why, n, "%s: %s", call, what);
}

static void run_fn(struct myr_coll_nb_op *op)
{
    const char *why = NULL;
    int err = op->fn(op->comm, op->self, op->args, &why);
    /* why may point into state the next collective on comm overwrites:
     * copied now, before this rank takes part in another. */
    settle(op->request, op->call, err, why);
    if (op->cleanup)
        op->cleanup(op->args);
}

static void *runner_main(void *arg)
{
    struct myr_coll_nb_op *op = arg;
    myr_rank *self = op->self;
    myr_coll_nb_queue *q = queue_of(op->comm, self);
    atomic_store_explicit(&q->runner, myr_ult_self_internal(), memory_order_relaxed);
    while (op) {
        run_fn(op);
        myr_spin_lock(&q->lock);
        struct myr_coll_nb_op *next = op->next;
        q->head = next;
        if (!next) {
            q->tail = NULL;
            atomic_store_explicit(&q->runner, NULL, memory_order_relaxed);
        }
        myr_spin_unlock(&q->lock);
        atomic_fetch_sub(&q->pending, 1);
        MPI_Comm comm = op->comm;
        struct myr_mpi_request *request = op->request;
        free(op);
        myr_request_complete(request);
        /* The next operation's reference keeps the queue alive; with none,
         * this may free it. */
        myr_comm_release(comm);
        op = next;
    }
    return NULL;
}

int myr_coll_nb_start(MPI_Comm comm, myr_rank *self, const char *call,
                      myr_coll_nb_fn fn, const void *args, size_t args_size,
                      myr_coll_nb_cleanup cleanup, MPI_Request *request)
{
    struct myr_coll_nb_op *op = malloc(sizeof *op + args_size);
    struct myr_mpi_request *r = op ? myr_request_new(self, MYR_REQ_COLL) : NULL;
    if (!r) {
        free(op);
        if (cleanup) {
            /* The starter's copy is the one to clean. */
            cleanup((void *)args);
        }
        return MPI_ERR_NO_MEM;
    }
    /* The header first: its assignment may cover the start of args. */
    *op = (struct myr_coll_nb_op){.next = NULL, .comm = comm, .self = self, .call = call,
                                  .fn = fn, .cleanup = cleanup, .request = r};
    if (args_size)
        memcpy(op->args, args, args_size);
    myr_comm_retain(comm);
    r->comm = comm;          /* the request's reference, released with it */
    r->active = true;
    myr_comm_retain(comm);   /* the operation's */
    myr_coll_nb_queue *q = queue_of(comm, self);
    myr_spin_lock(&q->lock);
    bool first = q->head == NULL;
    if (first)
        q->head = op;
    else
        q->tail->next = op;
    q->tail = op;
    atomic_fetch_add(&q->pending, 1);
    myr_spin_unlock(&q->lock);
    *request = r;
    if (!first)
        return MPI_SUCCESS;
    /* A communicator of one rank never waits for another: run it now,
     * without a ULT (nothing else is queued). */
    if (myr_comm_size(comm) == 1) {
        runner_main(op);
        return MPI_SUCCESS;
    }
    if (myr_ult_spawn(NULL, runner_main, op) == MYR_OK)
        return MPI_SUCCESS;
    /* No runner: take the operation back (nobody else has seen it, as it
     * was alone in the queue) and report. */
    myr_spin_lock(&q->lock);
    q->head = op->next;
    if (!q->head)
        q->tail = NULL;
    myr_spin_unlock(&q->lock);
    /* A start racing with us may have queued behind op; it then found the
     * queue non-empty and relies on a runner: give it one, or run inline. */
    *request = MPI_REQUEST_NULL;
    atomic_fetch_sub(&q->pending, 1);
    struct myr_coll_nb_op *next = op->next;
    if (cleanup)
        cleanup(op->args);
    free(op);
    r->active = false;
    myr_request_release(r);
    myr_comm_release(comm);
    if (next)
        runner_main(next);
    return MPI_ERR_NO_MEM;
}

static bool queue_empty(void *arg)
{
    return atomic_load((_Atomic int *)arg) == 0;
}

void myr_coll_nb_drain_slow(MPI_Comm comm, myr_rank *self)
{
    myr_coll_nb_queue *q = queue_of(comm, self);
    if (atomic_load(&q->pending) == 0)
        return;
    /* An operation's own algorithm calling a blocking entry point runs it
     * as part of itself: the queue cannot empty before it returns. */
    if (atomic_load_explicit(&q->runner, memory_order_relaxed) == myr_ult_self_internal())
        return;
    myr_wait_until(self, queue_empty, &q->pending,
                   &(myr_wait_note){.kind = MYR_WAIT_NB_COLLECTIVES, .comm = comm});
}
