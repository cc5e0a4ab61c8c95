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
 * algorithms are shared-memory ones (coll.c); the inter-process level of the
 * hierarchy will sit behind the same functions.
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

/* ---- collectives (coll.c) ---------------------------------------------- */

/* Every rank of `comm` calls the same collectives in the same order; `self`
 * is the calling rank. Arguments are already valid (the MPI layer checked
 * them); what only the ranks together can see (a rank calling a different
 * collective, a different root, count or op) is reported here. */
int myr_coll_barrier(MPI_Comm comm, myr_rank *self, const char **why)
    __attribute__((warn_unused_result));
int myr_coll_bcast(MPI_Comm comm, myr_rank *self, void *buf, int count,
                   MPI_Datatype type, int root, const char **why)
    __attribute__((warn_unused_result));
/* `in` is the rank's contribution (recvbuf itself for MPI_IN_PLACE). */
int myr_coll_allreduce(MPI_Comm comm, myr_rank *self, const void *in,
                       void *out, int count, MPI_Datatype type, MPI_Op op,
                       const char **why) __attribute__((warn_unused_result));


/* ---- nonblocking collectives (nbc.c) ------------------------------------ */

/* A nonblocking collective is its blocking algorithm run by a ULT acting
 * for the calling rank: `fn` receives the communicator, the rank and the
 * engine's copy of the arguments, and returns as the myr_coll_* functions
 * do (MPI_SUCCESS, or an error class with *why saying what went wrong). */
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
/* Before a blocking collective on comm (every entry point that runs one,
 * communicator constructors included): wait until the nonblocking ones
 * this rank started on comm have finished. One load when none is
 * pending. */
void myr_coll_nb_drain(MPI_Comm comm, myr_rank *self);

/* ---- creating communicators (coll.c) ----------------------------------- */

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
