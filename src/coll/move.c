/*
 * move.c — the collectives that move data without combining it:
 * broadcast, gather(v), scatter(v), allgather(v), alltoall(v, w).
 *
 * Every copy goes straight from the sender's buffer to the receiver's
 * (myr_datatype_transfer walks both layouts; their type signatures may
 * differ as long as the byte counts match), done by whoever the round
 * makes responsible:
 * - the completer, while every rank is still inside the call, when the
 *   whole work is small (coll_worth_parallel); only broadcast and
 *   allgather go through scratch (packed, one copy per sender), because
 *   each receiver then copies all of its result out in one walk;
 * - otherwise each receiver copies its own blocks (a gather's sender its
 *   block into the root's buffer), then a second round keeps every buffer
 *   alive until all copies are done. The v-forms always take this path:
 *   each receiver checks its own counts against what it is sent, so no
 *   rank ever compares N arrays of N counts.
 * Alltoall in place exchanges blocks pairwise through a temporary block:
 * the pair {r, q} is handled by r when q is at most (N-1)/2 ranks after
 * it (and by the lower of the two at distance N/2), so each rank swaps
 * about N/2 pairs and no block is touched twice.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ---- broadcast ------------------------------------------------------------ */

void coll_complete_bcast(coll_state *s, const coll_slot *mine)
{
    const coll_slot *root = &s->slots[mine->root];
    size_t bytes = coll_bytes(root->count, root->type);
    for (int r = 0; !s->agreed && r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        size_t mine_bytes = coll_bytes(c->count, c->type);
        if (mine_bytes != bytes) {
            coll_fail(s, mine_bytes < bytes ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                      "rank %d passed %d x %s (%zu bytes) but root %d sends %d x %s "
                      "(%zu bytes)", r, c->count, myr_datatype_label(c->type), mine_bytes,
                      mine->root, root->count, myr_datatype_label(root->type), bytes);
            return;
        }
    }
    if (coll_worth_parallel(s, 1, bytes)) {
        s->parallel = true;
        return;
    }
    /* A few ranks and little data: straight into each buffer, one copy
     * each instead of two (into scratch, and each rank out of it). More
     * ranks unpack in parallel, each its own. */
    if ((size_t)s->size * (bytes + 64) <= COLL_DIRECT_BYTES) {
        s->direct = true;
        for (int r = 0; r < s->size; r++)
            if (r != mine->root)
                myr_datatype_transfer((void *)s->slots[r].in, s->slots[r].type, root->in,
                                      root->type, bytes);
        return;
    }
    /* Packed: every rank unpacks with its own (signature-compatible) layout. */
    if (coll_scratch_reserve(s, bytes))
        myr_datatype_transfer(s->scratch, MPI_BYTE, root->in, root->type, bytes);
}

int coll_finish_bcast(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                      const char **why)
{
    size_t bytes = coll_bytes(mine->count, mine->type);
    if (!s->parallel) {
        if (me != mine->root && !s->direct)
            myr_datatype_transfer((void *)mine->in, mine->type, s->scratch, MPI_BYTE, bytes);
        return MPI_SUCCESS;
    }
    if (me != mine->root) {
        const coll_slot *root = &s->slots[mine->root];
        myr_datatype_transfer((void *)mine->in, mine->type, root->in, root->type, bytes);
    }
    return coll_round_end_phase(s, self, me, why);
}

/* ---- gather and scatter ----------------------------------------------------- */

/* Where the root's buffer `buf` of `type` holds rank r's block, for the
 * plain form (count per rank) or the v-form (counts[r] at displs[r]). */
static void *root_block(bool v, void *buf, int count, const int *displs,
                        MPI_Datatype type, int r)
{
    MPI_Aint disp = v ? displs[r] : (MPI_Aint)r * count;
    return coll_at(buf, disp * type->extent);
}

void coll_complete_gather(coll_state *s, const coll_slot *mine)
{
    int root = mine->root;
    const myr_coll_args *ra = s->slots[root].a;
    bool v = mine->kind == MYR_COLL_GATHERV;
    size_t total = 0;
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (r == root && c->in_place)
            continue;
        int rcount = v ? ra->rcounts[r] : ra->rcount;
        size_t sb = coll_bytes(c->count, c->type), rb = coll_bytes(rcount, ra->rtype);
        if (sb != rb) {
            coll_fail(s, sb > rb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                      "rank %d sends %zu bytes (%d x %s) but root %d receives %zu bytes "
                      "(%d x %s) from it", r, sb, c->count, myr_datatype_label(c->type),
                      root, rb, rcount, myr_datatype_label(ra->rtype));
            return;
        }
        total += sb;
    }
    if (coll_worth_parallel(s, (size_t)s->size, total)) {
        s->parallel = true;
        return;
    }
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (!(r == root && c->in_place))
            myr_datatype_transfer(root_block(v, ra->rbuf, ra->rcount, ra->rdispls, ra->rtype, r),
                                  ra->rtype, c->in, c->type, coll_bytes(c->count, c->type));
    }
}

int coll_finish_gather(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                       const char **why)
{
    if (!s->parallel)
        return MPI_SUCCESS;
    if (!(me == mine->root && mine->in_place)) {
        const myr_coll_args *ra = s->slots[mine->root].a;
        bool v = mine->kind == MYR_COLL_GATHERV;
        myr_datatype_transfer(root_block(v, ra->rbuf, ra->rcount, ra->rdispls, ra->rtype, me),
                              ra->rtype, mine->in, mine->type,
                              coll_bytes(mine->count, mine->type));
    }
    return coll_round_end_phase(s, self, me, why);
}

void coll_complete_scatter(coll_state *s, const coll_slot *mine)
{
    int root = mine->root;
    const myr_coll_args *ra = s->slots[root].a;
    bool v = mine->kind == MYR_COLL_SCATTERV;
    size_t total = 0;
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (r == root && c->in_place)
            continue;
        int scount = v ? ra->scounts[r] : ra->scount;
        size_t sb = coll_bytes(scount, ra->stype), rb = coll_bytes(c->count, c->type);
        if (sb != rb) {
            coll_fail(s, sb > rb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                      "root %d sends %zu bytes (%d x %s) to rank %d, which receives "
                      "%zu bytes (%d x %s)", root, sb, scount, myr_datatype_label(ra->stype),
                      r, rb, c->count, myr_datatype_label(c->type));
            return;
        }
        total += sb;
    }
    if (coll_worth_parallel(s, (size_t)s->size, total)) {
        s->parallel = true;
        return;
    }
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        if (!(r == root && c->in_place))
            myr_datatype_transfer(c->a->rbuf, c->type,
                                  root_block(v, (void *)ra->sbuf, ra->scount, ra->sdispls,
                                             ra->stype, r),
                                  ra->stype, coll_bytes(c->count, c->type));
    }
}

int coll_finish_scatter(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                        const char **why)
{
    if (!s->parallel)
        return MPI_SUCCESS;
    if (!(me == mine->root && mine->in_place)) {
        const myr_coll_args *ra = s->slots[mine->root].a;
        bool v = mine->kind == MYR_COLL_SCATTERV;
        myr_datatype_transfer(mine->a->rbuf, mine->type,
                              root_block(v, (void *)ra->sbuf, ra->scount, ra->sdispls,
                                         ra->stype, me),
                              ra->stype, coll_bytes(mine->count, mine->type));
    }
    return coll_round_end_phase(s, self, me, why);
}

/* ---- allgather ----------------------------------------------------------------- */

void coll_complete_allgather(coll_state *s, const coll_slot *mine)
{
    if (mine->kind == MYR_COLL_ALLGATHERV) {
        s->parallel = true;   /* each receiver checks its own counts */
        return;
    }
    const coll_slot *ref = &s->slots[0];
    size_t cb = coll_bytes(ref->count, ref->type);
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        size_t sb = coll_bytes(c->count, c->type);
        size_t rb = coll_bytes(c->a->rcount, c->a->rtype);
        if (sb != cb) {
            coll_fail(s, MPI_ERR_COUNT, "rank %d contributes %zu bytes (%d x %s) while "
                      "rank 0 contributes %zu bytes (%d x %s)", r, sb, c->count,
                      myr_datatype_label(c->type), cb, ref->count,
                      myr_datatype_label(ref->type));
            return;
        }
        if (rb != cb) {
            coll_fail(s, rb < cb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                      "rank %d receives %zu bytes (%d x %s) from each rank, which "
                      "contributes %zu bytes", r, rb, c->a->rcount,
                      myr_datatype_label(c->a->rtype), cb);
            return;
        }
    }
    size_t total = (size_t)s->size * cb;
    if (coll_worth_parallel(s, (size_t)s->size, total)) {
        s->parallel = true;
        return;
    }
    if (!coll_scratch_reserve(s, total))
        return;
    for (int r = 0; r < s->size; r++)
        myr_datatype_transfer((char *)s->scratch + (size_t)r * cb, MPI_BYTE, s->slots[r].in,
                              s->slots[r].type, cb);
}

int coll_finish_allgather(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                          const char **why)
{
    const myr_coll_args *a = mine->a;
    bool v = mine->kind == MYR_COLL_ALLGATHERV;
    if (!s->parallel) {
        /* The blocks are consecutive runs of rcount elements: one walk. An
         * in-place rank's own block is rewritten with its own bytes. */
        myr_datatype_transfer(a->rbuf, a->rtype, s->scratch, MPI_BYTE,
                              (size_t)s->size * coll_bytes(a->rcount, a->rtype));
        return MPI_SUCCESS;
    }
    /* Start after this rank, so that the ranks do not all read the same
     * sender at once. */
    for (int i = 1; i <= s->size; i++) {
        int q = (me + i) % s->size;
        if (q == me && mine->in_place)
            continue;
        const coll_slot *c = &s->slots[q];
        int rcount = v ? a->rcounts[q] : a->rcount;
        size_t sb = coll_bytes(c->count, c->type), rb = coll_bytes(rcount, a->rtype);
        if (sb != rb)
            coll_phase_fail(s, rb < sb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                            "rank %d receives %zu bytes (%d x %s) from rank %d, which "
                            "sends %zu bytes (%d x %s)", me, rb, rcount,
                            myr_datatype_label(a->rtype), q, sb, c->count,
                            myr_datatype_label(c->type));
        myr_datatype_transfer(root_block(v, a->rbuf, a->rcount, a->rdispls, a->rtype, q),
                              a->rtype, c->in, c->type, min_size(sb, rb));
    }
    return coll_round_end_phase(s, self, me, why);
}

/* ---- all-to-all ------------------------------------------------------------------ */

typedef struct block {
    void *buf;
    int count;
    MPI_Datatype type;
} block;

/* Where rank `a` receives its block from rank q. */
static block recv_block(const myr_coll_args *a, int q)
{
    if (a->kind == MYR_COLL_ALLTOALL)
        return (block){coll_at(a->rbuf, (MPI_Aint)q * a->rcount * a->rtype->extent),
                       a->rcount, a->rtype};
    if (a->kind == MYR_COLL_ALLTOALLV)
        return (block){coll_at(a->rbuf, (MPI_Aint)a->rdispls[q] * a->rtype->extent),
                       a->rcounts[q], a->rtype};
    return (block){coll_at(a->rbuf, a->rdispls[q]), a->rcounts[q], a->rtypes[q]};
}

/* What the rank of slot c sends to rank q (in place: its receive block
 * for q). Plain alltoall reads the slot only: one cache line per sender. */
static block send_block(const coll_slot *c, int q)
{
    if (c->kind == MYR_COLL_ALLTOALL)
        return (block){coll_at(c->in, (MPI_Aint)q * c->count * c->type->extent), c->count,
                       c->type};
    const myr_coll_args *a = c->a;
    if (a->sbuf == MPI_IN_PLACE)
        return recv_block(a, q);
    if (a->kind == MYR_COLL_ALLTOALLV)
        return (block){coll_at(a->sbuf, (MPI_Aint)a->sdispls[q] * a->stype->extent),
                       a->scounts[q], a->stype};
    return (block){coll_at(a->sbuf, a->sdispls[q]), a->scounts[q], a->stypes[q]};
}

/* The bytes rank r receives from rank q (a phase error when they differ
 * from what q sends: the smaller count is moved). */
static size_t phase_bytes(coll_state *s, int r, block rb, int q, block sb)
{
    size_t rn = coll_bytes(rb.count, rb.type), sn = coll_bytes(sb.count, sb.type);
    if (rn != sn)
        coll_phase_fail(s, rn < sn ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                        "rank %d receives %zu bytes (%d x %s) from rank %d, which sends "
                        "%zu bytes (%d x %s)", r, rn, rb.count, coll_type_label(rb.type),
                        q, sn, sb.count, coll_type_label(sb.type));
    return min_size(rn, sn);
}

/* In place: exchange r's block for q with q's block for r, through tmp
 * (room for the block's bytes). */
static void swap_blocks(coll_state *s, int r, int q, void *tmp)
{
    block x = recv_block(s->slots[r].a, q), y = recv_block(s->slots[q].a, r);
    size_t bytes = phase_bytes(s, r, x, q, y);
    if (bytes != coll_bytes(x.count, x.type) || bytes != coll_bytes(y.count, y.type))
        return;   /* reported; an uneven exchange in place has no meaning */
    myr_datatype_transfer(tmp, MPI_BYTE, x.buf, x.type, bytes);
    myr_datatype_transfer(x.buf, x.type, y.buf, y.type, bytes);
    myr_datatype_transfer(y.buf, y.type, tmp, MPI_BYTE, bytes);
}

/* Whether rank r handles the pair {r, q} of an exchange in place. */
static bool swaps_with(int r, int q, int size)
{
    int d = (q - r + size) % size;
    return d != 0 && (2 * d < size || (2 * d == size && r < q));
}

void coll_complete_alltoall(coll_state *s, const coll_slot *mine)
{
    const coll_slot *ref = &s->slots[0];
    for (int r = 1; r < s->size; r++)
        if (s->slots[r].in_place != ref->in_place) {
            coll_fail(s, MPI_ERR_BUFFER, "rank %d passed %s as sendbuf while rank 0 %s "
                      "(MPI_IN_PLACE is for all ranks or none)", r,
                      s->slots[r].in_place ? "MPI_IN_PLACE" : "a buffer",
                      ref->in_place ? "passed MPI_IN_PLACE" : "did not");
            return;
        }
    if (mine->kind != MYR_COLL_ALLTOALL) {
        s->parallel = true;   /* each receiver checks its own counts */
        return;
    }
    size_t b = coll_bytes(ref->count, ref->type);
    for (int r = 0; r < s->size; r++) {
        const coll_slot *c = &s->slots[r];
        size_t sb = coll_bytes(c->count, c->type);
        size_t rb = coll_bytes(c->a->rcount, c->a->rtype);
        if (sb != b) {
            coll_fail(s, MPI_ERR_COUNT, "rank %d sends %zu bytes (%d x %s) to each rank "
                      "while rank 0 sends %zu bytes (%d x %s)", r, sb, c->count,
                      myr_datatype_label(c->type), b, ref->count,
                      myr_datatype_label(ref->type));
            return;
        }
        if (rb != b) {
            coll_fail(s, rb < b ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                      "rank %d receives %zu bytes (%d x %s) from each rank, which "
                      "sends %zu bytes", r, rb, c->a->rcount,
                      myr_datatype_label(c->a->rtype), b);
            return;
        }
    }
    size_t n = (size_t)s->size;
    if (coll_worth_parallel(s, n * n, n * n * b)) {
        s->parallel = true;
        /* In place, each rank swaps through its own block of scratch. */
        if (ref->in_place)
            coll_scratch_reserve(s, n * b);
        return;
    }
    if (ref->in_place && !coll_scratch_reserve(s, b))
        return;
    for (int r = 0; r < s->size; r++)
        for (int q = 0; q < s->size; q++) {
            if (ref->in_place) {
                if (swaps_with(r, q, s->size))
                    swap_blocks(s, r, q, s->scratch);
                continue;
            }
            block rb = recv_block(s->slots[r].a, q), sb = send_block(&s->slots[q], r);
            myr_datatype_transfer(rb.buf, rb.type, sb.buf, sb.type, b);
        }
}

int coll_finish_alltoall(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                         const char **why)
{
    if (!s->parallel)
        return MPI_SUCCESS;
    const myr_coll_args *a = mine->a;
    if (!mine->in_place) {
        for (int i = 1; i <= s->size; i++) {
            int q = (me + i) % s->size;
            block rb = recv_block(a, q), sb = send_block(&s->slots[q], me);
            myr_datatype_transfer(rb.buf, rb.type, sb.buf, sb.type,
                                  phase_bytes(s, me, rb, q, sb));
        }
        return coll_round_end_phase(s, self, me, why);
    }
    void *tmp = NULL, *own = NULL;
    if (mine->kind == MYR_COLL_ALLTOALL) {
        tmp = (char *)s->scratch + (size_t)me * coll_bytes(a->rcount, a->rtype);
    } else {
        /* Blocks differ in size: room for this rank's largest. */
        size_t most = 1;
        for (int q = 0; q < s->size; q++)
            if (swaps_with(me, q, s->size)) {
                block x = recv_block(a, q);
                size_t bytes = coll_bytes(x.count, x.type);
                most = bytes > most ? bytes : most;
            }
        tmp = own = malloc(most);
        if (!tmp)
            coll_phase_fail(s, MPI_ERR_NO_MEM, "out of memory for a %zu-byte block "
                            "exchanged in place", most);
    }
    for (int q = 0; tmp && q < s->size; q++)
        if (swaps_with(me, q, s->size))
            swap_blocks(s, me, q, tmp);
    free(own);
    return coll_round_end_phase(s, self, me, why);
}
