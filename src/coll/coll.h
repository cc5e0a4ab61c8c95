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
 * algorithms are shared-memory ones (coll.c); the inter-process level of the
 * hierarchy will sit behind the same functions.
 */
#ifndef MYR_COLL_COLL_H
#define MYR_COLL_COLL_H

#include "core/core.h"

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
/* A pending operation keeps a user op alive past MPI_Op_free (no-op for
 * predefined ops). */
void myr_op_retain(MPI_Op op);
void myr_op_release(MPI_Op op);
/* A new user op (one reference, the handle's); NULL when out of memory. */
MPI_Op myr_op_create(MPI_User_function *fn, bool commute);
/* MPI_Op_free: the handle goes; the op lives while operations use it. */
void myr_op_free(MPI_Op op);

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
