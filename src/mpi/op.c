/*
 * op.c (mpi) — reduction operations: MPI_Op_create, MPI_Op_free,
 * MPI_Op_commutative and MPI_Reduce_local, and the op check every reducing
 * call shares (myr_check_op). The operations themselves are coll/op.c.
 *
 * Errors of these calls belong to no communicator: they go to the rank's
 * MPI_COMM_WORLD handler (MPI 3.1, 8.3).
 */
#include "coll/coll.h"
#include "mpi/mpi_impl.h"

/* A valid op handle (predefined, or user-defined and not freed). */
static int check_op_handle(const char *call, MPI_Comm comm, MPI_Op op, const char *what)
{
    if (op == MPI_OP_NULL)
        return myr_mpi_error(comm, MPI_ERR_OP, call, "invalid %s MPI_OP_NULL", what);
    if (myr_op_valid(op))
        return MPI_SUCCESS;
    /* User ops are never returned to malloc, so a freed one still says so. */
    unsigned magic = myr_handle_magic(op);
    if (magic == MYR_MAGIC_DEAD || (magic == MYR_MAGIC_OP && op->freed))
        return myr_mpi_error(comm, MPI_ERR_OP, call,
                             "invalid %s %p: freed already (MPI_Op_free)", what, (void *)op);
    return myr_mpi_error(comm, MPI_ERR_OP, call, "invalid %s handle %p (%s)", what,
                         (void *)op, myr_handle_problem(op));
}

int myr_check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype type)
{
    int err = check_op_handle(call, comm, op, "op");
    if (err || myr_op_defined_for(op, type))
        return err;
    if (op->kind == MYR_OP_REPLACE || op->kind == MYR_OP_NO_OP)
        return myr_mpi_error(comm, MPI_ERR_OP, call,
                             "%s is for one-sided accumulate calls only, not for "
                             "reductions", myr_op_label(op));
    return myr_mpi_error(comm, MPI_ERR_OP, call,
                         "%s is not defined for %s (%s takes %s%s)", myr_op_label(op),
                         myr_datatype_label(type), myr_op_label(op), myr_op_domain(op),
                         type->predefined ? ""
                                          : ", or derived types made of one of them only");
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char call[] = "MPI_Op_create";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!user_fn)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "user_fn is NULL");
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, op, "op")))
        return err;
    MPI_Op made = myr_op_create(user_fn, commute != 0);
    if (!made)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory for an op");
    *op = made;
    return MPI_SUCCESS;
}
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) MYR_PMPI(Op_create);

int PMPI_Op_free(MPI_Op *op)
{
    static const char call[] = "MPI_Op_free";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, op, "op")) ||
        (err = check_op_handle(call, MPI_COMM_NULL, *op, "*op")))
        return err;
    if ((*op)->kind != MYR_OP_USER)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_OP, call,
                             "%s is predefined and cannot be freed", myr_op_label(*op));
    myr_op_free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
int MPI_Op_free(MPI_Op *op) MYR_PMPI(Op_free);

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char call[] = "MPI_Op_commutative";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_op_handle(call, MPI_COMM_NULL, op, "op")) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, commute, "commute")))
        return err;
    *commute = myr_op_commutative(op);
    return MPI_SUCCESS;
}
int MPI_Op_commutative(MPI_Op op, int *commute) MYR_PMPI(Op_commutative);

/* NULL is MPI_BOTTOM, a buffer for a derived type of absolute addresses;
 * with a predefined type it can only be a mistake. */
static int check_local_buffer(const char *call, const void *buf, const char *what,
                              int count, MPI_Datatype type)
{
    if (buf == MPI_IN_PLACE)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
                             "%s is MPI_IN_PLACE (not allowed in MPI_Reduce_local)", what);
    if (!buf && count > 0 && type->predefined && type->size > 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
                             "%s is NULL with count %d > 0", what, count);
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    static const char call[] = "MPI_Reduce_local";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_count(call, MPI_COMM_NULL, "count", count)) ||
        (err = myr_check_type(call, MPI_COMM_NULL, datatype)) ||
        (err = myr_check_op(call, MPI_COMM_NULL, op, datatype)) ||
        (err = check_local_buffer(call, inbuf, "inbuf", count, datatype)) ||
        (err = check_local_buffer(call, inoutbuf, "inoutbuf", count, datatype)))
        return err;
    if (inbuf == inoutbuf && inbuf && count > 0 && datatype->size > 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
                             "inbuf and inoutbuf are the same buffer (they must not "
                             "overlap)");
    myr_op_reduce(op, datatype, (size_t)count, inbuf, inoutbuf);
    return MPI_SUCCESS;
}
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op) MYR_PMPI(Reduce_local);
