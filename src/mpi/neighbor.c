/*
 * neighbor.c — neighbour collectives on Cartesian, graph and distributed
 * graph communicators: point-to-point on a private copy of the handle
 * whose context id carries MYR_CONTEXT_LIBRARY, so no user message
 * matches. In a Cartesian grid the neighbours are, per dimension, the -1
 * then the +1 shift neighbour; a message is tagged with its position in
 * the sender's list, so a neighbour met twice (a periodic dimension of
 * size 1 or 2) still gets each block in its place.
 */
#include "mpi/mpi_impl.h"

#include <stdlib.h>

typedef struct {
    int nin, nout;
    int *in, *out;
    bool cart;
} neighbours;

static int neighbours_of(const char *call, MPI_Comm comm, myr_rank *self, neighbours *nb)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    const myr_topo *t = comm->topo;
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no topology (Cartesian, graph or distributed "
                             "graph)");
    int me = myr_comm_rank(comm, self);
    nb->cart = t->kind == MYR_TOPO_CART;
    if (t->kind == MYR_TOPO_CART) {
        nb->nin = nb->nout = 2 * t->ndims;
        nb->in = malloc(((size_t)nb->nin + 1) * sizeof(int));
        if (!nb->in)
            return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        nb->out = nb->in;
        for (int d = 0; d < t->ndims; d++) {
            int stride = 1;
            for (int j = d + 1; j < t->ndims; j++)
                stride *= t->dims[j];
            int c = me / stride % t->dims[d], n = t->dims[d];
            for (int k = 0; k < 2; k++) {
                int to = c + (k ? 1 : -1);
                if (t->periods[d])
                    to = (to + n) % n;
                nb->in[2 * d + k] =
                    to < 0 || to >= n ? MPI_PROC_NULL : me + (to - c) * stride;
            }
        }
    } else if (t->kind == MYR_TOPO_GRAPH) {
        int first = me ? t->index[me - 1] : 0;
        nb->nin = nb->nout = t->index[me] - first;
        nb->in = malloc(((size_t)nb->nin + 1) * sizeof(int));
        if (!nb->in)
            return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        nb->out = nb->in;
        for (int i = 0; i < nb->nin; i++)
            nb->in[i] = t->edges[first + i];
    } else {
        nb->nin = t->indegree;
        nb->nout = t->outdegree;
        nb->in = malloc(((size_t)nb->nin + (size_t)nb->nout + 1) * sizeof(int));
        if (!nb->in)
            return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        nb->out = nb->in + nb->nin;
        for (int i = 0; i < nb->nin; i++)
            nb->in[i] = t->sources[i];
        for (int i = 0; i < nb->nout; i++)
            nb->out[i] = t->destinations[i];
    }
    return MPI_SUCCESS;
}

/* Block i of the receive side comes from in[i]; block j of the send side
 * (or the whole send buffer when sendstride is 0) goes to out[j]. */
static int exchange(const char *call, MPI_Comm comm, const neighbours *nb, const void *sendbuf,
                    int sendcount, MPI_Datatype sendtype, MPI_Aint sendstride, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Aint recvstride)
{
    struct myr_mpi_comm library = *comm;
    library.context_id = comm->context_id | MYR_CONTEXT_LIBRARY;
    MPI_Request *reqs = malloc(((size_t)nb->nin + (size_t)nb->nout + 1) * sizeof *reqs);
    if (!reqs)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    int n = 0, err = MPI_SUCCESS;
    for (int i = 0; i < nb->nin && !err; i++)
        err = PMPI_Irecv((char *)recvbuf + i * recvstride, recvcount, recvtype, nb->in[i],
                         nb->cart ? i ^ 1 : 0, &library, &reqs[n++]);
    for (int j = 0; j < nb->nout && !err; j++)
        err = PMPI_Isend((const char *)sendbuf + j * sendstride, sendcount, sendtype,
                         nb->out[j], nb->cart ? j : 0, &library, &reqs[n++]);
    int done = PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return err ? err : done;
}

static int check_side(const char *call, MPI_Comm comm, const void *buf, int count,
                      MPI_Datatype type, const char *what)
{
    int err;
    if ((err = myr_check_count(call, comm, what, count)) ||
        (err = myr_check_type(call, comm, type)) ||
        (err = myr_check_buffer(call, comm, buf, count, type)))
        return err;
    return MPI_SUCCESS;
}

static int neighbor_call(const char *call, bool alltoall, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    neighbours nb = {0};
    if ((err = neighbours_of(call, comm, self, &nb)))
        return err;
    if ((err = check_side(call, comm, sendbuf, sendcount, sendtype, "sendcount")) ||
        (err = check_side(call, comm, recvbuf, recvcount, recvtype, "recvcount"))) {
        free(nb.in);
        return err;
    }
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    err = exchange(call, comm, &nb, sendbuf, sendcount, sendtype,
                   alltoall ? sext * sendcount : 0, recvbuf, recvcount, recvtype,
                   rext * recvcount);
    free(nb.in);
    return err;
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_call("MPI_Neighbor_allgather", false, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, recvtype, comm);
}
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    MYR_PMPI(Neighbor_allgather);

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_call("MPI_Neighbor_alltoall", true, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, recvtype, comm);
}
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    MYR_PMPI(Neighbor_alltoall);
