/*
 * errors.c — MPI errors: the error classes and their strings, error
 * handlers, and raising an error through the handler of a communicator.
 *
 * Codes. The predefined codes are the classes (0..MPI_ERR_LASTCODE), so
 * MPI_Error_class is the identity on them. MPI_Add_error_class and
 * MPI_Add_error_code hand out the numbers after MPI_ERR_LASTCODE, one
 * process-wide sequence shared by every rank (a new class is also a code,
 * its own class); each remembers its class and an optional string
 * (MPI_Add_error_string). MPI_LASTUSEDCODE follows the sequence.
 *
 * Handlers. What MPI attaches to a communicator per process is attached per
 * rank here (myr_comm_local_of). The predefined handlers are static objects;
 * a user handler (MPI_Comm_create_errhandler) counts its references: one
 * per handle given to the user (create, get) and one per attachment
 * (set). MPI_Errhandler_free drops a handle's reference, so a handler freed
 * while attached keeps working until it is replaced. All reads and writes
 * of attachments and counts happen under `handler_lock`, held for a few
 * instructions and never across a call out; raising an error takes a
 * reference for the duration of the user's function, so a task of the rank
 * may replace the handler concurrently without freeing it under the caller.
 *
 * Ending the job. Every rank lives in this OS process, so "fatal" is
 * _exit() of the process, after a flush of stdio and one line on stderr
 * (myr_job_end_*, ult/overflow.c). The first rank to get there prints and
 * exits; a rank arriving at the same moment waits for the end instead of
 * printing a second, interleaved line.
 */
#include "mpi/mpi_impl.h"

#include "net/net.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct myr_mpi_errhandler {
    unsigned magic;
    MPI_Comm_errhandler_function *fn;  /* NULL for the predefined ones */
    int refs;                          /* user handlers; under handler_lock */
};

struct myr_mpi_errhandler myr_mpi_errors_are_fatal = {MYR_MAGIC_ERRHANDLER, NULL, 1};
struct myr_mpi_errhandler myr_mpi_errors_return = {MYR_MAGIC_ERRHANDLER, NULL, 1};

static myr_spinlock handler_lock;

/* ---- classes and strings --------------------------------------------- */

static const char *const class_strings[MPI_ERR_LASTCODE + 1] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated on receive",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error (see the message printed with it)",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error in the MPI library",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in the status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: request pending (neither failed nor completed)",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address for MPI_Free_mem",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: info key not defined",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error spawning processes",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: service name not published",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached to the window",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between the processes of a collective call",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid file access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left on device",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use by some process",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: error in a data conversion function",
    [MPI_ERR_IO] = "MPI_ERR_IO: other I/O error",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: the tools interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the tools interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: index out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: item index out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid tools handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid performance variable session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category of that name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tools interface",
};

/* ---- codes and classes the program adds ------------------------------ */

typedef struct user_code {
    int errclass;              /* itself for a class */
    char *string;              /* NULL: none given */
} user_code;

static myr_spinlock codes_lock;
static user_code *user_codes;  /* [code - MPI_ERR_LASTCODE - 1] */
static int user_count, user_cap;
int myr_mpi_last_used_code = MPI_ERR_LASTCODE;

static int user_count_now(void)
{
    myr_spin_lock(&codes_lock);
    int n = user_count;
    myr_spin_unlock(&codes_lock);
    return n;
}

static bool valid_code(int code)
{
    return code >= 0 && code <= MPI_ERR_LASTCODE + user_count_now();
}

static bool is_class(int code)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return true;
    bool yes = false;
    myr_spin_lock(&codes_lock);
    int i = code - MPI_ERR_LASTCODE - 1;
    if (i >= 0 && i < user_count)
        yes = user_codes[i].errclass == code;
    myr_spin_unlock(&codes_lock);
    return yes;
}

static int bad_code(const char *call, int code)
{
    int added = user_count_now();
    if (added == 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid error code %d (valid: MPI_SUCCESS..MPI_ERR_LASTCODE, "
                             "0..%d)", code, MPI_ERR_LASTCODE);
    return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                         "invalid error code %d (valid: 0..%d, with those of "
                         "MPI_Add_error_class and MPI_Add_error_code)",
                         code, MPI_ERR_LASTCODE + added);
}

/* The string of a valid code into buf (MPI_MAX_ERROR_STRING bytes). */
static void code_string(int code, char *buf)
{
    if (code <= MPI_ERR_LASTCODE) {
        snprintf(buf, MPI_MAX_ERROR_STRING, "%s", class_strings[code]);
        return;
    }
    myr_spin_lock(&codes_lock);
    const char *str = user_codes[code - MPI_ERR_LASTCODE - 1].string;
    snprintf(buf, MPI_MAX_ERROR_STRING, "%s", str ? str : "");
    myr_spin_unlock(&codes_lock);
}

/* A new code of class errclass (-1: a new class), or -1 out of memory. */
static int add_code(int errclass)
{
    int code = -1;
    myr_spin_lock(&codes_lock);
    if (user_count == user_cap) {
        int cap = user_cap ? 2 * user_cap : 16;
        user_code *grown = realloc(user_codes, (size_t)cap * sizeof *grown);
        if (!grown) {
            myr_spin_unlock(&codes_lock);
            return -1;
        }
        user_codes = grown;
        user_cap = cap;
    }
    code = MPI_ERR_LASTCODE + 1 + user_count;
    user_codes[user_count++] = (user_code){errclass < 0 ? code : errclass, NULL};
    myr_mpi_last_used_code = code;
    myr_spin_unlock(&codes_lock);
    return code;
}

int PMPI_Add_error_class(int *errorclass)
{
    static const char call[] = "MPI_Add_error_class";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!errorclass)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorclass is NULL");
    int code = add_code(-1);
    if (code < 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    *errorclass = code;
    return MPI_SUCCESS;
}
int MPI_Add_error_class(int *errorclass) MYR_PMPI(Add_error_class);

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char call[] = "MPI_Add_error_code";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!errorcode)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorcode is NULL");
    if (!is_class(errorclass))
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "invalid error class %d (a predefined class, or one from "
                             "MPI_Add_error_class)", errorclass);
    int code = add_code(errorclass);
    if (code < 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    *errorcode = code;
    return MPI_SUCCESS;
}
int MPI_Add_error_code(int errorclass, int *errorcode) MYR_PMPI(Add_error_code);

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char call[] = "MPI_Add_error_string";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!string)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "string is NULL");
    size_t n = strlen(string);
    if (n >= MPI_MAX_ERROR_STRING)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "string of %zu characters (at most MPI_MAX_ERROR_STRING - 1, %d)",
                             n, MPI_MAX_ERROR_STRING - 1);
    if (errorcode <= MPI_ERR_LASTCODE || !valid_code(errorcode))
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "invalid error code %d (only codes and classes the program "
                             "added take a string)", errorcode);
    char *copy = strdup(string);
    if (!copy)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    myr_spin_lock(&codes_lock);
    user_code *u = &user_codes[errorcode - MPI_ERR_LASTCODE - 1];
    char *old = u->string;
    u->string = copy;
    myr_spin_unlock(&codes_lock);
    free(old);
    return MPI_SUCCESS;
}
int MPI_Add_error_string(int errorcode, const char *string) MYR_PMPI(Add_error_string);

/* Error_string and Error_class need no initialised MPI (as in MPI 4.0):
 * they only read a table. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    if (!string)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "string is NULL");
    if (!resultlen)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "resultlen is NULL");
    if (!valid_code(errorcode))
        return bad_code(call, errorcode);
    code_string(errorcode, string);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
int MPI_Error_string(int errorcode, char *string, int *resultlen) MYR_PMPI(Error_string);

int PMPI_Error_class(int errorcode, int *errorclass)
{
    static const char call[] = "MPI_Error_class";
    if (!errorclass)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errorclass is NULL");
    if (!valid_code(errorcode))
        return bad_code(call, errorcode);
    if (errorcode <= MPI_ERR_LASTCODE) {
        *errorclass = errorcode;
    } else {
        myr_spin_lock(&codes_lock);
        *errorclass = user_codes[errorcode - MPI_ERR_LASTCODE - 1].errclass;
        myr_spin_unlock(&codes_lock);
    }
    return MPI_SUCCESS;
}
int MPI_Error_class(int errorcode, int *errorclass) MYR_PMPI(Error_class);

/* ---- ending the job ---------------------------------------------------- */

void myr_mpi_die(int code, const char *fmt, ...)
{
    /* The first thread to end the job goes on; another one waits there
     * for the end instead of printing a second, interleaved line. */
    int status = code & 0xff;
    myr_job_end_begin(status ? status : 1, NULL);
    char line[MPI_MAX_ERROR_STRING + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    size_t len = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
    line[len++] = '\n';
    /* What the ranks printed, then the reason: flushed in bounded time,
     * as every fatal end is (ult/overflow.c), so also past a stream lock
     * that a rank stopped inside a stdio call still holds. */
    myr_job_end_flush(true);
    /* Through stderr's FILE when it can be had (mpiexec -l tags the line
     * with the rank), else straight to the descriptor. */
    bool locked = false;
    for (int tries = 0; tries < 100 && !(locked = ftrylockfile(stderr) == 0); tries++)
        usleep(1000);
    if (locked) {
        fwrite_unlocked(line, 1, len, stderr);
        fflush_unlocked(stderr);
        funlockfile(stderr);
    } else {
        for (size_t off = 0; off < len;) {
            ssize_t w = write(STDERR_FILENO, line + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
    }
    /* The job's other OS processes end too: the launcher's PMIx server
     * ends them all with this status (it may end this one before the
     * call returns). */
    if (myr_the_job.multiprocess) {
        line[len - 1] = '\0';
        myr_net_abort(status ? status : 1, line);
    }
    myr_job_end(false);
}

/* ---- raising ------------------------------------------------------------ */

static bool is_user_handler(MPI_Errhandler h)
{
    return h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN;
}

/* The handler of `comm` for rank `self`, with a reference the caller drops
 * with handler_release. */
static MPI_Errhandler handler_acquire(MPI_Comm comm, myr_rank *self)
{
    myr_spin_lock(&handler_lock);
    MPI_Errhandler h = myr_comm_local_of(comm, self)->errhandler;
    if (is_user_handler(h))
        h->refs++;
    myr_spin_unlock(&handler_lock);
    return h;
}

static void handler_release(MPI_Errhandler h)
{
    if (!is_user_handler(h))
        return;
    myr_spin_lock(&handler_lock);
    bool last = --h->refs == 0;
    myr_spin_unlock(&handler_lock);
    if (last) {
        h->magic = MYR_MAGIC_DEAD;
        free(h);
    }
}

int myr_mpi_error(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
{
    myr_rank *self = myr_rank_self();
    MPI_Comm where = myr_comm_valid(comm) ? comm : MPI_COMM_WORLD;
    MPI_Errhandler handler = self ? handler_acquire(where, self) : MPI_ERRORS_ARE_FATAL;
    if (handler == MPI_ERRORS_RETURN)
        return errclass;
    if (handler != MPI_ERRORS_ARE_FATAL) {
        /* The user's function gets the communicator, the code, and (as the
         * implementation-defined extra argument) the name of the call. */
        MPI_Comm c = where;
        int code = errclass;
        handler->fn(&c, &code, call);
        handler_release(handler);
        return errclass;
    }
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (self)
        myr_mpi_die(errclass, "rank %d: %s: %s", self->world_rank, call, msg);
    myr_mpi_die(errclass, "myriad: %s: %s", call, msg);
}

/* ---- handler objects ---------------------------------------------------- */

static bool valid_handler(MPI_Errhandler h)
{
    return h && myr_handle_magic(h) == MYR_MAGIC_ERRHANDLER;
}

int myr_errhandler_create(const char *call, MPI_Comm_errhandler_function *function,
                          MPI_Errhandler *errhandler)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!function)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "function is NULL");
    if (!errhandler)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errhandler is NULL");
    MPI_Errhandler h = malloc(sizeof *h);
    if (!h)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for an error handler");
    *h = (struct myr_mpi_errhandler){MYR_MAGIC_ERRHANDLER, function, 1};
    *errhandler = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    return myr_errhandler_create("MPI_Comm_create_errhandler", function, errhandler);
}
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                               MPI_Errhandler *errhandler) MYR_PMPI(Comm_create_errhandler);

int myr_errhandler_set(const char *call, MPI_Comm comm, MPI_Errhandler errhandler)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (errhandler && !valid_handler(errhandler))
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid error handler handle %p (%s; valid: "
                             "MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, or one from "
                             "MPI_Comm_create_errhandler)",
                             (void *)errhandler, myr_handle_problem(errhandler));
    if (!errhandler)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid error handler MPI_ERRHANDLER_NULL (valid: "
                             "MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, or one from "
                             "MPI_Comm_create_errhandler)");
    myr_comm_local *local = myr_comm_local_of(comm, self);
    myr_spin_lock(&handler_lock);
    MPI_Errhandler old = local->errhandler;
    if (is_user_handler(errhandler))
        errhandler->refs++;
    local->errhandler = errhandler;
    myr_spin_unlock(&handler_lock);
    handler_release(old);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return myr_errhandler_set("MPI_Comm_set_errhandler", comm, errhandler);
}
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
    MYR_PMPI(Comm_set_errhandler);

int myr_errhandler_get(const char *call, MPI_Comm comm, MPI_Errhandler *errhandler)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!errhandler)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "errhandler is NULL");
    /* A new handle: the user frees it with MPI_Errhandler_free. */
    *errhandler = handler_acquire(comm, self);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return myr_errhandler_get("MPI_Comm_get_errhandler", comm, errhandler);
}
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
    MYR_PMPI(Comm_get_errhandler);

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Errhandler_free";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!errhandler)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errhandler is NULL");
    if (!*errhandler)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "*errhandler is MPI_ERRHANDLER_NULL, not an error handler");
    if (!valid_handler(*errhandler))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "*errhandler is an invalid handle %p (%s), not an error handler",
                             (void *)*errhandler, myr_handle_problem(*errhandler));
    /* Freeing a predefined handler (as returned by MPI_Comm_get_errhandler)
     * only clears the handle. */
    handler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
int MPI_Errhandler_free(MPI_Errhandler *errhandler) MYR_PMPI(Errhandler_free);

static void detach_user_handler(myr_comm_local *local)
{
    myr_spin_lock(&handler_lock);
    MPI_Errhandler old = local->errhandler;
    if (is_user_handler(old))
        local->errhandler = MPI_ERRORS_ARE_FATAL;
    myr_spin_unlock(&handler_lock);
    if (is_user_handler(old))
        handler_release(old);
}

void myr_errhandler_inherit(MPI_Comm parent, MPI_Comm child, myr_rank *self)
{
    myr_spin_lock(&handler_lock);
    MPI_Errhandler h = myr_comm_local_of(parent, self)->errhandler;
    if (is_user_handler(h))
        h->refs++;
    myr_comm_local_of(child, self)->errhandler = h;
    myr_spin_unlock(&handler_lock);
}

void myr_errhandler_detach(MPI_Comm comm, myr_rank *self)
{
    detach_user_handler(myr_comm_local_of(comm, self));
}

void myr_errhandlers_finalize(myr_rank *self)
{
    detach_user_handler(&self->world_local);
    detach_user_handler(&self->self_local);
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Comm_call_errhandler";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    /* MPI_SUCCESS once the handler has run (and returned): the error is
     * the user's, not this call's. */
    char what[MPI_MAX_ERROR_STRING] = "(not an MPI error code)";
    if (valid_code(errorcode))
        code_string(errorcode, what);
    (void)myr_mpi_error(comm, errorcode, call, "error code %d raised by the program: %s",
                        errorcode, what);
    return MPI_SUCCESS;
}
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) MYR_PMPI(Comm_call_errhandler);
