/* greq_calls.c — generalized requests: completed by another thread or ULT
 * of the rank while it waits, the status from query_fn, free_fn once per
 * request (also after MPI_Request_free before completion), cancel_fn told
 * whether the request is complete, mixed with other requests in
 * MPI_Waitall, and bad arguments. Usage: greq_calls CASE. */
#include <mpi.h>

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "../check.h"

typedef struct state {
    atomic_int queried, freed, cancelled_done, cancelled_pending;
    int source, tag;
} state;

static int query(void *extra, MPI_Status *status)
{
    state *s = extra;
    atomic_fetch_add(&s->queried, 1);
    status->MPI_SOURCE = s->source;
    status->MPI_TAG = s->tag;
    MPI_Status_set_elements(status, MPI_INT, 5);
    MPI_Status_set_cancelled(status, 0);
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    atomic_fetch_add(&((state *)extra)->freed, 1);
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    state *s = extra;
    atomic_fetch_add(complete ? &s->cancelled_done : &s->cancelled_pending, 1);
    return MPI_SUCCESS;
}

static void *complete_later(void *arg)
{
    usleep(20000);   /* the rank is (most likely) asleep in MPI_Wait */
    CHECK_OK(MPI_Grequest_complete(*(MPI_Request *)arg));
    return NULL;
}

static void completed_by_a_thread_while_the_rank_waits(void)
{
    int provided;
    CHECK_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    state s = {.source = 3, .tag = 7};
    MPI_Request r, copy;
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &s, &r));
    copy = r;
    int flag = 1;
    CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && r == copy && atomic_load(&s.queried) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, complete_later, &copy) == 0);
    MPI_Status st;
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    int count;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 7 && count == 5);
    CHECK(atomic_load(&s.queried) == 1 && atomic_load(&s.freed) == 1);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_OK(MPI_Finalize());
}

static void free_cancel_and_waitall(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    int me;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    state a = {.source = 1, .tag = 1}, b = {.source = 2, .tag = 2};
    MPI_Request ra, rb;
    /* Freed before it completes: free_fn at completion, no query. */
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &a, &ra));
    MPI_Request keep = ra;
    CHECK_OK(MPI_Cancel(&ra));
    CHECK(atomic_load(&a.cancelled_pending) == 1);
    CHECK_OK(MPI_Request_free(&ra));
    CHECK(ra == MPI_REQUEST_NULL && atomic_load(&a.freed) == 0);
    CHECK_OK(MPI_Grequest_complete(keep));
    CHECK(atomic_load(&a.freed) == 1 && atomic_load(&a.queried) == 0);
    /* In a Waitall with a receive from this rank itself. */
    CHECK_OK(MPI_Grequest_start(query, release, cancel, &b, &rb));
    CHECK_OK(MPI_Grequest_complete(rb));
    CHECK_OK(MPI_Cancel(&rb));   /* complete already: cancel_fn is told so */
    CHECK(atomic_load(&b.cancelled_done) == 1);
    int x = me, y = -1, flag = 0;
    MPI_Status peek;
    CHECK_OK(MPI_Request_get_status(rb, &flag, &peek));
    CHECK(flag && peek.MPI_TAG == 2 && rb != MPI_REQUEST_NULL);
    MPI_Request rs[3];
    rs[0] = rb;
    CHECK_OK(MPI_Irecv(&y, 1, MPI_INT, me, 9, MPI_COMM_WORLD, &rs[1]));
    CHECK_OK(MPI_Isend(&x, 1, MPI_INT, me, 9, MPI_COMM_WORLD, &rs[2]));
    MPI_Status sts[3];
    CHECK_OK(MPI_Waitall(3, rs, sts));
    CHECK(sts[0].MPI_SOURCE == 2 && sts[0].MPI_TAG == 2 && y == me);
    CHECK(atomic_load(&b.freed) == 1);
    CHECK_OK(MPI_Finalize());
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    state s = {0};
    MPI_Request r;
    CHECK(MPI_Grequest_start(query, release, cancel, &s, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Grequest_complete(MPI_REQUEST_NULL) == MPI_ERR_REQUEST);
    MPI_Request recv;
    int x;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &recv));
    CHECK(MPI_Grequest_complete(recv) == MPI_ERR_REQUEST);   /* not generalized */
    CHECK_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Grequest_start(NULL, NULL, NULL, &s, &r));  /* no callbacks: fine */
    CHECK_OK(MPI_Grequest_complete(r));
    CHECK(MPI_Grequest_complete(r) == MPI_ERR_REQUEST);      /* twice */
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL && atomic_load(&s.freed) == 0);
    CHECK_OK(MPI_Finalize());
}

static const test_case cases[] = {
    {"completed_by_a_thread_while_the_rank_waits",
     completed_by_a_thread_while_the_rank_waits},
    {"free_cancel_and_waitall", free_cancel_and_waitall},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
