/*
 * coll.h — collective operations among the ranks of a communicator, and the
 * predefined reduction operations they apply.
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

/* ---- reduction operations (op.c) -------------------------------------- */

typedef enum myr_op_kind {
    MYR_OP_MAX, MYR_OP_MIN, MYR_OP_SUM, MYR_OP_PROD,
} myr_op_kind;

struct myr_mpi_op {
    unsigned magic;
    myr_op_kind kind;
    const char *name;   /* "MPI_SUM" */
};

bool myr_op_valid(MPI_Op op);
/* Whether MPI defines `op` on elements of `type` (MPI 3.1, 5.9.2: MIN and
 * MAX on integers and reals, SUM and PROD also on complex numbers). */
bool myr_op_defined_for(MPI_Op op, MPI_Datatype type);
/* inout[i] = inout[i] op in[i] for i < count. Requires
 * myr_op_defined_for(op, type). Keeping the accumulator on the left makes
 * a rank-ordered fold evaluate ((x0 op x1) op x2) ... exactly. */
void myr_op_reduce(MPI_Op op, MPI_Datatype type, size_t count,
                   const void *in, void *inout);

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
} myr_coll_args;

/* Every rank of `comm` (an intracommunicator) calls the same collectives
 * in the same order; `self` is the calling rank (or a ULT acting for it).
 * Run one. What only the ranks together can see (a rank calling a
 * different collective, a different root, op, count or type signature; a
 * receive smaller than what is sent: MPI_ERR_TRUNCATE) is reported to
 * every rank. */
int myr_coll_run(MPI_Comm comm, myr_rank *self, const myr_coll_args *args,
                 const char **why) __attribute__((warn_unused_result));
/* The MPI name of a collective ("MPI_Gatherv", "MPI_Igatherv"). */
const char *myr_coll_name(myr_coll_kind kind, bool nonblocking);

/* Shorthands for myr_coll_run. */
int myr_coll_barrier(MPI_Comm comm, myr_rank *self, const char **why)
    __attribute__((warn_unused_result));
int myr_coll_bcast(MPI_Comm comm, myr_rank *self, void *buf, int count,
                   MPI_Datatype type, int root, const char **why)
    __attribute__((warn_unused_result));
/* `in` is the rank's contribution (recvbuf itself for MPI_IN_PLACE). */
int myr_coll_allreduce(MPI_Comm comm, myr_rank *self, const void *in,
                       void *out, int count, MPI_Datatype type, MPI_Op op,
                       const char **why) __attribute__((warn_unused_result));


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

#endif
