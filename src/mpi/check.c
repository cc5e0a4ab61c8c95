/* check.c — argument checks shared by the MPI entry points (mpi_impl.h). */
#include "mpi/mpi_impl.h"

static myr_rank *rank_or_error(const char *call, int *err)
{
    myr_rank *self = myr_rank_self();
    if (!self)
        *err = myr_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call,
                             "called from a thread that is not an MPI rank "
                             "(only ranks, and the ULTs and threads they create, may call MPI)");
    return self;
}

myr_rank *myr_mpi_enter_any(const char *call, int *err)
{
    myr_rank *self = rank_or_error(call, err);
    if (!self)
        return NULL;
    atomic_store_explicit(&self->last_call, call, memory_order_relaxed);
    *err = MPI_SUCCESS;
    return self;
}

myr_rank *myr_mpi_enter_slow(const char *call, int *err)
{
    myr_rank *self = rank_or_error(call, err);
    if (!self)
        return NULL;
    /* A session (MPI 4.0) makes MPI usable without MPI_Init. */
    if (self->init_state != 1 && atomic_load(&self->sessions) == 0) {
        *err = myr_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call, "%s",
                             self->init_state == 0 ? "called before MPI_Init"
                                                   : "called after MPI_Finalize");
        return NULL;
    }
    atomic_store_explicit(&self->last_call, call, memory_order_relaxed);
    *err = MPI_SUCCESS;
    return self;
}

const char *myr_handle_problem(const void *handle)
{
    switch (myr_handle_magic(handle)) {
    case MYR_MAGIC_DEAD: return "freed already";
    case MYR_MAGIC_COMM: return "a communicator";
    case MYR_MAGIC_TYPE: return "a datatype";
    case MYR_MAGIC_REQUEST: return "a request";
    case MYR_MAGIC_ERRHANDLER: return "an error handler";
    case MYR_MAGIC_OP: return "an op";
    case MYR_MAGIC_MESSAGE: return "a message";
    case MYR_MAGIC_GROUP: return "a group";
    case MYR_MAGIC_INFO: return "an info object";
    case MYR_MAGIC_SESSION: return "a session";
    /* A freed object returned to malloc no longer holds MYR_MAGIC_DEAD. */
    default: return "not a live MPI handle: uninitialised, or freed";
    }
}

int myr_check_comm_slow(const char *call, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call,
                             "invalid communicator MPI_COMM_NULL");
    if (!myr_comm_valid(comm))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call,
                             "invalid communicator handle %p (%s)", (void *)comm,
                             myr_handle_problem(comm));
    return MPI_SUCCESS;
}

int myr_check_count(const char *call, MPI_Comm comm, const char *what, int count)
{
    if (count < 0)
        return myr_mpi_error(comm, MPI_ERR_COUNT, call,
                             "invalid %s %d (must be >= 0)", what, count);
    return MPI_SUCCESS;
}

int myr_check_type(const char *call, MPI_Comm comm, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                             "invalid datatype MPI_DATATYPE_NULL");
    if (!myr_datatype_valid(type))
        return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                             "invalid datatype handle %p (%s)", (void *)type,
                             myr_handle_problem(type));
    if (!type->committed)
        return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                             "datatype %s is not committed (MPI_Type_commit)",
                             myr_datatype_label(type));
    return MPI_SUCCESS;
}

int myr_check_buffer(const char *call, MPI_Comm comm, const void *buf, int count,
                     MPI_Datatype type)
{
    /* MPI_BOTTOM (NULL) is a buffer for a derived type of absolute
     * addresses; a predefined type there can only be a mistake. */
    if (!buf && count > 0 && type->predefined && type->size > 0)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "buffer is NULL with count %d > 0", count);
    return MPI_SUCCESS;
}

int myr_check_peer(const char *call, MPI_Comm comm, myr_rank *self,
                   const char *what, int rank, int allow)
{
    int size = myr_comm_peer_count(comm);
    (void)self;
    if (rank >= 0 && rank < size)
        return MPI_SUCCESS;
    if (rank == MPI_PROC_NULL && (allow & MYR_ALLOW_PROC_NULL))
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && (allow & MYR_ALLOW_ANY))
        return MPI_SUCCESS;
    return myr_mpi_error(comm, MPI_ERR_RANK, call,
                         "invalid %s rank %d (%s size %d%s)", what, rank,
                         comm->kind == MYR_COMM_INTER ? "remote group" : "communicator",
                         size,
                         (allow & MYR_ALLOW_ANY) ? "; or MPI_ANY_SOURCE, MPI_PROC_NULL"
                                                 : "; or MPI_PROC_NULL");
}

int myr_check_tag(const char *call, MPI_Comm comm, int tag, bool allow_any)
{
    if (tag >= 0 && tag <= MYR_TAG_UB)
        return MPI_SUCCESS;
    if (tag == MPI_ANY_TAG && allow_any)
        return MPI_SUCCESS;
    return myr_mpi_error(comm, MPI_ERR_TAG, call,
                         "invalid tag %d (valid: 0..%d%s)", tag, MYR_TAG_UB,
                         allow_any ? " or MPI_ANY_TAG" : "");
}

int myr_check_pointer_slow(const char *call, MPI_Comm comm, const char *what)
{
    return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
}

int myr_check_intra(const char *call, MPI_Comm comm)
{
    int err = myr_check_comm(call, comm);
    if (err == MPI_SUCCESS && comm->kind == MYR_COMM_INTER)
        return myr_mpi_error(comm, MPI_ERR_COMM, call,
                             "intercommunicators are not supported here yet "
                             "(an intracommunicator is needed)");
    return err;
}
