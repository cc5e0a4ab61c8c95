/* errors.c — raising MPI errors through error handlers (see mpi_impl.h). */
#include "mpi/mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct myr_mpi_errhandler {
    unsigned magic;
    MPI_Comm_errhandler_function *fn;  /* NULL for the predefined ones */
};

struct myr_mpi_errhandler myr_mpi_errors_are_fatal = {MYR_MAGIC_ERRHANDLER, NULL};
struct myr_mpi_errhandler myr_mpi_errors_return = {MYR_MAGIC_ERRHANDLER, NULL};

/* End the whole job: every rank lives in this process. */
_Noreturn static void abort_job(int status)
{
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

int myr_mpi_error(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
{
    myr_rank *self = myr_rank_self();
    MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
    if (self) {
        MPI_Comm where = myr_comm_valid(comm) ? comm : MPI_COMM_WORLD;
        handler = myr_comm_local_of(where, self)->errhandler;
    }
    if (handler == MPI_ERRORS_RETURN)
        return errclass;
    if (handler != MPI_ERRORS_ARE_FATAL && handler && handler->fn) {
        MPI_Comm c = myr_comm_valid(comm) ? comm : MPI_COMM_WORLD;
        int code = errclass;
        handler->fn(&c, &code, call);
        return errclass;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (self)
        fprintf(stderr, "rank %d: %s: %s\n", self->world_rank, call, msg);
    else
        fprintf(stderr, "myriad: %s: %s\n", call, msg);
    abort_job(errclass ? errclass : 1);
}
