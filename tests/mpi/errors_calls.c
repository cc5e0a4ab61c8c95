/* errors_calls.c — error classes and strings, and error handlers: the
 * predefined ones, user handlers, per rank and per communicator. Every case
 * runs in every rank. Usage: errors_calls CASE. */
#include <mpi.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)

enum { MAX_RANKS = 1024 };

static int world_rank(void)
{
    int rank;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    return rank;
}

/* What the recording handler saw, per rank. */
typedef struct record {
    _Atomic int calls;
    MPI_Comm comm;
    int code;
    const char *call;
} record;

static record records[MAX_RANKS];

static void recording_handler(MPI_Comm *comm, int *code, ...)
{
    va_list ap;
    va_start(ap, code);
    const char *call = va_arg(ap, const char *);  /* Myriad passes the call */
    va_end(ap);
    record *r = &records[world_rank()];
    r->comm = *comm;
    r->code = *code;
    r->call = call;
    atomic_fetch_add(&r->calls, 1);
}

static MPI_Errhandler new_recording_handler(void)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Comm_create_errhandler(recording_handler, &h));
    CHECK(h != MPI_ERRHANDLER_NULL);
    return h;
}

static record *my_record(void)
{
    int rank = world_rank();
    CHECK(rank < MAX_RANKS);
    return &records[rank];
}

/* ---- classes and strings -------------------------------------------------- */

static void check_class_strings(void)
{
    /* Not static: every rank runs this at once. */
    char (*strings)[MPI_MAX_ERROR_STRING] = malloc((MPI_ERR_LASTCODE + 1) * sizeof *strings);
    CHECK(strings != NULL);
    for (int c = 0; c <= MPI_ERR_LASTCODE; c++) {
        char *s = strings[c];
        int len = -1;
        CHECK_MPI(MPI_Error_string(c, s, &len));
        CHECK(len == (int)strlen(s) && len > 0 && len < MPI_MAX_ERROR_STRING);
        /* The tools interface's classes (MPI_T_ERR_*) are MPI 3.1's last ones. */
        const char *prefix = c == 0 ? "MPI_SUCCESS: " : c >= MPI_T_ERR_MEMORY ? "MPI_T_ERR_" : "MPI_ERR_";
        CHECK(strncmp(s, prefix, strlen(prefix)) == 0);
        CHECK(strstr(s, ": ") && strlen(strstr(s, ": ")) > 5);  /* a description */
        for (int d = 0; d < c; d++)
            CHECK(strcmp(strings[d], s) != 0);
    }
    free(strings);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_MPI(MPI_Error_string(MPI_ERR_RANK, s, &len));
    CHECK(strcmp(s, "MPI_ERR_RANK: invalid rank") == 0);
}

/* Also before MPI_Init and after MPI_Finalize. */
static void every_class_has_a_distinct_string(void)
{
    check_class_strings();
    CHECK_MPI(MPI_Init(NULL, NULL));
    check_class_strings();
    CHECK_MPI(MPI_Finalize());
    check_class_strings();
}

static void error_class_of_a_class_is_itself(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    for (int c = 0; c <= MPI_ERR_LASTCODE; c++) {
        int cls = -1;
        CHECK_MPI(MPI_Error_class(c, &cls));
        CHECK(cls == c);
    }
    CHECK_MPI(MPI_Finalize());
}

/* ---- predefined handlers --------------------------------------------------- */

static void errors_are_fatal_by_default(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Errhandler world = MPI_ERRHANDLER_NULL, self = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_SELF, &self));
    CHECK(world == MPI_ERRORS_ARE_FATAL && self == MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Errhandler_free(&world));  /* a handle from get: freed */
    CHECK_MPI(MPI_Errhandler_free(&self));
    CHECK(world == MPI_ERRHANDLER_NULL && self == MPI_ERRHANDLER_NULL);
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world));
    CHECK(world == MPI_ERRORS_ARE_FATAL);  /* still there */
    CHECK_MPI(MPI_Finalize());
}

/* Errors of calls without a communicator, or with an invalid one, go to
 * MPI_COMM_WORLD's handler. */
static void errors_return_gives_the_class(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int i;
    CHECK(MPI_Comm_size(MPI_COMM_NULL, &i) == MPI_ERR_COMM);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_size(MPI_DATATYPE_NULL, &i) == MPI_ERR_TYPE);
    CHECK(MPI_Error_class(-5, &i) == MPI_ERR_ARG);
    CHECK(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &i) == MPI_ERR_ARG);
    CHECK_MPI(MPI_Finalize());
}

/* ---- per rank, per communicator ------------------------------------------ */

/* Even ranks return errors, odd ranks record them; what one rank sets does
 * not change what another rank gets, however they interleave. */
static void handlers_are_per_rank(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank = world_rank();
    MPI_Errhandler mine = rank % 2 ? new_recording_handler() : MPI_ERRORS_RETURN;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine));
    for (int i = 0; i < 100; i++) {
        CHECK_MPI(MPIX_Yield());
        MPI_Errhandler got;
        CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
        CHECK(got == mine);
        CHECK_MPI(MPI_Errhandler_free(&got));
        CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    }
    CHECK(atomic_load(&my_record()->calls) == (rank % 2 ? 100 : 0));
    if (rank % 2)
        CHECK_MPI(MPI_Errhandler_free(&mine));
    CHECK_MPI(MPI_Finalize());
}

static void handlers_are_per_communicator(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    MPI_Errhandler world;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world));
    CHECK(world == MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Finalize());
}

/* ---- user handlers ------------------------------------------------------- */

/* The handler gets the communicator and the error code, and (Myriad's
 * implementation-defined extra argument) the name of the call; the call
 * then returns the error. */
static void user_handler_gets_comm_and_code(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Errhandler h = new_recording_handler();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, h));
    record *r = my_record();

    CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&r->calls) == 1);
    CHECK(r->comm == MPI_COMM_WORLD && r->code == MPI_ERR_ARG);
    CHECK(strcmp(r->call, "MPI_Comm_size") == 0);

    CHECK(MPI_Comm_rank(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&r->calls) == 2);
    CHECK(r->comm == MPI_COMM_SELF && r->code == MPI_ERR_ARG);
    CHECK(strcmp(r->call, "MPI_Comm_rank") == 0);

    int i;
    CHECK(MPI_Comm_rank(MPI_COMM_NULL, &i) == MPI_ERR_COMM);  /* WORLD's */
    CHECK(atomic_load(&r->calls) == 3);
    CHECK(r->comm == MPI_COMM_WORLD && r->code == MPI_ERR_COMM);

    CHECK(MPI_Type_size(MPI_DATATYPE_NULL, &i) == MPI_ERR_TYPE);
    CHECK(atomic_load(&r->calls) == 4);
    CHECK(r->comm == MPI_COMM_WORLD && r->code == MPI_ERR_TYPE);

    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Finalize());
}

static void *fail_in_task(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)MPI_Comm_size(MPI_COMM_WORLD, NULL);
}

/* A task's error goes to the handler of the rank that spawned it. */
static void user_handler_runs_for_tasks_of_the_rank(void)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    MPI_Errhandler h = new_recording_handler();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
    CHECK_MPI(MPI_Errhandler_free(&h));
    myr_ult_t *tasks[4];
    for (int i = 0; i < 4; i++)
        CHECK(myr_ult_spawn(&tasks[i], fail_in_task, NULL) == MYR_OK);
    for (int i = 0; i < 4; i++) {
        void *rc;
        CHECK(myr_ult_join(tasks[i], &rc) == MYR_OK);
        CHECK((intptr_t)rc == MPI_ERR_ARG);
    }
    CHECK(atomic_load(&my_record()->calls) == 4);
    CHECK_MPI(MPI_Finalize());
}

static void call_errhandler_runs_the_handler(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Errhandler h = new_recording_handler();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, h));
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_SELF, 42));
    record *r = my_record();
    CHECK(atomic_load(&r->calls) == 1 && r->code == 42 && r->comm == MPI_COMM_SELF);
    CHECK(strcmp(r->call, "MPI_Comm_call_errhandler") == 0);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(atomic_load(&r->calls) == 1);
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Finalize());
}

/* MPI_Errhandler_free only drops the handle: the handler keeps working
 * where it is attached, and goes away with its last attachment (ASan
 * builds check that nothing touches it afterwards). */
static void freed_handler_lives_while_attached(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Errhandler h = new_recording_handler();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, h));
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK(h == MPI_ERRHANDLER_NULL);
    record *r = my_record();
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&r->calls) == 1);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_size(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&r->calls) == 2);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_size(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&r->calls) == 2);
    CHECK_MPI(MPI_Finalize());
}

/* MPI_Comm_get_errhandler hands out a handle of its own: it can be set
 * elsewhere and must be freed. */
static void get_errhandler_gives_a_handle_to_free(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Errhandler h = new_recording_handler(), got = MPI_ERRHANDLER_NULL;
    const MPI_Errhandler created = h;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == created);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, got));  /* still alive */
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(atomic_load(&my_record()->calls) == 1);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Finalize());
}

enum { ROUNDS = 2000 };

static void *replace_handlers(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        /* The attachment holds the only reference: the next set frees it. */
        MPI_Errhandler h = new_recording_handler();
        CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
        CHECK_MPI(MPI_Errhandler_free(&h));
        if (i % 3 == 0)
            CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        if (i % 16 == 0)
            myr_ult_yield();
    }
    return NULL;
}

static void *raise_errors(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
        MPI_Errhandler got;
        CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
        CHECK_MPI(MPI_Errhandler_free(&got));
        if (i % 16 == 0)
            myr_ult_yield();
    }
    return NULL;
}

/* Tasks of one rank replace its handler while others raise errors through
 * it: every error is handled (returned or recorded), none touches a freed
 * handler. */
static void concurrent_set_and_raise_are_safe(void)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    myr_ult_t *tasks[4];
    CHECK(myr_ult_spawn(&tasks[0], replace_handlers, NULL) == MYR_OK);
    CHECK(myr_ult_spawn(&tasks[1], replace_handlers, NULL) == MYR_OK);
    CHECK(myr_ult_spawn(&tasks[2], raise_errors, NULL) == MYR_OK);
    CHECK(myr_ult_spawn(&tasks[3], raise_errors, NULL) == MYR_OK);
    for (int i = 0; i < 4; i++)
        CHECK(myr_ult_join(tasks[i], NULL) == MYR_OK);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(atomic_load(&my_record()->calls) <= 2 * ROUNDS);
    CHECK_MPI(MPI_Finalize());
}

/* ---- bad arguments ----------------------------------------------------------- */

static void bad_arguments_return_error_classes(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int garbage[8] = {0};
    MPI_Comm bad_comm = (MPI_Comm)(void *)garbage;
    MPI_Errhandler bad_handler = (MPI_Errhandler)(void *)garbage;
    char s[MPI_MAX_ERROR_STRING];
    int i;
    MPI_Errhandler h;

    CHECK(MPI_Error_string(-1, s, &i) == MPI_ERR_ARG);
    CHECK(MPI_Error_string(MPI_ERR_LASTCODE + 1, s, &i) == MPI_ERR_ARG);
    CHECK(MPI_Error_string(MPI_SUCCESS, NULL, &i) == MPI_ERR_ARG);
    CHECK(MPI_Error_string(MPI_SUCCESS, s, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Error_class(-1, &i) == MPI_ERR_ARG);
    CHECK(MPI_Error_class(MPI_ERR_LASTCODE + 1, &i) == MPI_ERR_ARG);
    CHECK(MPI_Error_class(MPI_ERR_ARG, NULL) == MPI_ERR_ARG);

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_errhandler(bad_comm, MPI_ERRORS_RETURN) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, bad_handler) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_NULL, &h) == MPI_ERR_COMM);
    CHECK(MPI_Comm_get_errhandler(bad_comm, &h) == MPI_ERR_COMM);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_errhandler(NULL, &h) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_errhandler(recording_handler, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Errhandler_free(NULL) == MPI_ERR_ARG);
    h = MPI_ERRHANDLER_NULL;
    CHECK(MPI_Errhandler_free(&h) == MPI_ERR_ARG);
    h = bad_handler;
    CHECK(MPI_Errhandler_free(&h) == MPI_ERR_ARG);
    CHECK(h == bad_handler);  /* untouched */
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER) == MPI_ERR_COMM);
    CHECK(MPI_Comm_call_errhandler(bad_comm, MPI_ERR_OTHER) == MPI_ERR_COMM);

    /* The failed calls changed nothing. */
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
    CHECK(h == MPI_ERRORS_RETURN);
    CHECK(atomic_load(&my_record()->calls) == 0);
    CHECK_MPI(MPI_Finalize());
}

/* ---- cases that end the job (run through expect_crash.sh) -------------- */

static void call_errhandler_on_fatal_ends_the_job(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, 42);
    CHECK(!"MPI_Comm_call_errhandler returned under MPI_ERRORS_ARE_FATAL");
}

static void bad_error_code_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_ERR_LASTCODE + 1, s, &len);
}

static void bad_handler_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
}

/* An invalid communicator's error goes to MPI_COMM_WORLD's handler (still
 * fatal), not to MPI_COMM_SELF's. */
static void fatal_after_errors_return_on_self(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int garbage[8] = {0}, rank;
    MPI_Comm_rank((MPI_Comm)(void *)garbage, &rank);
}

/* Classes and codes the program adds: numbers after MPI_ERR_LASTCODE, a
 * code's class, strings (only on added ones), MPI_LASTUSEDCODE, and a
 * user handler called with an added code. */
static atomic_int added_code_seen;

static void note_added_code(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    atomic_store(&added_code_seen, *code);
}

static void added_classes_codes_and_strings(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls, code, code2, got, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE);
    CHECK_MPI(MPI_Error_class(cls, &got));
    CHECK(got == cls);
    CHECK_MPI(MPI_Error_string(cls, s, &len));
    CHECK(len == 0 && s[0] == '\0');
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    CHECK(code != cls && code2 != code && code2 != cls);
    CHECK_MPI(MPI_Error_class(code, &got));
    CHECK(got == cls);
    CHECK_MPI(MPI_Error_class(code2, &got));
    CHECK(got == MPI_ERR_ARG);
    CHECK_MPI(MPI_Add_error_string(code, "the widget overheated"));
    CHECK_MPI(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "the widget overheated") == 0 && len == (int)strlen(s));
    CHECK_MPI(MPI_Add_error_string(code, "replaced"));
    CHECK_MPI(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "replaced") == 0);
    int *last, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code2 && *last >= code && *last >= cls);
    /* Bad arguments. */
    char big[MPI_MAX_ERROR_STRING + 1];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(MPI_Add_error_string(MPI_ERR_ARG, "no") == MPI_ERR_ARG);
    CHECK(MPI_Add_error_string(code, big) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_string(code, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_code(code, &got) == MPI_ERR_ARG);   /* a code, not a class */
    CHECK(MPI_Add_error_code(-4, &got) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_class(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Error_class(*last + 1000, &got) == MPI_ERR_ARG);
    /* A user handler gets the added code. */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(note_added_code, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_SELF, code));
    CHECK(atomic_load(&added_code_seen) == code);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Finalize());
}

static void added_code_string_is_printed_when_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int cls, code;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_string(code, "the widget overheated"));
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    CHECK(!"MPI_Comm_call_errhandler returned under MPI_ERRORS_ARE_FATAL");
}

static const test_case cases[] = {
    {"added_classes_codes_and_strings", added_classes_codes_and_strings},
    {"added_code_string_is_printed_when_fatal", added_code_string_is_printed_when_fatal},
    {"every_class_has_a_distinct_string", every_class_has_a_distinct_string},
    {"error_class_of_a_class_is_itself", error_class_of_a_class_is_itself},
    {"errors_are_fatal_by_default", errors_are_fatal_by_default},
    {"errors_return_gives_the_class", errors_return_gives_the_class},
    {"handlers_are_per_rank", handlers_are_per_rank},
    {"handlers_are_per_communicator", handlers_are_per_communicator},
    {"user_handler_gets_comm_and_code", user_handler_gets_comm_and_code},
    {"user_handler_runs_for_tasks_of_the_rank", user_handler_runs_for_tasks_of_the_rank},
    {"call_errhandler_runs_the_handler", call_errhandler_runs_the_handler},
    {"freed_handler_lives_while_attached", freed_handler_lives_while_attached},
    {"get_errhandler_gives_a_handle_to_free", get_errhandler_gives_a_handle_to_free},
    {"concurrent_set_and_raise_are_safe", concurrent_set_and_raise_are_safe},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"call_errhandler_on_fatal_ends_the_job", call_errhandler_on_fatal_ends_the_job},
    {"bad_error_code_is_fatal", bad_error_code_is_fatal},
    {"bad_handler_is_fatal", bad_handler_is_fatal},
    {"fatal_after_errors_return_on_self", fatal_after_errors_return_on_self},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
