/*
 * worker.c — starting and stopping the runtime and its worker threads.
 *
 * myr_init turns the calling thread into worker 0 and its flow into the
 * main ULT, which runs on the thread's own stack. Worker 0's scheduler gets
 * a stack of its own, because the main ULT may be stolen by another worker
 * and keep using the original stack there. myr_finalize waits until every
 * other ULT has ended, brings the main ULT back to worker 0 (the original
 * kernel thread), and stops the others.
 */
#include "ult/internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/env.h"

#ifdef MYR_SANITIZE
#include <sanitizer/common_interface_defs.h>
#endif

#define DEFAULT_STACK_SIZE ((size_t)1 << 20)
#define DEFAULT_SPIN_US 50
#define DEFAULT_STEAL_DELAY_US 100
#define STACK_POOL_MAX 256

myr_runtime myr_rt;

__thread myr_worker *myr_tls_worker;

void myr_worker_set_current(myr_worker *w)
{
    myr_tls_worker = w;  /* only at thread start and end: no switch around */
}

_Noreturn void myr_fatal(const char *what, const char *detail)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "myriad: fatal: ");
    myr_diag_str(&b, what);
    if (detail) {
        myr_diag_str(&b, ": ");
        myr_diag_str(&b, detail);
    }
    myr_diag_str(&b, "\n");
    myr_diag_flush(&b);
    /* The message is the report: no crash report (overflow.c) on top, which
     * would need memory and mappings the runtime may have run out of. What
     * the ranks wrote still goes out (no allocation on that path), and the
     * status is SIGABRT's, as abort() gave before. */
    myr_job_end_begin(128 + SIGABRT, "of a fatal error in the runtime");
    myr_job_end(true);
}

static void fiber_bounds_of_thread(myr_fiber *f)
{
    pthread_attr_t attr;
    void *lo = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &lo, &size);
        pthread_attr_destroy(&attr);
    }
    myr_fiber_set_bounds(f, lo, size);
}

static int worker_setup(myr_worker *w, int index)
{
    memset(w, 0, sizeof *w);
    w->index = index;
    w->rng = 0x9e3779b9u * (unsigned)(index + 1);
    if (myr_deque_init(&w->deque, 256) != 0)
        return MYR_ERR_NOMEM;
    myr_inbox_init(&w->inbox);
    int n = myr_rt.nworkers;
    w->seen_turns = calloc((size_t)n, sizeof *w->seen_turns);
    w->seen_ns = calloc((size_t)n, sizeof *w->seen_ns);
    w->looked_ns = calloc((size_t)n, sizeof *w->looked_ns);
    if (!w->seen_turns || !w->seen_ns || !w->looked_ns)
        return MYR_ERR_NOMEM;
    atomic_init(&w->sleep_state, WORKER_AWAKE);
    atomic_init(&w->looking, 0);
    myr_stack_pool_init(&w->stacks, myr_rt.stack_size, STACK_POOL_MAX,
                        &myr_rt.stack_depot);
    return MYR_OK;
}

static void worker_teardown(myr_worker *w)
{
    myr_stack_pool_drain(&w->stacks);
    myr_ult_pool_drain(w);
    myr_ult_caches_drain(w);
    myr_deque_destroy(&w->deque);
    free(w->seen_turns);
    free(w->seen_ns);
    free(w->looked_ns);
}

/* Called on w's own thread, before it runs anything. */
static void myr_worker_publish_cpu_clock(myr_worker *w)
{
    if (pthread_getcpuclockid(pthread_self(), &w->cpu_clock) == 0)
        atomic_store_explicit(&w->cpu_clock_set, true, memory_order_release);
}

static void *worker_thread_main(void *arg)
{
    myr_worker *w = arg;
    myr_worker_set_current(w);
    w->errno_loc = __errno_location();
    myr_tls_thread_init(w);
    myr_worker_publish_cpu_clock(w);
    if (myr_rt.bind)
        myr_topology_bind(w->index);
    if (myr_overflow_thread_init(w) != 0)
        myr_fatal("cannot set up the signal stack of a worker", strerror(errno));
    fiber_bounds_of_thread(&w->sched);
    myr_sched_loop(w);
    myr_overflow_thread_fini(w);
    myr_worker_set_current(NULL);
    return NULL;
}

/* Worker 0's scheduler runs on a stack of its own; it only ever stops by
 * being left for good at finalize. */
static void worker0_sched_entry(void *arg)
{
#ifdef MYR_SANITIZE
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    myr_sched_loop(arg);
    myr_fatal("internal error", "worker 0's scheduler stopped");
}

/* A ULT's stack unless MYR_STACK_SIZE or cfg->stack_size says otherwise:
 * the caller's default (an MPI job's launcher gives `ulimit -s`,
 * launch/rank_stack.h), else 1 MiB. */
static size_t default_stack_size(const myr_config_t *cfg)
{
    return cfg && cfg->default_stack_size ? cfg->default_stack_size
                                          : DEFAULT_STACK_SIZE;
}

static int read_config(const myr_config_t *cfg)
{
    long n = 0;
    const char *v;
    myr_rt.nworkers = myr_topology_cpu_count();
    if (cfg && cfg->workers > 0) {
        myr_rt.nworkers = cfg->workers;
    } else if ((v = myr_env_get(MYR_ENV_WORKERS))) {
        if (myr_env_parse_long(v, &n) != 0 || n < 1 || n > 4096) {
            fprintf(stderr, "myriad: MYR_WORKERS=%s is not a worker count "
                            "(expected 1..4096)\n", v);
            return MYR_ERR_ARG;
        }
        myr_rt.nworkers = (int)n;
    }
    if (cfg && cfg->workers < 0)
        return MYR_ERR_ARG;

    size_t size = default_stack_size(cfg);
    if (cfg && cfg->stack_size) {
        size = cfg->stack_size;
    } else if ((v = myr_env_get(MYR_ENV_STACK_SIZE))) {
        if (myr_env_parse_size(v, &size) != 0 || size < 16384 ||
            size > ((size_t)1 << 40)) {
            fprintf(stderr, "myriad: MYR_STACK_SIZE=%s is not a stack size "
                            "(expected 16k..1T, e.g. 256k or 8M)\n", v);
            return MYR_ERR_ARG;
        }
    }
    myr_rt.stack_size = myr_stack_round(size);

    myr_rt.stack_guard = MYR_STACK_GUARD_AUTO;
    if ((v = myr_env_get(MYR_ENV_STACK_GUARD))) {
        if (strcmp(v, "always") == 0) {
            myr_rt.stack_guard = MYR_STACK_GUARD_ALWAYS;
        } else if (strcmp(v, "never") == 0) {
            myr_rt.stack_guard = MYR_STACK_GUARD_NEVER;
        } else if (strcmp(v, "auto") != 0) {
            fprintf(stderr, "myriad: MYR_STACK_GUARD=%s is not `auto`, "
                            "`always` or `never`\n", v);
            return MYR_ERR_ARG;
        }
    }
    myr_rt.max_map_count = myr_stack_max_map_count();

    myr_rt.bind = true;
    myr_rt.first_cpu = cfg && cfg->first_cpu > 0 ? cfg->first_cpu : 0;
    if (cfg && cfg->bind) {
        myr_rt.bind = cfg->bind > 0;
    } else if ((v = myr_env_get(MYR_ENV_BIND))) {
        if (strcmp(v, "none") == 0 || strcmp(v, "0") == 0) {
            myr_rt.bind = false;
        } else if (strcmp(v, "core") != 0 && strcmp(v, "1") != 0 && strcmp(v, "auto") != 0) {
            fprintf(stderr, "myriad: MYR_BIND=%s is not `core`, `none` or `auto`\n", v);
            return MYR_ERR_ARG;
        }
    }

    n = DEFAULT_SPIN_US;
    if ((v = myr_env_get(MYR_ENV_SPIN_US)) &&
        (myr_env_parse_long(v, &n) != 0 || n > 1000000)) {
        fprintf(stderr, "myriad: MYR_SPIN_US=%s is not a number of "
                        "microseconds (0..1000000)\n", v);
        return MYR_ERR_ARG;
    }
    myr_rt.spin_ns = n * 1000;

    myr_rt.spin_yield = false;
    if (cfg && cfg->spin_yield) {
        myr_rt.spin_yield = cfg->spin_yield > 0;
    } else if ((v = myr_env_get(MYR_ENV_SPIN_YIELD))) {
        if (strcmp(v, "1") == 0) {
            myr_rt.spin_yield = true;
        } else if (strcmp(v, "0") != 0 && strcmp(v, "auto") != 0) {
            fprintf(stderr, "myriad: MYR_SPIN_YIELD=%s is not `auto`, `1` or `0`\n", v);
            return MYR_ERR_ARG;
        }
    }

    n = DEFAULT_STEAL_DELAY_US;
    if ((v = myr_env_get(MYR_ENV_STEAL_DELAY_US)) &&
        (myr_env_parse_long(v, &n) != 0 || n > 1000000)) {
        fprintf(stderr, "myriad: MYR_STEAL_DELAY_US=%s is not a number of "
                        "microseconds (0..1000000)\n", v);
        return MYR_ERR_ARG;
    }
    myr_rt.steal_delay_ns = n * 1000;
    return MYR_OK;
}

int myr_init(void)
{
    return myr_init_config(NULL);
}

int myr_init_config(const myr_config_t *cfg)
{
    if (myr_rt.initialized)
        return MYR_ERR_STATE;
    memset(&myr_rt, 0, sizeof myr_rt);
    int err = read_config(cfg);
    if (err)
        return err;
    int n = myr_rt.nworkers;
    long reserved = cfg && cfg->reserved_mappings > 0 ? cfg->reserved_mappings : 0;
    myr_stack_depot_init(&myr_rt.stack_depot, myr_rt.stack_guard,
                         myr_stack_guard_budget(myr_rt.max_map_count - reserved));
    myr_rt.workers = aligned_alloc(MYR_CACHE_LINE,
                                   (size_t)n * sizeof(myr_worker));
    myr_ult *main_ult = aligned_alloc(64, (sizeof *main_ult + 63) & ~(size_t)63);
    if (!myr_rt.workers || !main_ult)
        goto nomem;
    memset(myr_rt.workers, 0, (size_t)n * sizeof(myr_worker));
    for (int i = 0; i < n; i++)
        if (worker_setup(&myr_rt.workers[i], i) != MYR_OK)
            goto nomem;

    /* The caller becomes the main ULT on worker 0. */
    myr_worker *w0 = &myr_rt.workers[0];
    memset(main_ult, 0, sizeof *main_ult);
    main_ult->is_main = true;
    main_ult->started = true;
    main_ult->canary = &myr_stack_no_canary;  /* runs on the thread's stack */
    main_ult->worker = w0;
    atomic_init(&main_ult->state, ULT_RUNNABLE);
    fiber_bounds_of_thread(&main_ult->fiber);
    myr_rt.main_ult = main_ult;
    myr_rt.main_thread = pthread_self();
    atomic_init(&myr_rt.next_id, 1);
    w0->current = main_ult;
    w0->errno_loc = __errno_location();
    myr_tls_init();
    myr_tls_thread_init(w0);
    myr_worker_publish_cpu_clock(w0);
    w0->sched_stack = myr_stack_create(64 * 1024);
    if (!w0->sched_stack)
        goto nomem;
    myr_fiber_set_bounds(&w0->sched, w0->sched_stack->lo, w0->sched_stack->size);
    myr_context_make(&w0->sched.ctx, w0->sched_stack->lo,
                     (size_t)((char *)myr_stack_top(w0->sched_stack) -
                              (char *)w0->sched_stack->lo),
                     worker0_sched_entry, w0);

    if (myr_overflow_install() != 0 || myr_overflow_thread_init(w0) != 0) {
        err = MYR_ERR_SYS;
        goto fail;
    }
    myr_worker_set_current(w0);
    myr_rt.initialized = true;
    if (myr_rt.bind) {
        myr_topology_plan(n, myr_rt.first_cpu);
        myr_topology_bind(0);
    }
    for (int i = 1; i < n; i++) {
        int rc = pthread_create(&myr_rt.workers[i].thread, NULL,
                                worker_thread_main, &myr_rt.workers[i]);
        if (rc != 0) {
            fprintf(stderr, "myriad: cannot start worker %d of %d: %s\n", i, n,
                    strerror(rc));
            myr_rt.nworkers = i;  /* stop the ones already running */
            myr_finalize();
            return MYR_ERR_SYS;
        }
    }
    return MYR_OK;

nomem:
    err = MYR_ERR_NOMEM;
fail:
    if (myr_rt.workers) {
        for (int i = 0; i < n; i++) {
            myr_worker *w = &myr_rt.workers[i];
            myr_deque_destroy(&w->deque);
            free(w->seen_turns);
            free(w->seen_ns);
            free(w->looked_ns);
        }
        if (myr_rt.workers[0].sched_stack)
            myr_stack_destroy(myr_rt.workers[0].sched_stack);
    }
    free(myr_rt.workers);
    free(main_ult);
    memset(&myr_rt, 0, sizeof myr_rt);
    return err;
}

int myr_initialized(void)
{
    return myr_rt.initialized;
}

int myr_finalize(void)
{
    if (!myr_rt.initialized)
        return MYR_ERR_STATE;
    myr_ult *self = myr_ult_self();
    if (!self || !self->is_main)
        return MYR_ERR_STATE;

    atomic_store(&myr_rt.finalize_waiter, self);
    while (myr_ult_live() > 0)
        myr_ult_suspend();
    atomic_store(&myr_rt.finalize_waiter, NULL);
    myr_worker *w0 = &myr_rt.workers[0];
    while (myr_worker_current() != w0)
        myr_sched_migrate(self, w0);

    atomic_store(&myr_rt.shutdown, 1);
    myr_sched_wake_all();
    for (int i = 1; i < myr_rt.nworkers; i++)
        pthread_join(myr_rt.workers[i].thread, NULL);

    myr_key_run_destructors(self);
    myr_overflow_thread_fini(w0);
    myr_overflow_uninstall();
    if (myr_rt.bind)
        myr_topology_restore_main();
    myr_stack_destroy(w0->sched_stack);
    for (int i = 0; i < myr_rt.nworkers; i++)
        worker_teardown(&myr_rt.workers[i]);
    myr_stack_depot_drain(&myr_rt.stack_depot);
    pthread_mutex_destroy(&myr_rt.stack_depot.lock);
    free(self->keys);
    myr_tls_free(self);
    free(self);
    free(myr_rt.workers);
    myr_worker_set_current(NULL);
    memset(&myr_rt, 0, sizeof myr_rt);
    return MYR_OK;
}

int myr_worker_count(void)
{
    return myr_rt.initialized ? myr_rt.nworkers : 0;
}

int myr_worker_self(void)
{
    myr_worker *w = myr_worker_current();
    return w ? w->index : -1;
}

size_t myr_stack_size(void)
{
    return myr_rt.initialized ? myr_rt.stack_size
                              : myr_stack_round(default_stack_size(NULL));
}
