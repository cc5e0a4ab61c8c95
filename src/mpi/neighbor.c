/*
 * neighbor.c — neighbour collectives on Cartesian, graph and distributed
 * graph communicators, blocking and nonblocking (MPI-3.1 7.6, 7.7):
 * point-to-point on a private copy of the handle whose context id carries
 * MYR_CONTEXT_LIBRARY, so no user message matches. In a Cartesian grid
 * the neighbours are, per dimension, the -1 then the +1 shift neighbour;
 * a message is tagged with its position in the sender's list, so a
 * neighbour met twice (a periodic dimension of size 1 or 2) still gets
 * each block in its place. In a (distributed) graph a neighbour met twice
 * is matched by MPI's non-overtaking order, which is what the standard
 * prescribes there.
 *
 * Every form reduces to one list of blocks — (displacement in bytes,
 * count, type) per in-neighbour, then per out-neighbour — computed and
 * checked at the call. The I-forms hand that list to the nonblocking
 * engine (coll/nbc.c), which runs the same exchange on a ULT acting for
 * the rank, in call order with its other collectives on the
 * communicator; the blocking forms first let those finish.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    MPI_Aint disp;          /* bytes from the side's buffer */
    int count;
    MPI_Datatype type;      /* MPI_BYTE for an empty block of any type */
} block;

/* A call's exchange: owns `peers` (in-neighbours then out-neighbours)
 * and `blocks` (same order), one allocation; its types hold references
 * while it is queued. */
typedef struct {
    const char *call;
    const void *sendbuf;
    void *recvbuf;
    int nin, nout;
    bool cart;
    int *peers;
    block *blocks;
} exchange;

/* How one side of a call lays its blocks out. */
typedef enum {
    SIDE_SAME,      /* one block, the same for every neighbour (allgather's send) */
    SIDE_STRIDED,   /* count elements per neighbour, one after another */
    SIDE_V,         /* counts[i] elements at displs[i] extents */
    SIDE_W,         /* counts[i] elements of types[i] at wdispls[i] bytes */
} side_kind;

typedef struct {
    side_kind kind;
    const void *buf;
    int count;
    MPI_Datatype type;
    const int *counts, *displs;
    const MPI_Aint *wdispls;
    const MPI_Datatype *types;
    const char *name;       /* "send" or "recv", for messages */
} side;

/* The neighbour lists of the calling rank in `comm`, into x->peers (with
 * room for the blocks behind them). */
static int neighbours_of(const char *call, MPI_Comm comm, myr_rank *self, exchange *x)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    const myr_topo *t = comm->topo;
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no topology (Cartesian, graph or distributed "
                             "graph)");
    int me = myr_comm_rank(comm, self), first = 0;
    x->cart = t->kind == MYR_TOPO_CART;
    if (t->kind == MYR_TOPO_CART) {
        x->nin = x->nout = 2 * t->ndims;
    } else if (t->kind == MYR_TOPO_GRAPH) {
        first = me ? t->index[me - 1] : 0;
        x->nin = x->nout = t->index[me] - first;
    } else {
        x->nin = t->indegree;
        x->nout = t->outdegree;
    }
    size_t n = (size_t)x->nin + (size_t)x->nout;
    size_t peer_bytes = (n * sizeof(int) + _Alignof(block) - 1) / _Alignof(block) * _Alignof(block);
    x->peers = malloc(peer_bytes + n * sizeof(block) + 1);
    if (!x->peers)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu neighbours", n);
    x->blocks = (block *)((char *)x->peers + peer_bytes);
    int *in = x->peers, *out = x->peers + x->nin;
    if (t->kind == MYR_TOPO_CART) {
        for (int d = 0; d < t->ndims; d++) {
            int stride = 1;
            for (int j = d + 1; j < t->ndims; j++)
                stride *= t->dims[j];
            int c = me / stride % t->dims[d], dim = t->dims[d];
            for (int k = 0; k < 2; k++) {
                int to = c + (k ? 1 : -1);
                if (t->periods[d])
                    to = (to + dim) % dim;
                in[2 * d + k] = out[2 * d + k] =
                    to < 0 || to >= dim ? MPI_PROC_NULL : me + (to - c) * stride;
            }
        }
    } else if (t->kind == MYR_TOPO_GRAPH) {
        for (int i = 0; i < x->nin; i++)
            in[i] = out[i] = t->edges[first + i];
    } else {
        for (int i = 0; i < x->nin; i++)
            in[i] = t->sources[i];
        for (int i = 0; i < x->nout; i++)
            out[i] = t->destinations[i];
    }
    return MPI_SUCCESS;
}

/* Fill n blocks of one side, checking every argument MPI lets us. */
static int side_blocks(const char *call, MPI_Comm comm, const side *s, int n, block *b)
{
    char what[32];
    int err;
    if (s->buf == MPI_IN_PLACE)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as %sbuf of a neighbour collective",
                             s->name);
    if (s->kind == SIDE_SAME || s->kind == SIDE_STRIDED) {
        snprintf(what, sizeof what, "%scount", s->name);
        if ((err = myr_check_count(call, comm, what, s->count)) ||
            (err = myr_check_type(call, comm, s->type)) ||
            (err = myr_check_buffer(call, comm, s->buf, s->count, s->type)))
            return err;
        MPI_Aint lb, extent;
        PMPI_Type_get_extent(s->type, &lb, &extent);
        for (int i = 0; i < n; i++)
            b[i] = (block){.disp = s->kind == SIDE_SAME ? 0 : i * extent * s->count,
                           .count = s->count, .type = s->type};
        return MPI_SUCCESS;
    }
    if (n == 0)
        return MPI_SUCCESS;   /* the arrays may be anything, even NULL */
    snprintf(what, sizeof what, "%scounts", s->name);
    if ((err = myr_check_pointer(call, comm, s->counts, what)))
        return err;
    snprintf(what, sizeof what, "%sdispls", s->name);
    if ((err = myr_check_pointer(call, comm,
                                 s->kind == SIDE_V ? (const void *)s->displs
                                                   : (const void *)s->wdispls,
                                 what)))
        return err;
    MPI_Aint lb, extent = 0;
    if (s->kind == SIDE_V) {
        if ((err = myr_check_type(call, comm, s->type)))
            return err;
        PMPI_Type_get_extent(s->type, &lb, &extent);
    } else {
        snprintf(what, sizeof what, "%stypes", s->name);
        if ((err = myr_check_pointer(call, comm, s->types, what)))
            return err;
    }
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof what, "%scounts[%d]", s->name, i);
        if ((err = myr_check_count(call, comm, what, s->counts[i])))
            return err;
        MPI_Datatype type = s->kind == SIDE_V ? s->type : s->types[i];
        if (s->counts[i] == 0) {
            /* An empty block still travels (the peer expects a message),
             * whatever type it names. */
            b[i] = (block){.disp = 0, .count = 0, .type = MPI_BYTE};
            continue;
        }
        if (s->kind == SIDE_W && (err = myr_check_type(call, comm, type)))
            return err;
        if ((err = myr_check_buffer(call, comm, s->buf, s->counts[i], type)))
            return err;
        b[i] = (block){.disp = s->kind == SIDE_V ? s->displs[i] * extent : s->wdispls[i],
                       .count = s->counts[i], .type = type};
    }
    return MPI_SUCCESS;
}

static void for_each_type(const exchange *x, void (*fn)(MPI_Datatype))
{
    for (int i = 0; i < x->nin + x->nout; i++)
        fn(x->blocks[i].type);
}

static void retain_type(MPI_Datatype t)
{
    myr_datatype_retain(t);
}

static void release_type(MPI_Datatype t)
{
    myr_datatype_release(t);
}

/* Post every receive, then every send, and wait for them all. Runs on
 * the calling rank's ULT (blocking forms) or on the engine's runner. */
static int run_exchange(MPI_Comm comm, const exchange *x)
{
    struct myr_mpi_comm library = *comm;
    library.context_id = comm->context_id | MYR_CONTEXT_LIBRARY;
    int total = x->nin + x->nout;
    MPI_Request *reqs = malloc(((size_t)total + 1) * sizeof *reqs);
    if (!reqs)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, x->call, "out of memory");
    const int *in = x->peers, *out = x->peers + x->nin;
    const block *rb = x->blocks, *sb = x->blocks + x->nin;
    int n = 0, err = MPI_SUCCESS;
    for (int i = 0; i < x->nin && !err; i++)
        err = PMPI_Irecv((char *)x->recvbuf + rb[i].disp, rb[i].count, rb[i].type, in[i],
                         x->cart ? i ^ 1 : 0, &library, &reqs[n++]);
    for (int j = 0; j < x->nout && !err; j++)
        err = PMPI_Isend((const char *)x->sendbuf + sb[j].disp, sb[j].count, sb[j].type,
                         out[j], x->cart ? j : 0, &library, &reqs[n++]);
    if (err)
        n--;   /* the failed call left no request */
    int done = PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return err ? err : done;
}

static int nb_run(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    (void)self;
    int err = run_exchange(comm, args);
    if (err)
        *why = "the exchange with the neighbours failed";
    return err;
}

static void nb_cleanup(void *args)
{
    exchange *x = args;
    for_each_type(x, release_type);
    free(x->peers);
}

/* The body of every form (nb: the I-forms, which start *request). */
static int neighbor_start(const char *call, MPI_Comm comm, const side *send,
                          const side *recv, bool nb, MPI_Request *request)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    exchange x = {.call = call, .sendbuf = send->buf, .recvbuf = (void *)recv->buf};
    if ((err = neighbours_of(call, comm, self, &x)))
        return err;
    if ((err = side_blocks(call, comm, recv, x.nin, x.blocks)) ||
        (err = side_blocks(call, comm, send, x.nout, x.blocks + x.nin)) ||
        (nb && (err = myr_check_pointer(call, comm, request, "request")))) {
        free(x.peers);
        return err;
    }
    if (!nb) {
        myr_coll_nb_drain(comm, self);   /* the rank's earlier I-forms first */
        err = run_exchange(comm, &x);
        free(x.peers);
        return err;
    }
    for_each_type(&x, retain_type);   /* the user may free them before completion */
    /* On failure the engine has already called nb_cleanup. */
    if ((err = myr_coll_nb_start(comm, self, call, nb_run, &x, sizeof x, nb_cleanup, request)))
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}

#define SAME(b, c, t) {.kind = SIDE_SAME, .buf = (b), .count = (c), .type = (t), .name = "send"}
#define STRIDED(b, c, t, n) {.kind = SIDE_STRIDED, .buf = (b), .count = (c), .type = (t), .name = n}
#define VSIDE(b, c, d, t, n)                                                                  \
    {.kind = SIDE_V, .buf = (b), .counts = (c), .displs = (d), .type = (t), .name = n}
#define WSIDE(b, c, d, t, n)                                                                  \
    {.kind = SIDE_W, .buf = (b), .counts = (c), .wdispls = (d), .types = (t), .name = n}

static int allgather(const char *call, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm, bool nb, MPI_Request *request)
{
    side s = SAME(sendbuf, sendcount, sendtype);
    side r = STRIDED(recvbuf, recvcount, recvtype, "recv");
    return neighbor_start(call, comm, &s, &r, nb, request);
}

static int allgatherv(const char *call, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                      bool nb, MPI_Request *request)
{
    side s = SAME(sendbuf, sendcount, sendtype);
    side r = VSIDE(recvbuf, recvcounts, displs, recvtype, "recv");
    return neighbor_start(call, comm, &s, &r, nb, request);
}

static int alltoall(const char *call, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, bool nb, MPI_Request *request)
{
    side s = STRIDED(sendbuf, sendcount, sendtype, "send");
    side r = STRIDED(recvbuf, recvcount, recvtype, "recv");
    return neighbor_start(call, comm, &s, &r, nb, request);
}

static int alltoallv(const char *call, const void *sendbuf, const int sendcounts[],
                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm, bool nb, MPI_Request *request)
{
    side s = VSIDE(sendbuf, sendcounts, sdispls, sendtype, "send");
    side r = VSIDE(recvbuf, recvcounts, rdispls, recvtype, "recv");
    return neighbor_start(call, comm, &s, &r, nb, request);
}

static int alltoallw(const char *call, const void *sendbuf, const int sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                     const int recvcounts[], const MPI_Aint rdispls[],
                     const MPI_Datatype recvtypes[], MPI_Comm comm, bool nb, MPI_Request *request)
{
    side s = WSIDE(sendbuf, sendcounts, sdispls, sendtypes, "send");
    side r = WSIDE(recvbuf, recvcounts, rdispls, recvtypes, "recv");
    return neighbor_start(call, comm, &s, &r, nb, request);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, false, NULL);
}
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    MYR_PMPI(Neighbor_allgather);

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, true, request);
}
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request) MYR_PMPI(Ineighbor_allgather);

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, false, NULL);
}
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) MYR_PMPI(Neighbor_allgatherv);

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, true, request);
}
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
    MYR_PMPI(Ineighbor_allgatherv);

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, false, NULL);
}
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    MYR_PMPI(Neighbor_alltoall);

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, true, request);
}
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request) MYR_PMPI(Ineighbor_alltoall);

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, false, NULL);
}
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
    MYR_PMPI(Neighbor_alltoallv);

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                     recvbuf, recvcounts, rdispls, recvtype, comm, true, request);
}
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request) MYR_PMPI(Ineighbor_alltoallv);

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                     recvbuf, recvcounts, rdispls, recvtypes, comm, false, NULL);
}
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                           void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm)
    MYR_PMPI(Neighbor_alltoallw);

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                     recvbuf, recvcounts, rdispls, recvtypes, comm, true, request);
}
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) MYR_PMPI(Ineighbor_alltoallw);
