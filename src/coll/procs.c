/*
 * procs.c — the collectives of MPI_COMM_WORLD when the job spans several
 * OS processes (net/net.h).
 *
 * Barrier, Bcast, Reduce and Allreduce follow the hierarchy: the ranks of
 * each process first combine through shared memory (a round of the
 * process's own communicator, round.c), then one leader per process (its
 * first rank) runs the inter-process part with point-to-point messages on
 * a context of the library's own, then the result fans back out in shared
 * memory. A barrier, and the three others up to 8 KiB, are one such
 * round whose release waits for the leader's part (coll_barrier_hooked).
 * Bcast and Reduce cross the network once per other process (a binomial
 * tree over processes); a reduction keeps MPI's rank order for
 * non-commutative ops because ranks are numbered process by process and
 * the tree combines neighbouring blocks of processes, lower first.
 *
 * Gather, Scatter, Allgather (v forms too) and Alltoall of small blocks
 * follow it as well when each process's members are consecutive comm
 * ranks (MPI_COMM_WORLD, and every communicator that keeps the processes'
 * order): one message per pair of processes, moved between the leaders,
 * with the members' parts gathered or scattered in shared memory ("the
 * others, following the hierarchy" below). Scan and Exscan are a chain
 * along the ranks, which crosses between processes only O - 1 times when
 * the members are consecutive. What remains plain (linear or pairwise
 * point-to-point among all ranks; collocated pairs still copy once,
 * through p2p.c): Alltoallv/w and Alltoall of large blocks (pairwise moves
 * the same data with fewer copies), and every collective of a
 * communicator whose processes' members interleave.
 */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/p2p.h"
#include "net/net.h"

/* ---- a communicator's layout over processes ---------------------------------
 *
 * Shared by this process's members of the communicator (for a created one,
 * its shared object's `coll`; for MPI_COMM_WORLD, built by the first
 * collective). Processes are taken in the order of their first member
 * (their leader, the lowest comm rank they hold). */
typedef struct member_args {
    const void *in;
    void *out;
    size_t bytes;
    MPI_Op op;
    MPI_Datatype type;     /* a small Bcast's or Allgather's: each member's own */
    MPI_Datatype in_type;  /* a small Allgather's: its send type */
    size_t out_bytes;      /* and the bytes of one block it receives */
    int root;
} member_args;

typedef struct coll_span {
    int size;              /* the communicator's */
    int nprocs;            /* processes holding its members */
    int my_proc;           /* this process's index among them */
    int *leader;           /* [nprocs] each process's first comm rank */
    int *proc_count;       /* [nprocs] its members */
    bool ordered;          /* each process's members are consecutive comm ranks,
                              so combining processes in order keeps rank order */
    int nlocal;            /* this process's members: */
    int *local_rank;       /* [nlocal] their comm ranks, ascending */
    MPI_Comm *sub;         /* [nlocal] their handles onto the communicator of
                              this process's members (sub rank i) */
    int *sub_of;           /* [size] a member's sub rank here, -1: elsewhere */
    split_result *results; /* [nlocal] what a split gives each */
    /* [nlocal] a small Allreduce's arguments, by sub rank: written by each
     * member before the round, read by the leader's hook (allreduce_small) */
    struct member_args *args;
    /* [nlocal] where a member's error message lives once its collective
     * has returned (allocated at its first error) */
    char **why;
    int split_err;         /* and whether the leader could build them */
    char split_why[192];
} coll_span;

static void span_free(coll_span *sp)
{
    if (!sp)
        return;
    for (int i = 0; sp->sub && i < sp->nlocal; i++)
        if (sp->sub[i])
            myr_comm_release(sp->sub[i]);
    free(sp->leader);
    free(sp->proc_count);
    free(sp->local_rank);
    free(sp->sub);
    free(sp->sub_of);
    free(sp->results);
    free(sp->args);
    for (int i = 0; sp->why && i < sp->nlocal; i++)
        free(sp->why[i]);
    free(sp->why);
    free(sp);
}

static void span_free_cb(void *p)
{
    span_free(p);
}

static _Atomic unsigned sub_context_next;

/* The layout of a communicator of `size` ranks (comm rank r is job rank
 * members[r], or r when members is NULL); NULL when out of memory. */
static coll_span *span_build(const int *members, int size)
{
    coll_span *sp = calloc(1, sizeof *sp);
    int jobprocs = myr_net_the_place.nprocs;
    int *index = malloc((size_t)jobprocs * sizeof *index);   /* job process -> ours */
    int *proc = malloc((size_t)(size ? size : 1) * sizeof *proc);
    if (!sp || !index || !proc)
        goto fail;
    sp->size = size;
    sp->ordered = true;
    for (int q = 0; q < jobprocs; q++)
        index[q] = -1;
    int last = -1;
    for (int r = 0; r < size; r++) {
        int q = myr_net_proc_of(members ? members[r] : r);
        proc[r] = q;
        if (index[q] < 0)
            index[q] = sp->nprocs++;
        else if (q != last)
            sp->ordered = false;   /* a process's members are not consecutive */
        last = q;
    }
    sp->leader = calloc((size_t)sp->nprocs, sizeof *sp->leader);
    sp->proc_count = calloc((size_t)sp->nprocs, sizeof *sp->proc_count);
    sp->sub_of = malloc((size_t)(size ? size : 1) * sizeof *sp->sub_of);
    if (!sp->leader || !sp->proc_count || !sp->sub_of)
        goto fail;
    int me = myr_net_the_place.proc;
    sp->my_proc = index[me];
    for (int r = size - 1; r >= 0; r--) {
        int i = index[proc[r]];
        sp->leader[i] = r;
        sp->proc_count[i]++;
    }
    sp->nlocal = sp->my_proc >= 0 ? sp->proc_count[sp->my_proc] : 0;
    sp->local_rank = malloc((size_t)(sp->nlocal ? sp->nlocal : 1) * sizeof *sp->local_rank);
    sp->sub = calloc((size_t)(sp->nlocal ? sp->nlocal : 1), sizeof *sp->sub);
    sp->results = calloc((size_t)(sp->nlocal ? sp->nlocal : 1), sizeof *sp->results);
    sp->args = calloc((size_t)(sp->nlocal ? sp->nlocal : 1), sizeof *sp->args);
    sp->why = calloc((size_t)(sp->nlocal ? sp->nlocal : 1), sizeof *sp->why);
    myr_rankmap *map = myr_rankmap_new(sp->nlocal);
    if (!sp->local_rank || !sp->sub || !sp->results || !sp->args || !sp->why || !map) {
        myr_rankmap_release(map);
        goto fail;
    }
    int n = 0;
    for (int r = 0; r < size; r++) {
        sp->sub_of[r] = proc[r] == me ? n : -1;
        if (proc[r] == me) {
            sp->local_rank[n] = r;
            map->world[n++] = members ? members[r] : r;
        }
    }
    unsigned ctx = COLL_SUB_CONTEXT | atomic_fetch_add(&sub_context_next, 1);
    myr_comm_shared *sh = coll_shared_build_ctx(map, sp->nlocal, ctx);
    for (int i = 0; sh && i < sp->nlocal; i++)
        if (!(sp->sub[i] = myr_comm_handle_new(sh, i)))
            sh = NULL;
    if (!sh)
        goto fail;
    free(index);
    free(proc);
    return sp;
fail:
    free(index);
    free(proc);
    span_free(sp);
    return NULL;
}

static coll_span *world_span;
static myr_spinlock world_span_lock;

static coll_span *span_of(MPI_Comm comm)
{
    if (comm->kind != MYR_COMM_WORLD)
        return comm->shared->coll;
    coll_span *sp = __atomic_load_n(&world_span, __ATOMIC_ACQUIRE);
    if (__builtin_expect(sp == NULL, 0)) {
        myr_spin_lock(&world_span_lock);
        if (!(sp = world_span)) {
            sp = span_build(NULL, myr_the_job.size);
            if (!sp) {
                fprintf(stderr, "myriad: out of memory for MPI_COMM_WORLD's collectives\n");
                abort();
            }
            __atomic_store_n(&world_span, sp, __ATOMIC_RELEASE);
        }
        myr_spin_unlock(&world_span_lock);
    }
    return sp;
}

/* One call's view: the communicator, a copy of its handle on a context no
 * user message uses (so the library's messages never match the user's),
 * the layout, and the caller's comm rank and handle onto its process's
 * members.
 *
 * Errors. A rank that meets an error in a collective (its process's
 * round found the ranks' arguments disagree, a message from another
 * process was of the wrong size or said that process failed) does not
 * stop: it notes the first error here and goes on with every message and
 * every round of the algorithm, its sends carrying the error instead of
 * data (the class in the tag, no payload) and its rounds carrying it to
 * the process's other ranks (myr_coll_args.carry). So the error reaches
 * every process the algorithm's messages reach, no rank waits for a
 * message that never comes, and no message is left over to be taken by
 * the communicator's next collective. (MPICH's collectives do the same
 * with an error bit in the tag.) Only running out of memory for a
 * request may leave a message behind. */
typedef struct call {
    MPI_Comm comm;
    struct myr_mpi_comm lib;
    coll_span *sp;
    int me;
    MPI_Comm sub;
    int op_tag;         /* a reduction's op, in the tag of every message */
    int err;            /* the first error met, MPI_SUCCESS: none */
    char why[192];
} call;

/* Library contexts: the neighbour collectives use id | LIBRARY; these
 * use id | LIBRARY | 0x40000000, and MPI_Comm_create_group across
 * processes id | 0x40000000 (created ids, counted from 2 or taken from a
 * process's range below MYR_CONTEXT_SPANNING's bit, reach none of these
 * bits; the ids of the members' sub communicators, which have bit 30, never
 * carry a message). */
#define PROCS_CONTEXT (MYR_CONTEXT_LIBRARY | 0x40000000u)
#define GROUP_CONTEXT 0x40000000u

static void call_init(call *c, MPI_Comm comm, myr_rank *self)
{
    c->comm = comm;
    c->lib = *comm;
    c->lib.context_id = comm->context_id | PROCS_CONTEXT;
    c->sp = span_of(comm);
    c->me = myr_comm_rank(comm, self);
    c->sub = c->sp->sub[c->sp->sub_of[c->me]];
    c->op_tag = 0;
    c->err = MPI_SUCCESS;
}

/* Note an error (the first one stays). */
static void fail(call *c, int err, const char *why)
{
    if (err == MPI_SUCCESS || c->err != MPI_SUCCESS)
        return;
    c->err = err;
    snprintf(c->why, sizeof c->why, "%s", why ? why : "a collective across OS processes failed");
}

static void no_memory(call *c)
{
    fail(c, MPI_ERR_NO_MEM, "out of memory for a collective across OS processes");
}

/* The call's outcome for the caller, its message kept where it outlives
 * the call (the member's place in the span). */
static int outcome(call *c, const char **why)
{
    if (c->err == MPI_SUCCESS)
        return MPI_SUCCESS;
    char **kept = &c->sp->why[c->sp->sub_of[c->me]];
    if (!*kept)
        *kept = malloc(sizeof c->why);
    if (*kept) {
        memcpy(*kept, c->why, sizeof c->why);
        *why = *kept;
    } else {
        *why = "a collective across OS processes failed";
    }
    return c->err;
}

/* Tags of the library's messages: the step; above it, for a reduction,
 * which op the sender's rank passed (so that ranks of different processes
 * that pass different ops find out from any message between them); above
 * that, the error class a sender carries (then the message has no data). */
enum {
    TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_RESULT, TAG_GATHER, TAG_SCATTER,
    TAG_ALLTOALL, TAG_SCAN, TAG_SPLIT,
};
enum { TAG_STEP_BITS = 8, TAG_OP_BITS = 8 };
#define TAG_STEP(tag) ((tag) & ((1 << TAG_STEP_BITS) - 1))
#define TAG_OP(tag) (((tag) >> TAG_STEP_BITS) & ((1 << TAG_OP_BITS) - 1))
#define TAG_CARRIED(tag) ((tag) >> (TAG_STEP_BITS + TAG_OP_BITS))

/* An op as its tag bits: the predefined ones apart, user-defined ones
 * alike (myr_op_matches). */
static int op_tag(MPI_Op op)
{
    return ((int)op->kind + 1) << TAG_STEP_BITS;
}

/* ---- point-to-point on the library's context ------------------------------- */

static int comm_send(myr_rank *self, MPI_Comm comm, const void *buf, int count,
                     MPI_Datatype type, int to, int tag)
{
    int err = myr_p2p_send_blocking(self, buf, count, type, to, tag, comm, MYR_MODE_STANDARD);
    if (err != MYR_P2P_NEEDS_REQUEST)
        return err;
    struct myr_mpi_request r;
    myr_request_init_solo(&r, self, MYR_REQ_SEND);
    r.sbuf = buf;
    r.count = count;
    r.type = type;
    r.peer = to;
    r.tag = tag;
    r.comm = comm;
    r.mode = MYR_MODE_STANDARD;
    err = myr_p2p_start_send(&r);
    if (!err)
        myr_request_wait(self, &r);
    return err ? err : r.status.MPI_ERROR;
}

static int recv_result(const struct myr_mpi_request *r, const char **why)
{
    if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE)
        *why = "a rank received more data than its buffer holds (the ranks' counts "
               "or types disagree)";
    else if (r->status.MPI_ERROR == MPI_ERR_TYPE)
        *why = "a rank received data that ends inside a basic element of its type (the "
               "ranks' types disagree)";
    else if (r->status.MPI_ERROR)
        *why = "a message between OS processes failed";
    return r->status.MPI_ERROR;
}

static int comm_recv(myr_rank *self, MPI_Comm comm, void *buf, int count,
                     MPI_Datatype type, int from, int tag, const char **why)
{
    _Alignas(64) struct myr_mpi_request r;
    myr_p2p_recv_blocking(self, &r, buf, count, type, from, tag, comm);
    return recv_result(&r, why);
}

/* A step's message: its data, or nothing but the error this rank carries. */
static void lib_send(myr_rank *self, call *c, const void *buf, int count, MPI_Datatype type,
                     int to, int tag)
{
    if (c->err != MPI_SUCCESS) {
        buf = NULL;
        count = 0;
        type = MPI_BYTE;
        tag |= c->err << (TAG_STEP_BITS + TAG_OP_BITS);
    }
    int err = comm_send(self, &c->lib, buf, count, type, to, tag | c->op_tag);
    if (err)
        fail(c, err, "a message between OS processes failed");
}

/* What an arrival says: a collective takes exactly what its peer sends
 * (MPI asks the type signatures to match), so a message of another size
 * means the ranks' arguments disagree. Any tag is received (and checked
 * here): an error class rides above the step. */
static void arrived(call *c, const struct myr_mpi_request *r, int count, MPI_Datatype type,
                    int tag)
{
    int got = r->status.MPI_TAG;
    long long want = (long long)count * type->size;
    if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE)
        fail(c, MPI_ERR_TRUNCATE, "a rank of another OS process sent more data than this "
             "rank's arguments take (the ranks' counts or types disagree)");
    else if (r->status.MPI_ERROR != MPI_SUCCESS && r->status.MPI_ERROR != MPI_ERR_TYPE)
        fail(c, r->status.MPI_ERROR, "a message between OS processes failed");
    else if (TAG_CARRIED(got) != MPI_SUCCESS)
        fail(c, TAG_CARRIED(got), "the collective failed in another OS process of the job "
             "(there, the ranks' arguments disagree, or a message or memory failed)");
    else if (TAG_STEP(got) != tag)
        fail(c, MPI_ERR_INTERN, "the OS processes of the job are out of step in a collective "
             "(a message of another step arrived)");
    else if (TAG_OP(got) != TAG_OP(c->op_tag))
        fail(c, MPI_ERR_OP, "ranks in different OS processes passed different ops to the "
             "reduction");
    else if (r->status.myr_bytes != want)   /* MPI_ERR_TYPE: short, too */
        fail(c, MPI_ERR_COUNT, "a rank of another OS process sent less data than this "
             "rank's arguments take (the ranks' counts or types disagree)");
}

static void lib_recv(myr_rank *self, call *c, void *buf, int count, MPI_Datatype type,
                     int from, int tag)
{
    _Alignas(64) struct myr_mpi_request r;
    myr_p2p_recv_blocking(self, &r, buf, count, type, from, MPI_ANY_TAG, &c->lib);
    arrived(c, &r, count, type, tag);
}

/* A receive left running while the caller sends (pairwise exchanges). */
typedef struct lib_request {
    struct myr_mpi_request r;   /* first: aligned as requests want */
    int count;
    MPI_Datatype type;
    int tag;
} lib_request;

static lib_request *lib_irecv(myr_rank *self, call *c, void *buf, int count,
                              MPI_Datatype type, int from, int tag)
{
    lib_request *q = aligned_alloc(64, (sizeof *q + 63) / 64 * 64);
    if (!q) {
        no_memory(c);
        return NULL;
    }
    myr_request_init(&q->r, self, MYR_REQ_RECV);   /* not `heap`: no references to drop */
    myr_request_set_recv(&q->r, buf, count, type, from, MPI_ANY_TAG, &c->lib);
    q->count = count;
    q->type = type;
    q->tag = tag;
    myr_p2p_start_recv(&q->r);
    return q;
}

static void lib_wait(myr_rank *self, call *c, lib_request *q)
{
    if (!q)
        return;
    myr_request_wait(self, &q->r);
    arrived(c, &q->r, q->count, q->type, q->tag);
    myr_request_release(&q->r);
    free(q);
}

/* ---- helpers ---------------------------------------------------------------- */

static bool is_leader(const call *c)
{
    return c->me == c->sp->leader[c->sp->my_proc];
}

/* The process (index among the communicator's) of comm rank r. */
static int proc_of_rank(const call *c, int r)
{
    const coll_span *sp = c->sp;
    if (sp->sub_of[r] >= 0)
        return sp->my_proc;
    long job = c->comm->kind == MYR_COMM_WORLD ? r : c->comm->members[r];
    int q = myr_net_proc_of(job);
    for (int i = 0; i < sp->nprocs; i++) {
        long lj = c->comm->kind == MYR_COMM_WORLD ? sp->leader[i]
                                                 : c->comm->members[sp->leader[i]];
        if (myr_net_proc_of(lj) == q)
            return i;
    }
    return -1;
}

/* Scratch for the data of a collective (partial results, packed blocks).
 * Fresh memory of a megabyte or more costs a page fault per page on first
 * touch and an munmap at free, which took half of an MPI_Reduce of 1 MiB
 * between two processes: so the blocks are kept in a small stash, shared
 * by the process's ranks, and handed out again (any size up to
 * SCRATCH_KEEP). Take and give back under a lock: collectives of several
 * ranks, nonblocking ones included, run at once. */
enum { SCRATCH_SLOTS = 8, SCRATCH_HEADER = 64 };
#define SCRATCH_KEEP ((size_t)16 << 20)
static struct {
    myr_spinlock lock;
    void *block[SCRATCH_SLOTS];   /* each begins with its size */
} scratch_stash;

static void *scratch_get(size_t bytes)
{
    void *best = NULL;
    int at_slot = -1;
    myr_spin_lock(&scratch_stash.lock);
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        void *b = scratch_stash.block[i];
        if (b && *(size_t *)b >= bytes && (!best || *(size_t *)b < *(size_t *)best)) {
            best = b;
            at_slot = i;
        }
    }
    if (best)
        scratch_stash.block[at_slot] = NULL;
    myr_spin_unlock(&scratch_stash.lock);
    if (!best) {
        best = malloc(SCRATCH_HEADER + bytes);
        if (!best)
            return NULL;
        *(size_t *)best = bytes;
    }
    return (char *)best + SCRATCH_HEADER;
}

static void scratch_put(void *p)
{
    if (!p)
        return;
    void *b = (char *)p - SCRATCH_HEADER;
    if (*(size_t *)b <= SCRATCH_KEEP) {
        /* Into an empty slot, or in place of a smaller block. */
        myr_spin_lock(&scratch_stash.lock);
        int victim = -1;
        for (int i = 0; i < SCRATCH_SLOTS && victim < 0; i++)
            if (!scratch_stash.block[i])
                victim = i;
        for (int i = 0; i < SCRATCH_SLOTS && victim < 0; i++)
            if (*(size_t *)scratch_stash.block[i] < *(size_t *)b)
                victim = i;
        if (victim >= 0) {
            void *old = scratch_stash.block[victim];
            scratch_stash.block[victim] = b;
            b = old;
        }
        myr_spin_unlock(&scratch_stash.lock);
    }
    free(b);
}

/* Room for `count` elements of `type` laid out as in a user buffer:
 * returns where element 0 goes; *block is what to give back (scratch_put). */
static void *buffer_for(MPI_Datatype type, int count, void **block)
{
    size_t span = count > 0 ? (size_t)((MPI_Aint)(count - 1) * type->extent +
                                       (type->true_ub - type->true_lb))
                            : 0;
    *block = scratch_get(span ? span : 1);
    return *block ? (char *)*block - type->true_lb : NULL;
}

static void *at(const void *buf, MPI_Datatype type, long elements)
{
    return (char *)buf + elements * type->extent;
}

/* Copy count elements of stype at src into dtype elements at dst (the
 * type signatures agree: MPI says so). */
static void move(void *dst, MPI_Datatype dtype, const void *src, int count,
                 MPI_Datatype stype)
{
    size_t bytes = (size_t)count * stype->size;
    if (bytes)
        myr_datatype_transfer(dst, dtype, src, stype, bytes);
}

/* A collective among this process's members (sub ranks: their order in
 * the communicator; sub rank 0 is the leader), carrying the error this
 * rank has met, if any: then it fails for all of them, with that error,
 * before any data moves. Its error is noted. */
static void local(myr_rank *self, call *c, myr_coll_args a)
{
    a.nonblocking = false;
    a.carry = c->err;
    a.carry_why = c->why;
    const char *why = NULL;
    int err = myr_coll_run(c->sub, self, &a, &why);
    fail(c, err, why);
}

/* A round of the members whose release waits for `hook`, run by the
 * leader once all have arrived (coll_barrier_hooked). */
static void local_hooked(myr_rank *self, call *c, coll_hook hook, void *arg)
{
    const char *why = NULL;
    int err = coll_barrier_hooked(c->sub, self, is_leader(c) ? hook : NULL, arg, &why);
    fail(c, err, why);
}

/* ---- the hierarchical four ------------------------------------------------- */

/* Dissemination among the leaders: log2(P) rounds. */
typedef struct leaders_args {
    myr_rank *self;
    call *c;
} leaders_args;

static int leaders_barrier(void *arg, const char **why)
{
    leaders_args *b = arg;
    call *c = b->c;
    const coll_span *sp = c->sp;
    int n = sp->nprocs, p = sp->my_proc;
    for (int k = 1; k < n; k <<= 1) {
        lib_send(b->self, c, NULL, 0, MPI_BYTE, sp->leader[(p + k) % n], TAG_BARRIER);
        lib_recv(b->self, c, NULL, 0, MPI_BYTE, sp->leader[(p - k + n) % n], TAG_BARRIER);
    }
    return outcome(c, why);
}

/* One round of the process's members, whose release waits for the
 * leaders' barrier (run by the leader, sub rank 0, once all arrived). */
static void barrier(myr_rank *self, call *c)
{
    leaders_args b = {self, c};
    local_hooked(self, c, leaders_barrier, &b);
}

/* The leaders' binomial broadcast over processes from process `rp`. */
static void leaders_bcast(myr_rank *self, call *c, void *buf, int count, MPI_Datatype type,
                          int rp)
{
    const coll_span *sp = c->sp;
    int n = sp->nprocs, v = (sp->my_proc - rp + n) % n;
    int mask = 1;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            lib_recv(self, c, buf, count, type, sp->leader[(v - mask + rp) % n], TAG_BCAST);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            lib_send(self, c, buf, count, type, sp->leader[(v + mask + rp) % n], TAG_BCAST);
}

/* A small Bcast in one round of the process's members, as a small
 * Allreduce (below): each puts its buffer in the span, and the leader,
 * once all have arrived, takes the data (from its process's root, or
 * from its parent process's leader), passes it on to its child
 * processes' leaders and copies it into every member's buffer before the
 * release. Where a round, the leaders' part and another round woke each
 * rank of the processes without the root twice. */
enum { SMALL_BCAST_MAX = 8192 };

typedef struct small_bcast {
    myr_rank *self;
    call *c;
    int count;
    MPI_Datatype type;
    int root;
} small_bcast;

static int bcast_small_hook(void *arg, const char **why)
{
    small_bcast *x = arg;
    call *c = x->c;
    const coll_span *sp = c->sp;
    int nl = sp->nlocal;
    for (int i = 1; i < nl && c->err == MPI_SUCCESS; i++) {
        if (sp->args[i].root != x->root)
            fail(c, MPI_ERR_ROOT, "the ranks of one OS process passed different roots to "
                 "MPI_Bcast");
        else if (sp->args[i].bytes != sp->args[0].bytes)
            fail(c, MPI_ERR_COUNT, "the ranks of one OS process passed MPI_Bcast different "
                 "amounts of data (counts or types)");
    }
    void *buf = sp->args[0].out;   /* the leader's */
    int root_sub = sp->sub_of[x->root];
    size_t bytes = sp->args[0].bytes;
    if (root_sub > 0 && c->err == MPI_SUCCESS && bytes)
        myr_datatype_transfer(buf, x->type, sp->args[root_sub].out, sp->args[root_sub].type,
                              bytes);
    leaders_bcast(x->self, c, buf, x->count, x->type, proc_of_rank(c, x->root));
    for (int i = 1; c->err == MPI_SUCCESS && i < nl && bytes; i++)
        if (i != root_sub)
            myr_datatype_transfer(sp->args[i].out, sp->args[i].type, buf, x->type, bytes);
    return outcome(c, why);
}

static void bcast_small(myr_rank *self, call *c, void *buf, int count, MPI_Datatype type,
                        int root)
{
    c->sp->args[c->sp->sub_of[c->me]] =
        (member_args){.out = buf, .bytes = (size_t)count * type->size, .type = type,
                      .root = root};
    small_bcast x = {self, c, count, type, root};
    local_hooked(self, c, bcast_small_hook, &x);
}

static void bcast(myr_rank *self, call *c, void *buf, int count, MPI_Datatype type, int root)
{
    if ((long)count * type->size <= SMALL_BCAST_MAX) {
        bcast_small(self, c, buf, count, type, root);
        return;
    }
    int root_sub = c->sp->sub_of[root];
    myr_coll_args a = {.kind = MYR_COLL_BCAST, .rbuf = buf, .count = count, .type = type,
                       .root = root_sub};
    if (root_sub >= 0)
        local(self, c, a);   /* the leader has it now */
    if (is_leader(c))
        leaders_bcast(self, c, buf, count, type, proc_of_rank(c, root));
    if (root_sub < 0) {
        a.root = 0;
        local(self, c, a);
    }
}

/* The leaders' reduction of their processes' partial results (at acc,
 * count elements of type) to process 0 (of the communicator's), keeping
 * rank order when the layout is ordered: process 0's acc then holds the
 * result. */
static void leaders_reduce(myr_rank *self, call *c, void *acc, int count, MPI_Datatype type,
                           MPI_Op op)
{
    const coll_span *sp = c->sp;
    int n = sp->nprocs, p = sp->my_proc;
    void *block;
    void *other = buffer_for(type, count, &block);
    if (!other)
        no_memory(c);   /* (its receives then take their message as truncated) */
    /* The partial result so far is in `cur`; each level folds the next
     * block up into the spare buffer, which then holds it: no copy back
     * per level, one at the end if it ended in the spare. */
    void *cur = acc;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (p & mask) {
            lib_send(self, c, cur, count, type, sp->leader[p - mask], TAG_REDUCE);
            break;
        }
        if (p + mask < n) {
            /* other = cur (lower ranks) op other (the next block up). */
            lib_recv(self, c, other, other ? count : 0, type, sp->leader[p + mask], TAG_REDUCE);
            if (c->err == MPI_SUCCESS) {
                myr_op_reduce(op, type, (size_t)count, cur, other);
                void *t = cur;
                cur = other;
                other = t;
            }
        }
    }
    if (c->err == MPI_SUCCESS && cur != acc)
        move(acc, type, cur, count, type);
    scratch_put(block);
}

/* Allreduce among the leaders of a long vector with a commutative op: a
 * ring reduce-scatter, then a ring allgather (each leader sends and
 * receives 2 (O - 1) / O of the vector, in both directions at once,
 * where reduce-then-broadcast moves all of it twice one way after the
 * other). acc holds this process's partial result, then everyone's. */
enum { RING_MIN_BYTES = 65536 };

static bool leaders_ring_fits(const call *c, int count, MPI_Datatype type, MPI_Op op)
{
    /* The same answer in every leader. */
    return c->sp->nprocs > 1 && count >= c->sp->nprocs && myr_op_commutative(op) &&
           (long)count * type->size >= RING_MIN_BYTES;
}

static void leaders_allreduce_ring(myr_rank *self, call *c, void *acc, int count,
                                   MPI_Datatype type, MPI_Op op)
{
    const coll_span *sp = c->sp;
    int n = sp->nprocs, p = sp->my_proc;
    int right = sp->leader[(p + 1) % n], left = sp->leader[(p + n - 1) % n];
    int base = count / n, extra = count % n;
    void *block;
    void *tmp = buffer_for(type, base + 1, &block);
    if (!tmp)
        no_memory(c);
#define RING_OFF(i) ((long)(i) * base + ((i) < extra ? (i) : extra))
#define RING_CNT(i) (base + ((i) < extra ? 1 : 0))
    for (int k = 0; k < n - 1; k++) {
        int out = (p - k + n) % n, in = (p - k - 1 + n) % n;
        lib_request *r = lib_irecv(self, c, tmp, tmp ? RING_CNT(in) : 0, type, left,
                                   TAG_REDUCE);
        lib_send(self, c, at(acc, type, RING_OFF(out)), RING_CNT(out), type, right, TAG_REDUCE);
        lib_wait(self, c, r);
        if (c->err == MPI_SUCCESS)
            myr_op_reduce(op, type, (size_t)RING_CNT(in), tmp, at(acc, type, RING_OFF(in)));
    }
    /* Leader p now holds chunk p + 1 reduced over every process. */
    for (int k = 0; k < n - 1; k++) {
        int out = (p + 1 - k + n) % n, in = (p - k + n) % n;
        lib_request *r = lib_irecv(self, c, at(acc, type, RING_OFF(in)),
                                   acc ? RING_CNT(in) : 0, type, left, TAG_RESULT);
        lib_send(self, c, at(acc, type, RING_OFF(out)), RING_CNT(out), type, right, TAG_RESULT);
        lib_wait(self, c, r);
    }
#undef RING_OFF
#undef RING_CNT
    scratch_put(block);
}

/* A reduction whose processes' members interleave, with an op that does
 * not commute: every input to comm rank 0, folded there in rank order
 * (highest first, as MPI's convention asks), then sent to the root. */
static void reduce_in_order(myr_rank *self, call *c, const void *in, void *rbuf, int count,
                            MPI_Datatype type, MPI_Op op, int root)
{
    if (c->me != 0) {
        lib_send(self, c, in, count, type, 0, TAG_REDUCE);
    } else {
        void *b1, *b2;
        void *acc = buffer_for(type, count, &b1), *next = buffer_for(type, count, &b2);
        if (!acc || !next)
            no_memory(c);
        int n = c->sp->size;
        for (int r = n - 1; r >= 0; r--) {
            if (r > 0)
                lib_recv(self, c, next, next ? count : 0, type, r, TAG_REDUCE);
            if (c->err != MPI_SUCCESS)
                continue;   /* every message is still taken */
            if (r == 0)
                move(next, type, in, count, type);
            if (r == n - 1)
                move(acc, type, next, count, type);
            else
                myr_op_reduce(op, type, (size_t)count, next, acc);
        }
        if (root > 0)
            lib_send(self, c, acc, count, type, root, TAG_RESULT);
        else if (c->err == MPI_SUCCESS)
            move(rbuf, type, acc, count, type);   /* root 0, or an allreduce (then broadcast) */
        scratch_put(b1);
        scratch_put(b2);
    }
    if (root > 0 && c->me == root)
        lib_recv(self, c, rbuf, count, type, 0, TAG_RESULT);
}

/* Allreduce among a power-of-two number of leaders by recursive
 * doubling: log2(O) exchanges, both ways at once (reduce-then-broadcast
 * takes 2 log2(O) one-way steps). Each step combines two neighbouring
 * blocks of processes, the lower on the left: rank order holds when each
 * process's members are consecutive. */
static void leaders_allreduce_rd(myr_rank *self, call *c, void *acc, int count,
                                 MPI_Datatype type, MPI_Op op)
{
    const coll_span *sp = c->sp;
    int n = sp->nprocs, p = sp->my_proc;
    void *block;
    void *spare = buffer_for(type, count, &block);
    if (!spare)
        no_memory(c);
    void *cur = acc;
    for (int mask = 1; mask < n; mask <<= 1) {
        int q = p ^ mask;
        lib_request *r = lib_irecv(self, c, spare, spare ? count : 0, type, sp->leader[q],
                                   TAG_REDUCE);
        lib_send(self, c, cur, count, type, sp->leader[q], TAG_REDUCE);
        lib_wait(self, c, r);
        if (c->err != MPI_SUCCESS)
            continue;   /* every exchange still takes place */
        if (q < p) {
            myr_op_reduce(op, type, (size_t)count, spare, cur);   /* theirs op mine */
        } else {
            myr_op_reduce(op, type, (size_t)count, cur, spare);   /* mine op theirs */
            void *t = cur;
            cur = spare;
            spare = t;
        }
    }
    if (c->err == MPI_SUCCESS && cur != acc)
        move(acc, type, cur, count, type);
    scratch_put(block);
}

/* A small Allreduce in one round of the process's members: each puts
 * its buffers in the span, and the leader, once all have arrived, folds
 * their inputs in rank order, runs the leaders' part and writes the
 * result into every member's rbuf before the release (the members'
 * buffers stay put: they wait in the round). Where a reduce round, the
 * exchange and a broadcast round woke each rank twice. */
enum { SMALL_ALLREDUCE_MAX = 8192 };

typedef struct small_allreduce {
    myr_rank *self;
    call *c;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    int root;              /* a small Reduce's; -1: Allreduce */
} small_allreduce;

/* The leaders' allreduce of acc (each process's partial result). */
static void leaders_allreduce(myr_rank *self, call *c, void *acc, int count, MPI_Datatype type,
                              MPI_Op op)
{
    int n = c->sp->nprocs;
    if (leaders_ring_fits(c, count, type, op)) {
        leaders_allreduce_ring(self, c, acc, count, type, op);
    } else if ((n & (n - 1)) == 0 && c->sp->ordered) {
        leaders_allreduce_rd(self, c, acc, count, type, op);
    } else {
        leaders_reduce(self, c, acc, count, type, op);
        leaders_bcast(self, c, acc, count, type, 0);
    }
}

static int allreduce_small_hook(void *arg, const char **why)
{
    small_allreduce *x = arg;
    call *c = x->c;
    const coll_span *sp = c->sp;
    int nl = sp->nlocal;
    /* What the round's slots would have compared: the members' data sizes
     * and ops (the leader's are the reference). A disagreement still runs
     * the leaders' part, to carry it to the other processes. */
    bool all = x->root < 0;
    for (int i = 1; i < nl && c->err == MPI_SUCCESS; i++) {
        if (!myr_op_matches(sp->args[i].op, x->op))
            fail(c, MPI_ERR_OP, all ? "the ranks of one OS process passed different ops to "
                                      "MPI_Allreduce"
                                    : "the ranks of one OS process passed different ops to "
                                      "MPI_Reduce");
        else if (sp->args[i].root != x->root)
            fail(c, MPI_ERR_ROOT, "the ranks of one OS process passed different roots to "
                 "MPI_Reduce");
        else if (sp->args[i].bytes != sp->args[0].bytes)
            fail(c, MPI_ERR_COUNT, all ? "the ranks of one OS process passed MPI_Allreduce "
                                         "different amounts of data (counts or types)"
                                       : "the ranks of one OS process passed MPI_Reduce "
                                         "different amounts of data (counts or types)");
    }
    void *block;
    void *acc = buffer_for(x->type, x->count, &block);
    if (!acc)
        no_memory(c);
    if (c->err == MPI_SUCCESS) {
        /* acc = in[0] op (in[1] op (... op in[nl - 1])): rank order. */
        move(acc, x->type, sp->args[nl - 1].in, x->count, x->type);
        for (int i = nl - 2; i >= 0; i--)
            myr_op_reduce(x->op, x->type, (size_t)x->count, sp->args[i].in, acc);
    }
    int lcount = acc ? x->count : 0;
    if (all) {
        leaders_allreduce(x->self, c, acc, lcount, x->type, x->op);
        for (int i = 0; c->err == MPI_SUCCESS && i < nl; i++)
            move(sp->args[i].out, x->type, acc, x->count, x->type);
    } else {
        /* Process 0 gets the result (leaders_reduce), which goes to the
         * root's process's leader, into the root's buffer. */
        leaders_reduce(x->self, c, acc, lcount, x->type, x->op);
        int p = sp->my_proc, rp = proc_of_rank(c, x->root), root_sub = sp->sub_of[x->root];
        if (p == 0 && rp == 0) {
            if (c->err == MPI_SUCCESS)
                move(sp->args[root_sub].out, x->type, acc, x->count, x->type);
        } else if (p == 0) {
            lib_send(x->self, c, acc, lcount, x->type, sp->leader[rp], TAG_RESULT);
        } else if (p == rp) {
            lib_recv(x->self, c, sp->args[root_sub].out, x->count, x->type, sp->leader[0],
                     TAG_RESULT);
        }
    }
    scratch_put(block);
    return outcome(c, why);
}

static bool allreduce_small_fits(const coll_span *sp, int count, MPI_Datatype type, MPI_Op op)
{
    return (long)count * type->size <= SMALL_ALLREDUCE_MAX &&
           (sp->ordered || myr_op_commutative(op));
}

/* root < 0: Allreduce; else a Reduce to root, the same way. */
static void allreduce_small(myr_rank *self, call *c, const void *sbuf, void *rbuf, int count,
                            MPI_Datatype type, MPI_Op op, int root)
{
    c->sp->args[c->sp->sub_of[c->me]] =
        (member_args){.in = sbuf == MPI_IN_PLACE ? rbuf : sbuf, .out = rbuf,
                      .bytes = (size_t)count * type->size, .op = op, .root = root};
    small_allreduce x = {self, c, count, type, op, root};
    local_hooked(self, c, allreduce_small_hook, &x);
}

/* Reduce (to `root`, or to everyone when root < 0). */
static void reduce(myr_rank *self, call *c, const void *sbuf, void *rbuf, int count,
                   MPI_Datatype type, MPI_Op op, int root)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (allreduce_small_fits(c->sp, count, type, op)) {
        allreduce_small(self, c, sbuf, rbuf, count, type, op, root);
        return;
    }
    if (!c->sp->ordered && !myr_op_commutative(op)) {
        reduce_in_order(self, c, in, rbuf, count, type, op, root);
        if (root < 0)
            bcast(self, c, rbuf, count, type, 0);
        return;
    }
    bool leader = is_leader(c);
    /* A leader that gets the result accumulates in its own rbuf (no
     * scratch, no copy at the end); the others in scratch. */
    bool in_rbuf = leader && (root < 0 || root == c->me);
    void *block = NULL;
    void *acc = !leader ? NULL : in_rbuf ? rbuf : buffer_for(type, count, &block);
    if (leader && !acc && !in_rbuf)
        no_memory(c);   /* carried into the round: it fails before writing acc */
    myr_coll_args a = {.kind = MYR_COLL_REDUCE, .sbuf = in_rbuf && in == rbuf ? MPI_IN_PLACE : in,
                       .rbuf = acc, .count = count, .type = type, .op = op, .root = 0};
    local(self, c, a);
    int lcount = leader && !acc && !in_rbuf ? 0 : count;
    bool ring = root < 0 && leaders_ring_fits(c, count, type, op);
    if (leader && ring)
        leaders_allreduce_ring(self, c, acc, lcount, type, op);
    else if (leader)
        leaders_reduce(self, c, acc, lcount, type, op);
    if (root < 0) {
        /* Allreduce: process 0's result to every leader (unless the ring
         * gave it to all), then fanned out. */
        if (leader && !ring)
            leaders_bcast(self, c, acc, lcount, type, 0);
        myr_coll_args b = {.kind = MYR_COLL_BCAST, .rbuf = rbuf, .count = count, .type = type,
                           .root = 0};
        local(self, c, b);
    } else {
        int from = c->sp->leader[0];
        if (c->me == from && root == from)
            ;   /* acc is rbuf */
        else if (c->me == from)
            lib_send(self, c, acc, lcount, type, root, TAG_RESULT);
        else if (c->me == root)
            lib_recv(self, c, rbuf, count, type, from, TAG_RESULT);
    }
    scratch_put(block);
}

/* ---- the others, plain: when a process's members are not consecutive ---------
 *
 * Linear or pairwise point-to-point among all ranks (collocated pairs still
 * copy once, through p2p.c). */

/* The root's own block, copied rather than sent: the check a message
 * would have had. */
static bool own_block_fits(call *c, long long sent, long long room)
{
    if (sent > room)
        fail(c, MPI_ERR_TRUNCATE, "the root's own block is larger than its room for it "
             "(the counts or types disagree)");
    else if (sent < room)
        fail(c, MPI_ERR_COUNT, "the root's own block is smaller than its room for it "
             "(the counts or types disagree)");
    return sent == room;
}

static void gatherv_flat(myr_rank *self, call *c, const myr_coll_args *a, const int *rcounts,
                         const int *rdispls)
{
    int me = c->me, n = c->sp->size;
    if (me != a->root) {
        lib_send(self, c, a->sbuf, a->scount, a->stype, a->root, TAG_GATHER);
        return;
    }
    for (int i = 0; i < n; i++) {
        void *dst = at(a->rbuf, a->rtype, rdispls ? rdispls[i] : (long)i * a->rcount);
        int cnt = rcounts ? rcounts[i] : a->rcount;
        if (i != me)
            lib_recv(self, c, dst, cnt, a->rtype, i, TAG_GATHER);
        else if (a->sbuf != MPI_IN_PLACE && own_block_fits(c, (long long)a->scount *
                                                                   a->stype->size,
                                                           (long long)cnt * a->rtype->size))
            move(dst, a->rtype, a->sbuf, a->scount, a->stype);
    }
}

static void scatterv_flat(myr_rank *self, call *c, const myr_coll_args *a, const int *scounts,
                          const int *sdispls)
{
    int me = c->me, n = c->sp->size;
    if (me != a->root) {
        lib_recv(self, c, a->rbuf, a->rcount, a->rtype, a->root, TAG_SCATTER);
        return;
    }
    for (int i = 0; i < n; i++) {
        const void *src = at(a->sbuf, a->stype, sdispls ? sdispls[i] : (long)i * a->scount);
        int cnt = scounts ? scounts[i] : a->scount;
        if (i != me)
            lib_send(self, c, src, cnt, a->stype, i, TAG_SCATTER);
        else if (a->rbuf != MPI_IN_PLACE &&
                 own_block_fits(c, (long long)cnt * a->stype->size,
                                (long long)a->rcount * a->rtype->size))
            move(a->rbuf, a->rtype, src, cnt, a->stype);
    }
}

/* Gather to rank 0, then a broadcast of every block. */
static void allgatherv_flat(myr_rank *self, call *c, const myr_coll_args *a)
{
    int me = c->me, n = c->sp->size;
    myr_coll_args g = *a;
    g.root = 0;
    if (a->sbuf == MPI_IN_PLACE && me != 0) {
        /* A rank's block is already where MPI says in its rbuf. */
        g.sbuf = at(a->rbuf, a->rtype, a->rdispls ? a->rdispls[me] : (long)me * a->rcount);
        g.scount = a->rcounts ? a->rcounts[me] : a->rcount;
        g.stype = a->rtype;
    }
    gatherv_flat(self, c, &g, a->rcounts, a->rdispls);
    if (!a->rcounts) {
        bcast(self, c, a->rbuf, a->rcount * n, a->rtype, 0);
        return;
    }
    for (int i = 0; i < n; i++)
        bcast(self, c, at(a->rbuf, a->rtype, a->rdispls[i]), a->rcounts[i], a->rtype, 0);
}

/* Every pair exchanges its blocks: all receives posted, then the sends
 * (from the next rank on, so that not every rank starts at rank 0). */
static void alltoallw_flat(myr_rank *self, call *c, const myr_coll_args *a)
{
    int me = c->me, n = c->sp->size;
    bool w = a->kind == MYR_COLL_ALLTOALLW, in_place = a->sbuf == MPI_IN_PLACE;
    const void *sbuf = a->sbuf;
    const MPI_Datatype *stypes = a->stypes;
    const int *scounts = a->scounts, *sdispls = a->sdispls;
    void *copy = NULL;
    if (in_place) {
        /* Send what rbuf holds before the receives overwrite it. */
        size_t span = 0;
        for (int i = 0; i < n; i++) {
            MPI_Datatype t = w ? a->rtypes[i] : a->rtype;
            int cnt = a->rcounts ? a->rcounts[i] : a->rcount;
            long off = w ? a->rdispls[i]
                         : (a->rdispls ? a->rdispls[i] : (long)i * a->rcount) * t->extent;
            size_t end = cnt ? (size_t)(off + (MPI_Aint)(cnt - 1) * t->extent + t->true_ub)
                             : 0;
            span = end > span ? end : span;
        }
        copy = malloc(span ? span : 1);
        if (copy)
            memcpy(copy, a->rbuf, span);
        else
            no_memory(c);   /* the sends then carry the error, without data */
        sbuf = copy;
        stypes = a->rtypes;
        scounts = a->rcounts;
        sdispls = a->rdispls;
    }
    /* Alltoall: this rank's blocks to send are the size of every
     * receiver's (the signatures match), a mismatch the others would see
     * as truncation or short data, but not this rank. */
    if (a->kind == MYR_COLL_ALLTOALL && !in_place &&
        (long long)a->scount * a->stype->size != (long long)a->rcount * a->rtype->size)
        fail(c, (long long)a->scount * a->stype->size > (long long)a->rcount * a->rtype->size
                    ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
             "MPI_Alltoall: this rank's blocks to send and to receive differ in size (the "
             "ranks' counts or types disagree)");
    lib_request **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs) {
        free(copy);
        no_memory(c);
        return;
    }
    /* A block of 0 elements may name any type in Alltoallw, even
     * MPI_DATATYPE_NULL: it moves as 0 bytes. */
    for (int i = 0; i < n; i++) {
        MPI_Datatype t = w ? a->rtypes[i] : a->rtype;
        int cnt = a->rcounts ? a->rcounts[i] : a->rcount;
        void *dst = w ? (char *)a->rbuf + a->rdispls[i]
                      : at(a->rbuf, t, a->rdispls ? a->rdispls[i] : (long)i * a->rcount);
        reqs[i] = lib_irecv(self, c, dst, cnt, cnt ? t : MPI_BYTE, i, TAG_ALLTOALL);
    }
    for (int k = 0; k < n; k++) {
        int i = (me + k) % n;
        MPI_Datatype t = w ? stypes[i] : (in_place ? a->rtype : a->stype);
        int cnt = scounts ? scounts[i] : (in_place ? a->rcount : a->scount);
        const void *src = w ? (const char *)sbuf + sdispls[i]
                            : at(sbuf, t, sdispls ? sdispls[i] : (long)i * cnt);
        lib_send(self, c, src, cnt, cnt ? t : MPI_BYTE, i, TAG_ALLTOALL);
    }
    for (int i = 0; i < n; i++)
        lib_wait(self, c, reqs[i]);
    free(reqs);
    free(copy);
}

/* Inclusive (or exclusive) prefix reduction along the ranks: a chain,
 * each rank's partial result to the next. With the processes' members
 * consecutive, only O - 1 of its links cross between processes. A
 * hierarchical version (the process's own scan and reduce, a chain of
 * leaders, a fan-out) measured slower: 94 us against the chain's 26 us for
 * 1 KiB at 64 ranks over 2 processes, its four rounds in shared memory
 * costing more than the chain's collocated hops. */
static void scan(myr_rank *self, call *c, const myr_coll_args *a, bool exclusive)
{
    int me = c->me, n = c->sp->size;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *block;
    void *tmp = buffer_for(a->type, a->count, &block);
    if (!tmp)
        no_memory(c);
    if (!exclusive) {
        if (in != a->rbuf)
            move(a->rbuf, a->type, in, a->count, a->type);
        if (me > 0) {
            lib_recv(self, c, tmp, tmp ? a->count : 0, a->type, me - 1, TAG_SCAN);
            if (c->err == MPI_SUCCESS)
                myr_op_reduce(a->op, a->type, (size_t)a->count, tmp, a->rbuf);
        }
        if (me + 1 < n)
            lib_send(self, c, a->rbuf, a->count, a->type, me + 1, TAG_SCAN);
    } else {
        /* tmp: the prefix through this rank, for the next one. */
        if (tmp)
            move(tmp, a->type, in, a->count, a->type);
        if (me > 0) {
            lib_recv(self, c, a->rbuf, a->count, a->type, me - 1, TAG_SCAN);
            if (c->err == MPI_SUCCESS)
                myr_op_reduce(a->op, a->type, (size_t)a->count, a->rbuf, tmp);
        }
        if (me + 1 < n)
            lib_send(self, c, tmp, a->count, a->type, me + 1, TAG_SCAN);
    }
    scratch_put(block);
}

/* ---- the others, following the hierarchy ------------------------------------
 *
 * When each process's members are consecutive comm ranks (MPI_COMM_WORLD,
 * and any communicator whose ranks keep the processes' order), a process's
 * blocks of a v layout are one run of ranks: each moves between processes
 * as one message between leaders, described in place by a derived type
 * (no packing on that side) or packed by the local collective (the other
 * side). The data a leader sends or receives for its members moves in
 * shared memory with the process's own collectives. */

/* Where the blocks of comm ranks [from, from + n) of a layout lie (counts[i]
 * elements of type at displs[i] extents, or `count` each, one after the
 * other, when counts is NULL): buf, count and type to send or receive them
 * in one message. Out of memory: none (NULL, 0), and the error noted. */
typedef struct region {
    void *buf;
    int count;
    MPI_Datatype type;
    MPI_Datatype made;   /* to release, or NULL */
} region;

static void region_of(call *c, region *g, const void *buf, MPI_Datatype type, int count,
                      const int *counts, const int *displs, int from, int n)
{
    *g = (region){.buf = (void *)buf, .count = 0, .type = MPI_BYTE};
    if (!counts && (long)n * count <= INT_MAX) {
        g->buf = at(buf, type, (long)from * count);
        g->count = n * count;
        g->type = type;
        return;
    }
    myr_dt_entry *e = malloc((size_t)(n ? n : 1) * sizeof *e);
    if (!e) {
        no_memory(c);
        return;
    }
    int k = 0;
    for (int i = from; i < from + n; i++) {
        int cnt = counts ? counts[i] : count;
        if (cnt > 0)
            e[k++] = (myr_dt_entry){.disp = (MPI_Aint)(displs ? displs[i] : (long)i * count) *
                                            type->extent,
                                    .blocklen = cnt, .type = type};
    }
    int err = k ? myr_datatype_create(&g->made, k, e, 1, 0, 0) : MPI_SUCCESS;
    free(e);
    if (err) {
        no_memory(c);
        return;
    }
    if (k) {
        g->made->committed = true;   /* built here, used here only */
        g->type = g->made;
        g->count = 1;
    }
}

static void region_release(region *g)
{
    if (g->made)
        myr_datatype_release(g->made);
}

/* The comm ranks' counts and displacements of this process's members,
 * for a local v collective (NULL counts: `count` each, rank-major). NULL
 * when out of memory (noted). */
static void local_layout(call *c, int count, const int *counts, const int *displs,
                         int **lcounts, int **ldispls)
{
    int nl = c->sp->nlocal, base = c->sp->leader[c->sp->my_proc];
    *lcounts = malloc((size_t)nl * sizeof **lcounts);
    *ldispls = malloc((size_t)nl * sizeof **ldispls);
    if (!*lcounts || !*ldispls) {
        free(*lcounts);
        free(*ldispls);
        *lcounts = *ldispls = NULL;
        no_memory(c);
        return;
    }
    for (int i = 0; i < nl; i++) {
        (*lcounts)[i] = counts ? counts[base + i] : count;
        (*ldispls)[i] = displs ? displs[base + i] : (base + i) * count;
    }
}

/* The members' byte counts at the leader (sizes[nl], offsets[nl]) and
 * their total: everyone's `mine` when all are alike, else a gather among
 * the members; returns scratch room for them all at the leader (NULL
 * elsewhere, or when out of memory: noted). */
static void *member_bytes(myr_rank *self, call *c, bool alike, int mine, int **sizes,
                          int **offsets, long *total)
{
    int nl = c->sp->nlocal;
    bool leader = is_leader(c);
    *sizes = *offsets = NULL;
    *total = 0;
    if (leader) {
        *sizes = malloc((size_t)nl * sizeof **sizes);
        *offsets = malloc((size_t)nl * sizeof **offsets);
        if (!*sizes || !*offsets)
            no_memory(c);
    }
    if (!alike) {
        myr_coll_args g = {.kind = MYR_COLL_GATHER, .sbuf = &mine, .scount = 1,
                           .stype = MPI_INT, .rbuf = *sizes, .rcount = 1, .rtype = MPI_INT,
                           .root = 0};
        local(self, c, g);
    }
    if (!leader || c->err != MPI_SUCCESS)
        return NULL;
    long t = 0;
    for (int i = 0; i < nl; i++) {
        if (alike)
            (*sizes)[i] = mine;
        (*offsets)[i] = (int)t;
        t += (*sizes)[i];
    }
    *total = t;
    if (t > INT_MAX) {
        fail(c, MPI_ERR_COUNT, "more than 2 GiB from one OS process in one collective");
        *total = 0;
        return NULL;
    }
    void *pack = scratch_get(t ? (size_t)t : 1);
    if (!pack)
        no_memory(c);
    return pack;
}

static void gatherv_hier(myr_rank *self, call *c, const myr_coll_args *a, const int *rcounts,
                         const int *rdispls)
{
    const coll_span *sp = c->sp;
    int root = a->root, rp = proc_of_rank(c, root), p = sp->my_proc, n = sp->nprocs;
    if (p == rp) {
        /* Other processes' blocks straight into place, this one's by a local gather. */
        lib_request **reqs = NULL;
        region *g = NULL;
        int *lcounts = NULL, *ldispls = NULL;
        myr_coll_args l = {.kind = MYR_COLL_GATHERV, .sbuf = a->sbuf, .scount = a->scount,
                           .stype = a->stype, .rbuf = a->rbuf, .rtype = a->rtype,
                           .root = sp->sub_of[root]};
        if (c->me == root) {
            reqs = calloc((size_t)n, sizeof *reqs);
            g = calloc((size_t)n, sizeof *g);
            if (!reqs || !g)
                no_memory(c);
            for (int q = 0; reqs && g && q < n; q++)
                if (q != p) {
                    region_of(c, &g[q], a->rbuf, a->rtype, a->rcount, rcounts, rdispls,
                              sp->leader[q], sp->proc_count[q]);
                    reqs[q] = lib_irecv(self, c, g[q].buf, g[q].count, g[q].type,
                                        sp->leader[q], TAG_GATHER);
                }
            local_layout(c, a->rcount, rcounts, rdispls, &lcounts, &ldispls);
            l.rcounts = lcounts;
            l.rdispls = ldispls;
        }
        local(self, c, l);
        for (int q = 0; reqs && q < n; q++)
            lib_wait(self, c, reqs[q]);
        for (int q = 0; g && q < n; q++)
            region_release(&g[q]);
        free(reqs);
        free(g);
        free(lcounts);
        free(ldispls);
        return;
    }
    /* Packed at the leader by a local gather, then one message to the root. */
    int mine = (int)((long)a->scount * a->stype->size);
    int *sizes, *offsets;
    long total;
    void *pack = member_bytes(self, c, a->kind == MYR_COLL_GATHER, mine, &sizes, &offsets,
                              &total);
    myr_coll_args l = {.kind = MYR_COLL_GATHERV, .sbuf = a->sbuf, .scount = a->scount,
                       .stype = a->stype, .rbuf = pack, .rtype = MPI_BYTE, .rcounts = sizes,
                       .rdispls = offsets, .root = 0};
    local(self, c, l);
    if (is_leader(c))
        lib_send(self, c, pack, (int)total, MPI_BYTE, root, TAG_GATHER);
    scratch_put(pack);
    free(sizes);
    free(offsets);
}

static void scatterv_hier(myr_rank *self, call *c, const myr_coll_args *a, const int *scounts,
                          const int *sdispls)
{
    const coll_span *sp = c->sp;
    if (!sp->ordered) {
        scatterv_flat(self, c, a, scounts, sdispls);
        return;
    }
    int root = a->root, rp = proc_of_rank(c, root), p = sp->my_proc, n = sp->nprocs;
    if (p == rp) {
        /* Each other process's blocks straight from place, this one's by a
         * local scatter. */
        int *lcounts = NULL, *ldispls = NULL;
        myr_coll_args l = {.kind = MYR_COLL_SCATTERV, .sbuf = a->sbuf, .stype = a->stype,
                           .rbuf = a->rbuf, .rcount = a->rcount, .rtype = a->rtype,
                           .root = sp->sub_of[root]};
        if (c->me == root) {
            for (int k = 1; k < n; k++) {
                int q = (p + k) % n;
                region g;
                region_of(c, &g, a->sbuf, a->stype, a->scount, scounts, sdispls,
                          sp->leader[q], sp->proc_count[q]);
                lib_send(self, c, g.buf, g.count, g.type, sp->leader[q], TAG_SCATTER);
                region_release(&g);
            }
            local_layout(c, a->scount, scounts, sdispls, &lcounts, &ldispls);
            l.scounts = lcounts;
            l.sdispls = ldispls;
        }
        local(self, c, l);
        free(lcounts);
        free(ldispls);
        return;
    }
    int mine = (int)((long)a->rcount * a->rtype->size);
    int *sizes, *offsets;
    long total;
    void *pack = member_bytes(self, c, a->kind == MYR_COLL_SCATTER, mine, &sizes, &offsets,
                              &total);
    if (is_leader(c))
        lib_recv(self, c, pack, pack ? (int)total : 0, MPI_BYTE, root, TAG_SCATTER);
    myr_coll_args l = {.kind = MYR_COLL_SCATTERV, .sbuf = pack, .stype = MPI_BYTE,
                       .scounts = sizes, .sdispls = offsets, .rbuf = a->rbuf,
                       .rcount = a->rcount, .rtype = a->rtype, .root = 0};
    local(self, c, l);
    scratch_put(pack);
    free(sizes);
    free(offsets);
}

/* Gather at each leader, leaders swap their processes' blocks, then every
 * member takes the whole from its leader. */
static void allgatherv_hier(myr_rank *self, call *c, const myr_coll_args *a)
{
    const coll_span *sp = c->sp;
    int me = c->me, n = sp->nprocs, p = sp->my_proc, size = sp->size;
    const int *rcounts = a->rcounts, *rdispls = a->rdispls;
    bool leader = is_leader(c);
    myr_coll_args l = {.kind = MYR_COLL_GATHERV, .sbuf = a->sbuf, .scount = a->scount,
                       .stype = a->stype, .rbuf = a->rbuf, .rtype = a->rtype, .root = 0};
    if (a->sbuf == MPI_IN_PLACE && !leader) {
        l.sbuf = at(a->rbuf, a->rtype, rdispls ? rdispls[me] : (long)me * a->rcount);
        l.scount = rcounts ? rcounts[me] : a->rcount;
        l.stype = a->rtype;
    }
    int *lcounts = NULL, *ldispls = NULL;
    if (leader)
        local_layout(c, a->rcount, rcounts, rdispls, &lcounts, &ldispls);
    l.rcounts = lcounts;
    l.rdispls = ldispls;
    local(self, c, l);
    free(lcounts);
    free(ldispls);
    if (leader && n > 1) {
        lib_request **reqs = calloc((size_t)n, sizeof *reqs);
        region *g = calloc((size_t)n, sizeof *g);
        if (!reqs || !g)
            no_memory(c);
        for (int q = 0; reqs && g && q < n; q++) {
            region_of(c, &g[q], a->rbuf, a->rtype, a->rcount, rcounts, rdispls, sp->leader[q],
                      sp->proc_count[q]);
            if (q != p)
                reqs[q] = lib_irecv(self, c, g[q].buf, g[q].count, g[q].type, sp->leader[q],
                                    TAG_GATHER);
        }
        for (int k = 1; k < n; k++) {
            int q = (p + k) % n;
            lib_send(self, c, g ? g[p].buf : NULL, g ? g[p].count : 0, g ? g[p].type : MPI_BYTE,
                     sp->leader[q], TAG_GATHER);
        }
        for (int q = 0; reqs && q < n; q++)
            lib_wait(self, c, reqs[q]);
        for (int q = 0; g && q < n; q++)
            region_release(&g[q]);
        free(reqs);
        free(g);
    }
    /* The leader's error reaches its members through the broadcast. */
    region whole;
    region_of(c, &whole, a->rbuf, a->rtype, a->rcount, rcounts, rdispls, 0, size);
    myr_coll_args b = {.kind = MYR_COLL_BCAST, .rbuf = whole.buf, .count = whole.count,
                       .type = whole.type, .root = 0};
    local(self, c, b);
    region_release(&whole);
}

/* A small Allgather in one round of the process's members, as a small
 * Allreduce: each puts its buffers in the span, and the leader, once all
 * have arrived, packs their blocks in rank order, swaps its process's
 * with the other leaders and copies the whole into every member's buffer
 * (each with its own types) before the release. Where a gather, the
 * leaders' exchange and a broadcast were two rounds of the members. Only
 * for an ordered span: a process's blocks are then one piece. */
enum { SMALL_ALLGATHER_MAX = 8192 };

typedef struct small_allgather {
    myr_rank *self;
    call *c;
    size_t bytes;          /* of one rank's block (the leader's receive block) */
} small_allgather;

static bool allgather_small_fits(const coll_span *sp, const myr_coll_args *a)
{
    return a->kind == MYR_COLL_ALLGATHER && sp->ordered &&
           (long long)sp->size * a->rcount * a->rtype->size <= SMALL_ALLGATHER_MAX;
}

/* A member's part of it: its send block (in place: its block of rbuf). */
static member_args allgather_member(const call *c, const myr_coll_args *a)
{
    member_args m = {.out = a->rbuf, .type = a->rtype,
                     .out_bytes = (size_t)a->rcount * a->rtype->size};
    if (a->sbuf == MPI_IN_PLACE) {   /* its send count and type are ignored */
        m.in = at(a->rbuf, a->rtype, (long)c->me * a->rcount);
        m.in_type = a->rtype;
        m.bytes = m.out_bytes;
    } else {
        m.in = a->sbuf;
        m.in_type = a->stype;
        m.bytes = (size_t)a->scount * a->stype->size;
    }
    return m;
}

static int allgather_small_hook(void *arg, const char **why)
{
    small_allgather *x = arg;
    call *c = x->c;
    const coll_span *sp = c->sp;
    int nl = sp->nlocal, n = sp->nprocs, p = sp->my_proc;
    size_t b = x->bytes;
    for (int i = 0; i < nl && c->err == MPI_SUCCESS; i++)
        if (sp->args[i].bytes != b || sp->args[i].out_bytes != b)
            fail(c, MPI_ERR_COUNT, "the ranks of one OS process passed MPI_Allgather different "
                 "amounts of data (counts or types)");
    void *block;
    char *all = buffer_for(MPI_BYTE, (int)(b * (size_t)sp->size), &block);
    if (!all)
        no_memory(c);
    if (c->err == MPI_SUCCESS)
        for (int i = 0; i < nl; i++)
            myr_datatype_transfer(all + (size_t)sp->local_rank[i] * b, MPI_BYTE,
                                  sp->args[i].in, sp->args[i].in_type, b);
    /* Any error is carried to the other leaders by the messages (lib_send). */
    lib_request **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        no_memory(c);
    for (int q = 0; reqs && q < n; q++)
        if (q != p)
            reqs[q] = lib_irecv(x->self, c, all ? all + (size_t)sp->leader[q] * b : NULL,
                                all ? (int)(b * (size_t)sp->proc_count[q]) : 0, MPI_BYTE,
                                sp->leader[q], TAG_GATHER);
    for (int k = 1; k < n; k++) {
        int q = (p + k) % n;
        lib_send(x->self, c, all ? all + (size_t)sp->leader[p] * b : NULL,
                 all ? (int)(b * (size_t)sp->proc_count[p]) : 0, MPI_BYTE, sp->leader[q],
                 TAG_GATHER);
    }
    for (int q = 0; reqs && q < n; q++)
        lib_wait(x->self, c, reqs[q]);
    free(reqs);
    for (int i = 0; c->err == MPI_SUCCESS && i < nl; i++)
        myr_datatype_transfer(sp->args[i].out, sp->args[i].type, all, MPI_BYTE,
                              b * (size_t)sp->size);
    if (all)
        scratch_put(block);
    return outcome(c, why);
}

static void allgather_small(myr_rank *self, call *c, const myr_coll_args *a)
{
    c->sp->args[c->sp->sub_of[c->me]] = allgather_member(c, a);
    small_allgather x = {self, c, (size_t)a->rcount * a->rtype->size};
    local_hooked(self, c, allgather_small_hook, &x);
}

/* Alltoall of small blocks: a rank's blocks for other processes go through
 * the leaders (gathered, one message per pair of processes, scattered);
 * blocks between collocated ranks by the process's own alltoall. For
 * larger blocks the pairwise exchange (alltoallw_flat) moves the same data
 * with fewer copies. */
enum { ALLTOALL_HIER_MAX_BLOCK = 16384, ALLTOALL_HIER_MAX_TOTAL = 64 << 20 };

static bool alltoall_hier_fits(const call *c, const myr_coll_args *a)
{
    /* The same answer in every rank: it sees the same size and bytes. */
    if (a->kind != MYR_COLL_ALLTOALL || !c->sp->ordered)
        return false;   /* (the v and w forms have no rtype) */
    long bytes = (long)a->rcount * a->rtype->size, n = c->sp->size;
    return bytes <= ALLTOALL_HIER_MAX_BLOCK && n * n * bytes <= ALLTOALL_HIER_MAX_TOTAL;
}

/* The leaders' part of alltoall_hier: `all` holds [member][remote rank]
 * blocks of bb bytes (row bytes a member), `mix` gets the same arranged
 * for the scatter; xch is room for each other process's out and in. */
static void alltoall_leaders(myr_rank *self, call *c, const char *all, char *mix, char *xch,
                             size_t bb, size_t row)
{
    const coll_span *sp = c->sp;
    int np = sp->nprocs, p = sp->my_proc, nl = sp->nlocal, base = sp->leader[p];
    bool have = all && mix && xch;   /* (else out of memory: no data, only messages) */
    /* For process q: [my member m][q's member j] out, [q's member j][my member m] in. */
    lib_request **reqs = calloc((size_t)np, sizeof *reqs);
    size_t *xoff = calloc((size_t)np, sizeof *xoff);
    if (!reqs || !xoff) {
        free(reqs);
        free(xoff);
        no_memory(c);
        return;
    }
    size_t o = 0;
    for (int q = 0; q < np; q++) {
        if (q == p)
            continue;
        int nq = sp->proc_count[q], rq = sp->leader[q] < base ? sp->leader[q]
                                                               : sp->leader[q] - nl;
        size_t piece = (size_t)nq * bb, part = (size_t)nl * piece;
        xoff[q] = o;
        for (int m = 0; have && m < nl; m++)
            memcpy(xch + o + m * piece, all + m * row + (size_t)rq * bb, piece);
        reqs[q] = lib_irecv(self, c, have ? xch + o + part : NULL, have ? (int)part : 0,
                            MPI_BYTE, sp->leader[q], TAG_ALLTOALL);
        o += 2 * part;
    }
    for (int k = 1; k < np; k++) {
        int q = (p + k) % np;
        lib_send(self, c, have ? xch + xoff[q] : NULL,
                 have ? (int)((size_t)nl * sp->proc_count[q] * bb) : 0, MPI_BYTE, sp->leader[q],
                 TAG_ALLTOALL);
    }
    for (int q = 0; q < np; q++)
        lib_wait(self, c, reqs[q]);
    for (int q = 0; c->err == MPI_SUCCESS && q < np; q++) {
        if (q == p)
            continue;
        int nq = sp->proc_count[q], rq = sp->leader[q] < base ? sp->leader[q]
                                                               : sp->leader[q] - nl;
        const char *got = xch + xoff[q] + (size_t)nl * nq * bb;
        for (int j = 0; j < nq; j++)
            for (int m = 0; m < nl; m++)
                memcpy(mix + m * row + (size_t)(rq + j) * bb, got + ((size_t)j * nl + m) * bb,
                       bb);
    }
    free(reqs);
    free(xoff);
}

static void alltoall_hier(myr_rank *self, call *c, const myr_coll_args *a)
{
    const coll_span *sp = c->sp;
    int n = sp->size, p = sp->my_proc, nl = sp->nlocal;
    int base = sp->leader[p], remote = n - nl;
    bool in_place = a->sbuf == MPI_IN_PLACE, leader = is_leader(c);
    const void *src = in_place ? a->rbuf : a->sbuf;
    MPI_Datatype st = in_place ? a->rtype : a->stype;
    int sc = in_place ? a->rcount : a->scount;
    size_t bb = (size_t)a->rcount * a->rtype->size;   /* bytes per block */
    size_t row = (size_t)remote * bb;                 /* a rank's remote blocks */
    size_t rows = (size_t)nl * row + 1;
    char *out = scratch_get(row + 1), *in = scratch_get(row + 1);
    char *all = leader ? scratch_get(rows) : NULL;       /* [member][remote rank] */
    char *mix = leader ? scratch_get(rows) : NULL;       /* the same, arrived, to scatter */
    char *xch = leader ? scratch_get(2 * rows) : NULL;   /* per process: out, then in */
    if (!out || !in || (leader && (!all || !mix || !xch)))
        no_memory(c);   /* carried into the rounds, which then move nothing */
    /* Every rank's blocks are the size of every rank's receive blocks (MPI
     * asks the signatures to match): sizes that differ are the user's
     * error, and `out` has room for blocks of bb bytes only. */
    if ((size_t)sc * st->size != bb)
        fail(c, (size_t)sc * st->size > bb ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
             "MPI_Alltoall: this rank's blocks to send and to receive differ in size (the "
             "ranks' counts or types disagree)");
    /* Remote ranks in comm order, this process's run left out. */
    int after = base + nl;
    if (out && c->err == MPI_SUCCESS) {
        move(out, MPI_BYTE, src, base * sc, st);
        move(out + (size_t)base * bb, MPI_BYTE, at(src, st, (long)after * sc), (n - after) * sc,
             st);
    }
    /* Collocated blocks: the process's own alltoall (in place works too). */
    myr_coll_args l = {.kind = MYR_COLL_ALLTOALL,
                       .sbuf = in_place ? MPI_IN_PLACE : at(a->sbuf, a->stype, (long)base * sc),
                       .scount = sc, .stype = st, .rbuf = at(a->rbuf, a->rtype,
                                                             (long)base * a->rcount),
                       .rcount = a->rcount, .rtype = a->rtype};
    local(self, c, l);
    myr_coll_args g = {.kind = MYR_COLL_GATHER, .sbuf = out, .scount = (int)row,
                       .stype = MPI_BYTE, .rbuf = all, .rcount = (int)row, .rtype = MPI_BYTE};
    local(self, c, g);
    if (leader)
        alltoall_leaders(self, c, all, mix, xch, bb, row);
    /* The leader's error reaches its members through the scatter. */
    myr_coll_args s = {.kind = MYR_COLL_SCATTER, .sbuf = mix, .scount = (int)row,
                       .stype = MPI_BYTE, .rbuf = in, .rcount = (int)row, .rtype = MPI_BYTE};
    local(self, c, s);
    if (c->err == MPI_SUCCESS) {
        move(a->rbuf, a->rtype, in, (int)((size_t)base * bb), MPI_BYTE);
        move(at(a->rbuf, a->rtype, (long)after * a->rcount), a->rtype, in + (size_t)base * bb,
             (int)((size_t)(n - after) * bb), MPI_BYTE);
    }
    scratch_put(out);
    scratch_put(in);
    scratch_put(all);
    scratch_put(mix);
    scratch_put(xch);
}

/* Alltoallv and Alltoallw of an ordered communicator. Unlike Alltoall,
 * no rank can tell from its own arguments how much the others move, so
 * the choice between the hierarchy and pairwise messages is agreed:
 *   1. each member gives its leader the bytes it sends to and receives
 *      from every rank of the other processes (a local gather);
 *   2. the leaders agree (an allreduce) whether every pair of processes
 *      moves at most ALLTOALLV_HIER_MAX_PAIR bytes each way and every
 *      process at most ALLTOALLV_HIER_MAX_OUT in all, each way, and tell their
 *      members (a local broadcast, which carries any error too);
 *   3. if so: the process's own blocks move in shared memory (its local
 *      Alltoallv/w), each member packs its remote blocks in comm order
 *      into one row gathered at the leader, the leaders exchange one
 *      message per pair of processes, and each member's row of arrivals
 *      is scattered back and unpacked. Else: pairwise (alltoallw_flat).
 * Small exchanges then cost O - 1 messages per process instead of one per
 * pair of ranks; large ones keep their single transfer. At most
 * ALLTOALLV_HIER_MAX_RANKS ranks (known to all): the leader's table of
 * sizes grows with the square of the size. */
enum {
    ALLTOALLV_HIER_MAX_RANKS = 1024,
    ALLTOALLV_HIER_MAX_PAIR = 1 << 20,
    ALLTOALLV_HIER_MAX_OUT = 64 << 20,
};

/* One block of a v/w layout: its place and its bytes. For Alltoallw the
 * displacements are in bytes, for Alltoallv in the type's extents. */
typedef struct vw_side {
    const void *buf;
    const int *counts, *displs;
    MPI_Datatype type;
    const MPI_Datatype *types;   /* Alltoallw */
} vw_side;

static MPI_Datatype vw_type(const vw_side *v, int i)
{
    return v->types ? v->types[i] : v->type;
}

static void *vw_at(const vw_side *v, int i)
{
    return v->types ? (char *)v->buf + v->displs[i] : at(v->buf, v->type, v->displs[i]);
}

static long long vw_bytes(const vw_side *v, int i)
{
    return v->counts[i] > 0 ? (long long)v->counts[i] * vw_type(v, i)->size : 0;
}

/* A block's bytes as the leader's table holds them: anything above the
 * pair limit is as good as the limit plus one (it rules the hierarchy
 * out), and fits an int. */
static int vw_clamped(long long bytes)
{
    return bytes > ALLTOALLV_HIER_MAX_PAIR ? ALLTOALLV_HIER_MAX_PAIR + 1 : (int)bytes;
}

/* The leader's decision from the table (rows of 2 nr ints per member:
 * bytes to each remote rank, then from each, remote ranks in comm order). */
static int vw_small_enough(const call *c, const int *table)
{
    const coll_span *sp = c->sp;
    int nl = sp->nlocal, nr = sp->size - nl, p = sp->my_proc;
    long long all_out = 0, all_in = 0;
    for (int q = 0, r0 = 0; q < sp->nprocs; q++) {
        if (q == p)
            continue;
        long long out = 0, in = 0;
        for (int m = 0; m < nl; m++)
            for (int j = r0; j < r0 + sp->proc_count[q]; j++) {
                out += table[(size_t)m * 2 * nr + j];
                in += table[(size_t)m * 2 * nr + nr + j];
            }
        if (out > ALLTOALLV_HIER_MAX_PAIR || in > ALLTOALLV_HIER_MAX_PAIR)
            return 0;
        all_out += out;
        all_in += in;
        r0 += sp->proc_count[q];
    }
    return all_out <= ALLTOALLV_HIER_MAX_OUT && all_in <= ALLTOALLV_HIER_MAX_OUT;
}

/* Step 3's leader part. `table` as above; `rows` holds each member's
 * packed remote blocks (member m's row at soff[m]), `mix` gets each
 * member's arrivals (its row at roff[m]), both in comm order of the
 * remote ranks. To process q goes [my member m][q's member j], from it
 * comes [q's member j][my member m]. NULL rows or mix (out of memory,
 * noted): the messages go without data. */
static void alltoallv_leaders(myr_rank *self, call *c, const int *table, const char *rows,
                              const int *soff, char *mix, const int *roff)
{
    const coll_span *sp = c->sp;
    int np = sp->nprocs, p = sp->my_proc, nl = sp->nlocal, nr = sp->size - nl;
    /* Per process: its request, packed blocks out and in, their bytes
     * and its first column; per member: its place in its row. */
    lib_request **reqs = calloc((size_t)np, sizeof *reqs);
    char **out = calloc((size_t)2 * np, sizeof *out), **in = out ? out + np : NULL;
    int *ints = calloc((size_t)3 * np + nl, sizeof *ints);
    int *obytes = ints, *ibytes = ints ? ints + np : NULL, *first = ints ? ints + 2 * np : NULL;
    int *cur = ints ? ints + 3 * np : NULL;
    if (!reqs || !out || !ints) {
        free(reqs);
        free(out);
        free(ints);
        /* Still one message each way per pair, carrying the error. */
        no_memory(c);
        for (int k = 1; k < np; k++)
            lib_send(self, c, NULL, 0, MPI_BYTE, sp->leader[(p + k) % np], TAG_ALLTOALL);
        for (int k = 1; k < np; k++)
            lib_recv(self, c, NULL, 0, MPI_BYTE, sp->leader[(p - k + np) % np], TAG_ALLTOALL);
        return;
    }
    for (int q = 0, col = 0; q < np; q++) {
        if (q == p)
            continue;
        first[q] = col;
        for (int m = 0; m < nl; m++)
            for (int j = col; j < col + sp->proc_count[q]; j++) {
                obytes[q] += table[(size_t)m * 2 * nr + j];
                ibytes[q] += table[(size_t)m * 2 * nr + nr + j];
            }
        col += sp->proc_count[q];
        if (rows && mix) {
            out[q] = scratch_get((size_t)obytes[q] + 1);
            in[q] = scratch_get((size_t)ibytes[q] + 1);
            if (!out[q] || !in[q])
                no_memory(c);
        }
    }
    /* Pack: q in comm order walks each member's row once. */
    for (int m = 0; m < nl; m++)
        cur[m] = soff[m];
    for (int q = 0; q < np; q++) {
        if (q == p || !out[q])
            continue;
        for (int m = 0, o = 0; m < nl; m++) {
            int len = 0;
            for (int j = first[q]; j < first[q] + sp->proc_count[q]; j++)
                len += table[(size_t)m * 2 * nr + j];
            memcpy(out[q] + o, rows + cur[m], (size_t)len);
            cur[m] += len;
            o += len;
        }
    }
    for (int q = 0; q < np; q++)
        if (q != p)
            reqs[q] = lib_irecv(self, c, in[q], in[q] ? ibytes[q] : 0, MPI_BYTE, sp->leader[q],
                                TAG_ALLTOALL);
    for (int k = 1; k < np; k++) {
        int q = (p + k) % np;
        bool data = out[q] && in[q];
        lib_send(self, c, data ? out[q] : NULL, data ? obytes[q] : 0, MPI_BYTE, sp->leader[q],
                 TAG_ALLTOALL);
    }
    for (int q = 0; q < np; q++)
        lib_wait(self, c, reqs[q]);
    /* Unpack into each member's row, again in comm order. */
    for (int m = 0; m < nl; m++)
        cur[m] = roff[m];
    for (int q = 0; c->err == MPI_SUCCESS && q < np; q++) {
        if (q == p)
            continue;
        for (int j = first[q], o = 0; j < first[q] + sp->proc_count[q]; j++)
            for (int m = 0; m < nl; m++) {
                int len = table[(size_t)m * 2 * nr + nr + j];
                memcpy(mix + cur[m], in[q] + o, (size_t)len);
                cur[m] += len;
                o += len;
            }
    }
    for (int q = 0; q < np; q++) {
        scratch_put(out[q]);
        scratch_put(in[q]);
    }
    free(reqs);
    free(out);
    free(ints);
}

/* False: not taken (the caller runs alltoallw_flat); every rank of the
 * communicator answers alike. */
static bool alltoallv_hier(myr_rank *self, call *c, const myr_coll_args *a)
{
    const coll_span *sp = c->sp;
    if (a->kind == MYR_COLL_ALLTOALL || !sp->ordered || sp->size > ALLTOALLV_HIER_MAX_RANKS)
        return false;
    int n = sp->size, nl = sp->nlocal, nr = n - nl, base = sp->leader[sp->my_proc];
    int after = base + nl;
    bool w = a->kind == MYR_COLL_ALLTOALLW, in_place = a->sbuf == MPI_IN_PLACE;
    bool leader = is_leader(c);
    vw_side rs = {.buf = a->rbuf, .counts = a->rcounts, .displs = a->rdispls,
                  .type = a->rtype, .types = w ? a->rtypes : NULL};
    /* In place, a rank sends what its receive layout holds. */
    vw_side ss = in_place ? rs
                          : (vw_side){.buf = a->sbuf, .counts = a->scounts, .displs = a->sdispls,
                                      .type = a->stype, .types = w ? a->stypes : NULL};

    /* 1. Sizes to the leader; remote rank j's column: j, or j - nl past this process. */
    int *mine = malloc((size_t)(2 * nr + 1) * sizeof *mine);
    int *table = leader ? scratch_get((size_t)nl * 2 * nr * sizeof *table + 1) : NULL;
    if (!mine || (leader && !table))
        no_memory(c);
    long long sbytes = 0, rbytes = 0;
    for (int j = 0; j < n; j++) {
        if (j >= base && j < after)
            continue;
        int col = j < base ? j : j - nl;
        long long sb = vw_bytes(&ss, j), rb = vw_bytes(&rs, j);
        sbytes += sb;
        rbytes += rb;
        if (mine) {
            mine[col] = vw_clamped(sb);
            mine[nr + col] = vw_clamped(rb);
        }
    }
    myr_coll_args g = {.kind = MYR_COLL_GATHER, .sbuf = mine, .scount = mine ? 2 * nr : 0,
                       .stype = MPI_INT, .rbuf = table, .rcount = table ? 2 * nr : 0,
                       .rtype = MPI_INT};
    local(self, c, g);

    /* 2. The agreement. */
    int small = leader && c->err == MPI_SUCCESS ? vw_small_enough(c, table) : 0;
    if (leader)
        leaders_allreduce(self, c, &small, 1, MPI_INT, MPI_MIN);
    myr_coll_args b = {.kind = MYR_COLL_BCAST, .rbuf = &small, .count = 1, .type = MPI_INT};
    local(self, c, b);
    if (c->err != MPI_SUCCESS || !small) {
        /* Every rank got the same answer, or the same carried error (the
         * leaders' exchange and the broadcast carry it): the pairwise
         * messages then carry it on, without data. */
        free(mine);
        scratch_put(table);
        return false;
    }

    /* 3. This process's blocks, in shared memory. */
    myr_coll_args l = {.kind = a->kind,
                       .sbuf = in_place ? MPI_IN_PLACE : a->sbuf,
                       .scounts = in_place ? NULL : a->scounts + base,
                       .sdispls = in_place ? NULL : a->sdispls + base,
                       .stype = a->stype, .stypes = w && !in_place ? a->stypes + base : NULL,
                       .rbuf = a->rbuf, .rcounts = a->rcounts + base,
                       .rdispls = a->rdispls + base, .rtype = a->rtype,
                       .rtypes = w ? a->rtypes + base : NULL};
    /* The remote blocks packed first: in place, the local exchange
     * rewrites only this process's blocks, but packing before it keeps
     * the order obvious. (The sums fit an int: at most MAX_OUT.) */
    char *row = scratch_get((size_t)sbytes + 1), *got = scratch_get((size_t)rbytes + 1);
    if (!row || !got)
        no_memory(c);
    for (int j = 0, o = 0; row && j < n; j++) {
        if (j >= base && j < after)
            continue;
        if (vw_bytes(&ss, j) == 0)
            continue;   /* (Alltoallw: the type of an empty block may be anything) */
        move(row + o, MPI_BYTE, vw_at(&ss, j), ss.counts[j], vw_type(&ss, j));
        o += (int)vw_bytes(&ss, j);
    }
    local(self, c, l);

    /* Rows to the leader, the exchange, rows back. */
    int *scounts = NULL, *soff = NULL, *rcounts = NULL, *roff = NULL;
    char *rows = NULL, *mix = NULL;
    if (leader && table) {
        scounts = malloc((size_t)nl * sizeof *scounts);
        soff = malloc((size_t)nl * sizeof *soff);
        rcounts = malloc((size_t)nl * sizeof *rcounts);
        roff = malloc((size_t)nl * sizeof *roff);
        long long st = 0, rt = 0;
        for (int m = 0; scounts && soff && rcounts && roff && m < nl; m++) {
            long long sm = 0, rm = 0;
            for (int j = 0; j < nr; j++) {
                sm += table[(size_t)m * 2 * nr + j];
                rm += table[(size_t)m * 2 * nr + nr + j];
            }
            scounts[m] = (int)sm;
            soff[m] = (int)st;
            rcounts[m] = (int)rm;
            roff[m] = (int)rt;
            st += sm;
            rt += rm;
        }
        rows = scratch_get((size_t)st + 1);
        mix = scratch_get((size_t)rt + 1);
        if (!scounts || !soff || !rcounts || !roff || !rows || !mix)
            no_memory(c);
    }
    bool room = !leader || (scounts && soff && rcounts && roff && rows && mix);
    myr_coll_args gv = {.kind = MYR_COLL_GATHERV, .sbuf = row, .scount = row ? (int)sbytes : 0,
                        .stype = MPI_BYTE, .rbuf = rows, .rcounts = room ? scounts : NULL,
                        .rdispls = room ? soff : NULL, .rtype = MPI_BYTE};
    if (room)
        local(self, c, gv);
    else
        local(self, c, (myr_coll_args){.kind = MYR_COLL_BARRIER});   /* carries the error */
    if (leader)
        alltoallv_leaders(self, c, table, room ? rows : NULL, soff, room ? mix : NULL, roff);
    /* The leader's error reaches its members through the scatter. */
    myr_coll_args sv = {.kind = MYR_COLL_SCATTERV, .sbuf = mix,
                        .scounts = room ? rcounts : NULL, .sdispls = room ? roff : NULL,
                        .stype = MPI_BYTE, .rbuf = got, .rcount = got ? (int)rbytes : 0,
                        .rtype = MPI_BYTE};
    if (room)
        local(self, c, sv);
    else
        local(self, c, (myr_coll_args){.kind = MYR_COLL_BARRIER});
    for (int j = 0, o = 0; c->err == MPI_SUCCESS && got && j < n; j++) {
        if (j >= base && j < after)
            continue;
        int len = (int)vw_bytes(&rs, j);
        if (len)
            move(vw_at(&rs, j), vw_type(&rs, j), got + o, len, MPI_BYTE);
        o += len;
    }
    free(mine);
    free(scounts);
    free(soff);
    free(rcounts);
    free(roff);
    scratch_put(table);
    scratch_put(row);
    scratch_put(got);
    scratch_put(rows);
    scratch_put(mix);
    return true;
}

/* Reduce the whole vector to rank 0, then scatter its blocks. */
static void reduce_scatter(myr_rank *self, call *c, const myr_coll_args *a)
{
    int me = c->me, n = c->sp->size;
    bool block_form = a->kind == MYR_COLL_REDUCE_SCATTER_BLOCK;
    long total = 0;
    int *displs = block_form ? NULL : malloc((size_t)n * sizeof *displs);
    if (!block_form && !displs) {
        no_memory(c);   /* (this rank's sends then carry it; a root has no layout) */
        block_form = true;
    }
    for (int i = 0; i < n; i++) {
        if (displs)
            displs[i] = (int)total;
        total += a->kind == MYR_COLL_REDUCE_SCATTER_BLOCK ? a->count : a->rcounts[i];
    }
    void *block = NULL;
    void *whole = me == 0 ? buffer_for(a->type, (int)total, &block) : NULL;
    if (me == 0 && !whole)
        no_memory(c);
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    reduce(self, c, in, whole, (int)total, a->type, a->op, 0);
    myr_coll_args s = {.kind = MYR_COLL_SCATTERV, .root = 0, .sbuf = whole, .stype = a->type,
                       .scount = a->count, .rbuf = a->rbuf, .rtype = a->type,
                       .rcount = a->kind == MYR_COLL_REDUCE_SCATTER_BLOCK ? a->count
                                                                         : a->rcounts[me]};
    scatterv_hier(self, c, &s, block_form ? NULL : a->rcounts, displs);
    scratch_put(block);
    free(displs);
}

/* ---- nonblocking: one round of the members, the leader's part on one ULT ---
 *
 * A nonblocking Barrier, or Allreduce, Reduce, Bcast or Allgather of small
 * data, of such a communicator is what its blocking form is (barrier,
 * allreduce_small, bcast_small, allgather_small): one round of the process's members
 * whose release waits for the leader's part across processes (the hook),
 * but the members arrive without waiting (nbc.c, round.c's nonblocking
 * rounds) and the hook runs on one ULT for the process, started by the
 * round's last arrival (coll_round_nb), instead of the whole algorithm
 * on a ULT per rank. What the hook needs lives in the operation
 * (`coll_procs_nb`): the leader's call and the hook's arguments. */
typedef struct coll_procs_nb {
    call c;
    coll_hook hook;        /* the leader's */
    void *hook_arg;
    leaders_args barrier;
    small_allreduce allreduce;
    small_bcast bcast;
    small_allgather allgather;
    member_args mine;      /* a member's buffers (the small ones above) */
    bool has_args;
} coll_procs_nb;

/* Whether one round of the members does `a` (see above). */
static bool nb_round_fits(const coll_span *sp, const myr_coll_args *a)
{
    if (sp->nlocal < 2)
        return false;   /* alone in its process: no round to wait in */
    switch (a->kind) {
    case MYR_COLL_BARRIER:
        return true;
    case MYR_COLL_ALLREDUCE:
    case MYR_COLL_REDUCE:
        return allreduce_small_fits(sp, a->count, a->type, a->op);
    case MYR_COLL_BCAST:
        return (long)a->count * a->type->size <= SMALL_BCAST_MAX;
    case MYR_COLL_ALLGATHER:
        return allgather_small_fits(sp, a);
    default:
        return false;
    }
}

void *coll_procs_nb_new(MPI_Comm comm, myr_rank *self, const myr_coll_args *a, MPI_Comm *sub)
{
    if (!nb_round_fits(span_of(comm), a))
        return NULL;
    coll_procs_nb *n = malloc(sizeof *n);
    if (!n)
        return NULL;   /* then a runner, which needs no more memory here */
    call *c = &n->c;
    call_init(c, comm, self);
    *sub = c->sub;
    switch (a->kind) {
    case MYR_COLL_BARRIER:
        n->has_args = false;
        n->barrier = (leaders_args){self, c};
        n->hook = leaders_barrier;
        n->hook_arg = &n->barrier;
        break;
    case MYR_COLL_BCAST:
        n->has_args = true;
        n->bcast = (small_bcast){self, c, a->count, a->type, a->root};
        n->mine = (member_args){.out = a->rbuf, .bytes = (size_t)a->count * a->type->size,
                                .type = a->type, .root = a->root};
        n->hook = bcast_small_hook;
        n->hook_arg = &n->bcast;
        break;
    case MYR_COLL_ALLGATHER:
        n->has_args = true;
        n->allgather = (small_allgather){self, c, (size_t)a->rcount * a->rtype->size};
        n->mine = allgather_member(c, a);
        n->hook = allgather_small_hook;
        n->hook_arg = &n->allgather;
        break;
    default: {   /* Allreduce, Reduce */
        int root = a->kind == MYR_COLL_REDUCE ? a->root : -1;
        c->op_tag = op_tag(a->op);
        n->has_args = true;
        n->allreduce = (small_allreduce){self, c, a->count, a->type, a->op, root};
        n->mine = (member_args){.in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf,
                                .out = a->rbuf, .bytes = (size_t)a->count * a->type->size,
                                .op = a->op, .root = root};
        n->hook = allreduce_small_hook;
        n->hook_arg = &n->allreduce;
    }
    }
    return n;
}

void coll_procs_nb_arrive(void *state, coll_state *s)
{
    coll_procs_nb *n = state;
    call *c = &n->c;
    /* Not at the start: the member's previous operation on the
     * communicator may still be under way, its hook reading these. */
    if (n->has_args)
        c->sp->args[c->sp->sub_of[c->me]] = n->mine;
    if (is_leader(c)) {
        s->hook = n->hook;
        s->hook_arg = n->hook_arg;
    }
}

int coll_procs_run(MPI_Comm comm, myr_rank *self, const myr_coll_args *a, const char **why)
{
    call c;
    call_init(&c, comm, self);
    self->coll_comm = comm;
    if (a && coll_is_reduction(a->kind))
        c.op_tag = op_tag(a->op);
    switch (a ? a->kind : MYR_COLL_BARRIER) {
    case MYR_COLL_BARRIER:
        barrier(self, &c);
        break;
    case MYR_COLL_BCAST:
        bcast(self, &c, a->rbuf, a->count, a->type, a->root);
        break;
    case MYR_COLL_REDUCE:
        reduce(self, &c, a->sbuf, a->rbuf, a->count, a->type, a->op, a->root);
        break;
    case MYR_COLL_ALLREDUCE:
        reduce(self, &c, a->sbuf, a->rbuf, a->count, a->type, a->op, -1);
        break;
    case MYR_COLL_GATHER:
    case MYR_COLL_GATHERV: {
        const int *counts = a->kind == MYR_COLL_GATHERV ? a->rcounts : NULL;
        const int *displs = a->kind == MYR_COLL_GATHERV ? a->rdispls : NULL;
        if (c.sp->ordered)
            gatherv_hier(self, &c, a, counts, displs);
        else
            gatherv_flat(self, &c, a, counts, displs);
        break;
    }
    case MYR_COLL_SCATTER:
        scatterv_hier(self, &c, a, NULL, NULL);
        break;
    case MYR_COLL_SCATTERV:
        scatterv_hier(self, &c, a, a->scounts, a->sdispls);
        break;
    case MYR_COLL_ALLGATHER:
    case MYR_COLL_ALLGATHERV:
        if (allgather_small_fits(c.sp, a))
            allgather_small(self, &c, a);
        else if (c.sp->ordered)
            allgatherv_hier(self, &c, a);
        else
            allgatherv_flat(self, &c, a);
        break;
    case MYR_COLL_ALLTOALL:
    case MYR_COLL_ALLTOALLV:
    case MYR_COLL_ALLTOALLW:
        if (alltoall_hier_fits(&c, a))
            alltoall_hier(self, &c, a);
        else if (!alltoallv_hier(self, &c, a))
            alltoallw_flat(self, &c, a);
        break;
    case MYR_COLL_SCAN:
        scan(self, &c, a, false);
        break;
    case MYR_COLL_EXSCAN:
        scan(self, &c, a, true);
        break;
    case MYR_COLL_REDUCE_SCATTER:
    case MYR_COLL_REDUCE_SCATTER_BLOCK:
        reduce_scatter(self, &c, a);
        break;
    default:
        fail(&c, MPI_ERR_UNSUPPORTED_OPERATION,
             "this collective does not work across OS processes yet");
        break;
    }
    return outcome(&c, why);
}

/* ---- splitting a communicator that spans processes ---------------------------
 *
 * Every process's leader collects its members' (color, key) (a gather
 * among them), the leaders exchange them with the count of context ids
 * their process has used (a gather to the first leader and a broadcast
 * back), and each leader then knows every new communicator: its members
 * (ordered by key, then parent rank) and a context id no member's process
 * has used (the largest count, plus the color's position). It builds the
 * shared objects of those with members here, and its members pick up
 * theirs after a barrier among them. */

/* The leader's part: table[r] = (color, key) of parent rank r. */
static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* How many distinct colors other than MPI_UNDEFINED the (color, key)
 * table of n ranks holds (at least 1: a block is never empty). */
static unsigned distinct_colors(const int *table, int n)
{
    int *colors = malloc((size_t)(n ? n : 1) * sizeof *colors);
    if (!colors)
        return (unsigned)n;   /* one per rank: enough */
    int m = 0;
    for (int r = 0; r < n; r++)
        if (table[2 * r] != MPI_UNDEFINED)
            colors[m++] = table[2 * r];
    qsort(colors, (size_t)m, sizeof *colors, int_cmp);
    unsigned k = 0;
    for (int i = 0; i < m; i++)
        k += i == 0 || colors[i] != colors[i - 1];
    free(colors);
    return k ? k : 1;
}

static void split_build(call *c, const int *table, unsigned ctx_base)
{
    if (ctx_base == 0) {
        fail(c, MPI_ERR_INTERN,
             "this process has no context ids left for communicators spanning processes");
        return;
    }
    coll_span *sp = c->sp;
    int n = sp->size;
    split_item *e = malloc((size_t)(n ? n : 1) * sizeof *e);
    if (!e) {
        no_memory(c);
        return;
    }
    int m = 0;
    for (int r = 0; r < n; r++)
        if (table[2 * r] != MPI_UNDEFINED)
            e[m++] = (split_item){table[2 * r], table[2 * r + 1], r};
    qsort(e, (size_t)m, sizeof *e, coll_split_item_cmp);
    for (int i = 0; i < sp->nlocal; i++)
        sp->results[i] = (split_result){NULL, MPI_UNDEFINED};
    unsigned color_index = 0;
    for (int i = 0; i < m && c->err == MPI_SUCCESS; color_index++) {
        int j = i, here = 0;
        while (j < m && e[j].color == e[i].color) {
            here += sp->sub_of[e[j].rank] >= 0;
            j++;
        }
        if (here) {
            myr_rankmap *map = myr_rankmap_new(j - i);
            for (int k = i; map && k < j; k++)
                map->world[k - i] = c->comm->kind == MYR_COMM_WORLD
                                        ? e[k].rank : c->comm->members[e[k].rank];
            unsigned ctx = ctx_base + color_index;
            bool spans = here != j - i;
            myr_comm_shared *sh = spans ? coll_procs_shared_new(map, here, ctx)
                                        : coll_shared_build_ctx(map, here, ctx);
            if (!sh) {
                no_memory(c);
                break;
            }
            for (int k = i; k < j; k++)
                if (sp->sub_of[e[k].rank] >= 0)
                    sp->results[sp->sub_of[e[k].rank]] = (split_result){sh, k - i};
        }
        i = j;
    }
    free(e);
}

/* The shared object of the members in this process (`here` of them) of a
 * new communicator spanning processes. NULL when out of memory (map is
 * released then). */
myr_comm_shared *coll_procs_shared_new(myr_rankmap *map, int here, unsigned ctx)
{
    coll_span *nsp = map ? span_build(map->world, map->size) : NULL;
    if (!nsp) {
        myr_rankmap_release(map);
        return NULL;
    }
    myr_comm_shared *sh = myr_comm_shared_new_ctx(map, here, ctx);  /* failing, releases map */
    if (!sh) {
        span_free(nsp);
        return NULL;
    }
    sh->spanning = true;
    sh->coll = nsp;
    sh->coll_free = span_free_cb;
    return sh;
}

int coll_procs_group_context(unsigned parent_ctx, myr_rank *self, MPI_Group group, int me,
                             int tag, unsigned *ctx, const char **why)
{
    /* Job ranks address the members: a copy of MPI_COMM_WORLD's handle
     * on the parent's creation context. */
    struct myr_mpi_comm via = myr_mpi_comm_world;
    via.context_id = parent_ctx | GROUP_CONTEXT;
    int err = MPI_SUCCESS;
    if (me == 0) {
        /* 0 (none left) goes out too: every member then fails alike. */
        *ctx = myr_context_ids_spanning(1);
        for (int i = 1; i < group->size; i++) {
            int e = comm_send(self, &via, ctx, 1, MPI_UNSIGNED, myr_group_world(group, i),
                              tag);
            err = err ? err : e;
        }
        if (err)
            *why = "a message between OS processes failed";
    } else {
        err = comm_recv(self, &via, ctx, 1, MPI_UNSIGNED, myr_group_world(group, 0), tag, why);
    }
    if (!err && *ctx == 0) {
        *why = "no context ids left for communicators spanning processes";
        err = MPI_ERR_INTERN;
    }
    return err;
}

int coll_procs_split(MPI_Comm parent, myr_rank *self, int color, int key, MPI_Comm *out,
                     const char **why)
{
    call c;
    call_init(&c, parent, self);
    coll_span *sp = c.sp;
    int n = sp->size, mine[2] = {color, key};
    bool leader = is_leader(&c);
    /* table: (color, key) per parent rank, then the context id base. */
    int *table = leader ? malloc(((size_t)n * 2 + 1) * sizeof *table) : NULL;
    int *local_pairs = leader ? malloc((size_t)sp->nlocal * 2 * sizeof *local_pairs) : NULL;
    if (leader && (!table || !local_pairs))
        no_memory(&c);   /* carried: every process learns it */
    /* Members here to their leader. */
    myr_coll_args g = {.kind = MYR_COLL_GATHER, .sbuf = mine, .scount = 2, .stype = MPI_INT,
                       .rbuf = local_pairs, .rcount = 2, .rtype = MPI_INT, .root = 0};
    local(self, &c, g);
    if (leader) {
        /* Every member has read the last split's results (it gathered). */
        for (int i = 0; i < sp->nlocal; i++)
            sp->results[i] = (split_result){NULL, MPI_UNDEFINED};
        for (int i = 0; c.err == MPI_SUCCESS && i < sp->nlocal; i++) {
            table[2 * sp->local_rank[i]] = local_pairs[2 * i];
            table[2 * sp->local_rank[i] + 1] = local_pairs[2 * i + 1];
        }
        /* The leaders' blocks to the first leader, which also takes a
         * context id per color from its process's range, and the whole
         * table back to all. */
        int first = sp->leader[0];
        if (c.me == first) {
            int *block = malloc((size_t)n * 3 * sizeof *block);   /* (rank, color, key) */
            if (!block)
                no_memory(&c);
            for (int q = 1; q < sp->nprocs; q++) {
                lib_recv(self, &c, block, block ? sp->proc_count[q] * 3 : 0, MPI_INT,
                         sp->leader[q], TAG_SPLIT);
                for (int k = 0; c.err == MPI_SUCCESS && k < sp->proc_count[q]; k++) {
                    int r = block[3 * k];
                    table[2 * r] = block[3 * k + 1];
                    table[2 * r + 1] = block[3 * k + 2];
                }
            }
            free(block);
            if (c.err == MPI_SUCCESS)
                table[2 * n] = (int)myr_context_ids_spanning(distinct_colors(table, n));
        } else {
            int *block = malloc((size_t)sp->nlocal * 3 * sizeof *block);
            if (!block)
                no_memory(&c);
            for (int i = 0; c.err == MPI_SUCCESS && i < sp->nlocal; i++) {
                block[3 * i] = sp->local_rank[i];
                block[3 * i + 1] = local_pairs[2 * i];
                block[3 * i + 2] = local_pairs[2 * i + 1];
            }
            lib_send(self, &c, block, sp->nlocal * 3, MPI_INT, first, TAG_SPLIT);
            free(block);
        }
        leaders_bcast(self, &c, table, table ? n * 2 + 1 : 0, MPI_INT, 0);
        if (c.err == MPI_SUCCESS)
            split_build(&c, table, (unsigned)table[2 * n]);
        /* The leader's outcome, for its members after the barrier. */
        sp->split_err = c.err;
        snprintf(sp->split_why, sizeof sp->split_why, "%s", c.err ? c.why : "");
    }
    free(table);
    free(local_pairs);
    const char *w = NULL;
    int e = myr_coll_barrier(c.sub, self, &w);
    fail(&c, e, w);
    if (!leader && sp->split_err)
        fail(&c, sp->split_err, sp->split_why);
    if (c.err != MPI_SUCCESS)
        return outcome(&c, why);
    split_result res = sp->results[sp->sub_of[c.me]];
    if (res.shared && !(*out = myr_comm_handle_new(res.shared, res.rank))) {
        *why = "out of memory for a new communicator";
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}
