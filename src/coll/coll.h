/*
 * coll.h — collective operations among the ranks of a communicator, and the
 * reduction operations they apply (predefined and user-defined).
 *
 * The MPI layer validates arguments, then calls these. They return
 * MPI_SUCCESS or an MPI error class; on error *why points at a message that
 * names what went wrong (it stays valid until this rank's next collective
 * call on the communicator).
 *
 * Today every rank of a communicator lives in this OS process, so the
 * algorithms are shared-memory ones (round.c explains them); the
 * inter-process level of the hierarchy will sit behind the same functions.
 */
#ifndef MYR_COLL_COLL_H
#define MYR_COLL_COLL_H

#include "core/core.h"

/* Used only inside libmyriad (and by programs linking its objects
 * statically): hidden, so calls between its files are direct, not through
 * the PLT. */
#pragma GCC visibility push(hidden)

/* ---- reduction operations (op.c) -------------------------------------- */

typedef enum myr_op_kind {
    MYR_OP_MAX, MYR_OP_MIN, MYR_OP_SUM, MYR_OP_PROD,
    MYR_OP_LAND, MYR_OP_LOR, MYR_OP_LXOR, MYR_OP_BAND, MYR_OP_BOR, MYR_OP_BXOR,
    MYR_OP_MAXLOC, MYR_OP_MINLOC,
    MYR_OP_REPLACE, MYR_OP_NO_OP,   /* one-sided accumulate only */
    MYR_OP_USER,                    /* MPI_Op_create */
} myr_op_kind;

struct myr_mpi_op {
    unsigned magic;        /* MYR_MAGIC_OP; MYR_MAGIC_DEAD once released */
    myr_op_kind kind;
    const char *name;      /* "MPI_SUM"; "(user-defined op)" */
    bool commute;
    /* User ops only. The handle holds one reference and every pending
     * operation using the op one more, so MPI_Op_free (which sets `freed`:
     * the handle is no longer valid) never pulls it from under them. */
    bool freed;
    MPI_User_function *fn;
    _Atomic int refs;
    struct myr_mpi_op *next_free;
};

/* A live op handle: predefined, or user-defined and not freed. */
bool myr_op_valid(MPI_Op op);
/* Whether `op` may reduce elements of `type` in a collective or
 * MPI_Reduce_local (MPI 3.1, 5.9.2 and 5.9.4): each predefined op on its
 * classes of predefined types, and on derived types whose basic elements
 * are all of one such type (a vector of MPI_INT, a contiguous of MPI_2INT
 * for MINLOC); never MPI_REPLACE or MPI_NO_OP (one-sided only). User ops:
 * any type (the caller checks it is committed). */
bool myr_op_defined_for(MPI_Op op, MPI_Datatype type);
bool myr_op_commutative(MPI_Op op);
/* Whether two ranks' op arguments to one collective agree: the same
 * predefined op, or both user-defined (each rank passes the handle it
 * created itself; that they wrap the same function no rank can check). */
bool myr_op_matches(MPI_Op a, MPI_Op b);
/* For messages: "MPI_SUM", or "(user-defined op)". */
const char *myr_op_label(MPI_Op op);
/* For messages: the types `op` is defined for ("integer, floating point,
 * complex, MPI_AINT, MPI_OFFSET and MPI_COUNT types"). */
const char *myr_op_domain(MPI_Op op);
/* inout[i] = in[i] op inout[i] for the count elements of `type` at in and
 * inout (both laid out as count elements of type, i.e. at its extent, from
 * the same lb): MPI's convention, the same as a user function's (invec is
 * the LEFT operand), so a non-commutative op folds x0 op (x1 op ...) by
 * reducing from the highest rank down. Requires myr_op_defined_for. */
void myr_op_reduce(MPI_Op op, MPI_Datatype type, size_t count,
                   const void *in, void *inout);
/* acc = v[0] op (v[1] op (... op v[n-1])), the fold of myr_op_reduce from
 * the highest down, over n inputs of count elements of a contiguous
 * `type` (type->contig) stored `stride` bytes apart from `values`, n >= 1:
 * the op's kernel is looked up once for all n, not once per input. */
void myr_op_fold(MPI_Op op, MPI_Datatype type, size_t count, const void *values,
                 size_t stride, int n, void *acc);
/* A pending operation keeps a user op alive past MPI_Op_free (no-op for
 * predefined ops). */
void myr_op_retain(MPI_Op op);
void myr_op_release(MPI_Op op);
/* A new user op (one reference, the handle's); NULL when out of memory. */
MPI_Op myr_op_create(MPI_User_function *fn, bool commute);
/* MPI_Op_free: the handle goes; the op lives while operations use it. */
void myr_op_free(MPI_Op op);

/* ---- collectives (coll.c, move.c, reduce.c) ------------------------------ */

typedef enum myr_coll_kind {
    MYR_COLL_BARRIER, MYR_COLL_BCAST, MYR_COLL_GATHER, MYR_COLL_GATHERV,
    MYR_COLL_SCATTER, MYR_COLL_SCATTERV, MYR_COLL_ALLGATHER, MYR_COLL_ALLGATHERV,
    MYR_COLL_ALLTOALL, MYR_COLL_ALLTOALLV, MYR_COLL_ALLTOALLW, MYR_COLL_REDUCE,
    MYR_COLL_ALLREDUCE, MYR_COLL_REDUCE_SCATTER, MYR_COLL_REDUCE_SCATTER_BLOCK,
    MYR_COLL_SCAN, MYR_COLL_EXSCAN,
    MYR_COLL_KINDS_
} myr_coll_kind;

/* One rank's arguments to one collective, as MPI names them; what a kind
 * does not use is left zero.
 *   BCAST                    rbuf (the buffer), count, type, root
 *   GATHER, SCATTER,         sbuf, scount, stype, rbuf, rcount, rtype, root
 *   ALLGATHER, ALLTOALL
 *   GATHERV                  ... rcounts, rdispls instead of rcount
 *   SCATTERV                 ... scounts, sdispls instead of scount
 *   ALLGATHERV               ... rcounts, rdispls
 *   ALLTOALLV                sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype
 *   ALLTOALLW                ... stypes/rtypes instead of stype/rtype; byte displacements
 *   REDUCE, ALLREDUCE,       sbuf, rbuf, count, type, op (REDUCE: root)
 *   SCAN, EXSCAN
 *   REDUCE_SCATTER_BLOCK     sbuf, rbuf, count (each rank's block), type, op
 *   REDUCE_SCATTER           sbuf, rbuf, rcounts, type, op
 * MPI_IN_PLACE is passed as sbuf (as rbuf for SCATTER(V) at the root),
 * where MPI allows it; the MPI layer has checked everything a rank can
 * check alone. Buffers and arrays must stay valid until the call returns
 * (for a nonblocking collective: until it completes). */
typedef struct myr_coll_args {
    myr_coll_kind kind;
    bool nonblocking;      /* MPI_Ibcast... (never matches a blocking call) */
    int root;
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    const int *scounts, *sdispls;
    const MPI_Datatype *stypes;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    const int *rcounts, *rdispls;
    const MPI_Datatype *rtypes;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    /* Set only by the collectives spanning OS processes (procs.c), for a
     * round of one process's ranks: an error this rank has already met in
     * the collective (another process's report, a message of the wrong
     * size). The round then fails with it for every rank of the round, so
     * that all of them report it. MPI_SUCCESS (0): none. */
    int carry;
    const char *carry_why;
} myr_coll_args;

/* Every rank of `comm` (an intracommunicator) calls the same collectives
 * in the same order; `self` is the calling rank (or a ULT acting for it).
 * Run one. What only the ranks together can see (a rank calling a
 * different collective, a different root, op, count or type signature; a
 * receive smaller than what is sent: MPI_ERR_TRUNCATE) is reported to
 * every rank. */
int myr_coll_run(MPI_Comm comm, myr_rank *self, const myr_coll_args *args,
                 const char **why) __attribute__((warn_unused_result));
/* The most bytes of a contiguous type that myr_coll_allreduce_small
 * takes (a reduction input of two doubles, a long double or a double
 * complex). */
enum { MYR_COLL_SMALL_BYTES = 16 };
/* myr_coll_run for an MPI_Allreduce of 1 .. MYR_COLL_SMALL_BYTES bytes of
 * a contiguous type (sbuf MPI_IN_PLACE: the input is in rbuf) on an
 * intracommunicator of two ranks or more, all in this OS process, whose
 * arguments the caller has checked and with no nonblocking collective
 * pending: an application's inner-loop reduction (a dot product, a norm,
 * a convergence flag) without the argument block and the dispatch by
 * kind. It fills its slot as myr_coll_run would, so a rank of the same
 * round may come either way. */
int myr_coll_allreduce_small(MPI_Comm comm, myr_rank *self, const void *sbuf, void *rbuf,
                             int count, MPI_Datatype type, MPI_Op op, const char **why)
    __attribute__((warn_unused_result));
/* myr_coll_run for a barrier, without its arguments: a barrier is one
 * round with nothing to check but the other ranks' collective, and
 * nothing to move, so its calls (MPI_Barrier's) skip building them. */
int myr_coll_barrier(MPI_Comm comm, myr_rank *self, const char **why)
    __attribute__((warn_unused_result));
/* The MPI name of a collective ("MPI_Gatherv", "MPI_Igatherv"); inline:
 * every collective call names itself. (The table has two more kinds, the
 * communicator constructors' rounds and a round carrying an error,
 * coll_impl.h.) */
extern const char *const myr_coll_names[MYR_COLL_KINDS_ + 2][2];
static inline const char *myr_coll_name(myr_coll_kind kind, bool nonblocking)
{
    return myr_coll_names[kind][nonblocking];
}

/* ---- nonblocking collectives (nbc.c) ------------------------------------ */

/* A nonblocking collective of an intracommunicator is a round of its
 * blocking algorithm that no rank waits in (myr_coll_nb_start_coll); the
 * others are their blocking algorithm run by a ULT acting for the calling
 * rank: `fn` receives the communicator, the rank and the engine's copy of
 * the arguments, and returns as the myr_coll_* functions do (MPI_SUCCESS,
 * or an error class with *why saying what went wrong). */
typedef int (*myr_coll_nb_fn)(MPI_Comm comm, myr_rank *self, void *args,
                              const char **why);
/* Called once on the engine's copy of the arguments when the operation is
 * over (after fn, or instead of it when the start fails): release what the
 * starter took for it (datatype references, copies of count arrays). */
typedef void (*myr_coll_nb_cleanup)(void *args);

/* Start `fn` on `comm` for rank `self`: args_size bytes at `args` are
 * copied (arrays they point to must live until completion: copy what the
 * user may free, and free it in `cleanup`, which may be NULL). The
 * operation runs after every collective this rank started earlier on
 * comm, and *request (a new active request) completes when it returns;
 * an error it returns is raised by MPI_Wait/Test as "`call`: why".
 * MPI_SUCCESS, or MPI_ERR_NO_MEM (nothing started, cleanup already
 * called). */
int myr_coll_nb_start(MPI_Comm comm, myr_rank *self, const char *call,
                      myr_coll_nb_fn fn, const void *args, size_t args_size,
                      myr_coll_nb_cleanup cleanup, MPI_Request *request)
    __attribute__((warn_unused_result));
/* myr_coll_nb_start for a collective of an intracommunicator (comm), run
 * as a round, its arguments written in place: `args`, from
 * myr_coll_nb_reserve, start with the myr_coll_args of the call
 * (nonblocking set), checked as myr_coll_run wants them. On failure
 * (MPI_ERR_NO_MEM) the reservation is gone and cleanup was called. */
void *myr_coll_nb_reserve(size_t args_size);
/* A reservation not started after all. */
void myr_coll_nb_unreserve(void *args);
int myr_coll_nb_start_coll(MPI_Comm comm, myr_rank *self, const char *call, void *args,
                           myr_coll_nb_cleanup cleanup, MPI_Request *request)
    __attribute__((warn_unused_result));
/* MPI_Ibarrier on an intracommunicator (no arguments to copy): started
 * as myr_coll_nb_start_coll, its block taken here. MPI_SUCCESS, or
 * MPI_ERR_NO_MEM (nothing started). */
int myr_coll_nb_start_barrier(MPI_Comm comm, myr_rank *self, const char *call,
                              MPI_Request *request) __attribute__((warn_unused_result));
/* MPI_Wait on the request `r` of a nonblocking collective, until it is
 * complete: if the operation has arrived at its round and the round's
 * completer has not claimed it, the rank takes part in the round as a
 * blocking rank does and finishes the operation itself; otherwise it
 * waits for the request as for any other. So a collective that the rank
 * waits for at once costs what its blocking form does, plus the request. */
void myr_coll_nb_wait(myr_rank *self, struct myr_mpi_request *r);
/* Retire the completed request `r` of a nonblocking collective: what
 * myr_request_release does for it (it lives in its operation's block),
 * once its status has been read and it carries no message (r->why). */
void myr_coll_nb_release(struct myr_mpi_request *r);

/* Before a blocking collective on comm (every entry point that runs one,
 * communicator constructors included): wait until the nonblocking ones
 * this rank started on comm have finished. One load when none is
 * pending. */
void myr_coll_nb_drain_slow(MPI_Comm comm, myr_rank *self);
static inline void myr_coll_nb_drain(MPI_Comm comm, myr_rank *self)
{
    if (__builtin_expect(atomic_load(&myr_comm_local_of(comm, self)->nb.tail) != NULL, 0))
        myr_coll_nb_drain_slow(comm, self);
}

/* ---- creating communicators (comm_create.c) --------------------------- */

/* Collective over `parent`: the ranks passing the same color (not
 * MPI_UNDEFINED) get one new communicator, ranked by (key, parent rank);
 * the others get MPI_COMM_NULL. MPI_Comm_dup, _split, _split_type and
 * _create are all this. */
int myr_coll_comm_split(MPI_Comm parent, myr_rank *self, int color, int key,
                        MPI_Comm *out, const char **why)
    __attribute__((warn_unused_result));
/* Collective over the members of `group` (all of them ranks of parent):
 * one new communicator of group's ranks in group's order; MPI_COMM_NULL
 * for a caller outside the group. */
int myr_coll_comm_create_group(MPI_Comm parent, myr_rank *self, MPI_Group group,
                               int tag, MPI_Comm *out, const char **why)
    __attribute__((warn_unused_result));

#pragma GCC visibility pop

#endif
