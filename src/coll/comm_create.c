/*
 * comm_create.c — creating communicators: the members of a new
 * communicator agree on one shared object (its members, context id and
 * collective state) without a lock that every creation in the job takes.
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
 * (MPI requires the members to make them in the same order). A group
 * spanning OS processes first agrees on its context id across them
 * (coll/procs.c: its rank 0 takes one from its process's range, unique in
 * the job, and tells the others); each process's members then meet here
 * under that id and build their process's share of the communicator.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

static void shared_coll_free(void *coll)
{
    coll_state_free(coll);
}

myr_comm_shared *coll_shared_build(myr_rankmap *map, int refs)
{
    return map ? coll_shared_build_ctx(map, refs, myr_context_id_next()) : NULL;
}

myr_comm_shared *coll_shared_build_ctx(myr_rankmap *map, int refs, unsigned ctx)
{
    if (!map)
        return NULL;
    myr_comm_shared *sh = myr_comm_shared_new_ctx(map, 1, ctx);
    if (!sh)
        return NULL;
    coll_state *cs = coll_state_new(myr_the_job.ranks, map->world, map->size);
    if (!cs) {
        myr_comm_shared_release(sh);
        return NULL;
    }
    sh->coll = cs;
    sh->coll_free = shared_coll_free;
    atomic_store_explicit(&sh->refs, refs, memory_order_relaxed);
    return sh;
}

int coll_split_item_cmp(const void *a, const void *b)
{
    const split_item *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void coll_complete_create(coll_state *s)
{
    if (!s->results) {
        s->results = malloc((size_t)s->size * sizeof *s->results);
        if (!s->results) {
            coll_fail(s, MPI_ERR_NO_MEM, "out of memory for a communicator's creation");
            return;
        }
    }
    split_item *items = malloc((size_t)s->size * sizeof *items);
    if (!items) {
        coll_fail(s, MPI_ERR_NO_MEM, "out of memory for a communicator's creation");
        return;
    }
    int n = 0;
    for (int r = 0; r < s->size; r++) {
        s->results[r] = (split_result){NULL, MPI_UNDEFINED};
        if (s->slots[r].color != MPI_UNDEFINED)
            items[n++] = (split_item){s->slots[r].color, s->slots[r].key, r};
    }
    qsort(items, (size_t)n, sizeof *items, coll_split_item_cmp);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && items[j].color == items[i].color)
            j++;
        myr_rankmap *map = myr_rankmap_new(j - i);
        for (int k = i; map && k < j; k++)
            map->world[k - i] = s->map ? s->map[items[k].rank] : items[k].rank;
        myr_comm_shared *sh = coll_shared_build(map, j - i);
        if (!sh) {
            /* Undo the communicators built so far: nobody has seen them. */
            for (int k = 0; k < i; k++)
                myr_comm_shared_release(s->results[items[k].rank].shared);
            for (int r = 0; r < s->size; r++)
                s->results[r] = (split_result){NULL, MPI_UNDEFINED};
            coll_fail(s, MPI_ERR_NO_MEM, "out of memory for a new communicator of %d ranks",
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
    myr_comm_shared *sh = coll_shared_build(map, 1);
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
    if (__builtin_expect(myr_the_job.multiprocess, 0) &&
        (parent->kind == MYR_COMM_WORLD || parent->shared->spanning))
        return coll_procs_split(parent, self, color, key, out, why);
    coll_state *s = coll_state_of(parent, self);
    if (!s) {
        *why = "out of memory for the communicator's collective state";
        return MPI_ERR_NO_MEM;
    }
    int me = myr_comm_rank(parent, self);
    self->coll_comm = parent;   /* for the reports */
    coll_slot mine = {.kind = COLL_CREATE, .color = color, .key = key};
    coll_round(s, self, me, &mine);
    if (s->err != MPI_SUCCESS) {
        *why = s->why;
        return s->err;
    }
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
 * creation; the other members only read it). spanning_ctx: the context id
 * of a group spanning processes, `here` of whose members are ours; 0: a
 * group of this process. */
static rdv_entry *rdv_entry_new(unsigned ctx, int tag, MPI_Group g, unsigned spanning_ctx,
                                int here)
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
    myr_comm_shared *sh = spanning_ctx ? coll_procs_shared_new(map, here, spanning_ctx)
                                       : coll_shared_build(map, g->size);
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
    /* A group in several processes: its rank 0 takes the new context id
     * (unique in the job) and tells the others; the members of each
     * process then meet here under that id instead of the parent's. */
    int here = group->size;
    unsigned spanning_ctx = 0;
    if (__builtin_expect(myr_the_job.multiprocess, 0)) {
        here = 0;
        for (int i = 0; i < group->size; i++)
            here += myr_job_rank(myr_group_world(group, i)) != NULL;
        if (here < group->size) {
            int err = coll_procs_group_context(parent->context_id, self, group, me, tag,
                                               &spanning_ctx, why);
            if (err)
                return err;
            tag = 0;
        }
    }
    unsigned ctx = spanning_ctx ? spanning_ctx : parent->context_id;
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
        e = rdv_entry_new(ctx, tag, group, spanning_ctx, here);
        if (!e) {
            myr_spin_unlock(&b->lock);
            return out_of_memory(why);
        }
        *link = e;   /* at the tail: the entries of a key stay in call order */
    }
    e->marks[me] = 1;
    myr_comm_shared *sh = e->shared;
    if (++e->joined == here) {
        *link = e->next;
        free(e->marks);
        free(e);
    }
    myr_spin_unlock(&b->lock);
    if (!(*out = myr_comm_handle_new(sh, me)))
        return out_of_memory(why);
    return MPI_SUCCESS;
}
