/* p2p_errors.c — bad arguments to point-to-point calls: under
 * MPI_ERRORS_RETURN each returns the right error class and nothing is sent
 * or lost; with the default MPI_ERRORS_ARE_FATAL the job ends with one line
 * naming the rank, the call and the argument. Usage: p2p_errors CASE. */
#include <mpi.h>

#include "../check.h"

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int world_size(void)
{
    int s;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    return s;
}

/* Every argument of the send and receive calls is checked. */
static void bad_arguments_return_their_class(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int size = world_size();
    int x = 1;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK(MPI_Send(&x, 1, MPI_INT, size, 0, w) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, -5, 0, w) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, w) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, -1, w) == MPI_ERR_TAG);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, w) == MPI_ERR_TAG);
    CHECK(MPI_Send(&x, -1, MPI_INT, 0, 0, w) == MPI_ERR_COUNT);
    CHECK(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, w) == MPI_ERR_TYPE);
    CHECK(MPI_Send(NULL, 1, MPI_INT, 0, 0, w) == MPI_ERR_BUFFER);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Ssend(&x, 1, MPI_INT, size + 1, 0, w) == MPI_ERR_RANK);
    CHECK(MPI_Isend(&x, 1, MPI_INT, size, 0, w, &r) == MPI_ERR_RANK);
    CHECK(MPI_Isend(&x, 1, MPI_INT, 0, 0, w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Recv(&x, 1, MPI_INT, size, 0, w, &st) == MPI_ERR_RANK);
    CHECK(MPI_Recv(&x, 1, MPI_INT, 0, -7, w, &st) == MPI_ERR_TAG);
    CHECK(MPI_Recv(&x, -2, MPI_INT, 0, 0, w, &st) == MPI_ERR_COUNT);
    CHECK(MPI_Irecv(&x, 1, MPI_INT, 0, 0, w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Probe(size, 0, w, &st) == MPI_ERR_RANK);
    CHECK(MPI_Iprobe(0, 0, w, NULL, &st) == MPI_ERR_ARG);
    /* Nothing was sent by any of those: no message is waiting. */
    int flag;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag);
    /* Requests. */
    CHECK(r == MPI_REQUEST_NULL);
    CHECK(MPI_Wait(NULL, &st) == MPI_ERR_ARG);
    CHECK_OK(MPI_Wait(&r, &st));  /* a null request completes at once */
    CHECK(MPI_Request_free(&r) == MPI_ERR_REQUEST);
    CHECK(MPI_Start(&r) == MPI_ERR_REQUEST);
    MPI_Request live;
    CHECK_OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, &live));
    CHECK(MPI_Start(&live) == MPI_ERR_REQUEST);  /* not persistent */
    CHECK_OK(MPI_Wait(&live, MPI_STATUS_IGNORE));
    CHECK(MPI_Waitall(-1, &r, MPI_STATUSES_IGNORE) == MPI_ERR_COUNT);
    MPI_Message m = MPI_MESSAGE_NULL;
    CHECK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st) == MPI_ERR_REQUEST);
    CHECK(MPI_Buffer_attach(NULL, 100) == MPI_ERR_BUFFER);
    CHECK(MPI_Buffer_attach(&x, -1) == MPI_ERR_ARG);
    /* The library still works. */
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, world_rank(), 3, &flag, 1, MPI_INT,
                          world_rank(), 3, w, &st));
    CHECK(flag == 1);
}

/* The default handler ends the job with one line naming the argument. */
static void bad_destination_is_fatal(void)
{
    int x = 0;
    if (world_rank() == 1)
        MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
}

static const test_case cases[] = {
    {"bad_arguments_return_their_class", bad_arguments_return_their_class},
    {"bad_destination_is_fatal", bad_destination_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
