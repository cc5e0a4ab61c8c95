/*
 * coll.c (mpi) — the entry points of the collectives: check the arguments
 * each rank can check alone, then run the collective in coll/. What only
 * the ranks together can see (mismatched collectives, roots, counts, ops)
 * comes back from coll/ as an error class and a message.
 */
#include "coll/coll.h"
#include "mpi/mpi_impl.h"

static int check_buffer(const char *call, MPI_Comm comm, const void *buf,
                        const char *what, int count)
{
    if (!buf && count > 0)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "%s is NULL with count %d > 0", what, count);
    return MPI_SUCCESS;
}

static int check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype type)
{
    int err = myr_check_op(call, comm, op, type);
    /* myr_coll_allreduce folds count * size contiguous bytes, and with the
     * accumulator on the right (x[N-1] op ... op x0): a type with gaps (a
     * vector, a pair type such as MPI_DOUBLE_INT) or a non-commutative op
     * would come out wrong, so they are refused. */
    if (!err && !type->contig)
        err = myr_mpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                            "%s has gaps: reductions take contiguous types only here",
                            myr_datatype_label(type));
    if (!err && !myr_op_commutative(op))
        err = myr_mpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                            "non-commutative ops are not supported in reductions here");
    return err;
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
    return err == MPI_SUCCESS ? MPI_SUCCESS
                              : myr_mpi_error(comm, err, call, "%s", why);
}

int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)))
        return err;
    const char *why = NULL;
    err = myr_coll_barrier(comm, self, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Barrier(MPI_Comm comm) MYR_PMPI(Barrier);

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) ||
        (err = myr_check_count(call, comm, "count", count)) ||
        (err = myr_check_type(call, comm, datatype)) ||
        /* MPI_BOTTOM (NULL) is a buffer for a derived type */
        (datatype->predefined && (err = check_buffer(call, comm, buffer, "buffer", count))) ||
        (err = check_root(call, comm, root)))
        return err;
    const char *why = NULL;
    err = myr_coll_bcast(comm, self, buffer, count, datatype, root, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
    MYR_PMPI(Bcast);

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) ||
        (err = myr_check_count(call, comm, "count", count)) ||
        (err = myr_check_type(call, comm, datatype)) ||
        (err = check_op(call, comm, op, datatype)))
        return err;
    if (recvbuf == MPI_IN_PLACE)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if ((err = check_buffer(call, comm, recvbuf, "recvbuf", count)))
        return err;
    if (sendbuf != MPI_IN_PLACE) {
        if ((err = check_buffer(call, comm, sendbuf, "sendbuf", count)))
            return err;
        if (sendbuf == recvbuf && count > 0)
            return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                                 "sendbuf and recvbuf are the same buffer "
                                 "(pass MPI_IN_PLACE as sendbuf instead)");
    }
    const char *why = NULL;
    err = myr_coll_allreduce(comm, self, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                             recvbuf, count, datatype, op, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) MYR_PMPI(Allreduce);
