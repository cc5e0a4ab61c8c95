/* threads_calls.c — MPI_THREAD_MULTIPLE with the program's own kernel
 * threads: a thread a rank creates with pthread_create acts for that rank
 * (point-to-point, collectives, requests), blocks in the kernel rather
 * than in a worker, and a rank joining it does not hold up its worker.
 * Usage: threads_calls CASE. */
#include <mpi.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"

enum { THREADS = 4, ROUNDS = 200, WORDS = 64 };

static int rank_of(MPI_Comm c)
{
    int r;
    CHECK_OK(MPI_Comm_rank(c, &r));
    return r;
}

static int size_of(MPI_Comm c)
{
    int s;
    CHECK_OK(MPI_Comm_size(c, &s));
    return s;
}

static void init_multiple(void)
{
    int provided;
    CHECK_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
}

static unsigned word(int from, int thread, int round, int i)
{
    return (unsigned)from * 2654435761u ^ (unsigned)thread * 40503u ^ (unsigned)round * 977u ^
           (unsigned)i;
}

static void start_all(pthread_t *t, int n, void *(*fn)(void *))
{
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) == 0);
}

static void join_all(pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

/* ---- a ring per thread index, payloads checked ---------------------------- */

static void *ring_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int flag = 1;
    CHECK_OK(MPI_Is_thread_main(&flag));
    CHECK(!flag);
    unsigned out[WORDS], in[WORDS];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < WORDS; i++)
            out[i] = word(me, t, round, i);
        MPI_Status st;
        /* Blocking and nonblocking alternate. */
        if (round % 2) {
            CHECK_OK(MPI_Sendrecv(out, WORDS, MPI_UNSIGNED, (me + 1) % n, t, in, WORDS,
                                  MPI_UNSIGNED, (me + n - 1) % n, t, MPI_COMM_WORLD, &st));
        } else {
            MPI_Request r[2];
            CHECK_OK(MPI_Irecv(in, WORDS, MPI_UNSIGNED, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &r[0]));
            CHECK_OK(MPI_Isend(out, WORDS, MPI_UNSIGNED, (me + 1) % n, t, MPI_COMM_WORLD, &r[1]));
            MPI_Status sts[2];
            CHECK_OK(MPI_Waitall(2, r, sts));
            st = sts[0];
        }
        CHECK(st.MPI_SOURCE == (me + n - 1) % n && st.MPI_TAG == t);
        for (int i = 0; i < WORDS; i++)
            CHECK(in[i] == word((me + n - 1) % n, t, round, i));
    }
    return NULL;
}

static void threads_exchange_on_rings(void)
{
    init_multiple();
    pthread_t t[THREADS];
    start_all(t, THREADS, ring_thread);
    join_all(t, THREADS);
    int flag = 0;
    CHECK_OK(MPI_Is_thread_main(&flag));
    CHECK(flag);
}

/* ---- collectives from threads, one communicator each ----------------------- */

static MPI_Comm thread_comms[THREADS];

static void *collective_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = thread_comms[t];
    int me = rank_of(c), n = size_of(c);
    for (int round = 0; round < 50; round++) {
        long mine = me * 10 + t + round, sum = -1;
        CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
        CHECK(sum == 10L * n * (n - 1) / 2 + (long)n * (t + round));
        int root = round % n, value = me == root ? round * 7 + t : -1;
        CHECK_OK(MPI_Bcast(&value, 1, MPI_INT, root, c));
        CHECK(value == round * 7 + t);
        MPI_Request r;
        CHECK_OK(MPI_Ibarrier(c, &r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    return NULL;
}

static void threads_run_collectives(void)
{
    init_multiple();
    for (int t = 0; t < THREADS; t++)
        CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comms[t]));
    pthread_t th[THREADS];
    start_all(th, THREADS, collective_thread);
    join_all(th, THREADS);
    for (int t = 0; t < THREADS; t++)
        CHECK_OK(MPI_Comm_free(&thread_comms[t]));
}

/* ---- joining does not hold up the worker ------------------------------------ */

/* Each rank's thread waits for the next rank's main, which sends only
 * after it has itself started its thread: with one worker, a rank whose
 * join blocked the worker would keep every later rank from running. */
static void *wait_for_next_main(void *arg)
{
    (void)arg;
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int got = -1;
    CHECK_OK(MPI_Recv(&got, 1, MPI_INT, (me + 1) % n, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == (me + 1) % n);
    return NULL;
}

static void join_lets_other_ranks_run(void)
{
    init_multiple();
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, wait_for_next_main, NULL) == 0);
    if (me > 0)
        CHECK(pthread_join(t, NULL) == 0);
    CHECK_OK(MPI_Send(&me, 1, MPI_INT, (me + n - 1) % n, 5, MPI_COMM_WORLD));
    if (me == 0)
        CHECK(pthread_join(t, NULL) == 0);
}

/* ---- a thread blocked in MPI while its rank computes ------------------------- */

static void *receive_from_own_rank(void *arg)
{
    int *got = arg;
    CHECK_OK(MPI_Recv(got, 1, MPI_INT, rank_of(MPI_COMM_WORLD), 9, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    return NULL;
}

static void thread_waits_for_its_own_rank(void)
{
    init_multiple();
    int got = -1, me = rank_of(MPI_COMM_WORLD);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, receive_from_own_rank, &got) == 0);
    usleep(20000);  /* the thread is (most likely) asleep in MPI_Recv by now */
    int value = me + 100;
    CHECK_OK(MPI_Send(&value, 1, MPI_INT, me, 9, MPI_COMM_WORLD));
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(got == me + 100);
}

/* ---- detached threads, and threads that exit with pthread_exit ---------------- */

static atomic_int exited;

static void *send_then_exit(void *arg)
{
    int value = (int)(intptr_t)arg;
    CHECK_OK(MPI_Send(&value, 1, MPI_INT, rank_of(MPI_COMM_WORLD), 3, MPI_COMM_WORLD));
    atomic_fetch_add(&exited, 1);
    pthread_exit(NULL);
}

static void detached_and_exiting_threads(void)
{
    init_multiple();
    pthread_attr_t attr;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0);
    pthread_t t[3];
    CHECK(pthread_create(&t[0], &attr, send_then_exit, (void *)1) == 0);
    CHECK(pthread_create(&t[1], NULL, send_then_exit, (void *)2) == 0);
    CHECK(pthread_create(&t[2], NULL, send_then_exit, (void *)4) == 0);
    CHECK(pthread_detach(t[2]) == 0);
    int sum = 0;
    for (int i = 0; i < 3; i++) {
        int v = 0;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        sum += v;
    }
    CHECK(sum == 7);
    CHECK(pthread_join(t[1], NULL) == 0);
    CHECK(pthread_attr_destroy(&attr) == 0);
    while (atomic_load(&exited) < 3)
        usleep(1000);
}

static const test_case cases[] = {
    {"threads_exchange_on_rings", threads_exchange_on_rings},
    {"threads_run_collectives", threads_run_collectives},
    {"join_lets_other_ranks_run", join_lets_other_ranks_run},
    {"thread_waits_for_its_own_rank", thread_waits_for_its_own_rank},
    {"detached_and_exiting_threads", detached_and_exiting_threads},
};

int main(int argc, char **argv)
{
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
