/*
 * team.c — parallel regions, their barriers, and each OpenMP thread's state.
 *
 * A ULT's OpenMP state is found through one ULT key. A rank (or any ULT)
 * that never entered a region gets an "initial thread" state on first use,
 * with ICVs from the environment; a region's threads get theirs from the
 * team. A region's team, its slots and its threads' states are one
 * allocation, freed by thread 0 once every other thread has ended
 * (team->live) and every explicit task of the team has finished.
 *
 * A rank keeps the ULTs of its outermost regions for the next one (a
 * pool, parked on their `go` word between regions), so a region costs a
 * wake-up, not a spawn; they end when the rank ends (the key's destructor).
 * Nested regions, and ULTs that are no rank, spawn threads each time.
 *
 * Default team size (nthreads-var): the workers divided by the ranks of
 * this OS process, at least 1, so that ranks × threads never exceeds the
 * cores Myriad runs on; OMP_NUM_THREADS overrides it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "omp/omp_impl.h"

static myr_key_t thr_key;

/* A pooled thread: `go` is 0 idle, 1 with a thread state to run, 2 to end;
 * only its owner (the rank's initial thread) sets it to 1 or 2, and only
 * when the pooled thread is idle (it sets go back to 0 before it counts
 * itself out of the region). */
typedef struct omp_pooled {
    _Atomic uint32_t go;
    omp_thr *thr;
} __attribute__((aligned(64))) omp_pooled;

typedef struct omp_pool {
    unsigned n, cap;
    omp_pooled **threads;
} omp_pool;

static void pool_end(omp_pool *pool)
{
    for (unsigned i = 0; i < pool->n; i++) {
        atomic_store_explicit(&pool->threads[i]->go, 2, memory_order_release);
        myr_omp_unpark(&pool->threads[i]->go, false);
    }
    free(pool->threads);
    free(pool);
}

/* Runs when a ULT ends holding a state: only initial states are its own. */
static void free_initial(void *p)
{
    omp_thr *t = p;
    if (t->initial) {
        if (t->pool)
            pool_end(t->pool);
        free(t->spare_team);
        free(t->team);
    }
}
static omp_icv env_icv;            /* from OMP_* (read once) */
static int env_nthreads_list[8];   /* OMP_NUM_THREADS=a,b,...: per level */
static int env_nthreads_count;
static _Atomic int env_state;      /* 0 not read, 1 reading, 2 ready */

_Noreturn void myr_omp_unsupported(const char *what)
{
    fprintf(stderr, "Myriad's OpenMP runtime does not implement %s yet\n", what);
    fflush(stderr);
    abort();
}

int myr_omp_default_threads(void)
{
    int workers = myr_worker_count();
    int ranks = myr_the_job.local > 0 ? myr_the_job.local : 1;
    int n = workers / ranks;
    return n < 1 ? 1 : n;
}

static bool env_bool(const char *name, bool dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    while (*v == ' ')
        v++;
    if (!strncasecmp(v, "true", 4) || !strcmp(v, "1"))
        return true;
    if (!strncasecmp(v, "false", 5) || !strcmp(v, "0"))
        return false;
    fprintf(stderr, "Myriad OpenMP: %s=%s is neither true nor false; ignored\n",
            name, v);
    return dflt;
}

static long env_long(const char *name, long dflt, long min)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    while (*end == ' ')
        end++;
    if (end == v || *end || x < min) {
        fprintf(stderr, "Myriad OpenMP: %s=%s is not an integer >= %ld; "
                "ignored\n", name, v, min);
        return dflt;
    }
    return x;
}

/* OMP_SCHEDULE=[monotonic:|nonmonotonic:]kind[,chunk] */
static void env_schedule(omp_icv *icv)
{
    const char *v = getenv("OMP_SCHEDULE");
    if (!v || !*v)
        return;
    const char *colon = strchr(v, ':');
    const char *k = colon ? colon + 1 : v;
    while (*k == ' ')
        k++;
    static const struct { const char *name; int kind; } kinds[] = {
        { "static", OMP_SCHED_STATIC }, { "dynamic", OMP_SCHED_DYNAMIC },
        { "guided", OMP_SCHED_GUIDED }, { "auto", OMP_SCHED_AUTO } };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if (strncasecmp(k, kinds[i].name, len))
            continue;
        const char *rest = k + len;
        while (*rest == ' ')
            rest++;
        int chunk = 0;
        if (*rest == ',') {
            char *end;
            long c = strtol(rest + 1, &end, 10);
            if (end == rest + 1 || c < 1)
                break;
            chunk = (int)c;
        } else if (*rest) {
            break;
        }
        icv->sched = kinds[i].kind;
        icv->chunk = chunk;
        return;
    }
    fprintf(stderr, "Myriad OpenMP: OMP_SCHEDULE=%s is not "
            "static|dynamic|guided|auto[,chunk]; ignored\n", v);
}

static void env_num_threads(void)
{
    const char *v = getenv("OMP_NUM_THREADS");
    if (!v || !*v)
        return;
    const char *p = v;
    while (env_nthreads_count < 8) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 1 << 20) {
            fprintf(stderr, "Myriad OpenMP: OMP_NUM_THREADS=%s is not a list "
                    "of positive integers; ignored\n", v);
            env_nthreads_count = 0;
            return;
        }
        env_nthreads_list[env_nthreads_count++] = (int)x;
        while (*end == ' ')
            end++;
        if (*end != ',')
            break;
        p = end + 1;
    }
}

static void read_env(void)
{
    int s = 0;
    if (atomic_load(&env_state) == 2)
        return;
    if (!atomic_compare_exchange_strong(&env_state, &s, 1)) {
        while (atomic_load(&env_state) != 2)
            myr_ult_yield();
        return;
    }
    if (myr_key_create(&thr_key, free_initial) != MYR_OK)
        myr_omp_unsupported("OpenMP outside Myriad's ULT runtime (no ULT key)");
    env_num_threads();
    omp_icv *icv = &env_icv;
    /* 0: the default team size, computed when used */
    icv->nthreads = env_nthreads_count ? env_nthreads_list[0] : 0;
    icv->nest_pos = 0;
    icv->dynamic = env_bool("OMP_DYNAMIC", false);
    bool nested = env_bool("OMP_NESTED", env_nthreads_count > 1);
    icv->max_active_levels = (int)env_long("OMP_MAX_ACTIVE_LEVELS",
                                           nested ? 255 : 1, 0);
    icv->sched = OMP_SCHED_DYNAMIC;  /* as libgomp: dynamic,1 */
    icv->chunk = 1;
    env_schedule(icv);
    icv->thread_limit = (int)env_long("OMP_THREAD_LIMIT", 1 << 20, 1);
    myr_omp_cancellation = env_bool("OMP_CANCELLATION", false);
    icv->def_allocator = 1;  /* omp_default_mem_alloc */
    icv->nteams = (int)env_long("OMP_NUM_TEAMS", 0, 1);
    icv->teams_thread_limit = (int)env_long("OMP_TEAMS_THREAD_LIMIT", 0, 1);
    /* OMP_PROC_BIND, OMP_PLACES: accepted and ignored (ULTs move). */
    atomic_store(&env_state, 2);
}

void myr_omp_icv_defaults(omp_icv *icv)
{
    read_env();
    *icv = env_icv;
}


omp_thr *myr_omp_thr(void)
{
    read_env();
    void *v = NULL;
    if (myr_key_get(thr_key, &v) != MYR_OK)
        myr_omp_unsupported("OpenMP outside a ULT of Myriad (call it from a "
                            "rank, its OpenMP threads or its tasks)");
    if (v)
        return v;
    /* An initial thread: a team of one of its own. */
    size_t size = sizeof(omp_team) + sizeof(omp_thr_slot);
    omp_team *team = aligned_alloc(64, size);
    if (!team)
        abort();
    memset(team, 0, size);
    team->thr = (omp_thr_slot *)(team + 1);
    omp_thr *t = &team->thr[0].thr;
    team->nthreads = 1;
    for (unsigned i = 0; i < OMP_WS_SLOTS; i++)
        atomic_init(&team->ws[i].seq, i);
    t->team = team;
    t->icv = env_icv;
    t->num_teams = 1;
    t->initial = true;
    t->rank = myr_omp_rank_of(myr_ult_inherited());
    myr_key_set(thr_key, t);
    return t;
}

void myr_omp_set_thr(omp_thr *t)
{
    myr_key_set(thr_key, t);
}

void myr_omp_wait_zero(_Atomic uint32_t *c)
{
    for (;;) {
        uint32_t v = atomic_load_explicit(c, memory_order_acquire);
        if (v == 0)
            return;
        myr_omp_wait_change(c, v);
    }
}

void myr_omp_count_done(_Atomic uint32_t *c)
{
    if (atomic_fetch_sub_explicit(c, 1, memory_order_acq_rel) == 1)
        myr_omp_unpark(c, true);
}

/* ---- barrier --------------------------------------------------------- */

/* Dissemination: in round k, thread i signals that it has passed its
 * rounds before k (its flag k := its barrier count) and waits for thread
 * i - 2^k to signal the same; after ceil(log2 n) rounds every thread has
 * heard, through a chain of release stores and acquire loads, from every
 * other one. A centralized counter put two cache-line transfers after the
 * last arrival on every waiter's path (the counter to the last thread,
 * the release back) and n of them in series before it; a round here costs
 * one, and the two threads of a pair each wait for the other's at the
 * same time. Flags only grow (a thread a barrier ahead satisfies a late
 * reader too) and the team is zeroed with its region, so counts agree.
 * A barrier completes the team's explicit tasks: once every thread has
 * arrived, no task of the team is created but by a task, which counts
 * its children before it finishes, so a thread that finds the count 0
 * leaves, and one that does not waits for it to drop to 0. */
static bool flag_reached(_Atomic uint32_t *flag, uint32_t epoch, uint32_t *seen)
{
    *seen = atomic_load_explicit(flag, memory_order_acquire);
    return (int32_t)(*seen - epoch) >= 0;
}

static bool cancelled(const omp_team *team)
{
    return myr_omp_cancellation && atomic_load(&team->cancelled);
}

void myr_omp_barrier(omp_thr *t)
{
    omp_team *team = t->team;
    unsigned n = team->nthreads;
    if (n > 1 && !cancelled(team)) {
        uint32_t epoch = ++t->bar_epoch, seen;
        for (unsigned k = 0, d = 1; d < n; k++, d <<= 1) {
            _Atomic uint32_t *mine = &team->bar[t->num].flag[k];
            atomic_store_explicit(mine, epoch, memory_order_release);
            _Atomic uint32_t *from = &team->bar[(t->num + n - d) % n].flag[k];
            for (int i = 0; !flag_reached(from, epoch, &seen); i++) {
                if (cancelled(team))
                    return;
                if (i < OMP_SPIN)
                    myr_cpu_relax();
                else
                    myr_omp_park(from, seen);
            }
            /* After the wait, not before it: unpark's fence would hold
             * this thread until its store is seen, the transfer that the
             * wait overlaps with it. Its reader cannot be held for good
             * meanwhile: a thread parks only when its writer has not
             * stored yet, and in any cycle of waits the first to store
             * finds its writer's flag set. */
            myr_omp_unpark(mine, true);
        }
    }
    if (atomic_load_explicit(&team->tasks, memory_order_acquire) != 0)
        myr_omp_tasks_wait_team(team);
}

/* Cancel parallel: every flag of every round jumps ahead of any count a
 * waiter expects (and its waiters wake), and the waiting loops look at
 * `cancelled`, so the team's threads leave the barrier they are in. */
static void barrier_cancel_all(omp_team *team)
{
    unsigned n = team->nthreads;
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0, d = 1; d < n; k++, d <<= 1) {
            atomic_fetch_add(&team->bar[i].flag[k], 1u << 30);
            myr_omp_unpark(&team->bar[i].flag[k], true);
        }
}

/* ---- parallel -------------------------------------------------------- */

static void run_thread(omp_thr *t)
{
    omp_team *team = t->team;
    myr_key_set(thr_key, t);
    team->fn(team->data);
    /* Its explicit tasks may still run; they hold no pointer to t. */
    myr_key_set(thr_key, NULL);
    myr_omp_deps_clear(t);
    myr_omp_count_done(&team->live);  /* the team may be freed from here */
}

static void *thread_main(void *arg)
{
    run_thread(arg);
    return NULL;
}

static void *pooled_main(void *arg)
{
    omp_pooled *p = arg;
    for (;;) {
        myr_omp_wait_change(&p->go, 0);
        if (atomic_load_explicit(&p->go, memory_order_acquire) == 2)
            break;
        omp_thr *t = p->thr;
        atomic_store_explicit(&p->go, 0, memory_order_relaxed);
        run_thread(t);
    }
    free(p);
    return NULL;
}

/* Start threads 1..n-1 of `team`: from the pool of a rank's initial
 * thread, else as new ULTs. Round-robin on the workers after the
 * caller's, not all queued behind thread 0 waiting to be stolen. */
static void start_threads(omp_thr *up, omp_team *team, unsigned n)
{
    int workers = myr_worker_count(), self = myr_worker_self();
    if (self < 0)
        self = 0;
    omp_pool *pool = NULL;
    if (up->initial && myr_ult_inherited()) {
        if (!up->pool)
            up->pool = calloc(1, sizeof *up->pool);
        pool = up->pool;
    }
    if (pool && pool->cap < n - 1) {
        omp_pooled **t = realloc(pool->threads, (n - 1) * sizeof *t);
        if (t) {
            pool->threads = t;
            pool->cap = n - 1;
        }
    }
    for (unsigned i = 1; i < n; i++) {
        int worker = (self + (int)i) % workers;
        if (!pool || i - 1 >= pool->cap) {
            if (myr_ult_spawn_on(worker, NULL, thread_main, &team->thr[i].thr) != MYR_OK)
                myr_omp_unsupported("a parallel region whose threads cannot "
                                    "be spawned (out of memory or stacks)");
            continue;
        }
        if (i - 1 == pool->n) {
            omp_pooled *p = aligned_alloc(64, sizeof *p);
            if (!p)
                myr_omp_unsupported("a parallel region without memory");
            atomic_init(&p->go, 0);
            if (myr_ult_spawn_on(worker, NULL, pooled_main, p) != MYR_OK)
                myr_omp_unsupported("a parallel region whose threads cannot "
                                    "be spawned (out of memory or stacks)");
            pool->threads[pool->n++] = p;
        }
        omp_pooled *p = pool->threads[i - 1];
        p->thr = &team->thr[i].thr;
        atomic_store_explicit(&p->go, 1, memory_order_release);
        myr_omp_unpark(&p->go, false);
    }
}

static unsigned team_size(omp_thr *t, unsigned asked)
{
    long n = asked;
    if (n == 0) {
        n = t->icv.nthreads;
        if (n == 0)
            n = myr_omp_default_threads();
    }
    if (t->active_level >= t->icv.max_active_levels)
        return 1;
    if (t->icv.dynamic) {
        long d = myr_omp_default_threads();
        if (n > d)
            n = d;
    }
    if (n > t->icv.thread_limit)
        n = t->icv.thread_limit;
    return n < 1 ? 1 : (unsigned)n;
}

void myr_omp_parallel(void (*fn)(void *), void *data, unsigned asked,
                      bool (*prep)(omp_team *, void *), void *prep_arg)
{
    omp_thr *up = myr_omp_thr();
    unsigned n = team_size(up, asked);
    /* The team, its threads' states, their barrier flags. */
    size_t bar_at = sizeof(omp_team) + n * sizeof(omp_thr_slot);
    size_t size = bar_at + n * sizeof(omp_bar_flags);
    omp_team *team = up->spare_team;
    if (team && up->spare_size == size) {
        up->spare_team = NULL;
    } else {
        team = aligned_alloc(64, size);
        if (!team)
            myr_omp_unsupported("a parallel region without memory for its team");
    }
    memset(team, 0, size);
    team->nthreads = n;
    team->fn = fn;
    team->data = data;
    team->thr = (omp_thr_slot *)(team + 1);
    team->bar = (omp_bar_flags *)((char *)team + bar_at);
    for (unsigned i = 0; i < OMP_WS_SLOTS; i++)
        atomic_init(&team->ws[i].seq, i);
    bool slot0 = prep && prep(team, prep_arg);
    /* The child ICVs: nthreads-var moves along OMP_NUM_THREADS's list. */
    omp_icv icv = up->icv;
    if (icv.nest_pos + 1 < env_nthreads_count) {
        icv.nest_pos++;
        icv.nthreads = env_nthreads_list[icv.nest_pos];
    }
    for (unsigned i = 0; i < n; i++) {
        omp_thr *t = &team->thr[i].thr;
        t->team = team;
        t->num = i;
        t->level = up->level + 1;
        t->active_level = up->active_level + (n > 1);
        t->up = up;
        t->rank = up->rank;
        t->team_num = up->team_num;
        t->num_teams = up->num_teams;
        t->icv = icv;
        t->final = false;
        t->taskgroup = team->taskgroup;
        if (slot0) {  /* slot 0 is taken by the combined construct */
            t->ws = &team->ws[0];
            t->ws_seq = 1;
        }
    }
    atomic_store_explicit(&team->live, n - 1, memory_order_relaxed);
    start_threads(up, team, n);
    myr_key_set(thr_key, &team->thr[0].thr);
    fn(data);
    /* The region's end is a barrier: its threads, then its tasks. */
    myr_omp_deps_clear(&team->thr[0].thr);
    myr_omp_wait_zero(&team->live);
    myr_omp_tasks_wait_team(team);
    myr_key_set(thr_key, up);
    /* Tested first: a region usually leaves them NULL, and a call of free
     * each was about 5 % of an empty region's instructions. */
    for (unsigned i = 0; i < OMP_WS_SLOTS; i++) {
        if (team->ws[i].mem)
            free(team->ws[i].mem);
        if (team->ws[i].doacross)
            free(team->ws[i].doacross);
    }
    for (unsigned i = 0; i < n; i++)
        if (team->thr[i].thr.spare_team)
            free(team->thr[i].thr.spare_team);   /* its threads' nested regions' */
    /* Kept for the encountering thread's next region (the same size in
     * the usual loop of regions); a team of another size replaces it. */
    if (up->spare_team)
        free(up->spare_team);
    up->spare_team = team;
    up->spare_size = size;
}

/* ---- GOMP entry points ---------------------------------------------- */

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   unsigned flags)
{
    (void)flags;  /* proc_bind: ULTs are not bound to cores */
    myr_omp_parallel(fn, data, num_threads, NULL, NULL);
}

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    (void)fn; (void)data; (void)num_threads;
    myr_omp_unsupported("GOMP_parallel_start (the ABI of gcc before 4.9)");
}

void GOMP_parallel_end(void)
{
    myr_omp_unsupported("GOMP_parallel_end (the ABI of gcc before 4.9)");
}

void GOMP_barrier(void)
{
    myr_omp_barrier(myr_omp_thr());
}

/* ---- cancellation (OMP_CANCELLATION=true) -----------------------------
 * cancel parallel sets team->cancelled and wakes the team's barrier: its
 * threads leave at their next cancellation point or barrier; cancel
 * for/sections marks the construct (no more chunks); cancel taskgroup
 * marks the group: its tasks not started yet are dropped. */

bool myr_omp_cancellation;

enum { CANCEL_PARALLEL = 1, CANCEL_LOOP = 2, CANCEL_SECTIONS = 4,
       CANCEL_TASKGROUP = 8 };

bool myr_omp_task_cancelled(const omp_thr *t)
{
    if (!myr_omp_cancellation)
        return false;
    if (atomic_load(&t->team->cancelled))
        return true;
    for (omp_taskgroup *g = t->taskgroup; g; g = g->prev)
        if (atomic_load(&g->cancelled))
            return true;
    for (omp_taskgroup *g = t->outer_group; g; g = g->prev)
        if (atomic_load(&g->cancelled))
            return true;
    return false;
}

bool GOMP_barrier_cancel(void)
{
    omp_thr *t = myr_omp_thr();
    if (myr_omp_cancellation && atomic_load(&t->team->cancelled))
        return true;
    myr_omp_barrier(t);
    return myr_omp_cancellation && atomic_load(&t->team->cancelled);
}

bool GOMP_cancellation_point(int which)
{
    if (!myr_omp_cancellation)
        return false;
    omp_thr *t = myr_omp_thr();
    if (atomic_load(&t->team->cancelled))
        return true;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS))
        return t->ws && atomic_load(&t->ws->cancelled);
    if (which & CANCEL_TASKGROUP) {
        omp_taskgroup *g = t->taskgroup ? t->taskgroup : t->outer_group;
        return g && atomic_load(&g->cancelled);
    }
    return false;
}

/* With cancellation off (OMP_CANCELLATION, the default) OpenMP ignores
 * cancel directives. */
bool GOMP_cancel(int which, bool do_cancel)
{
    if (!myr_omp_cancellation)
        return false;
    if (!do_cancel)
        return GOMP_cancellation_point(which);
    omp_thr *t = myr_omp_thr();
    if (which & CANCEL_PARALLEL) {
        omp_team *team = t->team;
        atomic_store(&team->cancelled, 1);
        barrier_cancel_all(team);  /* out of the barrier */
    } else if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        if (t->ws)
            atomic_store(&t->ws->cancelled, 1);
    } else if (which & CANCEL_TASKGROUP) {
        omp_taskgroup *g = t->taskgroup ? t->taskgroup : t->outer_group;
        if (g)
            atomic_store(&g->cancelled, 1);
    }
    return true;
}

/* parallel reduction(task, ...): one copy per thread of the team, one
 * taskgroup the team's threads share (its tasks run undeferred, task.c);
 * gcc combines the copies after the region. */
typedef struct prep_reductions {
    uintptr_t *data;
    omp_taskgroup *group;
    unsigned nthreads;
} prep_reductions;

static bool prep_reductions_fn(omp_team *team, void *arg)
{
    prep_reductions *p = arg;
    p->nthreads = team->nthreads;
    p->group = calloc(1, sizeof *p->group);
    if (!p->group)
        myr_omp_unsupported("task reductions beyond the memory available");
    myr_omp_reductions_alloc(p->data, team->nthreads, NULL);
    p->group->reductions = p->data;
    team->taskgroup = p->group;
    return false;
}

unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
                                  unsigned num_threads, unsigned flags)
{
    (void)flags;
    prep_reductions p = { *(uintptr_t **)data, NULL, 0 };
    myr_omp_parallel(fn, data, num_threads, prep_reductions_fn, &p);
    free(p.group);
    return p.nthreads;
}

void GOMP_teams(void)
{
    myr_omp_unsupported("GOMP_teams (the teams construct)");
}

/* A teams construct on the host (OpenMP 5): the league's initial threads
 * run one after the other on the encountering ULT, each with its team
 * number; teams never synchronize with each other, so this order is one
 * OpenMP allows. thread_limit bounds each team's parallel regions. */
void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                    unsigned thread_limit, unsigned flags)
{
    (void)flags;
    omp_thr *t = myr_omp_thr();
    omp_thr saved = *t;
    if (num_teams == 0)
        num_teams = saved.icv.nteams > 0 ? (unsigned)saved.icv.nteams
                                         : (unsigned)myr_omp_default_threads();
    if (thread_limit == 0 && saved.icv.teams_thread_limit > 0)
        thread_limit = (unsigned)saved.icv.teams_thread_limit;
    for (unsigned i = 0; i < num_teams; i++) {
        t->team_num = i;
        t->num_teams = num_teams;
        t->icv = saved.icv;
        if (thread_limit && (int)thread_limit < t->icv.thread_limit)
            t->icv.thread_limit = (int)thread_limit;
        fn(data);
    }
    t->team_num = saved.team_num;
    t->num_teams = saved.num_teams;
    t->icv = saved.icv;
}
