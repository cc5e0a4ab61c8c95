/*
 * fortran.c — what C sees of Fortran (MPI 3.1, 17.2): statuses converted
 * to and from the integer arrays of mpif.h and the mpi module and the
 * MPI_F08_status of mpi_f08, and MPI_Type_match_size. The named Fortran
 * datatypes themselves are in core/datatype.c.
 *
 * A Fortran status here is 6 integers (MPI_STATUS_SIZE, once there are
 * Fortran bindings): MPI_SOURCE, MPI_TAG, MPI_ERROR, then MPI_Status's
 * cancelled flag and its byte count as two halves, low first; an
 * MPI_F08_status holds the same after its three public fields.
 */
#include "mpi/mpi_impl.h"

enum { F_STATUS_SIZE = 6 };

static void c_to_ints(const MPI_Status *c, MPI_Fint *f)
{
    uint64_t bytes = (uint64_t)c->myr_bytes;
    f[0] = c->MPI_SOURCE;
    f[1] = c->MPI_TAG;
    f[2] = c->MPI_ERROR;
    f[3] = c->myr_cancelled;
    f[4] = (MPI_Fint)(uint32_t)bytes;
    f[5] = (MPI_Fint)(uint32_t)(bytes >> 32);
}

static void ints_to_c(const MPI_Fint *f, MPI_Status *c)
{
    c->MPI_SOURCE = f[0];
    c->MPI_TAG = f[1];
    c->MPI_ERROR = f[2];
    c->myr_cancelled = f[3];
    c->myr_bytes = (MPI_Count)((uint64_t)(uint32_t)f[4] | (uint64_t)(uint32_t)f[5] << 32);
}

static void f08_to_ints(const MPI_F08_status *s, MPI_Fint *f)
{
    f[0] = s->MPI_SOURCE;
    f[1] = s->MPI_TAG;
    f[2] = s->MPI_ERROR;
    for (int i = 0; i < 3; i++)
        f[3 + i] = s->myr_internal[i];
}

static void ints_to_f08(const MPI_Fint *f, MPI_F08_status *s)
{
    s->MPI_SOURCE = f[0];
    s->MPI_TAG = f[1];
    s->MPI_ERROR = f[2];
    for (int i = 0; i < 3; i++)
        s->myr_internal[i] = f[3 + i];
}

/* Both arguments given (an ignored status cannot be converted: MPI 3.1,
 * 17.2.5); errors go to MPI_COMM_WORLD's handler. */
static int check_two(const char *call, const void *from, const char *from_name,
                     const void *to, const char *to_name)
{
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if (!from)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "%s is NULL (an ignored status cannot be converted)", from_name);
    if (!to)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", to_name);
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    int err = check_two("MPI_Status_c2f", c_status, "c_status", f_status, "f_status");
    if (err)
        return err;
    c_to_ints(c_status, f_status);
    return MPI_SUCCESS;
}
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) MYR_PMPI(Status_c2f);

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    int err = check_two("MPI_Status_f2c", f_status, "f_status", c_status, "c_status");
    if (err)
        return err;
    ints_to_c(f_status, c_status);
    return MPI_SUCCESS;
}
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) MYR_PMPI(Status_f2c);

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    int err = check_two("MPI_Status_c2f08", c_status, "c_status", f08_status, "f08_status");
    if (err)
        return err;
    MPI_Fint f[F_STATUS_SIZE];
    c_to_ints(c_status, f);
    ints_to_f08(f, f08_status);
    return MPI_SUCCESS;
}
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
    MYR_PMPI(Status_c2f08);

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    int err = check_two("MPI_Status_f082c", f08_status, "f08_status", c_status, "c_status");
    if (err)
        return err;
    MPI_Fint f[F_STATUS_SIZE];
    f08_to_ints(f08_status, f);
    ints_to_c(f, c_status);
    return MPI_SUCCESS;
}
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
    MYR_PMPI(Status_f082c);

int PMPI_Status_f2f08(MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    int err = check_two("MPI_Status_f2f08", f_status, "f_status", f08_status, "f08_status");
    if (err)
        return err;
    ints_to_f08(f_status, f08_status);
    return MPI_SUCCESS;
}
int MPI_Status_f2f08(MPI_Fint *f_status, MPI_F08_status *f08_status) MYR_PMPI(Status_f2f08);

int PMPI_Status_f082f(MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    int err = check_two("MPI_Status_f082f", f08_status, "f08_status", f_status, "f_status");
    if (err)
        return err;
    f08_to_ints(f08_status, f_status);
    return MPI_SUCCESS;
}
int MPI_Status_f082f(MPI_F08_status *f08_status, MPI_Fint *f_status) MYR_PMPI(Status_f082f);

/* The named type of a Fortran class and byte size (MPI 3.1, 17.1.9). */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_match_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!datatype)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datatype is NULL");
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const char *cls = NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:
        cls = "REAL";
        t = size == 2 ? MPI_REAL2 : size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8
          : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_INTEGER:
        cls = "INTEGER";
        t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4
          : size == 8 ? MPI_INTEGER8 : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        cls = "COMPLEX";
        t = size == 4 ? MPI_COMPLEX4 : size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16
          : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
        break;
    default:
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid typeclass %d (valid: MPI_TYPECLASS_REAL, "
                             "MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_COMPLEX)", typeclass);
    }
    if (t == MPI_DATATYPE_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "no Fortran %s of size %d", cls, size);
    *datatype = t;
    return MPI_SUCCESS;
}
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
    MYR_PMPI(Type_match_size);
