/*
 * greq.c — generalized requests (MPI 3.1, 12.2): requests the program
 * completes itself with MPI_Grequest_complete, from any of its ULTs or
 * threads, while the waits, tests and frees of request.c treat them like
 * any other request. The callbacks live in the request's `ext`:
 *   query_fn  fills the status when a wait or test retires the request
 *             (and for MPI_Request_get_status once it is complete);
 *   free_fn   runs when the request is released: retired, or freed by
 *             MPI_Request_free (then at completion if that comes later);
 *   cancel_fn runs on MPI_Cancel, told whether the request is complete.
 */
#include "mpi/mpi_impl.h"

#include "core/p2p.h"

#include <stdlib.h>

typedef struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra_state;
} greq;

static void release_greq(struct myr_mpi_request *r)
{
    greq *g = r->ext;
    r->ext = NULL;
    if (g->free)
        g->free(g->extra_state);
    free(g);
}

int myr_greq_query(struct myr_mpi_request *r)
{
    greq *g = r->ext;
    MPI_Status st;
    myr_status_empty(&st);
    int err = g->query ? g->query(g->extra_state, &st) : MPI_SUCCESS;
    r->status = st;
    r->status.MPI_ERROR = err;
    return err;
}

void myr_greq_cancel(struct myr_mpi_request *r)
{
    greq *g = r->ext;
    if (g->cancel)
        g->cancel(g->extra_state, myr_request_done(r));
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char call[] = "MPI_Grequest_start";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_WORLD, request, "request")))
        return err;
    greq *g = malloc(sizeof *g);
    struct myr_mpi_request *r = g ? myr_request_new(self, MYR_REQ_GREQ) : NULL;
    if (!r) {
        free(g);
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *g = (greq){query_fn, free_fn, cancel_fn, extra_state};
    r->ext = g;
    r->release_ext = release_greq;
    r->active = true;
    *request = r;
    return MPI_SUCCESS;
}
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                       MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request) MYR_PMPI(Grequest_start);

/* Callable from any thread of the rank (or a thread of the program's that
 * is none of its ranks'): it only completes the request. */
int PMPI_Grequest_complete(MPI_Request request)
{
    static const char call[] = "MPI_Grequest_complete";
    if (request == MPI_REQUEST_NULL || !myr_request_valid(request) ||
        request->kind != MYR_REQ_GREQ)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call,
                             "invalid request %p (not a generalized request from "
                             "MPI_Grequest_start)", (void *)request);
    if (myr_request_done(request))
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call,
                             "the generalized request is already complete");
    myr_request_complete(request);
    return MPI_SUCCESS;
}
int MPI_Grequest_complete(MPI_Request request) MYR_PMPI(Grequest_complete);
