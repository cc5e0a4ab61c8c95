/* handle_errors.c — garbage handles (small integers, 0xdeadbeef, an
 * address that cannot be read, a stack buffer, a freed handle, a handle of
 * another kind) are errors of the handle's class, never a crash: under
 * MPI_ERRORS_RETURN each call returns the class; with the default
 * MPI_ERRORS_ARE_FATAL the job ends with one line naming the call and the
 * handle. Usage: handle_errors CASE. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "../check.h"

enum { NG = 8 };
static void *garbage[NG];
static const char *garbage_name[NG];
static int ngarbage;

static void add(const char *name, void *p)
{
    garbage_name[ngarbage] = name;
    garbage[ngarbage++] = p;
}

/* A page that can never be read: what an uninitialised pointer into
 * unmapped memory looks like to the library. */
static void *unreadable(void)
{
    static void *page;
    if (!page) {
        page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(page != MAP_FAILED);
    }
    return page;
}

/* The patterns every case tries; `stack` must outlive their use, `freed`
 * is a freed handle of the kind under test, `other` a live handle of
 * another kind. */
/* Every rank made its handle before any frees one, and freed it before any
 * uses a freed one: the ranks share the handles' pools (one process), so a
 * rank creating after another's free could get the freed handle back, live
 * (seen under qemu: MPI_Op_free of "a freed handle" succeeded). */
static void freed_everywhere(void)
{
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_set(char *stack, void *freed, void *other)
{
    ngarbage = 0;
    memset(stack, 0x5a, 256);
    add("1", (void *)1);
    add("0x40", (void *)0x40);
    add("0xdeadbeef", (void *)(uintptr_t)0xdeadbeef);
    add("0xdeadbeefdeadbeef", (void *)(uintptr_t)0xdeadbeefdeadbeefull);
    add("an unreadable page", unreadable());
    add("a stack buffer", stack + 8);
    add("a freed handle", freed);
    add("a handle of another kind", other);
}

#define EXPECT_ALL(Type, cls, expr)                                                      \
    for (int gi_ = 0; gi_ < ngarbage; gi_++) {                                            \
        Type g = (Type)garbage[gi_];                                                      \
        int rc_ = (expr);                                                                 \
        if (rc_ != (cls)) {                                                               \
            fprintf(stderr, "%s:%d: %s with %s gave %d, not %s\n", __FILE__, __LINE__,    \
                    #expr, garbage_name[gi_], rc_, #cls);                                 \
            exit(1);                                                                      \
        }                                                                                 \
    }

static void errors_return(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

static void garbage_communicators_are_err_comm(void)
{
    errors_return();
    char stack[256];
    MPI_Comm freed;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &freed));
    freed_everywhere();
    CHECK_OK(MPI_Comm_free(&(MPI_Comm){freed}));
    freed_everywhere();
    garbage_set(stack, freed, MPI_INT);
    int x = 0, n;
    MPI_Comm c;
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Comm_rank(g, &n));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Send(&x, 1, MPI_INT, 0, 0, g));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM,
               MPI_Recv(&x, 1, MPI_INT, 0, 0, g, MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM,
               MPI_Isend(&x, 1, MPI_INT, 0, 0, g, &(MPI_Request){0}));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Barrier(g));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Bcast(&x, 1, MPI_INT, 0, g));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM,
               MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, g));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Comm_dup(g, &c));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Comm_free(&g));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    EXPECT_ALL(MPI_Comm, MPI_ERR_COMM, MPI_Comm_set_attr(g, MPI_TAG_UB, &x));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_datatypes_are_err_type(void)
{
    errors_return();
    char stack[256];
    MPI_Datatype freed;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &freed));
    CHECK_OK(MPI_Type_commit(&freed));
    freed_everywhere();
    CHECK_OK(MPI_Type_free(&(MPI_Datatype){freed}));
    freed_everywhere();
    garbage_set(stack, freed, MPI_COMM_WORLD);
    int x[4] = {0}, n;
    MPI_Aint lb, ext;
    MPI_Datatype t;
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Send(x, 1, g, 0, 0, MPI_COMM_WORLD));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE,
               MPI_Recv(x, 1, g, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE,
               MPI_Irecv(x, 1, g, 0, 0, MPI_COMM_WORLD, &(MPI_Request){0}));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE,
               MPI_Sendrecv(x, 1, MPI_INT, 0, 0, x, 1, g, 0, 0, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Type_size(g, &n));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Type_get_extent(g, &lb, &ext));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Type_commit(&g));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Type_free(&g));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Type_contiguous(2, g, &t));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE, MPI_Bcast(x, 1, g, 0, MPI_COMM_WORLD));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE,
               MPI_Allreduce(MPI_IN_PLACE, x, 1, g, MPI_SUM, MPI_COMM_WORLD));
    EXPECT_ALL(MPI_Datatype, MPI_ERR_TYPE,
               MPI_Pack_size(1, g, MPI_COMM_WORLD, &n));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void nothing(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

static void garbage_ops_are_err_op(void)
{
    errors_return();
    char stack[256];
    MPI_Op freed;
    CHECK_OK(MPI_Op_create(nothing, 1, &freed));
    freed_everywhere();
    CHECK_OK(MPI_Op_free(&(MPI_Op){freed}));
    freed_everywhere();
    garbage_set(stack, freed, MPI_INT);
    int x = 1, y = 0;
    EXPECT_ALL(MPI_Op, MPI_ERR_OP,
               MPI_Allreduce(&x, &y, 1, MPI_INT, g, MPI_COMM_WORLD));
    EXPECT_ALL(MPI_Op, MPI_ERR_OP,
               MPI_Reduce(&x, &y, 1, MPI_INT, g, 0, MPI_COMM_WORLD));
    EXPECT_ALL(MPI_Op, MPI_ERR_OP, MPI_Reduce_local(&x, &y, 1, MPI_INT, g));
    EXPECT_ALL(MPI_Op, MPI_ERR_OP, MPI_Op_free(&g));
    EXPECT_ALL(MPI_Op, MPI_ERR_OP, MPI_Op_commutative(g, &x));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_requests_are_err_request(void)
{
    errors_return();
    char stack[256];
    MPI_Request freed;
    int x = 0, flag, idx;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &freed));
    freed_everywhere();
    CHECK_OK(MPI_Wait(&(MPI_Request){freed}, MPI_STATUS_IGNORE));
    freed_everywhere();
    garbage_set(stack, freed, MPI_COMM_WORLD);
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Wait(&g, MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Test(&g, &flag, MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Request_free(&g));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Cancel(&g));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Start(&g));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST,
               MPI_Request_get_status(g, &flag, MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST,
               MPI_Waitall(2, (MPI_Request[]){MPI_REQUEST_NULL, g}, MPI_STATUSES_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST,
               MPI_Waitany(2, (MPI_Request[]){MPI_REQUEST_NULL, g}, &idx,
                           MPI_STATUS_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST,
               MPI_Testall(2, (MPI_Request[]){MPI_REQUEST_NULL, g}, &flag,
                           MPI_STATUSES_IGNORE));
    EXPECT_ALL(MPI_Request, MPI_ERR_REQUEST, MPI_Grequest_complete(g));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_groups_are_err_group(void)
{
    errors_return();
    char stack[256];
    MPI_Group freed, world, out;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Group_incl(world, 1, (int[]){0}, &freed));
    CHECK_OK(MPI_Group_free(&(MPI_Group){freed}));
    garbage_set(stack, freed, MPI_COMM_WORLD);
    int n;
    MPI_Comm c;
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Group_size(g, &n));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Group_rank(g, &n));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Group_free(&g));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Group_union(world, g, &out));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Group_incl(g, 1, (int[]){0}, &out));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP,
               MPI_Group_translate_ranks(g, 1, (int[]){0}, world, &n));
    EXPECT_ALL(MPI_Group, MPI_ERR_GROUP, MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    CHECK_OK(MPI_Group_free(&world));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_infos_are_err_info(void)
{
    errors_return();
    char stack[256], value[8];
    MPI_Info freed, dup;
    CHECK_OK(MPI_Info_create(&freed));
    CHECK_OK(MPI_Info_free(&(MPI_Info){freed}));
    garbage_set(stack, freed, MPI_COMM_WORLD);
    int n, flag;
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Info_set(g, "k", "v"));
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Info_get_nkeys(g, &n));
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Info_get(g, "k", 8, value, &flag));
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Info_dup(g, &dup));
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Info_free(&g));
    EXPECT_ALL(MPI_Info, MPI_ERR_INFO, MPI_Comm_set_info(MPI_COMM_WORLD, g));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

static void garbage_errhandlers_are_err_arg(void)
{
    errors_return();
    char stack[256];
    MPI_Errhandler freed, h;
    CHECK_OK(MPI_Comm_create_errhandler(handler, &freed));
    CHECK_OK(MPI_Errhandler_free(&(MPI_Errhandler){freed}));
    garbage_set(stack, freed, MPI_COMM_WORLD);
    EXPECT_ALL(MPI_Errhandler, MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, g));
    EXPECT_ALL(MPI_Errhandler, MPI_ERR_ARG, MPI_Errhandler_free(&g));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
    CHECK(h == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void garbage_messages_are_err_request(void)
{
    errors_return();
    char stack[256];
    int x;
    garbage_set(stack, MPI_COMM_SELF, MPI_INT);
    ngarbage--;   /* no freed message handle: MPI_Mrecv consumes it */
    EXPECT_ALL(MPI_Message, MPI_ERR_REQUEST,
               MPI_Mrecv(&x, 1, MPI_INT, &g, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The default handler: the job ends, the line names the call and the
 * handle's kind. */
static void garbage_datatype_in_send_is_fatal(void)
{
    int x = 0, rank;
    MPI_Datatype uninitialised = (MPI_Datatype)(uintptr_t)0xdeadbeef;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    if (rank == 1)
        MPI_Send(&x, 1, uninitialised, 0, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void unreadable_communicator_is_fatal(void)
{
    MPI_Barrier((MPI_Comm)unreadable());
}

static void freed_communicator_is_fatal(void)
{
    MPI_Comm c, copy;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    copy = c;
    CHECK_OK(MPI_Comm_free(&c));
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 0, 0, copy);
}

static void stack_pointer_as_op_is_fatal(void)
{
    char stack[64];
    memset(stack, 0, sizeof stack);
    int x = 0, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, (MPI_Op)(void *)stack, MPI_COMM_WORLD);
}

static void freed_request_is_fatal(void)
{
    MPI_Request r, copy;
    int x;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    copy = r;
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Wait(&copy, MPI_STATUS_IGNORE);
}

static void garbage_group_is_fatal(void)
{
    int n;
    MPI_Group_size((MPI_Group)(uintptr_t)0x40, &n);
}

static void garbage_info_is_fatal(void)
{
    int n;
    MPI_Info_get_nkeys((MPI_Info)(uintptr_t)0xdeadbeefdeadbeefull, &n);
}

static void garbage_errhandler_is_fatal(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)(uintptr_t)1);
}

static const test_case cases[] = {
    {"garbage_communicators_are_err_comm", garbage_communicators_are_err_comm},
    {"garbage_datatypes_are_err_type", garbage_datatypes_are_err_type},
    {"garbage_ops_are_err_op", garbage_ops_are_err_op},
    {"garbage_requests_are_err_request", garbage_requests_are_err_request},
    {"garbage_groups_are_err_group", garbage_groups_are_err_group},
    {"garbage_infos_are_err_info", garbage_infos_are_err_info},
    {"garbage_errhandlers_are_err_arg", garbage_errhandlers_are_err_arg},
    {"garbage_messages_are_err_request", garbage_messages_are_err_request},
    {"garbage_datatype_in_send_is_fatal", garbage_datatype_in_send_is_fatal},
    {"unreadable_communicator_is_fatal", unreadable_communicator_is_fatal},
    {"freed_communicator_is_fatal", freed_communicator_is_fatal},
    {"stack_pointer_as_op_is_fatal", stack_pointer_as_op_is_fatal},
    {"freed_request_is_fatal", freed_request_is_fatal},
    {"garbage_group_is_fatal", garbage_group_is_fatal},
    {"garbage_info_is_fatal", garbage_info_is_fatal},
    {"garbage_errhandler_is_fatal", garbage_errhandler_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
