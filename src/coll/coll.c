/*
 * coll.c — barrier, broadcast and allreduce among the collocated ranks of a
 * communicator, through shared memory (no point-to-point messages).
 *
 * Model. A communicator has one collective state, shared by its ranks (for
 * MPI_COMM_WORLD: one per job, built by the first collective call; for
 * MPI_COMM_SELF nothing is shared and nothing waits). A collective call is
 * one *round* of that state. In a round every rank
 *   1. reads the round's number `release` (it cannot change before this
 *      rank arrives, see below),
 *   2. writes its slot: which collective, root, count, type, op, buffer,
 *   3. arrives at its group's counter. The last rank of a group to arrive
 *      (the group's leader for this round) resets the group counter and
 *      arrives at the top counter. The last leader to arrive there (the
 *      completer) resets the top counter, checks that all slots agree,
 *      does the round's work (the reduction, or the copy of the root's
 *      data) into the shared scratch buffer, and publishes release + 1.
 *   4. Every other rank waits for that in myr_wait_until: suspended, in no
 *      ready queue, until a notification makes it re-check `release`.
 *      Wake-ups form the same tree: the completer notifies the other
 *      groups' leaders and its own group; each leader, when it runs again,
 *      notifies its own group.
 *   5. After the release, each rank copies its result out of scratch.
 *
 * Groups are the blocks of consecutive ranks that the launcher
 * (launch/rank_start.c) starts on the same worker (rank i on worker i*W/N),
 * so in the common case one core touches a group counter and only one rank
 * per worker touches the top counter; the grouping affects speed only,
 * never results.
 *
 * Why reuse from one round to the next is race-free:
 * - `release` moves only after every rank has arrived, so a rank reading it
 *   before arriving reads its own round's number.
 * - A group counter is reset by its leader before the leader arrives at the
 *   top; no rank of the group can arrive again before the release, which
 *   comes after. The completer resets the top counter before the release.
 * - Slots and scratch of round g are written before everyone has arrived
 *   (slots) or by the completer (scratch), and read until the rank reading
 *   them leaves round g. The completer of round g+1 writes scratch only
 *   once every rank has arrived at g+1, i.e. has finished with round g.
 * - A leader's identity (`leader`) may be overwritten by the next round of
 *   its group while the completer is still notifying; that can only happen
 *   if the old leader already saw the release, so it needs no notification.
 *
 * Determinism. Allreduce folds the contributions in rank order,
 * ((x0 op x1) op x2) ... op x(N-1), whatever the number of workers or the
 * order of arrival, so results are reproducible run to run. Small
 * reductions are folded by the completer alone; large ones (LARGE_BYTES)
 * are split into element ranges, each rank folding one range over all
 * ranks in the same order, then a second round (a plain barrier) waits for
 * all ranges before the ranks copy the result out.
 */
#include "coll/coll.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reductions of at least this many bytes per rank are done in parallel. */
#define LARGE_BYTES (32 * 1024)

enum coll_kind { COLL_BARRIER, COLL_BCAST, COLL_ALLREDUCE };
static const char *const kind_name[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce"};

/* What a rank passes to a round; written by that rank before it arrives. */
typedef struct coll_slot {
    int kind;
    int root;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    const void *in;        /* bcast: the buffer; allreduce: the contribution */
} coll_slot;

typedef struct coll_group {
    _Alignas(MYR_CACHE_LINE) _Atomic int arrived;
    _Atomic int leader;    /* the group's last arrival in its latest round */
    int first, size;       /* ranks first .. first+size-1 */
} coll_group;

typedef struct coll_state {
    /* Immutable once published. */
    myr_rank *ranks;       /* the job it was built for */
    int size;
    int ngroups;
    coll_group *groups;
    coll_slot *slots;      /* one per rank */

    _Alignas(MYR_CACHE_LINE) _Atomic int top_arrived;
    _Alignas(MYR_CACHE_LINE) _Atomic unsigned release;

    /* Written by the completer, read by every rank after the release. */
    _Alignas(MYR_CACHE_LINE) int err;
    bool sliced;           /* allreduce: each rank folds its own range */
    char why[256];
    void *scratch;
    size_t scratch_cap;
} coll_state;

/* ---- the state of MPI_COMM_WORLD --------------------------------------- */

static _Atomic(coll_state *) world_state;
static myr_spinlock world_lock;

static void state_free(coll_state *s)
{
    free(s->groups);
    free(s->slots);
    free(s->scratch);
    free(s);
}

static coll_state *state_new(myr_rank *ranks, int size)
{
    coll_state *s = aligned_alloc(MYR_CACHE_LINE, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->ranks = ranks;
    s->size = size;
    int workers = myr_worker_count();
    s->ngroups = workers < 1 ? 1 : workers < size ? workers : size;
    s->groups = aligned_alloc(MYR_CACHE_LINE, (size_t)s->ngroups * sizeof *s->groups);
    s->slots = calloc((size_t)size, sizeof *s->slots);
    if (!s->groups || !s->slots) {
        state_free(s);
        return NULL;
    }
    /* Group g holds the ranks r with r*G/N == g: those the launcher placed on
     * worker g. With G <= N no group is empty. */
    long long n = size, g_count = s->ngroups;
    for (long long g = 0; g < g_count; g++) {
        coll_group *grp = &s->groups[g];
        memset(grp, 0, sizeof *grp);
        grp->first = (int)((g * n + g_count - 1) / g_count);
        int end = (int)(((g + 1) * n + g_count - 1) / g_count);
        grp->size = end - grp->first;
    }
    return s;
}

/* The state for the current job. Built once by whichever rank gets here
 * first; a state built for an earlier job in this process (other ranks
 * array or size) is replaced, and deliberately not freed: it is tiny, jobs
 * are rarely recreated, and a rank of the new job may still be reading its
 * identity fields. */
static coll_state *world(void)
{
    coll_state *s = atomic_load_explicit(&world_state, memory_order_acquire);
    if (__builtin_expect(s && s->ranks == myr_the_job.ranks &&
                         s->size == myr_the_job.size, 1))
        return s;
    myr_spin_lock(&world_lock);
    s = atomic_load_explicit(&world_state, memory_order_relaxed);
    if (!s || s->ranks != myr_the_job.ranks || s->size != myr_the_job.size) {
        s = state_new(myr_the_job.ranks, myr_the_job.size);
        if (s)
            atomic_store_explicit(&world_state, s, memory_order_release);
    }
    myr_spin_unlock(&world_lock);
    return s;
}

/* ---- rounds ------------------------------------------------------------- */

typedef struct round_wait {
    coll_state *s;
    unsigned gen;
} round_wait;

/* Sequentially consistent, as is the store of `release`: myr_wait_notify
 * skips ranks that are not (yet) in myr_wait_until, which is only safe if
 * the publication and its check are ordered with the waiter's
 * registration (wait.c). */
static bool round_released(void *arg)
{
    round_wait *w = arg;
    return atomic_load(&w->s->release) != w->gen;
}

static void notify_group(coll_state *s, const coll_group *grp, int except)
{
    for (int r = grp->first; r < grp->first + grp->size; r++)
        if (r != except)
            myr_wait_notify(&s->ranks[r]);
}

static int fail(coll_state *s, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(coll_state *s, int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    s->err = errclass;
    return errclass;
}

static bool scratch_reserve(coll_state *s, size_t bytes)
{
    if (bytes <= s->scratch_cap)
        return true;
    size_t cap = (bytes + MYR_CACHE_LINE - 1) / MYR_CACHE_LINE * MYR_CACHE_LINE;
    void *p = aligned_alloc(MYR_CACHE_LINE, cap);
    if (!p) {
        fail(s, MPI_ERR_NO_MEM, "out of memory for a %zu-byte collective buffer", bytes);
        return false;
    }
    free(s->scratch);
    s->scratch = p;
    s->scratch_cap = cap;
    return true;
}

static size_t slot_bytes(const coll_slot *c)
{
    return (size_t)c->count * c->type->size;
}

/* Every rank must have called the same collective with matching
 * arguments; the first disagreement becomes the round's error. */
static bool slots_agree(coll_state *s)
{
    const coll_slot *ref = &s->slots[0];
    for (int r = 1; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (c->kind != ref->kind) {
            fail(s, MPI_ERR_OTHER, "collective mismatch: rank %d called %s "
                 "while rank 0 called %s", r, kind_name[c->kind], kind_name[ref->kind]);
            return false;
        }
        if (ref->kind == COLL_BCAST && c->root != ref->root) {
            fail(s, MPI_ERR_ROOT, "rank %d passed root %d while rank 0 passed root %d",
                 r, c->root, ref->root);
            return false;
        }
        if (ref->kind == COLL_ALLREDUCE && c->op != ref->op) {
            fail(s, MPI_ERR_OP, "rank %d passed op %s while rank 0 passed %s",
                 r, c->op->name, ref->op->name);
            return false;
        }
        if (ref->kind == COLL_ALLREDUCE && (c->type != ref->type || c->count != ref->count)) {
            fail(s, c->type != ref->type ? MPI_ERR_TYPE : MPI_ERR_COUNT,
                 "rank %d passed %d x %s while rank 0 passed %d x %s",
                 r, c->count, c->type->name, ref->count, ref->type->name);
            return false;
        }
    }
    if (ref->kind == COLL_BCAST) {
        const coll_slot *root = &s->slots[ref->root];
        for (int r = 0; r < s->size; r++) {
            const coll_slot *c = &s->slots[r];
            if (slot_bytes(c) != slot_bytes(root)) {
                fail(s, slot_bytes(c) < slot_bytes(root) ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                     "rank %d passed %d x %s (%zu bytes) but root %d sends %d x %s "
                     "(%zu bytes)", r, c->count, myr_datatype_label(c->type), slot_bytes(c),
                     ref->root, root->count, myr_datatype_label(root->type), slot_bytes(root));
                return false;
            }
        }
    }
    return true;
}

/* The completer's part of a round: everyone has arrived, nobody has left. */
static void complete_round(coll_state *s, const coll_slot *mine)
{
    s->err = MPI_SUCCESS;
    s->sliced = false;
    if (!mine || !slots_agree(s))
        return;
    if (mine->kind == COLL_BCAST) {
        const coll_slot *root = &s->slots[mine->root];
        /* Packed: every rank unpacks with its own (signature-compatible)
         * layout. */
        size_t bytes = slot_bytes(root);
        if (scratch_reserve(s, bytes))
            myr_datatype_transfer(s->scratch, MPI_BYTE, root->in, root->type, bytes);
    } else if (mine->kind == COLL_ALLREDUCE) {
        size_t bytes = slot_bytes(mine);
        if (!scratch_reserve(s, bytes))
            return;
        if (bytes >= LARGE_BYTES && s->size > 1) {
            s->sliced = true;   /* each rank folds its range after the release */
            return;
        }
        if (bytes)
            memcpy(s->scratch, s->slots[0].in, bytes);
        for (int r = 1; r < s->size; r++)
            myr_op_reduce(mine->op, mine->type, (size_t)mine->count, s->slots[r].in, s->scratch);
    }
}

/* Take part in one round as comm rank `me`; `mine` is NULL for an internal
 * barrier round (no slot is written and nothing is checked, so ranks may
 * still read the slots of the previous round). Returns after the release. */
static void round_run(coll_state *s, myr_rank *self, int me, const coll_slot *mine)
{
    unsigned gen = atomic_load_explicit(&s->release, memory_order_acquire);
    if (mine)
        s->slots[me] = *mine;
    int g = (int)((long long)me * s->ngroups / s->size);
    coll_group *grp = &s->groups[g];
    bool leader = false;
    if (atomic_fetch_add_explicit(&grp->arrived, 1, memory_order_acq_rel) == grp->size - 1) {
        leader = true;
        atomic_store_explicit(&grp->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&grp->leader, me, memory_order_relaxed);
        if (atomic_fetch_add_explicit(&s->top_arrived, 1, memory_order_acq_rel) ==
            s->ngroups - 1) {
            atomic_store_explicit(&s->top_arrived, 0, memory_order_relaxed);
            complete_round(s, mine);
            atomic_store(&s->release, gen + 1);   /* seq_cst: see round_released */
            /* A leader read here may already belong to the group's next
             * round (see the invariants above): then it needs no wake-up,
             * and the extra one is harmless. */
            for (int h = 0; h < s->ngroups; h++)
                if (h != g)
                    myr_wait_notify(&s->ranks[atomic_load_explicit(&s->groups[h].leader,
                                                                   memory_order_relaxed)]);
            notify_group(s, grp, me);
            return;
        }
    }
    round_wait w = {s, gen};
    myr_wait_until(self, round_released, &w);
    if (leader)
        notify_group(s, grp, me);
}

/* ---- the collectives ----------------------------------------------------- */

static int no_state(const char **why)
{
    *why = "out of memory for the communicator's collective state";
    return MPI_ERR_NO_MEM;
}

static int round_result(coll_state *s, const char **why)
{
    *why = s->why;
    return s->err;
}

int myr_coll_barrier(MPI_Comm comm, myr_rank *self, const char **why)
{
    if (comm->kind == MYR_COMM_SELF)
        return MPI_SUCCESS;
    coll_state *s = world();
    if (!s)
        return no_state(why);
    coll_slot mine = {.kind = COLL_BARRIER};
    round_run(s, self, myr_comm_rank(comm, self), &mine);
    return round_result(s, why);
}

int myr_coll_bcast(MPI_Comm comm, myr_rank *self, void *buf, int count,
                   MPI_Datatype type, int root, const char **why)
{
    if (comm->kind == MYR_COMM_SELF)
        return MPI_SUCCESS;   /* root is 0: the data is already there */
    coll_state *s = world();
    if (!s)
        return no_state(why);
    int me = myr_comm_rank(comm, self);
    coll_slot mine = {.kind = COLL_BCAST, .root = root, .count = count,
                      .type = type, .in = buf};
    round_run(s, self, me, &mine);
    int err = round_result(s, why);
    if (err == MPI_SUCCESS && me != root)
        myr_datatype_transfer(buf, type, s->scratch, MPI_BYTE, (size_t)count * type->size);
    return err;
}

int myr_coll_allreduce(MPI_Comm comm, myr_rank *self, const void *in,
                       void *out, int count, MPI_Datatype type, MPI_Op op,
                       const char **why)
{
    size_t bytes = (size_t)count * type->size;  /* reducible types are contiguous */
    if (comm->kind == MYR_COMM_SELF) {
        if (in != out && bytes)
            memcpy(out, in, bytes);
        return MPI_SUCCESS;
    }
    coll_state *s = world();
    if (!s)
        return no_state(why);
    int me = myr_comm_rank(comm, self);
    coll_slot mine = {.kind = COLL_ALLREDUCE, .count = count, .type = type,
                      .op = op, .in = in};
    round_run(s, self, me, &mine);
    int err = round_result(s, why);
    if (err != MPI_SUCCESS)
        return err;
    if (s->sliced) {
        /* Fold elements [lo, hi) over all ranks, in rank order. */
        size_t lo = (size_t)count * (size_t)me / (size_t)s->size;
        size_t hi = (size_t)count * ((size_t)me + 1) / (size_t)s->size;
        if (hi > lo) {
            size_t off = lo * type->size;
            char *acc = (char *)s->scratch + off;
            memcpy(acc, (const char *)s->slots[0].in + off, (hi - lo) * type->size);
            for (int r = 1; r < s->size; r++)
                myr_op_reduce(op, type, hi - lo, (const char *)s->slots[r].in + off, acc);
        }
        round_run(s, self, me, NULL);   /* every range is done */
    }
    if (bytes)
        memcpy(out, s->scratch, bytes);
    return MPI_SUCCESS;
}
