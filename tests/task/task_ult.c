/* tests/task — tasks in a program of the ULT API (no MPI), and calls from
 * where no task can be made. */
#include <myr_task.h>
#include <pthread.h>
#include <stdint.h>

#include "../check.h"

static void noop(void *arg)
{
    (void)arg;
}

static void calls_outside_a_ult_return_a_state_error(void)
{
    int x = 0;
    CHECK(myr_task_create(noop, NULL, NULL, 0, 0) == MYR_ERR_STATE);
    CHECK(myr_task_wait_on(&x) == MYR_ERR_STATE);
    CHECK(myr_taskwait() == MYR_ERR_STATE);
    CHECK(myr_task_depend_request(NULL, &x, 4) == MYR_ERR_STATE);
    /* Bad arguments are found before the caller is looked at. */
    CHECK(myr_task_create(NULL, NULL, NULL, 0, 0) == MYR_ERR_ARG);
}

static void *from_a_plain_thread(void *arg)
{
    (void)arg;
    calls_outside_a_ult_return_a_state_error();
    return NULL;
}

static void square(void *arg)
{
    long *v = arg;
    *v = *v * *v;
}

static void increment(void *arg)
{
    long *v = arg;
    *v += 1;
}

/* Before myr_init, from a kernel thread of the program, and then as tasks
 * of the main ULT (a program of the ULT API has one domain). */
static void tasks_need_a_ult(void)
{
    calls_outside_a_ult_return_a_state_error();
    CHECK_OK(myr_init());
    pthread_t t;
    CHECK(pthread_create(&t, NULL, from_a_plain_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    long v = 3;
    myr_task_dep_t dep = {&v, sizeof v, MYR_TASK_INOUT};
    for (int i = 0; i < 100; i++) {
        CHECK_OK(myr_task_create(increment, &v, &dep, 1, 0));
        CHECK_OK(myr_task_create(square, &v, &dep, 1, 0));
        CHECK_OK(myr_task_wait_on(&v));
        CHECK(v == 16);
        v = 3;
    }
    CHECK_OK(myr_taskwait());
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"tasks_need_a_ult", tasks_need_a_ult},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
