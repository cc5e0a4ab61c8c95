/*
 * status.c — what a status says (counts, elements, cancellation) and the
 * size of a datatype.
 *
 * A status records the bytes of data received (myr_bytes); counts are
 * derived from it with the datatype the program asks about, so the same
 * status answers for MPI_BYTE and for MPI_INT. MPI_Get_count counts whole
 * elements of the type, MPI_Get_elements counts basic elements (two per
 * pair type such as MPI_DOUBLE_INT); either gives MPI_UNDEFINED when the
 * bytes are not a whole number of them, or when the answer does not fit the
 * int the call returns.
 *
 * Errors here belong to no communicator: they go to the rank's
 * MPI_COMM_WORLD handler. Queries accept datatypes that are not committed.
 */
#include "mpi/mpi_impl.h"

#include <limits.h>

static int check_type_handle_slow(const char *call, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid datatype MPI_DATATYPE_NULL");
    if (!myr_datatype_valid(type))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid datatype handle %p (%s)", (void *)type,
                             myr_handle_problem(type));
    return MPI_SUCCESS;
}

/* Inline for a live type: MPI_Type_size and friends are called per
 * element by some programs (MPICH's datatype tests: a quarter of a run). */
static inline int check_type_handle(const char *call, MPI_Datatype type)
{
    if (__builtin_expect(type && myr_handle_magic(type) == MYR_MAGIC_TYPE, 1))
        return MPI_SUCCESS;
    return check_type_handle_slow(call, type);
}

static int check_status(const char *call, const MPI_Status *status)
{
    if (!status)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "status is NULL (MPI_STATUS_IGNORE cannot be queried)");
    return MPI_SUCCESS;
}

static int check_out(const char *call, const void *p, const char *what)
{
    if (!p)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

/* The common prologue of the queries: entered, status, type, result. */
static int check_query(const char *call, const MPI_Status *status,
                       MPI_Datatype type, const void *out, const char *what)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_status(call, status)) || (err = check_type_handle(call, type)))
        return err;
    return check_out(call, out, what);
}

static int to_int_count(MPI_Count n)
{
    return n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int err = check_query("MPI_Get_count", status, datatype, count, "count");
    if (err)
        return err;
    MPI_Count bytes = status->myr_bytes;
    if (datatype->size == 0)
        *count = 0;  /* MPI: a type of size zero always counts zero */
    else if (bytes % (MPI_Count)datatype->size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = to_int_count(bytes / (MPI_Count)datatype->size);
    return MPI_SUCCESS;
}
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
    MYR_PMPI(Get_count);

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int err = check_query("MPI_Get_elements_x", status, datatype, count, "count");
    if (err)
        return err;
    MPI_Count n = myr_datatype_elements(datatype, status->myr_bytes);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
    MYR_PMPI(Get_elements_x);

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int err = check_query("MPI_Get_elements", status, datatype, count, "count");
    if (err)
        return err;
    *count = to_int_count(myr_datatype_elements(datatype, status->myr_bytes));
    return MPI_SUCCESS;
}
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
    MYR_PMPI(Get_elements);

/* Make the status say `count` basic elements of `datatype` were received
 * (MPI_Get_elements then returns count; MPI_Get_count the matching whole
 * elements). The other fields are left as they are. */
static int set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_status(call, status)) || (err = check_type_handle(call, datatype)))
        return err;
    if (count < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call,
                             "invalid count %lld (must be >= 0)", count);
    MPI_Count bytes = myr_datatype_element_bytes(datatype, count);
    if (bytes < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call,
                             "count %lld of %s is more bytes than an MPI_Count holds",
                             count, myr_datatype_label(datatype));
    status->myr_bytes = bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
    MYR_PMPI(Status_set_elements);

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
    MYR_PMPI(Status_set_elements_x);

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    static const char call[] = "MPI_Status_set_cancelled";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_status(call, status)))
        return err;
    status->myr_cancelled = flag != 0;
    return MPI_SUCCESS;
}
int MPI_Status_set_cancelled(MPI_Status *status, int flag) MYR_PMPI(Status_set_cancelled);

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    static const char call[] = "MPI_Test_cancelled";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_status(call, status)) || (err = check_out(call, flag, "flag")))
        return err;
    *flag = status->myr_cancelled != 0;
    return MPI_SUCCESS;
}
int MPI_Test_cancelled(const MPI_Status *status, int *flag) MYR_PMPI(Test_cancelled);

/* Bytes of data in one element (padding excluded: MPI_DOUBLE_INT is 12). */
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char call[] = "MPI_Type_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_type_handle(call, datatype)) || (err = check_out(call, size, "size")))
        return err;
    *size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}
int MPI_Type_size(MPI_Datatype datatype, int *size) MYR_PMPI(Type_size);
