/*
 * pack.c — MPI_Pack/MPI_Unpack (the native representation: the data bytes
 * in type-map order, exactly what a message carries) and their external32
 * forms (big-endian, the standard's sizes; core/typewalk.c).
 */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <string.h>

static int check_common(const char *call, MPI_Comm comm, int count, const char *what,
                        MPI_Datatype type, const void *buf, const char *bufname)
{
    int err;
    if ((err = myr_check_count(call, comm, what, count)) ||
        (err = myr_check_type(call, comm, type)))
        return err;
    /* MPI_BOTTOM (NULL) only with a derived type of absolute addresses. */
    if (!buf && count > 0 && type->predefined && type->size > 0)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call, "%s is NULL with %s %d > 0",
                             bufname, what, count);
    return MPI_SUCCESS;
}

static int check_packed(const char *call, MPI_Comm comm, const void *buf,
                        const char *bufname, long long size, const void *position)
{
    if (size < 0)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "invalid %s size %lld (must be >= 0)",
                             bufname, size);
    if (!buf && size > 0)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call, "%s is NULL with size %lld",
                             bufname, size);
    return myr_check_pointer(call, comm, position, "position");
}

/* `need` bytes from *position must fit in `size`. */
static int check_room(const char *call, MPI_Comm comm, long long position, long long need,
                      long long size, const char *what)
{
    if (position < 0 || position > size)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid position %lld (0..%lld, the %s size)", position,
                             size, what);
    if (need > size - position)
        return myr_mpi_error(comm, MPI_ERR_TRUNCATE, call,
                             "%lld bytes from position %lld do not fit the %lld-byte %s",
                             need, position, size, what);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
              int outsize, int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = check_common(call, comm, incount, "incount", datatype, inbuf, "inbuf")) ||
        (err = check_packed(call, comm, outbuf, "outbuf", outsize, position)))
        return err;
    long long bytes = (long long)incount * (long long)datatype->size;
    if ((err = check_room(call, comm, *position, bytes, outsize, "output buffer")))
        return err;
    myr_datatype_transfer((char *)outbuf + *position, MPI_BYTE, inbuf, datatype,
                          (size_t)bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
             int outsize, int *position, MPI_Comm comm) MYR_PMPI(Pack);

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = check_common(call, comm, outcount, "outcount", datatype, outbuf, "outbuf")) ||
        (err = check_packed(call, comm, inbuf, "inbuf", insize, position)))
        return err;
    long long bytes = (long long)outcount * (long long)datatype->size;
    if ((err = check_room(call, comm, *position, bytes, insize, "input buffer")))
        return err;
    myr_datatype_transfer(outbuf, datatype, (const char *)inbuf + *position, MPI_BYTE,
                          (size_t)bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) MYR_PMPI(Unpack);

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_count(call, comm, "incount", incount)) ||
        (err = myr_check_type(call, comm, datatype)) ||
        (err = myr_check_pointer(call, comm, size, "size")))
        return err;
    long long bytes = (long long)incount * (long long)datatype->size;
    if (bytes > INT_MAX)
        return myr_mpi_error(comm, MPI_ERR_COUNT, call,
                             "%d x %s is %lld bytes, more than an int holds", incount,
                             myr_datatype_label(datatype), bytes);
    *size = (int)bytes;
    return MPI_SUCCESS;
}
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
    MYR_PMPI(Pack_size);

/* ---- external32 -------------------------------------------------------- */

static int check_datarep(const char *call, const char *datarep)
{
    if (!datarep)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "unknown datarep \"%s\" (the only one is \"external32\")",
                             datarep);
    return MPI_SUCCESS;
}

static int conversion_failed(const char *call, MPI_Datatype type, const char *dir)
{
    return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_CONVERSION, call,
                         "a value of %s does not fit its %s representation",
                         myr_datatype_label(type), dir);
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    static const char call[] = "MPI_Pack_external";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_datarep(call, datarep)) ||
        (err = check_common(call, MPI_COMM_NULL, incount, "incount", datatype, inbuf,
                            "inbuf")) ||
        (err = check_packed(call, MPI_COMM_NULL, outbuf, "outbuf", outsize, position)))
        return err;
    MPI_Count bytes = myr_datatype_external_size(datatype, incount);
    if ((err = check_room(call, MPI_COMM_NULL, *position, bytes, outsize, "output buffer")))
        return err;
    if (myr_datatype_pack_external((char *)outbuf + *position, inbuf, incount, datatype))
        return conversion_failed(call, datatype, "external32");
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                      MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                      MPI_Aint *position) MYR_PMPI(Pack_external);

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount,
                         MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_datarep(call, datarep)) ||
        (err = check_common(call, MPI_COMM_NULL, outcount, "outcount", datatype, outbuf,
                            "outbuf")) ||
        (err = check_packed(call, MPI_COMM_NULL, inbuf, "inbuf", insize, position)))
        return err;
    MPI_Count bytes = myr_datatype_external_size(datatype, outcount);
    if ((err = check_room(call, MPI_COMM_NULL, *position, bytes, insize, "input buffer")))
        return err;
    if (myr_datatype_unpack_external(outbuf, (const char *)inbuf + *position, outcount,
                                     datatype))
        return conversion_failed(call, datatype, "native");
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount,
                        MPI_Datatype datatype) MYR_PMPI(Unpack_external);

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_datarep(call, datarep)) ||
        (err = myr_check_count(call, MPI_COMM_NULL, "incount", incount)) ||
        (err = myr_check_type(call, MPI_COMM_NULL, datatype)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, size, "size")))
        return err;
    *size = (MPI_Aint)myr_datatype_external_size(datatype, incount);
    return MPI_SUCCESS;
}
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size) MYR_PMPI(Pack_external_size);
