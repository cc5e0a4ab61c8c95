/*
 * myr_task.h — dataflow tasks inside a rank (docs/tasks.md).
 *
 * A task is a function and an argument with a list of dependences on
 * memory regions (address, size) it reads (IN), writes (OUT) or both
 * (INOUT). Tasks whose regions overlap run in the order they were created
 * when one of them writes (read-after-write, write-after-read,
 * write-after-write); readers of the same data run concurrently. A ready
 * task runs as a ULT that acts for the rank that created it (same MPI
 * rank, same copy of the program's globals), on any worker: a task that
 * calls blocking MPI suspends only itself.
 *
 * Every function returns MYR_OK or an MYR_ERR_* code (myr_ult.h):
 * MYR_ERR_ARG for bad arguments, MYR_ERR_STATE when not called from a ULT
 * (an MPI rank, a task, or any ULT of a program of the ULT API).
 */
#ifndef MYR_TASK_H
#define MYR_TASK_H

#include "myr_ult.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*myr_task_fn)(void *arg);

/* Access modes of a dependence. */
enum myr_task_mode {
    MYR_TASK_IN = 1,
    MYR_TASK_OUT = 2,
    MYR_TASK_INOUT = 3,
};

/* One dependence: bytes [addr, addr + size). A size of 0 orders nothing. */
typedef struct myr_task_dep {
    const void *addr;
    long size;
    int mode;            /* enum myr_task_mode */
} myr_task_dep_t;

/* Flags of myr_task_create. */
enum {
    /* Runs before every ready task of its rank that is not high-priority
     * (communication and the critical path). */
    MYR_TASK_HIGH_PRIORITY = 1,
};

/* Create a task running fn(arg) once every earlier task (of the calling
 * rank) it conflicts with on deps[0 .. ndeps-1] has ended. Tasks created
 * by a task are not ordered after their creator (it is running) and the
 * creator ends only once they have ended. */
int myr_task_create(myr_task_fn fn, void *arg, const myr_task_dep_t *deps,
                    int ndeps, int flags);

/* Wait until every task (or request, below) created so far that writes a
 * region containing the byte at addr has ended. */
int myr_task_wait_on(const void *addr);

/* Wait until every task created by the caller (the rank, or the calling
 * task) has ended, with the tasks they created in turn. */
int myr_taskwait(void);

/* MPI requests as dependences (needs Myriad's MPI; `request` is an
 * MPI_Request *): the nonblocking point-to-point request *request becomes
 * the writer of [addr, addr + size), as if a task with an OUT dependence
 * on it ran until the request completes. Tasks created afterwards that
 * touch the region become ready when the request completes (no task or
 * ULT waits for it). The runtime takes the request over: *request is set
 * to MPI_REQUEST_NULL and it is freed when it completes (its status is not
 * available). Persistent, collective and generalized requests are
 * MYR_ERR_ARG; a request another ULT is already waiting for is
 * MYR_ERR_STATE. */
struct myr_mpi_request;
int myr_task_depend_request(struct myr_mpi_request **request, const void *addr,
                            long size);

#ifdef __cplusplus
}
#endif

#endif /* MYR_TASK_H */
