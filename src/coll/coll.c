/*
 * coll.c — running a collective: each rank fills its slot from its
 * arguments, takes part in a round (round.c), and does its part after the
 * release; the completer checks that the slots agree before any data
 * moves. The algorithms themselves are in move.c (broadcast, gathers,
 * scatters, all-to-all) and reduce.c (reductions and scans).
 *
 * What is checked across ranks (O(N) work for the completer, never
 * O(N^2)): the same collective (blocking or not) everywhere, the same
 * root, op, count and type map for reductions; the data each receiver
 * takes against what is sent to it is checked by whoever moves it (the
 * completer, or each receiver in a parallel phase).
 */
#include "coll/coll_impl.h"

#include <string.h>

const char *const myr_coll_names[MYR_COLL_KINDS_ + 2][2] = {
    [MYR_COLL_BARRIER] = {"MPI_Barrier", "MPI_Ibarrier"},
    [MYR_COLL_BCAST] = {"MPI_Bcast", "MPI_Ibcast"},
    [MYR_COLL_GATHER] = {"MPI_Gather", "MPI_Igather"},
    [MYR_COLL_GATHERV] = {"MPI_Gatherv", "MPI_Igatherv"},
    [MYR_COLL_SCATTER] = {"MPI_Scatter", "MPI_Iscatter"},
    [MYR_COLL_SCATTERV] = {"MPI_Scatterv", "MPI_Iscatterv"},
    [MYR_COLL_ALLGATHER] = {"MPI_Allgather", "MPI_Iallgather"},
    [MYR_COLL_ALLGATHERV] = {"MPI_Allgatherv", "MPI_Iallgatherv"},
    [MYR_COLL_ALLTOALL] = {"MPI_Alltoall", "MPI_Ialltoall"},
    [MYR_COLL_ALLTOALLV] = {"MPI_Alltoallv", "MPI_Ialltoallv"},
    [MYR_COLL_ALLTOALLW] = {"MPI_Alltoallw", "MPI_Ialltoallw"},
    [MYR_COLL_REDUCE] = {"MPI_Reduce", "MPI_Ireduce"},
    [MYR_COLL_ALLREDUCE] = {"MPI_Allreduce", "MPI_Iallreduce"},
    [MYR_COLL_REDUCE_SCATTER] = {"MPI_Reduce_scatter", "MPI_Ireduce_scatter"},
    [MYR_COLL_REDUCE_SCATTER_BLOCK] = {"MPI_Reduce_scatter_block",
                                       "MPI_Ireduce_scatter_block"},
    [MYR_COLL_SCAN] = {"MPI_Scan", "MPI_Iscan"},
    [MYR_COLL_EXSCAN] = {"MPI_Exscan", "MPI_Iexscan"},
    [COLL_CREATE] = {"a communicator constructor", "a communicator constructor"},
    [COLL_CARRIED] = {"a collective failed elsewhere", "a collective failed elsewhere"},
};

static const char *slot_name(const coll_slot *c)
{
    return myr_coll_names[c->kind][c->nonblocking];
}

/* Each rank may have built its own handle of the same type. */
bool coll_same_type_map(MPI_Datatype a, MPI_Datatype b)
{
    if (a == b)
        return true;
    return a->size == b->size && a->extent == b->extent && a->true_lb == b->true_lb &&
           a->true_ub == b->true_ub && a->nblocks == b->nblocks && a->reps == b->reps &&
           a->rstride == b->rstride && a->nruns == b->nruns &&
           (a->nblocks == 0 ||
            memcmp(a->blocks, b->blocks, (size_t)a->nblocks * sizeof *a->blocks) == 0) &&
           (a->nruns == 0 || memcmp(a->runs, b->runs, (size_t)a->nruns * sizeof *a->runs) == 0);
}

/* The groups' own checks (round.c) agree, and their references agree with
 * each other: every slot matches. O(groups). */
static bool groups_agree(const coll_state *s)
{
    const coll_slot *ref = &s->slots[s->groups[0].checked_ref];
    for (int h = 0; h < s->ngroups; h++) {
        const coll_group *g = &s->groups[h];
        if (g->checked_mismatch || !coll_slots_match(ref, &s->slots[g->checked_ref]))
            return false;
    }
    return true;
}

/* Every rank must have called the same collective with matching
 * arguments; the first disagreement becomes the round's error. The
 * kind-specific checks of what is sent against what is received are the
 * algorithms' (coll_complete_X). O(N): run only once groups_agree has
 * seen a disagreement, to name the first rank that differs from rank 0. */
static bool slots_agree(coll_state *s)
{
    for (int r = 0; r < s->size; r++)
        if (s->slots[r].kind == COLL_CARRIED) {
            coll_fail(s, s->slots[r].a->carry, "%s", s->slots[r].a->carry_why);
            return false;
        }
    const coll_slot *ref = &s->slots[0];
    for (int r = 1; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (c->kind != ref->kind || c->nonblocking != ref->nonblocking) {
            coll_fail(s, MPI_ERR_OTHER, "collective mismatch: rank %d called %s "
                      "while rank 0 called %s", r, slot_name(c), slot_name(ref));
            return false;
        }
    }
    if (!coll_is_rooted(ref->kind) && !coll_is_reduction(ref->kind))
        return true;
    for (int r = 1; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (coll_is_rooted(ref->kind) && c->root != ref->root) {
            coll_fail(s, MPI_ERR_ROOT, "rank %d passed root %d while rank 0 passed root %d",
                      r, c->root, ref->root);
            return false;
        }
        if (!coll_is_reduction(ref->kind))
            continue;
        if (!myr_op_matches(c->op, ref->op)) {
            coll_fail(s, MPI_ERR_OP, "rank %d passed op %s while rank 0 passed %s",
                      r, myr_op_label(c->op), myr_op_label(ref->op));
            return false;
        }
        if (!coll_same_type_map(c->type, ref->type) || c->count != ref->count) {
            coll_fail(s, c->count != ref->count ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                      "rank %d passed %d x %s while rank 0 passed %d x %s", r, c->count,
                      myr_datatype_label(c->type), ref->count, myr_datatype_label(ref->type));
            return false;
        }
    }
    return true;
}

void coll_complete(coll_state *s, const coll_slot *mine)
{
    s->err = MPI_SUCCESS;
    s->parallel = false;
    s->direct = false;
    s->nb_round = mine->nonblocking;
    atomic_store_explicit(&s->phase_err, MPI_SUCCESS, memory_order_relaxed);
    s->agreed = groups_agree(s);
    if (!s->agreed && !slots_agree(s))
        return;
    switch (mine->kind) {
    case COLL_CREATE:
        coll_complete_create(s);
        break;
    case MYR_COLL_BARRIER:
        break;
    case MYR_COLL_BCAST:
        coll_complete_bcast(s, mine);
        break;
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        coll_complete_gather(s, mine);
        break;
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        coll_complete_scatter(s, mine);
        break;
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        coll_complete_allgather(s, mine);
        break;
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        coll_complete_alltoall(s, mine);
        break;
    case MYR_COLL_REDUCE:
    case MYR_COLL_ALLREDUCE:
        coll_complete_reduce(s, mine);
        break;
    case MYR_COLL_REDUCE_SCATTER:
    case MYR_COLL_REDUCE_SCATTER_BLOCK:
        coll_complete_reduce_scatter(s, mine);
        break;
    case MYR_COLL_SCAN:
    case MYR_COLL_EXSCAN:
        coll_complete_scan(s, mine);
        break;
    }
}

void coll_slot_fill(coll_state *s, int me, const myr_coll_args *a)
{
    coll_slot *m = &s->slots[me];
    int size = s->size;
    *m = (coll_slot){.kind = a->kind, .nonblocking = a->nonblocking, .root = a->root,
                     .a = a, .op = a->op, .count = a->count, .type = a->type};
    switch (a->kind) {
    case MYR_COLL_BARRIER:
        break;
    case MYR_COLL_BCAST:
        m->in = a->rbuf;
        break;
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        m->in_place = a->sbuf == MPI_IN_PLACE;
        m->in = a->sbuf;
        m->count = a->scount;
        m->type = a->stype;
        break;
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        m->in_place = a->rbuf == MPI_IN_PLACE;
        m->count = a->rcount;
        m->type = a->rtype;
        break;
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        m->in_place = a->sbuf == MPI_IN_PLACE;
        if (m->in_place) {
            int disp = a->kind == MYR_COLL_ALLGATHER ? me * a->rcount : a->rdispls[me];
            m->in = coll_at(a->rbuf, (MPI_Aint)disp * a->rtype->extent);
            m->count = a->kind == MYR_COLL_ALLGATHER ? a->rcount : a->rcounts[me];
            m->type = a->rtype;
        } else {
            m->in = a->sbuf;
            m->count = a->scount;
            m->type = a->stype;
        }
        break;
    case MYR_COLL_ALLTOALL:
        m->in_place = a->sbuf == MPI_IN_PLACE;
        m->in = m->in_place ? a->rbuf : a->sbuf;
        m->count = m->in_place ? a->rcount : a->scount;
        m->type = m->in_place ? a->rtype : a->stype;
        break;
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        m->in_place = a->sbuf == MPI_IN_PLACE;
        break;
    case MYR_COLL_REDUCE_SCATTER:
        /* The ranks' recvcounts are compared through their totals and
         * each rank's own entry (coll_complete_reduce_scatter). */
        for (int r = 0; r < size; r++)
            m->total += a->rcounts[r];
        m->count = 0;
        m->in_place = a->sbuf == MPI_IN_PLACE;
        m->in = m->in_place ? a->rbuf : a->sbuf;
        break;
    default:   /* the other reductions */
        m->in_place = a->sbuf == MPI_IN_PLACE;
        m->in = m->in_place ? a->rbuf : a->sbuf;
        break;
    }
    /* (When every rank of the round carries one, the slots agree and the
     * round moves nothing: each rank returns the error it carries.) */
    if (__builtin_expect(a->carry != MPI_SUCCESS, 0))
        m->kind = COLL_CARRIED;
    else if (coll_small_input(s, m))
        coll_copy_value(s->values[me].bytes, m->in, (size_t)m->count * m->type->size);
}

/* The common collectives of a communicator of one rank (a singleton job,
 * MPI_COMM_SELF, a split that left one rank), done at once: there is
 * nothing to agree on and nobody to wait for or wake, and a round's
 * atomics and scratch copies cost several times what Open MPI's whole
 * call does (issue 23). The caller checked the arguments. False: run the
 * round as usual. */
static bool run_alone(const myr_coll_args *a)
{
    switch (a->kind) {
    case MYR_COLL_BARRIER:
    case MYR_COLL_BCAST:
        return true;
    case MYR_COLL_REDUCE:
    case MYR_COLL_ALLREDUCE:
        if (a->sbuf == MPI_IN_PLACE || a->sbuf == a->rbuf || a->count <= 0)
            return true;
        if (a->type->contig)
            memcpy(a->rbuf, a->sbuf, (size_t)a->count * a->type->size);
        else
            myr_datatype_transfer(a->rbuf, a->type, a->sbuf, a->type,
                                  (size_t)a->count * a->type->size);
        return true;
    default:
        return false;
    }
}

int myr_coll_run(MPI_Comm comm, myr_rank *self, const myr_coll_args *a, const char **why)
{
    if (coll_spans_processes(comm))
        return coll_procs_run(comm, self, a, why);
    if (myr_comm_size(comm) == 1 && run_alone(a))
        return MPI_SUCCESS;
    int me;
    coll_state *s = coll_enter(comm, self, &me, why);
    if (!s)
        return MPI_ERR_NO_MEM;
    /* Filled in place: the slot is this rank's until its next collective,
     * and a copy would read back what was just written, narrow stores
     * with wide loads (a store-forwarding stall). */
    coll_slot *mine = &s->slots[me];
    coll_slot_fill(s, me, a);
    coll_round(s, self, me, mine);
    if (s->err != MPI_SUCCESS) {
        *why = s->why;
        return s->err;
    }
    return coll_finish(s, self, me, mine, why);
}

/* The finish of a small allreduce whose completer shared the work out:
 * coll_finish_reduce, which reads the arguments from the slot's `a`.
 * Unreachable while the completer decides from a slot that agrees with
 * this one; out of line, so that the block of arguments is not in the
 * frame of every small allreduce (that frame's stack line more per rank
 * and call, cachegrind at 16384 ranks: 20.3 L2 misses instead of 18.3). */
static __attribute__((noinline)) int allreduce_small_shared(coll_state *s, myr_rank *self,
                                                            int me, const coll_slot *mine,
                                                            void *rbuf, const char **why)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLREDUCE, .rbuf = rbuf, .count = mine->count,
                       .type = mine->type, .op = mine->op,
                       .sbuf = mine->in_place ? MPI_IN_PLACE : mine->in};
    coll_slot own = *mine;
    own.a = &a;
    return coll_finish_reduce(s, self, me, &own, why);
}

int myr_coll_allreduce_small(MPI_Comm comm, myr_rank *self, const void *sbuf, void *rbuf,
                             int count, MPI_Datatype type, MPI_Op op, const char **why)
{
    int me;
    coll_state *s = coll_enter(comm, self, &me, why);
    if (!s)
        return MPI_ERR_NO_MEM;
    /* The slot coll_slot_fill writes for these arguments, but for `a`,
     * which nothing reads of a small allreduce's slot (see coll_slot). */
    coll_slot *mine = &s->slots[me];
    bool in_place = sbuf == MPI_IN_PLACE;
    *mine = (coll_slot){.kind = MYR_COLL_ALLREDUCE, .op = op, .count = count, .type = type,
                        .in_place = in_place, .in = in_place ? rbuf : sbuf};
    size_t bytes = (size_t)count * type->size;
    coll_copy_value(s->values[me].bytes, mine->in, bytes);
    coll_round(s, self, me, mine);
    if (s->err != MPI_SUCCESS) {
        *why = s->why;
        return s->err;
    }
    if (__builtin_expect(s->parallel, 0))
        return allreduce_small_shared(s, self, me, mine, rbuf, why);
    coll_copy_value(rbuf, s->small_result, bytes);
    return MPI_SUCCESS;
}

int coll_finish(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                const char **why)
{
    switch (mine->kind) {
    case MYR_COLL_BARRIER:
        return MPI_SUCCESS;
    case MYR_COLL_BCAST:
        return coll_finish_bcast(s, self, me, mine, why);
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        return coll_finish_gather(s, self, me, mine, why);
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        return coll_finish_scatter(s, self, me, mine, why);
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        return coll_finish_allgather(s, self, me, mine, why);
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        return coll_finish_alltoall(s, self, me, mine, why);
    case MYR_COLL_REDUCE:
    case MYR_COLL_ALLREDUCE:
        return coll_finish_reduce(s, self, me, mine, why);
    case MYR_COLL_REDUCE_SCATTER:
    case MYR_COLL_REDUCE_SCATTER_BLOCK:
        return coll_finish_reduce_scatter(s, self, me, mine, why);
    case MYR_COLL_SCAN:
    case MYR_COLL_EXSCAN:
        return coll_finish_scan(s, self, me, mine, why);
    }
    return MPI_SUCCESS;
}
