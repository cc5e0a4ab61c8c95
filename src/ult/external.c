/*
 * external.c — kernel threads that act for the ULT that created them.
 *
 * A program's own threads (pthread_create in an MPI rank that asked for
 * MPI_THREAD_MULTIPLE) are kernel threads, not ULTs: they must block in the
 * kernel, never in a worker. When the creating ULT carries an inherited
 * value (an MPI rank), the new thread is *adopted*: it gets a descriptor of
 * its own (external: no worker, no context of ours) with the same inherited
 * value, so myr_ult_self() and myr_ult_inherited() answer in it as in a ULT
 * of that rank, and the layers above block and wake it with the calls they
 * use for ULTs:
 *   - suspend: RUNNABLE -> SUSPENDED by CAS (a resume that came first, the
 *     PENDING bit, makes it return at once), then futex_wait while the state
 *     is SUSPENDED;
 *   - resume: the usual CAS SUSPENDED -> RUNNABLE; make_ready finds no home
 *     worker and wakes the futex instead of queueing (sched.c);
 *   - yield: sched_yield().
 * Threads created by code that is not in such a ULT (the runtime's own
 * workers, a plain ULT program) are left alone.
 *
 * Descriptors are never freed, only reused by later adopted threads, so a
 * wake that lands after its thread ended touches valid memory: at worst a
 * spurious wake-up, which every suspend loop absorbs.
 *
 * pthread_join from a ULT of a thread adopted here suspends the ULT, not its
 * worker, until the thread has run its course: a worker blocked in the
 * kernel would strand the ULTs queued on it, possibly the very rank the
 * thread is waiting for. The join protocol is that of myr_ult_join (ult.c):
 * the ending thread claims the joiner, resumes it, then marks itself done.
 */
#include "ult/core_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread myr_ult *myr_tls_external;

/* ---- blocking and waking an adopted thread -------------------------------- */

int myr_external_suspend(myr_ult *self)
{
    unsigned s = ULT_RUNNABLE;
    if (!atomic_compare_exchange_strong(&self->state, &s, ULT_SUSPENDED)) {
        /* A resume came first (PENDING): consume it. */
        atomic_store(&self->state, ULT_RUNNABLE);
        return MYR_OK;
    }
    atomic_fetch_sub(&myr_rt.externals_running, 1);
    while (atomic_load(&self->state) == ULT_SUSPENDED)
        syscall(SYS_futex, (unsigned *)&self->state, FUTEX_WAIT_PRIVATE, ULT_SUSPENDED,
                NULL, NULL, 0);
    return MYR_OK;   /* counted as running again by whoever resumed us */
}

/* Called once per resume of a suspended adopted thread. It counts as
 * running from here, not from when the kernel gets round to running it:
 * on a loaded machine that can take long enough for the deadlock check to
 * see every rank waiting and nothing running. */
void myr_external_wake(myr_ult *u)
{
    atomic_fetch_add(&myr_rt.externals_running, 1);
    syscall(SYS_futex, (unsigned *)&u->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- descriptors ------------------------------------------------------------ */

/* Short sections with no switch inside: a mutex is fine on a worker too. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static myr_ult *pool;

static myr_ult *adopt(void *inherited)
{
    pthread_mutex_lock(&pool_lock);
    myr_ult *u = pool;
    if (u)
        pool = u->pool_next;
    pthread_mutex_unlock(&pool_lock);
    if (!u) {
        u = aligned_alloc(64, (sizeof *u + 63) & ~(size_t)63);
        if (!u)
            return NULL;
    }
    memset(u, 0, sizeof *u);
    u->external = true;
    u->canary = &myr_stack_no_canary;
    u->inherited = inherited;
    u->id = myr_ult_new_id(NULL);
    atomic_init(&u->state, ULT_RUNNABLE);
    atomic_init(&u->joiner, JOIN_DETACHED);
    snprintf(u->name, sizeof u->name, "kernel thread %ld", (long)syscall(SYS_gettid));
    myr_tls_external = u;
    return u;
}

static void release(myr_ult *u)
{
    myr_tls_external = NULL;
    free(u->keys);
    u->keys = NULL;
    u->nkeys = 0;
    pthread_mutex_lock(&pool_lock);
    u->pool_next = pool;
    pool = u;
    pthread_mutex_unlock(&pool_lock);
}

/* ---- the program's threads ---------------------------------------------------- */

/* One thread created by an adopting ULT. References: the thread's, until
 * it ends, and the joinable thread's table entry, until pthread_join or
 * pthread_detach takes it. */
typedef struct adopted {
    void *(*fn)(void *);
    void *arg;
    void *inherited;
    pthread_t id;
    _Atomic(myr_ult *) joiner;   /* NULL, the joining ULT, JOIN_CLAIMED, JOIN_DONE */
    _Atomic int refs;
    struct adopted *next;
} adopted;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static adopted *table;

static void unref(adopted *t)
{
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        free(t);
}

/* Remove th's entry (the caller gets the table's reference), or NULL. */
static adopted *table_take(pthread_t th)
{
    pthread_mutex_lock(&table_lock);
    adopted **p = &table;
    while (*p && !pthread_equal((*p)->id, th))
        p = &(*p)->next;
    adopted *t = *p;
    if (t)
        *p = t->next;
    pthread_mutex_unlock(&table_lock);
    return t;
}

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Runs when an adopted thread ends, by return or pthread_exit. */
static void adopted_exit(void *arg)
{
    adopted *t = arg;
    if (myr_tls_external)
        release(myr_tls_external);
    myr_ult *j = atomic_exchange(&t->joiner, JOIN_CLAIMED);
    if (j && j != JOIN_CLAIMED && j != JOIN_DONE)
        myr_ult_resume_internal(j);
    atomic_store(&t->joiner, JOIN_DONE);
    unref(t);
    atomic_fetch_sub(&myr_rt.externals_running, 1);   /* counted by pthread_create */
}

static void make_exit_key(void)
{
    if (pthread_key_create(&exit_key, adopted_exit) != 0)
        myr_fatal("cannot create the key that ends adopted threads", NULL);
}

static void *adopted_main(void *arg)
{
    adopted *t = arg;
    if (!adopt(t->inherited))
        myr_fatal("out of memory for a thread's descriptor", NULL);
    pthread_setspecific(exit_key, t);
    return t->fn(t->arg);
}

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int join_fn(pthread_t, void **);
typedef int detach_fn(pthread_t);

/* The next definition after ours (libc's, or a sanitizer's in between). */
static void *next_symbol(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        myr_fatal("cannot find the C library's thread functions", name);
    return f;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static _Atomic(create_fn *) next;
    create_fn *real = atomic_load_explicit(&next, memory_order_relaxed);
    if (!real) {
        real = (create_fn *)next_symbol("pthread_create");
        atomic_store_explicit(&next, real, memory_order_relaxed);
    }
    myr_ult *parent = myr_ult_self_internal();
    if (!parent || !parent->inherited)
        return real(th, attr, fn, arg);
    pthread_once(&exit_key_once, make_exit_key);
    int detached = PTHREAD_CREATE_JOINABLE;
    if (attr)
        pthread_attr_getdetachstate(attr, &detached);
    adopted *t = calloc(1, sizeof *t);
    if (!t)
        return EAGAIN;
    t->fn = fn;
    t->arg = arg;
    t->inherited = parent->inherited;
    atomic_init(&t->refs, detached == PTHREAD_CREATE_DETACHED ? 1 : 2);
    /* The thread may end before its entry is in: its reference keeps the
     * entry alive, and a join finds it marked done. */
    pthread_t id;
    /* Running from now on, for the deadlock check: the creator is
     * running too, so no quiescent moment comes between. */
    atomic_fetch_add(&myr_rt.externals_running, 1);
    int rc = real(&id, attr, adopted_main, t);
    if (rc != 0) {
        atomic_fetch_sub(&myr_rt.externals_running, 1);
        free(t);
        return rc;
    }
    *th = id;
    if (detached != PTHREAD_CREATE_DETACHED) {   /* else t may be gone already */
        pthread_mutex_lock(&table_lock);
        t->id = id;
        t->next = table;
        table = t;
        pthread_mutex_unlock(&table_lock);
    }
    return 0;
}

int pthread_join(pthread_t th, void **result)
{
    static _Atomic(join_fn *) next;
    join_fn *real = atomic_load_explicit(&next, memory_order_relaxed);
    if (!real) {
        real = (join_fn *)next_symbol("pthread_join");
        atomic_store_explicit(&next, real, memory_order_relaxed);
    }
    adopted *t = table_take(th);
    if (t) {
        myr_worker *w = myr_worker_current();
        myr_ult *self = w ? w->current : NULL;
        myr_ult *expected = NULL;
        /* A ULT waits suspended; any other thread blocks in real() below. */
        if (self && atomic_compare_exchange_strong(&t->joiner, &expected, self)) {
            for (myr_ult *j; (j = atomic_load(&t->joiner)) != JOIN_DONE;) {
                if (j == JOIN_CLAIMED)
                    myr_ult_yield_internal();
                else
                    myr_ult_suspend_internal();
            }
        }
        unref(t);
    }
    return real(th, result);
}

int pthread_detach(pthread_t th)
{
    static _Atomic(detach_fn *) next;
    detach_fn *real = atomic_load_explicit(&next, memory_order_relaxed);
    if (!real) {
        real = (detach_fn *)next_symbol("pthread_detach");
        atomic_store_explicit(&next, real, memory_order_relaxed);
    }
    adopted *t = table_take(th);
    if (t)
        unref(t);
    return real(th);
}
