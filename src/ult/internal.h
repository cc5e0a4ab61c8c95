/*
 * internal.h — the ult layer's shared structures. See sched.c for the
 * scheduling model and the invariants every function here relies on.
 */
#ifndef MYR_ULT_INTERNAL_H
#define MYR_ULT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "arch/context.h"
#include "arch/cpu.h"
#include "arch/stack.h"
#include "myr_ult.h"
#include "ult/deque.h"
#include "ult/inbox.h"

/* A context, plus (sanitizer builds) the bounds of the stack it runs on
 * for the sanitizer's fiber annotations. Only the context otherwise: it
 * shares the descriptor's first cache line with what a switch reads. */
typedef struct myr_fiber {
    myr_context ctx;
#ifdef MYR_SANITIZE
    void *stack_lo;
    size_t stack_size;
    void *asan_fake_stack;
#endif
} myr_fiber;

static inline void myr_fiber_set_bounds(myr_fiber *f, void *lo, size_t size)
{
#ifdef MYR_SANITIZE
    f->stack_lo = lo;
    f->stack_size = size;
#else
    (void)f, (void)lo, (void)size;
#endif
}

/* ULT state word: one of the three states, plus the RESUME_PENDING bit
 * ("a resume arrived while the ULT was not suspended"). */
enum {
    ULT_RUNNABLE = 0,        /* running, or in exactly one ready queue */
    ULT_SUSPENDED = 1,       /* in no queue; only a resume makes it ready */
    ULT_DONE = 2,            /* finished; its stack is back in a pool */
    ULT_STATE_MASK = 3,
    ULT_RESUME_PENDING = 4,
};

/* Nothing declared from here on is used outside libmyriad: hidden, so calls
 * between the ult files are direct (no PLT) and may be inlined. */
#pragma GCC visibility push(hidden)

struct myr_worker;
typedef struct myr_ult myr_ult;

/* The first cache line (descriptors are 64-byte aligned) holds what a
 * resume and a switch touch: the inbox link, the state word, the home, the
 * context, the canary and errno; so a ULT that is resumed and run costs
 * one line of its descriptor (with thousands of ULTs per worker, each line
 * is a cache miss per turn). The inherited value, which the layers above
 * read on every call (an MPI rank's MPI calls), is on the second line: a
 * resume from another worker takes the first line away while the ULT may
 * still be running (its resume-pending bit), and the running ULT's calls
 * should not have to fetch it back. */
struct myr_ult {
    myr_qnode qnode;                  /* link in an inbox */
    _Atomic unsigned state;
    int saved_errno;
    struct myr_worker *worker;        /* running on, or home when not */
    struct myr_worker *anchor;        /* spawn_on's worker, where every resume
                                         makes it ready (NULL: its home) */
    myr_fiber fiber;
    const uint64_t *canary;           /* checked at every switch-out: the
                                         stack's canary word, or
                                         &myr_stack_no_canary */
    bool started;                     /* has a context to switch to */
    bool is_main;
    bool external;                    /* an adopted kernel thread (external.c):
                                         no worker, no context of ours */
    myr_stack *stack;                 /* NULL until first run (lazy) */
    _Alignas(64) void *inherited;     /* copied into ULTs this one spawns */
    _Atomic(struct myr_ult *) joiner; /* see ult.c: the join protocol */
    myr_ult_fn fn;
    void *arg;
    void *result;
    unsigned long id;
    void **keys;                      /* ULT-local storage, grown on set */
    unsigned nkeys;
    struct myr_worker *migrate_to;    /* target of a pending migration */
    struct myr_ult *pool_next;
    /* Its copy of the program's thread-local segment while it is not
     * running (tls.c), NULL until it first leaves a worker; and the
     * destructors of C++ thread-local objects it made. */
    void *tls;
    struct tls_dtor *tls_dtors;
    char name[48];
};

/* Values of myr_ult.joiner besides NULL and a joining ULT (ult.c: the join
 * protocol, also followed by adopted threads, external.c). */
#define JOIN_DETACHED ((myr_ult *)1)
#define JOIN_DONE ((myr_ult *)2)
#define JOIN_CLAIMED ((myr_ult *)3)

enum { WORKER_AWAKE = 0, WORKER_SLEEPING = 1 };

/* A worker's cache of free malloc'd blocks of one kind, for the layers
 * above (core_api.h). Owner only. It keeps up to MYR_ULT_CACHE_BYTES of
 * blocks: with 1024 ranks per worker each holding 8 requests across a
 * wait, a cache of 256 blocks sent part of the main job's requests to
 * malloc and free (~220 of ~4,500 instructions per rank-iteration with a
 * residual check every 10 iterations, cachegrind), one of 4096 none. */
enum { MYR_ULT_NCACHES = 4, MYR_ULT_CACHE_BYTES = 1 << 20 };
typedef struct myr_block_cache {
    void *head;
    unsigned n;
} myr_block_cache;

typedef struct myr_worker {
    myr_deque deque;
    myr_inbox inbox;
    /* Futex word: SLEEPING while the worker waits in the kernel. */
    _Alignas(MYR_CACHE_LINE) _Atomic int sleep_state;
    /* 1 while the worker is in its scheduler looking for work: thieves
     * then leave its inbox to it (locality). */
    _Atomic int looking;
    /* Progress, read by thieves (sched.c, "Stuck workers"): advanced by
     * the owner at every ULT it starts and while it looks for work. A
     * count that stands still means one ULT has run all along, or the
     * kernel thread has not run. Its own line: thieves poll it. */
    _Alignas(MYR_CACHE_LINE) _Atomic unsigned long turns;
    /* Single ready ULTs queued here without waking anybody (notify_local):
     * while this moves, a watcher keeps watching. */
    _Atomic unsigned long quiet_pushes;
    /* Live ULTs anchored here (spawn_on, or moved here by a thief). */
    _Atomic int anchored;
    /* This worker's kernel thread's CPU-time clock, for thieves to tell a
     * worker that computes from one that is not running (sched.c);
     * cpu_clock_set says it is there to read. */
    clockid_t cpu_clock;
    _Atomic bool cpu_clock_set;
    /* Owner-only fields. */
    _Alignas(MYR_CACHE_LINE) myr_ult *current;
    int *errno_loc;                   /* this kernel thread's errno */
    void *tls_block;                  /* its instance of the program's
                                         thread-local segment (tls.c) */
    myr_fiber sched;                  /* the worker's scheduler context */
    myr_stack *sched_stack;           /* worker 0 only: its own stack */
    myr_stack_pool stacks;
    myr_ult *free_ults;
    unsigned nfree_ults;
    unsigned long id_next, id_end;    /* ULT ids this worker hands out */
    /* ULTs spawned and ended here (owner-written, read by myr_ult_live):
     * counts of the runtime's were one line that every spawn and exit on
     * every worker took with a locked instruction. */
    _Atomic unsigned long spawned, ended;
    myr_block_cache caches[MYR_ULT_NCACHES];
    /* A batch's quiet resume queued a ULT here and no sleeper was told
     * yet: a batch that made nothing ready (a collective of one rank)
     * then wakes nobody. */
    bool batch_pushed;
    /* What this worker, as a thief, last saw of each worker's turns, when
     * the count last moved, and when it last looked (sched.c). */
    unsigned long *seen_turns;
    long *seen_ns, *looked_ns;
    unsigned long seen_quiet;         /* sum of quiet_pushes at the last look */
    unsigned rng;
    int index;
    pthread_t thread;
    void *altstack;
    size_t altstack_size;
    unsigned long steals;             /* statistics, owner-written */
    _Atomic unsigned long sleeps;     /* read by myr_sched_quiescent */
} myr_worker;

typedef struct myr_runtime {
    int nworkers;
    /* Completions also come from a thread that is not a worker (the
     * network's comm thread): a waiting ULT may spin even when its worker
     * is the only one (set by myr_ult_expect_outside_completions). */
    bool outside_completions;
    /* What a waiting ULT's idle worker may do meanwhile (myr_ult_set_idle_hooks). */
    const struct myr_ult_idle_hooks *_Atomic idle_hooks;
    myr_worker *workers;
    size_t stack_size;
    myr_stack_guard stack_guard;      /* MYR_STACK_GUARD */
    long max_map_count;               /* vm.max_map_count at init */
    myr_stack_depot stack_depot;      /* stacks shared between workers' pools */
    long spin_ns;
    bool spin_yield;   /* idle spins give the core away at each turn (MYR_SPIN_YIELD) */
    long steal_delay_ns;   /* MYR_STEAL_DELAY_US */
    bool bind;
    int first_cpu;         /* myr_config_t.first_cpu */
    bool initialized;
    /* The program's thread-local segment (tls.c): its size (0: none, and
     * switches copy nothing) and initial image. */
    size_t tls_bytes;
    const void *tls_image;
    size_t tls_image_bytes;
    myr_ult *main_ult;
    pthread_t main_thread;
    _Alignas(MYR_CACHE_LINE) _Atomic int n_sleeping;
    /* Workers looking for work or in a timed sleep: they will take a
     * stuck worker's single ready ULT (sched.c, "Stuck workers"). */
    _Atomic int watchers;
    /* Adopted kernel threads (external.c) that exist and are not
     * suspended: while any does, the runtime is not quiescent. */
    _Atomic int externals_running;
    _Atomic int shutdown;
    _Atomic unsigned spawn_rr;
    /* Apart from the lines above, which change all the time: read by
     * every ULT's end, written once (finalize). */
    _Alignas(MYR_CACHE_LINE) _Atomic(myr_ult *) finalize_waiter;
    _Atomic unsigned long outside_spawned;   /* by threads that are no worker */
    _Atomic unsigned long next_id;           /* taken by blocks (ult.c) */
} myr_runtime;

extern myr_runtime myr_rt;

/* The worker running on this kernel thread, or NULL.
 *
 * The read is a volatile asm: a compiler may keep the *address* of a
 * thread-local variable in a register across a call, and after a context
 * switch the ULT may run on another kernel thread, where that address is the
 * old thread's variable (the bug Argobots and MassiveThreads hit). A volatile
 * asm is never merged with another or moved across a call, so every call of
 * this function asks the current thread. Initial-exec TLS: one GOT load and
 * one thread-pointer-relative load, no __tls_get_addr. */
extern __thread myr_worker *myr_tls_worker
    __attribute__((visibility("hidden"), tls_model("initial-exec")));

static inline myr_worker *myr_worker_current(void)
{
    myr_worker *w;
#if defined(__x86_64__)
    __asm__ __volatile__("movq myr_tls_worker@gottpoff(%%rip), %0\n\t"
                         "movq %%fs:(%0), %0"
                         : "=r"(w));
#elif defined(__aarch64__)
    void *tp;
    __asm__ __volatile__("adrp %0, :gottprel:myr_tls_worker\n\t"
                         "ldr %0, [%0, #:gottprel_lo12:myr_tls_worker]\n\t"
                         "mrs %1, tpidr_el0\n\t"
                         "ldr %0, [%1, %0]"
                         : "=&r"(w), "=&r"(tp));
#endif
    return w;
}

void myr_worker_set_current(myr_worker *w);

/* The descriptor of this kernel thread when it is an adopted thread
 * (external.c), else NULL. Never read on a worker, and an adopted thread
 * never switches, so a plain TLS read is safe here. */
extern __thread myr_ult *myr_tls_external
    __attribute__((visibility("hidden"), tls_model("initial-exec")));

/* external.c: block or wake an adopted thread (sched.c calls these when the
 * ULT has no worker). */
int myr_external_suspend(myr_ult *self);
void myr_external_wake(myr_ult *u);

/* sched.c */
void myr_sched_loop(myr_worker *w);
void myr_sched_make_ready(myr_ult *u);
/* The same, except that a ULT queued on the caller's own deque wakes no
 * sleeper: the caller calls myr_sched_batch_end once after a batch. */
void myr_sched_make_ready_quiet(myr_ult *u);
/* After a batch of myr_sched_make_ready_quiet on worker w, when one of them
 * queued a ULT on w's deque (w->batch_pushed): wake a sleeper to steal. */
void myr_sched_batch_end_slow(myr_worker *w);
void myr_sched_notify_idle(void);
void myr_sched_wake(myr_worker *w);
void myr_sched_wake_all(void);
void myr_sched_migrate(myr_ult *cur, myr_worker *target);
_Noreturn void myr_sched_finish(myr_ult *cur);

/* ult.c */
void myr_ult_free(myr_worker *w, myr_ult *u);
void myr_ult_release_done(myr_worker *w, myr_ult *u);
long myr_ult_live(void);
unsigned long myr_ult_new_id(myr_worker *w);
void myr_ult_pool_drain(myr_worker *w);
void myr_ult_caches_drain(myr_worker *w);
const char *myr_ult_label(const myr_ult *u, char buf[64]);

/* key.c */
void myr_key_run_destructors(myr_ult *u);

/* tls.c: the program's thread-local segment follows its ULTs. */
void myr_tls_init(void);                       /* finds the segment */
void myr_tls_thread_init(myr_worker *w);       /* on w's own thread */
void myr_tls_save_new(myr_worker *w, myr_ult *u);
void myr_tls_restore_initial(myr_worker *w);
void myr_tls_run_destructors(myr_ult *u);      /* in the ending ULT */
void myr_tls_free(myr_ult *u);

/* u leaves worker w (it is saved before anyone can run it elsewhere). */
static inline void myr_tls_save(myr_worker *w, myr_ult *u)
{
    if (__builtin_expect(myr_rt.tls_bytes == 0, 1) || u->external)
        return;
    if (u->tls)
        __builtin_memcpy(u->tls, w->tls_block, myr_rt.tls_bytes);
    else
        myr_tls_save_new(w, u);
}

/* u comes on worker w: its variables, or a new thread's. */
static inline void myr_tls_restore(myr_worker *w, myr_ult *u)
{
    if (__builtin_expect(myr_rt.tls_bytes == 0, 1) || u->external)
        return;
    if (u->tls)
        __builtin_memcpy(w->tls_block, u->tls, myr_rt.tls_bytes);
    else
        myr_tls_restore_initial(w);
}

/* overflow.c */
int myr_overflow_install(void);
void myr_overflow_uninstall(void);
int myr_overflow_thread_init(myr_worker *w);
void myr_overflow_thread_fini(myr_worker *w);
/* u's canary is damaged: report the overflow and end the job (139). */
_Noreturn void myr_overflow_canary(const myr_ult *u);

/* Ending the job on a fatal path (a crash, a stack overflow, the deadlock
 * check, the time limit, MPI_Abort): _exit skips stdio's flush, so these
 * write out what stdio holds first, in bounded time (overflow.c). Usable
 * from a signal handler.
 *   myr_job_end_begin: this thread ends the job with `status`; `reason`
 *     (or NULL: no such line) completes "myriad: job ended because ...".
 *     Returns only to the first thread to call it; a later one waits for
 *     the end, and the first one calling again (a fault while it ends the
 *     job) ends the process at once.
 *   myr_job_end_flush: write out stdout, stderr and the hook's output,
 *     skipping a stream whose lock is not let go within a moment; with
 *     `all`, then every stdio stream (fflush(NULL)).
 *   myr_job_end: flush as myr_job_end_flush(all) does if asked, print the
 *     line and _exit. */
void myr_job_end_begin(int status, const char *reason);
void myr_job_end_flush(bool all);
_Noreturn void myr_job_end(bool flush_all);
/* Output a layer above buffers itself (mpiexec -l's unfinished lines):
 * written out by myr_job_end_flush, without waiting past `deadline`
 * (CLOCK_MONOTONIC seconds) and without allocating. NULL: none. */
void myr_job_end_set_flush_hook(void (*hook)(double deadline));
/* Stop every worker where it is, for good, so that a report can read what
 * the ranks noted as in a deadlock; true when all of them stopped and no
 * kernel thread of the program runs. Only on the way to myr_job_end. */
bool myr_sched_freeze(void);

/* The switch-out check (yield, suspend, migrate, exit): one load and one
 * compare on a word of a cache line the switch touches anyway. It runs in
 * the switch callback, on the next context's stack, so the report does not
 * dig further into the damaged one. */
static inline void myr_canary_check(const myr_ult *u)
{
    if (__builtin_expect(myr_stack_canary_load(u->canary) != MYR_STACK_CANARY, 0))
        myr_overflow_canary(u);
}

/* topology.c */
int myr_topology_cpu_count(void);
void myr_topology_plan(int nworkers, int first_cpu);
void myr_topology_bind(int worker_index);
/* The CPUs this process's workers are pinned to; false (and empty) when
 * they are not pinned. */
bool myr_topology_worker_cpus(cpu_set_t *set);
void myr_topology_restore_main(void);

/* Fatal runtime error: print and abort. */
_Noreturn void myr_fatal(const char *what, const char *detail);

#pragma GCC visibility pop

#endif
