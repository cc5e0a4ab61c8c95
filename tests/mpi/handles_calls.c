/* handles_calls.c — MPI_X_c2f / MPI_X_f2c: every kind of handle survives
 * the round trip through a Fortran integer, distinct handles get distinct
 * integers, a handle keeps its integer, and null handles are 0.
 * Usage: handles_calls CASE. */
#include <mpi.h>

#include "../check.h"

static void round_trips_for_every_kind(void)
{
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup);
    CHECK(MPI_Comm_c2f(dup) != MPI_Comm_c2f(MPI_COMM_WORLD));
    CHECK(MPI_Comm_c2f(dup) == MPI_Comm_c2f(dup));
    CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL);

    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(vec)) == vec);
    CHECK(MPI_Type_c2f(MPI_DATATYPE_NULL) == 0);

    MPI_Group g;
    CHECK_OK(MPI_Comm_group(dup, &g));
    CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g);

    int buf = 0;
    MPI_Request req;
    CHECK_OK(MPI_Recv_init(&buf, 1, MPI_INT, 0, 0, dup, &req));
    CHECK(MPI_Request_f2c(MPI_Request_c2f(req)) == req);
    CHECK(MPI_Request_c2f(MPI_REQUEST_NULL) == 0);
    CHECK_OK(MPI_Request_free(&req));

    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    CHECK(MPI_Op_c2f(MPI_SUM) != MPI_Op_c2f(MPI_MAX));
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info);
    CHECK_OK(MPI_Info_free(&info));
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);

    MPI_Message msg;
    CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 0, dup, &msg, MPI_STATUS_IGNORE));
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    CHECK(MPI_Message_f2c(MPI_Message_c2f(msg)) == MPI_MESSAGE_NO_PROC);
    CHECK(MPI_Message_c2f(MPI_MESSAGE_NULL) == 0);
    CHECK(PMPI_Message_f2c(PMPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);

    /* An integer never given is the null handle. */
    CHECK(MPI_Comm_f2c(1 << 29) == MPI_COMM_NULL && MPI_Comm_f2c(-5) == MPI_COMM_NULL);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Type_free(&vec));
    CHECK_OK(MPI_Comm_free(&dup));
}

static const test_case cases[] = {
    {"round_trips_for_every_kind", round_trips_for_every_kind},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
