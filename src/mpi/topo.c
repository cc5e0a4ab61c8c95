/*
 * topo.c — Cartesian virtual topologies, MPI_Dims_create and MPI_Topo_test
 * (MPI 3.1 chapter 7). A Cartesian communicator is a split of the parent
 * (ranks beyond the grid get MPI_COMM_NULL) carrying a myr_topo; reorder
 * is ignored, so grid rank = parent rank. Ranks are row-major.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

static int check_cart_comm(const char *call, MPI_Comm comm)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    if (!comm->topo || comm->topo->kind != MYR_TOPO_CART)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no Cartesian topology");
    return MPI_SUCCESS;
}

static int check_ptr(const char *call, MPI_Comm comm, const void *p, const char *what)
{
    if (!p)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    (void)reorder;   /* ignored: the grid keeps the parent's rank order */
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) || (err = check_ptr(call, comm, comm_cart, "comm_cart")))
        return err;
    if (ndims < 0)
        return myr_mpi_error(comm, MPI_ERR_DIMS, call, "invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && ((err = check_ptr(call, comm, dims, "dims")) ||
                      (err = check_ptr(call, comm, periods, "periods"))))
        return err;
    long cells = 1;
    int size = myr_comm_size(comm);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "invalid dims[%d] = %d (must be > 0)", i, dims[i]);
        cells *= dims[i];
        if (cells > size)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "grid of dims has more cells than the %d ranks of comm", size);
    }
    myr_topo *t = myr_topo_new(MYR_TOPO_CART, 2 * (size_t)ndims);
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    t->ndims = ndims;
    t->dims = t->data;
    t->periods = t->data + ndims;
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    int me = myr_comm_rank(comm, self);
    MPI_Comm made = MPI_COMM_NULL;
    err = PMPI_Comm_split(comm, me < cells ? 0 : MPI_UNDEFINED, me, &made);
    if (err != MPI_SUCCESS) {
        myr_topo_release(t);
        return err;
    }
    if (made != MPI_COMM_NULL)
        made->topo = t;
    else
        myr_topo_release(t);
    *comm_cart = made;
    return MPI_SUCCESS;
}
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart) MYR_PMPI(Cart_create);

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)) || (err = check_ptr(call, comm, ndims, "ndims")))
        return err;
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}
int MPI_Cartdim_get(MPI_Comm comm, int *ndims) MYR_PMPI(Cartdim_get);

static void rank_to_coords(const myr_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char call[] = "MPI_Cart_get";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_cart_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    if (maxdims < t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxdims %d (must be >= ndims %d)", maxdims, t->ndims);
    if (t->ndims > 0 && ((err = check_ptr(call, comm, dims, "dims")) ||
                         (err = check_ptr(call, comm, periods, "periods")) ||
                         (err = check_ptr(call, comm, coords, "coords"))))
        return err;
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    if (t->ndims > 0)
        rank_to_coords(t, myr_comm_rank(comm, self), coords);
    return MPI_SUCCESS;
}
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
    MYR_PMPI(Cart_get);

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    int size = myr_comm_size(comm);
    if (rank < 0 || rank >= size)
        return myr_mpi_error(comm, MPI_ERR_RANK, call,
                             "invalid rank %d (communicator size %d)", rank, size);
    if (maxdims < t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxdims %d (must be >= ndims %d)", maxdims, t->ndims);
    if (t->ndims > 0 && (err = check_ptr(call, comm, coords, "coords")))
        return err;
    rank_to_coords(t, rank, coords);
    return MPI_SUCCESS;
}
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) MYR_PMPI(Cart_coords);

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)) || (err = check_ptr(call, comm, rank, "rank")))
        return err;
    const myr_topo *t = comm->topo;
    if (t->ndims > 0 && (err = check_ptr(call, comm, coords, "coords")))
        return err;
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (t->periods[i])
            c = ((c % t->dims[i]) + t->dims[i]) % t->dims[i];
        else if (c < 0 || c >= t->dims[i])
            return myr_mpi_error(comm, MPI_ERR_ARG, call,
                                 "invalid coords[%d] = %d (non-periodic dimension of size %d)",
                                 i, coords[i], t->dims[i]);
        r = r * t->dims[i] + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) MYR_PMPI(Cart_rank);

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_cart_comm(call, comm)) ||
        (err = check_ptr(call, comm, rank_source, "rank_source")) ||
        (err = check_ptr(call, comm, rank_dest, "rank_dest")))
        return err;
    const myr_topo *t = comm->topo;
    if (direction < 0 || direction >= t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid direction %d (must be in [0, %d))", direction, t->ndims);
    int coords[t->ndims];
    rank_to_coords(t, myr_comm_rank(comm, self), coords);
    int here = coords[direction], n = t->dims[direction];
    int ends[2];
    for (int k = 0; k < 2; k++) {
        long c = here + (k ? (long)disp : -(long)disp);
        if (t->periods[direction])
            c = ((c % n) + n) % n;
        else if (c < 0 || c >= n) {
            ends[k] = MPI_PROC_NULL;
            continue;
        }
        int r = 0;
        for (int i = 0; i < t->ndims; i++)
            r = r * t->dims[i] + (i == direction ? (int)c : coords[i]);
        ends[k] = r;
    }
    *rank_source = ends[0];
    *rank_dest = ends[1];
    return MPI_SUCCESS;
}
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
    MYR_PMPI(Cart_shift);

/* Balanced factorisation: the free entries get nnodes / (product of the
 * given ones) split into factors as equal as possible, largest first. */
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (nnodes <= 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "invalid nnodes %d (must be > 0)", nnodes);
    if (ndims < 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                             "invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && (err = check_ptr(call, MPI_COMM_WORLD, dims, "dims")))
        return err;
    int rest = nnodes, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "invalid dims[%d] = %d (must be >= 0)", i, dims[i]);
        if (dims[i] == 0) {
            nfree++;
            continue;
        }
        if (rest % dims[i])
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "nnodes %d is not divisible by the product of the "
                                 "nonzero dims", nnodes);
        rest /= dims[i];
    }
    if (nfree == 0) {
        if (rest != 1)
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "the nonzero dims do not multiply to nnodes %d", nnodes);
        return MPI_SUCCESS;
    }
    int got[nfree];
    for (int i = 0; i < nfree; i++)
        got[i] = 1;
    /* Prime factors, largest first, each onto the smallest entry so far. */
    int primes[32], np = 0;
    for (int p = 2, r = rest; r > 1;) {
        if ((long)p * p > r) {
            primes[np++] = r;
            break;
        }
        if (r % p == 0) {
            primes[np++] = p;
            r /= p;
        } else {
            p++;
        }
    }
    for (int k = np - 1; k >= 0; k--) {
        int smallest = 0;
        for (int i = 1; i < nfree; i++)
            if (got[i] < got[smallest])
                smallest = i;
        got[smallest] *= primes[k];
    }
    /* Non-increasing order. */
    for (int i = 1; i < nfree; i++)
        for (int j = i; j > 0 && got[j] > got[j - 1]; j--) {
            int x = got[j];
            got[j] = got[j - 1];
            got[j - 1] = x;
        }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = got[k++];
    return MPI_SUCCESS;
}
int MPI_Dims_create(int nnodes, int ndims, int dims[]) MYR_PMPI(Dims_create);

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = check_ptr(call, comm, status, "status")))
        return err;
    if (comm->kind != MYR_COMM_INTRA || !comm->topo)
        *status = MPI_UNDEFINED;
    else
        *status = comm->topo->kind == MYR_TOPO_CART    ? MPI_CART
                  : comm->topo->kind == MYR_TOPO_GRAPH ? MPI_GRAPH
                                                       : MPI_DIST_GRAPH;
    return MPI_SUCCESS;
}
int MPI_Topo_test(MPI_Comm comm, int *status) MYR_PMPI(Topo_test);
