/*
 * myr_ult.h — Myriad's user-level thread (ULT) API.
 *
 * A ULT is a function running on its own stack, scheduled M:N onto worker
 * kernel threads (one per core) with work stealing. MPI ranks are ULTs; this
 * header is the layer below MPI, usable on its own.
 *
 * Every function that can fail returns MYR_OK or an MYR_ERR_* code and hands
 * results back through a pointer argument. Functions that block (join,
 * suspend, yield) may only be called from a ULT; the thread that called
 * myr_init() is itself a ULT (the "main ULT") until myr_finalize().
 */
#ifndef MYR_ULT_H
#define MYR_ULT_H

#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* errno per ULT. glibc declares __errno_location() `const`, so a compiler
 * may compute errno's address once and reuse it after a call that yields,
 * when the ULT may already run on another kernel thread (whose errno that
 * address is not). Code that includes this header reads errno through an
 * accessor the compiler cannot cache; the runtime saves and restores the
 * value itself at every switch. (The same caution applies to pthread_self(),
 * also declared const: do not rely on it across a blocking call.) */
int *myr_errno_location(void);
#undef errno
#define errno (*myr_errno_location())

enum myr_error {
    MYR_OK = 0,
    MYR_ERR_ARG,    /* an argument is invalid (NULL function, bad key...) */
    MYR_ERR_NOMEM,  /* out of memory, or out of memory mappings for stacks */
    MYR_ERR_STATE,  /* wrong runtime state (not initialised, not in a ULT) */
    MYR_ERR_SYS,    /* a system call failed (errno tells which) */
};

/* A human-readable message for an MYR_ERR_* code; never NULL. */
const char *myr_strerror(int err);

typedef struct myr_ult myr_ult_t;
typedef void *(*myr_ult_fn)(void *arg);

/* Runtime configuration; a zero field means "take it from the environment
 * (MYR_WORKERS, MYR_STACK_SIZE, MYR_BIND) or the default". */
typedef struct myr_config {
    int workers;        /* worker kernel threads */
    size_t stack_size;  /* usable bytes per ULT stack, guard page excluded */
    int bind;           /* 1: pin workers to cores, -1: do not pin, 0: env */
    long reserved_mappings;  /* memory mappings the caller will make for
                              * itself: kept out of the stacks' budget of
                              * guard pages (vm.max_map_count) */
    size_t default_stack_size;  /* the stack size when neither stack_size
                                 * nor MYR_STACK_SIZE gives one (0: 1 MiB);
                                 * MPI jobs: `ulimit -s` */
    int first_cpu;      /* pin worker i to the (first_cpu + i)-th allowed CPU
                         * (modulo their number), so that processes sharing
                         * a node's CPUs take different ones */
    int spin_yield;     /* 1: an idle worker's spin gives its core away at
                         * every turn (sched_yield; for more threads than
                         * cores), -1: it does not, 0: MYR_SPIN_YIELD */
} myr_config_t;

/* Start the runtime with settings from the environment. The calling thread
 * becomes worker 0 and the main ULT. */
int myr_init(void);
int myr_init_config(const myr_config_t *config);
/* Wait for every remaining ULT to finish, then stop the workers. Must be
 * called from the main ULT; returns on the thread that called myr_init(). */
int myr_finalize(void);
int myr_initialized(void);

/* Create a ULT running fn(arg). With out != NULL the ULT is joinable and
 * *out is its handle (join it exactly once); with out == NULL it is detached
 * and its resources are released when it ends. It is made ready on the
 * calling worker (spawn) or on worker `worker` (spawn_on); idle workers may
 * steal it from there. A ULT placed with spawn_on is anchored there: each
 * resume makes it ready on that worker again, even after a thief ran it,
 * unless the thief took it from a worker that had run one ULT for
 * MYR_STEAL_DELAY_US (it computes, or its thread was not running): the ULT
 * is then anchored to the thief. Callable from any thread, worker or not. */
int myr_ult_spawn(myr_ult_t **out, myr_ult_fn fn, void *arg);
int myr_ult_spawn_on(int worker, myr_ult_t **out, myr_ult_fn fn, void *arg);

/* Wait until `ult` has ended, store its result (the return value of its
 * function or the argument of myr_ult_exit) in *result if non-NULL, and
 * release the handle. */
int myr_ult_join(myr_ult_t *ult, void **result);

/* Let the other ready ULTs of this worker run; the caller is put behind
 * them. Returns at once if nothing else is ready. */
void myr_ult_yield(void);

/* End the calling ULT with `result`. From the main ULT it is an error. */
int myr_ult_exit(void *result);

/* The calling ULT, or NULL when called from a thread that is not running a
 * ULT (an external kernel thread, or a worker's scheduler). */
myr_ult_t *myr_ult_self(void);

/* Block the calling ULT until some thread calls myr_ult_resume() on it. The
 * suspended ULT is in no ready queue. A resume that arrives while the ULT is
 * still running (before or during its suspend) is remembered: the next
 * suspend returns at once. At most one such resume is remembered, so callers
 * re-check the condition they wait for, in a loop. */
int myr_ult_suspend(void);

/* Make a suspended ULT ready again on its home worker (the worker it last
 * ran on), where idle workers may steal it. Callable from any thread,
 * including threads that are not workers. */
int myr_ult_resume(myr_ult_t *ult);

/* A number unique among the ULTs created since myr_init (main ULT is 0). */
unsigned long myr_ult_id(const myr_ult_t *ult);

/* A short label that diagnostics print for this ULT (e.g. "MPI rank 12");
 * truncated to 47 bytes. NULL restores the default "ULT <id>". */
int myr_ult_set_name(myr_ult_t *ult, const char *name);

/* One pointer per ULT that ULTs spawned by it inherit (the MPI layer keeps
 * the rank there, so tasks a rank spawns act for that rank). NULL in the
 * main ULT and in ULTs spawned from outside any ULT. */
void *myr_ult_inherited(void);
int myr_ult_set_inherited(void *value);

/* Number of workers, and the index of the calling worker (-1 when the
 * calling kernel thread is not a worker). A ULT may move between workers at
 * any yield, suspend or join: never keep this value across them. */
int myr_worker_count(void);
int myr_worker_self(void);

/* Usable stack bytes each ULT gets. */
size_t myr_stack_size(void);

/* ULT-local storage: a key names one void * slot in every ULT (initially
 * NULL). The destructor, if any, runs in the ULT when it ends, for each
 * non-NULL value. */
typedef unsigned myr_key_t;
int myr_key_create(myr_key_t *key, void (*destructor)(void *));
int myr_key_delete(myr_key_t key);
int myr_key_set(myr_key_t key, void *value);
int myr_key_get(myr_key_t key, void **value);

#ifdef __cplusplus
}
#endif

#endif /* MYR_ULT_H */
