/* deadlock_calls.c — the deadlock check (launch/watchdog.c): a job where
 * every rank waits and none can go on ends with a report of what each
 * waits for (exit status 85); a job that only looks idle, because a rank
 * sleeps, computes or has a kernel thread at work, is left alone.
 * Usage: deadlock_calls CASE. */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "../check.h"

static int rank_of_world(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static void receive_receive(void)
{
    int me = rank_of_world(), x = 0;
    if (me < 2)
        MPI_Recv(&x, 1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void collective_without_one_rank(void)
{
    int me = rank_of_world(), x = 0;
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, me, &half));
    CHECK_OK(MPI_Comm_set_name(half, "everyone"));
    if (me == 3)
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, half);
}

static void wrong_tag(void)
{
    int me = rank_of_world(), x = 0;
    if (me == 0)
        CHECK_OK(MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    if (me == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Rank 0 is busy for a second (asleep, or computing) while the others wait
 * for it: not a deadlock. */
static void sleeping_rank_is_not_a_deadlock(void)
{
    int me = rank_of_world(), x = 42;
    if (me == 0) {
        usleep(1200 * 1000);
        CHECK_OK(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    } else if (me == 1) {
        CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 42);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void computing_rank_is_not_a_deadlock(void)
{
    int me = rank_of_world(), x = 0;
    if (me == 0) {
        double until = MPI_Wtime() + 1.2;
        volatile double sum = 0;
        while (MPI_Wtime() < until)
            sum += 1;
        x = sum > 0;
        CHECK_OK(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    } else if (me == 1) {
        CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 1);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void *late_sender(void *arg)
{
    (void)arg;
    usleep(1200 * 1000);
    int x = 7;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    return NULL;
}

/* Every rank waits in MPI, but a kernel thread of rank 0 is still at work
 * and will send: not a deadlock either. */
static void working_thread_is_not_a_deadlock(void)
{
    int me = rank_of_world(), x = 0, provided;
    CHECK_OK(MPI_Query_thread(&provided));
    pthread_t t;
    if (me == 0)
        CHECK(pthread_create(&t, NULL, late_sender, NULL) == 0);
    if (me == 1) {
        CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 7);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK(pthread_join(t, NULL) == 0);
}

static const test_case cases[] = {
    {"receive_receive", receive_receive},
    {"receive_receive_unchecked", receive_receive},
    {"collective_without_one_rank", collective_without_one_rank},
    {"wrong_tag", wrong_tag},
    {"sleeping_rank_is_not_a_deadlock", sleeping_rank_is_not_a_deadlock},
    {"computing_rank_is_not_a_deadlock", computing_rank_is_not_a_deadlock},
    {"working_thread_is_not_a_deadlock", working_thread_is_not_a_deadlock},
};

int main(int argc, char **argv)
{
    int provided;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
