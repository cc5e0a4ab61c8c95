/*
 * request.c — completing requests: the Wait and Test families, Start,
 * Request_free, Request_get_status, Cancel.
 *
 * A request handle is: MPI_REQUEST_NULL; an active request (started, not
 * yet completed by a Wait/Test); or an inactive persistent request. Wait
 * and Test on null or inactive requests return at once with an empty
 * status. Completing a non-persistent request frees it and nulls the
 * handle; a persistent one becomes inactive.
 *
 * A nonblocking collective's request (MYR_REQ_COLL, coll/nbc.c) is
 * completed by whoever finishes the collective (on an intracommunicator
 * the last rank to arrive, on others the ULT running it); its failure
 * carries a message (request->why) that Wait/Test raise. It cannot be
 * freed or cancelled (MPI 3.1, 5.12).
 *
 * Waiting suspends the calling ULT on its rank's wait cell (core/wait.c);
 * Test calls that find nothing yield, so a polling loop lets the ranks it
 * waits for run on the same worker, and in a job of several processes
 * drive the network once (test_progress).
 */
#include "coll/coll.h"
#include "core/p2p.h"
#include "core/remote.h"
#include "mpi/mpi_impl.h"

#include <stdlib.h>

/* What a Test call does when it finds nothing done. */
static void test_progress(void)
{
    if (__builtin_expect(myr_the_job.multiprocess, 0))
        myr_remote_poll();
    myr_ult_yield();
}

static bool is_pending(MPI_Request r)
{
    return r != MPI_REQUEST_NULL && r->active;
}

static int check_request(const char *call, MPI_Request r)
{
    if (r != MPI_REQUEST_NULL && !myr_request_valid(r))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "invalid request handle %p (%s)", (void *)r,
                             myr_handle_problem(r));
    return MPI_SUCCESS;
}

static int check_requests(const char *call, int count, MPI_Request requests[])
{
    int err;
    if (count < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call,
                             "invalid count %d (must be >= 0)", count);
    if (count > 0 && !requests)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "array of requests is NULL with count %d", count);
    for (int i = 0; i < count; i++)
        if ((err = check_request(call, requests[i])))
            return err;
    return MPI_SUCCESS;
}

/* Retire a completed request: status out, free or deactivate, and return
 * the error the operation carries (truncation), without raising it. */
static int retire(MPI_Request *handle, MPI_Status *status)
{
    MPI_Request r = *handle;
    if (r->kind == MYR_REQ_GREQ)
        myr_greq_query(r);
    MPI_Status st = r->status;
    myr_status_copy(status, &st);
    if (r->persistent) {
        r->active = false;
    } else {
        myr_request_release(r);
        *handle = MPI_REQUEST_NULL;
    }
    return st.MPI_ERROR;
}

/* The status of a null or inactive request: the empty status whole,
 * MPI_ERROR = MPI_SUCCESS included (MPI 3.1, 3.7.3; MPICH and Open MPI
 * write it too). Only a completed operation's status leaves MPI_ERROR to
 * the user (myr_status_copy). */
static void empty_status(MPI_Status *status)
{
    if (status)
        myr_status_empty(status);
}

static int raise_op_error(const char *call, MPI_Comm comm, int err, const char *why)
{
    if (why)
        return myr_mpi_error(comm, err, call, "%s", why);
    if (err == MPI_ERR_TRUNCATE)
        return myr_mpi_error(comm, err, call, "received message truncated to the "
                                              "receive buffer");
    if (err == MPI_ERR_TYPE)
        return myr_mpi_error(comm, err, call, "received message ends inside a basic "
                                              "element of the receive type: the type "
                                              "signatures do not match");
    return myr_mpi_error(comm, err, call, "the operation failed");
}

/* Retire a completed request and raise the error it carries on its
 * communicator. With an error to raise, the communicator is held across
 * the retirement: releasing the request may drop the last reference to a
 * communicator the user has freed. */
static int retire_and_raise(const char *call, MPI_Request *request, MPI_Status *status)
{
    MPI_Comm comm = (*request)->comm;
    bool failed = (*request)->status.MPI_ERROR != MPI_SUCCESS;
    char *why = NULL;
    if (failed) {
        myr_comm_retain(comm);
        why = (*request)->why;   /* a collective's message outlives it */
        (*request)->why = NULL;
    }
    int err = retire(request, status);
    if (err)
        err = raise_op_error(call, comm, err, why);
    free(why);
    if (failed)
        myr_comm_release(comm);
    return err;
}

/* MPI_Wait on a nonblocking collective's request: the rank joins the
 * operation's round if it can (myr_coll_nb_wait), and a request that
 * carries no error is retired here, in one step (it cannot be persistent,
 * nor generalized). */
static int wait_collective(const char *call, myr_rank *self, MPI_Request *request,
                           MPI_Status *status)
{
    MPI_Request r = *request;
    if (!myr_request_done(r))
        myr_coll_nb_wait(self, r);
    if (__builtin_expect(r->status.MPI_ERROR != MPI_SUCCESS, 0))
        return retire_and_raise(call, request, status);
    myr_status_copy(status, &r->status);
    *request = MPI_REQUEST_NULL;
    myr_coll_nb_release(r);
    return MPI_SUCCESS;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char call[] = "MPI_Wait";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, request, "request")) ||
        (err = check_request(call, *request)))
        return err;
    if (!is_pending(*request)) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    if ((*request)->kind == MYR_REQ_COLL)
        return wait_collective(call, self, request, status);
    myr_request_wait(self, *request);
    return retire_and_raise(call, request, status);
}
int MPI_Wait(MPI_Request *, MPI_Status *) MYR_PMPI(Wait);

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Test";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, request, "request")) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, flag, "flag")) ||
        (err = check_request(call, *request)))
        return err;
    if (!is_pending(*request)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!myr_request_done(*request)) {
        test_progress();
        if (!myr_request_done(*request)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return retire_and_raise(call, request, status);
}
int MPI_Test(MPI_Request *, int *, MPI_Status *) MYR_PMPI(Test);

typedef struct many {
    int count;
    MPI_Request *requests;
} many;

static bool all_done(void *arg)
{
    many *m = arg;
    for (int i = 0; i < m->count; i++)
        if (is_pending(m->requests[i]) && !myr_request_done(m->requests[i]))
            return false;
    return true;
}

static bool any_done(void *arg)
{
    many *m = arg;
    bool pending = false;
    for (int i = 0; i < m->count; i++)
        if (is_pending(m->requests[i])) {
            if (myr_request_done(m->requests[i]))
                return true;
            pending = true;
        }
    return !pending;  /* nothing pending: done at once */
}

/* Whether a pending request, once complete, carries an error. */
static bool failed(MPI_Request r)
{
    return is_pending(r) && r->status.MPI_ERROR != MPI_SUCCESS;
}

/* Retire every completed pending request into statuses[]. If any failed,
 * the result is MPI_ERR_IN_STATUS and every entry's MPI_ERROR says how its
 * operation ended; otherwise no MPI_ERROR field is written. */
static int retire_all(int count, MPI_Request requests[], MPI_Status statuses[])
{
    bool in_status = false;
    for (int i = 0; i < count && !in_status; i++)
        in_status = failed(requests[i]);
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        int err = MPI_SUCCESS;
        if (is_pending(requests[i]))
            err = retire(&requests[i], st);
        else
            empty_status(st);
        if (st && in_status)
            st->MPI_ERROR = err;
    }
    return in_status ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    static const char call[] = "MPI_Waitall";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_requests(call, count, requests)))
        return err;
    myr_wait_note note = {.kind = MYR_WAIT_REQUESTS, .what = requests, .n = count};
    if (__builtin_expect(myr_wait_yields, 0)) {
        many m = {count, requests};
        myr_wait_until(self, all_done, &m, &note);
    } else {
        /* Woken once, when the last request completes, not at each. */
        myr_request_wait_all(self, count, requests, &note);
    }
    err = retire_all(count, requests, statuses);
    return err ? myr_mpi_error(MPI_COMM_WORLD, err, call,
                               "an operation failed; see the statuses' MPI_ERROR")
               : MPI_SUCCESS;
}
int MPI_Waitall(int, MPI_Request[], MPI_Status[]) MYR_PMPI(Waitall);

int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    static const char call[] = "MPI_Testall";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_requests(call, count, requests)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, flag, "flag")))
        return err;
    many m = {count, requests};
    if (!all_done(&m)) {
        test_progress();
        if (!all_done(&m)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    err = retire_all(count, requests, statuses);
    return err ? myr_mpi_error(MPI_COMM_WORLD, err, call,
                               "an operation failed; see the statuses' MPI_ERROR")
               : MPI_SUCCESS;
}
int MPI_Testall(int, MPI_Request[], int *, MPI_Status[]) MYR_PMPI(Testall);

/* Index of the completed pending request that started first (point-to-
 * point requests are numbered as they start; others count as earliest),
 * MPI_UNDEFINED if none is pending, -1 if some are pending but none
 * completed. MPI lets Waitany/Testany pick any completed one; the earliest
 * started is the order the messages were matched in, which programs that
 * post several MPI_ANY_SOURCE receives and stop at a sender's last
 * message rely on (HPCC's RandomAccess lost the updates that completed
 * beside a "finished" message in a lower slot). */
static int first_done(int count, MPI_Request requests[])
{
    bool pending = false;
    int best = -1;
    for (int i = 0; i < count; i++)
        if (is_pending(requests[i])) {
            pending = true;
            if (myr_request_done(requests[i]) &&
                (best < 0 || myr_request_started_before(requests[i], requests[best])))
                best = i;
        }
    return best >= 0 ? best : pending ? -1 : MPI_UNDEFINED;
}

static int finish_any(const char *call, int count, MPI_Request requests[], int *index,
                      int *flag, MPI_Status *status)
{
    int i = first_done(count, requests);
    if (i == -1) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    *index = i;
    if (i == MPI_UNDEFINED) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    return retire_and_raise(call, &requests[i], status);
}

int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    static const char call[] = "MPI_Waitany";
    int err, flag;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_requests(call, count, requests)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, index, "index")))
        return err;
    many m = {count, requests};
    myr_wait_note note = {.kind = MYR_WAIT_REQUESTS, .what = requests, .n = count};
    myr_wait_until(self, any_done, &m, &note);
    return finish_any(call, count, requests, index, &flag, status);
}
int MPI_Waitany(int, MPI_Request[], int *, MPI_Status *) MYR_PMPI(Waitany);

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                 MPI_Status *status)
{
    static const char call[] = "MPI_Testany";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_requests(call, count, requests)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, index, "index")) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, flag, "flag")))
        return err;
    if (first_done(count, requests) == -1)
        test_progress();
    err = finish_any(call, count, requests, index, flag, status);
    if (!*flag)
        *index = MPI_UNDEFINED;
    return err;
}
int MPI_Testany(int, MPI_Request[], int *, int *, MPI_Status *) MYR_PMPI(Testany);

/* Retire every completed request; *outcount = how many, or MPI_UNDEFINED
 * when none was pending. */
static int finish_some(const char *call, int incount, MPI_Request requests[],
                       int *outcount, int indices[], MPI_Status statuses[])
{
    int n = 0, result = MPI_SUCCESS;
    bool pending = false, in_status = false;
    /* First which ones are done (a request completing after this waits for
     * the next call), so that whether any failed is known before the
     * first status is written. */
    for (int i = 0; i < incount; i++) {
        if (!is_pending(requests[i]))
            continue;
        pending = true;
        if (myr_request_done(requests[i])) {
            indices[n++] = i;
            in_status |= failed(requests[i]);
        }
    }
    for (int k = 0; k < n; k++) {
        MPI_Status *st = statuses ? &statuses[k] : NULL;
        int err = retire(&requests[indices[k]], st);
        if (st && in_status)
            st->MPI_ERROR = err;
        if (err)
            result = MPI_ERR_IN_STATUS;
    }
    *outcount = pending ? n : MPI_UNDEFINED;
    return result ? myr_mpi_error(MPI_COMM_WORLD, result, call,
                                  "an operation failed; see the statuses' MPI_ERROR")
                  : MPI_SUCCESS;
}

static int check_some(const char *call, int incount, MPI_Request requests[],
                      int *outcount, int indices[])
{
    int err;
    if ((err = check_requests(call, incount, requests)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, outcount, "outcount")))
        return err;
    if (incount > 0 && !indices)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "indices is NULL");
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    static const char call[] = "MPI_Waitsome";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_some(call, incount, requests, outcount, indices)))
        return err;
    many m = {incount, requests};
    myr_wait_note note = {.kind = MYR_WAIT_REQUESTS, .what = requests, .n = incount};
    myr_wait_until(self, any_done, &m, &note);
    return finish_some(call, incount, requests, outcount, indices, statuses);
}
int MPI_Waitsome(int, MPI_Request[], int *, int[], MPI_Status[]) MYR_PMPI(Waitsome);

int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    static const char call[] = "MPI_Testsome";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_some(call, incount, requests, outcount, indices)))
        return err;
    if (first_done(incount, requests) == -1)
        test_progress();
    return finish_some(call, incount, requests, outcount, indices, statuses);
}
int MPI_Testsome(int, MPI_Request[], int *, int[], MPI_Status[]) MYR_PMPI(Testsome);

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Request_get_status";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_request(call, request)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, flag, "flag")))
        return err;
    if (!is_pending(request)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!myr_request_done(request))
        test_progress();
    *flag = myr_request_done(request);
    if (*flag && status) {
        if (request->kind == MYR_REQ_GREQ)
            myr_greq_query(request);
        myr_status_copy(status, &request->status);
    }
    return MPI_SUCCESS;
}
int MPI_Request_get_status(MPI_Request, int *, MPI_Status *) MYR_PMPI(Request_get_status);

/* A handle that must name a request (not MPI_REQUEST_NULL). */
static int check_live_request(const char *call, MPI_Request *request)
{
    int err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, request, "request")))
        return err;
    if (*request == MPI_REQUEST_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is MPI_REQUEST_NULL");
    return check_request(call, *request);
}

/* MPI 3.1, 5.12: freeing or cancelling the request of a nonblocking
 * collective is erroneous (the other ranks' operations depend on this
 * one's): an error, and the request stays as it was. */
static int check_not_collective(const char *call, MPI_Request r, const char *verb)
{
    if (r->kind == MYR_REQ_COLL)
        return myr_mpi_error(r->comm, MPI_ERR_REQUEST, call,
                             "request belongs to a nonblocking collective, which "
                             "cannot be %s (complete it with MPI_Wait or MPI_Test)",
                             verb);
    return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *request)
{
    static const char call[] = "MPI_Request_free";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_live_request(call, request)))
        return err;
    if ((err = check_not_collective(call, *request, "freed")))
        return err;
    MPI_Request r = *request;
    *request = MPI_REQUEST_NULL;
    if (!r->active) {
        myr_request_release(r);
        return MPI_SUCCESS;
    }
    /* Still in flight: whoever completes it frees it (p2p.c). */
    int old = atomic_fetch_or(&r->state, MYR_REQ_FREED);
    if (old & MYR_REQ_COMPLETE)
        myr_request_release(r);
    return MPI_SUCCESS;
}
int MPI_Request_free(MPI_Request *) MYR_PMPI(Request_free);

int PMPI_Cancel(MPI_Request *request)
{
    static const char call[] = "MPI_Cancel";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_live_request(call, request)) ||
        (err = check_not_collective(call, *request, "cancelled")))
        return err;
    /* Success or not, the request still completes and must be waited for.
     * A complete one too: a send to another process may be cancelled
     * until its receiver matches it (myr_p2p_cancel decides). */
    if ((*request)->kind == MYR_REQ_GREQ)
        myr_greq_cancel(*request);
    else if (is_pending(*request))
        myr_p2p_cancel(*request);
    return MPI_SUCCESS;
}
int MPI_Cancel(MPI_Request *) MYR_PMPI(Cancel);

static int start_one(const char *call, MPI_Request r)
{
    if (r == MPI_REQUEST_NULL || !myr_request_valid(r))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "invalid request handle %p (%s)", (void *)r,
                             myr_handle_problem(r));
    if (!r->persistent)
        return myr_mpi_error(r->comm, MPI_ERR_REQUEST, call,
                             "request is not persistent (use MPI_Send_init or "
                             "MPI_Recv_init)");
    if (r->active)
        return myr_mpi_error(r->comm, MPI_ERR_REQUEST, call,
                             "request is already active (wait for it first)");
    r->active = true;
    if (r->kind == MYR_REQ_RECV) {
        myr_p2p_start_recv(r);
        return MPI_SUCCESS;
    }
    int err = myr_p2p_start_send(r);
    if (err) {
        r->active = false;
        return myr_mpi_error(r->comm, err, call, err == MPI_ERR_BUFFER
                                 ? "the attached buffer is too small for this message"
                                 : "out of memory");
    }
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    static const char call[] = "MPI_Start";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, request, "request")))
        return err;
    return start_one(call, *request);
}
int MPI_Start(MPI_Request *) MYR_PMPI(Start);

int PMPI_Startall(int count, MPI_Request requests[])
{
    static const char call[] = "MPI_Startall";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_requests(call, count, requests)))
        return err;
    for (int i = 0; i < count; i++)
        if ((err = start_one(call, requests[i])))
            return err;
    return MPI_SUCCESS;
}
int MPI_Startall(int, MPI_Request[]) MYR_PMPI(Startall);
