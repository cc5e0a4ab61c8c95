/*
 * task.c — explicit tasks (GOMP_task, taskwait, taskgroup, taskloop) as
 * ULTs of the rank.
 *
 * A deferred task is a ULT spawned once its dependences are met; it acts
 * for its rank (spawned ULTs inherit the rank), so a task that calls
 * blocking MPI suspends only itself. Its state is its own omp_thr (team,
 * thread number and ICVs of its creator), found through the ULT key.
 *
 * Counters (each the word waited on, team.c): the creator's children
 * (taskwait), the creator's innermost taskgroup, and the team's tasks (a
 * barrier and the region's end wait for them). A task waits for its own
 * children before it counts as finished, so the counters a child
 * decrements always outlive it; it decrements the team's counter last,
 * after which it touches nothing of the team.
 *
 * Dependences (depend in/out/inout, only among siblings as OpenMP says)
 * live in the creator's table: per address the last writer and the readers
 * since. Only the creator reads or writes its table; a task's successor
 * list is shared with the task finishing, under the task's lock. The table
 * holds a reference to every task it names and is cleared when all
 * children are known finished (taskwait, end of the creator).
 *
 * Task reductions (task_reduction / in_reduction, and reduction(task,
 * ...) on parallel, for, sections and scope): each thread of the team has
 * one private copy of the reduction variables (gcc combines the team's
 * omp_get_num_threads() copies after the taskgroup or the construct), so
 * every task created where a task reduction is in effect runs undeferred,
 * on the thread that creates it (gcc does not flag the tasks, nor the
 * taskloops, that name it with in_reduction): the copy of a thread is then
 * only ever touched by that thread.
 *
 * On for, sections and scope, every thread passes gcc a descriptor array
 * of its own and reads its copy's address from it: the first thread to
 * reach the construct allocates the team's copies and leaves them in the
 * worksharing slot (an omp_wsred), the others point their descriptors at
 * the same copies. Each thread's descriptors sit in an implicit taskgroup
 * of its own, chained to the enclosing reductions; after the construct's
 * barrier thread 0 combines the copies (gcc's code), then every thread
 * calls GOMP_workshare_task_reduction_unregister: a second barrier (no
 * thread leaves before the originals hold the result), and the last one
 * out frees the copies.
 *
 * A task with detach(event) completes when it has ended *and* its event
 * is fulfilled (omp_fulfill_event): its ULT waits on the event's word.
 *
 * Priorities are accepted and not used; untied tasks are tied (a ULT may
 * move between workers anyway); mergeable tasks are not merged.
 */
#include <stdlib.h>
#include <string.h>

#include "omp/omp_impl.h"

enum {
    TASK_UNTIED = 1, TASK_FINAL = 2, TASK_MERGEABLE = 4, TASK_DEPEND = 8,
    TASK_PRIORITY = 16, TASK_UP = 256, TASK_GRAINSIZE = 512, TASK_IF = 1024,
    TASK_NOGROUP = 2048, TASK_REDUCTION = 4096, TASK_DETACH = 8192,
    TASK_STRICT = 16384,
};

typedef struct omp_task omp_task;
struct omp_task {
    omp_thr thr;                  /* the task's own state */
    void (*fn)(void *);
    void *data;
    omp_team *team;
    _Atomic uint32_t *parent;     /* creator's children counter */
    _Atomic uint32_t *group;      /* creator's taskgroup counter, or NULL */
    _Atomic int refs;             /* running + table entries + waiter */
    _Atomic int npred;            /* unfinished predecessors + 1 */
    _Atomic uint32_t done;        /* 1 once finished (undeferred waiter) */
    struct omp_event *event;      /* detach(event), or NULL */
    atomic_flag lock;             /* guards succ and finished */
    bool finished;
    omp_task **succ;
    int nsucc, succ_cap;
    void *args;
};

typedef struct dep_entry {
    void *addr;
    omp_task *writer;
    omp_task **readers;
    int nreaders, cap;
    struct dep_entry *next;
} dep_entry;

#define DEP_BUCKETS 128
typedef struct omp_deps {
    dep_entry *b[DEP_BUCKETS];
} omp_deps;

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        myr_omp_unsupported("tasks beyond the memory available");
    return p;
}

/* The innermost task reduction in effect for `t` (its descriptors chain
 * to the enclosing ones), or NULL. */
static uintptr_t *current_reductions(const omp_thr *t)
{
    for (omp_taskgroup *g = t->taskgroup; g; g = g->prev)
        if (g->reductions)
            return g->reductions;
    for (omp_taskgroup *g = t->outer_group; g; g = g->prev)
        if (g->reductions)
            return g->reductions;
    return NULL;
}

static void lock(omp_task *t)
{
    while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire))
        myr_cpu_relax();
}

static void unlock(omp_task *t)
{
    atomic_flag_clear_explicit(&t->lock, memory_order_release);
}

static void unref(omp_task *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
        free(t->succ);
        free(t);
    }
}

/* ---- dependences ----------------------------------------------------- */

/* pred must finish before succ starts. */
static void add_edge(omp_task *pred, omp_task *succ)
{
    if (!pred || pred == succ)
        return;
    lock(pred);
    if (!pred->finished) {
        if (pred->nsucc == pred->succ_cap) {
            pred->succ_cap = pred->succ_cap ? 2 * pred->succ_cap : 4;
            omp_task **s = realloc(pred->succ, pred->succ_cap * sizeof *s);
            if (!s)
                myr_omp_unsupported("tasks beyond the memory available");
            pred->succ = s;
        }
        pred->succ[pred->nsucc++] = succ;
        atomic_fetch_add_explicit(&succ->npred, 1, memory_order_relaxed);
    }
    unlock(pred);
}

static dep_entry *dep_find(omp_deps *d, void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    dep_entry **p = &d->b[((a >> 3) ^ (a >> 11)) % DEP_BUCKETS];
    for (dep_entry *e = *p; e; e = e->next)
        if (e->addr == addr)
            return e;
    dep_entry *e = xmalloc(sizeof *e);
    *e = (dep_entry){ .addr = addr, .next = *p };
    *p = e;
    return e;
}

static void dep_register(omp_thr *creator, omp_task *t, void *addr, bool out)
{
    if (!creator->deps) {
        creator->deps = calloc(1, sizeof(omp_deps));
        if (!creator->deps)
            myr_omp_unsupported("tasks beyond the memory available");
    }
    dep_entry *e = dep_find(creator->deps, addr);
    if (out) {
        if (e->nreaders) {
            for (int i = 0; i < e->nreaders; i++) {
                add_edge(e->readers[i], t);
                unref(e->readers[i]);
            }
            e->nreaders = 0;
        } else {
            add_edge(e->writer, t);
        }
        if (e->writer)
            unref(e->writer);
        e->writer = t;
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    } else {
        add_edge(e->writer, t);
        if (e->nreaders == e->cap) {
            e->cap = e->cap ? 2 * e->cap : 4;
            omp_task **r = realloc(e->readers, e->cap * sizeof *r);
            if (!r)
                myr_omp_unsupported("tasks beyond the memory available");
            e->readers = r;
        }
        e->readers[e->nreaders++] = t;
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    }
}

void myr_omp_deps_clear(omp_thr *t)
{
    omp_deps *d = t->deps;
    if (!d)
        return;
    t->deps = NULL;
    for (int i = 0; i < DEP_BUCKETS; i++)
        for (dep_entry *e = d->b[i], *next; e; e = next) {
            next = e->next;
            if (e->writer)
                unref(e->writer);
            for (int j = 0; j < e->nreaders; j++)
                unref(e->readers[j]);
            free(e->readers);
            free(e);
        }
    free(d);
}

/* depend[]: gcc's layout. Old: [n, nout, out/inout addresses..., in
 * addresses...]. New (depend[0] == 0): [0, n, nout, nmutexinoutset, nin,
 * addresses in that order..., then n - nout - nmutexinoutset - nin
 * omp_depend_t objects (depobj), each {address, kind}]. mutexinoutset
 * and inoutset are ordered as inout: stricter than OpenMP, never wrong. */
enum { DEPEND_IN = 1, DEPEND_OUT = 2, DEPEND_INOUT = 3,
       DEPEND_MUTEXINOUTSET = 4, DEPEND_INOUTSET = 5 };

static void register_depend(omp_thr *creator, omp_task *t, void **depend)
{
    if ((uintptr_t)depend[0]) {
        uintptr_t n = (uintptr_t)depend[0], nout = (uintptr_t)depend[1];
        for (uintptr_t i = 0; i < n; i++)
            dep_register(creator, t, depend[2 + i], i < nout);
        return;
    }
    /* An iterator over an empty range gives depend[0] == 0 too, with no
     * more words after depend[1] == 0. */
    uintptr_t n = (uintptr_t)depend[1];
    if (n == 0)
        return;
    uintptr_t nout = (uintptr_t)depend[2] + (uintptr_t)depend[3];
    uintptr_t normal = nout + (uintptr_t)depend[4];
    for (uintptr_t i = 0; i < normal; i++)
        dep_register(creator, t, depend[5 + i], i < nout);
    for (uintptr_t i = normal; i < n; i++) {
        void **obj = depend[5 + i];
        uintptr_t kind = (uintptr_t)obj[1];
        if (kind < DEPEND_IN || kind > DEPEND_INOUTSET)
            myr_omp_unsupported("GOMP_task with an omp_depend_t of an unknown kind");
        dep_register(creator, t, obj[0], kind != DEPEND_IN);
    }
}

/* ---- detach events ------------------------------------------------- */

typedef struct omp_event {
    _Atomic uint32_t fulfilled;
} omp_event;

static void event_wait(omp_event *e)
{
    myr_omp_wait_change(&e->fulfilled, 0);
    free(e);  /* fulfilled: nobody touches it any more (unpark only
               * compares its address) */
}

void omp_fulfill_event(uintptr_t handle)
{
    omp_event *e = (omp_event *)handle;
    if (!e)
        return;
    atomic_store_explicit(&e->fulfilled, 1, memory_order_release);
    myr_omp_unpark(&e->fulfilled, true);
}

/* ---- running and finishing ------------------------------------------- */

static void *task_main(void *arg);

static void launch(omp_task *t)
{
    if (myr_ult_spawn(NULL, task_main, t) != MYR_OK)
        myr_omp_unsupported("a task whose ULT cannot be spawned (out of "
                            "memory or stacks)");
}

static void release(omp_task *t)
{
    if (atomic_fetch_sub_explicit(&t->npred, 1, memory_order_acq_rel) == 1)
        launch(t);
}

static void finish(omp_task *t)
{
    lock(t);
    t->finished = true;
    omp_task **succ = t->succ;
    int nsucc = t->nsucc;
    t->succ = NULL;
    t->nsucc = t->succ_cap = 0;
    unlock(t);
    for (int i = 0; i < nsucc; i++)
        release(succ[i]);
    free(succ);
    omp_team *team = t->team;
    if (t->group)
        myr_omp_count_done(t->group);
    myr_omp_count_done(t->parent);
    atomic_store_explicit(&t->done, 1, memory_order_release);
    myr_omp_unpark(&t->done, true);  /* a waiter holds a reference */
    unref(t);
    myr_omp_count_done(&team->tasks);
}

static void *task_main(void *arg)
{
    omp_task *t = arg;
    myr_omp_set_thr(&t->thr);
    if (!myr_omp_task_cancelled(&t->thr))  /* else dropped, not started */
        t->fn(t->args);
    myr_omp_taskwait(&t->thr);
    free(t->thr.spare_team);   /* the team of a parallel region it ran */
    t->thr.spare_team = NULL;
    if (t->event)
        event_wait(t->event);
    myr_omp_set_thr(NULL);
    finish(t);
    return NULL;
}

/* ---- creation -------------------------------------------------------- */

typedef unsigned long long ull;

/* An included or undeferred task runs at once on the encountering ULT,
 * with a data environment of its own: its own ICVs (omp_set_num_threads
 * in it does not leak out), children and dependences. */
static void run_included(omp_thr *t, void (*fn)(void *), void *arg,
                         unsigned flags)
{
    omp_thr own = *t;
    own.initial = false;
    own.pool = NULL;
    own.final = t->final || (flags & TASK_FINAL);
    atomic_init(&own.children.count, 0);
    own.deps = NULL;  /* its taskgroup stays: its descendants belong to it */
    own.spare_team = NULL;   /* t's stays t's */
    myr_omp_set_thr(&own);
    fn(arg);
    myr_omp_taskwait(&own);  /* its children count on `own` */
    free(own.spare_team);
    myr_omp_set_thr(t);
}

static void run_undeferred(omp_thr *t, void (*fn)(void *), void *data,
                           void (*cpyfn)(void *, void *), long size, long align,
                           unsigned flags)
{
    if (cpyfn) {
        if (align < 1)
            align = 1;
        char buf[size + align];
        char *arg = (char *)(((uintptr_t)buf + align - 1) & ~(uintptr_t)(align - 1));
        cpyfn(arg, data);
        run_included(t, fn, arg, flags);
    } else {
        run_included(t, fn, data, flags);
    }
}

static omp_task *task_new(omp_thr *c, void (*fn)(void *), void *data,
                          void (*cpyfn)(void *, void *), long size, long align,
                          unsigned flags)
{
    if (align < 1)
        align = 1;
    omp_task *t = xmalloc(sizeof *t + (size_t)size + (size_t)align);
    memset(t, 0, sizeof *t);
    t->args = (char *)(((uintptr_t)(t + 1) + align - 1) & ~(uintptr_t)(align - 1));
    if (cpyfn)
        cpyfn(t->args, data);
    else if (size)
        memcpy(t->args, data, (size_t)size);
    t->fn = fn;
    t->team = c->team;
    t->thr.team = c->team;
    t->thr.num = c->num;
    t->thr.level = c->level;
    t->thr.active_level = c->active_level;
    t->thr.up = c->up;
    t->thr.rank = c->rank;
    t->thr.team_num = c->team_num;
    t->thr.num_teams = c->num_teams;
    t->thr.icv = c->icv;
    t->thr.final = c->final || (flags & TASK_FINAL);
    t->thr.outer_group = c->taskgroup ? c->taskgroup : c->outer_group;
    t->thr.ws_seq = 0;
    atomic_init(&t->refs, 1);
    atomic_init(&t->npred, 1);
    atomic_flag_clear(&t->lock);
    t->parent = &c->children.count;
    t->group = c->taskgroup ? &c->taskgroup->c.count : NULL;
    atomic_fetch_add_explicit(&c->children.count, 1, memory_order_relaxed);
    if (t->group)
        atomic_fetch_add_explicit(t->group, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->team->tasks, 1, memory_order_relaxed);
    return t;
}

/* Start a task made by task_new; with `wait`, return once it finished. */
static void task_submit(omp_thr *c, omp_task *t, void **depend, bool wait)
{
    if (depend)
        register_depend(c, t, depend);
    if (wait)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    release(t);
    if (wait) {
        while (!atomic_load_explicit(&t->done, memory_order_acquire))
            myr_omp_wait_change(&t->done, 0);
        unref(t);
    }
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
               long arg_size, long arg_align, bool if_clause, unsigned flags,
               void **depend, int priority, void *detach)
{
    (void)priority;
    omp_thr *c = myr_omp_thr();
    omp_event *event = NULL;
    if (flags & TASK_DETACH) {
        /* The handle goes to the detach variable and to the first word of
         * the task's data (gcc reads it from there), before the copy. */
        event = calloc(1, sizeof *event);
        if (!event)
            myr_omp_unsupported("GOMP_task with detach, without memory");
        if (detach)
            *(void **)detach = event;
        if (data)
            *(void **)data = event;
    }
    /* Inside a task reduction, any task may name it with in_reduction
     * (gcc does not flag those): see the top of the file. */
    if ((flags & TASK_REDUCTION) || current_reductions(c))
        if_clause = false;
    if (!(flags & TASK_DEPEND))
        depend = NULL;
    if (c->final || (!if_clause && !depend)) {
        run_undeferred(c, fn, data, cpyfn, arg_size, arg_align, flags);
        if (event)
            event_wait(event);
        return;
    }
    omp_task *t = task_new(c, fn, data, cpyfn, arg_size, arg_align, flags);
    t->event = event;
    task_submit(c, t, depend, !if_clause);
}

void myr_omp_taskwait(omp_thr *t)
{
    myr_omp_wait_zero(&t->children.count);
    myr_omp_deps_clear(t);
}

void myr_omp_tasks_wait_team(omp_team *team)
{
    myr_omp_wait_zero(&team->tasks);
}

void GOMP_taskwait(void)
{
    myr_omp_taskwait(myr_omp_thr());
}

void GOMP_taskwait_depend(void **depend)
{
    (void)depend;  /* waiting for every child covers the named ones */
    myr_omp_taskwait(myr_omp_thr());
}

void GOMP_taskyield(void)
{
    myr_ult_yield();
}

void GOMP_taskgroup_start(void)
{
    omp_thr *t = myr_omp_thr();
    omp_taskgroup *g = xmalloc(sizeof *g);
    atomic_init(&g->c.count, 0);
    g->prev = t->taskgroup;
    atomic_init(&g->cancelled, 0);
    /* in_reduction inside it may name the enclosing task reductions (in a
     * task: its creator's) */
    g->reductions = current_reductions(t);
    g->wsred = NULL;
    t->taskgroup = g;
}

void GOMP_taskgroup_end(void)
{
    omp_thr *t = myr_omp_thr();
    omp_taskgroup *g = t->taskgroup;
    if (!g)
        return;
    myr_omp_wait_zero(&g->c.count);
    t->taskgroup = g->prev;
    free(g);
}

/* A task_reduction descriptor, as gcc lays it out: d[0] variables, d[1]
 * bytes of one thread's copies, d[2] their alignment (then: the array of
 * every thread's copies), d[3] allocator, d[4] next descriptor (then: the
 * enclosing taskgroup's), d[5] ours (the last descriptor registered with
 * it), d[6] ours (the array's end); then per variable: its address, its offset in a
 * thread's copies, ours (the descriptor).
 *
 * Fill the chain `data` for nthreads copies each: new zeroed ones, or with
 * `from` (from[i] for the i-th descriptor) another thread's; then chain it
 * to `outer`. */
static void reductions_init(uintptr_t *data, unsigned nthreads,
                            uintptr_t *outer, const uintptr_t *from)
{
    uintptr_t *last = data;
    size_t i = 0;
    for (uintptr_t *d = data; d; d = (uintptr_t *)d[4], i++) {
        if (from) {
            d[2] = from[i];
        } else {
            size_t align = d[2] < sizeof(void *) ? sizeof(void *) : d[2];
            size_t size = (d[1] * nthreads + align - 1) / align * align;
            void *copies = aligned_alloc(align, size ? size : align);
            if (!copies)
                myr_omp_unsupported("task reductions beyond the memory available");
            memset(copies, 0, size);
            d[2] = (uintptr_t)copies;
        }
        d[6] = d[2] + d[1] * nthreads;
        for (uintptr_t j = 0; j < d[0]; j++)
            d[7 + 3 * j + 2] = (uintptr_t)d;
        last = d;
    }
    for (uintptr_t *d = data; d; d = (uintptr_t *)d[4])
        d[5] = (uintptr_t)last;  /* where this register's chain ends */
    last[4] = (uintptr_t)outer;  /* then the enclosing ones */
}

void myr_omp_reductions_alloc(uintptr_t *data, unsigned nthreads, uintptr_t *outer)
{
    reductions_init(data, nthreads, outer, NULL);
}

void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    omp_thr *t = myr_omp_thr();
    if (!t->taskgroup)
        GOMP_taskgroup_start();  /* an orphaned register: a group of its own */
    myr_omp_reductions_alloc(data, t->team->nthreads, t->taskgroup->reductions);
    t->taskgroup->reductions = data;
}

void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    /* Our descriptors up to the enclosing taskgroup's (d[4] chains them). */
    uintptr_t *last = (uintptr_t *)data[5];
    for (uintptr_t *d = data;; d = (uintptr_t *)d[4]) {
        free((void *)d[2]);
        if (d == last)
            break;
    }
}

/* ---- reduction(task, ...) on for, sections, scope ------------------- */

struct omp_wsred {
    _Atomic unsigned refs;          /* threads not yet unregistered */
    size_t n;                       /* descriptors in the chain */
    uintptr_t copies[];             /* per descriptor: the team's copies */
};

/* Descriptors in the chain `data` (gcc's array: d[4] is the next one). */
static size_t chain_length(const uintptr_t *data)
{
    size_t n = 0;
    for (const uintptr_t *d = data; d; d = (const uintptr_t *)d[4])
        n++;
    return n;
}

/* A thread's implicit taskgroup for the construct, holding `data`. */
static void wsred_group(omp_thr *t, uintptr_t *data, struct omp_wsred *r)
{
    GOMP_taskgroup_start();
    t->taskgroup->reductions = data;
    t->taskgroup->wsred = r;
}

struct omp_wsred *myr_omp_wsred_register(omp_thr *t, uintptr_t *data)
{
    uintptr_t *outer = current_reductions(t);
    size_t n = chain_length(data);
    struct omp_wsred *r = xmalloc(sizeof *r + n * sizeof(uintptr_t));
    atomic_init(&r->refs, t->team->nthreads);
    r->n = n;
    reductions_init(data, t->team->nthreads, outer, NULL);
    uintptr_t *d = data;
    for (size_t i = 0; i < n; i++, d = (uintptr_t *)d[4])
        r->copies[i] = d[2];
    wsred_group(t, data, r);
    return r;
}

void myr_omp_wsred_attach(omp_thr *t, uintptr_t *data, struct omp_wsred *r)
{
    if (!r || chain_length(data) != r->n)
        myr_omp_unsupported("a worksharing construct whose threads disagree "
                            "on its task reductions");
    reductions_init(data, t->team->nthreads, current_reductions(t), r->copies);
    wsred_group(t, data, r);
}

/* After the construct's barrier, and after thread 0 combined the copies
 * into the originals (gcc's code). `cancelled`: the barrier was cancelled
 * (each thread combined its own copy; no barrier here either). */
void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    omp_thr *t = myr_omp_thr();
    omp_taskgroup *g = t->taskgroup;
    struct omp_wsred *r = g ? g->wsred : NULL;
    if (!r)
        myr_omp_unsupported("GOMP_workshare_task_reduction_unregister outside "
                            "a worksharing construct with task reductions");
    GOMP_taskgroup_end();
    if (!cancelled)
        myr_omp_barrier(t);  /* nobody leaves before thread 0 combined */
    if (atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1) {
        for (size_t i = 0; i < r->n; i++)
            free((void *)r->copies[i]);
        free(r);
    }
}

/* ptrs[i]: the address of an original variable, or of a copy of it;
 * becomes the calling thread's copy. For i < cntorig, ptrs[cnt + i] gets
 * the original's address. */
void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    omp_thr *t = myr_omp_thr();
    uintptr_t *first = current_reductions(t);
    if (!first)
        myr_omp_unsupported("GOMP_task_reduction_remap outside a task_reduction");
    for (size_t i = 0; i < cnt; i++) {
        uintptr_t p = (uintptr_t)ptrs[i];
        uintptr_t *d, *var = NULL;
        for (d = first; d && !var; d = (uintptr_t *)d[4]) {
            for (uintptr_t j = 0; j < d[0]; j++)
                if (d[7 + 3 * j] == p) {
                    var = &d[7 + 3 * j];
                    break;
                }
            if (!var && p >= d[2] && p < d[6]) {  /* another copy */
                uintptr_t off = (p - d[2]) % d[1];
                for (uintptr_t j = 0; j < d[0]; j++)
                    if (d[7 + 3 * j + 1] == off) {
                        var = &d[7 + 3 * j];
                        break;
                    }
            }
            if (var)
                break;
        }
        if (!var)
            myr_omp_unsupported("GOMP_task_reduction_remap of a variable no "
                                "task_reduction names");
        uintptr_t *desc = (uintptr_t *)var[2];
        ptrs[i] = (void *)(desc[2] + t->num * desc[1] + var[1]);
        if (i < cntorig)
            ptrs[cnt + i] = (void *)var[0];
    }
}

/* ---- taskloop -------------------------------------------------------- */

/* gcc's taskloop body reads its bounds from the first two fields of its
 * argument block: [start, end) of its share, in the loop's type. */
static void taskloop(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long size, long align,
                     unsigned flags, unsigned long num_tasks, ull n,
                     ull start, ull step)
{
    omp_thr *c = myr_omp_thr();
    if (n == 0 && !(flags & TASK_REDUCTION))
        return;  /* (with a reduction, gcc combines the copies even then) */
    if (align < 1)
        align = 1;
    ull ntasks, strict_len = 0;
    if (flags & TASK_GRAINSIZE) {
        ull g = num_tasks ? num_tasks : 1;
        ntasks = n / g ? n / g : 1;
        if (flags & TASK_STRICT) {  /* g each, the last one the rest */
            ntasks = (n + g - 1) / g;
            strict_len = g;
        }
    } else {
        ntasks = num_tasks ? num_tasks : c->team->nthreads;
    }
    if (ntasks > n)
        ntasks = n;
    /* Inside a task reduction its tasks may name it with in_reduction
     * (gcc does not flag those): undeferred, as GOMP_task's. */
    if (current_reductions(c))
        flags &= ~(unsigned)TASK_IF;
    bool group = !(flags & TASK_NOGROUP);
    if (group)
        GOMP_taskgroup_start();
    if (flags & TASK_REDUCTION) {
        /* reduction on taskloop: the descriptor follows the bounds in the
         * argument block; its tasks run undeferred (top of the file). */
        uintptr_t *desc = ((uintptr_t **)data)[2];
        if (desc) {
            if (!group)
                myr_omp_unsupported("GOMP_taskloop with reduction and nogroup");
            GOMP_taskgroup_reduction_register(desc);
        }
        flags &= ~(unsigned)TASK_IF;
    }
    ull q = ntasks ? n / ntasks : 0, r = ntasks ? n % ntasks : 0, i0 = 0;
    for (ull k = 0; k < ntasks; k++) {
        ull len = strict_len ? (n - i0 < strict_len ? n - i0 : strict_len)
                             : q + (k < r);
        ull s = start + i0 * step, e = start + (i0 + len) * step;
        i0 += len;
        if (c->final || !(flags & TASK_IF)) {
            char buf[size + align];
            char *arg = (char *)(((uintptr_t)buf + align - 1) & ~(uintptr_t)(align - 1));
            if (cpyfn)
                cpyfn(arg, data);
            else
                memcpy(arg, data, (size_t)size);
            ((ull *)arg)[0] = s;
            ((ull *)arg)[1] = e;
            run_included(c, fn, arg, flags);
            continue;
        }
        omp_task *t = task_new(c, fn, data, cpyfn, size, align, flags);
        ((ull *)t->args)[0] = s;
        ((ull *)t->args)[1] = e;
        task_submit(c, t, NULL, false);
    }
    if (group)
        GOMP_taskgroup_end();
}

void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                   long size, long align, unsigned flags,
                   unsigned long num_tasks, int priority,
                   long start, long end, long step)
{
    (void)priority;
    ull n;
    if (step > 0)
        n = start < end ? ((ull)end - (ull)start + (ull)step - 1) / (ull)step : 0;
    else
        n = start > end ? ((ull)start - (ull)end + (ull)(-step) - 1) / (ull)(-step) : 0;
    taskloop(fn, data, cpyfn, size, align, flags, num_tasks, n, (ull)start,
             (ull)step);
}

void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                       void (*cpyfn)(void *, void *), long size, long align,
                       unsigned flags, unsigned long num_tasks, int priority,
                       ull start, ull end, ull step)
{
    (void)priority;
    ull n;
    if (flags & TASK_UP)
        n = start < end ? (end - start + step - 1) / step : 0;
    else
        n = start > end ? (start - end - step - 1) / -step : 0;
    taskloop(fn, data, cpyfn, size, align, flags, num_tasks, n, start, step);
}
