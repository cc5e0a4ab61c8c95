/* errors.c — bad arguments and wrong states get an error code, never a
 * crash, and the runtime keeps working afterwards. Usage: errors CASE. */
#include <pthread.h>
#include <stdlib.h>

#include "../check.h"
#include "myr_ult.h"

static void *nothing(void *arg) { return arg; }

/* Everything but init refuses to run before init. */
static void calls_before_init_are_refused(void)
{
    myr_ult_t *h = (myr_ult_t *)1;
    CHECK(myr_ult_spawn(&h, nothing, NULL) == MYR_ERR_STATE);
    CHECK(h == NULL);
    CHECK(myr_ult_spawn_on(0, NULL, nothing, NULL) == MYR_ERR_STATE);
    CHECK(myr_ult_suspend() == MYR_ERR_STATE);
    CHECK(myr_finalize() == MYR_ERR_STATE);
    CHECK(myr_ult_self() == NULL);
    CHECK(myr_worker_count() == 0);
    CHECK(myr_worker_self() == -1);
    myr_ult_yield();  /* harmless no-op */
}

static void *join_self(void *arg)
{
    (void)arg;
    return (void *)(long)myr_ult_join(myr_ult_self(), NULL);
}

static void *finalize_from_ult(void *arg)
{
    (void)arg;
    return (void *)(long)myr_finalize();
}

/* Bad arguments while running: NULL function, bad worker, joining NULL,
 * oneself, a detached ULT or the main ULT, finalize outside the main ULT,
 * exit from the main ULT, double init. */
static void bad_arguments_are_refused(void)
{
    CHECK_OK(myr_init());
    myr_ult_t *h;
    void *r;
    CHECK(myr_init() == MYR_ERR_STATE);
    CHECK(myr_ult_spawn(&h, NULL, NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_spawn_on(-1, &h, nothing, NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_spawn_on(myr_worker_count(), &h, nothing, NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_join(NULL, NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_resume(NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_set_name(NULL, "x") == MYR_ERR_ARG);
    CHECK(myr_ult_join(myr_ult_self(), NULL) == MYR_ERR_ARG);
    CHECK(myr_ult_exit(NULL) == MYR_ERR_STATE);

    CHECK_OK(myr_ult_spawn(&h, join_self, NULL));
    CHECK_OK(myr_ult_join(h, &r));
    CHECK((long)r == MYR_ERR_ARG);
    CHECK_OK(myr_ult_spawn(&h, finalize_from_ult, NULL));
    CHECK_OK(myr_ult_join(h, &r));
    CHECK((long)r == MYR_ERR_STATE);

    /* Still working. */
    CHECK_OK(myr_ult_spawn(&h, nothing, (void *)5L));
    CHECK_OK(myr_ult_join(h, &r));
    CHECK((long)r == 5);
    CHECK_OK(myr_finalize());
}

static void *suspend_from_kernel_thread(void *arg)
{
    (void)arg;
    return (void *)(long)myr_ult_suspend();
}

/* A kernel thread that is not a worker cannot suspend (it is no ULT). */
static void suspend_outside_a_ult_is_refused(void)
{
    CHECK_OK(myr_init());
    pthread_t t;
    void *r;
    CHECK(pthread_create(&t, NULL, suspend_from_kernel_thread, NULL) == 0);
    CHECK(pthread_join(t, &r) == 0);
    CHECK((long)r == MYR_ERR_STATE);
    CHECK_OK(myr_finalize());
}

/* Malformed environment settings are reported and refused. */
static void bad_environment_is_refused(void)
{
    const char *bad[][2] = {{"MYR_WORKERS", "0"},       {"MYR_WORKERS", "two"},
                            {"MYR_STACK_SIZE", "12q"},  {"MYR_STACK_SIZE", "1k"},
                            {"MYR_BIND", "sideways"},   {"MYR_SPIN_US", "-5"},
                            {"MYR_STACK_GUARD", "sometimes"}, {"MYR_SPIN_YIELD", "often"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i][0], bad[i][1], 1);
        CHECK(myr_init() == MYR_ERR_ARG);
        CHECK(!myr_initialized());
        unsetenv(bad[i][0]);
    }
    setenv("MYR_STACK_SIZE", "256k", 1);
    setenv("MYR_WORKERS", "3", 1);
    CHECK_OK(myr_init());
    CHECK(myr_stack_size() == 256 * 1024);
    CHECK(myr_worker_count() == 3);
    CHECK_OK(myr_finalize());
    const char *guard[] = {"auto", "always", "never"};
    for (size_t i = 0; i < sizeof guard / sizeof guard[0]; i++) {
        setenv("MYR_STACK_GUARD", guard[i], 1);
        CHECK_OK(myr_init());
        CHECK_OK(myr_finalize());
    }
    unsetenv("MYR_STACK_GUARD");
}

/* Every error code has a message. */
static void every_error_has_a_message(void)
{
    for (int e = MYR_OK; e <= MYR_ERR_SYS + 1; e++)
        CHECK(myr_strerror(e) != NULL && myr_strerror(e)[0] != '\0');
}

static const test_case cases[] = {
    {"calls_before_init_are_refused", calls_before_init_are_refused},
    {"bad_arguments_are_refused", bad_arguments_are_refused},
    {"suspend_outside_a_ult_is_refused", suspend_outside_a_ult_is_refused},
    {"bad_environment_is_refused", bad_environment_is_refused},
    {"every_error_has_a_message", every_error_has_a_message},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
