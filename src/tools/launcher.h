/*
 * launcher.h — myriad-launch, the program mpiexec execs for a job of
 * several OS processes on this node (`mpiexec -n N -nfg P`, P < N).
 * launcher.c starts the processes, watches them and ends the job when one
 * fails; pmix_server.c is the PMIx server (Debian's libpmix) they connect
 * to for their place in the job and their exchanges. Only this program
 * links libpmix: mpiexec itself, which starts every job of one OS process,
 * does not pay libpmix's ~3 ms of loading.
 *
 * Threads: the main thread (launcher.c) forks, reaps and signals; the PMIx
 * library's progress thread runs the server's upcalls, which only report
 * to the main thread through the myr_launcher_* functions below (a mutex
 * and an eventfd).
 */
#ifndef MYR_TOOLS_LAUNCHER_H
#define MYR_TOOLS_LAUNCHER_H

#include <stdbool.h>
#include <sys/types.h>

/* One OS process of the job: ranks first .. first+count-1. */
typedef struct myr_launcher_proc {
    long first, count;
    pid_t pid;               /* 0 until started */
} myr_launcher_proc;

typedef struct myr_launcher_job {
    long nranks;             /* ranks in the job */
    int nprocs;
    myr_launcher_proc *procs;
} myr_launcher_job;

/* ---- pmix_server.c (main thread) -------------------------------------- */

/* Start the PMIx server (its own progress thread; unix socket in a fresh
 * private directory, no remote connections) and register the job's
 * namespace and every process as a client. 0, or -1 with a message. */
int myr_pmix_server_start(const myr_launcher_job *job);
/* Add to *env (a malloc'd, NULL-terminated array of malloc'd strings)
 * what process `proc`'s PMIx client needs to connect. 0 or -1. */
int myr_pmix_server_child_env(int proc, char ***env);
/* Remove the server's directory; the caller then leaves with _exit. */
void myr_pmix_server_stop(void);
/* The library's version, for messages. */
const char *myr_pmix_server_version(void);

/* ---- launcher.c: what the server reports (PMIx's thread) ---------------- */

/* Process `proc` connected (PMIx_Init). */
void myr_launcher_connected(int proc);
/* Process `proc` left the server: by PMIx_Finalize, or because it is
 * exiting (its connection closed); launcher.c tells them apart. */
void myr_launcher_finalized(int proc);
/* Process `proc` called PMIx_Abort (MPI_Abort). */
void myr_launcher_aborted(int proc, int status, const char *msg);

#endif
