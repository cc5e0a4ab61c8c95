/* compat_calls.c — the MPI-1 names removed in MPI 3.0 (MPI_Keyval_create,
 * MPI_Attr_put/get/delete, MPI_Keyval_free, MPI_Errhandler_create/set/get
 * and the MPI_NULL_COPY_FN family): they behave as their successors, and
 * their errors name the function called. Usage: compat_calls CASE. */
#include <mpi.h>
#include <stdarg.h>

#include "../check.h"

static int deletes;
static void *deleted_value;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval;
    CHECK(extra == &deletes);
    deletes++;
    deleted_value = value;
    return MPI_SUCCESS;
}

static char values[4];

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

/* The MPI-1 attribute calls, and the modern ones on the same keyvals. */
static void mpi1_attribute_calls_work_as_the_new_ones(void)
{
    MPI_Copy_function *dup = MPI_DUP_FN, *nocopy = MPI_NULL_COPY_FN;
    MPI_Delete_function *nodelete = MPI_NULL_DELETE_FN;
    int kdup = MPI_KEYVAL_INVALID, knull = MPI_KEYVAL_INVALID;
    CHECK_OK(MPI_Keyval_create(dup, count_delete, &kdup, &deletes));
    CHECK_OK(MPI_Keyval_create(nocopy, nodelete, &knull, NULL));
    CHECK(kdup != MPI_KEYVAL_INVALID && knull != MPI_KEYVAL_INVALID && kdup != knull);
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, kdup, &values[0]));
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, knull, &values[1]));
    void *v = NULL;
    int flag = 0;
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, kdup, &v, &flag));
    CHECK(flag && v == &values[0]);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, knull, &v, &flag));
    CHECK(flag && v == &values[1]);
    /* MPI_DUP_FN copies, MPI_NULL_COPY_FN does not. */
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPI_Attr_get(c, kdup, &v, &flag));
    CHECK(flag && v == &values[0]);
    CHECK_OK(MPI_Attr_get(c, knull, &v, &flag));
    CHECK(!flag);
    /* Replacing and deleting call the delete function. */
    CHECK_OK(MPI_Attr_put(c, kdup, &values[2]));
    CHECK(deletes == 1 && deleted_value == &values[0]);
    CHECK_OK(MPI_Attr_delete(c, kdup));
    CHECK(deletes == 2 && deleted_value == &values[2]);
    CHECK_OK(MPI_Attr_get(c, kdup, &v, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(deletes == 2);
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup));
    CHECK(deletes == 3 && deleted_value == &values[0]);
    CHECK_OK(MPI_Attr_delete(MPI_COMM_WORLD, knull));
    /* The predefined attributes, through the old name. */
    int *ub = NULL;
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub == 0x7fffffff);
    CHECK_OK(MPI_Keyval_free(&kdup));
    CHECK(kdup == MPI_KEYVAL_INVALID);
    CHECK_OK(MPI_Comm_free_keyval(&knull));   /* either free works */
    CHECK(knull == MPI_KEYVAL_INVALID);
}

/* What the recording handler saw (per rank: globals are private). */
static int handler_calls;
static int handler_code;
static MPI_Comm handler_comm;
static char handler_call[64];

static void recording_handler(MPI_Comm *comm, int *code, ...)
{
    va_list ap;
    va_start(ap, code);
    const char *call = va_arg(ap, const char *);   /* Myriad passes the call's name */
    va_end(ap);
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
    snprintf(handler_call, sizeof handler_call, "%s", call);
}

static void mpi1_errhandler_calls_work_as_the_new_ones(void)
{
    MPI_Handler_function *fn = recording_handler;
    MPI_Errhandler h = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    CHECK_OK(MPI_Errhandler_create(fn, &h));
    CHECK(h != MPI_ERRHANDLER_NULL);
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPI_Errhandler_set(c, h));
    CHECK_OK(MPI_Errhandler_get(c, &got));
    CHECK(got == h);
    CHECK_OK(MPI_Errhandler_free(&got));
    int size;
    CHECK(MPI_Comm_size(c, NULL) == MPI_ERR_ARG);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_ARG && handler_comm == c);
    CHECK(strcmp(handler_call, "MPI_Comm_size") == 0);
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK(handler_calls == 1);
    /* Interchangeable with the modern calls. */
    CHECK_OK(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == h);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Errhandler_set(c, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Errhandler_get(c, &got));
    CHECK(got == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Errhandler_free(&h));
    CHECK_OK(MPI_Comm_free(&c));
}

/* Errors are raised under the MPI-1 name the program called. */
static void bad_arguments_name_the_mpi1_function(void)
{
    MPI_Errhandler h;
    CHECK_OK(MPI_Errhandler_create(recording_handler, &h));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_WORLD, h));
    int k;
    CHECK_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k, NULL));
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, k, &values[3]));
    int tk;
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    void *v = NULL;
    int flag = -1, k2 = -9, n = 0;
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    /* Each call fails with its class, and the handler sees its name. */
#define EXPECT(expr, want, name)                                           \
    do {                                                                   \
        handler_call[0] = '\0';                                            \
        CHECK((expr) == (want));                                           \
        CHECK(handler_calls == ++n && handler_code == (want));             \
        CHECK(strcmp(handler_call, name) == 0);                            \
    } while (0)
    EXPECT(MPI_Keyval_create(NULL, MPI_NULL_DELETE_FN, &k2, NULL), MPI_ERR_ARG,
           "MPI_Keyval_create");
    EXPECT(MPI_Keyval_create(MPI_DUP_FN, NULL, &k2, NULL), MPI_ERR_ARG, "MPI_Keyval_create");
    EXPECT(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG,
           "MPI_Keyval_create");
    EXPECT(MPI_Keyval_free(NULL), MPI_ERR_ARG, "MPI_Keyval_free");
    EXPECT(MPI_Keyval_free(&tk), MPI_ERR_KEYVAL, "MPI_Keyval_free");
    EXPECT(MPI_Attr_put(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, v), MPI_ERR_KEYVAL, "MPI_Attr_put");
    EXPECT(MPI_Attr_put(MPI_COMM_WORLD, tk, v), MPI_ERR_KEYVAL, "MPI_Attr_put");
    EXPECT(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, v), MPI_ERR_KEYVAL, "MPI_Attr_put");
    EXPECT(MPI_Attr_put(MPI_COMM_NULL, k, v), MPI_ERR_COMM, "MPI_Attr_put");
    EXPECT(MPI_Attr_get(MPI_COMM_WORLD, k, &v, NULL), MPI_ERR_ARG, "MPI_Attr_get");
    EXPECT(MPI_Attr_get(MPI_COMM_WORLD, k, NULL, &flag), MPI_ERR_ARG, "MPI_Attr_get");
    EXPECT(MPI_Attr_get(MPI_COMM_WORLD, 12345678, &v, &flag), MPI_ERR_KEYVAL, "MPI_Attr_get");
    EXPECT(MPI_Attr_delete(MPI_COMM_NULL, k), MPI_ERR_COMM, "MPI_Attr_delete");
    EXPECT(MPI_Attr_delete(MPI_COMM_WORLD, MPI_HOST), MPI_ERR_KEYVAL, "MPI_Attr_delete");
    EXPECT(MPI_Errhandler_create(NULL, &got), MPI_ERR_ARG, "MPI_Errhandler_create");
    EXPECT(MPI_Errhandler_create(recording_handler, NULL), MPI_ERR_ARG,
           "MPI_Errhandler_create");
    EXPECT(MPI_Errhandler_set(MPI_COMM_NULL, h), MPI_ERR_COMM, "MPI_Errhandler_set");
    EXPECT(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG,
           "MPI_Errhandler_set");
    EXPECT(MPI_Errhandler_get(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Errhandler_get");
    EXPECT(MPI_Errhandler_get(MPI_COMM_NULL, &got), MPI_ERR_COMM, "MPI_Errhandler_get");
#undef EXPECT
    /* Nothing was lost or written. */
    CHECK(k2 == -9 && v == NULL && flag == -1 && got == MPI_ERRHANDLER_NULL);
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    CHECK(flag == 1 && v == &values[3]);
    MPI_Errhandler now;
    CHECK_OK(MPI_Errhandler_get(MPI_COMM_WORLD, &now));
    CHECK(now == h);
    CHECK_OK(MPI_Errhandler_free(&now));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_OK(MPI_Errhandler_free(&h));
    CHECK_OK(MPI_Attr_delete(MPI_COMM_WORLD, k));
    CHECK_OK(MPI_Keyval_free(&k));
    CHECK_OK(MPI_Type_free_keyval(&tk));
    CHECK(n == 20);
}

/* The default handler ends the job with one line naming the MPI-1 call. */
static void attr_put_with_invalid_keyval_is_fatal(void)
{
    if (world_rank() == 0)
        MPI_Attr_put(MPI_COMM_WORLD, 12345678, NULL);
}

static const test_case cases[] = {
    {"mpi1_attribute_calls_work_as_the_new_ones", mpi1_attribute_calls_work_as_the_new_ones},
    {"mpi1_errhandler_calls_work_as_the_new_ones", mpi1_errhandler_calls_work_as_the_new_ones},
    {"bad_arguments_name_the_mpi1_function", bad_arguments_name_the_mpi1_function},
    {"attr_put_with_invalid_keyval_is_fatal", attr_put_with_invalid_keyval_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
