/*
 * coll.c — barrier, broadcast and allreduce among the collocated ranks of a
 * communicator, through shared memory (no point-to-point messages).
 *
 * Model. A communicator has one collective state, shared by its ranks (for
 * MPI_COMM_WORLD: one per job, built by the first collective call; for a
 * created communicator: built with it, see "Creating communicators"
 * below; for MPI_COMM_SELF nothing is shared and nothing waits). A collective call is
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
 * never results. A created communicator is grouped the same way by its own
 * ranks (which need not share a worker: then only the speed differs).
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

enum coll_kind { COLL_BARRIER, COLL_BCAST, COLL_ALLREDUCE, COLL_SPLIT };
static const char *const kind_name[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce",
                                        "a communicator constructor"};

/* What a rank passes to a round; written by that rank before it arrives. */
typedef struct coll_slot {
    int kind;
    int root;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    const void *in;        /* bcast: the buffer; allreduce: the contribution */
    int color, key;        /* split */
} coll_slot;

/* A rank's new communicator, decided by the completer of a split round. */
typedef struct split_result {
    myr_comm_shared *shared;   /* NULL: MPI_COMM_NULL */
    int rank;
} split_result;

typedef struct coll_group {
    _Alignas(MYR_CACHE_LINE) _Atomic int arrived;
    _Atomic int leader;    /* the group's last arrival in its latest round */
    int first, size;       /* ranks first .. first+size-1 */
} coll_group;

typedef struct coll_state {
    /* Immutable once published. */
    myr_rank *ranks;       /* the job it was built for */
    const int *map;        /* comm rank -> job rank; NULL: the identity */
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
    split_result *results; /* one per rank, allocated by the first split */
} coll_state;

static inline myr_rank *state_rank(const coll_state *s, int r)
{
    return &s->ranks[s->map ? s->map[r] : r];
}

/* ---- the state of MPI_COMM_WORLD --------------------------------------- */

static _Atomic(coll_state *) world_state;
static myr_spinlock world_lock;

static void state_free(coll_state *s)
{
    free(s->groups);
    free(s->slots);
    free(s->scratch);
    free(s->results);
    free(s);
}

static coll_state *state_new(myr_rank *ranks, const int *map, int size)
{
    coll_state *s = aligned_alloc(MYR_CACHE_LINE, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->ranks = ranks;
    s->map = map;
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
        s = state_new(myr_the_job.ranks, NULL, myr_the_job.size);
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
            myr_wait_notify(state_rank(s, r));
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
        if (ref->kind == COLL_ALLREDUCE && !myr_op_matches(c->op, ref->op)) {
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

static void complete_split(coll_state *s);

/* The completer's part of a round: everyone has arrived, nobody has left. */
static void complete_round(coll_state *s, const coll_slot *mine)
{
    s->err = MPI_SUCCESS;
    s->sliced = false;
    if (!mine || !slots_agree(s))
        return;
    if (mine->kind == COLL_SPLIT) {
        complete_split(s);
    } else if (mine->kind == COLL_BCAST) {
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
                    myr_wait_notify(state_rank(s, atomic_load_explicit(&s->groups[h].leader,
                                                                       memory_order_relaxed)));
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

static coll_state *state_of(MPI_Comm comm)
{
    return comm->kind == MYR_COMM_INTRA ? comm->shared->coll : world();
}

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
    coll_state *s = state_of(comm);
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
    coll_state *s = state_of(comm);
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
    coll_state *s = state_of(comm);
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

/* ---- creating communicators ---------------------------------------------
 *
 * The members of a new communicator must agree on one shared object (its
 * members, context id and collective state) without a lock that every
 * creation in the job takes.
 *
 * Constructors collective over the parent (dup, split, split_type,
 * create) are one round of the parent's collective state: each rank
 * writes (color, key) to its slot; the completer of the round (the last
 * rank to arrive) sorts the ranks by (color, key, parent rank), builds one
 * shared object per color with a context id from myr_context_id_next (one
 * atomic add), and writes each rank's object and new rank to `results`
 * before the release. Each rank then makes its own handle. Cost: one
 * round plus O(N log N) work by one rank, no lock; `results` obeys the
 * same reuse rule as scratch.
 *
 * MPI_Comm_create_group is collective over the group only, so it cannot
 * use the parent's rounds. Its members meet in a table of buckets, each
 * with its own spin lock, keyed by (parent context id, tag, group size,
 * first member): the first member to arrive builds the shared object and
 * publishes it in an entry; the others find it (the whole member list
 * must be equal), mark their rank as joined and take it without waiting;
 * the last to join removes the entry. A rank skips entries it has already
 * joined, so repeated calls with the same group and tag pair up in order
 * (MPI requires the members to make them in the same order).
 */

static void shared_coll_free(void *coll)
{
    state_free(coll);
}

/* A shared object for `map` (the reference is taken) with its collective
 * state, for `refs` members; NULL when out of memory. */
static myr_comm_shared *shared_build(myr_rankmap *map, int refs)
{
    if (!map)
        return NULL;
    myr_comm_shared *sh = myr_comm_shared_new(map, 1);
    if (!sh)
        return NULL;
    coll_state *cs = state_new(myr_the_job.ranks, map->world, map->size);
    if (!cs) {
        myr_comm_shared_release(sh);
        return NULL;
    }
    sh->coll = cs;
    sh->coll_free = shared_coll_free;
    atomic_store_explicit(&sh->refs, refs, memory_order_relaxed);
    return sh;
}

typedef struct split_item {
    int color, key, rank;
} split_item;

static int split_item_cmp(const void *a, const void *b)
{
    const split_item *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void complete_split(coll_state *s)
{
    if (!s->results) {
        s->results = malloc((size_t)s->size * sizeof *s->results);
        if (!s->results) {
            fail(s, MPI_ERR_NO_MEM, "out of memory for a communicator's creation");
            return;
        }
    }
    split_item *items = malloc((size_t)s->size * sizeof *items);
    if (!items) {
        fail(s, MPI_ERR_NO_MEM, "out of memory for a communicator's creation");
        return;
    }
    int n = 0;
    for (int r = 0; r < s->size; r++) {
        s->results[r] = (split_result){NULL, MPI_UNDEFINED};
        if (s->slots[r].color != MPI_UNDEFINED)
            items[n++] = (split_item){s->slots[r].color, s->slots[r].key, r};
    }
    qsort(items, (size_t)n, sizeof *items, split_item_cmp);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && items[j].color == items[i].color)
            j++;
        myr_rankmap *map = myr_rankmap_new(j - i);
        for (int k = i; map && k < j; k++)
            map->world[k - i] = s->map ? s->map[items[k].rank] : items[k].rank;
        myr_comm_shared *sh = shared_build(map, j - i);
        if (!sh) {
            /* Undo the communicators built so far: nobody has seen them. */
            for (int k = 0; k < i; k++)
                myr_comm_shared_release(s->results[items[k].rank].shared);
            for (int r = 0; r < s->size; r++)
                s->results[r] = (split_result){NULL, MPI_UNDEFINED};
            fail(s, MPI_ERR_NO_MEM, "out of memory for a new communicator of %d ranks",
                 j - i);
            break;
        }
        for (int k = i; k < j; k++)
            s->results[items[k].rank] = (split_result){sh, k - i};
        i = j;
    }
    free(items);
}

static int out_of_memory(const char **why)
{
    *why = "out of memory for a new communicator";
    return MPI_ERR_NO_MEM;
}

/* A communicator whose only member is the caller. */
static int comm_alone(myr_rank *self, MPI_Comm *out, const char **why)
{
    myr_rankmap *map = myr_rankmap_new(1);
    if (map)
        map->world[0] = self->world_rank;
    myr_comm_shared *sh = shared_build(map, 1);
    if (!sh || !(*out = myr_comm_handle_new(sh, 0)))
        return out_of_memory(why);
    return MPI_SUCCESS;
}

int myr_coll_comm_split(MPI_Comm parent, myr_rank *self, int color, int key,
                        MPI_Comm *out, const char **why)
{
    *out = MPI_COMM_NULL;
    if (parent->kind == MYR_COMM_SELF)
        return color == MPI_UNDEFINED ? MPI_SUCCESS : comm_alone(self, out, why);
    coll_state *s = state_of(parent);
    if (!s)
        return no_state(why);
    int me = myr_comm_rank(parent, self);
    coll_slot mine = {.kind = COLL_SPLIT, .color = color, .key = key};
    round_run(s, self, me, &mine);
    int err = round_result(s, why);
    if (err != MPI_SUCCESS)
        return err;
    split_result res = s->results[me];
    if (res.shared && !(*out = myr_comm_handle_new(res.shared, res.rank)))
        return out_of_memory(why);
    return MPI_SUCCESS;
}

#define RDV_BUCKETS 1024

typedef struct rdv_entry {
    struct rdv_entry *next;
    unsigned parent_ctx;
    int tag;
    myr_rankmap *members;      /* the group's ranks (the shared object's map) */
    myr_comm_shared *shared;
    int joined;
    unsigned char *marks;      /* marks[i]: group rank i has taken it */
} rdv_entry;

typedef struct rdv_bucket {
    _Alignas(MYR_CACHE_LINE) myr_spinlock lock;
    rdv_entry *head;
} rdv_bucket;

static rdv_bucket rdv_table[RDV_BUCKETS];

static bool same_members(const myr_rankmap *m, MPI_Group g)
{
    if (m->size != g->size)
        return false;
    for (int i = 0; i < g->size; i++)
        if (m->world[i] != myr_group_world(g, i))
            return false;
    return true;
}

/* A new entry holding a new communicator of g's ranks; NULL when out of
 * memory. Called under the bucket's lock (the one allocation of the
 * creation; the other members only read it). */
static rdv_entry *rdv_entry_new(unsigned ctx, int tag, MPI_Group g)
{
    rdv_entry *e = malloc(sizeof *e);
    unsigned char *marks = calloc((size_t)g->size, 1);
    myr_rankmap *map = myr_rankmap_new(g->size);
    if (!e || !marks || !map) {
        free(e);
        free(marks);
        myr_rankmap_release(map);
        return NULL;
    }
    for (int i = 0; i < g->size; i++)
        map->world[i] = myr_group_world(g, i);
    myr_comm_shared *sh = shared_build(map, g->size);
    if (!sh) {
        free(e);
        free(marks);
        return NULL;
    }
    *e = (rdv_entry){.parent_ctx = ctx, .tag = tag, .members = sh->map, .shared = sh,
                     .marks = marks};
    return e;
}

int myr_coll_comm_create_group(MPI_Comm parent, myr_rank *self, MPI_Group group,
                               int tag, MPI_Comm *out, const char **why)
{
    *out = MPI_COMM_NULL;
    int me = myr_group_rank_of(group, self->world_rank);
    if (me == MPI_UNDEFINED)
        return MPI_SUCCESS;
    if (group->size == 1)
        return comm_alone(self, out, why);
    unsigned ctx = parent->context_id;
    unsigned h = ctx * 0x9e3779b1u ^ (unsigned)tag * 0x85ebca6bu ^
                 (unsigned)group->size * 0xc2b2ae35u ^ (unsigned)myr_group_world(group, 0);
    rdv_bucket *b = &rdv_table[(h ^ h >> 16) % RDV_BUCKETS];
    myr_spin_lock(&b->lock);
    rdv_entry **link = &b->head, *e;
    for (e = b->head; e; link = &e->next, e = e->next)
        if (e->parent_ctx == ctx && e->tag == tag && !e->marks[me] &&
            same_members(e->members, group))
            break;
    if (!e) {
        e = rdv_entry_new(ctx, tag, group);
        if (!e) {
            myr_spin_unlock(&b->lock);
            return out_of_memory(why);
        }
        *link = e;   /* at the tail: the entries of a key stay in call order */
    }
    e->marks[me] = 1;
    myr_comm_shared *sh = e->shared;
    if (++e->joined == group->size) {
        *link = e->next;
        free(e->marks);
        free(e);
    }
    myr_spin_unlock(&b->lock);
    if (!(*out = myr_comm_handle_new(sh, me)))
        return out_of_memory(why);
    return MPI_SUCCESS;
}
