/*
 * coll.c (mpi) — the entry points of the collectives: check the arguments
 * each rank can check alone, then run the collective in coll/. What only
 * the ranks together can see (mismatched collectives, roots, counts, ops)
 * comes back from coll/ as an error class and a message. A blocking
 * collective first lets the rank's nonblocking ones on the communicator
 * finish (myr_coll_nb_drain): all of them start in call order.
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
    if (op == MPI_OP_NULL)
        return myr_mpi_error(comm, MPI_ERR_OP, call, "invalid op MPI_OP_NULL");
    if (!myr_op_valid(op))
        return myr_mpi_error(comm, MPI_ERR_OP, call, "invalid op handle %p", (void *)op);
    if (!myr_op_defined_for(op, type))
        return myr_mpi_error(comm, MPI_ERR_OP, call,
                             "%s is not defined for %s (MIN and MAX take integer "
                             "and floating types, SUM and PROD also complex ones)",
                             op->name, type->name);
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
    myr_coll_nb_drain(comm, self);
    const char *why = NULL;
    err = myr_coll_barrier(comm, self, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Barrier(MPI_Comm comm) MYR_PMPI(Barrier);

/* The checks of MPI_Bcast and MPI_Ibcast. */
static int check_bcast(const char *call, void *buffer, int count, MPI_Datatype datatype,
                       int root, MPI_Comm comm)
{
    int err;
    if ((err = myr_check_intra(call, comm)) ||
        (err = myr_check_count(call, comm, "count", count)) ||
        (err = myr_check_type(call, comm, datatype)) ||
        /* MPI_BOTTOM (NULL) is a buffer for a derived type */
        (datatype->predefined && (err = check_buffer(call, comm, buffer, "buffer", count))) ||
        (err = check_root(call, comm, root)))
        return err;
    return MPI_SUCCESS;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_bcast(call, buffer, count, datatype, root, comm)))
        return err;
    myr_coll_nb_drain(comm, self);
    const char *why = NULL;
    err = myr_coll_bcast(comm, self, buffer, count, datatype, root, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
    MYR_PMPI(Bcast);

/* The checks of MPI_Allreduce and MPI_Iallreduce. */
static int check_allreduce(const char *call, const void *sendbuf, void *recvbuf,
                           int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
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
    return MPI_SUCCESS;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_allreduce(call, sendbuf, recvbuf, count, datatype, op, comm)))
        return err;
    myr_coll_nb_drain(comm, self);
    const char *why = NULL;
    err = myr_coll_allreduce(comm, self, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                             recvbuf, count, datatype, op, &why);
    return raise_coll(call, comm, err, why);
}
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) MYR_PMPI(Allreduce);

/* ---- nonblocking forms (the engine: coll/nbc.c) -------------------------
 *
 * Each checks what its blocking form checks, copies the arguments the
 * algorithm needs (taking a reference to each datatype, which the user may
 * free before completion), and starts the blocking algorithm on the
 * engine. */

static int start_nb(const char *call, MPI_Comm comm, myr_rank *self, myr_coll_nb_fn fn,
                    const void *args, size_t size, myr_coll_nb_cleanup cleanup,
                    MPI_Request *request)
{
    int err = myr_coll_nb_start(comm, self, call, fn, args, size, cleanup, request);
    if (err)
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}

static int run_barrier(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    (void)args;
    return myr_coll_barrier(comm, self, why);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    return start_nb(call, comm, self, run_barrier, NULL, 0, NULL, request);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) MYR_PMPI(Ibarrier);

typedef struct bcast_args {
    void *buf;
    int count;
    MPI_Datatype type;
    int root;
} bcast_args;

static int run_bcast(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    bcast_args *a = args;
    return myr_coll_bcast(comm, self, a->buf, a->count, a->type, a->root, why);
}

static void release_bcast(void *args)
{
    myr_datatype_release(((bcast_args *)args)->type);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    static const char call[] = "MPI_Ibcast";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_bcast(call, buffer, count, datatype, root, comm)) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    bcast_args a = {buffer, count, datatype, root};
    myr_datatype_retain(datatype);
    return start_nb(call, comm, self, run_bcast, &a, sizeof a, release_bcast, request);
}
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) MYR_PMPI(Ibcast);

typedef struct allreduce_args {
    const void *in;
    void *out;
    int count;
    MPI_Datatype type;
    MPI_Op op;
} allreduce_args;

static int run_allreduce(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    allreduce_args *a = args;
    return myr_coll_allreduce(comm, self, a->in, a->out, a->count, a->type, a->op, why);
}

static void release_allreduce(void *args)
{
    myr_datatype_release(((allreduce_args *)args)->type);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iallreduce";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_allreduce(call, sendbuf, recvbuf, count, datatype, op, comm)) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    allreduce_args a = {sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count,
                        datatype, op};
    myr_datatype_retain(datatype);
    return start_nb(call, comm, self, run_allreduce, &a, sizeof a, release_allreduce,
                    request);
}
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) MYR_PMPI(Iallreduce);
