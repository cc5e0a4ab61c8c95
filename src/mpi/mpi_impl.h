/*
 * mpi_impl.h — what every MPI entry point shares: finding the calling rank,
 * checking arguments, and raising errors through the communicator's error
 * handler.
 *
 * Entry points are written as PMPI_X, with MPI_X a weak alias (MYR_PMPI), so
 * a profiling library can define MPI_X and call PMPI_X. They stay thin:
 * validate, then call into core/.
 *
 * Error messages name the rank, the call, the argument and the valid range:
 *   rank 3: MPI_Send: invalid destination rank 7 (communicator size 4)
 */
#ifndef MYR_MPI_IMPL_H
#define MYR_MPI_IMPL_H

#include "core/core.h"
#include "net/net.h"

#define MYR_PMPI(name) __attribute__((weak, alias("PMPI_" #name)))

/* Raise error class `errclass` in `call` on `comm` (MPI_COMM_NULL or an
 * invalid handle: the rank's MPI_COMM_WORLD handler is used). With
 * MPI_ERRORS_ARE_FATAL this prints one line and ends the job; with
 * MPI_ERRORS_RETURN it returns `errclass`; a user handler is called first.
 * `fmt` says what was wrong with which argument. */
int myr_mpi_error(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* End the job (every rank of this OS process): flush stdio, print the line
 * `fmt` to stderr and _exit with status code & 0xff, or 1 if that is 0. Of
 * concurrent callers only the first prints; the others wait for the end. */
_Noreturn void myr_mpi_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* At MPI_Finalize: detach the rank's user error handlers (they become
 * MPI_ERRORS_ARE_FATAL, and are freed with their last reference); the
 * predefined ones stay, so MPI_ERRORS_RETURN still covers calls made after
 * MPI_Finalize. */
void myr_errhandlers_finalize(myr_rank *self);

/* Rank `r` has ended (its main returned or it called exit) without ever
 * calling MPI_Init: it will never communicate, so MPI_Finalize no longer
 * waits for it. Called on the rank's ULT. */
void myr_mpi_rank_ended_uninitialized(myr_rank *r);
/* MPI_Wtime's time zero becomes the job's (place->clock_zero_ns) in a job
 * of several OS processes; MPI_WTIME_IS_GLOBAL says whether the clocks of
 * all its ranks compare (one node). Before the ranks start. */
void myr_mpi_clock_share(const myr_net_place *place);
bool myr_mpi_clock_is_global(void);

/* The calling rank, after checking MPI is initialised and not finalized
 * (an error is raised and NULL returned otherwise; *err gets the code). */
myr_rank *myr_mpi_enter_slow(const char *call, int *err);
/* For the calls MPI allows before MPI_Init and after MPI_Finalize (info
 * objects, MPI 4.0 10.4.2 note): only a rank is required. */
myr_rank *myr_mpi_enter_any(const char *call, int *err);
static inline myr_rank *myr_mpi_enter(const char *call, int *err)
{
    myr_rank *self = myr_rank_self();
    if (__builtin_expect(self && self->init_state == 1, 1)) {
        atomic_store_explicit(&self->last_call, call, memory_order_relaxed);
        *err = MPI_SUCCESS;
        return self;
    }
    return myr_mpi_enter_slow(call, err);
}

/* Argument checks: MPI_SUCCESS, or the raised error's code. */
int myr_check_comm_slow(const char *call, MPI_Comm comm);
static inline int myr_check_comm(const char *call, MPI_Comm comm)
{
    return __builtin_expect(myr_comm_valid(comm), 1) ? MPI_SUCCESS
                                                     : myr_check_comm_slow(call, comm);
}
/* A valid intracommunicator (MPI_ERR_COMM for an intercommunicator, in
 * the calls that do not take one yet). */
int myr_check_intra(const char *call, MPI_Comm comm);
int myr_check_count(const char *call, MPI_Comm comm, const char *what, int count);
int myr_check_type(const char *call, MPI_Comm comm, MPI_Datatype type);
/* A NULL buffer (MPI_BOTTOM) is fine with a derived type. */
int myr_check_buffer(const char *call, MPI_Comm comm, const void *buf, int count,
                     MPI_Datatype type);
/* allow: bit 1 MPI_ANY_SOURCE, bit 2 MPI_PROC_NULL. */
enum { MYR_ALLOW_ANY = 1, MYR_ALLOW_PROC_NULL = 2 };
int myr_check_peer(const char *call, MPI_Comm comm, myr_rank *self,
                   const char *what, int rank, int allow);
int myr_check_tag(const char *call, MPI_Comm comm, int tag, bool allow_any);
/* A pointer argument that must not be NULL (`what` names it). Inline:
 * every nonblocking call checks its request pointer. */
int myr_check_pointer_slow(const char *call, MPI_Comm comm, const char *what);
static inline int myr_check_pointer(const char *call, MPI_Comm comm, const void *p,
                                    const char *what)
{
    return __builtin_expect(p != NULL, 1) ? MPI_SUCCESS
                                          : myr_check_pointer_slow(call, comm, what);
}

/* What a handle that failed its check is instead, for the message:
 * "freed already", "a communicator" (a handle of another kind), or "not a
 * live MPI handle: uninitialised, or freed". Reads nothing that could
 * fault (myr_handle_magic). */
const char *myr_handle_problem(const void *handle);

int myr_check_group(const char *call, MPI_Group g, const char *what);
/* A valid op defined for `type` (mpi/op.c): MPI_ERR_OP naming the op, the
 * type and what the op takes. */
int myr_check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype type);

/* A new communicator starts with its parent's error handler (for rank
 * `self`); a freed one lets go of its user handler. */
void myr_errhandler_inherit(MPI_Comm parent, MPI_Comm child, myr_rank *self);
void myr_errhandler_detach(MPI_Comm comm, myr_rank *self);

/* The bodies of MPI_Comm_create_errhandler, _set_errhandler and
 * _get_errhandler, raising errors as `call` (MPI-1's names use them). */
int myr_errhandler_create(const char *call, MPI_Comm_errhandler_function *function,
                          MPI_Errhandler *errhandler);
int myr_errhandler_set(const char *call, MPI_Comm comm, MPI_Errhandler errhandler);
int myr_errhandler_get(const char *call, MPI_Comm comm, MPI_Errhandler *errhandler);

/* ---- info objects and hints (info.c) -------------------------------------- */

/* A new info object holding key = value; NULL when out of memory. */
MPI_Info myr_info_with(const char *key, const char *value);
/* A valid info object (or MPI_INFO_NULL, when allow_null). */
int myr_check_info(const char *call, MPI_Comm comm, MPI_Info info, bool allow_null);
/* The calling rank's hints of `comm` become a copy of `hints` (none for
 * MPI_INFO_NULL); MPI_SUCCESS or the raised MPI_ERR_NO_MEM. */
int myr_comm_hints_copy(const char *call, MPI_Comm comm, MPI_Info hints);
/* Forget the calling rank's hints of `comm` (when it is freed). */
void myr_comm_hints_drop(MPI_Comm comm);

/* ---- attributes (attr.c) ---------------------------------------------------- */

/* MPI_APPNUM per world rank (an MPMD job: launch/mpmd.h): the array stays
 * as long as the job; NULL (the default) makes every rank's 0. */
void myr_attr_set_appnums(int *per_rank);

/* Copy the calling rank's attributes of oldcomm to newcomm (new, not yet
 * the user's), running the copy callbacks (MPI_Comm_dup and its
 * variants). On a callback's error the copies made are deleted again and
 * the error is raised on oldcomm, as `call`: the caller then frees
 * newcomm. Returns MPI_SUCCESS or the raised error. */
int myr_attr_comm_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm, const char *call)
    __attribute__((warn_unused_result));
/* Delete the calling rank's attributes of comm, newest first, running the
 * delete callbacks (MPI_Comm_free). A callback's error is raised on comm
 * and stops there (the comm must then not be freed). */
int myr_attr_comm_delete_all(MPI_Comm comm, const char *call)
    __attribute__((warn_unused_result));
/* The same for datatypes (MPI_Type_dup, MPI_Type_free); errors go to the
 * MPI_COMM_WORLD handler. */
int myr_attr_type_copy_all(MPI_Datatype oldtype, MPI_Datatype newtype, const char *call)
    __attribute__((warn_unused_result));
int myr_attr_type_delete_all(MPI_Datatype type, const char *call)
    __attribute__((warn_unused_result));
/* At MPI_Finalize: delete MPI_COMM_SELF's attributes (in reverse order of
 * setting, MPI 3.1 8.7.1), then MPI_COMM_WORLD's, then those on predefined
 * datatypes. A failing delete callback does not stop the others; the first
 * error of each object is raised, and the first of all returned. */
int myr_attr_finalize(myr_rank *self);
/* The communicator attribute calls, raising errors as `call` (MPI-1's
 * MPI_Keyval_create, MPI_Attr_put... use them). */
int myr_attr_comm_create_keyval(const char *call, MPI_Comm_copy_attr_function *copy_fn,
                                MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                                void *extra_state);
int myr_attr_comm_free_keyval(const char *call, int *keyval);
int myr_attr_comm_set(const char *call, MPI_Comm comm, int keyval, void *attribute_val);
int myr_attr_comm_get(const char *call, MPI_Comm comm, int keyval, void *attribute_val,
                      int *flag);
int myr_attr_comm_delete(const char *call, MPI_Comm comm, int keyval);

/* A blocking collective on an intercommunicator (intercoll.c): checks the
 * arguments and runs it; `call` names it in messages. */
struct myr_coll_args;
int myr_inter_coll(const char *call, MPI_Comm ic, const struct myr_coll_args *a);

/* The second half of MPI_Comm_dup/split/create on an intercommunicator
 * (intercomm.c), collective over ic: `local` is the caller's new
 * communicator of part of ic's local group (taken; MPI_COMM_NULL when the
 * caller is in none) and `color` names the remote part it faces, the remote
 * ranks that gave the same color (MPI_UNDEFINED: none). *newcomm is the new
 * intercommunicator, or MPI_COMM_NULL when either part is empty. Errors
 * are raised on ic. */
int myr_intercomm_connect(const char *call, MPI_Comm ic, myr_rank *self, MPI_Comm local,
                          int color, MPI_Comm *newcomm);

/* Generalized requests (greq.c): fill the request's status with its
 * query_fn (returns its error), and run its cancel_fn. */
struct myr_mpi_request;
int myr_greq_query(struct myr_mpi_request *r);
void myr_greq_cancel(struct myr_mpi_request *r);

/* The MPI_LASTUSEDCODE attribute's value (errors.c). */
extern int myr_mpi_last_used_code;

/* The largest tag value (MPI_TAG_UB). */
#define MYR_TAG_UB 0x7fffffff

#endif
