/*
 * task.c — dataflow tasks: the dependence graph and the ready queues.
 *
 * Model. Every rank (every inherited value, myr_ult.h) has one *domain*:
 * the regions its live tasks access (entries), and its ready tasks in two
 * FIFO queues (high priority, normal). A task is a node; an edge P -> T
 * means T waits for P (T's `npred` counts its edges, plus one guard held
 * while T is being created).
 *
 * Dependences. A new task T scans the domain's entries once per
 * dependence d. An entry E of another live task overlapping d gives an
 * edge when either writes (RAW, WAR, WAW); readers of the same bytes get
 * none. When d writes and covers E entirely, E is dropped: whoever later
 * overlaps E overlaps d and is ordered after T, which is after E's task.
 * A task's ancestors' entries are skipped (they are running: a child
 * waiting for its creator, which waits for its children, would deadlock).
 *
 * Running. A task whose npred reaches 0 goes to the process's ready
 * queue and a runner ULT is spawned (on the calling worker; idle workers
 * steal it). A runner takes the *best* ready task when it starts, not the
 * one it was spawned for: so a high-priority task overtakes normal ones
 * already waiting, of its rank and of the others (whose runners share the
 * workers: with a queue per rank, a rank's panel would wait behind the
 * other ranks' queued updates), and there is always one task per runner
 * (one spawn per push, one pop per runner). The runner acts for the
 * task's rank (its inherited value), whoever made the task ready (another
 * rank's ULT completing a request, the network's thread).
 *
 * Ending. Once its function has returned and its children have ended, a
 * task is marked done under the domain's lock and its entries are
 * unlinked; then its successors lose an edge each, outside the lock. An
 * entry found under the lock therefore belongs to a task not yet done, and
 * adding an edge to it (under the same lock) is never lost.
 *
 * Locking. One mutex per domain, held only for list and counter updates,
 * never across a switch (a resume or spawn under it only queues a ULT).
 * Waiters (taskwait, wait_on) check their condition under the lock and the
 * waker resumes them under it: a waiter cannot return, and drop what the
 * waker touches, before the resume is done.
 */
#include "task/task_impl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct myr_task_domain myr_task_domain;

/* A ULT waiting for a node's children (on its stack). */
struct sleeper {
    myr_ult_t *ult;
    bool woken;
    struct sleeper *next;
};

typedef struct task_entry {
    uintptr_t lo, hi;             /* bytes [lo, hi) */
    bool writes;
    bool linked;                  /* in the domain's list */
    myr_task_node *task;
    struct task_entry *prev, *next;
} task_entry;

enum node_kind { KIND_TASK, KIND_WRITER, KIND_WAIT, KIND_ROOT };

struct myr_task_node {
    myr_task_fn fn;
    void *arg;
    myr_task_domain *dom;
    myr_task_node *parent;        /* creator (a task, or the domain's root) */
    _Atomic int npred;
    int kind;
    bool high;
    bool done;                    /* under dom->lock, like the fields below */
    bool released;                /* KIND_WAIT: its wait is over */
    int nsucc, capsucc;
    myr_task_node **succ;
    long children;                /* created and not yet ended */
    struct sleeper *sleepers;     /* ULTs in taskwait on the children */
    myr_ult_t *waiter;            /* KIND_WAIT: the ULT in wait_on */
    myr_task_node *next;          /* ready-queue link */
    int nentries;
    task_entry entries[];
};

struct myr_task_domain {
    pthread_mutex_t lock;
    void *owner;                  /* the rank's inherited value */
    task_entry *entries;
    myr_task_node root;           /* parent of the rank's own tasks */
};

static void fatal(const char *what)
{
    fprintf(stderr, "myriad: tasks: %s\n", what);
    abort();
}

/* ---- domains: one per inherited value, found without a lock ---------- */

enum { DOMAIN_SLOTS = 1 << 14 };
static struct {
    _Atomic uintptr_t key;
    myr_task_domain *_Atomic dom;
} domains[DOMAIN_SLOTS];

static myr_task_domain *domain_new(void *owner)
{
    myr_task_domain *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    pthread_mutex_init(&d->lock, NULL);
    d->owner = owner;
    d->root.kind = KIND_ROOT;
    d->root.dom = d;
    return d;
}

/* Open addressing; a slot's key is claimed by CAS and its domain published
 * after. Domains live as long as the process (ranks are few and fixed). */
static myr_task_domain *domain_of(void *owner)
{
    uintptr_t key = owner ? (uintptr_t)owner : 1;
    size_t h = (size_t)((key >> 4) * 0x9e3779b97f4a7c15ull >> 20);
    for (size_t i = 0; i < DOMAIN_SLOTS; i++) {
        size_t s = (h + i) & (DOMAIN_SLOTS - 1);
        uintptr_t k = atomic_load_explicit(&domains[s].key, memory_order_acquire);
        if (k == 0) {
            if (atomic_compare_exchange_strong(&domains[s].key, &k, key)) {
                myr_task_domain *d = domain_new(owner);
                if (!d)
                    fatal("out of memory for a rank's task domain");
                atomic_store_explicit(&domains[s].dom, d, memory_order_release);
                return d;
            }
        }
        if (k == key) {
            myr_task_domain *d;
            while (!(d = atomic_load_explicit(&domains[s].dom, memory_order_acquire)))
                myr_ult_yield();   /* its creator is between CAS and store */
            return d;
        }
    }
    return NULL;
}

/* ---- the calling task -------------------------------------------------- */

static myr_key_t current_key;
static int current_key_err;
static pthread_once_t current_once = PTHREAD_ONCE_INIT;

static void current_key_create(void)
{
    current_key_err = myr_key_create(&current_key, NULL);
}

/* The caller's domain and the node its new tasks are children of. */
static int context(myr_task_domain **dom, myr_task_node **parent)
{
    if (!myr_ult_self())
        return MYR_ERR_STATE;
    pthread_once(&current_once, current_key_create);
    if (current_key_err)
        return current_key_err;
    void *cur = NULL;
    if (myr_key_get(current_key, &cur) == MYR_OK && cur) {
        *parent = cur;
        *dom = ((myr_task_node *)cur)->dom;
        return MYR_OK;
    }
    myr_task_domain *d = domain_of(myr_ult_inherited());
    if (!d)
        return MYR_ERR_NOMEM;
    *dom = d;
    *parent = &d->root;
    return MYR_OK;
}

/* ---- the graph (under dom->lock) -------------------------------------- */

static bool is_ancestor(const myr_task_node *p, const myr_task_node *of)
{
    for (; of; of = of->parent)
        if (of == p)
            return true;
    return false;
}

static void add_edge(myr_task_node *p, myr_task_node *t)
{
    if (p->nsucc > 0 && p->succ[p->nsucc - 1] == t)
        return;   /* the same pair through another region */
    if (p->nsucc == p->capsucc) {
        int cap = p->capsucc ? 2 * p->capsucc : 4;
        myr_task_node **s = realloc(p->succ, (size_t)cap * sizeof *s);
        if (!s)
            fatal("out of memory for the task graph");
        p->succ = s;
        p->capsucc = cap;
    }
    p->succ[p->nsucc++] = t;
    atomic_fetch_add_explicit(&t->npred, 1, memory_order_relaxed);
}

static void entry_unlink(myr_task_domain *d, task_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        d->entries = e->next;
    if (e->next)
        e->next->prev = e->prev;
    e->linked = false;
}

/* Order t after the live accesses [lo, hi) conflicts with (t's own
 * entries are skipped). A writer that no task runs (KIND_WRITER: its data
 * is landing already) waits for nobody and drops nothing. */
static void order_after(myr_task_domain *d, myr_task_node *t, uintptr_t lo,
                        uintptr_t hi, bool writes)
{
    if (t->kind == KIND_WRITER)
        return;
    for (task_entry *e = d->entries, *next; e; e = next) {
        next = e->next;
        if (e->task == t || e->hi <= lo || hi <= e->lo || is_ancestor(e->task, t->parent))
            continue;
        if (writes || e->writes)
            add_edge(e->task, t);
        if (writes && lo <= e->lo && e->hi <= hi)
            entry_unlink(d, e);
    }
}

static void add_entry(myr_task_domain *d, myr_task_node *t, uintptr_t lo,
                      uintptr_t hi, bool writes)
{
    task_entry *e = &t->entries[t->nentries++];
    e->lo = lo;
    e->hi = hi;
    e->writes = writes;
    e->task = t;
    e->prev = NULL;
    e->next = d->entries;
    if (d->entries)
        d->entries->prev = e;
    d->entries = e;
    e->linked = true;
}

/* ---- ready queues and runners ------------------------------------------ */

/* The process's ready tasks, [0]: high priority; FIFO each. */
static struct {
    pthread_mutex_t lock;
    myr_task_node *head[2], *tail[2];
} ready = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *runner(void *arg);

static void make_ready(myr_task_node *t)
{
    if (t->kind == KIND_WAIT) {
        myr_task_domain *d = t->dom;
        pthread_mutex_lock(&d->lock);
        t->released = true;
        myr_ult_resume(t->waiter);
        pthread_mutex_unlock(&d->lock);
        return;
    }
    int q = t->high ? 0 : 1;
    t->next = NULL;
    pthread_mutex_lock(&ready.lock);
    if (ready.tail[q])
        ready.tail[q]->next = t;
    else
        ready.head[q] = t;
    ready.tail[q] = t;
    pthread_mutex_unlock(&ready.lock);
    if (myr_ult_spawn(NULL, runner, NULL) != MYR_OK)
        fatal("cannot spawn the ULT of a ready task");
}

/* One predecessor (or the creation guard) is gone. */
static void release_one(myr_task_node *t)
{
    if (atomic_fetch_sub_explicit(&t->npred, 1, memory_order_acq_rel) == 1)
        make_ready(t);
}

static void child_ended(myr_task_node *p)
{
    myr_task_domain *d = p->dom;
    pthread_mutex_lock(&d->lock);
    if (--p->children == 0) {
        for (struct sleeper *s = p->sleepers; s; s = s->next) {
            s->woken = true;
            myr_ult_resume(s->ult);
        }
        p->sleepers = NULL;
    }
    pthread_mutex_unlock(&d->lock);
}

static void wait_children(myr_task_node *p)
{
    myr_task_domain *d = p->dom;
    struct sleeper s = {.ult = myr_ult_self()};
    pthread_mutex_lock(&d->lock);
    if (p->children == 0) {
        pthread_mutex_unlock(&d->lock);
        return;
    }
    s.next = p->sleepers;
    p->sleepers = &s;
    for (;;) {
        bool woken = s.woken;
        pthread_mutex_unlock(&d->lock);
        if (woken)
            return;
        (void)myr_ult_suspend();   /* a stray earlier resume: loop */
        pthread_mutex_lock(&d->lock);
    }
}

/* The task (or writer) is over: unlink its entries, release its
 * successors, tell its creator. */
static void finish(myr_task_node *t)
{
    myr_task_domain *d = t->dom;
    pthread_mutex_lock(&d->lock);
    t->done = true;
    for (int i = 0; i < t->nentries; i++)
        if (t->entries[i].linked)
            entry_unlink(d, &t->entries[i]);
    myr_task_node **succ = t->succ;
    int nsucc = t->nsucc;
    pthread_mutex_unlock(&d->lock);
    for (int i = 0; i < nsucc; i++)
        release_one(succ[i]);
    free(succ);
    myr_task_node *parent = t->parent;
    free(t);
    child_ended(parent);
}

static void *runner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&ready.lock);
    int q = ready.head[0] ? 0 : 1;
    myr_task_node *t = ready.head[q];
    if (t) {
        ready.head[q] = t->next;
        if (!t->next)
            ready.tail[q] = NULL;
    }
    pthread_mutex_unlock(&ready.lock);
    if (!t)
        fatal("a task runner found no ready task");
    myr_ult_set_inherited(t->dom->owner);  /* act for its rank, whoever spawned us */
    /* Without it the task's children would not be known as its own. */
    if (myr_key_set(current_key, t) != MYR_OK)
        fatal("out of memory for a task's ULT-local slot");
    t->fn(t->arg);
    wait_children(t);
    (void)myr_key_set(current_key, NULL);
    finish(t);
    return NULL;
}

/* ---- the API ------------------------------------------------------------ */

static int check_region(const void *addr, long size)
{
    if (size < 0)
        return MYR_ERR_ARG;
    if (size > 0 && (!addr || (uintptr_t)size > UINTPTR_MAX - (uintptr_t)addr))
        return MYR_ERR_ARG;
    return MYR_OK;
}

static myr_task_node *node_new(myr_task_domain *d, myr_task_node *parent, int kind,
                               int nentries)
{
    myr_task_node *t = calloc(1, sizeof *t + (size_t)nentries * sizeof(task_entry));
    if (!t)
        return NULL;
    t->dom = d;
    t->parent = parent;
    t->kind = kind;
    atomic_init(&t->npred, 1);
    return t;
}

int myr_task_create(myr_task_fn fn, void *arg, const myr_task_dep_t *deps, int ndeps,
                    int flags)
{
    if (!fn || ndeps < 0 || (ndeps > 0 && !deps) || (flags & ~MYR_TASK_HIGH_PRIORITY))
        return MYR_ERR_ARG;
    for (int i = 0; i < ndeps; i++) {
        if (deps[i].mode < MYR_TASK_IN || deps[i].mode > MYR_TASK_INOUT)
            return MYR_ERR_ARG;
        int err = check_region(deps[i].addr, deps[i].size);
        if (err)
            return err;
    }
    myr_task_domain *d;
    myr_task_node *parent;
    int err = context(&d, &parent);
    if (err)
        return err;
    myr_task_node *t = node_new(d, parent, KIND_TASK, ndeps);
    if (!t)
        return MYR_ERR_NOMEM;
    t->fn = fn;
    t->arg = arg;
    t->high = flags & MYR_TASK_HIGH_PRIORITY;
    pthread_mutex_lock(&d->lock);
    parent->children++;
    for (int i = 0; i < ndeps; i++) {
        if (deps[i].size == 0)
            continue;
        uintptr_t lo = (uintptr_t)deps[i].addr, hi = lo + (uintptr_t)deps[i].size;
        bool writes = deps[i].mode & MYR_TASK_OUT;
        order_after(d, t, lo, hi, writes);
        add_entry(d, t, lo, hi, writes);
    }
    pthread_mutex_unlock(&d->lock);
    release_one(t);   /* the creation guard */
    return MYR_OK;
}

int myr_task_wait_on(const void *addr)
{
    if (!addr)
        return MYR_ERR_ARG;
    myr_task_domain *d;
    myr_task_node *parent;
    int err = context(&d, &parent);
    if (err)
        return err;
    /* A reader of the byte at addr that nothing records: it waits for the
     * writers and nobody waits for it. It lives on our stack. */
    myr_task_node w = {.dom = d, .parent = parent, .kind = KIND_WAIT,
                       .waiter = myr_ult_self()};
    atomic_init(&w.npred, 1);
    uintptr_t lo = (uintptr_t)addr;
    pthread_mutex_lock(&d->lock);
    order_after(d, &w, lo, lo + 1, false);
    pthread_mutex_unlock(&d->lock);
    if (atomic_fetch_sub_explicit(&w.npred, 1, memory_order_acq_rel) != 1) {
        for (;;) {
            pthread_mutex_lock(&d->lock);
            bool released = w.released;
            pthread_mutex_unlock(&d->lock);
            if (released)
                break;
            (void)myr_ult_suspend();
        }
    }
    return MYR_OK;
}

int myr_taskwait(void)
{
    myr_task_domain *d;
    myr_task_node *parent;
    int err = context(&d, &parent);
    if (err)
        return err;
    wait_children(parent);
    return MYR_OK;
}

int myr_task_writer_begin(const void *addr, long size, myr_task_node **out)
{
    int err = check_region(addr, size);
    if (err)
        return err;
    myr_task_domain *d;
    myr_task_node *parent;
    if ((err = context(&d, &parent)))
        return err;
    myr_task_node *t = node_new(d, parent, KIND_WRITER, 1);
    if (!t)
        return MYR_ERR_NOMEM;
    pthread_mutex_lock(&d->lock);
    parent->children++;
    if (size > 0) {
        uintptr_t lo = (uintptr_t)addr;
        order_after(d, t, lo, lo + (uintptr_t)size, true);
        add_entry(d, t, lo, lo + (uintptr_t)size, true);
    }
    pthread_mutex_unlock(&d->lock);
    *out = t;
    return MYR_OK;
}

void myr_task_writer_end(myr_task_node *t)
{
    finish(t);
}
