/*
 * omp_calls.c — OpenMP constructs compiled by gcc -fopenmp and run on
 * Myriad's runtime (src/omp), inside every rank of an MPI job. Each case
 * checks results that depend on the construct's semantics, whatever the
 * team size the rank gets.
 */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static int rank, nranks;

static void init(int level)
{
    int provided;
    CHECK_OK(MPI_Init_thread(NULL, NULL, level, &provided));
    CHECK(provided >= level);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
}

static void finish(void)
{
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Finalize());
}

/* ---- parallel -------------------------------------------------------- */

static void parallel_runs_every_thread_once(void)
{
    init(MPI_THREAD_FUNNELED);
    CHECK(!omp_in_parallel() && omp_get_level() == 0);
    CHECK(omp_get_num_threads() == 1 && omp_get_thread_num() == 0);
    for (int asked = 1; asked <= 6; asked++) {
        int seen[6] = {0}, team = -1;
        #pragma omp parallel num_threads(asked)
        {
            #pragma omp atomic
            seen[omp_get_thread_num()]++;
            #pragma omp single
            team = omp_get_num_threads();
            CHECK(omp_get_level() == 1);
            CHECK(omp_in_parallel() == (omp_get_num_threads() > 1));
        }
        CHECK(team == asked);
        for (int i = 0; i < 6; i++)
            CHECK(seen[i] == (i < asked));
    }
    int n = 0;
    int cond = 0;
    #pragma omp parallel num_threads(4) if (cond)
    {
        #pragma omp atomic
        n++;
    }
    CHECK(n == 1);
    finish();
}

/* The default team: workers / ranks of the process, at least 1. */
static void default_team_never_oversubscribes(void)
{
    init(MPI_THREAD_FUNNELED);
    const char *w = getenv("MYR_WORKERS");
    int workers = w ? atoi(w) : omp_get_num_procs();
    int expect = workers / nranks > 0 ? workers / nranks : 1;
    if (getenv("OMP_NUM_THREADS"))
        expect = atoi(getenv("OMP_NUM_THREADS"));
    CHECK(omp_get_max_threads() == expect);
    int team = 0;
    #pragma omp parallel
    {
        #pragma omp master
        team = omp_get_num_threads();
    }
    CHECK(team == expect);
    finish();
}

static void nested_parallel_levels(void)
{
    init(MPI_THREAD_FUNNELED);
    omp_set_max_active_levels(2);
    CHECK(omp_get_max_active_levels() == 2);
    int count = 0;
    #pragma omp parallel num_threads(3)
    {
        int outer = omp_get_thread_num();
        #pragma omp parallel num_threads(2)
        {
            CHECK(omp_get_level() == 2 && omp_get_active_level() == 2);
            CHECK(omp_get_ancestor_thread_num(1) == outer);
            CHECK(omp_get_team_size(1) == 3 && omp_get_team_size(2) == 2);
            CHECK(omp_get_ancestor_thread_num(2) == omp_get_thread_num());
            CHECK(omp_get_ancestor_thread_num(3) == -1);
            /* Past max-active-levels: a team of one. */
            #pragma omp parallel num_threads(4)
            {
                CHECK(omp_get_num_threads() == 1 && omp_get_level() == 3);
                CHECK(omp_get_active_level() == 2);
                #pragma omp atomic
                count++;
            }
        }
    }
    CHECK(count == 6);
    finish();
}

/* ---- loops ----------------------------------------------------------- */

enum { N = 1000 };

static void check_once(const int *hits, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(hits[i] == 1);
}

static void every_schedule_covers_each_iteration_once(void)
{
    init(MPI_THREAD_FUNNELED);
    static int hits[N];
    #pragma omp parallel num_threads(3)
    {
        #pragma omp single
        memset(hits, 0, sizeof hits);
        #pragma omp for schedule(static)
        for (int i = 0; i < N; i++) { 
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for schedule(static, 7)
        for (int i = 0; i < N; i++) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for schedule(dynamic, 5)
        for (int i = N - 1; i >= 0; i--) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for schedule(guided, 3)
        for (int i = 3; i < N; i += 2) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        {
            for (int i = 0; i < N; i++)
                CHECK(hits[i] == (i >= 3 && i % 2 == 1));
            memset(hits, 0, sizeof hits);
        }
        #pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for schedule(auto)
        for (int i = 0; i < N; i++) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for schedule(monotonic: dynamic, 4) nowait
        for (unsigned long long i = 0; i < N; i++) {
            #pragma omp atomic
            hits[i]++;
        }
        #pragma omp barrier
        #pragma omp single
        { check_once(hits, N); memset(hits, 0, sizeof hits); }
        #pragma omp for collapse(2) schedule(dynamic, 3)
        for (int i = 0; i < 20; i++)
            for (int j = 0; j < N / 20; j++) {
                #pragma omp atomic
                hits[i * (N / 20) + j]++;
            }
        #pragma omp single
        check_once(hits, N);
    }
    /* The combined forms and an empty loop. */
    memset(hits, 0, sizeof hits);
    #pragma omp parallel for schedule(dynamic) num_threads(4)
    for (int i = 0; i < N; i++) {
        #pragma omp atomic
        hits[i]++;
    }
    check_once(hits, N);
    memset(hits, 0, sizeof hits);
    #pragma omp parallel for schedule(guided) num_threads(2)
    for (int i = 0; i < N; i++) {
        #pragma omp atomic
        hits[i]++;
    }
    check_once(hits, N);
    int empty = 0;
    #pragma omp parallel for schedule(dynamic)
    for (int i = 5; i < 5 + empty; i++)
        CHECK(0);
    /* Unsigned long long bounds beyond long. */
    unsigned long long big = 0x8000000000000000ull, sum = 0;
    #pragma omp parallel for schedule(dynamic, 2) reduction(+:sum) num_threads(3)
    for (unsigned long long i = big; i < big + 100; i++)
        sum += i - big;
    CHECK(sum == 4950);
    finish();
}

static void ordered_regions_run_in_iteration_order(void)
{
    init(MPI_THREAD_FUNNELED);
    static int order[N];
    int next = 0;
    #pragma omp parallel for ordered schedule(dynamic, 3) num_threads(4)
    for (int i = 0; i < N; i++) {
        #pragma omp ordered
        order[next++] = i;
    }
    for (int i = 0; i < N; i++)
        CHECK(order[i] == i);
    next = 0;
    #pragma omp parallel num_threads(3)
    {
        #pragma omp for ordered schedule(static)
        for (int i = 0; i < N; i++) {
            if (i % 3 == 0)  /* iterations without an ordered region */
                continue;
            #pragma omp ordered
            order[next++] = i;
        }
    }
    CHECK(next == N - (N + 2) / 3);
    for (int i = 1; i < next; i++)
        CHECK(order[i] > order[i - 1]);
    finish();
}

/* ---- sections, single, critical, atomic, reductions ------------------ */

static void sections_run_each_once(void)
{
    init(MPI_THREAD_FUNNELED);
    int a = 0, b = 0, c = 0;
    #pragma omp parallel num_threads(2)
    {
        #pragma omp sections
        {
            #pragma omp section
            a++;
            #pragma omp section
            b++;
            #pragma omp section
            c++;
        }
    }
    CHECK(a == 1 && b == 1 && c == 1);
    #pragma omp parallel sections num_threads(4)
    {
        #pragma omp section
        a++;
        #pragma omp section
        b++;
    }
    CHECK(a == 2 && b == 2);
    finish();
}

static void single_and_copyprivate(void)
{
    init(MPI_THREAD_FUNNELED);
    int singles = 0;
    #pragma omp parallel num_threads(4)
    {
        for (int k = 0; k < 50; k++) {
            #pragma omp single nowait
            {
                #pragma omp atomic
                singles++;
            }
        }
        int mine;
        #pragma omp single copyprivate(mine)
        mine = 1000 + omp_get_thread_num();
        CHECK(mine >= 1000 && mine < 1004);
        int all_same = mine;
        #pragma omp barrier
        #pragma omp single copyprivate(mine)
        mine = -7;
        CHECK(mine == -7 && all_same >= 1000);
    }
    CHECK(singles == 50);
    finish();
}

static void critical_and_atomic_exclude(void)
{
    init(MPI_THREAD_FUNNELED);
    long plain = 0, named = 0;
    double d = 0;
    __int128 wide = 0;  /* gcc's atomic fallback: GOMP_atomic_start/end */
    #pragma omp parallel num_threads(4)
    {
        for (int i = 0; i < 2000; i++) {
            #pragma omp critical
            plain++;
            #pragma omp critical(other)
            {
                long v = named;
                if (i % 100 == 0)
                    MPIX_Yield();  /* another thread may run here */
                named = v + 1;
            }
            #pragma omp atomic
            d += 0.5;
            #pragma omp atomic
            wide += 1;
        }
    }
    int t = 0;
    #pragma omp parallel num_threads(4)
    {
        #pragma omp master
        t = omp_get_num_threads();
    }
    CHECK(plain == 2000L * t && named == 2000L * t);
    CHECK(d == 1000.0 * t && wide == 2000 * t);
    finish();
}

static void reductions_of_every_operator(void)
{
    init(MPI_THREAD_FUNNELED);
    long sum = 0, prod = 1;
    int mx = -1, mn = 1 << 30, land = 1, lor = 0, band = ~0, bor = 0;
    double arr[4] = {0};
    #pragma omp parallel for num_threads(4) reduction(+:sum) reduction(*:prod) \
        reduction(max:mx) reduction(min:mn) reduction(&&:land) reduction(||:lor) \
        reduction(&:band) reduction(|:bor) reduction(+:arr[:4])
    for (int i = 1; i <= 20; i++) {
        sum += i;
        prod *= (i % 5 == 0) ? 2 : 1;
        mx = i > mx ? i : mx;
        mn = i < mn ? i : mn;
        land = land && i > 0;
        lor = lor || i == 17;
        band &= ~(1 << (i % 8)) | 1;
        bor |= 1 << (i % 8);
        for (int k = 0; k < 4; k++)
            arr[k] += k;
    }
    CHECK(sum == 210 && prod == 16 && mx == 20 && mn == 1 && land && lor);
    CHECK(band == (~0xfe) && bor == 0xff);
    for (int k = 0; k < 4; k++)
        CHECK(arr[k] == 20.0 * k);
    finish();
}

/* ---- barrier, threadprivate, locks ----------------------------------- */

static void barrier_separates_phases(void)
{
    init(MPI_THREAD_FUNNELED);
    int counts[8] = {0};
    #pragma omp parallel num_threads(4)
    {
        int n = omp_get_num_threads();
        for (int phase = 0; phase < 8; phase++) {
            #pragma omp atomic
            counts[phase]++;
            #pragma omp barrier
            int c;
            #pragma omp atomic read
            c = counts[phase];
            CHECK(c == n);
            #pragma omp barrier
        }
    }
    finish();
}

/* The barrier's rounds (a dissemination: ceil(log2 n) of them) at team
 * sizes that are and are not powers of two, more threads than workers:
 * after each barrier every thread sees every other's write of the phase,
 * and the tasks created before it have all run. */
static void barriers_of_every_team_size(void)
{
    init(MPI_THREAD_FUNNELED);
    static const int sizes[] = {2, 3, 5, 7, 8, 13, 33};
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int phases = 1200 / sizes[s];
        int slot[33 * 16];
        memset(slot, 0, sizeof slot);
        long tasks_run = 0, bad = 0;
        #pragma omp parallel num_threads(sizes[s]) reduction(+:bad)
        {
            int me = omp_get_thread_num(), n = omp_get_num_threads();
            for (int phase = 1; phase <= phases; phase++) {
                __atomic_store_n(&slot[me * 16], phase, __ATOMIC_RELAXED);
                if (phase % 50 == me) {
                    #pragma omp task shared(tasks_run)
                    {
                        #pragma omp atomic
                        tasks_run++;
                    }
                }
                #pragma omp barrier
                for (int j = 0; j < n; j++)
                    if (__atomic_load_n(&slot[j * 16], __ATOMIC_RELAXED) != phase)
                        bad++;
                long done;
                #pragma omp atomic read
                done = tasks_run;
                long due = 0;
                for (int p = 1; p <= phase; p++)
                    due += p % 50 < n;
                if (done != due)
                    bad++;
                #pragma omp barrier
            }
        }
        CHECK(bad == 0);
    }
    finish();
}

static void locks_exclude_and_nest(void)
{
    init(MPI_THREAD_FUNNELED);
    omp_lock_t l;
    omp_nest_lock_t nl;
    omp_init_lock(&l);
    omp_init_nest_lock(&nl);
    long in = 0, total = 0;
    #pragma omp parallel num_threads(4)
    {
        for (int i = 0; i < 500; i++) {
            omp_set_lock(&l);
            CHECK(++in == 1);
            if (i % 50 == 0)
                MPIX_Yield();
            in--;
            omp_unset_lock(&l);
            omp_set_nest_lock(&nl);
            CHECK(omp_test_nest_lock(&nl) == 2);
            total++;
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
        }
    }
    CHECK(omp_test_lock(&l) == 1);
    CHECK(omp_test_lock(&l) == 0);
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
    omp_destroy_nest_lock(&nl);
    int t = 0;
    #pragma omp parallel num_threads(4)
    {
        #pragma omp master
        t = omp_get_num_threads();
    }
    CHECK(total == 500L * t);
    finish();
}

/* ---- ICVs and bad arguments ------------------------------------------ */

static void icvs_follow_the_environment(void)
{
    init(MPI_THREAD_FUNNELED);
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    const char *s = getenv("OMP_SCHEDULE");
    if (s && !strcmp(s, "guided,7"))
        CHECK(kind == omp_sched_guided && chunk == 7);
    s = getenv("OMP_NUM_THREADS");
    if (s)
        CHECK(omp_get_max_threads() == atoi(s));
    s = getenv("OMP_MAX_ACTIVE_LEVELS");
    if (s)
        CHECK(omp_get_max_active_levels() == atoi(s));
    s = getenv("OMP_DYNAMIC");
    if (s && !strcmp(s, "true"))
        CHECK(omp_get_dynamic());
    s = getenv("OMP_THREAD_LIMIT");
    if (s)
        CHECK(omp_get_thread_limit() == atoi(s));
    omp_set_schedule(omp_sched_dynamic, 4);
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_dynamic && chunk == 4);
    omp_set_schedule(omp_sched_static, 0);  /* chunk < 1: the default */
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_static);
    omp_set_dynamic(1);
    CHECK(omp_get_dynamic());
    omp_set_dynamic(0);
    omp_set_nested(1);
    CHECK(omp_get_nested());
    CHECK(omp_get_wtick() > 0 && omp_get_wtime() > 0);
    CHECK(omp_get_num_procs() >= 1);
    CHECK(!omp_in_final());
    finish();
}

static void bad_arguments_are_tolerated(void)
{
    init(MPI_THREAD_FUNNELED);
    omp_set_num_threads(0);  /* undefined by OpenMP: taken as 1 */
    CHECK(omp_get_max_threads() == 1);
    omp_set_num_threads(-5);
    CHECK(omp_get_max_threads() == 1);
    int level = omp_get_max_active_levels();
    omp_set_max_active_levels(-1);  /* ignored */
    CHECK(omp_get_max_active_levels() == level);
    CHECK(omp_get_ancestor_thread_num(-1) == -1);
    CHECK(omp_get_team_size(5) == -1);
    omp_set_num_threads(3);
    int t = 0;
    #pragma omp parallel
    t = omp_get_num_threads();
    CHECK(t == 3);
    finish();
}

/* ---- tasks ----------------------------------------------------------- */

static void task_dependences_order_a_chain(void)
{
    init(MPI_THREAD_FUNNELED);
    enum { LEN = 200 };
    static int log_[LEN * 2];
    int n = 0, x = 0, y = 0;
    #pragma omp parallel num_threads(4)
    #pragma omp single
    {
        for (int i = 0; i < LEN; i++) {
            #pragma omp task depend(inout: x) shared(n, x)
            {
                int k;
                #pragma omp atomic capture
                k = n++;
                log_[k] = i;
                x++;
            }
        }
        /* Readers of x run after the writers before them. */
        int seen[4] = {0};
        for (int r = 0; r < 4; r++) {
            #pragma omp task depend(in: x) shared(x, seen)
            seen[r] = x;
        }
        #pragma omp task depend(out: y) depend(in: x) shared(x, y)
        y = x * 2;
        #pragma omp taskwait
        for (int i = 0; i < LEN; i++)
            CHECK(log_[i] == i);
        for (int r = 0; r < 4; r++)
            CHECK(seen[r] == LEN);
        CHECK(y == 2 * LEN);
    }
    finish();
}

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
    #pragma omp task shared(a) final(n < 10)
    a = fib(n - 1);
    #pragma omp task shared(b) final(n < 10)
    b = fib(n - 2);
    #pragma omp taskwait
    return a + b;
}

static void taskwait_and_taskgroup_wait(void)
{
    init(MPI_THREAD_FUNNELED);
    long f = 0;
    /* Smaller with many ranks: every suspended parent keeps its stack. */
    int depth = nranks > 4 ? 15 : 20;
    #pragma omp parallel num_threads(3)
    #pragma omp single
    f = fib(depth);
    CHECK(f == (depth == 20 ? 6765 : 610));
    int done = 0;
    #pragma omp parallel num_threads(2)
    {
        #pragma omp master
        {
            #pragma omp taskgroup
            {
                for (int i = 0; i < 20; i++) {
                    #pragma omp task shared(done)
                    {
                        #pragma omp task shared(done)  /* a grandchild */
                        {
                            #pragma omp atomic
                            done++;
                        }
                        #pragma omp atomic
                        done++;
                    }
                }
            }
            int d;
            #pragma omp atomic read
            d = done;
            CHECK(d == 40);
        }
        #pragma omp barrier
        /* Tasks end by the barrier at the region's end. */
        #pragma omp single nowait
        for (int i = 0; i < 10; i++) {
            #pragma omp task shared(done)
            {
                #pragma omp atomic
                done++;
            }
        }
    }
    CHECK(done == 50);
    int undeferred = 0;
    #pragma omp parallel num_threads(2)
    #pragma omp single
    {
        int v = 0;
        #pragma omp task if (0) shared(v)
        v = 1;
        CHECK(v == 1);
        #pragma omp task if (0) depend(out: v) shared(v, undeferred)
        undeferred = v + 1;
        CHECK(undeferred == 2);
        #pragma omp taskyield
    }
    finish();
}

static void taskloop_covers_each_iteration_once(void)
{
    init(MPI_THREAD_FUNNELED);
    static int hits[N];
    #pragma omp parallel num_threads(4)
    #pragma omp single
    {
        #pragma omp taskloop grainsize(7)
        for (int i = 0; i < N; i++) {
            #pragma omp atomic
            hits[i]++;
        }
        check_once(hits, N);
        memset(hits, 0, sizeof hits);
        #pragma omp taskloop num_tasks(13)
        for (long i = N - 1; i >= 0; i -= 1) {
            #pragma omp atomic
            hits[i]++;
        }
        check_once(hits, N);
        memset(hits, 0, sizeof hits);
        #pragma omp taskloop
        for (unsigned long long i = 0; i < N; i += 3) {
            #pragma omp atomic
            hits[i]++;
        }
        for (int i = 0; i < N; i++)
            CHECK(hits[i] == (i % 3 == 0));
    }
    finish();
}

/* ---- MPI inside OpenMP ----------------------------------------------- */

/* The crash of issue 21: FUNNELED, an MPI call in master. */
static void funneled_mpi_in_master(void)
{
    init(MPI_THREAD_FUNNELED);
    long total = 0;
    #pragma omp parallel num_threads(2)
    {
        #pragma omp master
        {
            long mine = rank + 1, sum = 0;
            CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM,
                                   MPI_COMM_WORLD));
            total = sum;
            CHECK(omp_get_num_procs() >= 1);
        }
        #pragma omp barrier
        CHECK(total == (long)nranks * (nranks + 1) / 2);
    }
    finish();
}

/* Ranks are separate programs: one rank inside a critical section (named
 * or not) never keeps another rank out of its own, even while it waits in
 * MPI for that rank. */
static void critical_sections_are_per_rank(void)
{
    init(MPI_THREAD_SERIALIZED);
    int peer = rank ^ 1, got = -1;
    if (peer < nranks) {
        #pragma omp parallel num_threads(2)
        {
            #pragma omp master
            {
                #pragma omp critical
                {
                    if (rank % 2 == 0)
                        CHECK_OK(MPI_Ssend(&rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
                    else
                        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
                                          MPI_STATUS_IGNORE));
                }
                #pragma omp critical(named_one)
                {
                    if (rank % 2 == 1)
                        CHECK_OK(MPI_Ssend(&rank, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
                    else
                        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, peer, 8, MPI_COMM_WORLD,
                                          MPI_STATUS_IGNORE));
                }
            }
        }
        CHECK(got == peer);
    }
    finish();
}

/* Each OpenMP thread of a rank exchanges with the same thread of the
 * paired rank; a blocked thread suspends only itself. */
static void multiple_threads_send_and_receive(void)
{
    init(MPI_THREAD_MULTIPLE);
    int peer = rank ^ 1;
    if (peer >= nranks)
        peer = MPI_PROC_NULL;
    int errors = 0;
    #pragma omp parallel num_threads(4) reduction(+:errors)
    {
        int me = omp_get_thread_num();
        for (int round = 0; round < 20; round++) {
            int out[64], in[64];
            for (int k = 0; k < 64; k++)
                out[k] = rank * 100000 + me * 1000 + round * 64 + k;
            if (rank % 2 == 0) {
                CHECK_OK(MPI_Send(out, 64, MPI_INT, peer, me, MPI_COMM_WORLD));
                CHECK_OK(MPI_Recv(in, 64, MPI_INT, peer, me, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
            } else {
                CHECK_OK(MPI_Recv(in, 64, MPI_INT, peer, me, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
                CHECK_OK(MPI_Send(out, 64, MPI_INT, peer, me, MPI_COMM_WORLD));
            }
            if (peer != MPI_PROC_NULL)
                for (int k = 0; k < 64; k++)
                    errors += in[k] != peer * 100000 + me * 1000 + round * 64 + k;
        }
        /* A task blocking in MPI suspends only itself too. */
        #pragma omp single
        {
            int a = -1, b = rank;
            #pragma omp task shared(a) depend(out: a)
            CHECK_OK(MPI_Sendrecv(&b, 1, MPI_INT, peer, 99, &a, 1, MPI_INT,
                                  peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            #pragma omp taskwait
            if (peer != MPI_PROC_NULL)
                errors += a != peer;
        }
    }
    CHECK(errors == 0);
    finish();
}

/* ---- OpenMP 5 extras gcc 12 lowers to calls ------------------------- */

static void allocators_scope_and_error_directive(void)
{
    init(MPI_THREAD_FUNNELED);
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
    int *a = omp_alloc(100 * sizeof(int), omp_default_mem_alloc);
    CHECK(a != NULL);
    for (int i = 0; i < 100; i++)
        a[i] = i;
    a = omp_realloc(a, 1000 * sizeof(int), omp_default_mem_alloc,
                    omp_default_mem_alloc);
    CHECK(a != NULL && a[99] == 99);
    omp_free(a, omp_default_mem_alloc);
    double *d = omp_aligned_alloc(256, 10 * sizeof(double), omp_large_cap_mem_alloc);
    CHECK(d != NULL && (uintptr_t)d % 256 == 0);
    omp_free(d, omp_null_allocator);
    long *z = omp_calloc(64, sizeof(long), omp_default_mem_alloc);
    CHECK(z != NULL);
    for (int i = 0; i < 64; i++)
        CHECK(z[i] == 0);
    omp_free(z, omp_default_mem_alloc);
    CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL);
    int last = -1, s = 0, v[N];
    for (int i = 0; i < N; i++)
        v[i] = (i % 7 == 3);
    #pragma omp parallel num_threads(3)
    {
        #pragma omp for schedule(dynamic, 5) lastprivate(conditional: last)
        for (int i = 0; i < N; i++)
            if (v[i])
                last = i;
        #pragma omp scope reduction(+:s)
        s += 1;
        int x = 5;
        #pragma omp parallel num_threads(1) firstprivate(x) allocate(omp_default_mem_alloc: x)
        CHECK(x == 5);
        #pragma omp error at(execution) severity(warning) message("a warning, as the test expects")
        /* Cancellation is off (OMP_CANCELLATION): OpenMP ignores it. */
        #pragma omp cancel parallel if (s < 0)
    }
    CHECK(last == 997);
    CHECK(s == 3);
    CHECK(omp_pause_resource_all(omp_pause_soft) == 0);
    finish();
}

enum { R = 40, C = 30 };

/* a[i][j] of the wavefront: 0 outside the grid. */
static __attribute__((noinline)) long cell(long (*m)[C], int i, int j)
{
    return i < 0 || j < 0 ? 0 : m[i][j];
}

/* ordered(n) loops: each iteration after the ones it names in depend(sink). */
static void doacross_loops_follow_their_sinks(void)
{
    init(MPI_THREAD_FUNNELED);
    static long a[R][C], ref[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            ref[i][j] = (cell(ref, i - 1, j) + cell(ref, i, j - 1) + 1) % 1000003;
        }
    #pragma omp parallel num_threads(4)
    {
        #pragma omp for ordered(2) schedule(static)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                #pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
                a[i][j] = (cell(a, i - 1, j) + cell(a, i, j - 1) + 1) % 1000003;
                #pragma omp ordered depend(source)
            }
        #pragma omp single
        {
            for (int i = 0; i < R; i++)
                for (int j = 0; j < C; j++)
                    CHECK(a[i][j] == ref[i][j]);
            memset(a, 0, sizeof a);
        }
        #pragma omp for ordered(2) schedule(dynamic, 3)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                #pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
                a[i][j] = (cell(a, i - 1, j) + cell(a, i, j - 1) + 1) % 1000003;
                #pragma omp ordered depend(source)
            }
        #pragma omp single
        {
            for (int i = 0; i < R; i++)
                for (int j = 0; j < C; j++)
                    CHECK(a[i][j] == ref[i][j]);
        }
        static long v[N];
        #pragma omp for ordered(1) schedule(guided)
        for (int i = 0; i < N; i++) {
            #pragma omp ordered depend(sink: i - 1)
            v[i] = i ? v[i - 1] + i : 0;
            #pragma omp ordered depend(source)
        }
        #pragma omp single
        CHECK(v[N - 1] == (long)N * (N - 1) / 2);
    }
    finish();
}

/* task_reduction / in_reduction and taskloop reduction. */
static void task_reductions_combine_every_task(void)
{
    init(MPI_THREAD_FUNNELED);
    long sum = 0, prod = 1;
    int zero = 0, r = 0;
    #pragma omp parallel num_threads(3)
    #pragma omp single
    {
        #pragma omp taskgroup task_reduction(+: sum) task_reduction(*: prod)
        {
            for (int i = 1; i <= 100; i++) {
                #pragma omp task in_reduction(+: sum)
                sum += i;
                if (i % 10 == 0) {
                    #pragma omp task in_reduction(*: prod)
                    prod *= 2;
                }
            }
        }
        CHECK(sum == 5050 && prod == 1024);
        long tl = 0;
        #pragma omp taskloop reduction(+: tl) grainsize(7)
        for (int i = 0; i < 1000; i++)
            tl += i;
        CHECK(tl == 499500);
        #pragma omp taskloop reduction(+: r)
        for (int i = 0; i < zero; i++)  /* no iteration: r stays */
            r++;
        CHECK(r == 0);
    }
    /* parallel reduction(task, ...): the threads and their tasks. */
    long all = 0;
    int team = 0;
    #pragma omp parallel num_threads(3) reduction(task, +: all)
    {
        #pragma omp master
        team = omp_get_num_threads();
        all += 1000;
        for (int i = 0; i < 10; i++) {
            #pragma omp task in_reduction(+: all)
            all += 1;
        }
    }
    CHECK(all == 1010L * team);
    finish();
}

/* reduction(task, ...) on for, sections and scope: the threads, their
 * in_reduction tasks and taskloops all contribute, and every thread sees
 * the combined value after the construct. gcc refuses `nowait` with the
 * task modifier; nowait constructs inside one (whose tasks contribute to
 * it) are covered instead. `base` differs per rank. */
static void ws_task_reductions_in_team(int nth, long base)
{
    long sum = base, prod = 1, sec = 0, sc = 0, outer = 0, inner = 0;
    long ord = 0, ull = 0, da = 0, par = 0, seq = 0;
    unsigned long mask = ~0UL;
    int team = 0;
    #pragma omp parallel num_threads(nth) reduction(task, +: par)
    {
        #pragma omp single
        team = omp_get_num_threads();
        const long t = team;
        par += 1;
        #pragma omp for schedule(dynamic, 3) reduction(task, +: sum) \
                        reduction(task, *: prod) reduction(task, &: mask)
        for (int i = 0; i < 100; i++) {
            sum += i;
            #pragma omp task in_reduction(+: sum)
            sum += 1000 * base;
            if (i % 10 == 0) {
                #pragma omp task in_reduction(*: prod) in_reduction(+: par)
                {
                    prod *= 2;
                    par += 1;
                }
            }
            if (i < 64) {
                #pragma omp task in_reduction(&: mask)
                mask &= ~(1UL << i);
            }
        }
        CHECK(sum == base + 4950 + 100 * 1000 * base);
        CHECK(prod == 1024 && mask == 0);
        #pragma omp sections reduction(task, +: sec)
        {
            #pragma omp section
            {
                sec += 1;
                #pragma omp task in_reduction(+: sec)
                sec += 10 * base;
            }
            #pragma omp section
            {
                sec += 100;
                #pragma omp taskloop in_reduction(+: sec) grainsize(2)
                for (int i = 0; i < 10; i++)
                    sec += 1000;
            }
            #pragma omp section
            sec += 100000;
        }
        CHECK(sec == 1 + 10 * base + 100 + 10000 + 100000);
        /* scope: every thread; a nowait loop inside it; scopes nested,
         * tasks naming the inner and the outer one. */
        #pragma omp scope reduction(task, +: sc)
        {
            sc += 1;
            #pragma omp task in_reduction(+: sc)
            sc += 10;
            #pragma omp for nowait schedule(guided)
            for (int i = 0; i < 50; i++) {
                #pragma omp task in_reduction(+: sc)
                sc += i * base;
            }
        }
        CHECK(sc == 11 * t + 1225 * base);
        #pragma omp scope reduction(task, +: outer)
        {
            #pragma omp scope reduction(task, +: inner)
            {
                #pragma omp for schedule(static) nowait
                for (int i = 0; i < 30; i++) {
                    #pragma omp task in_reduction(+: outer, inner)
                    {
                        outer += i;
                        inner += 2 * i;
                    }
                }
                outer += 1000;
            }
            CHECK(inner == 2 * 435);
        }
        CHECK(outer == 435 + 1000 * t);
        /* ordered, unsigned long long and doacross loops */
        #pragma omp for ordered schedule(static, 2) reduction(task, +: ord)
        for (long i = 0; i < 40; i++) {
            #pragma omp task in_reduction(+: ord)
            ord += i;
            #pragma omp ordered
            {
                CHECK(seq == i);
                seq++;
            }
        }
        CHECK(ord == 780);
        const unsigned long long hi = ~0ULL - (unsigned long long)base;
        #pragma omp for schedule(dynamic) reduction(task, +: ull)
        for (unsigned long long i = hi; i > hi - 5; i--) {
            #pragma omp task in_reduction(+: ull)
            ull += (long)(hi - i + 1);
        }
        CHECK(ull == 15);
        #pragma omp for ordered(1) reduction(task, +: da)
        for (int i = 0; i < 20; i++) {
            #pragma omp ordered depend(sink: i - 1)
            #pragma omp task in_reduction(+: da)
            da += i;
            #pragma omp ordered depend(source)
        }
        CHECK(da == 190);
    }
    CHECK(team >= 1 && team <= nth);
    CHECK(par == 10L + team);
    CHECK(sum == base + 4950 + 100 * 1000 * base && sec == 110101 + 10 * base);
}

/* Orphaned (the rank's initial thread, a team of one), on an array
 * section. */
static void orphaned_for_task_reduction(long *x, long base)
{
    #pragma omp for reduction(task, +: x[0])
    for (int i = 0; i < 10; i++) {
        #pragma omp task in_reduction(+: x[0])
        x[0] += i * base;
    }
}

static void worksharing_task_reductions_combine(void)
{
    init(MPI_THREAD_FUNNELED);
    long base = rank + 1;
    static const int sizes[] = {1, 2, 3, 5};
    for (int k = 0; k < 4; k++)
        for (int rep = 0; rep < 3; rep++)
            ws_task_reductions_in_team(sizes[k], base);
    long x = 0;
    orphaned_for_task_reduction(&x, base);
    CHECK(x == 45 * base);
    /* every rank's result, through MPI */
    long all = 0;
    CHECK_OK(MPI_Allreduce(&x, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all == 45L * nranks * (nranks + 1) / 2);
    finish();
}

static const test_case cases[] = {
    {"allocators_scope_and_error_directive", allocators_scope_and_error_directive},
    {"doacross_loops_follow_their_sinks", doacross_loops_follow_their_sinks},
    {"task_reductions_combine_every_task", task_reductions_combine_every_task},
    {"worksharing_task_reductions_combine", worksharing_task_reductions_combine},
    {"parallel_runs_every_thread_once", parallel_runs_every_thread_once},
    {"default_team_never_oversubscribes", default_team_never_oversubscribes},
    {"nested_parallel_levels", nested_parallel_levels},
    {"every_schedule_covers_each_iteration_once", every_schedule_covers_each_iteration_once},
    {"ordered_regions_run_in_iteration_order", ordered_regions_run_in_iteration_order},
    {"sections_run_each_once", sections_run_each_once},
    {"single_and_copyprivate", single_and_copyprivate},
    {"critical_and_atomic_exclude", critical_and_atomic_exclude},
    {"reductions_of_every_operator", reductions_of_every_operator},
    {"barrier_separates_phases", barrier_separates_phases},
    {"barriers_of_every_team_size", barriers_of_every_team_size},
    {"locks_exclude_and_nest", locks_exclude_and_nest},
    {"icvs_follow_the_environment", icvs_follow_the_environment},
    {"bad_arguments_are_tolerated", bad_arguments_are_tolerated},
    {"task_dependences_order_a_chain", task_dependences_order_a_chain},
    {"taskwait_and_taskgroup_wait", taskwait_and_taskgroup_wait},
    {"taskloop_covers_each_iteration_once", taskloop_covers_each_iteration_once},
    {"funneled_mpi_in_master", funneled_mpi_in_master},
    {"critical_sections_are_per_rank", critical_sections_are_per_rank},
    {"multiple_threads_send_and_receive", multiple_threads_send_and_receive},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
