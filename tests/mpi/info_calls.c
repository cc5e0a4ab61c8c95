/* info_calls.c — MPI info objects, MPI_INFO_ENV and communicator hints:
 * what each call gives, and the error class of each bad argument (with
 * nothing lost). Usage: info_calls CASE. */
#include <mpi.h>
#include <unistd.h>

#include "../check.h"

static char **program_argv;

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

/* info holds exactly the n keys, in this order, with these values. */
static void check_entries(MPI_Info info, int n, const char *const *keys,
                          const char *const *values)
{
    int nkeys = -1;
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0, len = -1;
        CHECK_OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, keys[i]) == 0);
        CHECK_OK(MPI_Info_get_valuelen(info, keys[i], &len, &flag));
        CHECK(flag && len == (int)strlen(values[i]));
        flag = 0;
        CHECK_OK(MPI_Info_get(info, keys[i], MPI_MAX_INFO_VAL, value, &flag));
        CHECK(flag && strcmp(value, values[i]) == 0);
    }
}

static void check_value(MPI_Info info, const char *key, const char *want)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag);
    CHECK(strcmp(value, want) == 0);
}

static void keys_keep_insertion_order_and_set_replaces(void)
{
    MPI_Info info = MPI_INFO_NULL;
    CHECK_OK(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL);
    check_entries(info, 0, NULL, NULL);
    CHECK_OK(MPI_Info_set(info, "zeta", "1"));
    CHECK_OK(MPI_Info_set(info, "alpha", "two"));
    CHECK_OK(MPI_Info_set(info, "mid", ""));   /* an empty value is a value */
    check_entries(info, 3, (const char *[]){"zeta", "alpha", "mid"},
                  (const char *[]){"1", "two", ""});
    /* Setting a key again replaces its value and keeps its place. */
    CHECK_OK(MPI_Info_set(info, "alpha", "a much longer value than before"));
    check_entries(info, 3, (const char *[]){"zeta", "alpha", "mid"},
                  (const char *[]){"1", "a much longer value than before", ""});
    /* Keys are case sensitive. */
    CHECK_OK(MPI_Info_set(info, "ZETA", "upper"));
    check_value(info, "zeta", "1");
    check_value(info, "ZETA", "upper");
    CHECK_OK(MPI_Info_delete(info, "alpha"));
    check_entries(info, 3, (const char *[]){"zeta", "mid", "ZETA"},
                  (const char *[]){"1", "", "upper"});
    /* A missing key: flag false, the buffers untouched. */
    char value[8] = "keep";
    int flag = 1, len = 99;
    CHECK_OK(MPI_Info_get(info, "alpha", 7, value, &flag));
    CHECK(!flag && strcmp(value, "keep") == 0);
    flag = 1;
    CHECK_OK(MPI_Info_get_valuelen(info, "alpha", &len, &flag));
    CHECK(!flag && len == 99);
    /* Deleting every key leaves an empty, usable object. */
    CHECK_OK(MPI_Info_delete(info, "zeta"));
    CHECK_OK(MPI_Info_delete(info, "ZETA"));
    CHECK_OK(MPI_Info_delete(info, "mid"));
    check_entries(info, 0, NULL, NULL);
    CHECK_OK(MPI_Info_set(info, "again", "yes"));
    check_entries(info, 1, (const char *[]){"again"}, (const char *[]){"yes"});
    CHECK_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
}

/* MPI_Info_get writes at most valuelen characters, then a NUL. */
static void get_cuts_the_value_to_valuelen(void)
{
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "k", "abcdef"));
    char buf[10];
    int flag = 0;
    memset(buf, '#', sizeof buf);
    CHECK_OK(MPI_Info_get(info, "k", 3, buf, &flag));
    CHECK(flag && memcmp(buf, "abc\0######", 10) == 0);
    memset(buf, '#', sizeof buf);
    CHECK_OK(MPI_Info_get(info, "k", 0, buf, &flag));
    CHECK(flag && memcmp(buf, "\0#########", 10) == 0);
    memset(buf, '#', sizeof buf);
    CHECK_OK(MPI_Info_get(info, "k", 6, buf, &flag));
    CHECK(flag && memcmp(buf, "abcdef\0###", 10) == 0);
    memset(buf, '#', sizeof buf);
    CHECK_OK(MPI_Info_get(info, "k", 8, buf, &flag));   /* more room than needed */
    CHECK(flag && memcmp(buf, "abcdef\0###", 10) == 0);
    CHECK_OK(MPI_Info_free(&info));
}

static void dup_is_an_independent_copy(void)
{
    MPI_Info a, b;
    CHECK_OK(MPI_Info_create(&a));
    CHECK_OK(MPI_Info_set(a, "one", "1"));
    CHECK_OK(MPI_Info_set(a, "two", "2"));
    CHECK_OK(MPI_Info_dup(a, &b));
    CHECK(b != a);
    check_entries(b, 2, (const char *[]){"one", "two"}, (const char *[]){"1", "2"});
    CHECK_OK(MPI_Info_set(a, "one", "changed"));
    CHECK_OK(MPI_Info_delete(a, "two"));
    CHECK_OK(MPI_Info_set(b, "three", "3"));
    check_entries(a, 1, (const char *[]){"one"}, (const char *[]){"changed"});
    check_entries(b, 3, (const char *[]){"one", "two", "three"},
                  (const char *[]){"1", "2", "3"});
    CHECK_OK(MPI_Info_free(&a));
    check_entries(b, 3, (const char *[]){"one", "two", "three"},
                  (const char *[]){"1", "2", "3"});
    MPI_Info empty, empty2;
    CHECK_OK(MPI_Info_create(&empty));
    CHECK_OK(MPI_Info_dup(empty, &empty2));
    check_entries(empty2, 0, NULL, NULL);
    CHECK_OK(MPI_Info_free(&b));
    CHECK_OK(MPI_Info_free(&empty));
    CHECK_OK(MPI_Info_free(&empty2));
    CHECK(a == MPI_INFO_NULL && b == MPI_INFO_NULL && empty2 == MPI_INFO_NULL);
}

/* Keys up to MPI_MAX_INFO_KEY characters, values up to MPI_MAX_INFO_VAL. */
static void limits_are_the_maxima(void)
{
    CHECK(MPI_MAX_INFO_KEY == 255 && MPI_MAX_INFO_VAL == 1024);
    static char key[MPI_MAX_INFO_KEY + 2], value[MPI_MAX_INFO_VAL + 2];
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY - 1] = 'z';   /* the last character counts */
    memset(value, 'v', MPI_MAX_INFO_VAL);
    value[MPI_MAX_INFO_VAL - 1] = 'w';
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, key, value));
    char got_key[MPI_MAX_INFO_KEY + 1];
    CHECK_OK(MPI_Info_get_nthkey(info, 0, got_key));
    CHECK(strcmp(got_key, key) == 0);
    static char got[MPI_MAX_INFO_VAL + 1];
    int flag = 0, len = 0;
    CHECK_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, got, &flag));
    CHECK(flag && strcmp(got, value) == 0);
    CHECK_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL);
    /* One more character is an error, and the object keeps what it had. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    key[MPI_MAX_INFO_KEY] = 'k';
    CHECK(MPI_Info_set(info, key, "x") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get(info, key, 4, got, &flag) == MPI_ERR_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    value[MPI_MAX_INFO_VAL] = 'v';
    CHECK(MPI_Info_set(info, key, value) == MPI_ERR_INFO_VALUE);
    CHECK(MPI_Info_set(info, "other", value) == MPI_ERR_INFO_VALUE);
    value[MPI_MAX_INFO_VAL] = '\0';
    check_entries(info, 1, (const char *[]){key}, (const char *[]){value});
    CHECK_OK(MPI_Info_free(&info));
}

/* MPI_INFO_ENV: the command line, the job size and where it runs. */
static void info_env_describes_the_job(void)
{
    check_value(MPI_INFO_ENV, "command", program_argv[0]);
    check_value(MPI_INFO_ENV, "argv", "info_env_describes_the_job");
    char buf[32];
    snprintf(buf, sizeof buf, "%d", world_size());
    check_value(MPI_INFO_ENV, "maxprocs", buf);
#if defined(__x86_64__)
    check_value(MPI_INFO_ENV, "arch", "x86_64");
#elif defined(__aarch64__)
    check_value(MPI_INFO_ENV, "arch", "aarch64");
#endif
    char host[MPI_MAX_INFO_VAL + 1], cwd[MPI_MAX_INFO_VAL + 1];
    CHECK(gethostname(host, sizeof host) == 0);
    check_value(MPI_INFO_ENV, "host", host);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    check_value(MPI_INFO_ENV, "wdir", cwd);
    int nkeys;
    CHECK_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys == 6);
    /* Read-only; a dup is an ordinary object. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Info env = MPI_INFO_ENV, copy;
    CHECK(MPI_Info_set(env, "command", "x") == MPI_ERR_INFO);
    CHECK(MPI_Info_delete(env, "command") == MPI_ERR_INFO);
    CHECK(MPI_Info_free(&env) == MPI_ERR_INFO);
    CHECK(env == MPI_INFO_ENV);
    check_value(MPI_INFO_ENV, "command", program_argv[0]);
    CHECK_OK(MPI_Info_dup(MPI_INFO_ENV, &copy));
    CHECK_OK(MPI_Info_set(copy, "command", "x"));
    check_value(copy, "command", "x");
    check_value(copy, "maxprocs", buf);
    check_value(MPI_INFO_ENV, "command", program_argv[0]);
    CHECK_OK(MPI_Info_free(&copy));
}

/* Hints: set_info merges, get_info gives a new object with all of them,
 * dup copies them, dup_with_info takes the given ones; per rank. */
static void comm_hints_are_kept_merged_and_copied(void)
{
    int me = world_rank();
    MPI_Comm c, d, e, f;
    MPI_Info in, got;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPI_Comm_get_info(c, &got));
    check_entries(got, 0, NULL, NULL);
    CHECK_OK(MPI_Info_free(&got));

    CHECK_OK(MPI_Info_create(&in));
    CHECK_OK(MPI_Info_set(in, "a", "1"));
    CHECK_OK(MPI_Info_set(in, "b", "2"));
    CHECK_OK(MPI_Comm_set_info(c, in));
    CHECK_OK(MPI_Info_free(&in));   /* the communicator keeps its own copy */
    CHECK_OK(MPI_Info_create(&in));
    CHECK_OK(MPI_Info_set(in, "b", "3"));
    CHECK_OK(MPI_Info_set(in, "c", "4"));
    CHECK_OK(MPI_Comm_set_info(c, in));
    CHECK_OK(MPI_Comm_set_info(c, MPI_INFO_NULL));   /* changes nothing */
    CHECK_OK(MPI_Comm_get_info(c, &got));
    check_entries(got, 3, (const char *[]){"a", "b", "c"}, (const char *[]){"1", "3", "4"});
    /* get_info's object is the caller's: changing it changes no hint. */
    CHECK_OK(MPI_Info_set(got, "a", "changed"));
    CHECK_OK(MPI_Info_free(&got));

    CHECK_OK(MPI_Comm_dup(c, &d));
    CHECK_OK(MPI_Comm_get_info(d, &got));
    check_entries(got, 3, (const char *[]){"a", "b", "c"}, (const char *[]){"1", "3", "4"});
    CHECK_OK(MPI_Info_free(&got));

    CHECK_OK(MPI_Info_set(in, "only", "this"));
    CHECK_OK(MPI_Info_delete(in, "b"));
    CHECK_OK(MPI_Info_delete(in, "c"));
    CHECK_OK(MPI_Comm_dup_with_info(c, in, &e));
    CHECK_OK(MPI_Comm_get_info(e, &got));
    check_entries(got, 1, (const char *[]){"only"}, (const char *[]){"this"});
    CHECK_OK(MPI_Info_free(&got));
    CHECK_OK(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &f));
    CHECK_OK(MPI_Comm_get_info(f, &got));
    check_entries(got, 0, NULL, NULL);
    CHECK_OK(MPI_Info_free(&got));
    int result;
    CHECK_OK(MPI_Comm_compare(c, e, &result));
    CHECK(result == MPI_CONGRUENT);
    /* The duplicates communicate. */
    int sum = 0, one = 1;
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, e));
    CHECK(sum == world_size());

    /* Hints of MPI_COMM_WORLD are per rank. */
    char mine[16];
    snprintf(mine, sizeof mine, "%d", me);
    CHECK_OK(MPI_Info_set(in, "rank", mine));
    CHECK_OK(MPI_Comm_set_info(MPI_COMM_WORLD, in));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &got));
    check_entries(got, 2, (const char *[]){"only", "rank"}, (const char *[]){"this", mine});
    CHECK_OK(MPI_Info_free(&got));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Info arguments of other calls take real objects now. */
    MPI_Comm shared;
    CHECK_OK(MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, in, &shared));
    void *mem = NULL;
    CHECK_OK(MPI_Alloc_mem(64, in, &mem));
    memset(mem, 1, 64);
    CHECK_OK(MPI_Free_mem(mem));
    CHECK_OK(MPI_Info_free(&in));
    MPI_Comm comms[] = {c, d, e, f, shared};
    for (int i = 0; i < 5; i++)
        CHECK_OK(MPI_Comm_free(&comms[i]));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int garbage[4] = {0};
    MPI_Info bad = (MPI_Info)(void *)garbage, info, none = MPI_INFO_NULL;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "k", "v"));
    CHECK_OK(MPI_Info_set(info, "k2", "v2"));
    char value[16], key[MPI_MAX_INFO_KEY + 1];
    int flag, n;
    CHECK(MPI_Info_create(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_set(MPI_INFO_NULL, "k", "v") == MPI_ERR_INFO);
    CHECK(MPI_Info_set(bad, "k", "v") == MPI_ERR_INFO);
    CHECK(MPI_Info_set(info, NULL, "v") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_set(info, "", "v") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_set(info, "k", NULL) == MPI_ERR_INFO_VALUE);
    CHECK(MPI_Info_delete(info, "absent") == MPI_ERR_INFO_NOKEY);
    CHECK(MPI_Info_delete(info, NULL) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_delete(MPI_INFO_NULL, "k") == MPI_ERR_INFO);
    CHECK(MPI_Info_get(info, "k", -1, value, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Info_get(info, "k", 4, NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Info_get(info, "k", 4, value, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_get(info, "", 4, value, &flag) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get(bad, "k", 4, value, &flag) == MPI_ERR_INFO);
    CHECK(MPI_Info_get_valuelen(info, "k", NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_valuelen(info, "k", &n, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_valuelen(info, NULL, &n, &flag) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get_valuelen(MPI_INFO_NULL, "k", &n, &flag) == MPI_ERR_INFO);
    CHECK(MPI_Info_get_nkeys(info, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nkeys(MPI_INFO_NULL, &n) == MPI_ERR_INFO);
    CHECK(MPI_Info_get_nthkey(info, -1, key) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nthkey(info, 2, key) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nthkey(info, 0, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nthkey(bad, 0, key) == MPI_ERR_INFO);
    CHECK(MPI_Info_dup(info, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_dup(MPI_INFO_NULL, &none) == MPI_ERR_INFO);
    CHECK(none == MPI_INFO_NULL);
    CHECK(MPI_Info_free(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Info_free(&none) == MPI_ERR_INFO);
    CHECK(MPI_Info_free(&bad) == MPI_ERR_INFO);
    /* A freed object's handle is MPI_INFO_NULL: using it is an error. */
    MPI_Info freed;
    CHECK_OK(MPI_Info_create(&freed));
    CHECK_OK(MPI_Info_free(&freed));
    CHECK(MPI_Info_get_nkeys(freed, &n) == MPI_ERR_INFO);
    CHECK(MPI_Info_set(freed, "k", "v") == MPI_ERR_INFO);
    CHECK(MPI_Info_free(&freed) == MPI_ERR_INFO);
    /* Communicator hints. */
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info got = MPI_INFO_NULL;
    CHECK(MPI_Comm_set_info(MPI_COMM_NULL, info) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_info(MPI_COMM_WORLD, bad) == MPI_ERR_INFO);
    CHECK(MPI_Comm_get_info(MPI_COMM_NULL, &got) == MPI_ERR_COMM);
    CHECK(MPI_Comm_get_info(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_NULL, info, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, bad, &c) == MPI_ERR_INFO);
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Alloc_mem(8, bad, &got) == MPI_ERR_INFO);
    CHECK(c == MPI_COMM_NULL && got == MPI_INFO_NULL);
    /* Nothing was lost. */
    check_entries(info, 2, (const char *[]){"k", "k2"}, (const char *[]){"v", "v2"});
    CHECK_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &got));
    check_entries(got, 0, NULL, NULL);
    CHECK_OK(MPI_Info_free(&got));
    CHECK_OK(MPI_Info_free(&info));
}

/* The default handler ends the job with one line naming the argument. */
static void key_too_long_is_fatal(void)
{
    char key[MPI_MAX_INFO_KEY + 2];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    if (world_rank() == 0)
        MPI_Info_set(info, key, "v");
    CHECK_OK(MPI_Info_free(&info));
}

static const test_case cases[] = {
    {"keys_keep_insertion_order_and_set_replaces", keys_keep_insertion_order_and_set_replaces},
    {"get_cuts_the_value_to_valuelen", get_cuts_the_value_to_valuelen},
    {"dup_is_an_independent_copy", dup_is_an_independent_copy},
    {"limits_are_the_maxima", limits_are_the_maxima},
    {"info_env_describes_the_job", info_env_describes_the_job},
    {"comm_hints_are_kept_merged_and_copied", comm_hints_are_kept_merged_and_copied},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"key_too_long_is_fatal", key_too_long_is_fatal},
};

int main(int argc, char **argv)
{
    program_argv = argv;
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
