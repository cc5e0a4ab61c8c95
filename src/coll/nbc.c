/*
 * nbc.c — the engine of the nonblocking collectives (MPI_Ibarrier,
 * MPI_Ibcast, ..., MPI_Comm_idup).
 *
 * Two kinds of operation:
 *   rounds   a collective of an intracommunicator (myr_coll_nb_start_coll)
 *            is a state machine driven by arrivals, with no ULT of its
 *            own: starting it writes the rank's slot and arrives at the
 *            communicator's round (round.c) without waiting; the last
 *            rank to arrive, whichever call brought it there, does the
 *            collective's work and every rank's part (copies into their
 *            buffers), then completes every rank's request. A rank that
 *            computes meanwhile finds its operation complete. A rank
 *            that reaches MPI_Wait before the completer has claimed its
 *            operation joins the round instead (myr_coll_nb_wait,
 *            coll_round_join): it waits in it as a blocking rank does and,
 *            once woken, finishes its operation itself, on its own worker;
 *            when every other rank has joined, the completer releases the
 *            round by the blocking round's tree. So a collective waited
 *            for at once costs the blocking algorithm plus a request, and
 *            the completer's part is only the collective's work.
 *            A Barrier, a small Allreduce, Reduce, Bcast or Allgather of a
 *            communicator spanning OS processes is a round of the
 *            process's members (`round_comm`) whose hook, the leader's
 *            part across processes, runs on one ULT for the process
 *            (procs.c, coll_round_nb).
 *   runners  the others (intercommunicators, neighbourhood collectives,
 *            MPI_Comm_idup, and the other collectives of a communicator
 *            that spans OS processes) run their blocking algorithm on a ULT
 *            acting for the rank (`fn`): waiting inside suspends that ULT
 *            only. A rank whose MPI_Wait finds that ULT still next in its
 *            worker's queue takes it back (it never runs) and runs the
 *            operation itself, as the blocking form would, instead of
 *            suspending until its worker has run the ULT (`run_state`:
 *            while the waiter decides, the ULT, if it begins, waits).
 *            Elsewhere in the queue the ULT runs it: a rank that ran
 *            every such operation itself left a ULT behind each time,
 *            which cost more than it saved when the queue held others
 *            (MPI_Iscan of 64 ranks over 2 processes 12-17 -> 34-36 us).
 *
 * Order. MPI requires the ranks of a communicator to start its
 * collectives, blocking and nonblocking together, in the same order. Each
 * rank keeps one FIFO per communicator (myr_coll_nb_queue, in its
 * myr_comm_local) of the operations it started there that have not
 * finished; only the head is under way (arrived at its round, or run by a
 * runner). Whoever finishes the head launches the next one: the
 * completer of its round (on the rank's behalf: the arrival needs only
 * the operation's copy of the arguments), or its runner. A start that
 * finds the queue empty launches its operation itself. A blocking
 * collective first waits until the queue is empty (myr_coll_nb_drain).
 * Hence a rank takes part in at most one round of a communicator at a
 * time, and at most one runner of a rank runs a communicator's
 * collectives, which is what the algorithms of coll.c assume.
 *
 * The FIFO has two parties, no lock: the rank's starts (one at a time:
 * MPI makes concurrent collective calls on one communicator erroneous)
 * and the finisher of its head (one at a time: the head's completer or
 * runner, or the rank itself in MPI_Wait). Only `tail` is shared, as in
 * an MCS lock's queue: a start that finds it NULL stores its operation
 * there (an empty FIFO has no finisher: the last one left it empty and
 * touches it no more) and launches it, the head; otherwise it exchanges
 * it for its operation (finding NULL after all, it is the head) and
 * links itself behind the previous tail (`next`, release). A finisher
 * reads `next`; finding NULL it swings `tail` from its operation back to
 * NULL (sequentially consistent, like the drain waiters' check, wait.c),
 * and when that CAS fails a start is between its exchange and its link:
 * it waits for the link (a few instructions, unless that start's kernel
 * thread was preempted). A finisher that is the rank itself, in one of
 * its calls (MPI_Wait, or the start that completed the round), while no
 * other ULT of the rank may be in a call (myr_rank_calls_serialized: a
 * thread level below MPI_THREAD_MULTIPLE) has no start to race with: it
 * empties the FIFO with a store (unlink_own_head). The previous tail
 * cannot go away before its link is made: its finisher waits for it, and
 * only completes its request after.
 *
 * Finishing an operation: its outcome is settled in its request (while
 * the round's error message is still there), then it is unlinked and the
 * next one taken; the request is completed (myr_request_complete resumes
 * MPI_Wait or notifies the rank; finished by the rank itself inside its
 * MPI_Wait, a plain store, nobody else may wait for it); the next
 * operation is launched. MPI_Wait then retires a request that carries no
 * error in one step (mpi/request.c, wait_collective).
 *
 * Lifetimes. An operation and its request are one block (the request
 * first: the handle is the block), taken by the start and given back
 * when the rank retires the request (MPI_Wait: myr_coll_nb_release;
 * otherwise myr_request_release, which calls op_release last). The
 * request holds one reference to the communicator handle (the queue
 * lives in it), released with the block, so MPI_Comm_free with
 * operations pending frees nothing they use: a finisher touches neither
 * the block nor the queue once the request is complete, and the next
 * operation it launches holds its own reference. Runners are detached
 * ULTs: the runtime's finalize waits for them, so the job's ranks
 * outlive them.
 */
#include "coll/coll_impl.h"
#include "core/p2p.h"
#include "ult/core_api.h"

#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An operation and its request are one block: the request first, so
 * that the handle is the block and a dead handle's magic stays readable
 * while the block is cached (ult/core_api.h). The request's reference to
 * the communicator is the operation's too (see Lifetimes). */
struct myr_coll_nb_op {
    struct myr_mpi_request request;  /* comm, owner (the rank), status */
    _Atomic(struct myr_coll_nb_op *) next;   /* behind it in the FIFO */
    myr_coll_nb_queue *queue;      /* the FIFO, in the rank's communicator state */
    const char *call;
    myr_coll_nb_fn fn;             /* NULL: a round (args start with myr_coll_args) */
    myr_coll_nb_cleanup cleanup;
    struct myr_coll_nb_op *done;   /* the completer's list (coll_nb_round_done) */
    coll_nb_place at;              /* a round's: where it arrived (MPI_Wait joins) */
    /* A runner's operation: RUN_PENDING from its runner's spawn until
     * the runner takes it (or the rank's MPI_Wait, having taken the
     * runner back), RUN_DECIDING while a waiter tries that; and how many
     * hold the block, the request and that runner. */
    _Atomic unsigned char run_state;
    _Atomic unsigned holders;
    _Atomic(myr_ult_t *) runner;   /* that ULT, until it begins (NULL: unknown) */
    /* A round of a communicator spanning processes (OP_PROCS; unset
     * otherwise): the members' communicator it arrives at, and what its
     * hook needs (procs.c's coll_procs_nb, malloc'd). */
    MPI_Comm round_comm;
    void *procs;
    unsigned char flags;           /* OP_CACHED, OP_PROCS, OP_RUNNER */
    max_align_t args[];            /* the starter's arguments, copied */
};
_Static_assert(offsetof(struct myr_coll_nb_op, request) == 0, "the handle is the block");

/* Operations come from the workers' block caches (ult/core_api.h; core/p2p.c
 * uses caches 0, 1 and 3): malloc and free were a fifth of a nonblocking
 * barrier's instructions. Blocks of OP_BLOCK bytes hold every
 * collective's arguments (mpi/coll.c's copy) with the request; larger
 * ones are malloc'd. */
enum { CACHE_NB_OP = 2, OP_BLOCK = 512 };
/* An operation's block: an OP_BLOCK from the workers' cache (else
 * malloc'd); a round across processes (round_comm and procs are set); a
 * runner's operation (fn). */
enum { OP_CACHED = 1, OP_PROCS = 2, OP_RUNNER = 4 };
enum { RUN_NONE, RUN_PENDING, RUN_DECIDING };

static struct myr_coll_nb_op *op_new(size_t args_size)
{
    size_t size = sizeof(struct myr_coll_nb_op) + args_size;
    bool cached = size <= OP_BLOCK;
    struct myr_coll_nb_op *op = cached ? myr_ult_cache_get(CACHE_NB_OP, OP_BLOCK)
                                       : malloc(size);
    if (op)
        op->flags = cached ? OP_CACHED : 0;
    return op;
}

static inline __attribute__((always_inline)) void op_free(struct myr_coll_nb_op *op)
{
    if (op->flags & OP_CACHED)
        myr_ult_cache_put(CACHE_NB_OP, op, OP_BLOCK);
    else
        free(op);
}

static struct myr_coll_nb_op *op_of_request(struct myr_mpi_request *r)
{
    return (struct myr_coll_nb_op *)r;
}

/* The block is its request's: the rank gives it back when it retires the
 * request (myr_request_release calls this last), on the worker that took
 * it: freed by the completer, blocks left the starters' caches for the
 * completer's, and most starts went to malloc (a fifth of MPI_Ibarrier's
 * time at 64 ranks, with malloc's lock contended between the workers).
 * The communicator's reference goes with it. */
static void op_drop(struct myr_coll_nb_op *op)
{
    if (atomic_fetch_sub_explicit(&op->holders, 1, memory_order_acq_rel) == 1)
        op_free(op);
}

/* All but a cached round's in one process: a runner's (held by its ULT
 * too), a round's across processes (with what its hook needed). */
__attribute__((noinline)) static void op_release_other(struct myr_coll_nb_op *op)
{
    if (op->flags & OP_RUNNER) {
        op_drop(op);
        return;
    }
    if (op->flags & OP_PROCS)
        free(op->procs);
    op_free(op);
}

static void op_release(struct myr_mpi_request *r)
{
    MPI_Comm comm = r->comm;
    struct myr_coll_nb_op *op = op_of_request(r);
    if (__builtin_expect(op->flags == OP_CACHED, 1))
        myr_ult_cache_put(CACHE_NB_OP, op, OP_BLOCK);
    else
        op_release_other(op);
    myr_comm_release(comm);
}

void myr_coll_nb_release(struct myr_mpi_request *r)
{
    r->magic = MYR_MAGIC_DEAD;
    op_release(r);
}

static myr_coll_nb_queue *queue_of(MPI_Comm comm, myr_rank *self)
{
    return &myr_comm_local_of(comm, self)->nb;
}

/* settle's message of a failed operation. */
__attribute__((noinline)) static void settle_failed(struct myr_mpi_request *r, const char *call,
                                                   const char *why)
{
    const char *what = why && why[0] ? why : "the operation failed";
    size_t n = strlen(call) + strlen(what) + 3;
    r->why = malloc(n);
    if (r->why)
        snprintf(r->why, n, "%s: %s", call, what);
}

/* The request's outcome: a collective's status says only MPI_ERROR. */
static inline void settle(struct myr_mpi_request *r, const char *call, int err,
                          const char *why)
{
    /* myr_status_empty's, inline. */
    r->status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG,
                             .MPI_ERROR = err};
    if (__builtin_expect(err == MPI_SUCCESS, 1))
        return;
    settle_failed(r, call, why);
}

static void *runner_main(void *arg);
static void launch(struct myr_coll_nb_op *op, bool own);
static void launch_runner(struct myr_coll_nb_op *op);
static void run_op(struct myr_coll_nb_op *op, bool own);

/* myr_request_complete, but its resume one of a batch (the caller ends
 * it): resuming the ranks one by one, each resume announced to the idle
 * workers, woke a sleeper per rank to steal it. */
static void complete_request(struct myr_mpi_request *r)
{
    myr_rank *owner = r->owner;  /* read before r may be freed */
    myr_ult_t *waiter = atomic_exchange(&r->waiter, MYR_WAITER_CLAIMED);
    if (waiter && waiter != MYR_WAITER_CLAIMED && myr_waiter_is_group(waiter))
        waiter = myr_wait_group_arrive(waiter);   /* an MPI_Waitall's */
    if (waiter && waiter != MYR_WAITER_CLAIMED)
        myr_ult_resume_batch_internal(waiter);
    int old = atomic_fetch_or(&r->state, MYR_REQ_COMPLETE);
    if (old & MYR_REQ_FREED)
        myr_request_release(r);
    myr_wait_notify(owner);
}

/* The request of an operation finished by its rank's own MPI_Wait on it
 * (coll_nb_finish_own from coll_round_join), or by its rank inside the
 * call that started it: nobody else waits for it (MPI makes two waits on
 * one request erroneous, and a collective's request cannot be freed), so
 * COMPLETE is a store and the waiter is left alone (myr_request_wait
 * reads COMPLETE first). The owner is still notified, for a wait on
 * several requests by another ULT of the rank. */
static void complete_own_request(struct myr_mpi_request *r)
{
    myr_rank *owner = r->owner;
    atomic_store_explicit(&r->state, MYR_REQ_COMPLETE, memory_order_release);
    myr_wait_notify(owner);
}

/* Unlink op, the head of its FIFO: the next operation, or NULL (then the
 * FIFO is empty). See the model. */
static struct myr_coll_nb_op *unlink_head(myr_coll_nb_queue *q, struct myr_coll_nb_op *op)
{
    struct myr_coll_nb_op *next = atomic_load_explicit(&op->next, memory_order_acquire);
    if (next)
        return next;
    struct myr_coll_nb_op *expected = op;
    if (atomic_compare_exchange_strong(&q->tail, &expected, NULL))
        return NULL;
    /* A start took tail after op: wait for its link. */
    for (unsigned spins = 0; !(next = atomic_load_explicit(&op->next, memory_order_acquire));
         spins++) {
        if (spins < 256)
            myr_cpu_relax();
        else
            sched_yield();   /* the starter's kernel thread was preempted */
    }
    return next;
}

/* unlink_head by the rank itself, in one of its calls, when no other ULT
 * of the rank can be in a call meanwhile (myr_rank_calls_serialized):
 * then no start can race with this finish, and nobody can be waiting for
 * the FIFO to empty (that is a blocking collective's call), so plain
 * stores do. */
static struct myr_coll_nb_op *unlink_own_head(myr_coll_nb_queue *q, struct myr_coll_nb_op *op)
{
    struct myr_coll_nb_op *next = atomic_load_explicit(&op->next, memory_order_relaxed);
    if (!next)
        atomic_store_explicit(&q->tail, NULL, memory_order_release);
    return next;
}

/* The operation is over (its request settled): unlink it, complete its
 * request (a resume of a batch; `own`: see complete_own_request), launch
 * the next one. */
static inline __attribute__((always_inline)) void finish(struct myr_coll_nb_op *op, bool own)
{
    if (op->cleanup)
        op->cleanup(op->args);
    struct myr_coll_nb_op *next = own && myr_rank_calls_serialized(op->request.owner)
                                      ? unlink_own_head(op->queue, op)
                                      : unlink_head(op->queue, op);
    /* Once complete, the request (and the block with it, and maybe the
     * communicator with the queue) may be retired at any time: neither
     * is touched again. The next operation's request holds its own
     * reference to the communicator. */
    if (own)
        complete_own_request(&op->request);
    else
        complete_request(&op->request);
    if (next)
        launch(next, false);
}

void *coll_nb_round_done(void *op_, int err, const char *why, void *done)
{
    struct myr_coll_nb_op *op = op_;
    settle(&op->request, op->call, err, why);
    op->done = done;
    return op;
}

void coll_nb_complete_all(void *done)
{
    for (struct myr_coll_nb_op *op = done, *next; op; op = next) {
        next = op->done;
        finish(op, false);
    }
    myr_ult_resume_batch_end();
}

/* coll_nb_finish_own; inline in MPI_Wait's join (myr_coll_nb_wait). */
static inline __attribute__((always_inline)) void
finish_own(struct myr_coll_nb_op *op, coll_state *s, int me, bool own)
{
    const char *why = NULL;
    int err = s->err;
    if (err != MPI_SUCCESS)
        why = s->why;
    else if (s->parallel)   /* the completer did every share (release_flat) */
        err = atomic_load_explicit(&s->phase_err, memory_order_relaxed), why = s->phase_why;
    else if (s->slots[me].kind != MYR_COLL_BARRIER)   /* a barrier has no part */
        err = coll_finish(s, op->request.owner, me, &s->slots[me], &why);
    settle(&op->request, op->call, err, why);
    finish(op, own);
    myr_ult_resume_batch_end();
}

void coll_nb_finish_own(void *op, coll_state *s, int me, bool own)
{
    finish_own(op, s, me, own);
}

void myr_coll_nb_wait(myr_rank *self, struct myr_mpi_request *r)
{
    struct myr_coll_nb_op *op = op_of_request(r);
    if (!op->fn) {
        if (atomic_load_explicit(&op->at.arrived, memory_order_acquire) && r->owner == self &&
            coll_round_join(&op->at, self, r->comm)) {
            finish_own(op, op->at.s, op->at.me, true);
            return;
        }
    } else if (r->owner == self &&
               atomic_load_explicit(&op->run_state, memory_order_relaxed) == RUN_PENDING) {
        /* Launched, its runner not begun: while this waiter decides, the
         * runner cannot take the operation, so it cannot end either and
         * `runner` (NULL: not known yet) is the live ULT. Next in this
         * worker's queue, it is taken back and the operation runs here. */
        unsigned char pending = RUN_PENDING;
        if (atomic_compare_exchange_strong_explicit(&op->run_state, &pending, RUN_DECIDING,
                                                    memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            if (myr_ult_unspawn_internal(
                    atomic_load_explicit(&op->runner, memory_order_relaxed))) {
                atomic_store_explicit(&op->run_state, RUN_NONE, memory_order_relaxed);
                op_drop(op);
                run_op(op, true);
                return;
            }
            atomic_store_explicit(&op->run_state, RUN_PENDING, memory_order_release);
        }
    }
    myr_request_wait(self, r);
}

/* A round that cannot be arrived at: the communicator has no state. */
__attribute__((noinline)) static void arrive_failed(struct myr_coll_nb_op *op)
{
    settle(&op->request, op->call, MPI_ERR_NO_MEM,
           "out of memory for the communicator's collective state");
    finish(op, false);
    myr_ult_resume_batch_end();
}

/* Arrive at the round for the rank; the last arrival finishes it. `own`:
 * in the rank's own call that started the operation. Inline: in that call
 * (start_op) it is most of the work. */
static inline __attribute__((always_inline)) void arrive(struct myr_coll_nb_op *op, bool own)
{
    MPI_Comm comm = __builtin_expect(op->flags & OP_PROCS, 0) ? op->round_comm
                                                             : op->request.comm;
    coll_state *s = coll_state_of(comm, op->request.owner);
    if (__builtin_expect(!s, 0)) {
        arrive_failed(op);
        return;
    }
    int me = myr_comm_rank(comm, op->request.owner);
    coll_slot *mine = &s->slots[me];
    const myr_coll_args *a = (const myr_coll_args *)op->args;
    if (__builtin_expect(op->flags & OP_PROCS, 0)) {
        /* One round of the process's members, a barrier's (the hook does
         * an Allreduce's work): see procs.c. */
        coll_procs_nb_arrive(op->procs, s);
        mine->kind = MYR_COLL_BARRIER;
        mine->nonblocking = true;
        mine->a = a;
    } else if (a->kind == MYR_COLL_BARRIER && a->carry == MPI_SUCCESS) {
        /* What is read of a barrier's slot (as in myr_coll_barrier), and
         * its arguments for the others' checks. */
        mine->kind = MYR_COLL_BARRIER;
        mine->nonblocking = true;
        mine->a = a;
    } else {
        coll_slot_fill(s, me, a);
    }
    coll_round_nb(s, me, mine, op, &op->at, own);
}

/* Start the head of the queue: its round, or a runner. */
static void launch(struct myr_coll_nb_op *op, bool own)
{
    if (!op->fn) {
        arrive(op, own);
        return;
    }
    launch_runner(op);
}

/* Run op's algorithm on the calling ULT, for the rank, and finish op
 * (`own`: in the rank's own MPI_Wait on it, see finish). */
static void run_op(struct myr_coll_nb_op *op, bool own)
{
    myr_coll_nb_queue *q = op->queue;
    atomic_store_explicit(&q->runner, myr_ult_self_internal(), memory_order_relaxed);
    const char *why = NULL;
    int err = op->fn(op->request.comm, op->request.owner, op->args, &why);
    /* why may point into state the next collective on comm overwrites:
     * copied now, before this rank takes part in another. */
    settle(&op->request, op->call, err, why);
    atomic_store_explicit(&q->runner, NULL, memory_order_relaxed);
    finish(op, own);   /* launches the next one: a round, or a runner of its own */
    myr_ult_resume_batch_end();
}

/* A runner for op (launch). */
static void launch_runner(struct myr_coll_nb_op *op)
{
    /* A communicator of one rank never waits for another: run it now,
     * without a ULT. So does a runner nobody can start (out of memory),
     * rather than leave the queue stuck. */
    if (myr_comm_size(op->request.comm) > 1) {
        atomic_store_explicit(&op->holders, 2, memory_order_relaxed);
        atomic_store_explicit(&op->runner, NULL, memory_order_relaxed);
        /* Release: a waiter that takes the operation reads `runner`
         * after it, NULL or the ULT. */
        atomic_store_explicit(&op->run_state, RUN_PENDING, memory_order_release);
        if (myr_ult_spawn_detached_internal(runner_main, op, &op->runner) == MYR_OK)
            return;
        atomic_store_explicit(&op->holders, 1, memory_order_relaxed);
        atomic_store_explicit(&op->run_state, RUN_NONE, memory_order_relaxed);
    }
    run_op(op, false);
}

/* The runner ULT (unless the rank's MPI_Wait took it back before it
 * began: see myr_coll_nb_wait). A waiter deciding whether it can is a few
 * instructions away from letting go. */
static void *runner_main(void *arg)
{
    struct myr_coll_nb_op *op = arg;
    for (unsigned spins = 0;; spins++) {
        unsigned char pending = RUN_PENDING;
        if (atomic_compare_exchange_weak_explicit(&op->run_state, &pending, RUN_NONE,
                                                  memory_order_acq_rel, memory_order_relaxed)) {
            run_op(op, false);
            break;
        }
        if (pending == RUN_NONE)
            break;
        if (spins < 256)
            myr_cpu_relax();
        else
            sched_yield();   /* the waiter's kernel thread was preempted */
    }
    op_drop(op);
    return NULL;
}

/* Queue the operation `op` (its arguments in place) and launch it if it is
 * the rank's first on comm. */
static inline __attribute__((always_inline)) int
start_op(struct myr_coll_nb_op *op, MPI_Comm comm, myr_rank *self, const char *call,
         myr_coll_nb_fn fn, myr_coll_nb_cleanup cleanup, MPI_Request *request)
{
    /* Field by field: a compound literal would clear the whole block
     * first, for fields that are written before they are read. Of the
     * request, what a collective's is read for (the Wait and Test
     * families, the deadlock report); its status is written when it
     * completes. */
    struct myr_mpi_request *r = &op->request;
    myr_request_init_head(r, self, MYR_REQ_COLL, false, NULL);
    r->active = true;
    r->release_ext = op_release;
    r->start_seq = 0;
    myr_comm_retain(comm);
    r->comm = comm;          /* released with the request (op_release) */
    atomic_store_explicit(&op->next, NULL, memory_order_relaxed);
    op->call = call;
    op->fn = fn;
    op->cleanup = cleanup;
    atomic_init(&op->at.arrived, false);
    if (fn) {
        op->flags |= OP_RUNNER;
        atomic_init(&op->run_state, RUN_NONE);   /* until launch_runner spawns its runner */
        atomic_init(&op->holders, 1);
    }
    myr_coll_nb_queue *q = op->queue = queue_of(comm, self);
    /* Before the operation is queued: once it is, it may complete, and
     * its request be retired by another ULT of the rank. */
    *request = r;
    /* An empty FIFO has no finisher (one leaves it empty and touches it
     * no more): a store queues the operation. Acquire: what the last
     * finisher did before it emptied the FIFO happened before. */
    struct myr_coll_nb_op *prev = atomic_load_explicit(&q->tail, memory_order_acquire);
    if (prev)
        prev = atomic_exchange_explicit(&q->tail, op, memory_order_acq_rel);
    else
        atomic_store_explicit(&q->tail, op, memory_order_release);
    if (prev)
        atomic_store_explicit(&prev->next, op, memory_order_release);
    else if (!fn)
        arrive(op, true);   /* inline: the usual nonblocking collective */
    else
        launch_runner(op);
    return MPI_SUCCESS;
}

/* Start an operation run by `fn` (a runner): in `op`, its arguments in
 * place, or (op NULL) in a new block, a copy of `args`. Out of line: the
 * usual operation, a round, is started by start_op inline. */
__attribute__((noinline)) static int start(MPI_Comm comm, myr_rank *self, const char *call,
                                           myr_coll_nb_fn fn, const void *args,
                                           size_t args_size, myr_coll_nb_cleanup cleanup,
                                           MPI_Request *request, struct myr_coll_nb_op *op)
{
    if (op)
        return start_op(op, comm, self, call, fn, cleanup, request);
    op = op_new(args_size);
    if (!op) {
        if (cleanup)
            cleanup((void *)args);   /* the starter's copy is the one to clean */
        return MPI_ERR_NO_MEM;
    }
    if (args_size)
        memcpy(op->args, args, args_size);
    return start_op(op, comm, self, call, fn, cleanup, request);
}

static struct myr_coll_nb_op *op_of_args(void *args)
{
    return (struct myr_coll_nb_op *)((char *)args - offsetof(struct myr_coll_nb_op, args));
}

void *myr_coll_nb_reserve(size_t args_size)
{
    struct myr_coll_nb_op *op = op_new(args_size);
    return op ? op->args : NULL;
}

void myr_coll_nb_unreserve(void *args)
{
    op_free(op_of_args(args));
}

int myr_coll_nb_start(MPI_Comm comm, myr_rank *self, const char *call,
                      myr_coll_nb_fn fn, const void *args, size_t args_size,
                      myr_coll_nb_cleanup cleanup, MPI_Request *request)
{
    return start(comm, self, call, fn, args, args_size, cleanup, request, NULL);
}

/* A communicator spanning several OS processes: its collectives wait
 * for messages between processes (procs.c), so they run on a runner. */
static int run_across_processes(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    return coll_procs_run(comm, self, args, why);
}

/* Start a collective of a communicator spanning processes: a round of the
 * process's members with its hook (a Barrier, a small Allreduce, Reduce,
 * Bcast or Allgather: procs.c) or else a runner. */
static int start_across_processes(MPI_Comm comm, myr_rank *self, const char *call,
                                  struct myr_coll_nb_op *op, myr_coll_nb_cleanup cleanup,
                                  MPI_Request *request)
{
    MPI_Comm sub;
    void *state = coll_procs_nb_new(comm, self, (const myr_coll_args *)op->args, &sub);
    if (!state)
        return start(comm, self, call, run_across_processes, NULL, 0, cleanup, request, op);
    op->round_comm = sub;
    op->procs = state;
    op->flags |= OP_PROCS;
    return start_op(op, comm, self, call, NULL, cleanup, request);
}

int myr_coll_nb_start_coll(MPI_Comm comm, myr_rank *self, const char *call, void *args,
                           myr_coll_nb_cleanup cleanup, MPI_Request *request)
{
    if (__builtin_expect(coll_spans_processes(comm), 0))
        return start_across_processes(comm, self, call, op_of_args(args), cleanup, request);
    return start_op(op_of_args(args), comm, self, call, NULL, cleanup, request);
}

int myr_coll_nb_start_barrier(MPI_Comm comm, myr_rank *self, const char *call,
                              MPI_Request *request)
{
    struct myr_coll_nb_op *op = op_new(sizeof(myr_coll_args));
    if (!op)
        return MPI_ERR_NO_MEM;
    myr_coll_args *a = (myr_coll_args *)op->args;
    if (__builtin_expect(coll_spans_processes(comm), 0)) {
        *a = (myr_coll_args){.kind = MYR_COLL_BARRIER, .nonblocking = true};
        return start_across_processes(comm, self, call, op, NULL, request);
    }
    /* All a round reads of a barrier's (arrive): a copy of the whole
     * would cost more than the rest of the call. */
    a->kind = MYR_COLL_BARRIER;
    a->carry = MPI_SUCCESS;
    a->nonblocking = true;
    return start_op(op, comm, self, call, NULL, NULL, request);
}

static bool queue_empty(void *arg)
{
    return atomic_load((_Atomic(struct myr_coll_nb_op *) *)arg) == NULL;
}

void myr_coll_nb_drain_slow(MPI_Comm comm, myr_rank *self)
{
    myr_coll_nb_queue *q = queue_of(comm, self);
    if (atomic_load(&q->tail) == NULL)
        return;
    /* An operation's own algorithm calling a blocking entry point runs it
     * as part of itself: the queue cannot empty before it returns. */
    if (atomic_load_explicit(&q->runner, memory_order_relaxed) == myr_ult_self_internal())
        return;
    myr_wait_until(self, queue_empty, &q->tail,
                   &(myr_wait_note){.kind = MYR_WAIT_NB_COLLECTIVES, .comm = comm});
}
