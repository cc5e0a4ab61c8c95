/*
 * round.c — the shared-memory round that every collective among the
 * collocated ranks of a communicator is made of (no point-to-point
 * messages).
 *
 * Model. A communicator has one collective state, shared by its ranks (for
 * MPI_COMM_WORLD: one per job, built by the first collective call; for a
 * created communicator: built with it, see comm_create.c; for
 * MPI_COMM_SELF: one per rank, built by its first collective call). A
 * collective call is one or two *rounds* of that state. In a round every
 * rank
 *   1. reads the round's number `release` (it cannot change before this
 *      rank arrives, see below),
 *   2. writes its slot: which collective, root, count, type, op, buffers,
 *      and compares it with the slot of its group's first arrival of the
 *      round (a group remembers only whether one disagreed),
 *   3. arrives at its group's counter. The last rank of a group to arrive
 *      (the group's leader for this round) resets the group counter and
 *      arrives at the top counter. The last leader to arrive there (the
 *      completer) resets the top counter, checks that all slots agree
 *      (coll.c: one comparison per group, since the groups checked their
 *      own; a full scan only to name a rank that disagreed), does its
 *      part of the collective (coll_complete_X), and publishes release + 1.
 *   4. Every other rank waits for that suspended, in no ready queue, until
 *      its resumer wakes it (see coll_round). Wake-ups form the same tree:
 *      the completer wakes the other groups' leaders and its own group;
 *      each leader, when it runs again, wakes its own group. A group whose
 *      ranks share a worker (the usual case, see Groups below) is woken
 *      as a chain: its leader wakes the first of the others, and each
 *      rank, once woken, the next, so that the wake-up of a rank comes
 *      one turn before the rank runs and starts loading its stack top,
 *      rank state and slot (a batch wake-up touched them thousands of
 *      turns earlier). That pays once a group's ranks no longer fit a
 *      core's cache (measured, W=2: a barrier of 4096 ranks 133-137 ->
 *      119-125 us, of 2048 the same, of 64 0.2 us slower for a fence per
 *      link), so only groups of COLL_CHAIN_MIN ranks or more chain. A
 *      group spread over workers is woken at once, so that its workers
 *      run it in parallel.
 *   5. After the release, each rank does its part (coll_finish_X).
 *
 * The completer's part either does the whole collective (small data: it
 * copies or folds straight between the ranks' buffers, or into scratch
 * that each rank then copies its result from: one round), or only decides
 * that the ranks share the work (s->parallel). Then, after the release,
 * every rank copies its own share directly between the user buffers of
 * the ranks (single copy: a gather's block goes from the sender's sendbuf
 * into the root's recvbuf) and takes part in a second round, a plain
 * barrier, before it returns: until then its buffers may be read and
 * written by the others.
 *
 * The hierarchy's seam: the completer is the one rank that knows every
 * collocated rank has arrived and is still inside the call. When a
 * communicator spans several OS processes, its barrier is one round of
 * the process's members whose release waits for the inter-process part
 * (coll_barrier_hooked): the completer, whichever rank it is, runs it for
 * comm rank 0, the process's leader (whose arguments say so), then
 * releases everyone as in any round (so each rank is woken once, where a
 * barrier, the leaders' exchange and another barrier woke it twice: 64
 * ranks over 2 processes 10 -> 3.4 us; and where rank 0 was woken to run
 * it, one wake-up less on the way). A nonblocking round with a hook
 * (MPI_Ibarrier, a small MPI_Iallreduce, MPI_Ireduce or MPI_Ibcast across
 * processes) cannot
 * wait in an arrival: its completer hands the hook and the release to a
 * ULT (coll_round_nb). The other collectives still go round, exchange,
 * round (procs.c).
 *
 * Groups are the blocks of consecutive ranks that the launcher
 * (launch/rank_start.c) starts on the same worker (rank i on worker i*W/N),
 * so in the common case one core touches a group counter and only one rank
 * per worker touches the top counter; the grouping affects speed only,
 * never results. A created communicator is grouped the same way by its own
 * ranks (which need not share a worker: then only the speed differs).
 *
 * Why reuse from one round to the next is race-free:
 * - `release` moves only after every rank has arrived, so a rank reading it
 *   before arriving reads its own round's number.
 * - A group counter is reset by its leader before the leader arrives at the
 *   top; no rank of the group can arrive again before the release, which
 *   comes after. The completer resets the top counter before the release.
 * - A slot is written by its rank before it arrives, and rewritten only in
 *   that rank's next collective. Others read it during the completer's
 *   part and, in a parallel phase, until the second round: no rank can
 *   start its next collective before that round's release.
 * - After a one-round collective's release a rank reads only its own
 *   arguments and what the completer published (err, why, parallel,
 *   scratch, results); after a second round's release, only that and
 *   phase_err/phase_why. All of these are rewritten only by the completer
 *   of the next collective, once every rank has arrived there, i.e. has
 *   finished with this one.
 * - In a parallel phase each rank writes only its own share of the
 *   receive buffers and of scratch, disjoint from every other rank's.
 * - A group's `leader` cannot change while the completer reads it: the
 *   group's next round needs the leader to have left this one, which it
 *   does only once the completer has woken it. Nor while a chain reads it:
 *   that round needs every rank of the group, and a rank reads it before
 *   it leaves this round. Likewise a rank's waiter entry is rewritten only
 *   in its next round, after its wake-up.
 */
#include "coll/coll_impl.h"
#include "ult/core_api.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void coll_state_free(coll_state *s)
{
    free(s->groups);
    free(s->slots);
    free(s->waiters);
    free(s->values);
    free(s->scratch);
    free(s->results);
    free(s);
}

/* The smallest group woken as a chain (see the model above); the largest
 * group of another worker that a flat release does itself (release_flat). */
enum { COLL_CHAIN_MIN = 1024, COLL_REMOTE_RELEASE_MAX = 8 };

coll_state *coll_state_new(myr_rank *ranks, const int *map, int size)
{
    coll_state *s = aligned_alloc(MYR_CACHE_LINE, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->ranks = ranks;
    s->map = map;
    s->first = myr_the_job.first;
    s->size = size;
    int workers = myr_worker_count();
    s->ngroups = workers < 1 ? 1 : workers < size ? workers : size;
    /* A job started on one worker (launch: two ranks) is one group: each
     * arrival then takes one counter, not two. */
    if (myr_the_job.local > 0 && myr_the_job.local <= myr_job_pack_max)
        s->ngroups = 1;
    s->groups = aligned_alloc(MYR_CACHE_LINE, (size_t)s->ngroups * sizeof *s->groups);
    s->slots = aligned_alloc(MYR_FETCH_LINE, (size_t)size * sizeof *s->slots);
    s->waiters = aligned_alloc(MYR_CACHE_LINE,
                               ((size_t)size * sizeof *s->waiters + MYR_CACHE_LINE - 1) /
                                   MYR_CACHE_LINE * MYR_CACHE_LINE);
    if (size > 1)
        s->values = aligned_alloc(MYR_CACHE_LINE,
                                  ((size_t)size * sizeof *s->values + MYR_CACHE_LINE - 1) /
                                      MYR_CACHE_LINE * MYR_CACHE_LINE);
    if (!s->groups || !s->slots || !s->waiters || (size > 1 && !s->values)) {
        coll_state_free(s);
        return NULL;
    }
    memset(s->slots, 0, (size_t)size * sizeof *s->slots);
    memset(s->waiters, 0, (size_t)size * sizeof *s->waiters);
    /* Group g holds the ranks r with r*G/N == g: those the launcher placed on
     * worker g. With G <= N no group is empty. */
    long long n = size, g_count = s->ngroups;
    long job_size = myr_the_job.local;
    for (long long g = 0; g < g_count; g++) {
        coll_group *grp = &s->groups[g];
        memset(grp, 0, sizeof *grp);
        grp->first = (int)((g * n + g_count - 1) / g_count);
        int end = (int)(((g + 1) * n + g_count - 1) / g_count);
        grp->size = end - grp->first;
        atomic_init(&grp->ref, -1);
        int worker = -1;
        grp->chain = job_size > 0 && grp->size >= COLL_CHAIN_MIN;
        for (int r = grp->first; r < end; r++) {
            s->waiters[r].group = (int)g;
            int w = myr_job_worker_of(map ? map[r] - s->first : r, job_size,
                                      workers < 1 ? 1 : workers);
            grp->chain = grp->chain && (worker < 0 || w == worker);
            if (worker < 0)
                grp->worker = w;
            worker = w;
        }
        grp->state = s;
    }
    return s;
}

/* ---- the states of MPI_COMM_WORLD and MPI_COMM_SELF ----------------------
 *
 * Built for the current job by whichever rank needs one first; those
 * built for an earlier job in this process (other ranks array or size)
 * are replaced, and deliberately not freed: they are small, jobs are
 * rarely recreated, and a rank of the new job may still be reading their
 * identity fields. */

typedef struct job_states {
    myr_rank *ranks;
    int size;
    _Atomic(coll_state *) world;
    _Atomic(coll_state *) self[];   /* one per rank, built by that rank */
} job_states;

static _Atomic(job_states *) the_states;
static myr_spinlock states_lock;

static job_states *states(void)
{
    job_states *j = atomic_load_explicit(&the_states, memory_order_acquire);
    if (__builtin_expect(j && j->ranks == myr_the_job.ranks &&
                         j->size == myr_the_job.local, 1))
        return j;
    myr_spin_lock(&states_lock);
    j = atomic_load_explicit(&the_states, memory_order_relaxed);
    if (!j || j->ranks != myr_the_job.ranks || j->size != myr_the_job.local) {
        size_t n = (size_t)myr_the_job.local;
        j = calloc(1, sizeof *j + n * sizeof j->self[0]);
        if (j) {
            j->ranks = myr_the_job.ranks;
            j->size = myr_the_job.local;
            atomic_store_explicit(&the_states, j, memory_order_release);
        }
    }
    myr_spin_unlock(&states_lock);
    return j;
}

/* Install `made` in *where unless another ULT of the rank did first. */
static coll_state *install(_Atomic(coll_state *) *where, coll_state *made)
{
    coll_state *expected = NULL;
    if (!made || atomic_compare_exchange_strong(where, &expected, made))
        return made;
    coll_state_free(made);
    return expected;
}

static coll_state *state_lookup(MPI_Comm comm, myr_rank *self)
{
    job_states *j = states();
    if (!j)
        return NULL;
    if (comm->kind == MYR_COMM_WORLD) {
        coll_state *s = atomic_load_explicit(&j->world, memory_order_acquire);
        return s ? s : install(&j->world, coll_state_new(j->ranks, NULL, j->size));
    }
    _Atomic(coll_state *) *mine = &j->self[self->world_rank - myr_the_job.first];
    coll_state *s = atomic_load_explicit(mine, memory_order_acquire);
    return s ? s : install(mine, coll_state_new(j->ranks, &self->world_rank, 1));
}

coll_state *coll_state_find(MPI_Comm comm, myr_rank *self)
{
    myr_comm_local *local = comm->kind == MYR_COMM_WORLD ? &self->world_local
                                                          : &self->self_local;
    coll_state *s = state_lookup(comm, self);
    atomic_store_explicit(&local->coll, s, memory_order_release);
    return s;
}

/* ---- rounds ------------------------------------------------------------- */

/* A waiter's `ult` once its resumer has taken a spinning waiter's wake-up
 * (see round_body): the waiter must not suspend any more. */
#define WAITER_TAKEN ((myr_ult_t *)1)

/* Wake rank r from its wait for release `gen` + 1 (one of a batch: the
 * caller ends it with myr_ult_resume_batch_end). A waiter that spins
 * (ult NULL) is woken by `delivered` alone, unless it gave up spinning
 * and suspended first (its CAS put itself there). */
static void wake_ahead(coll_state *s, int r, unsigned gen, bool ahead)
{
    coll_waiter *w = &s->waiters[r];
    myr_ult_t *u = atomic_load_explicit(&w->ult, memory_order_relaxed);
    if (!u && atomic_compare_exchange_strong_explicit(&w->ult, &u, WAITER_TAKEN,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
        atomic_store_explicit(&w->woken, gen + 1, memory_order_relaxed);
        atomic_store_explicit(&w->delivered, gen + 1, memory_order_release);
        return;
    }
    atomic_store_explicit(&w->woken, gen + 1, memory_order_release);
    myr_ult_resume_batch_internal(u);
    if (ahead)
        myr_ult_prefetch_stack(u);
    /* From here on this resumer no longer touches u: it may leave. */
    atomic_store_explicit(&w->delivered, gen + 1, memory_order_release);
}

static void wake(coll_state *s, int r, unsigned gen)
{
    wake_ahead(s, r, gen, false);
}

/* Start loading what rank r reads first when it runs: its rank state's
 * first two lines and its slot. */
static void prefetch_link(coll_state *s, int r)
{
    const char *rank = (const char *)coll_state_rank(s, r);
    __builtin_prefetch(rank);
    __builtin_prefetch(rank + MYR_FETCH_LINE);
    __builtin_prefetch(&s->slots[r], 1);
}

/* Wake rank r as the next link of its group's chain (see the model), and
 * start loading what the next two links need: the stack top, rank state
 * and slot of the rank that r wakes in its turn (r's own were asked for
 * by the previous link; its descriptor, with the saved stack pointer, by
 * the one before), and the descriptor of the rank after that. One link
 * ahead, a rank's lines had only the rest of the previous rank's turn to
 * come from memory, which is shorter than the trip once a worker's ranks
 * no longer fit its caches (measured, W = 2: a barrier of 16384 ranks
 * 4.0-4.4 -> 2.0-3.1 ms, of 65536 11.0-12.3 -> 8.6-11.0 ms; 2048 and 4096
 * the same within the noise; three links ahead no better). The rest of a
 * group's ranks are suspended in the round until their link, so their
 * waiter entries hold their descriptors (in the group: the next group's
 * ranks run on another worker). */
static void wake_link(coll_state *s, const coll_group *grp, int r, unsigned gen)
{
    wake_ahead(s, r, gen, true);
    myr_ult_resume_batch_end();
    prefetch_link(s, r);
    int end = grp->first + grp->size;
    if (r + 1 < end) {
#ifndef MYR_SANITIZE   /* the awake leader's entry may name an ended ULT */
        myr_ult_t *next = atomic_load_explicit(&s->waiters[r + 1].ult, memory_order_relaxed);
        if (next && next != WAITER_TAKEN &&
            r + 1 != atomic_load_explicit(&grp->leader, memory_order_relaxed)) {
            myr_ult_prefetch_stack(next);
            myr_ult_prefetch_inherited(next);
        }
#endif
        prefetch_link(s, r + 1);
    }
    if (r + 2 < end) {
        myr_ult_t *after = atomic_load_explicit(&s->waiters[r + 2].ult, memory_order_relaxed);
        if (after != WAITER_TAKEN)
            myr_ult_prefetch_for_resume(after);
    }
}

/* The leader's part: a chained group's first link, or the whole group. */
static void wake_group(coll_state *s, const coll_group *grp, int except, unsigned gen)
{
    if (grp->chain) {
        int r = grp->first == except ? grp->first + 1 : grp->first;
        if (r < grp->first + grp->size)
            wake_link(s, grp, r, gen);
        return;
    }
    for (int r = grp->first; r < grp->first + grp->size; r++)
        if (r != except)
            wake(s, r, gen);
    myr_ult_resume_batch_end();
}

/* A woken rank's part in a chained group: wake the next rank (the leader,
 * awake already, is skipped). */
static void wake_next(coll_state *s, const coll_group *grp, int me, unsigned gen)
{
    int r = me + 1;
    if (r == atomic_load_explicit(&grp->leader, memory_order_relaxed))
        r++;
    if (r < grp->first + grp->size)
        wake_link(s, grp, r, gen);
}

int coll_fail(coll_state *s, int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    s->err = errclass;
    return errclass;
}

void coll_phase_fail(coll_state *s, int errclass, const char *fmt, ...)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&s->phase_err, &none, errclass))
        return;
    /* Only the winner writes; the others read it after the second round. */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->phase_why, sizeof s->phase_why, fmt, ap);
    va_end(ap);
}

bool coll_scratch_reserve(coll_state *s, size_t bytes)
{
    if (bytes <= s->scratch_cap)
        return true;
    size_t cap = (bytes + MYR_CACHE_LINE - 1) / MYR_CACHE_LINE * MYR_CACHE_LINE;
    void *p = aligned_alloc(MYR_CACHE_LINE, cap);
    if (!p) {
        coll_fail(s, MPI_ERR_NO_MEM, "out of memory for a %zu-byte collective buffer", bytes);
        return false;
    }
    free(s->scratch);
    s->scratch = p;
    s->scratch_cap = cap;
    return true;
}

static bool others_joined(const coll_state *s, const coll_group *grp, int me, unsigned gen);

/* A rank's arrival at round `gen`: its slot written and checked against
 * its group's first arrival's, then its group's counter and, for the
 * group's last arrival (*leader), the top counter. Returns whether this
 * arrival completed the round: the caller is then the completer
 * (round_release). Whoever resumes the rank (w->ult) or finishes its
 * operation (w->nb) is set before, published by the arrival (acq_rel
 * chain). The leader of a nonblocking arrival (`nb`) also notes whether
 * the rest of its group has joined (nb_trees). */
static inline __attribute__((always_inline)) bool
round_arrive(coll_state *s, int me, const coll_slot *mine, bool *leader, unsigned gen,
             bool nb)
{
    coll_waiter *w = &s->waiters[me];
    coll_group *grp = &s->groups[w->group];
    *leader = false;
    if (mine) {
        if (mine != &s->slots[me])
            s->slots[me] = *mine;
        /* Check against the group's first arrival (whose slot was written
         * before its CAS), or become it. */
        int ref = atomic_load_explicit(&grp->ref, memory_order_acquire);
        if (ref < 0 && atomic_compare_exchange_strong_explicit(
                           &grp->ref, &ref, me, memory_order_acq_rel, memory_order_acquire))
            ref = me;
        if (ref != me && !coll_slots_match(&s->slots[ref], mine))
            atomic_store_explicit(&grp->mismatch, true, memory_order_relaxed);
    }
    if (atomic_fetch_add_explicit(&grp->arrived, 1, memory_order_acq_rel) != grp->size - 1)
        return false;
    *leader = true;
    atomic_store_explicit(&grp->arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&grp->leader, me, memory_order_relaxed);
    grp->checked_ref = atomic_load_explicit(&grp->ref, memory_order_relaxed);
    grp->checked_mismatch = atomic_load_explicit(&grp->mismatch, memory_order_relaxed);
    atomic_store_explicit(&grp->ref, -1, memory_order_relaxed);
    atomic_store_explicit(&grp->mismatch, false, memory_order_relaxed);
    grp->others_joined = nb && others_joined(s, grp, me, gen);
    if (s->ngroups == 1)
        return true;   /* the group's leader is the completer */
    if (atomic_fetch_add_explicit(&s->top_arrived, 1, memory_order_acq_rel) != s->ngroups - 1)
        return false;
    atomic_store_explicit(&s->top_arrived, 0, memory_order_relaxed);
    return true;
}

/* The completer of a round in which some rank did not wait for it (a
 * nonblocking collective), or that failed: it wakes every blocking rank
 * and does every nonblocking rank's part itself (a rank that computes
 * meanwhile finds its operation complete), then completes their requests
 * once it no longer reads the round's state. A nonblocking round's parts
 * are copies out of scratch (nothing is shared out, see nb_round), but
 * for the v-forms, whose shares all go first: a share may read any other
 * rank's buffers, and a request completed lets its rank reuse them. */
static void release_ranks(coll_state *s, coll_group *grp, int me, unsigned gen)
{
    void *done = NULL;
    bool shares = s->err == MPI_SUCCESS && s->parallel;
    for (int r = grp->first; r < grp->first + grp->size; r++) {
        coll_waiter *w = &s->waiters[r];
        void *op = w->nb;
        if (!op) {
            if (r != me)
                wake_ahead(s, r, gen, false);
            continue;
        }
        unsigned open = nb_word(gen, NB_OPEN);
        if (!atomic_compare_exchange_strong_explicit(&w->nb_state, &open, nb_word(gen, NB_TAKEN),
                                                     memory_order_acq_rel,
                                                     memory_order_acquire)) {
            /* Joined from MPI_Wait: it finishes its operation itself. */
            wake_ahead(s, r, gen, false);
            continue;
        }
        const char *why = NULL;
        int err = s->err;
        if (err != MPI_SUCCESS)
            why = s->why;
        else if (shares)
            err = atomic_load_explicit(&s->phase_err, memory_order_relaxed), why = s->phase_why;
        else
            err = coll_finish(s, coll_state_rank(s, r), r, &s->slots[r], &why);
        done = coll_nb_round_done(op, err, why, done);
    }
    myr_ult_resume_batch_end();
    coll_nb_complete_all(done);
}

/* The ULT releasing another group's ranks (release_flat). What it reads
 * of the round (err, why, parallel, phase_err, scratch, the slots) stays
 * until the next round's completer, which needs every rank of this group
 * to have arrived again, i.e. to have been released here first; its
 * arguments are read before any of them is. */
static void *release_group_main(void *arg)
{
    coll_group *grp = arg;
    release_ranks(grp->state, grp, -1, grp->release_gen);
    return NULL;
}

/* The completer's own operation, claimed by nb_trees, once its group is
 * woken: finished as a joined rank's is. */
static void finish_claimed(coll_state *s, int me, void *own_op)
{
    coll_nb_finish_own(own_op, s, me, true);
}

/* The completer of a round in which some rank did not wait for it (a
 * nonblocking collective), or that failed: it wakes every blocking rank
 * and does every nonblocking rank's part itself (a rank that computes
 * meanwhile finds its operation complete), then completes their requests
 * once it no longer reads the round's state. A nonblocking round's parts
 * are copies out of scratch (nothing is shared out, see nb_round), but
 * for the v-forms, whose shares all go first: a share may read any other
 * rank's buffers, and a request completed lets its rank reuse them.
 * The ranks of the other groups are released by a ULT on their own
 * worker each: their operations, requests, queues and buffers are that
 * worker's lines, which the completer paid a transfer each for, one rank
 * after another (Ibarrier+Wait was 8x Barrier at 64 ranks); but a group of
 * at most COLL_REMOTE_RELEASE_MAX ranks is released from here, and a group
 * whose ranks all joined the round (grp->tree) is woken by its leader. */
static void release_flat(coll_state *s, int me, unsigned gen, void *own_op)
{
    int n = s->size;
    bool shares = s->err == MPI_SUCCESS && s->parallel;
    for (int r = 0; shares && r < n; r++) {
        const char *why = NULL;
        if (s->waiters[r].nb)
            (void)coll_finish(s, coll_state_rank(s, r), r, &s->slots[r], &why);
    }
    int mine = s->waiters[me].group;
    for (int h = 0; h < s->ngroups; h++) {
        coll_group *grp = &s->groups[h];
        if (h == mine)
            continue;
        if (grp->tree) {   /* all joined: its leader wakes it */
            wake(s, atomic_load_explicit(&grp->leader, memory_order_relaxed), gen);
            continue;
        }
        /* A small group is released from here: a ULT started on its
         * worker costs more than its few ranks' lines. */
        grp->release_gen = gen;
        if (grp->size <= COLL_REMOTE_RELEASE_MAX ||
            myr_ult_spawn_on(grp->worker, NULL, release_group_main, grp) != MYR_OK)
            release_ranks(s, grp, me, gen);
    }
    coll_group *own = &s->groups[mine];
    if (!own->tree) {
        release_ranks(s, own, me, gen);
        return;
    }
    wake_group(s, own, me, gen);
    finish_claimed(s, me, own_op);
}

/* The completer's own operation, claimed for itself (another ULT of the
 * rank may have joined it from MPI_Wait: then it is released flat). The
 * completer is in the call that started it: when no other ULT of its
 * rank may be in a call meanwhile, nobody else writes the entry now. */
static bool claim_own(const coll_state *s, int me, _Atomic unsigned *state, unsigned gen)
{
    if (myr_rank_calls_serialized(coll_state_rank(s, me))) {
        atomic_store_explicit(state, nb_word(gen, NB_TAKEN), memory_order_relaxed);
        return true;
    }
    unsigned open = nb_word(gen, NB_OPEN);
    return atomic_compare_exchange_strong_explicit(state, &open, nb_word(gen, NB_TAKEN),
                                                   memory_order_acq_rel, memory_order_acquire);
}

/* grp->tree, written only when it changes: every rank of another worker's
 * group reads it after its wake-up, and a store would take the line from
 * them each round. */
static void group_set_tree(coll_group *grp, bool tree)
{
    if (grp->tree != tree)
        grp->tree = tree;
}

/* Whether every rank of grp but its leader `me` has joined round `gen`
 * (each moves its own entry from NB_OPEN to NB_JOINED at most once per
 * round, and only the completer moves it elsewhere): read by the leader
 * when it arrives, from its own worker's lines in the usual case, so that
 * a join is one locked instruction (its CAS) and not two (a count of the
 * group's open operations as well). A rank that joins after its leader
 * arrived leaves its group to the flat release, which wakes it all the
 * same. */
static bool others_joined(const coll_state *s, const coll_group *grp, int me, unsigned gen)
{
    for (int r = grp->first; r < grp->first + grp->size; r++)
        if (r != me && atomic_load_explicit(&s->waiters[r].nb_state, memory_order_acquire) !=
                           nb_word(gen, NB_JOINED))
            return false;
    return true;
}

/* A nonblocking round's release, group by group: a group all of whose
 * ranks wait in MPI_Wait for it (joined; in the completer's own group,
 * all but the completer, whose operation it claims) is woken by its leader
 * as in a blocking round, and each of its ranks finishes its own
 * operation on its own worker; the completer finishes the others'.
 * Whether the rest of a group had joined its leader noted on arrival;
 * whether the leader has joined since, its own entry says (one line per
 * group for the completer). Returns whether every group is woken so. */
static bool nb_trees(coll_state *s, int me, void *own_op, unsigned gen)
{
    int g = s->waiters[me].group, trees = 0;
    for (int h = 0; h < s->ngroups; h++) {
        coll_group *grp = &s->groups[h];
        bool tree;
        /* The completer arrived last in its group: it is its leader. */
        if (h == g)
            tree = grp->others_joined && own_op &&
                   claim_own(s, me, &s->waiters[me].nb_state, gen);
        else
            tree = grp->others_joined &&
                   atomic_load_explicit(
                       &s->waiters[atomic_load_explicit(&grp->leader, memory_order_relaxed)]
                            .nb_state,
                       memory_order_acquire) == nb_word(gen, NB_JOINED);
        group_set_tree(grp, tree);
        trees += tree;
    }
    return trees == s->ngroups;
}

/* The completer's part: the collective's work, the release, the wake-ups
 * (a tree when every rank waits in the round, see the model). `own_op`:
 * the completer's own nonblocking operation, when it arrived in the call
 * that started it. */
static void round_release(coll_state *s, int me, const coll_slot *mine, unsigned gen,
                          void *own_op)
{
    int g = s->waiters[me].group;
    if (mine)
        coll_complete(s, mine);
    if (__builtin_expect(s->hook != NULL, 0)) {
        /* coll_barrier_hooked: every rank has arrived. The hook acts for
         * rank 0 (its argument says so) on whichever ULT completes. */
        const char *why = NULL;
        int err = s->hook(s->hook_arg, &why);
        s->hook = NULL;
        if (err != MPI_SUCCESS && s->err == MPI_SUCCESS)
            coll_fail(s, err, "%s", why ? why : "the part across OS processes failed");
    }
    bool flat = mine && (mine->nonblocking || s->err != MPI_SUCCESS);
    if (flat && mine->nonblocking && s->err == MPI_SUCCESS && !s->parallel) {
        /* Groups whose ranks all joined are released as in a blocking round. */
        flat = !nb_trees(s, me, own_op, gen);
    } else if (flat) {
        for (int h = 0; h < s->ngroups; h++)
            group_set_tree(&s->groups[h], false);
    }
    s->flat = flat;
    atomic_store_explicit(&s->release, gen + 1, memory_order_release);
    if (flat) {
        release_flat(s, me, gen, own_op);
        return;
    }
    for (int h = 0; h < s->ngroups; h++)
        if (h != g)
            wake(s, atomic_load_explicit(&s->groups[h].leader, memory_order_relaxed), gen);
    wake_group(s, &s->groups[g], me, gen);
    if (mine && mine->nonblocking)   /* claimed by nb_trees */
        finish_claimed(s, me, own_op);
}

/* A waiting rank's wait for its wake-up from round `gen` (see round_body):
 * spinning (`spin`, its ult entry NULL) or suspended. */
static inline __attribute__((always_inline)) void
round_wait(coll_state *s, myr_rank *self, coll_waiter *w, unsigned gen, bool spin,
           unsigned before, myr_ult_t *self_ult, MPI_Comm comm)
{
    myr_ult_t *none = NULL;
    if (spin && (myr_ult_spin_while_idle_unchanged(&w->delivered, before) ||
                 !atomic_compare_exchange_strong_explicit(&w->ult, &none, self_ult,
                                                          memory_order_acq_rel,
                                                          memory_order_relaxed))) {
        /* Woken while spinning, or the resumer has taken the wake-up
         * (WAITER_TAKEN): `delivered` follows at once (round_delivered). */
    } else if (atomic_load_explicit(&w->woken, memory_order_acquire) != gen + 1) {
        myr_wait_note_set(self, &(myr_wait_note){.kind = MYR_WAIT_COLLECTIVE, .what = s,
                                                 .comm = comm});
        do
            myr_ult_suspend_local_internal();
        while (atomic_load_explicit(&w->woken, memory_order_acquire) != gen + 1);
        myr_wait_note_clear(self);
    }
}

/* Until the resumer no longer touches the waiter's ULT (see round_body). */
static inline __attribute__((always_inline)) void round_delivered(coll_waiter *w, unsigned gen)
{
    for (unsigned spins = 0;
         atomic_load_explicit(&w->delivered, memory_order_acquire) != gen + 1; spins++) {
        if (spins < 256)
            myr_cpu_relax();
        else
            sched_yield();   /* the resumer's kernel thread was preempted */
    }
}

/* `mine` NULL: a plain barrier (no slot written, no completer work, so
 * ranks may still read the previous round's slots).
 *
 * Waiting is a bare suspend, not the rank's wait cell (core/wait.c): in a
 * round exactly one wake-up is owed to each waiting rank, by a known
 * resumer (its group's leader; for a leader, the completer), after the
 * release. So a waiter records which ULT acts for it and suspends, and a
 * wake-up is one CAS and a queue push, with no lock.
 *
 * A suspend may also return for a resume left pending by an earlier wait
 * of the same ULT (core's waits tolerate spurious wake-ups, so they may
 * leave one behind): hence the loop on `woken`, which the resumer sets
 * before resuming, so that its resume cannot be consumed by a suspend
 * that is about to give up. The waiter then waits for `delivered` (a few
 * instructions later) before it leaves: a ULT that ends after its round
 * (a nonblocking collective's runner) must not be resumed once its
 * descriptor may serve another ULT. Both leave at most one resume pending
 * on a ULT that is alive, which later waits tolerate in the same way. */
/* Always inline: once in coll_round, once in myr_coll_barrier (below),
 * whose every turn at thousands of ranks per worker is memory-bound: one
 * frame fewer is a stack line fewer to load. */
static inline __attribute__((always_inline)) void
round_body(coll_state *s, myr_rank *self, int me, const coll_slot *mine)
{
    unsigned gen = atomic_load_explicit(&s->release, memory_order_acquire);
    coll_waiter *w = &s->waiters[me];
    coll_group *grp = &s->groups[w->group];
    w->nb = NULL;
    /* A rank whose worker has nothing else to run (the last of its
     * worker's ranks to arrive, when the round waits for another
     * worker's) spins on its `delivered` instead of suspending: its
     * wake-up is then one line from the resumer, not a resume through
     * its worker's inbox and scheduler. ult NULL says so to the resumer
     * (wake_ahead). */
    myr_ult_t *self_ult = myr_ult_self_internal();
    bool spin = myr_ult_may_spin();
    unsigned before = atomic_load_explicit(&w->delivered, memory_order_relaxed);
    atomic_store_explicit(&w->ult, spin ? NULL : self_ult, memory_order_relaxed);
    bool leader;
    if (round_arrive(s, me, mine, &leader, gen, false)) {
        round_release(s, me, mine, gen, NULL);   /* and coll_barrier_hooked's hook */
        return;
    }
    round_wait(s, self, w, gen, spin, before, self_ult, self->coll_comm);
    /* Written before the release, which the wake-up follows. */
    bool flat = s->flat;
    if (grp->chain && !leader && !flat)
        wake_next(s, grp, me, gen);
    round_delivered(w, gen);
    if (leader && !flat)
        wake_group(s, grp, me, gen);
}

void coll_round(coll_state *s, myr_rank *self, int me, const coll_slot *mine)
{
    round_body(s, self, me, mine);
}

/* The ULT that runs a nonblocking round's hook and release (below). */
static void *hook_release_main(void *arg)
{
    coll_state *s = arg;
    int me = s->hook_me;
    round_release(s, me, &s->slots[me], s->hook_gen, NULL);
    return NULL;
}

void coll_round_nb(coll_state *s, int me, const coll_slot *mine, void *op, coll_nb_place *at,
                   bool own)
{
    unsigned gen = atomic_load_explicit(&s->release, memory_order_acquire);
    coll_waiter *w = &s->waiters[me];
    w->nb = op;
    /* Both published by the arrival (acq_rel), like the slot. */
    atomic_store_explicit(&w->nb_state, nb_word(gen, NB_OPEN), memory_order_relaxed);
    at->s = s;
    at->me = me;
    at->gen = gen;
    atomic_store_explicit(&at->arrived, true, memory_order_release);
    bool leader;
    if (!round_arrive(s, me, mine, &leader, gen, true))
        return;
    if (__builtin_expect(s->hook != NULL, 0)) {
        /* The leader's part across processes (procs.c) waits for
         * messages, which no arrival may: a ULT runs it and the release,
         * as this completer would (its own operation among the others').
         * What it reads of the round stays until the release. */
        s->hook_me = me;
        s->hook_gen = gen;
        if (myr_ult_spawn(NULL, hook_release_main, s) == MYR_OK)
            return;
        own = false;   /* out of memory: waited for here */
    }
    round_release(s, me, mine, gen, own ? op : NULL);
}

bool coll_round_join(const coll_nb_place *at, myr_rank *self, MPI_Comm comm)
{
    coll_state *s = at->s;
    int me = at->me;
    unsigned gen = at->gen;
    coll_waiter *w = &s->waiters[me];
    coll_group *grp = &s->groups[w->group];
    myr_ult_t *self_ult = myr_ult_self_internal();
    bool spin = myr_ult_may_spin();
    unsigned before = atomic_load_explicit(&w->delivered, memory_order_relaxed);
    /* Read by a resumer only once it has seen the join (the CAS: by the
     * group's leader arriving, the completer, or a flat release). */
    atomic_store_explicit(&w->ult, spin ? NULL : self_ult, memory_order_relaxed);
    unsigned open = nb_word(gen, NB_OPEN);
    if (!atomic_compare_exchange_strong_explicit(&w->nb_state, &open, nb_word(gen, NB_JOINED),
                                                 memory_order_acq_rel, memory_order_acquire))
        return false;
    round_wait(s, self, w, gen, spin, before, self_ult, comm);
    bool tree = grp->tree;   /* written before the release, like s->flat */
    /* The group's leader of this round cannot change before this rank
     * arrives again (see the model). */
    bool leader = atomic_load_explicit(&grp->leader, memory_order_relaxed) == me;
    if (grp->chain && !leader && tree)
        wake_next(s, grp, me, gen);
    round_delivered(w, gen);
    if (leader && tree)
        wake_group(s, grp, me, gen);
    return true;
}

int myr_coll_barrier(MPI_Comm comm, myr_rank *self, const char **why)
{
    if (coll_spans_processes(comm))
        return coll_procs_run(comm, self, NULL, why);
    if (myr_comm_size(comm) == 1)
        return MPI_SUCCESS;   /* alone: nobody to wait for (coll.c, run_alone) */
    int me;
    coll_state *s = coll_enter(comm, self, &me, why);
    if (!s)
        return MPI_ERR_NO_MEM;
    /* In place (see myr_coll_run), and only what is read of a barrier's
     * slot: the agreement checks (coll_slots_match, slots_agree) look no
     * further than its kind for a collective that has no root and no
     * data. */
    coll_slot *mine = &s->slots[me];
    mine->kind = MYR_COLL_BARRIER;
    mine->nonblocking = false;
    round_body(s, self, me, mine);
    if (s->err != MPI_SUCCESS) {
        *why = s->why;
        return s->err;
    }
    return MPI_SUCCESS;
}

int coll_barrier_hooked(MPI_Comm comm, myr_rank *self, coll_hook hook, void *arg,
                        const char **why)
{
    if (myr_comm_size(comm) == 1)
        return hook(arg, why);
    int me;
    coll_state *s = coll_enter(comm, self, &me, why);
    if (!s)
        return MPI_ERR_NO_MEM;
    coll_slot *mine = &s->slots[me];
    mine->kind = MYR_COLL_BARRIER;
    mine->nonblocking = false;
    if (me == 0) {
        /* Published by this rank's arrival, before any completer reads it. */
        s->hook = hook;
        s->hook_arg = arg;
    }
    round_body(s, self, me, mine);
    if (s->err != MPI_SUCCESS) {
        *why = s->why;
        return s->err;
    }
    return MPI_SUCCESS;
}

int coll_round_end_phase(coll_state *s, myr_rank *self, int me, const char **why)
{
    /* A nonblocking round's completer does every share before it reads
     * the phase's error (release_flat). */
    if (!s->nb_round)
        coll_round(s, self, me, NULL);
    int err = atomic_load_explicit(&s->phase_err, memory_order_relaxed);
    if (err != MPI_SUCCESS)
        *why = s->phase_why;
    return err;
}
