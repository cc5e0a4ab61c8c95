/*
 * comm.c — creating, comparing, naming and freeing communicators (the
 * intercommunicator halves of dup, split and create: intercomm.c).
 *
 * The constructors are thin: check the arguments, then one call into
 * coll/ (myr_coll_comm_split or myr_coll_comm_create_group, which say how
 * the members agree on one shared object and context id). A new
 * communicator starts with its parent's error handler, as MPI_Comm_dup
 * requires and as the other constructors do in the common
 * implementations.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

static int check_newcomm(const char *call, MPI_Comm comm, MPI_Comm *newcomm)
{
    if (!newcomm)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    return MPI_SUCCESS;
}

/* Finish a constructor: the new handle (or MPI_COMM_NULL) to the user, or
 * the error raised on the parent. */
static int finish(const char *call, MPI_Comm parent, myr_rank *self, int err,
                  const char *why, MPI_Comm made, MPI_Comm *newcomm)
{
    if (err != MPI_SUCCESS)
        return myr_mpi_error(parent, err, call, "%s", why);
    if (made)
        myr_errhandler_inherit(parent, made, self);
    *newcomm = made;
    return MPI_SUCCESS;
}

static int split(const char *call, MPI_Comm comm, myr_rank *self, int color, int key,
                 MPI_Comm *newcomm)
{
    MPI_Comm made = MPI_COMM_NULL;
    const char *why = "";
    myr_coll_nb_drain(comm, self);
    int err = myr_coll_comm_split(comm, self, color, key, &made, &why);
    return finish(call, comm, self, err, why, made, newcomm);
}

/* On an intercommunicator: split its local group, then face each part
 * with the remote part of the same color (myr_intercomm_connect). */
static int inter_split(const char *call, MPI_Comm ic, myr_rank *self, int color, int key,
                       MPI_Comm *newcomm)
{
    MPI_Comm local = MPI_COMM_NULL, made = MPI_COMM_NULL;
    const char *why = "";
    int err = myr_coll_comm_split(ic->local_comm, self, color, key, &local, &why);
    if (err)
        return myr_mpi_error(ic, err, call, "%s", why);
    if ((err = myr_intercomm_connect(call, ic, self, local, color, &made)))
        return err;
    return finish(call, ic, self, MPI_SUCCESS, "", made, newcomm);
}

/* A duplicate also takes the parent's attributes (as their copy callbacks
 * decide) and the given hints (attr.c, info.c). */
static int dup(const char *call, MPI_Comm comm, myr_rank *self, MPI_Info hints,
               MPI_Comm *newcomm)
{
    MPI_Comm made = MPI_COMM_NULL;
    int key = myr_comm_rank(comm, self);
    int err = comm->kind == MYR_COMM_INTER ? inter_split(call, comm, self, 0, key, &made)
                                           : split(call, comm, self, 0, key, &made);
    if (err)
        return err;
    if ((err = myr_comm_hints_copy(call, made, hints)) ||
        (err = myr_attr_comm_copy_all(comm, made, call))) {
        myr_comm_hints_drop(made);
        myr_errhandler_detach(made, self);
        myr_comm_release(made);
        return err;
    }
    myr_comm_topo_inherit(comm, made);   /* a duplicate keeps the topology */
    *newcomm = made;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = check_newcomm(call, comm, newcomm)))
        return err;
    return dup(call, comm, self, myr_comm_local_of(comm, self)->hints, newcomm);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) MYR_PMPI(Comm_dup);

/* MPI_INFO_NULL: the duplicate has no hints. */
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup_with_info";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = myr_check_info(call, comm, info, true)) ||
        (err = check_newcomm(call, comm, newcomm)))
        return err;
    return dup(call, comm, self, info, newcomm);
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
    MYR_PMPI(Comm_dup_with_info);

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = check_newcomm(call, comm, newcomm)))
        return err;
    if (color < 0 && color != MPI_UNDEFINED)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    if (comm->kind == MYR_COMM_INTER)
        return inter_split(call, comm, self, color, key, newcomm);
    return split(call, comm, self, color, key, newcomm);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
    MYR_PMPI(Comm_split);

/* Every rank of the job is collocated (one OS process), so both types
 * give one communicator of all the calling ranks. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split_type";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) || (err = check_newcomm(call, comm, newcomm)))
        return err;
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPIX_COMM_TYPE_PROCESS &&
        split_type != MPI_UNDEFINED)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid split_type %d (valid: MPI_COMM_TYPE_SHARED, "
                             "MPIX_COMM_TYPE_PROCESS, MPI_UNDEFINED)", split_type);
    /* No hint of MPI_Comm_split_type is acted on. */
    if ((err = myr_check_info(call, comm, info, true)))
        return err;
    /* The ranks of this node (MPI_COMM_TYPE_SHARED), or of this OS process
     * (MPIX_COMM_TYPE_PROCESS): every rank of one process is on one node. */
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED
                : split_type == MPI_COMM_TYPE_SHARED ? myr_net_the_place.node
                : myr_net_the_place.proc;
    return split(call, comm, self, color, key, newcomm);
}
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm) MYR_PMPI(Comm_split_type);

/* Whether every rank of `group` is a rank of `comm`. */
static bool group_within(MPI_Group group, MPI_Comm comm, myr_rank *self)
{
    if (comm->kind == MYR_COMM_WORLD)
        return true;   /* a group holds job ranks only */
    if (comm->kind == MYR_COMM_SELF)
        return group->size == 0 ||
               (group->size == 1 && myr_group_world(group, 0) == self->world_rank);
    size_t n = (size_t)myr_the_job.size;
    unsigned char *in = calloc(n, 1);
    if (!in)
        return false;
    for (int i = 0; i < comm->size; i++)
        in[comm->members[i]] = 1;
    bool ok = true;
    for (int i = 0; i < group->size && ok; i++)
        ok = in[myr_group_world(group, i)];
    free(in);
    return ok;
}

static int check_group_of(const char *call, MPI_Comm comm, MPI_Group group, myr_rank *self)
{
    int err;
    if ((err = myr_check_group(call, group, "group")))
        return err;
    if (!group_within(group, comm, self))
        return myr_mpi_error(comm, MPI_ERR_GROUP, call,
                             "group holds a rank that is not in the communicator");
    return MPI_SUCCESS;
}

/* A split: the members of the caller's group share the color of its first
 * rank and are ordered by their rank in the group (groups of different
 * callers are disjoint, MPI 3.1 6.4.2). */
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = check_newcomm(call, comm, newcomm)) ||
        (err = check_group_of(call, comm, group, self)))
        return err;
    int me = myr_group_rank_of(group, self->world_rank);
    /* On an intercommunicator each group passes a part of itself: the
     * parts face each other. */
    if (comm->kind == MYR_COMM_INTER)
        return inter_split(call, comm, self, me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me,
                           newcomm);
    int color = me == MPI_UNDEFINED ? MPI_UNDEFINED : myr_group_world(group, 0);
    return split(call, comm, self, color, me, newcomm);
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
    MYR_PMPI(Comm_create);

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create_group";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) || (err = check_newcomm(call, comm, newcomm)) ||
        (err = check_group_of(call, comm, group, self)) ||
        (err = myr_check_tag(call, comm, tag, false)))
        return err;
    MPI_Comm made = MPI_COMM_NULL;
    const char *why = "";
    err = myr_coll_comm_create_group(comm, self, group, tag, &made, &why);
    return finish(call, comm, self, err, why, made, newcomm);
}
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
    MYR_PMPI(Comm_create_group);

/* Local: the handle goes now, the shared object with the last member's
 * handle, and the handle itself only once the pending operations that
 * use it have completed (core/comm.c). */
int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_free";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if (!comm)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "comm is NULL");
    if ((err = myr_check_comm(call, *comm)))
        return err;
    if ((*comm)->kind < MYR_COMM_INTRA)
        return myr_mpi_error(*comm, MPI_ERR_COMM, call, "%s cannot be freed",
                             (*comm)->name);
    if ((err = myr_attr_comm_delete_all(*comm, call)))
        return err;
    myr_comm_hints_drop(*comm);
    myr_errhandler_detach(*comm, self);
    myr_comm_release(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
int MPI_Comm_free(MPI_Comm *comm) MYR_PMPI(Comm_free);

/* The job ranks of a (local) group: NULL for MPI_COMM_WORLD's (0..n-1). */
static const int *group_list(MPI_Comm comm, myr_rank *self)
{
    switch (comm->kind) {
    case MYR_COMM_WORLD: return NULL;
    case MYR_COMM_SELF: return &self->world_rank;
    default: return comm->members;
    }
}

/* MPI_CONGRUENT (same ranks, same order), MPI_SIMILAR or MPI_UNEQUAL; the
 * result through *result, or an error class (out of memory). */
static int compare_lists(int n1, const int *a, int n2, const int *b, int *result)
{
    if (n1 != n2) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    bool same_order = true;
    for (int i = 0; i < n1 && same_order; i++)
        same_order = (a ? a[i] : i) == (b ? b[i] : i);
    if (same_order) {
        *result = MPI_CONGRUENT;
        return MPI_SUCCESS;
    }
    unsigned char *in = calloc((size_t)myr_the_job.size, 1);
    if (!in)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n2; i++)
        in[b ? b[i] : i] = 1;
    *result = MPI_SIMILAR;
    for (int i = 0; i < n1; i++)
        if (!in[a ? a[i] : i]) {
            *result = MPI_UNEQUAL;
            break;
        }
    free(in);
    return MPI_SUCCESS;
}

/* Intercommunicators compare both groups; the weaker result wins. */
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char call[] = "MPI_Comm_compare";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm1)) || (err = myr_check_comm(call, comm2)))
        return err;
    if (!result)
        return myr_mpi_error(comm1, MPI_ERR_ARG, call, "result is NULL");
    bool inter1 = comm1->kind == MYR_COMM_INTER, inter2 = comm2->kind == MYR_COMM_INTER;
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (inter1 != inter2) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int local, remote = MPI_CONGRUENT;
    err = compare_lists(myr_comm_size(comm1), group_list(comm1, self),
                        myr_comm_size(comm2), group_list(comm2, self), &local);
    if (!err && inter1)
        err = compare_lists(comm1->remote_size, comm1->remote_members,
                            comm2->remote_size, comm2->remote_members, &remote);
    if (err)
        return myr_mpi_error(comm1, err, call, "out of memory");
    *result = local > remote ? local : remote;
    return MPI_SUCCESS;
}
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) MYR_PMPI(Comm_compare);

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char call[] = "MPI_Comm_test_inter";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!flag)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "flag is NULL");
    *flag = comm->kind == MYR_COMM_INTER;
    return MPI_SUCCESS;
}
int MPI_Comm_test_inter(MPI_Comm comm, int *flag) MYR_PMPI(Comm_test_inter);

/* Names are per process in MPI, so per rank here. A longer name is cut
 * to MPI_MAX_OBJECT_NAME - 1 characters. */
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char call[] = "MPI_Comm_set_name";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!comm_name)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "comm_name is NULL");
    char *copy = strndup(comm_name, MPI_MAX_OBJECT_NAME - 1);
    if (!copy)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a name");
    myr_comm_local *local = myr_comm_local_of(comm, self);
    free(local->name);
    local->name = copy;
    return MPI_SUCCESS;
}
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name) MYR_PMPI(Comm_set_name);

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char call[] = "MPI_Comm_get_name";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!comm_name)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "comm_name is NULL");
    if (!resultlen)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "resultlen is NULL");
    const char *name = myr_comm_local_of(comm, self)->name;
    if (!name)
        name = comm->name;
    size_t n = strlen(name);
    memcpy(comm_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
    MYR_PMPI(Comm_get_name);
