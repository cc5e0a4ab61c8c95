/* env_calls.c — MPI's environment: init and finalize, thread levels,
 * abort, versions, clocks, communicator rank and size, memory, and the
 * collocation extensions. Every case runs in every rank of the job (the
 * ranks share this program's globals). Usage: env_calls CASE. */
#include <mpi.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)

static int world_rank(void)
{
    int rank;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    return rank;
}

static int world_size(void)
{
    int size;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    return size;
}

/* The job size mpiexec asked for (what the test was started with). */
static int expected_job_size(void)
{
    const char *v = getenv("MYR_NRANKS");
    return v ? atoi(v) : 1;
}

/* ---- init and finalize ---------------------------------------------- */

/* Initialized is true from MPI_Init on, Finalized from MPI_Finalize on;
 * both answer before MPI_Init and after MPI_Finalize. */
static void init_and_finalize_set_the_flags(void)
{
    int flag = -1;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Finalize());
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 1);
}

static void init_gives_thread_single(void)
{
    int argc = 1;
    char *args[] = {"prog", NULL};
    char **argv = args;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK(argc == 1 && argv == args);  /* left as they were */
    int provided = -1;
    CHECK_MPI(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_SINGLE);
    CHECK_MPI(MPI_Finalize());
}

/* Each rank asks for another level; each gets the level it asked for. */
static void init_thread_provides_the_level_required(void)
{
    static _Atomic int ticket;
    int required = atomic_fetch_add(&ticket, 1) % 4;
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, required, &provided));
    CHECK(provided == required);
    int queried = -1;
    CHECK_MPI(MPI_Query_thread(&queried));
    CHECK(queried == required);
    CHECK_MPI(MPI_Finalize());
}

static void init_thread_above_multiple_gives_multiple(void)
{
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE + 5, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_MPI(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_MPI(MPI_Finalize());
}

/* ---- threads -------------------------------------------------------- */

static void *is_thread_main_in_task(void *arg)
{
    (void)arg;
    int flag = -1;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    return (void *)(intptr_t)flag;
}

static void *spawn_grandchild(void *arg)
{
    (void)arg;
    myr_ult_t *h;
    void *result;
    CHECK(myr_ult_spawn(&h, is_thread_main_in_task, NULL) == MYR_OK);
    CHECK(myr_ult_join(h, &result) == MYR_OK);
    return result;
}

/* The rank's own ULT is its main thread; the ULTs it spawns (and theirs)
 * are not. */
static void thread_main_is_the_rank_ult(void)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    int flag = -1;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK(flag == 1);
    myr_ult_t *child, *parent;
    void *r1, *r2;
    CHECK(myr_ult_spawn(&child, is_thread_main_in_task, NULL) == MYR_OK);
    CHECK(myr_ult_spawn(&parent, spawn_grandchild, NULL) == MYR_OK);
    CHECK(myr_ult_join(child, &r1) == MYR_OK);
    CHECK(myr_ult_join(parent, &r2) == MYR_OK);
    CHECK((intptr_t)r1 == 0 && (intptr_t)r2 == 0);
    CHECK_MPI(MPI_Finalize());
}

enum { TASKS_PER_RANK = 8 };

/* What a task sees, encoded: its rank, its thread level, main or not. */
static void *task_identity(void *arg)
{
    int expected_rank = (int)(intptr_t)arg;
    for (int i = 0; i < 20; i++) {
        int rank = -1, size = -1, level = -1, main_flag = -1;
        CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
        CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
        CHECK_MPI(MPI_Query_thread(&level));
        CHECK_MPI(MPI_Is_thread_main(&main_flag));
        CHECK(rank == expected_rank && size == expected_job_size());
        CHECK(level == MPI_THREAD_MULTIPLE && main_flag == 0);
        CHECK_MPI(MPIX_Yield());
    }
    return NULL;
}

/* Under MPI_THREAD_MULTIPLE, ULTs spawned by a rank call MPI for it,
 * concurrently with the rank and with each other. */
static void tasks_act_for_their_rank(void)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    int rank = world_rank();
    myr_ult_t *tasks[TASKS_PER_RANK];
    for (int i = 0; i < TASKS_PER_RANK; i++)
        CHECK(myr_ult_spawn(&tasks[i], task_identity, (void *)(intptr_t)rank) == MYR_OK);
    for (int i = 0; i < 20; i++) {
        CHECK(world_rank() == rank);
        CHECK_MPI(MPIX_Yield());
    }
    for (int i = 0; i < TASKS_PER_RANK; i++)
        CHECK(myr_ult_join(tasks[i], NULL) == MYR_OK);
    CHECK_MPI(MPI_Finalize());
}

/* With one worker, two ranks can only take turns if MPIX_Yield lets the
 * other one run. */
static void yield_lets_other_ranks_run(void)
{
    static _Atomic int turn;
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank = world_rank();
    CHECK(world_size() == 2);
    for (int round = 0; round < 200; round++) {
        while (atomic_load(&turn) % 2 != rank)
            CHECK_MPI(MPIX_Yield());
        atomic_fetch_add(&turn, 1);
    }
    CHECK_MPI(MPI_Finalize());
    CHECK(atomic_load(&turn) == 400);
}

/* ---- finalize is collective ------------------------------------------ */

static _Atomic int entered_finalize, left_finalize;

/* No rank returns from MPI_Finalize before every rank has called it, even
 * when one rank is late; the job then ends. */
static void finalize_waits_for_every_rank(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank = world_rank(), size = world_size();
    if (rank == size / 2) {  /* the late one: let every other rank block */
        for (int i = 0; i < 2000; i++)
            CHECK_MPI(MPIX_Yield());
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        CHECK(atomic_load(&left_finalize) == 0);
    }
    atomic_fetch_add(&entered_finalize, 1);
    CHECK_MPI(MPI_Finalize());
    CHECK(atomic_load(&entered_finalize) == size);
    atomic_fetch_add(&left_finalize, 1);
    int flag;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 1);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Ranks waiting in MPI_Finalize for a late rank are suspended, not
 * polling: the process uses (almost) no CPU time meanwhile. */
static void finalize_waiting_ranks_use_no_cpu(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank = world_rank(), size = world_size();
    if (rank == 0) {
        while (atomic_load(&entered_finalize) < size - 1)
            CHECK_MPI(MPIX_Yield());
        struct timespec settle = {0, 50 * 1000 * 1000}, half = {0, 500 * 1000 * 1000};
        nanosleep(&settle, NULL);  /* the others suspend, workers go idle */
        double before = cpu_seconds();
        nanosleep(&half, NULL);
        double used = cpu_seconds() - before;
        printf("CPU time over 0.5 s in MPI_Finalize: %.4f s\n", used);
        CHECK(used < 0.05);
    }
    atomic_fetch_add(&entered_finalize, 1);
    CHECK_MPI(MPI_Finalize());
}

/* ---- versions, names, clocks ---------------------------------------- */

static void check_versions(void)
{
    int version = 0, subversion = -1;
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION);
    CHECK(version == 3 && subversion == 1);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(strncmp(lib, "Myriad " MYRIAD_VERSION " ", strlen("Myriad " MYRIAD_VERSION " ")) == 0);
    CHECK(len == (int)strlen(lib) && len < MPI_MAX_LIBRARY_VERSION_STRING);
}

static void versions_are_known_before_init(void)
{
    check_versions();
    CHECK_MPI(MPI_Init(NULL, NULL));
    check_versions();
    CHECK_MPI(MPI_Finalize());
    check_versions();
}

static void processor_name_is_the_host_name(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    char name[MPI_MAX_PROCESSOR_NAME], host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = -1;
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    CHECK(gethostname(host, sizeof host) == 0);
    CHECK(strcmp(name, host) == 0);
    CHECK(len == (int)strlen(name) && len > 0);
    CHECK_MPI(MPI_Finalize());
}

static void wtime_counts_seconds_since_job_start(void)
{
    double t0 = MPI_Wtime();  /* also before MPI_Init */
    CHECK(t0 >= 0 && t0 < 600);
    CHECK_MPI(MPI_Init(NULL, NULL));
    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick <= 1e-3);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    double t1 = MPI_Wtime();
    CHECK(t1 - t0 >= 0.019 && t1 - t0 < 600);
    double last = t1;
    for (int i = 0; i < 10000; i++) {
        double t = MPI_Wtime();
        CHECK(t >= last);
        last = t;
    }
    CHECK(PMPI_Wtime() >= last);
    CHECK_MPI(MPI_Finalize());
}

/* ---- communicators ----------------------------------------------------- */

static void comm_rank_and_size_of_world_and_self(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank = -1, size = -1;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &size));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK(size == 1 && rank == 0);
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(size == expected_job_size() && rank >= 0 && rank < size);
    CHECK_MPI(PMPI_Comm_rank(MPI_COMM_WORLD, &rank));  /* the PMPI names too */
    CHECK(rank >= 0 && rank < size);
    CHECK_MPI(MPI_Finalize());
}

enum { MAX_RANKS = 4096 };
static _Atomic int seen[MAX_RANKS];

/* The world ranks are 0..size-1, each held by exactly one rank. Checked
 * after MPI_Finalize, when every rank has marked its own. */
static void every_rank_sees_the_same_job(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int size = world_size(), rank = world_rank();
    CHECK(size == expected_job_size() && size <= MAX_RANKS);
    CHECK(atomic_fetch_add(&seen[rank], 1) == 0);
    CHECK_MPI(MPI_Finalize());
    for (int i = 0; i < size; i++)
        CHECK(atomic_load(&seen[i]) == 1);
}

static void collocated_ranks_are_the_whole_job(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int size = -1, start = -1;
    CHECK_MPI(MPIX_Get_collocated_size(&size));
    CHECK_MPI(MPIX_Get_collocated_startrank(&start));
    CHECK(size == world_size() && start == 0);
    CHECK_MPI(PMPIX_Get_collocated_size(&size));
    CHECK_MPI(PMPIX_Get_collocated_startrank(&start));
    CHECK(size == world_size() && start == 0);
    CHECK_MPI(PMPIX_Yield());
    CHECK_MPI(MPI_Finalize());
}

/* ---- memory ------------------------------------------------------------ */

static void alloc_mem_gives_aligned_usable_memory(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    char *p = NULL;
    CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p));
    CHECK(p != NULL && (uintptr_t)p % 64 == 0);
    memset(p, world_rank() & 0xff, 1 << 20);
    CHECK(p[(1 << 20) - 1] == (char)(world_rank() & 0xff));
    CHECK_MPI(MPI_Free_mem(p));
    void *q = NULL;
    CHECK_MPI(MPI_Alloc_mem(0, MPI_INFO_NULL, &q));
    CHECK(q != NULL);
    CHECK_MPI(MPI_Free_mem(q));
    CHECK_MPI(MPI_Free_mem(NULL));
    CHECK_MPI(MPI_Finalize());
}

/* ---- wrong states -------------------------------------------------------- */

static void calls_after_finalize_return_an_error(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Finalize());
    int rank, flag;
    void *p;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_ERR_OTHER);
    CHECK(MPI_Query_thread(&flag) == MPI_ERR_OTHER);
    CHECK(MPI_Alloc_mem(8, MPI_INFO_NULL, &p) == MPI_ERR_OTHER);
    CHECK(MPI_Finalize() == MPI_ERR_OTHER);
    CHECK(MPI_Init(NULL, NULL) == MPI_ERR_OTHER);
    CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &flag) == MPI_ERR_OTHER);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 1);
}

static void init_twice_returns_an_error(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int provided = -1;
    CHECK(MPI_Init(NULL, NULL) == MPI_ERR_OTHER);
    CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) == MPI_ERR_OTHER);
    CHECK(provided == -1);
    CHECK_MPI(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_SINGLE);  /* unchanged */
    CHECK_MPI(MPI_Finalize());
}

/* Every bad argument gets its error class under MPI_ERRORS_RETURN, and the
 * rank keeps working afterwards. */
static void bad_arguments_return_error_classes(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int garbage[8] = {0};
    MPI_Comm bad_comm = (MPI_Comm)(void *)garbage;
    int i, j;
    char s[MPI_MAX_PROCESSOR_NAME];
    void *p;

    CHECK(MPI_Comm_rank(MPI_COMM_NULL, &i) == MPI_ERR_COMM);
    CHECK(MPI_Comm_rank(bad_comm, &i) == MPI_ERR_COMM);
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_size(MPI_COMM_NULL, &i) == MPI_ERR_COMM);
    CHECK(MPI_Comm_size(bad_comm, &i) == MPI_ERR_COMM);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);

    CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Init_thread(NULL, NULL, -1, &i) == MPI_ERR_ARG);
    CHECK(MPI_Initialized(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Finalized(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Query_thread(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Is_thread_main(NULL) == MPI_ERR_ARG);

    CHECK(MPI_Get_version(NULL, &j) == MPI_ERR_ARG);
    CHECK(MPI_Get_version(&i, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Get_library_version(NULL, &i) == MPI_ERR_ARG);
    CHECK(MPI_Get_library_version(s, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Get_processor_name(NULL, &i) == MPI_ERR_ARG);
    CHECK(MPI_Get_processor_name(s, NULL) == MPI_ERR_ARG);

    CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p) == MPI_ERR_ARG);
    CHECK(MPI_Alloc_mem(16, (MPI_Info)(void *)garbage, &p) == MPI_ERR_INFO);
    CHECK(MPI_Alloc_mem(16, MPI_INFO_NULL, NULL) == MPI_ERR_ARG);
#ifndef MYR_SANITIZE  /* ASan's allocator aborts instead of failing */
    CHECK(MPI_Alloc_mem(PTRDIFF_MAX, MPI_INFO_NULL, &p) == MPI_ERR_NO_MEM);
#endif

    CHECK(MPIX_Get_collocated_size(NULL) == MPI_ERR_ARG);
    CHECK(MPIX_Get_collocated_startrank(NULL) == MPI_ERR_ARG);

    /* Nothing was left half done. */
    CHECK(world_size() == expected_job_size());
    CHECK_MPI(MPI_Alloc_mem(16, MPI_INFO_NULL, &p));
    CHECK_MPI(MPI_Free_mem(p));
    CHECK_MPI(MPI_Finalize());
}

/* ---- cases that end the job (run through expect_crash.sh) -------------- */

static void abort_ends_the_job_with_its_code(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    if (world_rank() == 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Finalize();  /* the others wait here for rank 1, which never comes */
    CHECK(!"MPI_Finalize returned although rank 1 aborted");
}

static void abort_with_code_zero_still_fails(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Abort(MPI_COMM_WORLD, 0);
}

static void abort_status_is_the_code_modulo_256(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Abort(MPI_COMM_SELF, 256 + 3);
}

static void abort_prints_one_line_when_all_ranks_abort(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Abort(MPI_COMM_WORLD, 9);
}

static void abort_flushes_stdout(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    printf("printed before MPI_Abort\n");  /* stdout is a pipe: buffered */
    MPI_Abort(MPI_COMM_WORLD, 4);
}

static void call_before_init_is_fatal(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

/* A kernel thread that no rank created (threads a rank creates act for it):
 * started by a constructor, before the runtime, and let go once MPI is up. */
static pthread_mutex_t outsider_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t outsider_go = PTHREAD_COND_INITIALIZER;
static bool outsider_may_call;
static pthread_t outsider;

static void *size_from_kernel_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&outsider_lock);
    while (!outsider_may_call)
        pthread_cond_wait(&outsider_go, &outsider_lock);
    pthread_mutex_unlock(&outsider_lock);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return NULL;
}

/* glibc passes the command line to constructors. */
__attribute__((constructor)) static void start_outsider(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "call_outside_a_rank_is_fatal") == 0)
        CHECK(pthread_create(&outsider, NULL, size_from_kernel_thread, NULL) == 0);
}

static void call_outside_a_rank_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    pthread_mutex_lock(&outsider_lock);
    outsider_may_call = true;
    pthread_cond_signal(&outsider_go);
    pthread_mutex_unlock(&outsider_lock);
    pthread_join(outsider, NULL);
}

static void bad_comm_is_fatal_by_default(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int rank;
    MPI_Comm_rank(MPI_COMM_NULL, &rank);
}

static void bad_thread_level_is_fatal(void)
{
    int provided;
    MPI_Init_thread(NULL, NULL, -1, &provided);
}

static void negative_alloc_size_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    void *p;
    MPI_Alloc_mem(-5, MPI_INFO_NULL, &p);
}

static const test_case cases[] = {
    {"init_and_finalize_set_the_flags", init_and_finalize_set_the_flags},
    {"init_gives_thread_single", init_gives_thread_single},
    {"init_thread_provides_the_level_required", init_thread_provides_the_level_required},
    {"init_thread_above_multiple_gives_multiple", init_thread_above_multiple_gives_multiple},
    {"thread_main_is_the_rank_ult", thread_main_is_the_rank_ult},
    {"tasks_act_for_their_rank", tasks_act_for_their_rank},
    {"yield_lets_other_ranks_run", yield_lets_other_ranks_run},
    {"finalize_waits_for_every_rank", finalize_waits_for_every_rank},
    {"finalize_waiting_ranks_use_no_cpu", finalize_waiting_ranks_use_no_cpu},
    {"versions_are_known_before_init", versions_are_known_before_init},
    {"processor_name_is_the_host_name", processor_name_is_the_host_name},
    {"wtime_counts_seconds_since_job_start", wtime_counts_seconds_since_job_start},
    {"comm_rank_and_size_of_world_and_self", comm_rank_and_size_of_world_and_self},
    {"every_rank_sees_the_same_job", every_rank_sees_the_same_job},
    {"collocated_ranks_are_the_whole_job", collocated_ranks_are_the_whole_job},
    {"alloc_mem_gives_aligned_usable_memory", alloc_mem_gives_aligned_usable_memory},
    {"calls_after_finalize_return_an_error", calls_after_finalize_return_an_error},
    {"init_twice_returns_an_error", init_twice_returns_an_error},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"abort_ends_the_job_with_its_code", abort_ends_the_job_with_its_code},
    {"abort_with_code_zero_still_fails", abort_with_code_zero_still_fails},
    {"abort_status_is_the_code_modulo_256", abort_status_is_the_code_modulo_256},
    {"abort_prints_one_line_when_all_ranks_abort", abort_prints_one_line_when_all_ranks_abort},
    {"abort_flushes_stdout", abort_flushes_stdout},
    {"call_before_init_is_fatal", call_before_init_is_fatal},
    {"call_outside_a_rank_is_fatal", call_outside_a_rank_is_fatal},
    {"bad_comm_is_fatal_by_default", bad_comm_is_fatal_by_default},
    {"bad_thread_level_is_fatal", bad_thread_level_is_fatal},
    {"negative_alloc_size_is_fatal", negative_alloc_size_is_fatal},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
