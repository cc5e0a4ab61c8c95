/*
 * task_impl.h — what task.c offers the task layer's MPI part (request.c):
 * a request as the writer of a region, ended by its completion.
 */
#ifndef MYR_TASK_IMPL_H
#define MYR_TASK_IMPL_H

#include "myr_task.h"

typedef struct myr_task_node myr_task_node;

/* Record a writer of [addr, addr + size) that no task runs: tasks created
 * afterwards that touch the region wait for myr_task_writer_end(*out).
 * It counts as a task of the caller (myr_taskwait waits for it). */
__attribute__((visibility("hidden"), warn_unused_result))
int myr_task_writer_begin(const void *addr, long size, myr_task_node **out);

/* The writer is done: release the tasks that wait for it. Callable from
 * any thread, worker or not. */
__attribute__((visibility("hidden")))
void myr_task_writer_end(myr_task_node *n);

#endif
