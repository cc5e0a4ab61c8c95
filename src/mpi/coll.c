/*
 * coll.c (mpi) — the entry points of the collectives: check the arguments
 * each rank can check alone, then run the collective in coll/. What only
 * the ranks together can see (mismatched collectives, roots, counts, ops,
 * a receive smaller than what is sent) comes back from coll/ as an error
 * class and a message.
 *
 * Each entry point describes its call as a myr_coll_args and hands it to
 * coll_call, which checks it (one checker per family, whatever the form)
 * and runs it. Arguments MPI calls significant only at the root are
 * neither checked nor used elsewhere.
 */
#include "coll/coll.h"
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_buffer(const char *call, MPI_Comm comm, const void *buf,
                        const char *what, int count)
{
    if (!buf && count > 0)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "%s is NULL with count %d > 0", what, count);
    return MPI_SUCCESS;
}

static int check_root(const char *call, MPI_Comm comm, int root)
{
    int size = myr_comm_size(comm);
    if (root < 0 || root >= size)
        return myr_mpi_error(comm, MPI_ERR_ROOT, call,
                             "invalid root %d (communicator size %d)", root, size);
    return MPI_SUCCESS;
}

static int raise_coll(const char *call, MPI_Comm comm, int err, const char *why)
{
    return err == MPI_SUCCESS
               ? MPI_SUCCESS
               : myr_mpi_error(comm, err, call, "%s", why ? why : "the collective failed");
}

/* ---- argument checks ------------------------------------------------------- */

/* A datatype argument named `what` ("sendtype", "recvtypes[3]"). */
static int check_type_arg(const char *call, MPI_Comm comm, const char *what,
                          MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return myr_mpi_error(comm, MPI_ERR_TYPE, call, "invalid %s MPI_DATATYPE_NULL", what);
    if (!myr_datatype_valid(type))
        return myr_mpi_error(comm, MPI_ERR_TYPE, call, "invalid %s handle %p (%s)", what,
                             (void *)type, myr_handle_problem(type));
    if (!type->committed)
        return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                             "%s %s is not committed (MPI_Type_commit)", what,
                             myr_datatype_label(type));
    return MPI_SUCCESS;
}

/* A data buffer of count elements of type (checked before): MPI_IN_PLACE
 * where it is not allowed, or NULL with data, which only MPI_BOTTOM with a
 * derived type (absolute addresses) can mean. */
static int check_data(const char *call, MPI_Comm comm, const void *buf, const char *what,
                      int count, MPI_Datatype type)
{
    if (buf == MPI_IN_PLACE)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "%s is MPI_IN_PLACE, which %s does not take there", what, call);
    if (type->predefined && type->size > 0)
        return check_buffer(call, comm, buf, what, count);
    return MPI_SUCCESS;
}

/* count, type and buffer of one side of a call. */
static int check_side(const char *call, MPI_Comm comm, const void *buf, const char *bufname,
                      int count, const char *countname, MPI_Datatype type,
                      const char *typename)
{
    int err;
    if ((err = myr_check_count(call, comm, countname, count)) ||
        (err = check_type_arg(call, comm, typename, type)) ||
        (err = check_data(call, comm, buf, bufname, count, type)))
        return err;
    return MPI_SUCCESS;
}

/* An array of n counts (and, when displsname is given, its displacements). */
static int check_counts(const char *call, MPI_Comm comm, const int *counts,
                        const char *countsname, const int *displs, const char *displsname,
                        int n)
{
    if (!counts)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", countsname);
    if (displsname && !displs)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", displsname);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return myr_mpi_error(comm, MPI_ERR_COUNT, call,
                                 "invalid %s[%d] = %d (must be >= 0)", countsname, i,
                                 counts[i]);
    return MPI_SUCCESS;
}

/* A buffer holding counts[i] elements of type for each i < n. */
static int check_data_v(const char *call, MPI_Comm comm, const void *buf, const char *bufname,
                        const int *counts, const char *countsname, MPI_Datatype type, int n)
{
    if (buf == MPI_IN_PLACE)
        return check_data(call, comm, buf, bufname, 0, type);
    if (buf || !type->predefined || type->size == 0)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0)
            return myr_mpi_error(comm, MPI_ERR_BUFFER, call, "%s is NULL with %s[%d] = %d > 0",
                                 bufname, countsname, i, counts[i]);
    return MPI_SUCCESS;
}

/* sendbuf and recvbuf the same (with data on both sides): MPI forbids the
 * aliasing; where MPI_IN_PLACE exists, it is what the caller meant. */
static int check_alias(const char *call, MPI_Comm comm, const void *sbuf, const void *rbuf,
                       bool has_data, bool in_place_allowed)
{
    if (sbuf != rbuf || !sbuf || !has_data)
        return MPI_SUCCESS;
    return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                         "sendbuf and recvbuf are the same buffer%s",
                         in_place_allowed ? " (pass MPI_IN_PLACE as sendbuf instead)" : "");
}

/* Whether `buf` is exactly the block `block` (elements of t from `base`,
 * at `displ` elements of t) of the other buffer: a rank's own data that
 * the call would copy onto itself, which MPI's aliasing rule forbids and
 * MPI_IN_PLACE expresses (a gather's or allgather's sendbuf at its own
 * block of recvbuf, a scatter's recvbuf at the root's block of sendbuf).
 * Only the exact address is caught, as MPICH does: a partial overlap
 * cannot be told apart from a valid layout with derived types. */
static bool is_own_block(const void *buf, const void *base, MPI_Aint displ, MPI_Datatype t)
{
    return buf && buf != MPI_IN_PLACE &&
           (uintptr_t)buf == (uintptr_t)base + (uintptr_t)(displ * t->extent);
}

static int own_block_error(const char *call, MPI_Comm comm, const char *buf,
                           const char *other, int block, const char *in_place)
{
    return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                         "%s is the block of rank %d in %s (the same memory; pass "
                         "MPI_IN_PLACE as %s instead)", buf, block, other, in_place);
}

/* MPI_IN_PLACE passed by a rank that is not the root, where only the
 * root may pass it. */
static int check_in_place_at_root(const char *call, MPI_Comm comm, const void *buf,
                                  const char *what, int me, int root)
{
    if (buf == MPI_IN_PLACE && me != root)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "%s is MPI_IN_PLACE at rank %d, which is not the root (%d): "
                             "only the root may pass it", what, me, root);
    return MPI_SUCCESS;
}

static int check_bcast(const char *call, MPI_Comm comm, const myr_coll_args *a)
{
    int err;
    if ((err = myr_check_count(call, comm, "count", a->count)) ||
        (err = check_type_arg(call, comm, "datatype", a->type)) ||
        (err = check_data(call, comm, a->rbuf, "buffer", a->count, a->type)) ||
        (err = check_root(call, comm, a->root)))
        return err;
    return MPI_SUCCESS;
}

static int check_gather(const char *call, MPI_Comm comm, int me, const myr_coll_args *a)
{
    int err, size = myr_comm_size(comm);
    bool v = a->kind == MYR_COLL_GATHERV, in_place = a->sbuf == MPI_IN_PLACE;
    if ((err = check_root(call, comm, a->root)) ||
        (err = check_in_place_at_root(call, comm, a->sbuf, "sendbuf", me, a->root)))
        return err;
    if (!in_place &&
        (err = check_side(call, comm, a->sbuf, "sendbuf", a->scount, "sendcount", a->stype,
                          "sendtype")))
        return err;
    if (me != a->root)
        return MPI_SUCCESS;
    if (!v && (err = check_side(call, comm, a->rbuf, "recvbuf", a->rcount, "recvcount",
                                a->rtype, "recvtype")))
        return err;
    if (v && ((err = check_counts(call, comm, a->rcounts, "recvcounts", a->rdispls, "displs",
                                  size)) ||
              (err = check_type_arg(call, comm, "recvtype", a->rtype)) ||
              (err = check_data_v(call, comm, a->rbuf, "recvbuf", a->rcounts, "recvcounts",
                                  a->rtype, size))))
        return err;
    bool data = !in_place && a->scount > 0 && a->stype->size > 0;
    if ((err = check_alias(call, comm, a->sbuf, a->rbuf, data, true)))
        return err;
    if (data && is_own_block(a->sbuf, a->rbuf,
                             v ? (MPI_Aint)a->rdispls[me] : (MPI_Aint)me * a->rcount, a->rtype))
        return own_block_error(call, comm, "sendbuf", "recvbuf", me, "sendbuf");
    return MPI_SUCCESS;
}

static int check_scatter(const char *call, MPI_Comm comm, int me, const myr_coll_args *a)
{
    int err, size = myr_comm_size(comm);
    bool v = a->kind == MYR_COLL_SCATTERV, in_place = a->rbuf == MPI_IN_PLACE;
    if ((err = check_root(call, comm, a->root)) ||
        (err = check_in_place_at_root(call, comm, a->rbuf, "recvbuf", me, a->root)))
        return err;
    if (!in_place &&
        (err = check_side(call, comm, a->rbuf, "recvbuf", a->rcount, "recvcount", a->rtype,
                          "recvtype")))
        return err;
    if (me != a->root)
        return MPI_SUCCESS;
    if (!v && (err = check_side(call, comm, a->sbuf, "sendbuf", a->scount, "sendcount",
                                a->stype, "sendtype")))
        return err;
    if (v && ((err = check_counts(call, comm, a->scounts, "sendcounts", a->sdispls, "displs",
                                  size)) ||
              (err = check_type_arg(call, comm, "sendtype", a->stype)) ||
              (err = check_data_v(call, comm, a->sbuf, "sendbuf", a->scounts, "sendcounts",
                                  a->stype, size))))
        return err;
    bool data = !in_place && a->rcount > 0 && a->rtype->size > 0;
    if (a->sbuf == a->rbuf && data)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "sendbuf and recvbuf are the same buffer "
                             "(pass MPI_IN_PLACE as recvbuf instead)");
    if (data && is_own_block(a->rbuf, a->sbuf,
                             v ? (MPI_Aint)a->sdispls[me] : (MPI_Aint)me * a->scount, a->stype))
        return own_block_error(call, comm, "recvbuf", "sendbuf", me, "recvbuf");
    return MPI_SUCCESS;
}

static int check_allgather(const char *call, MPI_Comm comm, int me, const myr_coll_args *a)
{
    int err, size = myr_comm_size(comm);
    bool in_place = a->sbuf == MPI_IN_PLACE;
    if (!in_place &&
        (err = check_side(call, comm, a->sbuf, "sendbuf", a->scount, "sendcount", a->stype,
                          "sendtype")))
        return err;
    if (a->kind == MYR_COLL_ALLGATHER) {
        if ((err = check_side(call, comm, a->rbuf, "recvbuf", a->rcount, "recvcount",
                              a->rtype, "recvtype")))
            return err;
    } else if ((err = check_counts(call, comm, a->rcounts, "recvcounts", a->rdispls, "displs",
                                   size)) ||
               (err = check_type_arg(call, comm, "recvtype", a->rtype)) ||
               (err = check_data_v(call, comm, a->rbuf, "recvbuf", a->rcounts, "recvcounts",
                                   a->rtype, size))) {
        return err;
    }
    bool data = !in_place && a->scount > 0 && a->stype->size > 0;
    if ((err = check_alias(call, comm, a->sbuf, a->rbuf, data, true)))
        return err;
    if (data && is_own_block(a->sbuf, a->rbuf,
                             a->kind == MYR_COLL_ALLGATHER ? (MPI_Aint)me * a->rcount
                                                           : (MPI_Aint)a->rdispls[me],
                             a->rtype))
        return own_block_error(call, comm, "sendbuf", "recvbuf", me, "sendbuf");
    return MPI_SUCCESS;
}

/* Alltoallw's arrays of types: each one with data must be a usable type. */
static int check_types(const char *call, MPI_Comm comm, const MPI_Datatype *types,
                       const char *name, const int *counts, int n)
{
    if (!types)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", name);
    for (int i = 0; i < n; i++) {
        MPI_Datatype t = types[i];
        if (counts[i] > 0 && (!t || !myr_datatype_valid(t) || !t->committed)) {
            char what[48];
            snprintf(what, sizeof what, "%s[%d]", name, i);
            return check_type_arg(call, comm, what, t);
        }
    }
    return MPI_SUCCESS;
}

/* Alltoallw's buffers: NULL is MPI_BOTTOM unless a block with data has a
 * predefined type. */
static int check_data_w(const char *call, MPI_Comm comm, const void *buf, const char *bufname,
                        const int *counts, const MPI_Datatype *types, const char *typesname,
                        int n)
{
    if (buf == MPI_IN_PLACE)
        return check_data(call, comm, buf, bufname, 0, MPI_BYTE);
    for (int i = 0; !buf && i < n; i++)
        if (counts[i] > 0 && types[i]->predefined && types[i]->size > 0)
            return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                                 "%s is NULL with %s[%d] = %s (predefined, so not MPI_BOTTOM)",
                                 bufname, typesname, i, types[i]->name);
    return MPI_SUCCESS;
}

static int check_alltoall(const char *call, MPI_Comm comm, const myr_coll_args *a)
{
    int err, size = myr_comm_size(comm);
    bool in_place = a->sbuf == MPI_IN_PLACE;
    switch (a->kind) {
    case MYR_COLL_ALLTOALL:
        if ((!in_place && (err = check_side(call, comm, a->sbuf, "sendbuf", a->scount,
                                            "sendcount", a->stype, "sendtype"))) ||
            (err = check_side(call, comm, a->rbuf, "recvbuf", a->rcount, "recvcount",
                              a->rtype, "recvtype")))
            return err;
        return check_alias(call, comm, a->sbuf, a->rbuf,
                           !in_place && a->scount > 0 && a->stype->size > 0, true);
    case MYR_COLL_ALLTOALLV:
        if ((!in_place &&
             ((err = check_counts(call, comm, a->scounts, "sendcounts", a->sdispls, "sdispls",
                                  size)) ||
              (err = check_type_arg(call, comm, "sendtype", a->stype)) ||
              (err = check_data_v(call, comm, a->sbuf, "sendbuf", a->scounts, "sendcounts",
                                  a->stype, size)))) ||
            (err = check_counts(call, comm, a->rcounts, "recvcounts", a->rdispls, "rdispls",
                                size)) ||
            (err = check_type_arg(call, comm, "recvtype", a->rtype)) ||
            (err = check_data_v(call, comm, a->rbuf, "recvbuf", a->rcounts, "recvcounts",
                                a->rtype, size)))
            return err;
        return check_alias(call, comm, a->sbuf, a->rbuf, !in_place, true);
    default:
        if ((!in_place &&
             ((err = check_counts(call, comm, a->scounts, "sendcounts", a->sdispls, "sdispls",
                                  size)) ||
              (err = check_types(call, comm, a->stypes, "sendtypes", a->scounts, size)) ||
              (err = check_data_w(call, comm, a->sbuf, "sendbuf", a->scounts, a->stypes,
                                  "sendtypes", size)))) ||
            (err = check_counts(call, comm, a->rcounts, "recvcounts", a->rdispls, "rdispls",
                                size)) ||
            (err = check_types(call, comm, a->rtypes, "recvtypes", a->rcounts, size)) ||
            (err = check_data_w(call, comm, a->rbuf, "recvbuf", a->rcounts, a->rtypes,
                                "recvtypes", size)))
            return err;
        return check_alias(call, comm, a->sbuf, a->rbuf, !in_place, true);
    }
}

/* The reductions: reduce (root), allreduce, reduce_scatter(_block), scan,
 * exscan. */
static int check_reduce(const char *call, MPI_Comm comm, int me, const myr_coll_args *a)
{
    int err, size = myr_comm_size(comm);
    bool rooted = a->kind == MYR_COLL_REDUCE;
    bool receives = !rooted || me == a->root;
    /* Elements in sendbuf (0 or not is what matters here) and recvbuf. */
    int scount = a->count, rcount = a->count;
    if (a->kind == MYR_COLL_REDUCE_SCATTER) {
        if ((err = check_counts(call, comm, a->rcounts, "recvcounts", NULL, NULL, size)))
            return err;
        scount = 0;
        for (int r = 0; r < size && !scount; r++)
            scount = a->rcounts[r];
        rcount = a->rcounts[me];
    } else if ((err = myr_check_count(call, comm,
                                      a->kind == MYR_COLL_REDUCE_SCATTER_BLOCK ? "recvcount"
                                                                               : "count",
                                      a->count))) {
        return err;
    }
    if ((err = check_type_arg(call, comm, "datatype", a->type)) ||
        (err = myr_check_op(call, comm, a->op, a->type)) ||
        (rooted && (err = check_root(call, comm, a->root))) ||
        (rooted && (err = check_in_place_at_root(call, comm, a->sbuf, "sendbuf", me, a->root))))
        return err;
    if (a->sbuf != MPI_IN_PLACE &&
        (err = check_data(call, comm, a->sbuf, "sendbuf", scount, a->type)))
        return err;
    if (!receives)
        return MPI_SUCCESS;
    if (a->rbuf == MPI_IN_PLACE)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if ((err = check_data(call, comm, a->rbuf, "recvbuf", rcount, a->type)))
        return err;
    return check_alias(call, comm, a->sbuf, a->rbuf, scount > 0 && a->type->size > 0, true);
}

/* ---- the common case, in one pass ------------------------------------------------
 *
 * The checkers above name the argument that is wrong, and so pass names
 * and take a call each; for a call whose arguments are all right they
 * were most of a two-rank collective's instructions. These predicates
 * accept the usual calls (no MPI_IN_PLACE, no v-form) with the same
 * rules in one pass; anything they do not accept goes through the
 * checkers, which report the error or accept it. */

/* A live committed datatype. */
static inline bool type_ok(MPI_Datatype t)
{
    return t && myr_handle_magic(t) == MYR_MAGIC_TYPE && t->committed;
}

/* check_side's rules: count >= 0, a usable type, a buffer that is not
 * MPI_IN_PLACE, NULL only without data or with a derived type
 * (MPI_BOTTOM). */
static inline bool side_ok(const void *buf, int count, MPI_Datatype t)
{
    return count >= 0 && type_ok(t) && buf != MPI_IN_PLACE &&
           (buf || count == 0 || !t->predefined || t->size == 0);
}

/* check_data's rules for a buffer of count (>= 0) elements of usable t. */
static inline bool data_ok(const void *buf, int count, MPI_Datatype t)
{
    return buf != MPI_IN_PLACE && (buf || count == 0 || !t->predefined || t->size == 0);
}

static bool args_usual_ok(MPI_Comm comm, int me, const myr_coll_args *a)
{
    int size = myr_comm_size(comm);
    bool root_ok = a->root >= 0 && a->root < size, at_root = me == a->root;
    switch (a->kind) {
    case MYR_COLL_BCAST:
        return root_ok && side_ok(a->rbuf, a->count, a->type);
    case MYR_COLL_GATHER:
        return root_ok && side_ok(a->sbuf, a->scount, a->stype) &&
               (!at_root || (side_ok(a->rbuf, a->rcount, a->rtype) && a->sbuf != a->rbuf &&
                             !is_own_block(a->sbuf, a->rbuf, (MPI_Aint)me * a->rcount, a->rtype)));
    case MYR_COLL_SCATTER:
        return root_ok && side_ok(a->rbuf, a->rcount, a->rtype) &&
               (!at_root || (side_ok(a->sbuf, a->scount, a->stype) && a->sbuf != a->rbuf &&
                             !is_own_block(a->rbuf, a->sbuf, (MPI_Aint)me * a->scount, a->stype)));
    case MYR_COLL_ALLGATHER:
        return side_ok(a->sbuf, a->scount, a->stype) && side_ok(a->rbuf, a->rcount, a->rtype) &&
               a->sbuf != a->rbuf &&
               !is_own_block(a->sbuf, a->rbuf, (MPI_Aint)me * a->rcount, a->rtype);
    case MYR_COLL_ALLTOALL:
        return side_ok(a->sbuf, a->scount, a->stype) && side_ok(a->rbuf, a->rcount, a->rtype) &&
               a->sbuf != a->rbuf;
    case MYR_COLL_REDUCE:
    case MYR_COLL_ALLREDUCE:
    case MYR_COLL_REDUCE_SCATTER_BLOCK:
    case MYR_COLL_SCAN:
    case MYR_COLL_EXSCAN: {
        bool rooted = a->kind == MYR_COLL_REDUCE;
        if (!side_ok(a->sbuf, a->count, a->type) || (rooted && !root_ok) ||
            !myr_op_valid(a->op) || !myr_op_defined_for(a->op, a->type))
            return false;
        return (rooted && !at_root) || (data_ok(a->rbuf, a->count, a->type) && a->sbuf != a->rbuf);
    }
    default:
        return false;
    }
}

static int check_args(const char *call, MPI_Comm comm, myr_rank *self, const myr_coll_args *a)
{
    if (a->kind == MYR_COLL_BARRIER)
        return MPI_SUCCESS;
    int me = myr_comm_rank(comm, self);
    if (__builtin_expect(args_usual_ok(comm, me, a), 1))
        return MPI_SUCCESS;
    switch (a->kind) {
    case MYR_COLL_BCAST:
        return check_bcast(call, comm, a);
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        return check_gather(call, comm, me, a);
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        return check_scatter(call, comm, me, a);
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        return check_allgather(call, comm, me, a);
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        return check_alltoall(call, comm, a);
    default:
        return check_reduce(call, comm, me, a);
    }
}

/* A barrier on an intercommunicator. Out of line: MPI_Barrier's frame
 * would otherwise hold the arguments its intracommunicator path never
 * builds. */
__attribute__((noinline)) static int inter_barrier(const char *call, MPI_Comm comm)
{
    myr_coll_args a = {.kind = MYR_COLL_BARRIER};
    return myr_inter_coll(call, comm, &a);
}

/* Check and run the collective `a` (MPI name `call`) on comm; `a` NULL:
 * MPI_Barrier, which has no arguments to build or check. */
static int coll_call(const char *call, MPI_Comm comm, const myr_coll_args *a)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (comm->kind == MYR_COMM_INTER) {
        myr_coll_nb_drain(comm, self);
        return a ? myr_inter_coll(call, comm, a) : inter_barrier(call, comm);
    }
    if (a && (err = check_args(call, comm, self, a)))
        return err;
    myr_coll_nb_drain(comm, self);   /* after the rank's nonblocking ones */
    const char *why = NULL;
    err = a ? myr_coll_run(comm, self, a, &why) : myr_coll_barrier(comm, self, &why);
    return raise_coll(call, comm, err, why);
}

/* ---- nonblocking forms (the engine: coll/nbc.c) ----------------------------------
 *
 * An I-form checks what its blocking form checks, then hands the engine a
 * copy of the arguments that outlives the call: the count, displacement
 * and type arrays are copied (one block, freed at completion) and every
 * datatype and the op gain a reference, since the user may free them
 * before the operation completes. What the call does not use is dropped
 * from the copy first (drop_insignificant). The engine runs the blocking algorithm, in call
 * order with the rank's other collectives on the communicator. */

typedef struct nb_args {
    myr_coll_args a;       /* first: myr_coll_nb_start_coll reads it there */
    int n;                 /* the arrays' length */
    void *arrays;          /* the copies the pointers of `a` point into */
    const char *call;
} nb_args;

/* On an intercommunicator the blocking algorithm checks its arguments as
 * it goes (intercoll.c): here on a copy of the handle that returns errors,
 * so the error reaches the user once, through the request. */
static int nb_run_inter(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    (void)self;
    struct myr_mpi_comm quiet = *comm;
    quiet.local.errhandler = MPI_ERRORS_RETURN;
    int err = myr_inter_coll(((nb_args *)args)->call, &quiet, &((nb_args *)args)->a);
    if (err)
        *why = "invalid arguments, or the exchange between the groups failed";
    return err;
}

static void retain_type(MPI_Datatype t)
{
    if (t != MPI_DATATYPE_NULL)
        myr_datatype_retain(t);
}

static void release_type(MPI_Datatype t)
{
    if (t != MPI_DATATYPE_NULL)
        myr_datatype_release(t);
}

/* Every datatype the call uses (Alltoallw: those of blocks with data; a
 * block of 0 elements may name any type, even MPI_DATATYPE_NULL). */
static void nb_types(const myr_coll_args *a, int n, void (*fn)(MPI_Datatype))
{
    MPI_Datatype one[] = {a->stype, a->rtype, a->type};
    for (int i = 0; i < 3; i++)
        fn(one[i]);
    for (int i = 0; a->stypes && i < n; i++)
        if (a->scounts[i] > 0)
            fn(a->stypes[i]);
    for (int i = 0; a->rtypes && i < n; i++)
        if (a->rcounts[i] > 0)
            fn(a->rtypes[i]);
}

static void nb_cleanup(void *args)
{
    nb_args *c = args;
    nb_types(&c->a, c->n, release_type);
    if (c->a.op != MPI_OP_NULL)
        myr_op_release(c->a.op);
    free(c->arrays);
}

/* Clear, in an I-form's copy, what MPI says this rank's call does not use
 * (the receive side at a gather's other ranks, the send side in place...):
 * the caller may pass anything there, so the engine must neither copy nor
 * reference it. */
static void drop_insignificant(myr_coll_args *a, int me)
{
    bool send_unused = false, recv_unused = false;
    switch (a->kind) {
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        recv_unused = me != a->root;
        send_unused = a->sbuf == MPI_IN_PLACE;
        break;
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        send_unused = me != a->root;
        recv_unused = a->rbuf == MPI_IN_PLACE;
        break;
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        send_unused = a->sbuf == MPI_IN_PLACE;
        break;
    default:
        break;
    }
    if (send_unused) {
        a->scount = 0;
        a->stype = MPI_DATATYPE_NULL;
        a->scounts = a->sdispls = NULL;
        a->stypes = NULL;
    }
    if (recv_unused) {
        a->rcount = 0;
        a->rtype = MPI_DATATYPE_NULL;
        a->rcounts = a->rdispls = NULL;
        a->rtypes = NULL;
    }
}

/* The same for an intercommunicator, whose roots are MPI_ROOT (the root),
 * MPI_PROC_NULL (the rest of its group: nothing is significant) or a
 * remote rank. */
static void drop_insignificant_inter(myr_coll_args *a)
{
    bool rooted = a->kind == MYR_COLL_BCAST || a->kind == MYR_COLL_REDUCE ||
                  a->kind == MYR_COLL_GATHER || a->kind == MYR_COLL_GATHERV ||
                  a->kind == MYR_COLL_SCATTER || a->kind == MYR_COLL_SCATTERV;
    if (rooted && a->root == MPI_PROC_NULL) {
        myr_coll_args only = {.kind = a->kind, .root = a->root, .nonblocking = true};
        *a = only;
        return;
    }
    bool send_unused = false, recv_unused = false;
    if (a->kind == MYR_COLL_GATHER || a->kind == MYR_COLL_GATHERV) {
        send_unused = a->root == MPI_ROOT;
        recv_unused = a->root != MPI_ROOT;
    } else if (a->kind == MYR_COLL_SCATTER || a->kind == MYR_COLL_SCATTERV) {
        send_unused = a->root != MPI_ROOT;
        recv_unused = a->root == MPI_ROOT;
    }
    if (send_unused) {
        a->scount = 0;
        a->stype = MPI_DATATYPE_NULL;
        a->scounts = a->sdispls = NULL;
        a->stypes = NULL;
    }
    if (recv_unused) {
        a->rcount = 0;
        a->rtype = MPI_DATATYPE_NULL;
        a->rcounts = a->rdispls = NULL;
        a->rtypes = NULL;
    }
}

/* Before an intercommunicator I-form references them: every datatype and
 * the op it will use are valid handles (the rest is checked as it runs). */
static int check_inter_handles(const char *call, MPI_Comm comm, const myr_coll_args *a, int n)
{
    MPI_Datatype one[] = {a->stype, a->rtype, a->type};
    for (int i = 0; i < 3; i++)
        if (one[i] != MPI_DATATYPE_NULL && !myr_datatype_valid(one[i]))
            return myr_mpi_error(comm, MPI_ERR_TYPE, call, "invalid datatype handle %p",
                                 (void *)one[i]);
    for (int side = 0; side < 2; side++) {
        const MPI_Datatype *types = side ? a->rtypes : a->stypes;
        const int *counts = side ? a->rcounts : a->scounts;
        for (int i = 0; types && i < n; i++)
            if (counts[i] > 0 && !myr_datatype_valid(types[i]))
                return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                                     "invalid datatype handle %p in %s[%d]", (void *)types[i],
                                     side ? "recvtypes" : "sendtypes", i);
    }
    if (a->op != MPI_OP_NULL && !myr_op_valid(a->op))
        return myr_mpi_error(comm, MPI_ERR_OP, call, "invalid op handle %p", (void *)a->op);
    return MPI_SUCCESS;
}

/* Copy the n-entry array at *p (if any) to *next, and point *p there. */
#define NB_COPY_ARRAY(p, next, n)                                      \
    do {                                                              \
        if (p) {                                                      \
            memcpy((next), (p), (size_t)(n) * sizeof *(p));           \
            (p) = (void *)(next);                                     \
            (next) = (char *)(next) + (size_t)(n) * sizeof *(p);      \
        }                                                             \
    } while (0)

/* Copy what the I-form's arguments point to (the count, displacement and
 * type arrays, `n` entries each) into one block and take references to
 * the derived types and user op they use; *cleanup is what releases them
 * (NULL: nothing to release, the usual case). MPI_SUCCESS, or the error
 * raised. Out of line: the usual call (no array, only predefined types and
 * op) needs none of it. */
__attribute__((noinline)) static int nb_hold(const char *call, MPI_Comm comm, nb_args *c,
                                             int n, myr_coll_nb_cleanup *cleanup)
{
    *cleanup = NULL;
    size_t ints = (size_t)n * ((c->a.scounts != NULL) + (c->a.sdispls != NULL) +
                               (c->a.rcounts != NULL) + (c->a.rdispls != NULL));
    size_t types = (size_t)n * ((c->a.stypes != NULL) + (c->a.rtypes != NULL));
    if (ints + types > 0) {
        /* Types first: the stricter alignment. */
        char *next = c->arrays = malloc(types * sizeof(MPI_Datatype) + ints * sizeof(int));
        if (!c->arrays)
            return myr_mpi_error(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory for a nonblocking collective's arguments");
        NB_COPY_ARRAY(c->a.stypes, next, n);
        NB_COPY_ARRAY(c->a.rtypes, next, n);
        NB_COPY_ARRAY(c->a.scounts, next, n);
        NB_COPY_ARRAY(c->a.sdispls, next, n);
        NB_COPY_ARRAY(c->a.rcounts, next, n);
        NB_COPY_ARRAY(c->a.rdispls, next, n);
    }
    /* Nothing to hold or release (no array, only predefined types and
     * op): no references, no cleanup call. */
    bool plain = !c->arrays && !c->a.stypes && !c->a.rtypes &&
                 (c->a.op == MPI_OP_NULL || c->a.op->kind != MYR_OP_USER) &&
                 (c->a.stype == MPI_DATATYPE_NULL || c->a.stype->predefined) &&
                 (c->a.rtype == MPI_DATATYPE_NULL || c->a.rtype->predefined) &&
                 (c->a.type == MPI_DATATYPE_NULL || c->a.type->predefined);
    if (!plain) {
        nb_types(&c->a, n, retain_type);
        if (c->a.op != MPI_OP_NULL)   /* the user may free it before completion */
            myr_op_retain(c->a.op);
        *cleanup = nb_cleanup;
    }
    return MPI_SUCCESS;
}

/* Whether nb_hold has anything to do: an array, or a type or op that is
 * not predefined. (Cheaper than nb_hold's exact answer: a few loads.) */
static inline bool nb_needs_hold(const myr_coll_args *a)
{
    if (a->scounts || a->sdispls || a->rcounts || a->rdispls || a->stypes || a->rtypes)
        return true;
    return (a->op != MPI_OP_NULL && a->op->kind == MYR_OP_USER) ||
           (a->stype != MPI_DATATYPE_NULL && !a->stype->predefined) ||
           (a->rtype != MPI_DATATYPE_NULL && !a->rtype->predefined) ||
           (a->type != MPI_DATATYPE_NULL && !a->type->predefined);
}

/* icoll_call on an intercommunicator: the engine runs the blocking
 * algorithm on a ULT, from its own copy of the arguments. */
__attribute__((noinline)) static int icoll_inter(const char *call, MPI_Comm comm,
                                                 myr_rank *self, const myr_coll_args *args,
                                                 MPI_Request *request)
{
    int err;
    if (args->kind == MYR_COLL_SCAN || args->kind == MYR_COLL_EXSCAN)
        return myr_inter_coll(call, comm, args);   /* refused there, as blocking */
    nb_args on_stack;
    nb_args *c = &on_stack;
    c->a = *args;
    c->a.nonblocking = true;
    c->arrays = NULL;
    c->call = call;
    drop_insignificant_inter(&c->a);
    /* The arrays have an entry per remote rank, but Reduce_scatter's
     * counts one per local rank. */
    int n = c->n = c->a.kind == MYR_COLL_REDUCE_SCATTER ? myr_comm_size(comm)
                                                        : comm->remote_size;
    if ((c->a.kind == MYR_COLL_ALLTOALLV || c->a.kind == MYR_COLL_ALLTOALLW) &&
        (!c->a.scounts || !c->a.rcounts))
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL",
                             c->a.scounts ? "recvcounts" : "sendcounts");
    if ((err = check_inter_handles(call, comm, &c->a, n)))
        return err;
    myr_coll_nb_cleanup cleanup;
    if ((err = nb_hold(call, comm, c, n, &cleanup)))
        return err;
    /* On failure the engine has already called nb_cleanup. */
    if ((err = myr_coll_nb_start(comm, self, call, nb_run_inter, c, sizeof *c, cleanup,
                                 request)))
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}

/* The entry of a nonblocking collective: the calling rank, or NULL with
 * *err set (not in MPI, a bad communicator or request pointer). */
static inline myr_rank *icoll_enter(const char *call, MPI_Comm comm, MPI_Request *request,
                                    int *err)
{
    myr_rank *self = myr_mpi_enter(call, err);
    if (self && ((*err = myr_check_comm(call, comm)) ||
                 (*err = myr_check_pointer(call, comm, request, "request"))))
        return NULL;
    return self;
}

static int icoll_call(const char *call, MPI_Comm comm, const myr_coll_args *args,
                      MPI_Request *request)
{
    int err;
    myr_rank *self = icoll_enter(call, comm, request, &err);
    if (!self)
        return err;
    if (comm->kind == MYR_COMM_INTER)
        return icoll_inter(call, comm, self, args, request);
    if ((err = check_args(call, comm, self, args)))
        return err;
    /* Built where the engine keeps it (no second copy). restrict:
     * nothing else reaches the new block, so the compiler keeps its fields
     * in registers. Field by field: a compound literal would clear it
     * first. */
    nb_args *restrict const c = myr_coll_nb_reserve(sizeof *c);
    if (!c)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a nonblocking collective");
    c->a = *args;
    c->a.nonblocking = true;
    c->arrays = NULL;
    c->call = call;
    drop_insignificant(&c->a, myr_comm_rank(comm, self));
    myr_coll_nb_cleanup cleanup = NULL;
    if (__builtin_expect(nb_needs_hold(&c->a), 0) &&
        (err = nb_hold(call, comm, c, c->n = myr_comm_size(comm), &cleanup))) {
        myr_coll_nb_unreserve(c);
        return err;
    }
    /* On failure the engine has already called nb_cleanup. */
    if ((err = myr_coll_nb_start_coll(comm, self, call, c, cleanup, request)))
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}

/* MPI_Ibarrier: no arguments to check or copy, none to hold (see
 * icoll_call). */
static int ibarrier_call(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    static const myr_coll_args a = {.kind = MYR_COLL_BARRIER};
    int err;
    myr_rank *self = icoll_enter(call, comm, request, &err);
    if (!self)
        return err;
    if (comm->kind == MYR_COMM_INTER)
        return icoll_inter(call, comm, self, &a, request);
    if ((err = myr_coll_nb_start_barrier(comm, self, call, request)))
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}

/* Run (nb false) or start (nb true, *request) the collective `a`. */
static int coll_start(MPI_Comm comm, const myr_coll_args *a, bool nb, MPI_Request *request)
{
    const char *call = myr_coll_name(a->kind, nb);
    return nb ? icoll_call(call, comm, a, request) : coll_call(call, comm, a);
}

/* ---- the entry points: MPI_X and MPI_IX share one function -------------------------- */

/* ---- a rank alone in its communicator ------------------------------------------
 *
 * A singleton job, MPI_COMM_SELF, a split that left one rank: applications
 * call Barrier, Bcast and the reductions there in their inner loops (a CG
 * solver's dot products on one rank). Such a call has nothing to wait
 * for and nothing to move but a local copy, and Open MPI's whole call
 * costs ~40 instructions; the general path (entry, checks by family,
 * coll/'s dispatch, its frames) cost 90-310. These predicates accept the
 * usual arguments of such a call; anything else (an error to report,
 * MPI_IN_PLACE, a derived type, a nonblocking collective still pending on
 * comm) takes the general path, which reports or runs it. A one-rank
 * communicator never spans processes. */

/* The calling rank, when its call may take a short way: an
 * intracommunicator without a nonblocking collective pending, whose ranks
 * are all in this OS process (a lone rank's always are). NULL: use the
 * general path. Records the call as myr_mpi_enter does. */
static inline myr_rank *caller_in(MPI_Comm comm, const char *call)
{
    myr_rank *self = myr_rank_self();
    if (!__builtin_expect(self && self->init_state == 1 && myr_comm_valid(comm), 1) ||
        comm->kind == MYR_COMM_INTER ||
        (myr_comm_size(comm) != 1 && myr_comm_spans_processes(comm)) ||
        atomic_load_explicit(&myr_comm_local_of(comm, self)->nb.tail,
                             memory_order_relaxed) != NULL)
        return NULL;
    atomic_store_explicit(&self->last_call, call, memory_order_relaxed);
    return self;
}

/* The calling rank, alone in comm, may return at once; NULL: use the
 * general path. */
static inline myr_rank *alone_in(MPI_Comm comm, const char *call)
{
    myr_rank *self = myr_rank_self();
    if (!__builtin_expect(self && myr_comm_valid(comm), 1) || myr_comm_size(comm) != 1)
        return NULL;   /* the general path, without caller_in's other looks */
    return caller_in(comm, call);
}

/* The usual arguments of a reduction of a contiguous type into rbuf, as
 * check_reduce accepts them; `in` is the input (sbuf, or rbuf in place). */
static inline bool reduction_usual(const void *in, const void *sbuf, void *rbuf, int count,
                                   MPI_Datatype type, MPI_Op op)
{
    return side_ok(in, count, type) && type->contig && data_ok(rbuf, count, type) &&
           sbuf != rbuf && myr_op_valid(op) && myr_op_defined_for(op, type);
}

/* A reduction's result on one rank is its send buffer (MPI applies no op
 * to a single contribution): copied when the usual arguments are right
 * and the type is contiguous. False: nothing was done. */
static inline bool reduce_alone(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                                MPI_Op op)
{
    if (!reduction_usual(sbuf, sbuf, rbuf, count, type, op))
        return false;
    if (count > 0)
        memcpy(rbuf, sbuf, (size_t)count * type->size);
    return true;
}

/* ---- a small reduction among collocated ranks -----------------------------------
 *
 * MPI_Allreduce of a few bytes (a dot product, a residual's norm, a
 * convergence flag) is what applications call most often, in their inner
 * loops. The general path builds the whole argument block, checks it by
 * family and dispatches by kind twice before the round. With the usual
 * arguments, checked here as the general path would accept them, the call
 * goes straight to coll/'s small reduction: 671 instructions per rank and
 * call instead of 903 (cachegrind, one double, 256 ranks on one worker).
 * Anything else (an error to report, a type with gaps, more bytes, a
 * communicator spanning processes) takes the general path. */
static inline bool small_allreduce_usual(const void *sbuf, void *rbuf, int count,
                                         MPI_Datatype type, MPI_Op op)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    return count > 0 && type_ok(type) && type->size > 0 &&
           (size_t)count * type->size <= MYR_COLL_SMALL_BYTES &&
           reduction_usual(in, sbuf, rbuf, count, type, op);
}


int PMPI_Barrier(MPI_Comm comm)
{
    myr_rank *self = caller_in(comm, "MPI_Barrier");
    if (self && myr_comm_size(comm) == 1)
        return MPI_SUCCESS;
    if (self) {   /* what coll_call would check is checked */
        const char *why = NULL;
        return raise_coll("MPI_Barrier", comm, myr_coll_barrier(comm, self, &why), why);
    }
    return coll_call("MPI_Barrier", comm, NULL);
}
int MPI_Barrier(MPI_Comm comm) MYR_PMPI(Barrier);
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return ibarrier_call(comm, request);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) MYR_PMPI(Ibarrier);

static int bcast(bool nb, void *buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_BCAST, .rbuf = buffer, .count = count,
                       .type = datatype, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (alone_in(comm, "MPI_Bcast") && root == 0 && side_ok(buffer, count, datatype))
        return MPI_SUCCESS;
    return bcast(false, buffer, count, datatype, root, comm, NULL);
}
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) MYR_PMPI(Bcast);
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    return bcast(true, buffer, count, datatype, root, comm, request);
}
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) MYR_PMPI(Ibcast);

static int gather(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_GATHER, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                       .rtype = recvtype, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  NULL);
}
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) MYR_PMPI(Gather);
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return gather(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  request);
}
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request) MYR_PMPI(Igather);

static int gatherv(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_GATHERV, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                       .rdispls = displs, .rtype = recvtype, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return gatherv(false, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, comm, NULL);
}
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) MYR_PMPI(Gatherv);
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    return gatherv(true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, comm, request);
}
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) MYR_PMPI(Igatherv);

static int scatter(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_SCATTER, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                       .rtype = recvtype, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, NULL);
}
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) MYR_PMPI(Scatter);
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return scatter(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                   request);
}
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) MYR_PMPI(Iscatter);

static int scatterv(bool nb, const void *sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_SCATTERV, .sbuf = sendbuf, .scounts = sendcounts,
                       .sdispls = displs, .stype = sendtype, .rbuf = recvbuf,
                       .rcount = recvcount, .rtype = recvtype, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return scatterv(false, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                    root, comm, NULL);
}
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) MYR_PMPI(Scatterv);
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    return scatterv(true, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                    root, comm, request);
}
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iscatterv);

static int allgather(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                       .rtype = recvtype};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                     NULL);
}
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) MYR_PMPI(Allgather);
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                     request);
}
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) MYR_PMPI(Iallgather);

static int allgatherv(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                       .rdispls = displs, .rtype = recvtype};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return allgatherv(false, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, comm, NULL);
}
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) MYR_PMPI(Allgatherv);
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    return allgatherv(true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      comm, request);
}
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iallgatherv);

static int alltoall(bool nb, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLTOALL, .sbuf = sendbuf, .scount = sendcount,
                       .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                       .rtype = recvtype};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                    NULL);
}
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) MYR_PMPI(Alltoall);
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoall(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                    request);
}
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                  MPI_Request *request) MYR_PMPI(Ialltoall);

static int alltoallv(bool nb, const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLTOALLV, .sbuf = sendbuf, .scounts = sendcounts,
                       .sdispls = sdispls, .stype = sendtype, .rbuf = recvbuf,
                       .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv(false, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                     rdispls, recvtype, comm, NULL);
}
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) MYR_PMPI(Alltoallv);
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    return alltoallv(true, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, request);
}
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) MYR_PMPI(Ialltoallv);

static int alltoallw(bool nb, const void *sendbuf, const int sendcounts[], const int sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLTOALLW, .sbuf = sendbuf, .scounts = sendcounts,
                       .sdispls = sdispls, .stypes = sendtypes, .rbuf = recvbuf,
                       .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw(false, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                     rdispls, recvtypes, comm, NULL);
}
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) MYR_PMPI(Alltoallw);
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    return alltoallw(true, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                     rdispls, recvtypes, comm, request);
}
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request) MYR_PMPI(Ialltoallw);

static int reduce(bool nb, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf,
                       .count = count, .type = datatype, .op = op, .root = root};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    if (alone_in(comm, "MPI_Reduce") && root == 0 &&
        reduce_alone(sendbuf, recvbuf, count, datatype, op))
        return MPI_SUCCESS;
    return reduce(false, sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) MYR_PMPI(Reduce);
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return reduce(true, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) MYR_PMPI(Ireduce);

/* Out of line: its argument block would otherwise sit in MPI_Allreduce's
 * frame, whose short way builds none (a stack line more per rank and call:
 * 17.2 against 18.3 L2 misses at 16384 ranks, cachegrind). */
__attribute__((noinline)) static int allreduce(bool nb, const void *sendbuf, void *recvbuf,
                                               int count, MPI_Datatype datatype, MPI_Op op,
                                               MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf,
                       .count = count, .type = datatype, .op = op};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    myr_rank *self = caller_in(comm, "MPI_Allreduce");
    bool alone = self && myr_comm_size(comm) == 1;
    if (alone && reduce_alone(sendbuf, recvbuf, count, datatype, op))
        return MPI_SUCCESS;
    if (self && !alone && small_allreduce_usual(sendbuf, recvbuf, count, datatype, op)) {
        const char *why = NULL;
        int err = myr_coll_allreduce_small(comm, self, sendbuf, recvbuf, count, datatype, op,
                                           &why);
        return raise_coll("MPI_Allreduce", comm, err, why);
    }
    return allreduce(false, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) MYR_PMPI(Allreduce);
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return allreduce(true, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iallreduce);

static int reduce_scatter(bool nb, const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                       .rcounts = recvcounts, .type = datatype, .op = op};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(false, sendbuf, recvbuf, recvcounts, datatype, op, comm, NULL);
}
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) MYR_PMPI(Reduce_scatter);
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(true, sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
}
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Request *request) MYR_PMPI(Ireduce_scatter);

static int reduce_scatter_block(bool nb, const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_REDUCE_SCATTER_BLOCK, .sbuf = sendbuf,
                       .rbuf = recvbuf, .count = recvcount, .type = datatype, .op = op};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter_block(false, sendbuf, recvbuf, recvcount, datatype, op, comm, NULL);
}
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) MYR_PMPI(Reduce_scatter_block);
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return reduce_scatter_block(true, sendbuf, recvbuf, recvcount, datatype, op, comm, request);
}
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) MYR_PMPI(Ireduce_scatter_block);

static int scan(bool nb, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_SCAN, .sbuf = sendbuf, .rbuf = recvbuf,
                       .count = count, .type = datatype, .op = op};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return scan(false, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) MYR_PMPI(Scan);
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return scan(true, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iscan);

static int exscan(bool nb, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    myr_coll_args a = {.kind = MYR_COLL_EXSCAN, .sbuf = sendbuf, .rbuf = recvbuf,
                       .count = count, .type = datatype, .op = op};
    return coll_start(comm, &a, nb, request);
}
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return exscan(false, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) MYR_PMPI(Exscan);
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return exscan(true, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iexscan);
