/*
 * intercoll.c — the collectives of MPI-1 (and Alltoallw, Reduce_scatter_block)
 * on intercommunicators (MPI 3.1, 5.2.2): data flows from one group to the
 * other. The entry points in coll.c hand an intercommunicator to these.
 *
 * Built from two things every intercommunicator has: point-to-point to the
 * remote group on the library's own context (ctx + 1, see intercomm.c; no
 * user message can match it) and the collectives of the private duplicate
 * of the local group (`local_comm`). Between collocated ranks a message is
 * one copy from the sender's buffer into the receiver's, so rooted
 * operations send straight between the root and each remote rank; the
 * reductions combine inside each group first and cross once, between the
 * two leaders (local rank 0 of each group).
 *
 * The library's own calls run with MPI_ERRORS_RETURN on private copies of
 * the handles, so an error surfaces once, through the user's handler, under
 * the name of the user's call. Every rank checks its own arguments before
 * any communication, as everywhere else.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One tag per operation keeps a mistake (ranks calling different
 * collectives) from pairing the wrong messages silently; MPI's ordering
 * on one context does the rest. */
enum {
    TAG_BARRIER = 1, TAG_BCAST, TAG_GATHER, TAG_SCATTER, TAG_ALLGATHER,
    TAG_ALLTOALL, TAG_REDUCE, TAG_ALLREDUCE, TAG_REDUCE_SCATTER,
};

/* Private copies of an intercommunicator's handles for the library's own
 * calls: the remote side on ctx + 1, and the local group's duplicate. */
typedef struct inter_ctx {
    struct myr_mpi_comm remote;
    struct myr_mpi_comm local;
    int rank, size, remote_size;
} inter_ctx;

static void inter_ctx_init(inter_ctx *c, MPI_Comm ic)
{
    c->remote = *ic;
    c->remote.context_id = ic->context_id + 1;
    c->remote.local.errhandler = MPI_ERRORS_RETURN;
    c->local = *ic->local_comm;
    c->local.local.errhandler = MPI_ERRORS_RETURN;
    c->rank = ic->rank;
    c->size = ic->size;
    c->remote_size = ic->remote_size;
}

static int fail(MPI_Comm ic, const char *call, int err, const char *what)
{
    return myr_mpi_error(ic, err, call, "%s failed between the groups of the "
                         "intercommunicator (do both groups pass matching arguments?)",
                         what);
}

/* root: MPI_ROOT (the root), MPI_PROC_NULL (the root's group) or a rank of
 * the remote group (the other group). */
static int check_root(const char *call, MPI_Comm ic, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL ||
        (root >= 0 && root < ic->remote_size))
        return MPI_SUCCESS;
    return myr_mpi_error(ic, MPI_ERR_ROOT, call,
                         "invalid root %d on an intercommunicator (MPI_ROOT, "
                         "MPI_PROC_NULL, or a remote rank 0..%d)", root, ic->remote_size - 1);
}

static int check_not_in_place(const char *call, MPI_Comm ic, const void *sendbuf,
                              const void *recvbuf)
{
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return myr_mpi_error(ic, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed on an intercommunicator");
    return MPI_SUCCESS;
}

static int check_data(const char *call, MPI_Comm ic, const void *buf, int count,
                      MPI_Datatype type, const char *what)
{
    int err;
    if ((err = myr_check_count(call, ic, what, count)) ||
        (err = myr_check_type(call, ic, type)) ||
        (err = myr_check_buffer(call, ic, buf, count, type)))
        return err;
    return MPI_SUCCESS;
}

/* counts[i] and displs[i] for the n ranks of a group. */
static int check_vector(const char *call, MPI_Comm ic, const void *buf, const int *counts,
                        const int *displs, int n, MPI_Datatype type, const char *what)
{
    int err;
    if (!counts || (displs == NULL && n > 0))
        return myr_mpi_error(ic, MPI_ERR_ARG, call, "%s %s is NULL", what,
                             counts ? "displs" : "counts");
    if ((err = myr_check_type(call, ic, type)))
        return err;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return myr_mpi_error(ic, MPI_ERR_COUNT, call, "%s counts[%d] is %d (must be >= 0)",
                                 what, i, counts[i]);
        if ((err = myr_check_buffer(call, ic, buf, counts[i], type)))
            return err;
    }
    return MPI_SUCCESS;
}

static char *at(const void *buf, MPI_Datatype type, MPI_Aint index)
{
    return (char *)buf + index * type->extent;
}

/* Wait for n requests; the first error wins. Frees `reqs`. */
static int wait_all(int n, MPI_Request *reqs)
{
    int err = n ? PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    free(reqs);
    return err;
}

static MPI_Request *request_array(int n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Request));
}

/* A buffer for `count` elements of `type` laid out as the type says (for
 * a reduction's partial result); *base is what to free. */
static void *typed_buffer(int count, MPI_Datatype type, void **base)
{
    MPI_Aint span = count > 0 ? (MPI_Aint)(count - 1) * type->extent +
                                    (type->true_ub - type->true_lb)
                              : 0;
    *base = malloc((size_t)(span > 0 ? span : 1));
    return *base ? (char *)*base - type->true_lb : NULL;
}

/* ---- barrier, broadcast -------------------------------------------------- */

static int inter_barrier(MPI_Comm ic, const char *call)
{
    inter_ctx c;
    inter_ctx_init(&c, ic);
    int err = PMPI_Barrier(&c.local);   /* this group has arrived */
    if (!err && c.rank == 0)
        err = PMPI_Sendrecv(NULL, 0, MPI_BYTE, 0, TAG_BARRIER, NULL, 0, MPI_BYTE, 0,
                            TAG_BARRIER, &c.remote, MPI_STATUS_IGNORE);
    if (!err)
        err = PMPI_Barrier(&c.local);   /* ... and so has the other one */
    return err ? fail(ic, call, err, "the barrier") : MPI_SUCCESS;
}

static int inter_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm ic,
                       const char *call)
{
    int err;
    if ((err = check_root(call, ic, root)))
        return err;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((err = check_data(call, ic, buf, count, type, "count")))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    if (root == MPI_ROOT)
        err = PMPI_Send(buf, count, type, 0, TAG_BCAST, &c.remote);
    else {
        if (c.rank == 0)
            err = PMPI_Recv(buf, count, type, root, TAG_BCAST, &c.remote, MPI_STATUS_IGNORE);
        if (!err)
            err = PMPI_Bcast(buf, count, type, 0, &c.local);
    }
    return err ? fail(ic, call, err, "the broadcast") : MPI_SUCCESS;
}

/* ---- gather, scatter ----------------------------------------------------- */

/* The root receives from (gather) or sends to (scatter) every remote rank:
 * counts/displs NULL for the fixed-size forms. */
static int root_exchange(inter_ctx *c, bool gather, void *buf, const int *counts,
                         const int *displs, int count, MPI_Datatype type, int tag)
{
    MPI_Request *reqs = request_array(c->remote_size);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int n = 0, err = MPI_SUCCESS;
    for (int r = 0; r < c->remote_size && !err; r++) {
        int cnt = counts ? counts[r] : count;
        char *p = at(buf, type, counts ? displs[r] : (MPI_Aint)r * count);
        err = gather ? PMPI_Irecv(p, cnt, type, r, tag, &c->remote, &reqs[n])
                     : PMPI_Isend(p, cnt, type, r, tag, &c->remote, &reqs[n]);
        n += !err;
    }
    int werr = wait_all(n, reqs);
    return err ? err : werr;
}

static int inter_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int *recvcounts, const int *displs,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm ic,
                      const char *call)
{
    int err;
    if ((err = check_root(call, ic, root)))
        return err;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    if (root == MPI_ROOT) {
        if ((err = recvcounts ? check_vector(call, ic, recvbuf, recvcounts, displs,
                                             ic->remote_size, recvtype, "recv")
                              : check_data(call, ic, recvbuf, recvcount, recvtype,
                                           "recvcount")))
            return err;
        err = root_exchange(&c, true, recvbuf, recvcounts, displs, recvcount, recvtype,
                            TAG_GATHER);
    } else {
        if ((err = check_data(call, ic, sendbuf, sendcount, sendtype, "sendcount")))
            return err;
        err = PMPI_Send(sendbuf, sendcount, sendtype, root, TAG_GATHER, &c.remote);
    }
    return err ? fail(ic, call, err, "the gather") : MPI_SUCCESS;
}

static int inter_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                       int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm ic,
                       const char *call)
{
    int err;
    if ((err = check_root(call, ic, root)))
        return err;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    if (root == MPI_ROOT) {
        if ((err = sendcounts ? check_vector(call, ic, sendbuf, sendcounts, displs,
                                             ic->remote_size, sendtype, "send")
                              : check_data(call, ic, sendbuf, sendcount, sendtype,
                                           "sendcount")))
            return err;
        err = root_exchange(&c, false, (void *)sendbuf, sendcounts, displs, sendcount,
                            sendtype, TAG_SCATTER);
    } else {
        if ((err = check_data(call, ic, recvbuf, recvcount, recvtype, "recvcount")))
            return err;
        err = PMPI_Recv(recvbuf, recvcount, recvtype, root, TAG_SCATTER, &c.remote,
                        MPI_STATUS_IGNORE);
    }
    return err ? fail(ic, call, err, "the scatter") : MPI_SUCCESS;
}

/* ---- all-to-all patterns ------------------------------------------------- */

/* Every rank sends one block to, and receives one block from, every rank
 * of the other group: block r of the send side goes to remote rank r.
 * Byte displacements (sdispl_bytes) serve Alltoallw; element ones the
 * others. All receives are posted before the sends. */
typedef struct block_plan {
    const void *buf;
    const int *counts;       /* NULL: `count` for every block */
    const int *displs;       /* NULL: block r at r * count elements */
    bool displs_in_bytes;
    int count;
    MPI_Datatype type;       /* with `types`: ignored */
    const MPI_Datatype *types;
} block_plan;

static const void *block_at(const block_plan *p, int r, int *count, MPI_Datatype *type)
{
    *type = p->types ? p->types[r] : p->type;
    *count = p->counts ? p->counts[r] : p->count;
    if (p->displs_in_bytes)
        return (const char *)p->buf + p->displs[r];
    return at(p->buf, *type, p->displs ? p->displs[r] : (MPI_Aint)r * p->count);
}

static int exchange_blocks(inter_ctx *c, const block_plan *send, const block_plan *recv)
{
    int n = c->remote_size;
    MPI_Request *reqs = request_array(2 * n);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int posted = 0, err = MPI_SUCCESS;
    for (int r = 0; r < n && !err; r++) {
        int cnt;
        MPI_Datatype t;
        void *p = (void *)block_at(recv, r, &cnt, &t);
        err = PMPI_Irecv(p, cnt, t, r, TAG_ALLTOALL, &c->remote, &reqs[posted]);
        posted += !err;
    }
    for (int k = 0; k < n && !err; k++) {
        /* Start with the rank across from us, so that the ranks do not all
         * send to remote rank 0 first. */
        int r = (c->rank + k) % n;
        int cnt;
        MPI_Datatype t;
        const void *p = block_at(send, r, &cnt, &t);
        err = PMPI_Isend(p, cnt, t, r, TAG_ALLTOALL, &c->remote, &reqs[posted]);
        posted += !err;
    }
    int werr = wait_all(posted, reqs);
    return err ? err : werr;
}

static int check_blocks(const char *call, MPI_Comm ic, const block_plan *p, const char *what)
{
    int err, n = ic->remote_size;
    if (!p->counts)
        return check_data(call, ic, p->buf, p->count, p->type, what);
    if (!p->displs || (p->displs_in_bytes && !p->types))
        return myr_mpi_error(ic, MPI_ERR_ARG, call, "%s %s is NULL", what,
                             p->displs ? "types" : "displs");
    for (int r = 0; r < n; r++) {
        MPI_Datatype t = p->types ? p->types[r] : p->type;
        if (p->counts[r] < 0)
            return myr_mpi_error(ic, MPI_ERR_COUNT, call, "%s counts[%d] is %d (must be >= 0)",
                                 what, r, p->counts[r]);
        if ((err = myr_check_type(call, ic, t)) ||
            (err = myr_check_buffer(call, ic, p->buf, p->counts[r], t)))
            return err;
    }
    return MPI_SUCCESS;
}

static int inter_alltoall_blocks(const block_plan *send, const block_plan *recv, MPI_Comm ic,
                              const char *call)
{
    int err;
    if ((err = check_not_in_place(call, ic, send->buf, recv->buf)) ||
        (err = check_blocks(call, ic, send, "send")) ||
        (err = check_blocks(call, ic, recv, "recv")))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    err = exchange_blocks(&c, send, recv);
    return err ? fail(ic, call, err, "the exchange") : MPI_SUCCESS;
}

/* Allgather(v): every rank sends its one block to every remote rank, and
 * receives the remote ranks' blocks in rank order. */
static int inter_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int *recvcounts, const int *displs,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm ic,
                         const char *call)
{
    int err;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)) ||
        (err = check_data(call, ic, sendbuf, sendcount, sendtype, "sendcount")))
        return err;
    int n = ic->remote_size;
    /* On the send side every block is the whole sendbuf (displacement 0). */
    int *scounts = malloc((size_t)(2 * n + 1) * sizeof *scounts);
    if (!scounts)
        return myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory");
    int *sdispls = scounts + n;
    for (int r = 0; r < n; r++) {
        scounts[r] = sendcount;
        sdispls[r] = 0;
    }
    block_plan s = {.buf = sendbuf, .counts = scounts, .displs = sdispls, .type = sendtype};
    block_plan r = {.buf = recvbuf, .counts = recvcounts, .displs = displs,
                    .count = recvcount, .type = recvtype};
    if (recvcounts && !displs)
        err = myr_mpi_error(ic, MPI_ERR_ARG, call, "displs is NULL");
    else
        err = inter_alltoall_blocks(&s, &r, ic, call);
    free(scounts);
    return err;
}

/* ---- reductions ---------------------------------------------------------- */

static int check_reduction(const char *call, MPI_Comm ic, const void *buf, int count,
                           MPI_Datatype type, MPI_Op op, const char *what)
{
    int err;
    if ((err = check_data(call, ic, buf, count, type, what)))
        return err;
    if (!myr_op_valid(op))
        return myr_mpi_error(ic, MPI_ERR_OP, call, "invalid op %s",
                             op == MPI_OP_NULL ? "MPI_OP_NULL" : "handle");
    if (!myr_op_defined_for(op, type))
        return myr_mpi_error(ic, MPI_ERR_OP, call, "%s is not defined for %s",
                             myr_op_label(op), myr_datatype_label(type));
    return MPI_SUCCESS;
}

/* This group's reduction of `count` elements at sendbuf, at local rank 0
 * (in a buffer it returns; *base to free); NULL elsewhere, or on error. */
static int reduce_in_group(inter_ctx *c, const void *sendbuf, int count, MPI_Datatype type,
                           MPI_Op op, void **result, void **base)
{
    *result = *base = NULL;
    if (c->rank == 0 && !(*result = typed_buffer(count, type, base)))
        return MPI_ERR_NO_MEM;
    return PMPI_Reduce(sendbuf, *result, count, type, op, 0, &c->local);
}

static int inter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                        MPI_Op op, int root, MPI_Comm ic, const char *call)
{
    int err;
    if ((err = check_root(call, ic, root)))
        return err;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)) ||
        (err = check_reduction(call, ic, root == MPI_ROOT ? recvbuf : sendbuf, count, type,
                               op, "count")))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    if (root == MPI_ROOT) {
        err = PMPI_Recv(recvbuf, count, type, 0, TAG_REDUCE, &c.remote, MPI_STATUS_IGNORE);
    } else {
        void *part, *base;
        err = reduce_in_group(&c, sendbuf, count, type, op, &part, &base);
        if (!err && c.rank == 0)
            err = PMPI_Send(part, count, type, root, TAG_REDUCE, &c.remote);
        free(base);
    }
    return err ? fail(ic, call, err, "the reduction") : MPI_SUCCESS;
}

/* Each group reduces its data to its leader; the leaders swap results,
 * receiving straight into `result` (count elements at the leader); then
 * `spread` hands the other group's result out in this group. */
static int swap_reductions(inter_ctx *c, const void *sendbuf, int count, MPI_Datatype type,
                           MPI_Op op, void *result, int tag)
{
    void *part, *base;
    int err = reduce_in_group(c, sendbuf, count, type, op, &part, &base);
    if (!err && c->rank == 0)
        err = PMPI_Sendrecv(part, count, type, 0, tag, result, count, type, 0, tag,
                            &c->remote, MPI_STATUS_IGNORE);
    free(base);
    return err;
}

static int inter_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm ic, const char *call)
{
    int err;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)) ||
        (err = check_reduction(call, ic, sendbuf, count, type, op, "count")) ||
        (err = myr_check_buffer(call, ic, recvbuf, count, type)))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    err = swap_reductions(&c, sendbuf, count, type, op, recvbuf, TAG_ALLREDUCE);
    if (!err)
        err = PMPI_Bcast(recvbuf, count, type, 0, &c.local);
    return err ? fail(ic, call, err, "the reduction") : MPI_SUCCESS;
}

/* Reduce_scatter(_block): the other group's reduction, of as many elements
 * as this group's counts add up to, scattered over this group by them.
 * counts NULL: `block` elements for every rank. */
static int inter_reduce_scatter(const void *sendbuf, void *recvbuf, const int *counts,
                             int block, MPI_Datatype type, MPI_Op op, MPI_Comm ic,
                             const char *call)
{
    int err;
    if ((err = check_not_in_place(call, ic, sendbuf, recvbuf)))
        return err;
    if (!counts && (err = myr_check_count(call, ic, "recvcount", block)))
        return err;
    if (counts)
        for (int i = 0; i < ic->size; i++)
            if (counts[i] < 0)
                return myr_mpi_error(ic, MPI_ERR_COUNT, call,
                                     "recvcounts[%d] is %d (must be >= 0)", i, counts[i]);
    long long total = 0;
    for (int i = 0; i < ic->size; i++)
        total += counts ? counts[i] : block;
    if (total > INT32_MAX)
        return myr_mpi_error(ic, MPI_ERR_COUNT, call,
                             "the counts add up to %lld elements (more than an int holds)",
                             total);
    int mine = counts ? counts[ic->rank] : block;
    if ((err = check_reduction(call, ic, sendbuf, (int)total, type, op, "recvcounts")) ||
        (err = myr_check_buffer(call, ic, recvbuf, mine, type)))
        return err;
    inter_ctx c;
    inter_ctx_init(&c, ic);
    /* The leader holds the whole result, and the displacements to scatter
     * it by (allocated before any communication). */
    void *whole = NULL, *base = NULL;
    int *displs = NULL;
    if (c.rank == 0 && (!(whole = typed_buffer((int)total, type, &base)) ||
                        (counts && !(displs = malloc((size_t)c.size * sizeof *displs))))) {
        free(base);
        return myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0, d = 0; displs && i < c.size; d += counts[i++])
        displs[i] = d;
    err = swap_reductions(&c, sendbuf, (int)total, type, op, whole, TAG_REDUCE_SCATTER);
    if (!err)
        err = counts ? PMPI_Scatterv(whole, counts, displs, type, recvbuf, mine, type, 0,
                                     &c.local)
                     : PMPI_Scatter(whole, block, type, recvbuf, block, type, 0, &c.local);
    free(displs);
    free(base);
    return err ? fail(ic, call, err, "the reduction") : MPI_SUCCESS;
}

/* ---- dispatch ------------------------------------------------------------- */

int myr_inter_coll(const char *call, MPI_Comm ic, const myr_coll_args *a)
{
    bool vector_null = (a->kind == MYR_COLL_GATHERV && a->root == MPI_ROOT && !a->rcounts) ||
                       (a->kind == MYR_COLL_SCATTERV && a->root == MPI_ROOT && !a->scounts) ||
                       (a->kind == MYR_COLL_ALLGATHERV && !a->rcounts);
    if (vector_null)
        return myr_mpi_error(ic, MPI_ERR_ARG, call, "%s is NULL",
                             a->kind == MYR_COLL_SCATTERV ? "sendcounts" : "recvcounts");
    switch (a->kind) {
    case MYR_COLL_BARRIER:
        return inter_barrier(ic, call);
    case MYR_COLL_BCAST:
        return inter_bcast(a->rbuf, a->count, a->type, a->root, ic, call);
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV:
        return inter_gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                             a->rcount, a->rtype, a->root, ic, call);
    case MYR_COLL_SCATTER:
    case MYR_COLL_SCATTERV:
        return inter_scatterv(a->sbuf, a->scounts, a->sdispls, a->scount, a->stype, a->rbuf,
                              a->rcount, a->rtype, a->root, ic, call);
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        return inter_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                                a->rcount, a->rtype, ic, call);
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW: {
        if (a->kind != MYR_COLL_ALLTOALL && (!a->scounts || !a->rcounts))
            return myr_mpi_error(ic, MPI_ERR_ARG, call, "%s is NULL",
                                 a->scounts ? "recvcounts" : "sendcounts");
        bool w = a->kind == MYR_COLL_ALLTOALLW;
        block_plan send = {.buf = a->sbuf, .counts = a->scounts, .displs = a->sdispls,
                           .displs_in_bytes = w, .count = a->scount, .type = a->stype,
                           .types = a->stypes};
        block_plan recv = {.buf = a->rbuf, .counts = a->rcounts, .displs = a->rdispls,
                           .displs_in_bytes = w, .count = a->rcount, .type = a->rtype,
                           .types = a->rtypes};
        return inter_alltoall_blocks(&send, &recv, ic, call);
    }
    case MYR_COLL_REDUCE:
        return inter_reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, ic, call);
    case MYR_COLL_ALLREDUCE:
        return inter_allreduce(a->sbuf, a->rbuf, a->count, a->type, a->op, ic, call);
    case MYR_COLL_REDUCE_SCATTER:
        if (!a->rcounts)
            return myr_mpi_error(ic, MPI_ERR_ARG, call, "recvcounts is NULL");
        return inter_reduce_scatter(a->sbuf, a->rbuf, a->rcounts, 0, a->type, a->op, ic, call);
    case MYR_COLL_REDUCE_SCATTER_BLOCK:
        return inter_reduce_scatter(a->sbuf, a->rbuf, NULL, a->count, a->type, a->op, ic, call);
    default:
        /* MPI 3.1, 5.11: no scans on intercommunicators. */
        return myr_mpi_error(ic, MPI_ERR_COMM, call,
                             "%s is defined on intracommunicators only, not on an "
                             "intercommunicator", call);
    }
}
