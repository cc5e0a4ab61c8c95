/*
 * request.c — MPI requests as dependences of tasks (myr_task.h): the one
 * part of the task layer that knows MPI.
 *
 * The request becomes a writer of its region (task.c, KIND_WRITER) and
 * its completion ends that writer: the request's waiter slot holds
 * MYR_WAITER_NOTIFY, so myr_request_complete calls request_done on
 * whichever thread completes it (core/p2p.c). No ULT waits for it.
 * The request is then freed as by MPI_Request_free: whichever of us and
 * the completer comes second releases it.
 */
#include "core/p2p.h"
#include "task/task_impl.h"

static void request_done(void *arg)
{
    myr_task_writer_end(arg);
}

int myr_task_depend_request(struct myr_mpi_request **request, const void *addr, long size)
{
    if (!myr_ult_self())
        return MYR_ERR_STATE;
    if (!request || !myr_request_valid(*request))
        return MYR_ERR_ARG;
    struct myr_mpi_request *r = *request;
    /* Nonblocking collectives complete through their own path (coll/nbc.c)
     * and generalized requests through the program's callbacks. */
    if ((r->kind != MYR_REQ_SEND && r->kind != MYR_REQ_RECV) || r->persistent ||
        !r->active)
        return MYR_ERR_ARG;
    myr_rank *self = myr_rank_self();
    if (!self || r->owner != self)
        return MYR_ERR_ARG;   /* another rank's request */
    myr_task_node *n;
    int err = myr_task_writer_begin(addr, size, &n);
    if (err)
        return err;
    r->notify = request_done;
    r->notify_arg = n;
    myr_ult_t *expected = NULL;
    if (!atomic_compare_exchange_strong(&r->waiter, &expected, MYR_WAITER_NOTIFY)) {
        /* CLAIMED: its completion has begun, so its data is in place. */
        myr_task_writer_end(n);
        if (expected != MYR_WAITER_CLAIMED)
            return MYR_ERR_STATE;   /* a ULT waits for it (MPI_Wait) */
    }
    *request = MPI_REQUEST_NULL;
    int old = atomic_fetch_or(&r->state, MYR_REQ_FREED);
    if (old & MYR_REQ_COMPLETE)
        myr_request_release(r);
    return MYR_OK;
}
