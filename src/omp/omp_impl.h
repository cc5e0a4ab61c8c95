/*
 * omp_impl.h — Myriad's OpenMP runtime: the GOMP ABI gcc emits for
 * -fopenmp and the omp_* API, on ULTs.
 *
 * Model. An OpenMP thread is a ULT of its rank: a parallel region spawns
 * nthreads-1 ULTs (they inherit the rank's identity, so MPI calls and the
 * rank's private globals work from them) and the encountering ULT is thread
 * 0. Nothing lives in kernel-thread TLS: several ranks share a worker and a
 * ULT moves between workers, so each OpenMP thread (and each explicit task)
 * finds its state through one ULT key (omp_thr below).
 *
 * Waiting never holds a worker: barriers, locks, ordered, taskwait and the
 * end of a region wait on a 32-bit word through a small parking lot
 * (park.c; futex-like: park if the word still has the value seen, the
 * waker changes the word then unparks), after a short spin.
 *
 * Worksharing constructs of a team use a ring of OMP_WS_SLOTS slots: the
 * k-th construct a thread meets is slot k % OMP_WS_SLOTS, free for k once
 * every thread has left construct k - OMP_WS_SLOTS (nowait lets threads be
 * several constructs apart). Loops are kept as iteration indices
 * [0, n) over unsigned long long; istart = start + i * incr in two's
 * complement serves both the long and the unsigned long long entry points.
 */
#ifndef MYR_OMP_IMPL_H
#define MYR_OMP_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu.h"
#include "myr_ult.h"

#define OMP_WS_SLOTS 8
#define OMP_SPIN 200      /* polls of a word before parking on it */
#define OMP_BAR_ROUNDS 32 /* a barrier's rounds: log2 of a team's size, up */

/* Schedule kinds, as gcc's ABI numbers them (omp_sched_t and GFS_*). */
enum { OMP_SCHED_RUNTIME = 0, OMP_SCHED_STATIC = 1, OMP_SCHED_DYNAMIC = 2,
       OMP_SCHED_GUIDED = 3, OMP_SCHED_AUTO = 4 };
#define OMP_SCHED_MONOTONIC 0x80000000u

/* Internal control variables carried by each task (OpenMP's data
 * environment). */
typedef struct omp_icv {
    int nthreads;            /* nthreads-var of the next level */
    int nest_pos;            /* position in OMP_NUM_THREADS's list */
    bool dynamic;
    int max_active_levels;
    int sched, chunk;        /* run-sched-var */
    int thread_limit;
    uintptr_t def_allocator;        /* def-allocator-var (alloc.c) */
    int nteams, teams_thread_limit; /* 0: not set (host teams) */
} omp_icv;

typedef struct omp_ws {
    _Atomic unsigned long seq;      /* construct number it serves now */
    _Atomic unsigned arrived;       /* threads that claimed it */
    _Atomic unsigned left;          /* threads done with it */
    _Atomic int ready;              /* the first thread filled the fields */
    int sched;
    unsigned long long n, chunk;    /* iterations (sections: their count) */
    unsigned long long start, incr;
    _Atomic unsigned long long next;      /* next free iteration index */
    _Atomic unsigned long long ord_next;  /* first iteration whose ordered
                                           * regions may run */
    _Atomic uint32_t ord_gen;       /* bumped when ord_next moves */
    void *copyprivate;
    void *mem;                      /* GOMP_loop_start's team buffer */
    _Atomic int cancelled;          /* cancel for / sections */
    struct omp_doacross *doacross;  /* ordered(n) loops (loop.c) */
    struct omp_wsred *wsred;        /* reduction(task, ...): the team's
                                     * copies (task.c) */
} __attribute__((aligned(64))) omp_ws;

typedef struct omp_thr omp_thr;
typedef struct omp_taskgroup omp_taskgroup;

typedef struct omp_team {
    unsigned nthreads;
    void (*fn)(void *);
    void *data;
    /* Counters that are also the words waited on: whoever takes one to 0
     * then only unparks by its address, never touching the memory again
     * (the waiter may free it at once). */
    _Atomic int cancelled;          /* cancel parallel */
    _Atomic uint32_t live;          /* threads other than 0 still running */
    _Atomic uint32_t tasks;         /* explicit tasks not finished */
    struct omp_thr_slot *thr;       /* nthreads of them */
    struct omp_bar_flags *bar;      /* and their barrier flags */
    omp_taskgroup *taskgroup;       /* parallel reduction(task): its threads' */
    omp_ws ws[OMP_WS_SLOTS];
} omp_team;

/* Children counter of a task region (implicit or explicit), for taskwait. */
typedef struct omp_children {
    _Atomic uint32_t count;         /* also the word waited on */
} omp_children;

struct omp_taskgroup {
    omp_children c;
    _Atomic int cancelled;          /* cancel taskgroup */
    omp_taskgroup *prev;
    uintptr_t *reductions;          /* task_reduction descriptors (task.c) */
    struct omp_wsred *wsred;        /* the implicit group of a worksharing
                                     * construct with reduction(task, ...) */
};

typedef struct omp_rank omp_rank;

struct omp_thr {
    omp_team *team;
    omp_rank *rank;                 /* the rank's critical/atomic locks */
    unsigned num;
    int level, active_level;
    omp_thr *up;                    /* encountering thread one level up */
    omp_icv icv;
    /* worksharing */
    unsigned long ws_seq;
    omp_ws *ws;
    unsigned long long trip;        /* static schedule: chunks taken */
    unsigned long long ord_i0, ord_i1;
    bool ord_held;                  /* holds [ord_i0, ord_i1) for ordered */
    /* tasks */
    bool final;
    unsigned team_num, num_teams;   /* host teams (GOMP_teams_reg) */
    bool initial;                   /* owned by the ULT key (team.c) */
    struct omp_pool *pool;          /* an initial thread's idle threads */
    omp_children children;
    omp_taskgroup *taskgroup;
    omp_taskgroup *outer_group;     /* the creator's, for task reductions */
    struct omp_deps *deps;          /* dependences among its children */
    /* The team of its last parallel region, kept for the next one (team.c):
     * a region is mostly its team's allocation and release otherwise. */
    omp_team *spare_team;
    size_t spare_size;
    uint32_t bar_epoch;             /* its team's barriers passed (team.c) */
};

/* A team's thread states, each on lines of its own (every thread writes
 * its own as it runs: its barrier count, its worksharing sequence).
 * Padded, not aligned: tasks embed omp_thr in blocks of malloc's
 * alignment. */
typedef struct omp_thr_slot {
    omp_thr thr;
    char pad[64 - sizeof(omp_thr) % 64];
} omp_thr_slot;

/* What a thread signals in each round of its team's barrier (team.c), on
 * lines of its own: one writer, read by the thread 2^k places after it. */
typedef struct omp_bar_flags {
    _Atomic uint32_t flag[OMP_BAR_ROUNDS];
} __attribute__((aligned(64))) omp_bar_flags;

/* park.c */
void myr_omp_park(_Atomic uint32_t *word, uint32_t seen);
void myr_omp_unpark(_Atomic uint32_t *word, bool all);
/* Wait until *word != seen, spinning a little first. */
void myr_omp_wait_change(_Atomic uint32_t *word, uint32_t seen);
/* Lock words (0 free, 1 held, 2 held with waiters). */
void myr_omp_mutex_lock(_Atomic uint32_t *m);
void myr_omp_mutex_unlock(_Atomic uint32_t *m);
bool myr_omp_mutex_trylock(_Atomic uint32_t *m);

/* lock.c: the locks of unnamed and named critical sections and of atomic
 * fallbacks are per rank (an MPI rank is a program of its own). */
omp_rank *myr_omp_rank_of(void *inherited);

/* team.c */
omp_thr *myr_omp_thr(void);
extern bool myr_omp_cancellation;   /* OMP_CANCELLATION */
/* Whether the task bound to `t` is cancelled: its parallel region, or one
 * of the taskgroups it is in. */
bool myr_omp_task_cancelled(const omp_thr *t);
bool GOMP_barrier_cancel(void);
void myr_omp_barrier(omp_thr *t);
_Noreturn void myr_omp_unsupported(const char *what);
void myr_omp_icv_defaults(omp_icv *icv);
/* Run a region; `prep` (may be NULL) runs once the team's size is known,
 * before its threads start: it returns true when it filled worksharing
 * slot 0 (the combined parallel loop/sections entry points). */
void myr_omp_parallel(void (*fn)(void *), void *data, unsigned nthreads,
                      bool (*prep)(omp_team *, void *), void *prep_arg);
int myr_omp_default_threads(void);

/* loop.c */
void myr_omp_ws_prefill(omp_team *team, int sched, unsigned long long n,
                        unsigned long long start, unsigned long long incr,
                        unsigned long long chunk);

void myr_omp_set_thr(omp_thr *t);
/* Wait until the counter *c is 0. */
void myr_omp_wait_zero(_Atomic uint32_t *c);
/* Take one from the counter; the one that makes it 0 wakes its waiters. */
void myr_omp_count_done(_Atomic uint32_t *c);

/* task.c */
void myr_omp_deps_clear(omp_thr *t);
/* Allocate `nthreads` copies for gcc's task_reduction descriptors `data`,
 * chained to `outer` (the enclosing ones, or NULL). */
void myr_omp_reductions_alloc(uintptr_t *data, unsigned nthreads, uintptr_t *outer);
/* reduction(task, ...) on for/sections/scope: the first thread of the
 * team to reach the construct registers `data` (allocates the team's
 * copies), the others attach their own descriptors to those copies; each
 * opens an implicit taskgroup that GOMP_workshare_task_reduction_unregister
 * closes. */
struct omp_wsred *myr_omp_wsred_register(omp_thr *t, uintptr_t *data);
void myr_omp_wsred_attach(omp_thr *t, uintptr_t *data, struct omp_wsred *r);
void myr_omp_tasks_wait_team(omp_team *team);
void myr_omp_taskwait(omp_thr *t);

#endif /* MYR_OMP_IMPL_H */
