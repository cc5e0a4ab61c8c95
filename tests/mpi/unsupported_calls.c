/* unsupported_calls.c — the calls mpi.h declares that Myriad does not
 * implement yet fail with MPI_ERR_UNSUPPORTED_OPERATION through the
 * handler MPI names (the communicator's, MPI_COMM_WORLD's, the files'
 * default), and those that work without windows, files or spawned jobs
 * (MPI_Comm_get_parent, the tools interface with no variables, the
 * File/Win handle conversions, MPI_Pcontrol) work. Every case runs in
 * every rank. Usage: unsupported_calls CASE. */
#include <mpi.h>

#include <string.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)
#define UNSUPPORTED(expr) CHECK((expr) == MPI_ERR_UNSUPPORTED_OPERATION)

static void calls_return_the_class_under_errors_return(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Win win = MPI_WIN_NULL;
    MPI_Comm inter;
    MPI_Request req;
    MPI_Datatype t;
    char port[MPI_MAX_PORT_NAME];
    double buf[4] = {0};
    void *base;
    UNSUPPORTED(MPI_Win_create(buf, sizeof buf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    UNSUPPORTED(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    UNSUPPORTED(MPI_Win_fence(0, win));
    UNSUPPORTED(MPI_Put(buf, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
    UNSUPPORTED(MPI_Rget(buf, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win, &req));
    UNSUPPORTED(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
    UNSUPPORTED(MPI_Win_free(&win));
    UNSUPPORTED(MPI_Comm_spawn("./worker", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                               &inter, MPI_ERRCODES_IGNORE));
    UNSUPPORTED(MPI_Open_port(MPI_INFO_NULL, port));
    UNSUPPORTED(MPI_Type_create_f90_real(6, 30, &t));
    int cls;
    CHECK_MPI(MPI_Error_class(MPI_ERR_UNSUPPORTED_OPERATION, &cls));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_MPI(MPI_Finalize());
}

/* The communicator's handler decides, not MPI_COMM_WORLD's. */
static void the_communicators_handler_is_used(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Comm dup;
    MPI_Win win;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    UNSUPPORTED(MPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win));
    UNSUPPORTED(PMPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win));
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Finalize());
}

/* Files: their default handler is MPI_ERRORS_RETURN (MPI 3.1, 13.7). */
static void file_calls_return_by_default(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_File fh = MPI_FILE_NULL;
    MPI_Errhandler eh;
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    UNSUPPORTED(MPI_File_open(MPI_COMM_WORLD, "out.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                              MPI_INFO_NULL, &fh));
    UNSUPPORTED(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    UNSUPPORTED(MPI_File_write_at_all(fh, 0, "x", 1, MPI_CHAR, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_close(&fh));
    CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL);
    CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0 && MPI_Win_f2c(0) == MPI_WIN_NULL);
    CHECK_MPI(MPI_Finalize());
}

static void file_calls_are_fatal_when_asked(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_File fh;
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
    MPI_File_open(MPI_COMM_WORLD, "out.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(!"MPI_File_open returned under MPI_ERRORS_ARE_FATAL");
}

static void window_call_is_fatal_by_default(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Win win;
    int x = 0;
    MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(!"MPI_Win_create returned under MPI_ERRORS_ARE_FATAL");
}

static void spawn_is_fatal_by_default(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Comm inter;
    MPI_Comm_spawn("./worker", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                   MPI_ERRCODES_IGNORE);
    CHECK(!"MPI_Comm_spawn returned under MPI_ERRORS_ARE_FATAL");
}

/* The tools interface: initialized, and empty. */
static void tools_interface_is_initialized_and_empty(void)
{
    int provided, n = -1, idx;
    MPI_T_pvar_session session;
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE);
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK(n == 0);
    CHECK_MPI(MPI_T_pvar_get_num(&n));
    CHECK(n == 0);
    CHECK_MPI(MPI_T_category_get_num(&n));
    CHECK(n == 0);
    CHECK(MPI_T_cvar_get_index("no_such_variable", &idx) == MPI_T_ERR_INVALID_NAME);
    char name[64], desc[64];
    int len = 64, dlen = 64, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    CHECK(MPI_T_cvar_get_info(0, name, &len, &verb, &dt, &en, desc, &dlen, &bind, &scope) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
    CHECK(MPI_T_pvar_read(session, MPI_T_PVAR_HANDLE_NULL, name) == MPI_T_ERR_INVALID_HANDLE);
    CHECK_MPI(MPI_T_pvar_session_free(&session));
    CHECK(session == MPI_T_PVAR_SESSION_NULL);
    CHECK_MPI(MPI_T_finalize());
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
}

static void calls_that_need_nothing_missing_work(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);
    CHECK_MPI(MPI_Pcontrol(1));
    CHECK_MPI(MPI_Pcontrol(0, "ignored"));
    /* The tools interface counts initializations per OS process, which
     * the ranks here share: one rank checks it while the others wait. */
    int rank, len;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    if (rank == 0)
        tools_interface_is_initialized_and_empty();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* Their error classes have strings like every class. */
    char s[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, s, &len));
    CHECK(strncmp(s, "MPI_T_ERR_INVALID_INDEX: ", 25) == 0);
    CHECK_MPI(MPI_Finalize());
}

static const test_case cases[] = {
    {"calls_return_the_class_under_errors_return", calls_return_the_class_under_errors_return},
    {"the_communicators_handler_is_used", the_communicators_handler_is_used},
    {"file_calls_return_by_default", file_calls_return_by_default},
    {"file_calls_are_fatal_when_asked", file_calls_are_fatal_when_asked},
    {"window_call_is_fatal_by_default", window_call_is_fatal_by_default},
    {"spawn_is_fatal_by_default", spawn_is_fatal_by_default},
    {"calls_that_need_nothing_missing_work", calls_that_need_nothing_missing_work},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
