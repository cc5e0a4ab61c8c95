/* datatype_errors.c — bad arguments to the datatype and pack calls: under
 * MPI_ERRORS_RETURN each returns its error class and creates nothing; with
 * the default MPI_ERRORS_ARE_FATAL the job ends with one line naming the
 * call and the argument. Usage: datatype_errors CASE. */
#include <limits.h>
#include <mpi.h>

#include "../check.h"

static void errors_return(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

static void constructors_check_their_arguments(void)
{
    errors_return();
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[2] = {1, 1}, d[2] = {0, 1};
    MPI_Aint ad[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DATATYPE_NULL};
    CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_ERR_COUNT);
    CHECK(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_contiguous(1, MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_vector(-2, 1, 1, MPI_INT, &t) == MPI_ERR_COUNT);
    CHECK(MPI_Type_vector(2, -1, 1, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_hvector(2, 1, 8, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_indexed(2, (int[]){1, -1}, d, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_indexed(2, NULL, d, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_indexed(2, bl, NULL, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_indexed(-1, bl, d, MPI_INT, &t) == MPI_ERR_COUNT);
    CHECK(MPI_Type_create_hindexed(2, bl, ad, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_create_indexed_block(2, -3, d, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_struct(2, bl, ad, types, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_create_struct(2, (int[]){1, -1}, ad, (MPI_Datatype[]){MPI_INT, MPI_INT},
                                 &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_struct(2, bl, ad, NULL, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_struct(-1, bl, ad, types, &t) == MPI_ERR_COUNT);
    int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 2};
    CHECK(MPI_Type_create_subarray(0, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t) ==
          MPI_ERR_ARG);
    CHECK(MPI_Type_create_subarray(2, sizes, subs, (int[]){3, 0}, MPI_ORDER_C, MPI_INT, &t) ==
          MPI_ERR_ARG);
    CHECK(MPI_Type_create_subarray(2, sizes, (int[]){0, 1}, starts, MPI_ORDER_C, MPI_INT, &t) ==
          MPI_ERR_ARG);
    CHECK(MPI_Type_create_subarray(2, sizes, subs, starts, 99, MPI_INT, &t) == MPI_ERR_ARG);
    const int B = MPI_DISTRIBUTE_BLOCK, D = MPI_DISTRIBUTE_DFLT_DARG;
    CHECK(MPI_Type_create_darray(4, 0, 2, sizes, (int[]){B, B}, (int[]){D, D}, (int[]){2, 3},
                                 MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);  /* 2 x 3 != 4 */
    CHECK(MPI_Type_create_darray(4, 4, 2, sizes, (int[]){B, B}, (int[]){D, D}, (int[]){2, 2},
                                 MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);  /* rank */
    CHECK(MPI_Type_create_darray(2, 0, 1, sizes, (int[]){B}, (int[]){1}, (int[]){2},
                                 MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);  /* 2 x 1 < 4 */
    CHECK(MPI_Type_create_darray(2, 0, 1, sizes, (int[]){MPI_DISTRIBUTE_NONE}, (int[]){D},
                                 (int[]){2}, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_darray(1, 0, 1, sizes, (int[]){B}, (int[]){D}, (int[]){1},
                                 MPI_ORDER_C, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_dup(MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(t == MPI_DATATYPE_NULL);   /* nothing was created */
}

static void commit_free_and_queries_check_their_arguments(void)
{
    errors_return();
    MPI_Datatype t = MPI_INT, null = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_free(&t) == MPI_ERR_TYPE);
    CHECK(t == MPI_INT);
    CHECK(MPI_Type_free(&null) == MPI_ERR_TYPE);
    CHECK(MPI_Type_free(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_commit(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_commit(&null) == MPI_ERR_TYPE);
    MPI_Aint a, b;
    MPI_Count c;
    CHECK(MPI_Type_get_extent(MPI_DATATYPE_NULL, &a, &b) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_extent(MPI_INT, NULL, &b) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_true_extent(MPI_INT, &a, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_size_x(MPI_DATATYPE_NULL, &c) == MPI_ERR_TYPE);
    CHECK(MPI_Type_extent(MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Get_address(&a, NULL) == MPI_ERR_ARG);
    int ints[4];
    MPI_Datatype types[4];
    CHECK(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, &a, types) == MPI_ERR_TYPE);
    MPI_Datatype v;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    CHECK(MPI_Type_get_contents(v, 2, 0, 1, ints, NULL, types) == MPI_ERR_ARG);
    CHECK(MPI_Type_set_name(MPI_DATATYPE_NULL, "mine") == MPI_ERR_TYPE);
    CHECK(MPI_Type_set_name(MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_set_name(v, NULL) == MPI_ERR_ARG);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK(MPI_Type_get_name(v, name, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_name(MPI_INT, NULL, &len) == MPI_ERR_ARG);
    CHECK_OK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, "MPI_INT") == 0);   /* the failed rename changed nothing */
    CHECK_OK(MPI_Type_free(&v));
}

/* Communication and packing need a committed type; queries do not. */
static void uncommitted_types_are_refused_for_communication(void)
{
    errors_return();
    MPI_Datatype v, d;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    int x[4] = {0}, pos = 0, size;
    char buf[64];
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK(MPI_Send(x, 1, v, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Isend(x, 1, v, 0, 0, MPI_COMM_WORLD, &r) == MPI_ERR_TYPE);
    CHECK(MPI_Recv(x, 1, v, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_TYPE);
    CHECK(MPI_Bcast(x, 1, v, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Pack(x, 1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Pack_size(1, v, MPI_COMM_WORLD, &size) == MPI_ERR_TYPE);
    CHECK(r == MPI_REQUEST_NULL && pos == 0);
    CHECK_OK(MPI_Type_dup(v, &d));  /* a dup of an uncommitted type is uncommitted */
    CHECK(MPI_Send(x, 1, d, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK_OK(MPI_Type_get_extent(v, (MPI_Aint[1]){0}, (MPI_Aint[1]){0}));
    CHECK_OK(MPI_Type_commit(&v));
    CHECK_OK(MPI_Pack(x, 1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 8);
    /* Nothing was sent by any of those. */
    int flag;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag);
    CHECK_OK(MPI_Type_free(&v));
    CHECK_OK(MPI_Type_free(&d));
}

static void pack_checks_room_and_representation(void)
{
    errors_return();
    int x[4] = {1, 2, 3, 4}, pos = 0;
    char buf[16];
    CHECK(MPI_Pack(x, 5, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
    CHECK(pos == 0);
    CHECK(MPI_Pack(x, 1, MPI_INT, buf, sizeof buf, NULL, MPI_COMM_WORLD) == MPI_ERR_ARG);
    pos = 17;
    CHECK(MPI_Pack(x, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_ARG);
    pos = 0;
    CHECK(MPI_Pack(x, -1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    CHECK(MPI_Pack(x, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Pack(NULL, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK_OK(MPI_Pack(x, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 12);
    pos = 0;
    CHECK(MPI_Unpack(buf, 12, &pos, x, 4, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
    CHECK(MPI_Unpack(buf, -1, &pos, x, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_ARG);
    int size;
    CHECK(MPI_Pack_size(INT_MAX, MPI_DOUBLE, MPI_COMM_WORLD, &size) == MPI_ERR_COUNT);
    MPI_Aint apos = 0, asize;
    CHECK(MPI_Pack_external("native", x, 1, MPI_INT, buf, sizeof buf, &apos) == MPI_ERR_ARG);
    CHECK(MPI_Pack_external_size("external64", 1, MPI_INT, &asize) == MPI_ERR_ARG);
    CHECK(MPI_Pack_external("external32", x, 5, MPI_INT, buf, sizeof buf, &apos) ==
          MPI_ERR_TRUNCATE);
    CHECK(MPI_Unpack_external("external32", buf, 4, &apos, x, 2, MPI_INT) == MPI_ERR_TRUNCATE);
    CHECK(apos == 0);
    /* A native long beyond 32 bits has no external32 form. */
    long big = LONG_MAX;
    if (LONG_MAX > INT_MAX)
        CHECK(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, sizeof buf, &apos) ==
              MPI_ERR_CONVERSION);
    /* A wchar_t beyond 16 bits neither. */
    wchar_t w = (wchar_t)0x1f600;
    CHECK(MPI_Pack_external("external32", &w, 1, MPI_WCHAR, buf, sizeof buf, &apos) ==
          MPI_ERR_CONVERSION);
}

/* The default handler ends the job naming the call and the type. */
static void uncommitted_send_is_fatal(void)
{
    MPI_Datatype v;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    CHECK_OK(MPI_Type_set_name(v, "every other int"));
    int x[4] = {0};
    MPI_Send(x, 1, v, 0, 0, MPI_COMM_WORLD);
}

static const test_case cases[] = {
    {"constructors_check_their_arguments", constructors_check_their_arguments},
    {"commit_free_and_queries_check_their_arguments",
     commit_free_and_queries_check_their_arguments},
    {"uncommitted_types_are_refused_for_communication",
     uncommitted_types_are_refused_for_communication},
    {"pack_checks_room_and_representation", pack_checks_room_and_representation},
    {"uncommitted_send_is_fatal", uncommitted_send_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
