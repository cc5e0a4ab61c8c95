/*
 * procs.c — the collectives of MPI_COMM_WORLD when the job spans several
 * OS processes (net/net.h).
 *
 * Barrier, Bcast, Reduce and Allreduce follow the hierarchy: the ranks of
 * each process first combine through shared memory (a round of the
 * process's own communicator, round.c), then one leader per process (its
 * first rank) runs the inter-process part with point-to-point messages on
 * a context of the library's own, then the result fans back out in shared
 * memory. Bcast and Reduce cross the network once per other process (a
 * binomial tree over processes); a reduction keeps MPI's rank order for
 * non-commutative ops because ranks are numbered process by process and
 * the tree combines neighbouring blocks of processes, lower first.
 *
 * The other collectives are correct but plain for now: linear or
 * pairwise point-to-point among all ranks (collocated pairs still copy
 * once, through p2p.c), built on the four above where that is simpler.
 * Making all of them hierarchical, and collectives of communicators that
 * span processes, is the next step (issue 18).
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/p2p.h"
#include "net/net.h"

/* Point-to-point among the job's ranks on a context no user message
 * uses (job ranks as on MPI_COMM_WORLD). */
static struct myr_mpi_comm library_world = {
    .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_WORLD, .context_id = MYR_CONTEXT_LIBRARY,
    .name = "MPI_COMM_WORLD (library)"};

enum {
    TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_RESULT, TAG_GATHER, TAG_SCATTER,
    TAG_ALLTOALL, TAG_SCAN,
};

/* ---- the process's communicator -------------------------------------------- */

/* One handle per rank of this process onto a communicator of its ranks
 * only, whose rounds are the shared-memory level. Built by the first
 * collective of the job (every process builds its own at the same point,
 * so the context ids they count stay in step). */
static MPI_Comm *proc_comms;
static myr_spinlock proc_comms_lock;

static MPI_Comm proc_comm(myr_rank *self)
{
    MPI_Comm *all = __atomic_load_n(&proc_comms, __ATOMIC_ACQUIRE);
    if (__builtin_expect(all == NULL, 0)) {
        myr_spin_lock(&proc_comms_lock);
        all = proc_comms;
        if (!all) {
            int n = myr_the_job.local;
            myr_rankmap *map = myr_rankmap_new(n);
            all = map ? calloc((size_t)n, sizeof *all) : NULL;
            myr_comm_shared *sh = NULL;
            if (all) {
                for (int i = 0; i < n; i++)
                    map->world[i] = myr_the_job.first + i;
                sh = coll_shared_build(map, n);
            } else if (map) {
                myr_rankmap_release(map);
            }
            for (int i = 0; sh && i < n; i++)
                if (!(all[i] = myr_comm_handle_new(sh, i)))
                    sh = NULL;
            if (!sh) {
                fprintf(stderr, "myriad: out of memory for the process's communicator\n");
                abort();
            }
            library_world.size = myr_the_job.size;
            __atomic_store_n(&proc_comms, all, __ATOMIC_RELEASE);
        }
        myr_spin_unlock(&proc_comms_lock);
    }
    return all[self->world_rank - myr_the_job.first];
}

/* ---- point-to-point on the library's context ------------------------------- */

static int lib_send(myr_rank *self, const void *buf, int count, MPI_Datatype type, int to,
                    int tag)
{
    int err = myr_p2p_send_blocking(self, buf, count, type, to, tag, &library_world,
                                    MYR_MODE_STANDARD);
    if (err != MYR_P2P_NEEDS_REQUEST)
        return err;
    struct myr_mpi_request r;
    myr_request_init_solo(&r, self, MYR_REQ_SEND);
    r.sbuf = buf;
    r.count = count;
    r.type = type;
    r.peer = to;
    r.tag = tag;
    r.comm = &library_world;
    r.mode = MYR_MODE_STANDARD;
    err = myr_p2p_start_send(&r);
    if (!err)
        myr_request_wait(self, &r);
    return err ? err : r.status.MPI_ERROR;
}

static int recv_result(const struct myr_mpi_request *r, const char **why)
{
    if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE)
        *why = "a rank received more data than its buffer holds (the ranks' counts "
               "or types disagree)";
    else if (r->status.MPI_ERROR)
        *why = "a message between OS processes failed";
    return r->status.MPI_ERROR;
}

static int lib_recv(myr_rank *self, void *buf, int count, MPI_Datatype type, int from,
                    int tag, const char **why)
{
    _Alignas(64) struct myr_mpi_request r;
    myr_p2p_recv_blocking(self, &r, buf, count, type, from, tag, &library_world);
    return recv_result(&r, why);
}

/* A receive left running while the caller sends (pairwise exchanges). */
static struct myr_mpi_request *lib_irecv(myr_rank *self, void *buf, int count,
                                         MPI_Datatype type, int from, int tag)
{
    struct myr_mpi_request *r = aligned_alloc(64, sizeof *r);
    if (!r)
        return NULL;
    myr_request_init(r, self, MYR_REQ_RECV);   /* not `heap`: no references to drop */
    myr_request_set_recv(r, buf, count, type, from, tag, &library_world);
    myr_p2p_start_recv(r);
    return r;
}

static int lib_wait(myr_rank *self, struct myr_mpi_request *r, const char **why)
{
    myr_request_wait(self, r);
    int err = recv_result(r, why);
    myr_request_release(r);
    free(r);
    return err;
}

/* ---- helpers ---------------------------------------------------------------- */

static const myr_net_place *place(void)
{
    return &myr_net_the_place;
}

static int leader_of(int proc)
{
    return (int)place()->proc_first[proc];
}

static bool is_leader(const myr_rank *self)
{
    return self->world_rank == myr_the_job.first;
}

/* Room for `count` elements of `type` laid out as in a user buffer:
 * returns where element 0 goes; *block is what to free. */
static void *buffer_for(MPI_Datatype type, int count, void **block)
{
    size_t span = count > 0 ? (size_t)((MPI_Aint)(count - 1) * type->extent +
                                       (type->true_ub - type->true_lb))
                            : 0;
    *block = malloc(span ? span : 1);
    return *block ? (char *)*block - type->true_lb : NULL;
}

static int no_memory(const char **why)
{
    *why = "out of memory for a collective across OS processes";
    return MPI_ERR_NO_MEM;
}

static void *at(const void *buf, MPI_Datatype type, long elements)
{
    return (char *)buf + elements * type->extent;
}

/* Copy count elements of stype at src into dtype elements at dst (the
 * type signatures agree: MPI says so). */
static void move(void *dst, MPI_Datatype dtype, const void *src, int count,
                 MPI_Datatype stype)
{
    size_t bytes = (size_t)count * stype->size;
    if (bytes)
        myr_datatype_transfer(dst, dtype, src, stype, bytes);
}

/* A local collective on the process's communicator. */
static int local(myr_rank *self, myr_coll_args a, const char **why)
{
    a.nonblocking = false;
    return myr_coll_run(proc_comm(self), self, &a, why);
}

/* ---- the hierarchical four ------------------------------------------------- */

static int barrier(myr_rank *self, const char **why)
{
    MPI_Comm pc = proc_comm(self);
    int err = myr_coll_barrier(pc, self, why);
    if (err)
        return err;
    if (is_leader(self)) {
        /* Dissemination among the leaders: log2(P) rounds. */
        int n = place()->nprocs, p = place()->proc;
        for (int k = 1; k < n && !err; k <<= 1) {
            err = lib_send(self, NULL, 0, MPI_BYTE, leader_of((p + k) % n), TAG_BARRIER);
            if (!err)
                err = lib_recv(self, NULL, 0, MPI_BYTE, leader_of((p - k + n) % n),
                               TAG_BARRIER, why);
        }
        if (err)
            return err;
    }
    return myr_coll_barrier(pc, self, why);
}

/* The leaders' binomial broadcast over processes from process `rp`. */
static int leaders_bcast(myr_rank *self, void *buf, int count, MPI_Datatype type, int rp,
                         const char **why)
{
    int n = place()->nprocs, v = (place()->proc - rp + n) % n;
    int mask = 1, err = MPI_SUCCESS;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            err = lib_recv(self, buf, count, type, leader_of((v - mask + rp) % n), TAG_BCAST,
                           why);
            break;
        }
    for (mask >>= 1; mask > 0 && !err; mask >>= 1)
        if (v + mask < n)
            err = lib_send(self, buf, count, type, leader_of((v + mask + rp) % n), TAG_BCAST);
    return err;
}

static int bcast(myr_rank *self, void *buf, int count, MPI_Datatype type, int root,
                 const char **why)
{
    int rp = myr_net_proc_of(root);
    bool root_here = rp == place()->proc;
    myr_coll_args a = {.kind = MYR_COLL_BCAST, .rbuf = buf, .count = count, .type = type,
                       .root = root - myr_the_job.first};
    int err = MPI_SUCCESS;
    if (root_here && (err = local(self, a, why)))   /* the leader has it now */
        return err;
    if (is_leader(self) && (err = leaders_bcast(self, buf, count, type, rp, why)))
        return err;
    if (!root_here) {
        a.root = 0;
        err = local(self, a, why);
    }
    return err;
}

/* The leaders' reduction of their processes' partial results (at acc,
 * count elements of type) to process 0, keeping rank order: on return
 * process 0's *acc holds the result. */
static int leaders_reduce(myr_rank *self, void **acc, int count, MPI_Datatype type,
                          MPI_Op op, const char **why)
{
    int n = place()->nprocs, p = place()->proc;
    void *block;
    void *other = buffer_for(type, count, &block);
    if (!other)
        return no_memory(why);
    int err = MPI_SUCCESS;
    for (int mask = 1; mask < n && !err; mask <<= 1) {
        if (p & mask) {
            err = lib_send(self, *acc, count, type, leader_of(p - mask), TAG_REDUCE);
            break;
        }
        if (p + mask < n) {
            /* other = acc (lower ranks) op other (the next block up). */
            err = lib_recv(self, other, count, type, leader_of(p + mask), TAG_REDUCE, why);
            if (!err) {
                myr_op_reduce(op, type, (size_t)count, *acc, other);
                move(*acc, type, other, count, type);
            }
        }
    }
    free(block);
    return err;
}

/* Reduce (to `root`, or to everyone when root < 0). */
static int reduce(myr_rank *self, const void *sbuf, void *rbuf, int count,
                  MPI_Datatype type, MPI_Op op, int root, const char **why)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    bool leader = is_leader(self);
    void *block = NULL;
    void *acc = leader ? buffer_for(type, count, &block) : NULL;
    if (leader && !acc)
        return no_memory(why);
    myr_coll_args a = {.kind = MYR_COLL_REDUCE, .sbuf = in, .rbuf = acc, .count = count,
                       .type = type, .op = op, .root = 0};
    int err = local(self, a, why);
    if (!err && leader)
        err = leaders_reduce(self, &acc, count, type, op, why);
    if (root < 0) {
        /* Allreduce: process 0's result to every leader, then fanned out. */
        if (!err && leader)
            err = leaders_bcast(self, acc, count, type, 0, why);
        if (!err && leader)
            move(rbuf, type, acc, count, type);
        if (!err) {
            myr_coll_args b = {.kind = MYR_COLL_BCAST, .rbuf = rbuf, .count = count,
                               .type = type, .root = 0};
            err = local(self, b, why);
        }
    } else if (!err) {
        int from = leader_of(0);
        if (self->world_rank == from && root == from)
            move(rbuf, type, acc, count, type);
        else if (self->world_rank == from)
            err = lib_send(self, acc, count, type, root, TAG_RESULT);
        else if (self->world_rank == root)
            err = lib_recv(self, rbuf, count, type, from, TAG_RESULT, why);
    }
    free(block);
    return err;
}

/* ---- the others: plain point-to-point ---------------------------------------- */

static int gatherv(myr_rank *self, const myr_coll_args *a, int me, int n,
                   const int *rcounts, const int *rdispls, const char **why)
{
    if (me != a->root)
        return lib_send(self, a->sbuf, a->scount, a->stype, a->root, TAG_GATHER);
    for (int i = 0; i < n; i++) {
        void *dst = at(a->rbuf, a->rtype, rdispls ? rdispls[i] : (long)i * a->rcount);
        int cnt = rcounts ? rcounts[i] : a->rcount;
        int err = MPI_SUCCESS;
        if (i != me)
            err = lib_recv(self, dst, cnt, a->rtype, i, TAG_GATHER, why);
        else if (a->sbuf != MPI_IN_PLACE)
            move(dst, a->rtype, a->sbuf, a->scount, a->stype);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

static int scatterv(myr_rank *self, const myr_coll_args *a, int me, int n,
                    const int *scounts, const int *sdispls, const char **why)
{
    if (me != a->root)
        return lib_recv(self, a->rbuf, a->rcount, a->rtype, a->root, TAG_SCATTER, why);
    for (int i = 0; i < n; i++) {
        const void *src = at(a->sbuf, a->stype, sdispls ? sdispls[i] : (long)i * a->scount);
        int cnt = scounts ? scounts[i] : a->scount;
        int err = MPI_SUCCESS;
        if (i != me)
            err = lib_send(self, src, cnt, a->stype, i, TAG_SCATTER);
        else if (a->rbuf != MPI_IN_PLACE)
            move(a->rbuf, a->rtype, src, cnt, a->stype);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

/* Gather to rank 0, then a broadcast of every block. */
static int allgatherv(myr_rank *self, const myr_coll_args *a, int me, int n,
                      const char **why)
{
    myr_coll_args g = *a;
    g.root = 0;
    if (a->sbuf == MPI_IN_PLACE && me != 0) {
        /* A rank's block is already where MPI says in its rbuf. */
        g.sbuf = at(a->rbuf, a->rtype, a->rdispls ? a->rdispls[me] : (long)me * a->rcount);
        g.scount = a->rcounts ? a->rcounts[me] : a->rcount;
        g.stype = a->rtype;
    }
    int err = gatherv(self, &g, me, n, a->rcounts, a->rdispls, why);
    if (err)
        return err;
    if (!a->rcounts)
        return bcast(self, a->rbuf, a->rcount * n, a->rtype, 0, why);
    for (int i = 0; i < n && !err; i++)
        err = bcast(self, at(a->rbuf, a->rtype, a->rdispls[i]), a->rcounts[i], a->rtype, 0,
                    why);
    return err;
}

/* Every pair exchanges its blocks: all receives posted, then the sends
 * (from the next rank on, so that not every rank starts at rank 0). */
static int alltoallw(myr_rank *self, const myr_coll_args *a, int me, int n,
                     const char **why)
{
    const void *sbuf = a->sbuf;
    void *copy = NULL;
    MPI_Datatype const *stypes = a->stypes;
    const int *scounts = a->scounts, *sdispls = a->sdispls;
    bool w = a->kind == MYR_COLL_ALLTOALLW;
    if (sbuf == MPI_IN_PLACE) {
        /* Send what rbuf holds before the receives overwrite it. */
        size_t span = 0;
        for (int i = 0; i < n; i++) {
            MPI_Datatype t = w ? a->rtypes[i] : a->rtype;
            int cnt = a->rcounts ? a->rcounts[i] : a->rcount;
            long off = w ? a->rdispls[i] : (long)(a->rdispls ? a->rdispls[i] : i * a->rcount) *
                                                t->extent;
            size_t end = cnt ? (size_t)(off + (MPI_Aint)(cnt - 1) * t->extent + t->true_ub) : 0;
            span = end > span ? end : span;
        }
        copy = malloc(span ? span : 1);
        if (!copy)
            return no_memory(why);
        memcpy(copy, a->rbuf, span);
        sbuf = copy;
        stypes = a->rtypes;
        scounts = a->rcounts;
        sdispls = a->rdispls;
    }
    struct myr_mpi_request **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs) {
        free(copy);
        return no_memory(why);
    }
    int err = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        MPI_Datatype t = w ? a->rtypes[i] : a->rtype;
        int cnt = a->rcounts ? a->rcounts[i] : a->rcount;
        void *dst = w ? (char *)a->rbuf + a->rdispls[i]
                      : at(a->rbuf, t, a->rdispls ? a->rdispls[i] : (long)i * a->rcount);
        reqs[i] = lib_irecv(self, dst, cnt, t, i, TAG_ALLTOALL);
        if (!reqs[i])
            err = MPI_ERR_NO_MEM;
    }
    for (int k = 0; k < n && !err; k++) {
        int i = (me + k) % n;
        bool in_place = a->sbuf == MPI_IN_PLACE;
        MPI_Datatype t = w ? stypes[i] : (in_place ? a->rtype : a->stype);
        int cnt = scounts ? scounts[i] : (in_place ? a->rcount : a->scount);
        const void *src = w ? (const char *)sbuf + sdispls[i]
                            : at(sbuf, t, sdispls ? sdispls[i] : (long)i * cnt);
        err = lib_send(self, src, cnt, t, i, TAG_ALLTOALL);
    }
    for (int i = 0; i < n; i++)
        if (reqs[i]) {
            int e = lib_wait(self, reqs[i], why);
            err = err ? err : e;
        }
    if (err == MPI_ERR_NO_MEM)
        no_memory(why);
    free(reqs);
    free(copy);
    return err;
}

/* Inclusive (or exclusive) prefix reduction along the ranks. */
static int scan(myr_rank *self, const myr_coll_args *a, int me, int n, bool exclusive,
                const char **why)
{
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *block;
    void *tmp = buffer_for(a->type, a->count, &block);
    if (!tmp)
        return no_memory(why);
    int err = MPI_SUCCESS;
    if (!exclusive) {
        if (in != a->rbuf)
            move(a->rbuf, a->type, in, a->count, a->type);
        if (me > 0 && !(err = lib_recv(self, tmp, a->count, a->type, me - 1, TAG_SCAN, why)))
            myr_op_reduce(a->op, a->type, (size_t)a->count, tmp, a->rbuf);
        if (!err && me + 1 < n)
            err = lib_send(self, a->rbuf, a->count, a->type, me + 1, TAG_SCAN);
    } else {
        /* tmp: the prefix through this rank, for the next one. */
        move(tmp, a->type, in, a->count, a->type);
        if (me > 0 && !(err = lib_recv(self, a->rbuf, a->count, a->type, me - 1, TAG_SCAN,
                                       why)))
            myr_op_reduce(a->op, a->type, (size_t)a->count, a->rbuf, tmp);
        if (!err && me + 1 < n)
            err = lib_send(self, tmp, a->count, a->type, me + 1, TAG_SCAN);
    }
    free(block);
    return err;
}

/* Reduce the whole vector to rank 0, then scatter its blocks. */
static int reduce_scatter(myr_rank *self, const myr_coll_args *a, int me, int n,
                          const char **why)
{
    bool block_form = a->kind == MYR_COLL_REDUCE_SCATTER_BLOCK;
    long total = 0;
    int *displs = block_form ? NULL : malloc((size_t)n * sizeof *displs);
    if (!block_form && !displs)
        return no_memory(why);
    for (int i = 0; i < n; i++) {
        if (displs)
            displs[i] = (int)total;
        total += block_form ? a->count : a->rcounts[i];
    }
    void *block = NULL;
    void *whole = me == 0 ? buffer_for(a->type, (int)total, &block) : NULL;
    int err = me == 0 && !whole ? no_memory(why) : MPI_SUCCESS;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (!err)
        err = reduce(self, in, whole, (int)total, a->type, a->op, 0, why);
    if (!err) {
        myr_coll_args s = {.kind = MYR_COLL_SCATTERV, .root = 0, .sbuf = whole,
                           .stype = a->type, .scount = a->count, .rbuf = a->rbuf,
                           .rtype = a->type, .rcount = block_form ? a->count : a->rcounts[me]};
        err = scatterv(self, &s, me, n, block_form ? NULL : a->rcounts, displs, why);
    }
    free(block);
    free(displs);
    return err;
}

int coll_procs_run(myr_rank *self, const myr_coll_args *a, const char **why)
{
    self->coll_comm = MPI_COMM_WORLD;
    if (!a)
        return barrier(self, why);
    int me = self->world_rank, n = myr_the_job.size;
    switch (a->kind) {
    case MYR_COLL_BARRIER: return barrier(self, why);
    case MYR_COLL_BCAST: return bcast(self, a->rbuf, a->count, a->type, a->root, why);
    case MYR_COLL_REDUCE:
        return reduce(self, a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, why);
    case MYR_COLL_ALLREDUCE:
        return reduce(self, a->sbuf, a->rbuf, a->count, a->type, a->op, -1, why);
    case MYR_COLL_GATHER: return gatherv(self, a, me, n, NULL, NULL, why);
    case MYR_COLL_GATHERV: return gatherv(self, a, me, n, a->rcounts, a->rdispls, why);
    case MYR_COLL_SCATTER: return scatterv(self, a, me, n, NULL, NULL, why);
    case MYR_COLL_SCATTERV: return scatterv(self, a, me, n, a->scounts, a->sdispls, why);
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV: return allgatherv(self, a, me, n, why);
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW: return alltoallw(self, a, me, n, why);
    case MYR_COLL_SCAN: return scan(self, a, me, n, false, why);
    case MYR_COLL_EXSCAN: return scan(self, a, me, n, true, why);
    case MYR_COLL_REDUCE_SCATTER:
    case MYR_COLL_REDUCE_SCATTER_BLOCK: return reduce_scatter(self, a, me, n, why);
    default:
        *why = "this collective does not work across OS processes yet";
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
}
