/*
 * core.h — ranks, communicators, datatypes and requests: the objects behind
 * MPI handles, shared by the core, coll, mpi and tools layers.
 *
 * A job is N ranks in this OS process; rank i is a ULT whose inherited
 * value (myr_ult_inherited) points at its myr_rank, so every ULT a rank
 * spawns acts for that rank. Objects such as MPI_COMM_WORLD are shared by all
 * ranks; what MPI makes per-process (the error handler attached to a
 * communicator, for instance) is kept per rank.
 */
#ifndef MYR_CORE_CORE_H
#define MYR_CORE_CORE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "arch/cpu.h"
#include "arch/probe.h"
#include "ult/core_api.h"

/* ---- spin lock for short critical sections (no switch inside) -------- */

typedef struct myr_spinlock {
    _Atomic int held;
} myr_spinlock;

void myr_spin_lock_slow(myr_spinlock *l);

static inline void myr_spin_lock(myr_spinlock *l)
{
    if (__builtin_expect(!atomic_exchange_explicit(&l->held, 1, memory_order_acquire), 1))
        return;
    myr_spin_lock_slow(l);
}

static inline void myr_spin_unlock(myr_spinlock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

/* ---- handles ---------------------------------------------------------- */

enum {
    MYR_MAGIC_COMM = 0x4d434f4d,
    MYR_MAGIC_TYPE = 0x4d545950,
    MYR_MAGIC_REQUEST = 0x4d524551,
    MYR_MAGIC_ERRHANDLER = 0x4d455248,
    MYR_MAGIC_OP = 0x4d4f5020,
    MYR_MAGIC_MESSAGE = 0x4d4d5347,
    MYR_MAGIC_GROUP = 0x4d475250,
    MYR_MAGIC_INFO = 0x4d494e46,
    MYR_MAGIC_SESSION = 0x4d534553,
    MYR_MAGIC_DEAD = 0x44454144,
};

/* The magic word of the object a handle points to (every handle object
 * starts with it): read without faulting, so a garbage handle (an
 * uninitialised variable, an integer, a freed object) is an MPI error, not
 * a crash. 0 when the address cannot be read. */
static inline unsigned myr_handle_magic(const void *handle)
{
    return myr_probe_u32(handle);
}

/*
 * A datatype's layout (see datatype.c): one element is a *unit* of data
 * blocks (byte offset, length), in type-map order, repeated `reps` times
 * every `rstride` bytes; `runs` is the unit's type signature as runs of
 * basic elements. Copying, packing and counting elements are loops over
 * these; nothing is ever expanded per element of a count.
 */
typedef struct myr_dt_block {
    MPI_Aint off;
    MPI_Aint len;
} myr_dt_block;

typedef struct myr_dt_run {
    int base;          /* myr_base_type of a basic element */
    int bsize;         /* its bytes */
    MPI_Count n;       /* how many in a row */
} myr_dt_run;

/* What MPI_Type_get_envelope/get_contents report (derived types only). */
typedef struct myr_dt_contents {
    int combiner;
    int ni, na, nt;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;   /* each holds a reference */
} myr_dt_contents;

struct myr_mpi_datatype {
    unsigned magic;
    bool predefined;
    bool committed;
    bool contig;          /* n elements are the n*size bytes at buf, in order */
    bool marked_lb;       /* lb set by MPI_LB or a resize (sticky in structs) */
    bool marked_ub;
    int base;             /* myr_base_type for predefined types, else -1 */
    size_t size;          /* bytes of data in one element */
    ptrdiff_t extent;     /* stride between consecutive elements */
    const char *name;     /* "MPI_INT" */
    MPI_Aint lb;
    MPI_Aint true_lb, true_ub;
    size_t align;         /* largest alignment of its basic elements */
    MPI_Count nelems;     /* basic elements in one element */
    int nblocks;
    const myr_dt_block *blocks;
    MPI_Count reps;
    MPI_Aint rstride;
    size_t unit_size;     /* bytes of data in one unit */
    MPI_Count unit_nelems;
    int nruns;
    const myr_dt_run *runs;
    /* Derived types: references (the handle, requests, other types'
     * contents) and what they were made of. */
    _Atomic int refs;
    myr_dt_contents *contents;
    myr_dt_block inline_blocks[2];   /* predefined types' layouts */
    myr_dt_run inline_runs[2];
    char namebuf[MPI_MAX_OBJECT_NAME];
    struct myr_attr *attrs;   /* derived types: the creating rank's (mpi/attr.c) */
};

/* Element kinds of the predefined types (what reductions dispatch on). */
typedef enum myr_base_type {
    MYR_BT_CHAR, MYR_BT_SIGNED_CHAR, MYR_BT_UNSIGNED_CHAR, MYR_BT_SHORT,
    MYR_BT_UNSIGNED_SHORT, MYR_BT_INT, MYR_BT_UNSIGNED, MYR_BT_LONG,
    MYR_BT_UNSIGNED_LONG, MYR_BT_LONG_LONG, MYR_BT_UNSIGNED_LONG_LONG,
    MYR_BT_FLOAT, MYR_BT_DOUBLE, MYR_BT_LONG_DOUBLE, MYR_BT_WCHAR, MYR_BT_C_BOOL,
    MYR_BT_INT8, MYR_BT_INT16, MYR_BT_INT32, MYR_BT_INT64, MYR_BT_UINT8,
    MYR_BT_UINT16, MYR_BT_UINT32, MYR_BT_UINT64, MYR_BT_AINT, MYR_BT_COUNT,
    MYR_BT_OFFSET, MYR_BT_C_FLOAT_COMPLEX, MYR_BT_C_DOUBLE_COMPLEX,
    MYR_BT_C_LONG_DOUBLE_COMPLEX, MYR_BT_BYTE, MYR_BT_PACKED,
    MYR_BT_FLOAT_INT, MYR_BT_DOUBLE_INT, MYR_BT_LONG_INT, MYR_BT_2INT,
    MYR_BT_SHORT_INT, MYR_BT_LONG_DOUBLE_INT, MYR_BT_LB, MYR_BT_UB,
    /* Fortran kinds that C types do not already cover: LOGICAL (an int
     * that only the logical ops take), the pairs whose index is a real,
     * and the sizes with no C type here (data moves, no op applies). */
    MYR_BT_LOGICAL, MYR_BT_2REAL, MYR_BT_2DOUBLE_PRECISION, MYR_BT_REAL2,
    MYR_BT_INTEGER16, MYR_BT_REAL16,
    MYR_BT_COUNT_
} myr_base_type;

bool myr_datatype_valid(MPI_Datatype type);

/* Copy `bytes` bytes of data from elements of `stype` at src to elements
 * of `dtype` at dst, walking both layouts together (their type signatures
 * are the caller's business; bytes must fit both sides). */
void myr_datatype_transfer(void *dst, MPI_Datatype dtype, const void *src,
                           MPI_Datatype stype, size_t bytes);
/* Copy `count` elements of `type` from src to dst (same type map on both
 * sides), at most `max_bytes` bytes of data. Returns the data bytes copied. */
size_t myr_datatype_copy(void *dst, const void *src, int count,
                         MPI_Datatype type, size_t max_bytes);
/* Basic elements (what MPI_Get_elements counts: a pair type such as
 * MPI_DOUBLE_INT holds two) in `bytes` bytes of data of `type`; -1 when
 * the bytes end inside a basic element. */
MPI_Count myr_datatype_elements(MPI_Datatype type, MPI_Count bytes);
/* Bytes of data in `elements` basic elements of `type` (the inverse);
 * -1 if that does not fit in an MPI_Count. */
MPI_Count myr_datatype_element_bytes(MPI_Datatype type, MPI_Count elements);

/* One piece of a new type's map: `blocklen` elements of `type`, one after
 * the other (at its extent), from byte displacement `disp`. */
typedef struct myr_dt_entry {
    MPI_Aint disp;
    MPI_Count blocklen;
    MPI_Datatype type;
} myr_dt_entry;

enum { MYR_DT_ALIGN_EXTENT = 1 };   /* struct: pad the extent to alignment */

/* A new derived type (uncommitted, one reference) whose map is the
 * entries, all repeated `reps` times every `rstride` bytes. Its contents
 * are set by the caller (myr_datatype_set_contents). MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int myr_datatype_create(MPI_Datatype *out, int n, const myr_dt_entry *e,
                        MPI_Count reps, MPI_Aint rstride, int flags)
    __attribute__((warn_unused_result));
/* The same layout with lb and extent replaced (MPI_Type_create_resized). */
int myr_datatype_resized(MPI_Datatype *out, MPI_Datatype old, MPI_Aint lb,
                         MPI_Aint extent) __attribute__((warn_unused_result));
/* Record the constructor's arguments (types gain a reference each). */
int myr_datatype_set_contents(MPI_Datatype t, int combiner, int ni, const int *ints,
                              int na, const MPI_Aint *aints, int nt,
                              const MPI_Datatype *types)
    __attribute__((warn_unused_result));
void myr_datatype_release_derived(MPI_Datatype t);

/* Take a reference (predefined types are never freed: no-op). */
static inline void myr_datatype_retain(MPI_Datatype t)
{
    if (!t->predefined)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

/* Drop a reference; the last one frees the type (predefined: no-op). */
static inline void myr_datatype_release(MPI_Datatype t)
{
    if (!t->predefined)
        myr_datatype_release_derived(t);
}

/* The datatype's name for messages (derived types may have none). */
static inline const char *myr_datatype_label(MPI_Datatype t)
{
    return t->name[0] ? t->name : "(unnamed derived datatype)";
}

/* external32 (MPI 3.1, 13.5.2): bytes of `count` elements of `type`. */
MPI_Count myr_datatype_external_size(MPI_Datatype type, MPI_Count count);
/* Convert `count` elements at `in` to/from external32 at `out`/`in`.
 * MPI_SUCCESS, or MPI_ERR_CONVERSION when a value does not fit (a native
 * long beyond 32 bits, for instance). */
int myr_datatype_pack_external(void *out, const void *in, MPI_Count count,
                               MPI_Datatype type) __attribute__((warn_unused_result));
int myr_datatype_unpack_external(void *out, const void *in, MPI_Count count,
                                 MPI_Datatype type) __attribute__((warn_unused_result));

struct myr_rank;

/* The nonblocking collectives a rank started on a communicator and that
 * have not finished, in call order (coll/nbc.c): the head is running. */
struct myr_coll_nb_op;
typedef struct myr_coll_nb_queue {
    /* The last one started (NULL: none pending). Linked as a lock-free
     * queue of two parties, the rank's starts and the head's finisher
     * (coll/nbc.c explains it). */
    _Atomic(struct myr_coll_nb_op *) tail;
    _Atomic(myr_ult_t *) runner;         /* the ULT running them, if any */
} myr_coll_nb_queue;

/* Per-rank state of a communicator (MPI makes it per process). What every
 * collective call reads comes first (see myr_rank). */
typedef struct myr_comm_local {
    _Atomic(void *) coll;  /* MPI_COMM_WORLD's and MPI_COMM_SELF's collective
                              state, remembered by coll/round.c (several
                              ULTs of a rank may look it up at once) */
    myr_coll_nb_queue nb;
    MPI_Errhandler errhandler;
    char *name;            /* set by MPI_Comm_set_name; NULL: the default */
    struct myr_attr *attrs;    /* cached attributes (mpi/attr.c) */
    MPI_Info hints;        /* MPI_Comm_set_info's; MPI_INFO_NULL: none (mpi/info.c) */
} myr_comm_local;

/* Ranks of a group or communicator, in order: rank i is job rank
 * world[i]. Immutable once built and shared by reference count between
 * the groups and communicators made from it. */
typedef struct myr_rankmap {
    _Atomic int refs;
    int size;
    int world[];
} myr_rankmap;

myr_rankmap *myr_rankmap_new(int size);
void myr_rankmap_retain(myr_rankmap *m);
void myr_rankmap_release(myr_rankmap *m);

struct myr_mpi_group {
    unsigned magic;
    int size;
    myr_rankmap *map;      /* NULL: job ranks 0..size-1 (MPI_COMM_WORLD's group) */
};

static inline int myr_group_world(MPI_Group g, int i)
{
    return g->map ? g->map->world[i] : i;
}

bool myr_group_valid(MPI_Group g);
/* A new group of `map`'s ranks (taking the caller's reference to `map`;
 * NULL map: job ranks 0..size-1). Size 0 gives MPI_GROUP_EMPTY. NULL when
 * out of memory (and the reference is dropped). */
MPI_Group myr_group_new(myr_rankmap *map, int size);
void myr_group_free(MPI_Group g);
/* The rank of job rank `world` in g, or MPI_UNDEFINED. O(size). */
int myr_group_rank_of(MPI_Group g, int world);

typedef enum {
    MYR_COMM_WORLD, MYR_COMM_SELF, MYR_COMM_INTRA, MYR_COMM_INTER
} myr_comm_kind;

/* A communicator's virtual topology (MPI 3.1 chapter 7). Immutable once
 * attached, and shared by reference count: a Cartesian or graph topology
 * by every member's handle and their duplicates; a distributed graph holds
 * only the calling rank's neighbours, one object per member. The arrays
 * point into `data`. */
typedef enum {
    MYR_TOPO_CART = 1, MYR_TOPO_GRAPH, MYR_TOPO_DIST_GRAPH
} myr_topo_kind;

typedef struct myr_topo {
    _Atomic int refs;
    myr_topo_kind kind;
    /* MYR_TOPO_CART: ndims dimensions (0 allowed), row-major ranks. */
    int ndims;
    int *dims;
    int *periods;          /* 0 or 1 */
    /* MYR_TOPO_GRAPH: MPI's cumulative index and the edges. */
    int nnodes;
    int *index;
    int *edges;
    /* MYR_TOPO_DIST_GRAPH: this rank's in- and out-neighbours in order;
     * the weight arrays are NULL when unweighted. */
    int indegree, outdegree;
    int *sources, *sourceweights;
    int *destinations, *destweights;
    bool weighted;
    int data[];
} myr_topo;

/* A topology of `kind` with room for `nints` ints in data (refs 1, the
 * arrays left NULL for the caller to point into data); NULL when out of
 * memory. */
myr_topo *myr_topo_new(myr_topo_kind kind, size_t nints);
void myr_topo_retain(myr_topo *t);
void myr_topo_release(myr_topo *t);
/* `to` (a new handle) takes `from`'s topology, as a duplicate does. */
void myr_comm_topo_inherit(MPI_Comm from, MPI_Comm to);

/* Context ids with this bit set carry the library's own messages on a
 * communicator (neighbour collectives), never the user's: created ids
 * count up from 2 and never reach it. */
#define MYR_CONTEXT_LIBRARY 0x80000000u

/* What the members of a created intracommunicator share. Built once by
 * one member (coll/coll.c decides who) and referenced by every member's
 * handle; freed with the last handle. */
typedef struct myr_comm_shared {
    _Atomic int refs;          /* member handles not yet released */
    bool spanning;             /* members in several OS processes: `coll` is
                                  coll/procs.c's, not a round's state */
    unsigned context_id;
    int size;
    myr_rankmap *map;
    void *coll;                /* collective state, owned by the coll layer */
    void (*coll_free)(void *coll);
} myr_comm_shared;

/* MPI_COMM_WORLD and MPI_COMM_SELF are one static handle each, shared by
 * all ranks (their per-rank state is in myr_rank). A created communicator
 * has one handle per member rank (MPI handles are per process), holding
 * the member's rank and per-rank state, so the hot path (rank, peer,
 * context id) reads only the caller's own handle. */
struct myr_mpi_comm {
    unsigned magic;
    myr_comm_kind kind;
    unsigned context_id;   /* distinguishes the communicators in matching */
    int size;              /* -1 for MPI_COMM_SELF's shared handle */
    const char *name;      /* the default name */
    /* MYR_COMM_INTRA and MYR_COMM_INTER. */
    int rank;              /* the owner's rank in it (in the local group) */
    const int *members;    /* the (local) group's job ranks */
    myr_comm_shared *shared;   /* intra: the shared object; inter: NULL */
    /* MYR_COMM_INTER only: the remote group, and a private duplicate of
     * the local group's communicator (its collectives serve the
     * intercommunicator's own agreements). Point-to-point uses
     * context_id; the library's own messages use context_id + 1. */
    int remote_size;
    const int *remote_members;
    myr_rankmap *remote;
    MPI_Comm local_comm;
    /* Its virtual topology (created intracommunicators only), or NULL. */
    myr_topo *topo;
    /* The user's handle, plus one per nonblocking request using it, so a
     * freed communicator lives until its pending operations complete. */
    _Atomic int refs;
    myr_comm_local local;
};

/* Context ids of created communicators: one atomic counter for the OS
 * process (ids 0 and 1 are MPI_COMM_WORLD's and MPI_COMM_SELF's). */
unsigned myr_context_id_next(void);
/* n consecutive context ids; the first is returned (n 0: the next one,
 * nothing taken). */
unsigned myr_context_ids_next(unsigned n);
/* n consecutive context ids for communicators whose members live in
 * several OS processes: from this process's own range (the bit below,
 * the process's index, a counter), so that ids taken by different
 * processes never collide and none needs agreeing with the others; the
 * members learn the id from the one that took it. 0 when this process's
 * range is spent. */
#define MYR_CONTEXT_SPANNING 0x20000000u
unsigned myr_context_ids_spanning(unsigned n);
/* An intercommunicator handle of the member of `local` (a created
 * intracommunicator handle, taken) facing `remote` (a reference taken),
 * with context ids ctx and ctx + 1. NULL when out of memory (both given
 * back). */
MPI_Comm myr_comm_inter_new(MPI_Comm local, myr_rankmap *remote, unsigned ctx);
/* A shared object for the ranks of `map` (taking the reference), with
 * `refs` handles to come; NULL when out of memory. */
myr_comm_shared *myr_comm_shared_new(myr_rankmap *map, int refs);
/* The same with a context id the caller chose. */
myr_comm_shared *myr_comm_shared_new_ctx(myr_rankmap *map, int refs, unsigned ctx);
/* Drop one member's reference; the last frees the object. */
void myr_comm_shared_release(myr_comm_shared *sh);
/* The handle of member `rank` of `sh` (taking one of sh's references). */
MPI_Comm myr_comm_handle_new(myr_comm_shared *sh, int rank);
/* Take / drop a reference to a handle (no-op on the predefined ones);
 * inline: every nonblocking call takes one and its completion drops it. */
static inline void myr_comm_retain(MPI_Comm comm)
{
    if (comm && comm->kind >= MYR_COMM_INTRA)
        atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
}
/* What the last reference's release does. */
void myr_comm_destroy(MPI_Comm comm);
static inline void myr_comm_release(MPI_Comm comm)
{
    if (comm && comm->kind >= MYR_COMM_INTRA &&
        atomic_fetch_sub_explicit(&comm->refs, 1, memory_order_acq_rel) == 1)
        myr_comm_destroy(comm);
}
/* The ranks of comm as a rank map (a new reference; NULL map for
 * MPI_COMM_WORLD). For MPI_COMM_SELF a new map of one rank; *ok false
 * when out of memory. */
myr_rankmap *myr_comm_rankmap(MPI_Comm comm, struct myr_rank *self, bool *ok);
/* The job rank of `rank` of comm. */
int myr_comm_world(MPI_Comm comm, struct myr_rank *self, int rank);

/* ---- ranks ------------------------------------------------------------ */

/* One sleeping ULT of a rank (lives on the sleeper's stack). */
typedef struct myr_sleeper {
    myr_ult_t *ult;
    struct myr_sleeper *next;
} myr_sleeper;

/* Where a rank's ULTs sleep until "something completed". Completers bump
 * `gen` and wake the sleepers; a sleeper registers, re-checks `gen`, and
 * only then suspends, so no completion is missed (see wait.c). */
typedef struct myr_waitcell {
    _Alignas(MYR_CACHE_LINE) _Atomic unsigned gen;
    _Atomic int waiting;            /* ULTs inside myr_wait_until */
    _Atomic int nsleepers;
    myr_spinlock lock;
    myr_sleeper *sleepers;
} myr_waitcell;

typedef struct myr_mpi_message myr_envelope;

/* The queues a receiving rank matches against (match.c). */
typedef struct myr_match_queues {
    _Alignas(MYR_CACHE_LINE) myr_spinlock lock;
    struct myr_mpi_request *posted_head, *posted_tail;
    myr_envelope *unexpected_head, *unexpected_tail;
    unsigned long posted_seq;
    /* p2p.c: each queue's entries by source, NULL while they are few */
    struct myr_match_index *by_source, *posted_by_source;
} myr_match_queues;

/* What a rank's queues hold beyond their messages (p2p.c), at the job's end. */
void myr_p2p_queues_fini(myr_match_queues *q);

typedef struct myr_bsend_state {
    void *buffer;
    size_t size;
    _Atomic size_t used;      /* bytes reserved by messages in flight */
} myr_bsend_state;

/* What a blocked ULT of a rank waits for, for the deadlock and time-limit
 * reports (launch/watchdog.c). Written by the waiter just before it
 * suspends, cleared when it goes on; read by the report while every rank
 * is frozen (deadlock), or as a best effort (time limit). With several
 * ULTs of a rank waiting at once, the latest one's. */
typedef enum myr_wait_kind {
    MYR_WAIT_NONE = 0,
    MYR_WAIT_REQUEST,       /* what: struct myr_mpi_request * */
    MYR_WAIT_REQUESTS,      /* what: MPI_Request[n] (Waitall, Waitany, Waitsome) */
    MYR_WAIT_PROBE,         /* comm, peer (source), tag */
    MYR_WAIT_COLLECTIVE,    /* comm; what: the collective state (coll layer) */
    MYR_WAIT_NB_COLLECTIVES,/* comm: its nonblocking collectives must finish first */
    MYR_WAIT_FINALIZE,      /* the other ranks must reach MPI_Finalize */
    MYR_WAIT_BSEND,         /* MPI_Buffer_detach: buffered messages not yet received */
} myr_wait_kind;

typedef struct myr_wait_note {
    myr_wait_kind kind;
    int n;
    int peer, tag;
    const void *what;
    MPI_Comm comm;
} myr_wait_note;

typedef struct myr_rank {
    /* First line: what every MPI call and every blocking one touches (a
     * barrier of thousands of ranks per worker runs each rank once per
     * round, and each line of its state is a cache miss). */
    int world_rank;
    int init_state;                  /* 0 before MPI_Init, 1 in, 2 after MPI_Finalize */
    /* For the reports: the MPI function a ULT of the rank entered last,
     * the communicator of its latest blocking collective, and what it is
     * blocked on (see myr_wait_note). */
    _Atomic(const char *) last_call;
    MPI_Comm coll_comm;
    _Atomic int waiting_kind;        /* myr_wait_kind of `waiting`, NONE: not blocked */
    myr_wait_note waiting;
    /* Second line: what a collective on MPI_COMM_WORLD reads. */
    myr_comm_local world_local;      /* this rank's MPI_COMM_WORLD state */
    myr_ult_t *ult;                  /* the rank's main ULT */
    int thread_level;
    _Atomic int sessions;            /* MPI 4.0 sessions open (mpi/session.c) */
    myr_comm_local self_local;       /* this rank's MPI_COMM_SELF state */
    myr_bsend_state bsend;
    struct myr_attr *predefined_type_attrs;   /* on MPI_INT... (mpi/attr.c) */
    myr_match_queues match;
    /* Numbers the rank's point-to-point requests as they start (receives
     * as they are posted): MPI_Waitany and MPI_Testany return the earliest
     * started of the completed ones (mpi/request.c). Owner-written; the
     * ULTs of a rank that race on it only blur that order. */
    _Atomic unsigned long start_seq;
    myr_waitcell wait;
    int exit_code;                   /* main's return value */
    bool returned;                   /* main returned */
    bool had_session;                /* it opened a session (mpi/session.c) */
} myr_rank;

/* Whether no other ULT of rank r may be inside an MPI call while one is:
 * its level (MPI_Init_thread) is below MPI_THREAD_MULTIPLE, under which
 * MPI makes concurrent calls erroneous, and it has no session (a session
 * is always MPI_THREAD_MULTIPLE). Read by the rank's own ULTs, in a call. */
static inline bool myr_rank_calls_serialized(const myr_rank *r)
{
    return r->thread_level < MPI_THREAD_MULTIPLE && r->init_state == 1 &&
           atomic_load_explicit(&r->sessions, memory_order_relaxed) == 0;
}

/* Record what the calling ULT of r is about to block on, and that it no
 * longer is. */
static inline void myr_wait_note_set(myr_rank *r, const myr_wait_note *note)
{
    /* Field by field: a struct copy of a note just built on the stack is
     * read back with wide loads that the narrow stores cannot forward
     * (a stall of its own on every blocking call). */
    r->waiting.kind = note->kind;
    r->waiting.what = note->what;
    r->waiting.n = note->n;
    r->waiting.comm = note->comm;
    r->waiting.peer = note->peer;
    r->waiting.tag = note->tag;
    atomic_store_explicit(&r->waiting_kind, note->kind, memory_order_release);
}

/* The same for one request (MYR_WAIT_REQUEST), whose note is only `what`:
 * the report reads the rest from the request. */
static inline void myr_wait_note_set_request(myr_rank *r, const void *request)
{
    r->waiting.kind = MYR_WAIT_REQUEST;
    r->waiting.what = request;
    atomic_store_explicit(&r->waiting_kind, MYR_WAIT_REQUEST, memory_order_release);
}

static inline void myr_wait_note_clear(myr_rank *r)
{
    atomic_store_explicit(&r->waiting_kind, MYR_WAIT_NONE, memory_order_relaxed);
}

/* The job's ranks are numbered process by process (net/net.h, the
 * place): this OS process runs job ranks first .. first+local-1, whose
 * state is ranks[0 .. local-1]; the others are remote, reached through the
 * network engine (core/remote.c). With one process, first is 0 and local
 * is size. */
typedef struct myr_job {
    int size;                        /* ranks in the job, all processes */
    int first;                       /* this process's first job rank */
    int local;                       /* and how many it runs */
    myr_rank *ranks;                 /* this process's, by job rank - first */
    bool multiprocess;               /* other processes exist */
    _Atomic int finalize_arrived;    /* local ranks in the MPI_Finalize barrier */
    int argc;                        /* the program's command line (MPI_INFO_ENV) */
    char **argv;
} myr_job;

extern myr_job myr_the_job;

/* The rank the calling ULT acts for, or NULL outside any rank. */
static inline myr_rank *myr_rank_self(void)
{
    return (myr_rank *)myr_ult_inherited_internal();
}

/* The state of job rank `rank` when this process runs it, else NULL (a
 * rank of another process). One compare for the usual single process. */
static inline myr_rank *myr_job_rank(long rank)
{
    unsigned long i = (unsigned long)(rank - myr_the_job.first);
    return i < (unsigned long)myr_the_job.local ? &myr_the_job.ranks[i] : NULL;
}

/* Allocate this process's ranks (not started): `local` ranks, job ranks
 * first .. first+local-1 of `size`. 0 on success. */
int myr_job_create(int size, int first, int local);

/* Jobs of at most this many ranks start on one worker (MYR_PLACE: 2 by
 * default, 0 with `spread`); set by myr_job_create. */
extern int myr_job_pack_max;

/* The worker (of `workers`) that job rank `rank` (of `size`) is started
 * on and anchored to (launch/rank_start.c): blocks of consecutive ranks,
 * so that neighbours share a worker. A job of two ranks starts on one
 * worker: a pair that communicates more than it computes stays there (a
 * message is then a switch, not a wake-up of another core, which a loaded
 * machine delays by microseconds), and one that computes is spread by
 * the scheduler (ult/sched.c, "Stuck workers") within a steal delay. */
static inline int myr_job_worker_of(long rank, long size, int workers)
{
    if (size <= myr_job_pack_max)
        return 0;
    return (int)(rank * workers / size);
}
void myr_job_destroy(void);

/* Resolve a communicator handle for the calling rank: its size and the
 * caller's rank in it, and the rank's local state of it. */
static inline int myr_comm_size(MPI_Comm comm)
{
    return comm->kind == MYR_COMM_SELF ? 1 : comm->size;
}

/* How many ranks a point-to-point call may name: the remote group's size
 * for an intercommunicator, the size otherwise. */
static inline int myr_comm_peer_count(MPI_Comm comm)
{
    return comm->kind == MYR_COMM_INTER ? comm->remote_size : comm->size;
}

/* Communicators whose ranks live in several OS processes: MPI_COMM_WORLD
 * of such a job, and those made from it (coll/procs.c). */
static inline bool myr_comm_spans_processes(MPI_Comm comm)
{
    return __builtin_expect(myr_the_job.multiprocess, 0) &&
           (comm->kind == MYR_COMM_WORLD ||
            (comm->kind == MYR_COMM_INTRA && comm->shared->spanning));
}

/* Whether a message of another OS process may reach a receive on comm:
 * those above, and any intercommunicator of such a job (its groups may
 * live anywhere). */
static inline bool myr_comm_reaches_processes(MPI_Comm comm)
{
    return __builtin_expect(myr_the_job.multiprocess, 0) &&
           (comm->kind == MYR_COMM_WORLD || comm->kind == MYR_COMM_INTER ||
            (comm->kind == MYR_COMM_INTRA && comm->shared->spanning));
}

static inline int myr_comm_rank(MPI_Comm comm, const myr_rank *self)
{
    if (comm->kind >= MYR_COMM_INTRA)
        return comm->rank;
    return comm->kind == MYR_COMM_SELF ? 0 : self->world_rank;
}

static inline myr_comm_local *myr_comm_local_of(MPI_Comm comm, myr_rank *self)
{
    switch (comm->kind) {
    case MYR_COMM_INTRA:
    case MYR_COMM_INTER: return &comm->local;
    case MYR_COMM_SELF: return &self->self_local;
    default: return &self->world_local;
    }
}
static inline bool myr_comm_valid(MPI_Comm comm)
{
    return comm && myr_handle_magic(comm) == MYR_MAGIC_COMM;
}
/* The rank behind `rank` of `comm` (comm rank -> job rank), or NULL when
 * another OS process runs it (or rank is out of range). */
myr_rank *myr_comm_peer(MPI_Comm comm, myr_rank *self, int rank);

/* ---- waiting ----------------------------------------------------------- */

/* Block the calling ULT (of rank `r`) until done(arg) is true. done() is
 * re-evaluated after every completion notified to r. `note` (may be NULL)
 * says what it waits for, for the reports. */
void myr_wait_until(myr_rank *r, bool (*done)(void *), void *arg, const myr_wait_note *note);
/* Something r may wait for has completed: wake r's sleepers. The
 * completion must be published with a sequentially consistent store or
 * read-modify-write before this call: the notifier skips everything when no
 * ULT of r is waiting, which is only race-free with that ordering. */
void myr_wait_notify(myr_rank *r);
/* MYR_WAIT_POLICY=yield (set by myr_job_create): waiters stay ready and
 * yield in a loop instead of suspending (for the benchmark only). */
extern bool myr_wait_yields;

#endif
