/* session_calls.c — the MPI 4.0 calls Myriad provides: info objects before
 * MPI_Init, MPI_Info_get_string, MPI_Info_create_env, and sessions (a
 * communicator without MPI_Init). main does not call MPI_Init: each case
 * decides. Usage: session_calls CASE. */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

#include "../check.h"

static void info_before_init_and_get_string(void)
{
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "color", "ultramarine"));
    int buflen = 0, flag = 0;
    CHECK_OK(MPI_Info_get_string(info, "color", &buflen, NULL, &flag));
    CHECK(flag && buflen == 12);
    char small[6];
    buflen = sizeof small;
    CHECK_OK(MPI_Info_get_string(info, "color", &buflen, small, &flag));
    CHECK(flag && buflen == 12 && strcmp(small, "ultra") == 0);
    char big[32];
    buflen = sizeof big;
    CHECK_OK(MPI_Info_get_string(info, "color", &buflen, big, &flag));
    CHECK(strcmp(big, "ultramarine") == 0);
    buflen = sizeof big;
    CHECK_OK(MPI_Info_get_string(info, "absent", &buflen, big, &flag));
    CHECK(!flag && buflen == (int)sizeof big);
    MPI_Info env;
    CHECK_OK(MPI_Info_create_env(0, NULL, &env));
    int n;
    CHECK_OK(MPI_Info_get_nkeys(env, &n));
    CHECK(n >= 3);
    buflen = sizeof big;
    CHECK_OK(MPI_Info_get_string(env, "maxprocs", &buflen, big, &flag));
    int size = 0;
    CHECK(flag && sscanf(big, "%d", &size) == 1 && size >= 1);
    CHECK_OK(MPI_Info_free(&env));
    CHECK_OK(MPI_Info_free(&info));
    int initialized = 1;
    CHECK_OK(MPI_Initialized(&initialized));
    CHECK(!initialized);
}

/* A library's communicator over mpi://WORLD, without MPI_Init. */
static void session_gives_a_communicator_without_init(void)
{
    MPI_Session s;
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    int npsets = 0;
    CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    CHECK(npsets == 2);
    char name[MPI_MAX_PSET_NAME_LEN];
    int world_seen = 0;
    for (int i = 0; i < npsets; i++) {
        int len = 0;
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= (int)sizeof name);
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        world_seen += strcmp(name, "mpi://WORLD") == 0;
    }
    CHECK(world_seen == 1);
    MPI_Info info;
    char value[32];
    int flag, nranks;
    CHECK_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    CHECK_OK(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
    CHECK(flag && sscanf(value, "%d", &nranks) == 1);
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Session_get_info(s, &info));
    CHECK_OK(MPI_Info_get(info, "thread_level", sizeof value - 1, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
    CHECK_OK(MPI_Info_free(&info));

    MPI_Group g;
    MPI_Comm comm;
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://world", &g));
    CHECK_OK(MPI_Comm_create_from_group(g, "org.example.lib", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &comm));
    CHECK_OK(MPI_Group_free(&g));
    int me, size;
    CHECK_OK(MPI_Comm_rank(comm, &me));
    CHECK_OK(MPI_Comm_size(comm, &size));
    CHECK(size == nranks);
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2);
    int from = -1;
    CHECK_OK(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % size, 3, &from, 1, MPI_INT,
                          (me + size - 1) % size, 3, comm, MPI_STATUS_IGNORE));
    CHECK(from == (me + size - 1) % size);
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(comm, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_free(&comm));

    /* mpi://SELF: a communicator of one. */
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
    CHECK_OK(MPI_Comm_create_from_group(g, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Comm_size(comm, &size));
    CHECK(size == 1);
    MPI_Request r;
    int got = -1;
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, 0, 0, comm, &r));
    CHECK_OK(MPI_Send(&me, 1, MPI_INT, 0, 0, comm));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(got == me);
    CHECK_OK(MPI_Comm_free(&comm));

    int initialized = 1;
    CHECK_OK(MPI_Initialized(&initialized));
    CHECK(!initialized);
    CHECK_OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL);
}

/* The world model and a session side by side. */
static void session_and_world_model_together(void)
{
    MPI_Session s;
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK_OK(MPI_Init(NULL, NULL));
    MPI_Group g;
    MPI_Comm comm;
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_OK(MPI_Comm_create_from_group(g, "side.by.side", MPI_INFO_NULL,
                                        MPI_ERRHANDLER_NULL, &comm));
    CHECK_OK(MPI_Group_free(&g));
    int result;
    CHECK_OK(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_free(&comm));
    CHECK_OK(MPI_Session_finalize(&s));
    CHECK_OK(MPI_Finalize());
}

static void bad_arguments_return_error_classes(void)
{
    MPI_Session s;
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    int len = 10;
    char name[10];
    CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name) == MPI_ERR_ARG);
    CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, NULL, name) == MPI_ERR_ARG);
    MPI_Group g = MPI_GROUP_NULL;
    CHECK(MPI_Group_from_session_pset(s, "mpi://nowhere", &g) == MPI_ERR_ARG);
    CHECK(g == MPI_GROUP_NULL);
    int n;
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL) == MPI_ERR_ARG);
    /* Nothing lost: the session still works. */
    CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n == 2);
    CHECK_OK(MPI_Session_finalize(&s));
}

static const test_case cases[] = {
    {"info_before_init_and_get_string", info_before_init_and_get_string},
    {"session_gives_a_communicator_without_init", session_gives_a_communicator_without_init},
    {"session_and_world_model_together", session_and_world_model_together},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
