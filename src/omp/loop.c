/*
 * loop.c — worksharing: loops (every schedule, ordered), sections, single,
 * scope; their task reductions are task.c's.
 *
 * Slots (omp_impl.h): the first thread to claim construct k fills its slot
 * and sets `ready`; the others wait for `ready` (a few instructions). The
 * last thread to leave makes the slot free for construct k + OMP_WS_SLOTS.
 * Waiting for a slot or for `ready` yields the ULT: it lasts as long as a
 * thread needs to fill a slot, or to leave a construct OMP_WS_SLOTS behind.
 *
 * Doacross (ordered(n), depend(sink/source)): see the section at the end.
 *
 * Ordered: chunks of a loop tile [0, n) in the order they are handed out;
 * ord_next is the first iteration whose ordered regions may run. A thread
 * runs the ordered regions of its chunk [i0, i1) once ord_next == i0, and
 * when it asks for its next chunk (or finds none) it waits for its turn and
 * moves ord_next to i1. Chunks are handed out in increasing order, so the
 * wait only ever depends on threads holding earlier chunks.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "omp/omp_impl.h"

typedef unsigned long long ull;

static void spin_until_ready(omp_ws *ws)
{
    for (int i = 0; !atomic_load_explicit(&ws->ready, memory_order_acquire); i++)
        if (i > OMP_SPIN)
            myr_ult_yield();
        else
            myr_cpu_relax();
}

/* Claim the thread's next construct; true for the first thread, which
 * fills the slot and then calls ws_publish. */
static bool ws_begin(omp_thr *t)
{
    unsigned long k = t->ws_seq++;
    omp_ws *ws = &t->team->ws[k % OMP_WS_SLOTS];
    for (int i = 0; atomic_load_explicit(&ws->seq, memory_order_acquire) != k; i++)
        if (i > OMP_SPIN)
            myr_ult_yield();
        else
            myr_cpu_relax();
    t->ws = ws;
    t->trip = 0;
    t->ord_held = false;
    return atomic_fetch_add_explicit(&ws->arrived, 1, memory_order_acq_rel) == 0;
}

static void ws_publish(omp_ws *ws)
{
    atomic_store_explicit(&ws->ready, 1, memory_order_release);
}

static void ws_end(omp_thr *t)
{
    omp_ws *ws = t->ws;
    if (!ws)
        return;
    t->ws = NULL;
    unsigned n = t->team->nthreads;
    if (atomic_fetch_add_explicit(&ws->left, 1, memory_order_acq_rel) == n - 1) {
        unsigned long k = atomic_load_explicit(&ws->seq, memory_order_relaxed);
        free(ws->mem);
        ws->mem = NULL;
        free(ws->doacross);
        ws->doacross = NULL;
        ws->copyprivate = NULL;
        ws->wsred = NULL;  /* its threads free it (task.c) */
        atomic_store_explicit(&ws->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->ready, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->cancelled, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->seq, k + OMP_WS_SLOTS, memory_order_release);
    }
}

/* Iterations of a loop from start while < end (up) or > end (down). */
static ull trip_count(bool up, ull start, ull end, ull incr, bool is_signed)
{
    if (is_signed) {
        long long s = (long long)start, e = (long long)end, i = (long long)incr;
        if (i > 0)
            return s < e ? ((ull)e - (ull)s + (ull)i - 1) / (ull)i : 0;
        return s > e ? ((ull)s - (ull)e + (ull)(-i) - 1) / (ull)(-i) : 0;
    }
    if (up)
        return start < end ? (end - start + incr - 1) / incr : 0;
    ull step = -incr;
    return start > end ? (start - end + step - 1) / step : 0;
}

static int resolve_sched(omp_thr *t, int sched, ull *chunk)
{
    sched &= ~OMP_SCHED_MONOTONIC;
    if (sched == OMP_SCHED_RUNTIME) {
        sched = t->icv.sched & ~OMP_SCHED_MONOTONIC;
        *chunk = t->icv.chunk > 0 ? (ull)t->icv.chunk : 0;
        if (sched != OMP_SCHED_STATIC && *chunk == 0)
            *chunk = 1;
    }
    if (sched == OMP_SCHED_AUTO)
        sched = OMP_SCHED_STATIC, *chunk = 0;
    if (sched != OMP_SCHED_STATIC && *chunk == 0)
        *chunk = 1;
    return sched;
}

static void ws_fill(omp_ws *ws, int sched, ull n, ull start, ull incr, ull chunk)
{
    ws->sched = sched;
    ws->n = n;
    ws->start = start;
    ws->incr = incr;
    ws->chunk = chunk;
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->ord_next, 0, memory_order_relaxed);
}

void myr_omp_ws_prefill(omp_team *team, int sched, ull n, ull start, ull incr,
                        ull chunk)
{
    omp_ws *ws = &team->ws[0];
    ws_fill(ws, sched, n, start, incr, chunk);
    atomic_store_explicit(&ws->arrived, team->nthreads, memory_order_relaxed);
    atomic_store_explicit(&ws->ready, 1, memory_order_relaxed);
}

/* Hand the next range of ordered iterations to the chunk after ours. */
static void ordered_release(omp_thr *t)
{
    if (!t->ord_held)
        return;
    omp_ws *ws = t->ws;
    t->ord_held = false;
    for (;;) {
        uint32_t g = atomic_load_explicit(&ws->ord_gen, memory_order_acquire);
        if (atomic_load_explicit(&ws->ord_next, memory_order_acquire) == t->ord_i0)
            break;
        myr_omp_wait_change(&ws->ord_gen, g);
    }
    atomic_store_explicit(&ws->ord_next, t->ord_i1, memory_order_release);
    atomic_fetch_add_explicit(&ws->ord_gen, 1, memory_order_release);
    myr_omp_unpark(&ws->ord_gen, true);
}

/* The next chunk [*i0, *i1) of the thread's current loop. */
static bool next_chunk(omp_thr *t, ull *i0, ull *i1, bool ordered)
{
    omp_ws *ws = t->ws;
    if (ordered)
        ordered_release(t);
    if (atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
        return false;  /* cancel for / sections: no more chunks */
    ull n = ws->n, c = ws->chunk;
    unsigned nth = t->team->nthreads;
    switch (ws->sched) {
    case OMP_SCHED_STATIC:
        if (c == 0) {  /* one block per thread */
            if (t->trip++)
                return false;
            ull q = n / nth, r = n % nth;
            *i0 = t->num * q + (t->num < r ? t->num : r);
            *i1 = *i0 + q + (t->num < r);
        } else {
            ull k = t->trip++ * nth + t->num;
            if (k >= (n + c - 1) / c)
                return false;
            *i0 = k * c;
            *i1 = n - *i0 < c ? n : *i0 + c;
        }
        if (*i0 >= *i1)
            return false;
        break;
    case OMP_SCHED_DYNAMIC: {
        ull cur = atomic_load_explicit(&ws->next, memory_order_relaxed);
        do {
            if (cur >= n)
                return false;
            *i1 = n - cur < c ? n : cur + c;
        } while (!atomic_compare_exchange_weak_explicit(&ws->next, &cur, *i1,
                     memory_order_relaxed, memory_order_relaxed));
        *i0 = cur;
        break;
    }
    default: {  /* guided: the remaining iterations over the threads */
        ull cur = atomic_load_explicit(&ws->next, memory_order_relaxed);
        do {
            if (cur >= n)
                return false;
            ull rem = n - cur, q = (rem + nth - 1) / nth;
            if (q < c)
                q = c;
            *i1 = q >= rem ? n : cur + q;
        } while (!atomic_compare_exchange_weak_explicit(&ws->next, &cur, *i1,
                     memory_order_relaxed, memory_order_relaxed));
        *i0 = cur;
        break;
    }
    }
    if (ordered) {
        t->ord_i0 = *i0;
        t->ord_i1 = *i1;
        t->ord_held = true;
    }
    return true;
}

static bool next_long(omp_thr *t, long *istart, long *iend, bool ordered)
{
    ull i0, i1;
    if (!t->ws || !next_chunk(t, &i0, &i1, ordered))
        return false;
    *istart = (long)(t->ws->start + i0 * t->ws->incr);
    *iend = (long)(t->ws->start + i1 * t->ws->incr);
    return true;
}

static bool next_ull(omp_thr *t, ull *istart, ull *iend, bool ordered)
{
    ull i0, i1;
    if (!t->ws || !next_chunk(t, &i0, &i1, ordered))
        return false;
    *istart = t->ws->start + i0 * t->ws->incr;
    *iend = t->ws->start + i1 * t->ws->incr;
    return true;
}

/* reduction(task, ...) on the construct (`reductions` non-NULL): the
 * first thread registers the team's copies before it publishes the slot,
 * the others attach to them (task.c). */
static void ws_reductions(omp_thr *t, uintptr_t *reductions, bool first)
{
    if (!reductions)
        return;
    if (first)
        t->ws->wsred = myr_omp_wsred_register(t, reductions);
    else
        myr_omp_wsred_attach(t, reductions, t->ws->wsred);
}

static void loop_begin(omp_thr *t, int sched, ull n, ull start, ull incr,
                       ull chunk, void **mem, uintptr_t *reductions)
{
    if (ws_begin(t)) {
        ws_fill(t->ws, sched, n, start, incr, chunk);
        if (mem) {  /* a team-wide buffer of *mem bytes (lastprivate
                     * conditional, scan) */
            size_t size = (size_t)(uintptr_t)*mem;
            t->ws->mem = calloc(1, size ? size : 1);
            if (!t->ws->mem)
                myr_omp_unsupported("a loop's team buffer (out of memory)");
        }
        ws_reductions(t, reductions, true);
        ws_publish(t->ws);
    } else {
        spin_until_ready(t->ws);
        ws_reductions(t, reductions, false);
    }
    if (mem)
        *mem = t->ws->mem;
}

static bool start_long(int sched, long start, long end, long incr, long chunk,
                       long *istart, long *iend, bool ordered, void **mem)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk > 0 ? (ull)chunk : 0;
    sched = resolve_sched(t, sched, &c);
    loop_begin(t, sched, trip_count(true, (ull)start, (ull)end, (ull)incr, true),
               (ull)start, (ull)incr, c, mem, NULL);
    return next_long(t, istart, iend, ordered);
}

static bool start_ull(int sched, bool up, ull start, ull end, ull incr, ull chunk,
                      ull *istart, ull *iend, bool ordered, void **mem)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk;
    sched = resolve_sched(t, sched, &c);
    loop_begin(t, sched, trip_count(up, start, end, incr, false), start, incr,
               c, mem, NULL);
    return next_ull(t, istart, iend, ordered);
}

/* ---- long loops ------------------------------------------------------ */

#define LOOP_KIND(name, kind)                                                 \
    bool GOMP_loop_##name##_start(long start, long end, long incr, long chunk,\
                                  long *istart, long *iend)                   \
    {                                                                         \
        return start_long(kind, start, end, incr, chunk, istart, iend,        \
                          false, NULL);                                       \
    }                                                                         \
    bool GOMP_loop_##name##_next(long *istart, long *iend)                    \
    {                                                                         \
        return next_long(myr_omp_thr(), istart, iend, false);                 \
    }                                                                         \
    bool GOMP_loop_ordered_##name##_start(long start, long end, long incr,    \
                                          long chunk, long *istart,           \
                                          long *iend)                         \
    {                                                                         \
        return start_long(kind, start, end, incr, chunk, istart, iend,        \
                          true, NULL);                                        \
    }                                                                         \
    bool GOMP_loop_ordered_##name##_next(long *istart, long *iend)            \
    {                                                                         \
        return next_long(myr_omp_thr(), istart, iend, true);                  \
    }

LOOP_KIND(static, OMP_SCHED_STATIC)
LOOP_KIND(dynamic, OMP_SCHED_DYNAMIC)
LOOP_KIND(guided, OMP_SCHED_GUIDED)

bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr,
                                          long chunk, long *istart, long *iend)
{
    return start_long(OMP_SCHED_DYNAMIC, start, end, incr, chunk, istart, iend,
                      false, NULL);
}
bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend)
{
    return next_long(myr_omp_thr(), istart, iend, false);
}
bool GOMP_loop_nonmonotonic_guided_start(long start, long end, long incr,
                                         long chunk, long *istart, long *iend)
{
    return start_long(OMP_SCHED_GUIDED, start, end, incr, chunk, istart, iend,
                      false, NULL);
}
bool GOMP_loop_nonmonotonic_guided_next(long *istart, long *iend)
{
    return next_long(myr_omp_thr(), istart, iend, false);
}

#define LOOP_RUNTIME(prefix, ordered)                                         \
    bool GOMP_loop_##prefix##runtime_start(long start, long end, long incr,   \
                                           long *istart, long *iend)          \
    {                                                                         \
        return start_long(OMP_SCHED_RUNTIME, start, end, incr, 0, istart,     \
                          iend, ordered, NULL);                               \
    }                                                                         \
    bool GOMP_loop_##prefix##runtime_next(long *istart, long *iend)           \
    {                                                                         \
        return next_long(myr_omp_thr(), istart, iend, ordered);               \
    }

LOOP_RUNTIME(, false)
LOOP_RUNTIME(ordered_, true)
LOOP_RUNTIME(nonmonotonic_, false)
LOOP_RUNTIME(maybe_nonmonotonic_, false)

bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                     long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    /* gcc calls it with istart == NULL to only open the construct (a loop
     * with no iterations to hand out yet, e.g. under lastprivate
     * conditional); the thread then calls a _next entry point. */
    omp_thr *t = myr_omp_thr();
    ull c = chunk > 0 ? (ull)chunk : 0;
    int s = resolve_sched(t, (int)sched, &c);
    loop_begin(t, s, trip_count(true, (ull)start, (ull)end, (ull)incr, true),
               (ull)start, (ull)incr, c, mem, reductions);
    return istart ? next_long(t, istart, iend, false) : false;
}

bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
                             long chunk, long *istart, long *iend,
                             uintptr_t *reductions, void **mem)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk > 0 ? (ull)chunk : 0;
    int s = resolve_sched(t, (int)sched, &c);
    loop_begin(t, s, trip_count(true, (ull)start, (ull)end, (ull)incr, true),
               (ull)start, (ull)incr, c, mem, reductions);
    return istart ? next_long(t, istart, iend, true) : false;
}

/* ---- unsigned long long loops --------------------------------------- */

#define ULL_KIND(name, kind)                                                  \
    bool GOMP_loop_ull_##name##_start(bool up, ull start, ull end, ull incr,  \
                                      ull chunk, ull *istart, ull *iend)      \
    {                                                                         \
        return start_ull(kind, up, start, end, incr, chunk, istart, iend,     \
                         false, NULL);                                        \
    }                                                                         \
    bool GOMP_loop_ull_##name##_next(ull *istart, ull *iend)                  \
    {                                                                         \
        return next_ull(myr_omp_thr(), istart, iend, false);                  \
    }                                                                         \
    bool GOMP_loop_ull_ordered_##name##_start(bool up, ull start, ull end,    \
                                              ull incr, ull chunk,            \
                                              ull *istart, ull *iend)         \
    {                                                                         \
        return start_ull(kind, up, start, end, incr, chunk, istart, iend,     \
                         true, NULL);                                         \
    }                                                                         \
    bool GOMP_loop_ull_ordered_##name##_next(ull *istart, ull *iend)          \
    {                                                                         \
        return next_ull(myr_omp_thr(), istart, iend, true);                   \
    }

ULL_KIND(static, OMP_SCHED_STATIC)
ULL_KIND(dynamic, OMP_SCHED_DYNAMIC)
ULL_KIND(guided, OMP_SCHED_GUIDED)
ULL_KIND(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC)
ULL_KIND(nonmonotonic_guided, OMP_SCHED_GUIDED)

#define ULL_RUNTIME(prefix, ordered)                                          \
    bool GOMP_loop_ull_##prefix##runtime_start(bool up, ull start, ull end,   \
                                               ull incr, ull *istart,         \
                                               ull *iend)                     \
    {                                                                         \
        return start_ull(OMP_SCHED_RUNTIME, up, start, end, incr, 0, istart,  \
                         iend, ordered, NULL);                                \
    }                                                                         \
    bool GOMP_loop_ull_##prefix##runtime_next(ull *istart, ull *iend)         \
    {                                                                         \
        return next_ull(myr_omp_thr(), istart, iend, ordered);                \
    }

ULL_RUNTIME(, false)
ULL_RUNTIME(ordered_, true)
ULL_RUNTIME(nonmonotonic_, false)
ULL_RUNTIME(maybe_nonmonotonic_, false)

bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched,
                         ull chunk, ull *istart, ull *iend,
                         uintptr_t *reductions, void **mem)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk;
    int s = resolve_sched(t, (int)sched, &c);
    loop_begin(t, s, trip_count(up, start, end, incr, false), start, incr, c,
               mem, reductions);
    return istart ? next_ull(t, istart, iend, false) : false;
}

bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr,
                                 long sched, ull chunk, ull *istart, ull *iend,
                                 uintptr_t *reductions, void **mem)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk;
    int s = resolve_sched(t, (int)sched, &c);
    loop_begin(t, s, trip_count(up, start, end, incr, false), start, incr, c,
               mem, reductions);
    return istart ? next_ull(t, istart, iend, true) : false;
}

/* ---- end of a loop, ordered ----------------------------------------- */

void GOMP_loop_end(void)
{
    omp_thr *t = myr_omp_thr();
    ws_end(t);
    myr_omp_barrier(t);
}

bool GOMP_loop_end_cancel(void)
{
    ws_end(myr_omp_thr());
    return GOMP_barrier_cancel();
}

void GOMP_loop_end_nowait(void)
{
    ws_end(myr_omp_thr());
}

void GOMP_ordered_start(void)
{
    omp_thr *t = myr_omp_thr();
    omp_ws *ws = t->ws;
    if (!ws || !t->ord_held)
        return;  /* an orphaned ordered, or outside a loop: alone, in order */
    for (;;) {
        uint32_t g = atomic_load_explicit(&ws->ord_gen, memory_order_acquire);
        if (atomic_load_explicit(&ws->ord_next, memory_order_acquire) == t->ord_i0)
            return;
        myr_omp_wait_change(&ws->ord_gen, g);
    }
}

void GOMP_ordered_end(void)
{
    /* The chunk's turn ends when the thread asks for its next chunk. */
}

/* ---- combined parallel loops ---------------------------------------- */

typedef struct prep_loop {
    int sched;
    ull n, start, incr, chunk;
} prep_loop;

static bool prep_loop_fn(omp_team *team, void *arg)
{
    prep_loop *p = arg;
    myr_omp_ws_prefill(team, p->sched, p->n, p->start, p->incr, p->chunk);
    return true;
}

static void parallel_loop(void (*fn)(void *), void *data, unsigned nthreads,
                          long start, long end, long incr, long chunk, int sched)
{
    omp_thr *t = myr_omp_thr();
    ull c = chunk > 0 ? (ull)chunk : 0;
    prep_loop p = { resolve_sched(t, sched, &c),
                    trip_count(true, (ull)start, (ull)end, (ull)incr, true),
                    (ull)start, (ull)incr, c };
    p.chunk = c;
    myr_omp_parallel(fn, data, nthreads, prep_loop_fn, &p);
}

#define PARALLEL_LOOP(name, kind)                                             \
    void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,            \
                                   unsigned nthreads, long start, long end,   \
                                   long incr, long chunk, unsigned flags)     \
    {                                                                         \
        (void)flags;                                                          \
        parallel_loop(fn, data, nthreads, start, end, incr, chunk, kind);     \
    }

PARALLEL_LOOP(static, OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, OMP_SCHED_GUIDED)

#define PARALLEL_LOOP_RUNTIME(name)                                           \
    void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,            \
                                   unsigned nthreads, long start, long end,   \
                                   long incr, unsigned flags)                 \
    {                                                                         \
        (void)flags;                                                          \
        parallel_loop(fn, data, nthreads, start, end, incr, 0,                \
                      OMP_SCHED_RUNTIME);                                     \
    }

PARALLEL_LOOP_RUNTIME(runtime)
PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

/* ---- sections -------------------------------------------------------- */

static unsigned sections_next(omp_thr *t)
{
    ull i0, i1;
    if (!t->ws || !next_chunk(t, &i0, &i1, false))
        return 0;
    return (unsigned)i0 + 1;
}

unsigned GOMP_sections_start(unsigned count)
{
    omp_thr *t = myr_omp_thr();
    loop_begin(t, OMP_SCHED_DYNAMIC, count, 0, 1, 1, NULL, NULL);
    return sections_next(t);
}

unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    omp_thr *t = myr_omp_thr();
    loop_begin(t, OMP_SCHED_DYNAMIC, count, 0, 1, 1, mem, reductions);
    return sections_next(t);
}

unsigned GOMP_sections_next(void)
{
    return sections_next(myr_omp_thr());
}

void GOMP_sections_end(void)
{
    GOMP_loop_end();
}

bool GOMP_sections_end_cancel(void)
{
    return GOMP_loop_end_cancel();
}

void GOMP_sections_end_nowait(void)
{
    GOMP_loop_end_nowait();
}

void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads,
                            unsigned count, unsigned flags)
{
    (void)flags;
    prep_loop p = { OMP_SCHED_DYNAMIC, count, 0, 1, 1 };
    myr_omp_parallel(fn, data, nthreads, prep_loop_fn, &p);
}

/* ---- scope ----------------------------------------------------------- */

/* Its barrier is GOMP_barrier; only reduction(task, ...) comes here: the
 * team's copies go through a worksharing slot, left at once. */
void GOMP_scope_start(uintptr_t *reductions)
{
    if (!reductions)
        return;
    omp_thr *t = myr_omp_thr();
    bool first = ws_begin(t);
    if (!first)
        spin_until_ready(t->ws);
    ws_reductions(t, reductions, first);
    if (first)
        ws_publish(t->ws);
    ws_end(t);
}

/* ---- single ---------------------------------------------------------- */

bool GOMP_single_start(void)
{
    omp_thr *t = myr_omp_thr();
    bool first = ws_begin(t);
    ws_end(t);  /* nothing to share: leave at once */
    return first;
}

void *GOMP_single_copy_start(void)
{
    omp_thr *t = myr_omp_thr();
    if (ws_begin(t))
        return NULL;  /* runs the block, then GOMP_single_copy_end */
    myr_omp_barrier(t);  /* the winner published its data */
    void *data = t->ws->copyprivate;
    ws_end(t);
    return data;
}

void GOMP_single_copy_end(void *data)
{
    omp_thr *t = myr_omp_thr();
    t->ws->copyprivate = data;
    myr_omp_barrier(t);
    ws_end(t);
}

/* ---- doacross loops ---------------------------------------------------
 *
 * gcc hands out the outermost of the ordered(n) loops as a loop of
 * iterations [0, counts[0]) (through the usual _next entry points) and
 * names an iteration by its vector of 0-based logical indices. Iterations
 * run in lexicographic order within one *owner*: a thread (static
 * schedules), a chunk (dynamic), an outer iteration (guided). Each owner
 * has one word: 1 + the lexicographic rank of the last iteration it
 * posted (depend(source)); depend(sink: v) waits until v's owner's word
 * passes v's rank. A waiter parks on `gen` after announcing itself in
 * `waiters` (both sides seq_cst: the poster either sees the waiter and
 * bumps gen, or the waiter sees the post). Each side also puts a full
 * fence between its write and its read: C11 does not need it, but qemu-user
 * runs aarch64's store-release then load-acquire on an x86 host without a
 * store-load fence between them, and lost a wake-up there (a sink parked
 * for good, 64 ranks of 5 threads under load).
 */
typedef struct omp_doacross {
    unsigned ncounts;
    int sched;
    ull chunk, n0;
    ull q, r;                       /* static without chunk: the blocks */
    _Atomic uint32_t gen;
    _Atomic uint32_t waiters;
    ull *radix;                     /* lexicographic rank = sum v[i] * radix[i] */
    _Atomic ull posted[];           /* per owner, then radix[ncounts] */
} omp_doacross;

static ull owner_of(const omp_doacross *d, unsigned nthreads, ull first)
{
    switch (d->sched) {
    case OMP_SCHED_STATIC:
        if (d->chunk == 0)
            return first < d->r * (d->q + 1) ? first / (d->q + 1)
                 : d->r + (first - d->r * (d->q + 1)) / d->q;
        return first / d->chunk % nthreads;
    case OMP_SCHED_DYNAMIC:
        return first / d->chunk;
    default:
        return first;
    }
}

static void doacross_begin(omp_thr *t, unsigned ncounts, const ull *counts,
                           int sched, ull chunk, void **mem,
                           uintptr_t *reductions)
{
    sched = resolve_sched(t, sched, &chunk);
    bool first = ws_begin(t);
    omp_ws *ws = t->ws;
    if (!first) {
        spin_until_ready(ws);
        ws_reductions(t, reductions, false);
        if (mem)
            *mem = ws->mem;
        return;
    }
    ws_fill(ws, sched, counts[0], 0, 1, chunk);
    unsigned nth = t->team->nthreads;
    ull owners = sched == OMP_SCHED_STATIC ? nth
               : sched == OMP_SCHED_DYNAMIC ? (counts[0] + chunk - 1) / chunk
               : counts[0];
    if (!owners)
        owners = 1;
    omp_doacross *d = calloc(1, sizeof *d + (owners + ncounts) * sizeof(ull));
    if (!d)
        myr_omp_unsupported("a doacross loop beyond the memory available");
    d->radix = (ull *)&d->posted[owners];
    d->ncounts = ncounts;
    d->sched = sched;
    d->chunk = chunk;
    d->n0 = counts[0];
    d->q = counts[0] / nth;
    d->r = counts[0] % nth;
    /* With no iteration (counts[0] == 0) gcc leaves the inner counts
     * unset: nothing is posted or waited for, and the ranks stay 0. */
    ull radix = 1;
    for (unsigned i = counts[0] ? ncounts : 0; i-- > 0;) {
        d->radix[i] = radix;
        if (counts[i] && radix > ~0ull / counts[i])
            myr_omp_unsupported("doacross loops of more than 2^64 iterations");
        radix *= counts[i] ? counts[i] : 1;
    }
    ws->doacross = d;
    if (mem) {
        size_t size = (size_t)(uintptr_t)*mem;
        ws->mem = calloc(1, size ? size : 1);
        if (!ws->mem)
            myr_omp_unsupported("a loop's team buffer (out of memory)");
    }
    ws_reductions(t, reductions, true);
    ws_publish(ws);
    if (mem)
        *mem = ws->mem;
}

static void doacross_post(const ull *v)
{
    omp_thr *t = myr_omp_thr();
    omp_doacross *d = t->ws ? t->ws->doacross : NULL;
    if (!d)
        return;
    ull rank = 0;
    for (unsigned i = 0; i < d->ncounts; i++)
        rank += v[i] * d->radix[i];
    atomic_store(&d->posted[owner_of(d, t->team->nthreads, v[0])], rank + 1);
    atomic_thread_fence(memory_order_seq_cst);  /* see the comment above */
    if (atomic_load(&d->waiters)) {
        atomic_fetch_add(&d->gen, 1);
        myr_omp_unpark(&d->gen, true);
    }
}

static void doacross_wait(const ull *v)
{
    omp_thr *t = myr_omp_thr();
    omp_doacross *d = t->ws ? t->ws->doacross : NULL;
    if (!d || v[0] >= d->n0)
        return;
    ull rank = 0;
    for (unsigned i = 0; i < d->ncounts; i++)
        rank += v[i] * d->radix[i];
    _Atomic ull *word = &d->posted[owner_of(d, t->team->nthreads, v[0])];
    for (int i = 0; i < OMP_SPIN; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) > rank)
            return;
        myr_cpu_relax();
    }
    for (;;) {
        uint32_t g = atomic_load(&d->gen);
        atomic_fetch_add(&d->waiters, 1);
        atomic_thread_fence(memory_order_seq_cst);
        bool done = atomic_load(word) > rank;
        if (!done)
            myr_omp_park(&d->gen, g);
        atomic_fetch_sub(&d->waiters, 1);
        if (done || atomic_load(word) > rank)
            return;
    }
}

static bool doacross_start_long(unsigned ncounts, long *counts, int sched,
                                long chunk, long *istart, long *iend, void **mem,
                                uintptr_t *reductions)
{
    ull c[ncounts ? ncounts : 1];
    for (unsigned i = 0; i < ncounts; i++)
        c[i] = counts[i] > 0 ? (ull)counts[i] : 0;
    omp_thr *t = myr_omp_thr();
    doacross_begin(t, ncounts, c, sched, chunk > 0 ? (ull)chunk : 0, mem,
                   reductions);
    return istart ? next_long(t, istart, iend, false) : false;
}

static bool doacross_start_ull(unsigned ncounts, ull *counts, int sched,
                               ull chunk, ull *istart, ull *iend, void **mem,
                               uintptr_t *reductions)
{
    omp_thr *t = myr_omp_thr();
    doacross_begin(t, ncounts, counts, sched, chunk, mem, reductions);
    return istart ? next_ull(t, istart, iend, false) : false;
}

#define DOACROSS_KIND(name, kind)                                             \
    bool GOMP_loop_doacross_##name##_start(unsigned ncounts, long *counts,    \
                                           long chunk, long *istart,          \
                                           long *iend)                        \
    {                                                                         \
        return doacross_start_long(ncounts, counts, kind, chunk, istart,      \
                                   iend, NULL, NULL);                         \
    }                                                                         \
    bool GOMP_loop_ull_doacross_##name##_start(unsigned ncounts, ull *counts, \
                                               ull chunk, ull *istart,        \
                                               ull *iend)                     \
    {                                                                         \
        return doacross_start_ull(ncounts, counts, kind, chunk, istart, iend, \
                                  NULL, NULL);                                \
    }

DOACROSS_KIND(static, OMP_SCHED_STATIC)
DOACROSS_KIND(dynamic, OMP_SCHED_DYNAMIC)
DOACROSS_KIND(guided, OMP_SCHED_GUIDED)

bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts,
                                      long *istart, long *iend)
{
    return doacross_start_long(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart,
                               iend, NULL, NULL);
}

bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull *counts,
                                          ull *istart, ull *iend)
{
    return doacross_start_ull(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart,
                              iend, NULL, NULL);
}

bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched,
                              long chunk, long *istart, long *iend,
                              uintptr_t *reductions, void **mem)
{
    return doacross_start_long(ncounts, counts, (int)sched, chunk, istart,
                               iend, mem, reductions);
}

bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull *counts, long sched,
                                  ull chunk, ull *istart, ull *iend,
                                  uintptr_t *reductions, void **mem)
{
    return doacross_start_ull(ncounts, counts, (int)sched, chunk, istart, iend,
                              mem, reductions);
}

void GOMP_doacross_post(long *counts)
{
    omp_thr *t = myr_omp_thr();
    omp_doacross *d = t->ws ? t->ws->doacross : NULL;
    if (!d)
        return;
    ull v[d->ncounts];
    for (unsigned i = 0; i < d->ncounts; i++)
        v[i] = (ull)counts[i];
    doacross_post(v);
}

void GOMP_doacross_ull_post(ull *counts)
{
    doacross_post(counts);
}

void GOMP_doacross_wait(long first, ...)
{
    omp_thr *t = myr_omp_thr();
    omp_doacross *d = t->ws ? t->ws->doacross : NULL;
    if (!d)
        return;
    ull v[d->ncounts];
    v[0] = (ull)first;
    va_list ap;
    va_start(ap, first);
    for (unsigned i = 1; i < d->ncounts; i++)
        v[i] = (ull)va_arg(ap, long);
    va_end(ap);
    doacross_wait(v);
}

void GOMP_doacross_ull_wait(ull first, ...)
{
    omp_thr *t = myr_omp_thr();
    omp_doacross *d = t->ws ? t->ws->doacross : NULL;
    if (!d)
        return;
    ull v[d->ncounts];
    v[0] = first;
    va_list ap;
    va_start(ap, first);
    for (unsigned i = 1; i < d->ncounts; i++)
        v[i] = va_arg(ap, ull);
    va_end(ap);
    doacross_wait(v);
}
