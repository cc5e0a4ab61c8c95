/*
 * comm_idup.c — MPI_Comm_idup: MPI_Comm_dup as a nonblocking collective
 * (coll/nbc.c). The duplicate is made in call order with the rank's other
 * collectives on the parent, by the ULT that runs them; the user's newcomm
 * is written when it is ready, just before the request completes (MPI
 * 3.1, 6.4.2: the handle may not be used before then).
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

typedef struct idup_args {
    MPI_Comm *newcomm;
} idup_args;

/* What a duplicate takes from its parent besides the group: the error
 * handler and the topology, as MPI_Comm_dup gives them. */
static void inherit_from_parent(MPI_Comm parent, MPI_Comm made, myr_rank *self)
{
    myr_errhandler_inherit(parent, made, self);
    myr_comm_topo_inherit(parent, made);
}

static int run_idup(MPI_Comm comm, myr_rank *self, void *args, const char **why)
{
    idup_args *a = args;
    MPI_Comm made = MPI_COMM_NULL;
    int err;
    if (comm->kind == MYR_COMM_INTER) {
        /* As MPI_Comm_dup does it (comm.c): a duplicate of the local group,
         * then facing the remote group's (blocking collectives on comm run
         * here: this ULT is the one that runs comm's collectives now). */
        MPI_Comm local = MPI_COMM_NULL;
        err = myr_coll_comm_split(comm->local_comm, self, 0, myr_comm_rank(comm, self), &local,
                                  why);
        if (err == MPI_SUCCESS &&
            (err = myr_intercomm_connect("MPI_Comm_idup", comm, self, local, 0, &made)))
            *why = "the groups could not agree on the duplicate";
    } else {
        err = myr_coll_comm_split(comm, self, 0, myr_comm_rank(comm, self), &made, why);
    }
    if (err == MPI_SUCCESS)
        inherit_from_parent(comm, made, self);
    *a->newcomm = made;
    return err;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char call[] = "MPI_Comm_idup";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_pointer(call, comm, newcomm, "newcomm")) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    idup_args a = {newcomm};
    err = myr_coll_nb_start(comm, self, call, run_idup, &a, sizeof a, NULL, request);
    if (err)
        return myr_mpi_error(comm, err, call, "out of memory for a nonblocking collective");
    return MPI_SUCCESS;
}
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
    MYR_PMPI(Comm_idup);
