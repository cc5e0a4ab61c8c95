/*
 * coll_impl.h — what the files of coll/ share: a communicator's collective
 * state, the rounds every collective is made of (round.c explains the
 * model and why it is race-free), and each collective's two parts (move.c,
 * reduce.c). Internal to coll/.
 */
#ifndef MYR_COLL_COLL_IMPL_H
#define MYR_COLL_COLL_IMPL_H

#include "coll/coll.h"

#include <stdint.h>
#include <string.h>

/* Used only inside libmyriad (and by programs linking its objects
 * statically): hidden, so calls between its files are direct, not through
 * the PLT. */
#pragma GCC visibility push(hidden)

/* Besides the myr_coll_kind values: a round that creates communicators
 * (comm_create.c), and the slot of a rank carrying an error into a round
 * (myr_coll_args.carry; its collective is behind the slot's `a`), which
 * no other slot matches, so the completer's full check finds it. */
enum { COLL_CREATE = MYR_COLL_KINDS_, COLL_CARRIED };

/* What a rank passes to a round; written by that rank before it arrives,
 * read by the completer and, in a parallel phase, by every rank. The
 * fields every check reads are here, in one cache line per rank (the
 * slots are line-aligned); the rest is behind `a`. */
typedef struct coll_slot {
    _Alignas(MYR_FETCH_LINE) int kind;
    int root;
    int count;
    int color, key;        /* COLL_CREATE */
    bool nonblocking;
    bool in_place;         /* sbuf (scatter: rbuf at the root) is MPI_IN_PLACE */
    /* What this rank contributes: bcast the root's buffer, a reduction's
     * input, gather's and allgather's block (allgather in place: the
     * block in recvbuf where MPI says it is; gather in place at the root:
     * nothing to move). */
    const void *in;
    MPI_Datatype type;
    MPI_Op op;
    long long total;       /* reduce_scatter: the sum of recvcounts */
    /* The call's arguments, for what the fields above do not say; NULL in
     * a small allreduce's slot (myr_coll_allreduce_small), of which only
     * the rank's own finish would read them (its rbuf). */
    const myr_coll_args *a;
} coll_slot;
_Static_assert(sizeof(coll_slot) == MYR_FETCH_LINE, "a slot is one cache line");

/* A rank's new communicator, decided by the completer of a creation round. */
typedef struct split_result {
    myr_comm_shared *shared;   /* NULL: MPI_COMM_NULL */
    int rank;
} split_result;

/* The ranks of a group check their slots against one of them as they
 * arrive (round.c), so that the completer compares one slot per group, not
 * one per rank: `ref` is the first arrival of the current round (-1: none
 * yet), `mismatch` whether a later one disagreed with it; the leader moves
 * both to checked_* for the completer and resets them before it arrives at
 * the top. */
typedef struct coll_group {
    _Alignas(MYR_CACHE_LINE) _Atomic int arrived;
    _Atomic int leader;    /* the group's last arrival in its latest round */
    /* A nonblocking round's: whether every rank of the group but its
     * leader had joined it (NB_JOINED) when the leader arrived. Written
     * by the leader before it arrives at the top, read by the completer
     * (round.c, nb_trees). */
    bool others_joined;
    int first, size;       /* ranks first .. first+size-1 */
    bool chain;            /* its ranks share a worker: woken one by one */
    _Atomic int ref;
    _Atomic bool mismatch;
    bool checked_mismatch;
    int checked_ref;
    /* A flat round's release of this group's ranks, when the completer is
     * in another group (round.c, release_flat): done on the group's own
     * worker (`worker`, where its ranks start) by a ULT given the group
     * and `release_gen`, the round's number. */
    struct coll_state *state;
    int worker;
    unsigned release_gen;
    /* A nonblocking round's release of this group goes by its leader (and
     * chain), as a blocking round's: every rank of it joined from MPI_Wait
     * (round.c, nb_trees). Written by the completer before the release. */
    bool tree;
} coll_group;

/* How a rank waits in a round (round.c): the ULT acting for it, and the
 * round numbers its resumer has reached (`woken` before resuming it,
 * `delivered` after). */
typedef struct coll_waiter {
    _Alignas(32) _Atomic(myr_ult_t *) ult;   /* two per line, none straddling */
    _Atomic unsigned woken, delivered;
    int group;             /* the rank's group (fixed at creation) */
    /* Who finishes the rank's nonblocking operation of the round: NB_OPEN
     * (set at its arrival) the completer, unless the rank joins the round
     * first from MPI_Wait (NB_JOINED: then it is woken as a blocking rank
     * is and finishes it itself); NB_TAKEN, the completer claimed it. With
     * the round's number (nb_word): a Wait that comes after the completer
     * took the operation, finished it and launched the rank's next one
     * must not join the next one's round in its place. */
    _Atomic unsigned nb_state;
    /* The rank's nonblocking operation in the current round (nbc.c), set
     * before it arrives; NULL for a blocking arrival. */
    void *nb;
} coll_waiter;
enum { NB_OPEN = 0, NB_JOINED = 1, NB_TAKEN = 2 };
static inline unsigned nb_word(unsigned gen, unsigned state)
{
    return gen << 2 | state;
}
_Static_assert(sizeof(coll_waiter) == 32, "two waiters per line");

/* What a communicator spanning processes does between its members'
 * arrival and their release (coll_barrier_hooked): MPI_SUCCESS, or an
 * error with *why. */
typedef int (*coll_hook)(void *arg, const char **why);

/* Room for a reduction input of up to two doubles (one long double or
 * double complex) at every rank. */
enum { COLL_VALUE_BYTES = MYR_COLL_SMALL_BYTES };
typedef struct coll_value {
    _Alignas(COLL_VALUE_BYTES) unsigned char bytes[COLL_VALUE_BYTES];
} coll_value;

typedef struct coll_state {
    /* Immutable once published. */
    myr_rank *ranks;       /* the job it was built for (this process's ranks) */
    const int *map;        /* comm rank -> job rank; NULL: ranks[r] */
    int first;             /* the job rank of ranks[0], for map's entries */
    int size;
    int ngroups;
    coll_group *groups;
    coll_slot *slots;      /* one per rank */
    coll_waiter *waiters;  /* one per rank */
    /* One per rank when there are two or more: a small reduction's or
     * scan's input, copied here by its rank as it arrives
     * (coll_small_input), so that the completer folds consecutive lines
     * instead of reading each rank's slot and then its buffer, two lines
     * apiece, half of them from the other workers' caches, while every
     * rank waits for it. */
    coll_value *values;

    _Alignas(MYR_CACHE_LINE) _Atomic int top_arrived;
    _Alignas(MYR_CACHE_LINE) _Atomic unsigned release;

    /* Written by the completer, read by every rank after the release. */
    _Alignas(MYR_CACHE_LINE) int err;
    bool parallel;         /* each rank does its share, then a second round */
    /* Every slot matched its group's reference and the references each
     * other (coll_slots_match): what that compares needs no O(N) check. */
    bool agreed;
    /* The completer put every rank's result in its buffer: nothing to
     * copy out of scratch (small broadcasts, move.c). */
    bool direct;
    /* The round is a nonblocking collective's (nbc.c): the completer does
     * every rank's part alone, so nothing is shared out in parallel (but
     * what only the ranks' own parts check: the v-forms) and no second
     * round is taken. */
    bool nb_round;
    /* The completer woke every rank itself (nonblocking or failed
     * rounds): the groups' leaders wake nobody. */
    bool flat;
    char why[256];
    /* coll_barrier_hooked: set by comm rank 0 before it arrives, run by
     * the completer before the release, cleared then. */
    coll_hook hook;
    void *hook_arg;
    /* A nonblocking round's hook: the completer (hook_me) of round
     * hook_gen hands the hook and the release to a ULT (coll_round_nb). */
    int hook_me;
    unsigned hook_gen;
    void *scratch;
    size_t scratch_cap;
    /* A small allreduce's result in scratch, for each rank to copy out
     * (a small scan's are in scratch, one coll_value per rank). */
    const void *small_result;
    split_result *results; /* one per rank, allocated by the first creation */

    /* The first error a rank finds in a parallel phase (0: none yet);
     * every rank reads it after the second round. Reset by the completer
     * of the next collective. */
    _Alignas(MYR_CACHE_LINE) _Atomic int phase_err;
    char phase_why[256];
} coll_state;

/* A rank of a split: ordered by color, then key, then parent rank (the new
 * communicators and each one's rank order; qsort comparison). */
typedef struct split_item {
    int color, key, rank;
} split_item;
int coll_split_item_cmp(const void *a, const void *b);

/* A shared object for `map` (the reference is taken) with its collective
 * state, for `refs` members, and a new context id (or `ctx`); NULL when
 * out of memory (comm_create.c). */
myr_comm_shared *coll_shared_build(myr_rankmap *map, int refs);
myr_comm_shared *coll_shared_build_ctx(myr_rankmap *map, int refs, unsigned ctx);

/* Communicators whose ranks live in several OS processes (procs.c). */
static inline bool coll_spans_processes(MPI_Comm comm)
{
    return myr_comm_spans_processes(comm);
}
/* Context ids of the communicators of a process's members of such a
 * communicator (procs.c): never used by a message, distinct from every
 * user and library id. */
#define COLL_SUB_CONTEXT 0x40000000u
/* Whose collective a rank waits in, for the reports (myr_rank.coll_comm):
 * the communicator of the call, not the one of a process's members that
 * a collective across processes runs its rounds on. */
static inline void coll_note_comm(myr_rank *self, MPI_Comm comm)
{
    if (!(comm->context_id & COLL_SUB_CONTEXT) || (comm->context_id & MYR_CONTEXT_LIBRARY))
        self->coll_comm = comm;
}
/* A collective of such a communicator: same contract as myr_coll_run;
 * `a` NULL: a barrier. */
int coll_procs_run(MPI_Comm comm, myr_rank *self, const myr_coll_args *a, const char **why);
/* A nonblocking Barrier, small Allreduce, Reduce or Bcast of such a
 * communicator as one round of the process's members (procs.c): new
 * returns what the operation keeps for it (malloc'd) and sets *sub to the
 * members' communicator, whose round it arrives at; NULL when the
 * collective does not run so (it then runs coll_procs_run on a ULT).
 * arrive, just before the member arrives, tells the round what it needs
 * of it (for the leader: the hook). */
void *coll_procs_nb_new(MPI_Comm comm, myr_rank *self, const myr_coll_args *a, MPI_Comm *sub);
void coll_procs_nb_arrive(void *state, coll_state *s);
/* myr_coll_comm_split of such a parent. */
/* The shared object of a new communicator spanning processes, for its
 * `here` members in this process (NULL: out of memory; map released). */
myr_comm_shared *coll_procs_shared_new(myr_rankmap *map, int here, unsigned ctx);
/* MPI_Comm_create_group of a group spanning processes: its rank 0 takes a
 * context id and tells every member (point-to-point on the parent's
 * creation context, with the call's tag); *ctx is the id. */
int coll_procs_group_context(unsigned parent_ctx, myr_rank *self, MPI_Group group, int me,
                             int tag, unsigned *ctx, const char **why);
int coll_procs_split(MPI_Comm parent, myr_rank *self, int color, int key, MPI_Comm *out,
                     const char **why);

static inline myr_rank *coll_state_rank(const coll_state *s, int r)
{
    return &s->ranks[s->map ? s->map[r] - s->first : r];
}

/* ---- states and rounds (round.c) ---------------------------------------- */

/* A state for `size` ranks of this process (comm rank r is job rank map[r], or r for a NULL
 * map); NULL when out of memory. */
coll_state *coll_state_new(myr_rank *ranks, const int *map, int size);
void coll_state_free(coll_state *s);
/* The state of comm for the calling rank (built on first use for
 * MPI_COMM_WORLD and MPI_COMM_SELF); NULL when out of memory. A rank
 * belongs to one job: the state it found once stays valid, and it keeps
 * it in its local state of the communicator. */
coll_state *coll_state_find(MPI_Comm comm, myr_rank *self);
static inline coll_state *coll_state_of(MPI_Comm comm, myr_rank *self)
{
    if (comm->kind == MYR_COMM_INTRA)
        return comm->shared->coll;
    myr_comm_local *local = comm->kind == MYR_COMM_WORLD ? &self->world_local
                                                          : &self->self_local;
    coll_state *s = atomic_load_explicit(&local->coll, memory_order_acquire);
    return __builtin_expect(s != NULL, 1) ? s : coll_state_find(comm, self);
}

/* The state of comm for a collective call of the calling rank, whose rank
 * in comm goes to *me and whose communicator is noted for the reports
 * (coll_note_comm); NULL, with *why, when out of memory. */
static inline coll_state *coll_enter(MPI_Comm comm, myr_rank *self, int *me, const char **why)
{
    coll_state *s = coll_state_of(comm, self);
    if (__builtin_expect(!s, 0)) {
        *why = "out of memory for the communicator's collective state";
        return NULL;
    }
    *me = myr_comm_rank(comm, self);
    coll_note_comm(self, comm);
    return s;
}

/* Take part in one round as comm rank `me`, with slot `mine`: returns after
 * the release, the completer's work (coll_complete) done. */
void coll_round(coll_state *s, myr_rank *self, int me, const coll_slot *mine);
/* A barrier of comm's ranks (all in this process) whose release waits for
 * hook(arg), which comm rank 0 alone passes and the round's completer runs
 * once every rank has arrived (any rank's ULT: the hook's argument says
 * for whom it acts): the hierarchy's seam (procs.c). One round: each rank
 * is woken once. A hook error is every rank's. */
int coll_barrier_hooked(MPI_Comm comm, myr_rank *self, coll_hook hook, void *arg,
                        const char **why) __attribute__((warn_unused_result));
/* Where a nonblocking operation arrived, for MPI_Wait to join its round
 * (coll_round_join): written before the arrival, never after it (the
 * operation may be over, and its block reused, once it has arrived). */
typedef struct coll_nb_place {
    coll_state *s;
    int me;
    unsigned gen;          /* the round's number */
    _Atomic bool arrived;
} coll_nb_place;
/* Arrive at a round for the nonblocking operation `op` of comm rank `me`
 * (any ULT may do it for the rank; `own`: the rank itself, in the call
 * that started it) and return without waiting. The arrival that completes
 * the round does the completer's work, then, for every rank that has not
 * joined the round, its part (coll_finish) and coll_nb_round_done. When
 * every other rank has joined and the completer is the rank itself, the
 * ranks are woken as in a blocking round and each finishes its own
 * operation (the completer its own, coll_nb_finish_own). */
void coll_round_nb(coll_state *s, int me, const coll_slot *mine, void *op, coll_nb_place *at,
                   bool own);
/* MPI_Wait's part (nbc.c): take part in the round of the nonblocking
 * operation that arrived at `at` as a blocking rank does, if its completer
 * has not claimed it yet. True: woken after the release, the rank
 * finishes its operation itself (coll_nb_finish_own); false: the
 * completer finishes it. */
bool coll_round_join(const coll_nb_place *at, myr_rank *self, MPI_Comm comm);
/* nbc.c: the rank's own part of its operation `op` after the release of
 * round `s`: its results, its request, the next operation. `own`: done
 * by the rank itself (in its MPI_Wait on op, or in the call that started
 * op), so nobody else waits for op's request. */
void coll_nb_finish_own(void *op, coll_state *s, int me, bool own);
/* nbc.c, for the completer of a nonblocking round: operation `op`'s
 * round is over with `err` (`why` is copied now: the next round rewrites
 * it); op is linked in front of `done`, which is returned. Once it reads
 * the round's state no more, the completer completes them all
 * (coll_nb_complete_all: requests, queues, next operations). */
void *coll_nb_round_done(void *op, int err, const char *why, void *done);
void coll_nb_complete_all(void *done);
/* A rank's part after the release (coll.c), as myr_coll_run does it. */
int coll_finish(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                const char **why);
/* Rank me's slot of s from its arguments `a`, and its small reduction
 * input (see coll_state's values) (coll.c). */
void coll_slot_fill(coll_state *s, int me, const myr_coll_args *a);
/* The completer's work (coll.c): check the slots, then the collective's part. */
void coll_complete(coll_state *s, const coll_slot *mine);
static inline bool coll_is_rooted(int kind)
{
    return kind == MYR_COLL_BCAST || kind == MYR_COLL_GATHER || kind == MYR_COLL_GATHERV ||
           kind == MYR_COLL_SCATTER || kind == MYR_COLL_SCATTERV || kind == MYR_COLL_REDUCE;
}

static inline bool coll_is_reduction(int kind)
{
    return kind >= MYR_COLL_REDUCE && kind <= MYR_COLL_EXSCAN;
}

/* memcpy of at most COLL_VALUE_BYTES, the usual sizes inlined. */
static inline void coll_copy_value(void *dst, const void *src, size_t bytes)
{
    if (bytes == 8)
        memcpy(dst, src, 8);
    else if (bytes == 4)
        memcpy(dst, src, 4);
    else if (bytes == 16)
        memcpy(dst, src, 16);
    else
        memcpy(dst, src, bytes);
}

/* Whether a slot's reduction input goes through s->values: a reduce,
 * allreduce, scan or exscan of a few bytes of a contiguous type. What it
 * looks at is part of what the ranks' slots must agree on (kind, count,
 * the type's map), so every rank of a round that goes on to the fold
 * decides alike. */
static inline bool coll_small_input(const coll_state *s, const coll_slot *m)
{
    return (m->kind == MYR_COLL_REDUCE || m->kind == MYR_COLL_ALLREDUCE ||
            m->kind == MYR_COLL_SCAN || m->kind == MYR_COLL_EXSCAN) && s->values &&
           m->count > 0 && m->type->contig && m->type->size > 0 &&
           (size_t)m->count * m->type->size <= COLL_VALUE_BYTES;
}

/* Bytes of data in count elements of type; a type with count 0 is not
 * looked at (Alltoallw's may be MPI_DATATYPE_NULL). */
static inline size_t coll_bytes(int count, MPI_Datatype type)
{
    return count ? (size_t)count * type->size : 0;
}

/* Whether two ranks' types lay out their data the same way (coll.c). */
bool coll_same_type_map(MPI_Datatype a, MPI_Datatype b);

/* Whether slot c agrees with slot ref (the same collective with matching
 * root, op, count and type map, as far as the collective requires): an
 * equivalence, so agreement with one reference is agreement with all.
 * Inline: every rank of a round runs it as it arrives (round.c). */
static inline bool coll_slots_match(const coll_slot *ref, const coll_slot *c)
{
    if (c->kind != ref->kind || c->nonblocking != ref->nonblocking)
        return false;
    if (coll_is_rooted(ref->kind) && c->root != ref->root)
        return false;
    /* A broadcast moves the same bytes everywhere: checked here, the
     * completer reads no slot but the groups' references (it names a
     * rank that differs only when this finds one). */
    if (ref->kind == MYR_COLL_BCAST)
        return coll_bytes(c->count, c->type) == coll_bytes(ref->count, ref->type);
    if (!coll_is_reduction(ref->kind))
        return true;
    return myr_op_matches(c->op, ref->op) && c->count == ref->count &&
           coll_same_type_map(c->type, ref->type);
}
/* The second round of a parallel collective: a plain barrier (no slot is
 * written, nothing is checked, the completer does nothing). Returns the
 * phase's error, if a rank reported one (coll_phase_fail). */
int coll_round_end_phase(coll_state *s, myr_rank *self, int me, const char **why)
    __attribute__((warn_unused_result));

/* The round's error (completer only). Returns errclass. */
int coll_fail(coll_state *s, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error found by a rank in a parallel phase; the first one is kept. */
void coll_phase_fail(coll_state *s, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Make scratch at least `bytes` big (completer only); false (and the
 * round's error set) when out of memory. */
bool coll_scratch_reserve(coll_state *s, size_t bytes);

/* Whether the work of a round is worth a second round and all ranks: the
 * completer alone would make `blocks` copies or folds of `bytes` bytes in
 * all, while waking every rank once more costs about a kilobyte's copy per
 * rank. Decided from the data only, never from the number of workers, so
 * both paths run (and are tested) with any number of workers. Never in a
 * nonblocking round: its completer does every rank's part itself. */
/* Below this many bytes moved in all (64 more per rank, for the lines
 * a buffer's first and last bytes share with other data), a completer
 * copies into every rank's buffer itself rather than through scratch. */
enum { COLL_DIRECT_BYTES = 2048 };

static inline bool coll_worth_parallel(const coll_state *s, size_t blocks, size_t bytes)
{
    return !s->nb_round && s->size > 1 && blocks * 64 + bytes > 8192 + (size_t)s->size * 1024;
}

/* ---- the collectives' parts ---------------------------------------------
 *
 * complete_X: the completer's part (every rank has arrived and its slot
 * is checked against the others' by coll.c): either the whole work, or
 * set s->parallel (and reserve scratch). finish_X: each rank's part after
 * the release: copy its result out, or its share of a parallel phase and
 * the second round. */

void coll_complete_create(coll_state *s);

void coll_complete_bcast(coll_state *s, const coll_slot *mine);
int coll_finish_bcast(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                      const char **why);
void coll_complete_gather(coll_state *s, const coll_slot *mine);
int coll_finish_gather(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                       const char **why);
void coll_complete_scatter(coll_state *s, const coll_slot *mine);
int coll_finish_scatter(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                        const char **why);
void coll_complete_allgather(coll_state *s, const coll_slot *mine);
int coll_finish_allgather(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                          const char **why);
void coll_complete_alltoall(coll_state *s, const coll_slot *mine);
int coll_finish_alltoall(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                         const char **why);

void coll_complete_reduce(coll_state *s, const coll_slot *mine);
int coll_finish_reduce(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                       const char **why);
void coll_complete_reduce_scatter(coll_state *s, const coll_slot *mine);
int coll_finish_reduce_scatter(coll_state *s, myr_rank *self, int me,
                               const coll_slot *mine, const char **why);
void coll_complete_scan(coll_state *s, const coll_slot *mine);
int coll_finish_scan(coll_state *s, myr_rank *self, int me, const coll_slot *mine,
                     const char **why);

/* ---- small helpers -------------------------------------------------------- */

/* buf + off as an address: buffers may be MPI_BOTTOM (NULL) with absolute
 * displacements, where pointer arithmetic would be undefined. */
static inline void *coll_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* A type's name for messages, MPI_DATATYPE_NULL included. */
static inline const char *coll_type_label(MPI_Datatype type)
{
    return type ? myr_datatype_label(type) : "MPI_DATATYPE_NULL";
}

#pragma GCC visibility pop

#endif
