/*
 * env.c — MPI's environment: initialising and finalizing a rank, thread
 * levels, aborting, versions, clocks, communicator rank and size, memory,
 * and FG-MPI's collocation extensions.
 *
 * A rank's life is myr_rank.init_state: 0 before MPI_Init, 1 between
 * MPI_Init and MPI_Finalize, 2 after. Only the rank itself (its main ULT or
 * a task it spawned) changes it. MPI_Finalize is collective over the job:
 * each rank counts itself into myr_the_job.finalize_arrived and sleeps on
 * its wait cell until the count reaches the job size; the rank that
 * completes the count wakes every other rank. Hence once a rank has
 * returned from MPI_Finalize, every rank has at least entered it, so no
 * rank still communicates with it (MPI forbids communication that is not
 * complete when MPI_Finalize is called), and it may end. A rank that ends
 * without ever calling MPI_Init counts as arrived (it cannot communicate).
 *
 * Thread levels: ULTs spawned by a rank act for it (myr_ult_inherited), and
 * everything in the MPI layer is safe for concurrent callers, so any level
 * the program asks for is provided, up to MPI_THREAD_MULTIPLE. The main
 * thread of a rank is the rank's own ULT (myr_rank.ult).
 */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The PMPIX_ entry points (MYR_PMPI only makes PMPI_ aliases). */
#define MYR_PMPIX(name) __attribute__((weak, alias("PMPIX_" #name)))

/* ---- initialisation and finalization ------------------------------------ */

/* The caller's rank without the init_state check, for the calls MPI allows
 * at any time (NULL, with the error raised, outside a rank). */
static myr_rank *any_time_rank(const char *call, int *err)
{
    myr_rank *self = myr_rank_self();
    if (!self)
        *err = myr_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call,
                             "called from a thread that is not an MPI rank "
                             "(only ranks, and the ULTs and threads they create, may call MPI)");
    return self;
}

static int init_rank(const char *call, int level)
{
    int err;
    myr_rank *self = any_time_rank(call, &err);
    if (!self)
        return err;
    if (self->init_state != 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call, "%s",
                             self->init_state == 1
                                 ? "MPI is already initialised in this rank "
                                   "(MPI_Init or MPI_Init_thread called twice)"
                                 : "called after MPI_Finalize (MPI cannot be "
                                   "initialised again)");
    self->thread_level = level;
    self->init_state = 1;
    return MPI_SUCCESS;
}

/* argc and argv may be NULL; each rank already has its own argv. */
int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_rank("MPI_Init", MPI_THREAD_SINGLE);
}
int MPI_Init(int *argc, char ***argv) MYR_PMPI(Init);

/* Any level from MPI_THREAD_SINGLE up is accepted (a level above
 * MPI_THREAD_MULTIPLE gets MPI_THREAD_MULTIPLE); a negative one is an
 * error. */
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    static const char call[] = "MPI_Init_thread";
    (void)argc;
    (void)argv;
    if (!provided)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "provided is NULL");
    if (required < MPI_THREAD_SINGLE)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid required thread level %d (valid: "
                             "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE, %d..%d)",
                             required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
    int level = required < MPI_THREAD_MULTIPLE ? required : MPI_THREAD_MULTIPLE;
    int err = init_rank(call, level);
    if (err == MPI_SUCCESS)
        *provided = level;
    return err;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    MYR_PMPI(Init_thread);

static bool all_ranks_arrived(void *arg)
{
    (void)arg;
    return atomic_load(&myr_the_job.finalize_arrived) >= myr_the_job.local;
}

/* Count `self` into MPI_Finalize's arrivals; true if it was the last (and
 * woke the others). */
static bool arrive_at_finalize(myr_rank *self)
{
    int arrived = atomic_fetch_add(&myr_the_job.finalize_arrived, 1) + 1;
    if (arrived != myr_the_job.local)
        return false;
    for (int i = 0; i < myr_the_job.local; i++)
        if (&myr_the_job.ranks[i] != self)
            myr_wait_notify(&myr_the_job.ranks[i]);
    return true;
}

void myr_mpi_rank_ended_uninitialized(myr_rank *r)
{
    if (r->init_state != 0)
        return;
    /* The ranks of other processes may wait for this one, and no check can
     * tell across processes: as a process-based MPI's launcher does when a
     * process leaves without MPI_Init, end the job. Not for a rank that
     * used MPI through a session only (MPI 4.0): it needs no MPI_Init. */
    if (myr_the_job.multiprocess && !r->had_session)
        myr_mpi_die(1, "rank %d: ended without calling MPI_Init, in a job of several "
                    "OS processes (every rank must call it)", r->world_rank);
    arrive_at_finalize(r);
}

int PMPI_Finalize(void)
{
    int err;
    myr_rank *self = myr_mpi_enter("MPI_Finalize", &err);
    if (!self)
        return err;
    /* First, while MPI is still usable by the callbacks: the attributes
     * (MPI_COMM_SELF's first, MPI 3.1 8.7.1) and hints of the predefined
     * communicators. A failed callback still lets the rank finalize. */
    err = myr_attr_finalize(self);
    myr_comm_hints_drop(MPI_COMM_SELF);
    myr_comm_hints_drop(MPI_COMM_WORLD);
    if (!arrive_at_finalize(self))
        myr_wait_until(self, all_ranks_arrived, NULL,
                       &(myr_wait_note){.kind = MYR_WAIT_FINALIZE});
    myr_errhandlers_finalize(self);
    self->init_state = 2;
    return err;
}
int MPI_Finalize(void) MYR_PMPI(Finalize);

/* True once MPI_Init has been called, also after MPI_Finalize. */
int PMPI_Initialized(int *flag)
{
    static const char call[] = "MPI_Initialized";
    int err;
    myr_rank *self = any_time_rank(call, &err);
    if (!self)
        return err;
    if (!flag)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    *flag = self->init_state != 0;
    return MPI_SUCCESS;
}
int MPI_Initialized(int *flag) MYR_PMPI(Initialized);

int PMPI_Finalized(int *flag)
{
    static const char call[] = "MPI_Finalized";
    int err;
    myr_rank *self = any_time_rank(call, &err);
    if (!self)
        return err;
    if (!flag)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    *flag = self->init_state == 2;
    return MPI_SUCCESS;
}
int MPI_Finalized(int *flag) MYR_PMPI(Finalized);

/* Ends every rank of the job, whatever `comm` (every OS process of the
 * job: myr_mpi_die asks the launcher to end the others), with exit status errorcode & 0xff, or 1 when that is 0 so that
 * an abort never looks like success. Works at any time, even outside
 * MPI_Init..MPI_Finalize. */
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    myr_rank *self = myr_rank_self();
    if (self)
        myr_mpi_die(errorcode, "rank %d: MPI_Abort called with error code %d",
                    self->world_rank, errorcode);
    myr_mpi_die(errorcode, "myriad: MPI_Abort called with error code %d", errorcode);
}
int MPI_Abort(MPI_Comm comm, int errorcode) MYR_PMPI(Abort);

/* ---- threads ------------------------------------------------------------ */

int PMPI_Query_thread(int *provided)
{
    static const char call[] = "MPI_Query_thread";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if (!provided)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "provided is NULL");
    *provided = self->thread_level;
    return MPI_SUCCESS;
}
int MPI_Query_thread(int *provided) MYR_PMPI(Query_thread);

/* True in the rank's own ULT, false in the ULTs it spawned. */
int PMPI_Is_thread_main(int *flag)
{
    static const char call[] = "MPI_Is_thread_main";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if (!flag)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    *flag = myr_ult_self() == self->ult;
    return MPI_SUCCESS;
}
int MPI_Is_thread_main(int *flag) MYR_PMPI(Is_thread_main);

/* ---- versions and names ------------------------------------------------- */

#if defined(__x86_64__)
#define MYR_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define MYR_ARCH_NAME "aarch64"
#else
#define MYR_ARCH_NAME "unknown architecture"
#endif

static const char library_version[] =
    "Myriad " MYRIAD_VERSION " (MPI 3.1; ranks are user-level threads; " MYR_ARCH_NAME ")";
_Static_assert(sizeof library_version <= MPI_MAX_LIBRARY_VERSION_STRING,
               "library version string too long");

/* Get_version and Get_library_version work at any time (MPI allows both
 * before MPI_Init and after MPI_Finalize), even outside a rank. */
int PMPI_Get_version(int *version, int *subversion)
{
    static const char call[] = "MPI_Get_version";
    if (!version)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "version is NULL");
    if (!subversion)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "subversion is NULL");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
int MPI_Get_version(int *version, int *subversion) MYR_PMPI(Get_version);

int PMPI_Get_library_version(char *version, int *resultlen)
{
    static const char call[] = "MPI_Get_library_version";
    if (!version)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "version is NULL");
    if (!resultlen)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "resultlen is NULL");
    memcpy(version, library_version, sizeof library_version);
    *resultlen = (int)sizeof library_version - 1;
    return MPI_SUCCESS;
}
int MPI_Get_library_version(char *version, int *resultlen) MYR_PMPI(Get_library_version);

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    static const char call[] = "MPI_Get_processor_name";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!name)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "name is NULL");
    if (!resultlen)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "resultlen is NULL");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
int MPI_Get_processor_name(char *name, int *resultlen) MYR_PMPI(Get_processor_name);

/* ---- clocks --------------------------------------------------------------- */

/* Time zero: when the library was loaded, i.e. when the job started; in
 * a job of several OS processes, process 0's (myr_mpi_clock_share). Every
 * rank reads the same clock, so times are comparable across ranks. */
static struct timespec job_start;
static bool clock_global = true;

__attribute__((constructor)) static void record_job_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &job_start);
}

void myr_mpi_clock_share(const myr_net_place *place)
{
    if (place->nprocs <= 1)
        return;
    job_start.tv_sec = (time_t)(place->clock_zero_ns / 1000000000);
    job_start.tv_nsec = (long)(place->clock_zero_ns % 1000000000);
    /* One monotonic clock only within a node. */
    clock_global = place->node_procs == place->nprocs;
}

bool myr_mpi_clock_is_global(void)
{
    return clock_global;
}

/* Seconds since the job started, CLOCK_MONOTONIC. Works at any time. */
double PMPI_Wtime(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - job_start.tv_sec) +
           (double)(now.tv_nsec - job_start.tv_nsec) * 1e-9;
}
double MPI_Wtime(void) MYR_PMPI(Wtime);

double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0 || (res.tv_sec == 0 && res.tv_nsec == 0))
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
double MPI_Wtick(void) MYR_PMPI(Wtick);

/* ---- communicator rank and size ----------------------------------------- */

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char call[] = "MPI_Comm_rank";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!rank)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "rank is NULL");
    *rank = myr_comm_rank(comm, self);
    return MPI_SUCCESS;
}
int MPI_Comm_rank(MPI_Comm comm, int *rank) MYR_PMPI(Comm_rank);

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!size)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "size is NULL");
    *size = myr_comm_size(comm);
    return MPI_SUCCESS;
}
int MPI_Comm_size(MPI_Comm comm, int *size) MYR_PMPI(Comm_size);

/* ---- memory --------------------------------------------------------------- */

/* Memory from MPI_Alloc_mem starts on a cache line (and will be where a
 * future RMA window or network registration wants it). */
#define MYR_ALLOC_MEM_ALIGN 64

/* No hint of MPI_Alloc_mem is acted on. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char call[] = "MPI_Alloc_mem";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (size < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid size %jd (must be >= 0)", (intmax_t)size);
    if ((err = myr_check_info(call, MPI_COMM_NULL, info, true)))
        return err;
    if (!baseptr)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "baseptr is NULL");
    void *p = NULL;
    /* Zero bytes still gives a distinct pointer that MPI_Free_mem takes. */
    size_t bytes = size > 0 ? (size_t)size : 1;
    if (posix_memalign(&p, MYR_ALLOC_MEM_ALIGN, bytes) != 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
                             "cannot allocate %jd bytes", (intmax_t)size);
    memcpy(baseptr, &p, sizeof p);  /* baseptr is a void ** passed as void * */
    return MPI_SUCCESS;
}
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) MYR_PMPI(Alloc_mem);

/* `base` must come from MPI_Alloc_mem (not checked); NULL is accepted. */
int PMPI_Free_mem(void *base)
{
    int err;
    if (!myr_mpi_enter("MPI_Free_mem", &err))
        return err;
    free(base);
    return MPI_SUCCESS;
}
int MPI_Free_mem(void *base) MYR_PMPI(Free_mem);

/* ---- FG-MPI's extensions ---------------------------------------------- */

/* Let the other ready ranks and tasks of this worker run. */
int PMPIX_Yield(void)
{
    int err;
    if (!myr_mpi_enter("MPIX_Yield", &err))
        return err;
    myr_ult_yield();
    return MPI_SUCCESS;
}
int MPIX_Yield(void) MYR_PMPIX(Yield);

/* All ranks of the job are in this OS process (one process per job for
 * now): MPI_COMM_WORLD ranks 0..size-1. */
int PMPIX_Get_collocated_size(int *size)
{
    static const char call[] = "MPIX_Get_collocated_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!size)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size is NULL");
    *size = myr_the_job.local;
    return MPI_SUCCESS;
}
int MPIX_Get_collocated_size(int *size) MYR_PMPIX(Get_collocated_size);

int PMPIX_Get_collocated_startrank(int *rank)
{
    static const char call[] = "MPIX_Get_collocated_startrank";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!rank)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "rank is NULL");
    *rank = myr_the_job.first;
    return MPI_SUCCESS;
}
int MPIX_Get_collocated_startrank(int *rank) MYR_PMPIX(Get_collocated_startrank);
