/*
 * reduce.c — the collectives that combine data: reduce, allreduce,
 * reduce_scatter(_block), scan, exscan.
 *
 * Order. myr_op_reduce(op, in, inout) computes inout = in op inout (MPI's
 * convention: `in` is the left operand). A reduction folds from the
 * highest rank down, acc = x[N-1], then acc = x[r] op acc for r = N-2..0,
 * which evaluates x0 op (x1 op (... op x[N-1])): the rank-order result
 * for any associative op, commutative or not, whatever the number of
 * workers or the order of arrival, so results are reproducible run to
 * run. A scan computes each prefix from the previous one,
 * p[i] = p[i-1] op x[i], in rank order too.
 *
 * Who folds. Small reductions are folded by the completer alone, while
 * every rank is inside the call (coll_worth_parallel). Large ones are
 * split into element ranges, each rank folding one range over all ranks
 * (reduce_scatter: its own block), then a second round waits for every
 * range before any rank returns. Every element is computed by one rank,
 * in the same order either way.
 *
 * Where. The accumulator is the root's recvbuf for reduce (unless it holds
 * the root's own input, in place: then scratch), each rank's recvbuf for
 * scan, and scratch for the others, which each rank copies its result out
 * of. Scratch for a derived type has the type's layout (user functions
 * get the user's type): count elements at their extent, the lowest data
 * byte placed so that the elements are as aligned as in a user buffer.
 */
#include "coll/coll_impl.h"

#include <stddef.h>
#include <string.h>

enum { AREA_ALIGN = _Alignof(max_align_t) };

/* Bytes from the lowest to the highest data byte of count elements of t,
 * and where the lowest is relative to the first element. */
static size_t typed_span(MPI_Datatype t, size_t count, MPI_Aint *lowest)
{
    *lowest = 0;
    if (count == 0 || t->size == 0)
        return 0;
    MPI_Aint last = (MPI_Aint)(count - 1) * t->extent;
    MPI_Aint lo = (last < 0 ? last : 0) + t->true_lb;
    MPI_Aint hi = (last > 0 ? last : 0) + t->true_ub;
    *lowest = lo;
    return (size_t)(hi - lo);
}

static size_t area_bytes(MPI_Datatype t, size_t count)
{
    MPI_Aint lowest;
    size_t span = typed_span(t, count, &lowest);
    return (span + 2 * AREA_ALIGN - 1) / AREA_ALIGN * AREA_ALIGN;
}

/* Reserve `areas` areas of scratch for count elements of t (completer). */
static bool reserve_areas(coll_state *s, int areas, MPI_Datatype t, size_t count)
{
    return coll_scratch_reserve(s, (size_t)areas * area_bytes(t, count));
}

/* Area k of scratch as a buffer of count elements of t: the address of
 * element 0. */
static void *area(const coll_state *s, int k, MPI_Datatype t, size_t count)
{
    MPI_Aint lowest;
    typed_span(t, count, &lowest);
    uintptr_t start = (uintptr_t)s->scratch + (size_t)k * area_bytes(t, count);
    /* (uintptr_t)lowest % AREA_ALIGN is lowest's residue even when it is
     * negative: 2^64 is a multiple of AREA_ALIGN. */
    return (void *)(start + (uintptr_t)lowest % AREA_ALIGN - (uintptr_t)lowest);
}

/* Elements [lo, hi) of every rank's input, folded in rank order into the
 * same elements of acc (a buffer of t; it may be rank N-1's input itself,
 * never another rank's). */
static void fold(const coll_state *s, MPI_Op op, MPI_Datatype t, size_t lo, size_t hi,
                 void *acc)
{
    if (hi <= lo)
        return;
    size_t n = hi - lo;
    MPI_Aint off = (MPI_Aint)lo * t->extent;
    void *dst = coll_at(acc, off);
    const void *last = coll_at(s->slots[s->size - 1].in, off);
    if (last != dst)
        myr_datatype_transfer(dst, t, last, t, n * t->size);
    for (int r = s->size - 2; r >= 0; r--)
        myr_op_reduce(op, t, n, coll_at(s->slots[r].in, off), dst);
}

/* This rank's range of a count-element reduction split among all ranks. */
static void my_range(const coll_state *s, int me, size_t count, size_t *lo, size_t *hi)
{
    *lo = count * (size_t)me / (size_t)s->size;
    *hi = count * ((size_t)me + 1) / (size_t)s->size;
}

static void copy_elements(void *dst, const void *src, MPI_Datatype t, size_t lo, size_t hi)
{
    if (hi > lo) {
        MPI_Aint off = (MPI_Aint)lo * t->extent;
        myr_datatype_transfer(coll_at(dst, off), t, coll_at(src, off), t, (hi - lo) * t->size);
    }
}

/* ---- reduce and allreduce ------------------------------------------------------ */

/* Where the result goes and whether it must be folded in scratch first:
 * the root's recvbuf, unless it is the input of a rank folded after the
 * first (the root in place, not the last rank). Allreduce: scratch (each
 * rank copies it out), but a lone rank folds straight into its recvbuf. */
static void *reduce_target(const coll_state *s, const coll_slot *mine, bool *via_scratch)
{
    if (mine->kind == MYR_COLL_ALLREDUCE) {
        *via_scratch = s->size > 1;
        return s->size > 1 ? NULL : s->slots[0].a->rbuf;
    }
    const coll_slot *root = &s->slots[mine->root];
    *via_scratch = root->in_place && mine->root != s->size - 1;
    return root->a->rbuf;
}

void coll_complete_reduce(coll_state *s, const coll_slot *mine)
{
    MPI_Datatype t = mine->type;
    size_t count = (size_t)mine->count;
    bool via_scratch;
    void *target = reduce_target(s, mine, &via_scratch);
    if (via_scratch && !reserve_areas(s, 1, t, count))
        return;
    if (coll_small_input(s, mine)) {
        void *acc = via_scratch ? area(s, 0, t, count) : target;
        myr_op_fold(mine->op, t, count, s->values, sizeof *s->values, s->size, acc);
        if (via_scratch && target)
            memcpy(target, acc, count * t->size);
        s->small_result = acc;
        return;
    }
    if (coll_worth_parallel(s, (size_t)s->size, (size_t)s->size * count * t->size)) {
        s->parallel = true;
        return;
    }
    fold(s, mine->op, t, 0, count, via_scratch ? area(s, 0, t, count) : target);
    if (via_scratch && target)
        copy_elements(target, area(s, 0, t, count), t, 0, count);
}

int coll_finish_reduce(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                       const char **why)
{
    MPI_Datatype t = mine->type;
    size_t count = (size_t)mine->count;
    bool all = mine->kind == MYR_COLL_ALLREDUCE;
    if (!s->parallel) {
        /* The others' slots may already serve their next collective:
         * only the result in scratch is read here. */
        if (all && s->size > 1) {
            if (coll_small_input(s, mine))
                coll_copy_value(mine->a->rbuf, s->small_result, count * t->size);
            else
                copy_elements(mine->a->rbuf, area(s, 0, t, count), t, 0, count);
        }
        return MPI_SUCCESS;
    }
    bool via_scratch;
    void *target = reduce_target(s, mine, &via_scratch);
    size_t lo, hi;
    my_range(s, me, count, &lo, &hi);
    fold(s, mine->op, t, lo, hi, via_scratch ? area(s, 0, t, count) : target);
    if (via_scratch && target)   /* this range of the root's recvbuf is only mine */
        copy_elements(target, area(s, 0, t, count), t, lo, hi);
    int err = coll_round_end_phase(s, self, me, why);
    if (err == MPI_SUCCESS && all)
        copy_elements(mine->a->rbuf, area(s, 0, t, count), t, 0, count);
    return err;
}

/* ---- reduce_scatter ------------------------------------------------------------- */

/* Rank me's block of the result: elements [lo, hi). */
static void my_block(const coll_slot *mine, int me, size_t *lo, size_t *hi)
{
    const myr_coll_args *a = mine->a;
    if (mine->kind == MYR_COLL_REDUCE_SCATTER_BLOCK) {
        *lo = (size_t)me * (size_t)a->count;
        *hi = *lo + (size_t)a->count;
        return;
    }
    size_t start = 0;
    for (int r = 0; r < me; r++)
        start += (size_t)a->rcounts[r];
    *lo = start;
    *hi = start + (size_t)a->rcounts[me];
}

static size_t scatter_total(const coll_state *s, const coll_slot *mine)
{
    return mine->kind == MYR_COLL_REDUCE_SCATTER_BLOCK
               ? (size_t)s->size * (size_t)mine->count
               : (size_t)mine->total;
}

void coll_complete_reduce_scatter(coll_state *s, const coll_slot *mine)
{
    const coll_slot *ref = &s->slots[0];
    if (mine->kind == MYR_COLL_REDUCE_SCATTER)
        for (int r = 0; r < s->size; r++) {
            const coll_slot *c = &s->slots[r];
            if (c->total != ref->total) {
                coll_fail(s, MPI_ERR_COUNT, "rank %d's recvcounts add up to %lld elements "
                          "while rank 0's add up to %lld", r, c->total, ref->total);
                return;
            }
            if (c->a->rcounts[r] != ref->a->rcounts[r]) {
                coll_fail(s, MPI_ERR_COUNT, "rank %d passed recvcounts[%d] = %d while "
                          "rank 0 passed recvcounts[%d] = %d", r, r, c->a->rcounts[r], r,
                          ref->a->rcounts[r]);
                return;
            }
        }
    MPI_Datatype t = mine->type;
    size_t total = scatter_total(s, mine);
    bool parallel = coll_worth_parallel(s, (size_t)s->size, (size_t)s->size * total * t->size);
    /* In parallel, a rank not in place folds straight into its recvbuf. */
    bool any_in_place = false;
    for (int r = 0; r < s->size && !any_in_place; r++)
        any_in_place = s->slots[r].in_place;
    if ((!parallel || any_in_place) && !reserve_areas(s, 1, t, total))
        return;
    if (parallel)
        s->parallel = true;
    else
        fold(s, mine->op, t, 0, total, area(s, 0, t, total));
}

int coll_finish_reduce_scatter(coll_state *s, myr_rank *self, int me,
                               const coll_slot *mine, const char **why)
{
    MPI_Datatype t = mine->type;
    size_t total = scatter_total(s, mine), lo, hi;
    my_block(mine, me, &lo, &hi);
    void *rbuf = mine->a->rbuf;
    /* rbuf as the buffer whose element lo is rbuf's first. */
    void *shifted = coll_at(rbuf, -(MPI_Aint)lo * t->extent);
    if (s->parallel) {
        if (!mine->in_place) {
            fold(s, mine->op, t, lo, hi, shifted);
            return coll_round_end_phase(s, self, me, why);
        }
        /* In place, rbuf is this rank's input, which the others read
         * until the second round. */
        fold(s, mine->op, t, lo, hi, area(s, 0, t, total));
        int err = coll_round_end_phase(s, self, me, why);
        if (err != MPI_SUCCESS)
            return err;
    }
    copy_elements(shifted, area(s, 0, t, total), t, lo, hi);
    return MPI_SUCCESS;
}

/* ---- scan and exscan -------------------------------------------------------------- */

/* Elements [lo, hi) of every rank's prefix, into every rank's recvbuf.
 * Exscan keeps the running prefix in two areas of scratch, because in place
 * a rank's input is overwritten by its result before it is folded in. */
static void scan_range(const coll_state *s, const coll_slot *mine, size_t lo, size_t hi)
{
    if (hi <= lo)
        return;
    MPI_Datatype t = mine->type;
    size_t n = hi - lo, bytes = n * t->size;
    MPI_Aint off = (MPI_Aint)lo * t->extent;
    if (mine->kind == MYR_COLL_SCAN) {
        for (int i = 0; i < s->size; i++) {
            void *d = coll_at(s->slots[i].a->rbuf, off);
            const void *x = coll_at(s->slots[i].in, off);
            if (x != d)
                myr_datatype_transfer(d, t, x, t, bytes);
            if (i > 0)
                myr_op_reduce(mine->op, t, n, coll_at(s->slots[i - 1].a->rbuf, off), d);
        }
        return;
    }
    size_t count = (size_t)mine->count;
    void *acc = coll_at(area(s, 0, t, count), off), *next = coll_at(area(s, 1, t, count), off);
    myr_datatype_transfer(acc, t, coll_at(s->slots[0].in, off), t, bytes);
    for (int i = 1; i < s->size; i++) {
        bool more = i < s->size - 1;
        if (more)
            myr_datatype_transfer(next, t, coll_at(s->slots[i].in, off), t, bytes);
        myr_datatype_transfer(coll_at(s->slots[i].a->rbuf, off), t, acc, t, bytes);
        if (more) {
            myr_op_reduce(mine->op, t, n, acc, next);   /* next = prefix op x[i] */
            void *swap = acc;
            acc = next;
            next = swap;
        }
    }
}

/* A small scan's prefixes, from the inputs the ranks left in s->values:
 * rank i's result (scan: x0 op ... op x[i]; exscan: up to x[i-1], none for
 * rank 0) in entry i of scratch, for each rank to copy out of. Not in
 * s->values itself: once released, rank i-1 may start its next collective
 * and overwrite its entry before rank i has read its exscan result. */
static void scan_small(coll_state *s, const coll_slot *mine)
{
    MPI_Datatype t = mine->type;
    size_t count = (size_t)mine->count, bytes = count * t->size;
    if (!coll_scratch_reserve(s, (size_t)s->size * sizeof *s->values))
        return;
    coll_value *out = s->scratch;
    int shift = mine->kind == MYR_COLL_EXSCAN;
    if (shift >= s->size)
        return;
    coll_copy_value(out[shift].bytes, s->values[0].bytes, bytes);
    for (int i = shift + 1; i < s->size; i++) {
        coll_copy_value(out[i].bytes, s->values[i - shift].bytes, bytes);
        myr_op_reduce(mine->op, t, count, out[i - 1].bytes, out[i].bytes);
    }
}

void coll_complete_scan(coll_state *s, const coll_slot *mine)
{
    size_t count = (size_t)mine->count, n = (size_t)s->size;
    if (coll_small_input(s, mine)) {
        scan_small(s, mine);
        return;
    }
    if (mine->kind == MYR_COLL_EXSCAN && !reserve_areas(s, 2, mine->type, count))
        return;
    if (coll_worth_parallel(s, 2 * n, 2 * n * count * mine->type->size))
        s->parallel = true;
    else
        scan_range(s, mine, 0, count);
}

int coll_finish_scan(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                     const char **why)
{
    if (!s->parallel) {
        if (coll_small_input(s, mine) && (mine->kind == MYR_COLL_SCAN || me > 0))
            coll_copy_value(mine->a->rbuf, ((const coll_value *)s->scratch)[me].bytes,
                            (size_t)mine->count * mine->type->size);
        return MPI_SUCCESS;
    }
    size_t lo, hi;
    my_range(s, me, (size_t)mine->count, &lo, &hi);
    scan_range(s, mine, lo, hi);
    return coll_round_end_phase(s, self, me, why);
}
