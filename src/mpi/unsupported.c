/*
 * unsupported.c — the MPI 3.1 calls Myriad declares but does not implement
 * yet: one-sided communication, I/O, dynamic processes, the Fortran
 * parameterized-type constructors. Programs that merely name them (a
 * helper header of inline wrappers, a struct with an MPI_Win field) build
 * and run; a call fails with MPI_ERR_UNSUPPORTED_OPERATION through the
 * error handler MPI names for it, so by default the job ends with
 *   rank 0: MPI_Win_create: not implemented yet in Myriad (one-sided communication)
 *
 * Which handler (MPI 3.1, 8.3 and 13.7): a call with a communicator
 * argument raises on it; window calls raise on MPI_COMM_WORLD (no window
 * can exist, so none has a handler); file calls on the files' default
 * handler, the one of MPI_FILE_NULL, which MPI makes MPI_ERRORS_RETURN:
 * those return the class, and the first such call of the job says once
 * on stderr that MPI I/O is missing, since a program that does not check
 * would otherwise go on as if its file had been written.
 *
 * Also here, because they need nothing that is missing: the windows'
 * predefined attribute callbacks, MPI_Comm_get_parent (no job of Myriad
 * is spawned), the File/Win handle conversions (only null handles exist),
 * the files' default error handler, and MPI_Pcontrol.
 */
#include "mpi/mpi_impl.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

/* The stubs take the standard's parameters and look at few of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static const char RMA[] = "one-sided communication";
static const char DPM[] = "dynamic process management";
static const char F90[] = "Fortran parameterized datatypes";

static int unsupported(MPI_Comm comm, const char *call, const char *area)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    return myr_mpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                         "not implemented yet in Myriad (%s)", area);
}

/* ---- the files' default error handler --------------------------------- */

/* One for the OS process (MPI has one per process; here every rank of the
 * job shares it): MPI_ERRORS_RETURN or MPI_ERRORS_ARE_FATAL, the only
 * handlers a file can have while MPI_File_create_errhandler is missing. */
static _Atomic(MPI_Errhandler) file_default;
static atomic_flag file_note_given = ATOMIC_FLAG_INIT;

static MPI_Errhandler file_handler(void)
{
    MPI_Errhandler h = atomic_load_explicit(&file_default, memory_order_relaxed);
    return h ? h : MPI_ERRORS_RETURN;
}

/* Raise `errclass` in `call` on the files' default handler. */
static int file_error(const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int file_error(const char *call, int errclass, const char *fmt, ...)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (file_handler() == MPI_ERRORS_ARE_FATAL)
        myr_mpi_die(errclass, "rank %d: %s: %s", self->world_rank, call, msg);
    if (errclass == MPI_ERR_UNSUPPORTED_OPERATION &&
        !atomic_flag_test_and_set(&file_note_given))
        fprintf(stderr,
                "myriad: rank %d: %s: %s; it returns MPI_ERR_UNSUPPORTED_OPERATION "
                "(files' default error handler is MPI_ERRORS_RETURN; this is said once)\n",
                self->world_rank, call, msg);
    return errclass;
}

static int file_unsupported(const char *call)
{
    return file_error(call, MPI_ERR_UNSUPPORTED_OPERATION,
                      "not implemented yet in Myriad (MPI I/O)");
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_File_set_errhandler";
    if (file != MPI_FILE_NULL)
        return file_error(call, MPI_ERR_FILE, "invalid file handle %p", (void *)file);
    if (errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL)
        return file_error(call, MPI_ERR_UNSUPPORTED_OPERATION,
                          "not implemented yet in Myriad (file error handlers other "
                          "than MPI_ERRORS_RETURN and MPI_ERRORS_ARE_FATAL)");
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    atomic_store_explicit(&file_default, errhandler, memory_order_relaxed);
    return MPI_SUCCESS;
}
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
    MYR_PMPI(File_set_errhandler);

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_File_get_errhandler";
    if (file != MPI_FILE_NULL)
        return file_error(call, MPI_ERR_FILE, "invalid file handle %p", (void *)file);
    if (!errhandler)
        return file_error(call, MPI_ERR_ARG, "errhandler is NULL");
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    *errhandler = file_handler();
    return MPI_SUCCESS;
}
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
    MYR_PMPI(File_get_errhandler);

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    static const char call[] = "MPI_File_call_errhandler";
    if (fh != MPI_FILE_NULL)
        return file_error(call, MPI_ERR_FILE, "invalid file handle %p", (void *)fh);
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if (file_handler() == MPI_ERRORS_ARE_FATAL)
        myr_mpi_die(errorcode, "rank %d: %s: error code %d raised by the program",
                    self->world_rank, call, errorcode);
    return MPI_SUCCESS;
}
int MPI_File_call_errhandler(MPI_File fh, int errorcode) MYR_PMPI(File_call_errhandler);

/* ---- handles that cannot exist yet ------------------------------------- */

/* No window or file is ever made, so every valid handle is the null one. */
MPI_Fint PMPI_Win_c2f(MPI_Win win) { return 0; }
MPI_Fint MPI_Win_c2f(MPI_Win win) MYR_PMPI(Win_c2f);
MPI_Win PMPI_Win_f2c(MPI_Fint win) { return MPI_WIN_NULL; }
MPI_Win MPI_Win_f2c(MPI_Fint win) MYR_PMPI(Win_f2c);
MPI_Fint PMPI_File_c2f(MPI_File file) { return 0; }
MPI_Fint MPI_File_c2f(MPI_File file) MYR_PMPI(File_c2f);
MPI_File PMPI_File_f2c(MPI_Fint file) { return MPI_FILE_NULL; }
MPI_File MPI_File_f2c(MPI_Fint file) MYR_PMPI(File_f2c);

int myr_mpi_win_null_copy_fn(MPI_Win oldwin, int keyval, void *extra_state,
                             void *attribute_val_in, void *attribute_val_out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int myr_mpi_win_dup_fn(MPI_Win oldwin, int keyval, void *extra_state,
                       void *attribute_val_in, void *attribute_val_out, int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int myr_mpi_win_null_delete_fn(MPI_Win win, int keyval, void *attribute_val,
                               void *extra_state)
{
    return MPI_SUCCESS;
}

/* A marker for MPI_Register_datarep ("no conversion"): never called. */
int myr_mpi_conversion_fn_null(void *userbuf, MPI_Datatype datatype, int count,
                               void *filebuf, MPI_Offset position, void *extra_state)
{
    return MPI_SUCCESS;
}

/* ---- calls that work ---------------------------------------------------- */

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char call[] = "MPI_Comm_get_parent";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!parent)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "parent is NULL");
    *parent = MPI_COMM_NULL;   /* Myriad's jobs are started, never spawned */
    return MPI_SUCCESS;
}
int MPI_Comm_get_parent(MPI_Comm *parent) MYR_PMPI(Comm_get_parent);

/* Profiling libraries give levels a meaning; Myriad itself has none. */
int PMPI_Pcontrol(const int level, ...)
{
    return MPI_SUCCESS;
}
int MPI_Pcontrol(const int level, ...) MYR_PMPI(Pcontrol);

/* ---- the stubs ------------------------------------------------------------ */

/* A call raising on communicator `comm` (MPI_COMM_NULL: MPI_COMM_WORLD). */
#define ON_COMM(area, name, params, comm)                                     \
    int PMPI_##name params { return unsupported(comm, "MPI_" #name, area); } \
    int MPI_##name params MYR_PMPI(name);
#define ON_WORLD(area, name, params) ON_COMM(area, name, params, MPI_COMM_NULL)
/* A file call: raises on the files' default handler. */
#define ON_FILE(name, params)                                                 \
    int PMPI_##name params { return file_unsupported("MPI_" #name); }        \
    int MPI_##name params MYR_PMPI(name);

/* Process creation and management. */
ON_COMM(DPM, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]), comm)
ON_COMM(DPM, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]), comm)
ON_WORLD(DPM, Open_port, (MPI_Info info, char *port_name))
ON_WORLD(DPM, Close_port, (const char *port_name))
ON_COMM(DPM, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm), comm)
ON_COMM(DPM, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm), comm)
ON_COMM(DPM, Comm_disconnect, (MPI_Comm *comm), comm ? *comm : MPI_COMM_NULL)
ON_WORLD(DPM, Comm_join, (int fd, MPI_Comm *intercomm))
ON_WORLD(DPM, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
ON_WORLD(DPM, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
ON_WORLD(DPM, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))

/* One-sided communication. */
ON_COMM(RMA, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win), comm)
ON_COMM(RMA, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win), comm)
ON_COMM(RMA, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win), comm)
ON_COMM(RMA, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win), comm)
ON_WORLD(RMA, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
ON_WORLD(RMA, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
ON_WORLD(RMA, Win_detach, (MPI_Win win, const void *base))
ON_WORLD(RMA, Win_free, (MPI_Win *win))
ON_WORLD(RMA, Win_get_group, (MPI_Win win, MPI_Group *group))
ON_WORLD(RMA, Win_set_info, (MPI_Win win, MPI_Info info))
ON_WORLD(RMA, Win_get_info, (MPI_Win win, MPI_Info *info_used))
ON_WORLD(RMA, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
ON_WORLD(RMA, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
ON_WORLD(RMA, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ON_WORLD(RMA, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
ON_WORLD(RMA, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
ON_WORLD(RMA, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
ON_WORLD(RMA, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ON_WORLD(RMA, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
ON_WORLD(RMA, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ON_WORLD(RMA, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
ON_WORLD(RMA, Win_fence, (int assert, MPI_Win win))
ON_WORLD(RMA, Win_start, (MPI_Group group, int assert, MPI_Win win))
ON_WORLD(RMA, Win_complete, (MPI_Win win))
ON_WORLD(RMA, Win_post, (MPI_Group group, int assert, MPI_Win win))
ON_WORLD(RMA, Win_wait, (MPI_Win win))
ON_WORLD(RMA, Win_test, (MPI_Win win, int *flag))
ON_WORLD(RMA, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
ON_WORLD(RMA, Win_lock_all, (int assert, MPI_Win win))
ON_WORLD(RMA, Win_unlock, (int rank, MPI_Win win))
ON_WORLD(RMA, Win_unlock_all, (MPI_Win win))
ON_WORLD(RMA, Win_flush, (int rank, MPI_Win win))
ON_WORLD(RMA, Win_flush_all, (MPI_Win win))
ON_WORLD(RMA, Win_flush_local, (int rank, MPI_Win win))
ON_WORLD(RMA, Win_flush_local_all, (MPI_Win win))
ON_WORLD(RMA, Win_sync, (MPI_Win win))
ON_WORLD(RMA, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state))
ON_WORLD(RMA, Win_free_keyval, (int *win_keyval))
ON_WORLD(RMA, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
ON_WORLD(RMA, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
ON_WORLD(RMA, Win_delete_attr, (MPI_Win win, int win_keyval))
ON_WORLD(RMA, Win_set_name, (MPI_Win win, const char *win_name))
ON_WORLD(RMA, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
ON_WORLD(RMA, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
ON_WORLD(RMA, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
ON_WORLD(RMA, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
ON_WORLD(RMA, Win_call_errhandler, (MPI_Win win, int errorcode))

/* I/O. */
ON_FILE(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
ON_FILE(File_close, (MPI_File *fh))
ON_FILE(File_delete, (const char *filename, MPI_Info info))
ON_FILE(File_set_size, (MPI_File fh, MPI_Offset size))
ON_FILE(File_preallocate, (MPI_File fh, MPI_Offset size))
ON_FILE(File_get_size, (MPI_File fh, MPI_Offset *size))
ON_FILE(File_get_group, (MPI_File fh, MPI_Group *group))
ON_FILE(File_get_amode, (MPI_File fh, int *amode))
ON_FILE(File_set_info, (MPI_File fh, MPI_Info info))
ON_FILE(File_get_info, (MPI_File fh, MPI_Info *info_used))
ON_FILE(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
ON_FILE(File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
ON_FILE(File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_seek, (MPI_File fh, MPI_Offset offset, int whence))
ON_FILE(File_get_position, (MPI_File fh, MPI_Offset *offset))
ON_FILE(File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
ON_FILE(File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
ON_FILE(File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
ON_FILE(File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
ON_FILE(File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
ON_FILE(File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
ON_FILE(File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
ON_FILE(File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
ON_FILE(File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
ON_FILE(File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
ON_FILE(File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
ON_FILE(File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
ON_FILE(File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
ON_FILE(Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
ON_FILE(File_set_atomicity, (MPI_File fh, int flag))
ON_FILE(File_get_atomicity, (MPI_File fh, int *flag))
ON_FILE(File_sync, (MPI_File fh))
ON_FILE(File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))

/* Fortran's parameterized types (MPI 3.1, 17.1.9). */
ON_WORLD(F90, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
ON_WORLD(F90, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
ON_WORLD(F90, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
