/*
 * comm.c — groups, communicator handles and what the members of a
 * communicator share.
 *
 * Ownership. A rank map is shared by reference count between the groups
 * and communicators built from it (MPI_Comm_group of a communicator of
 * 10^5 ranks copies nothing). A created communicator is one
 * myr_comm_shared (members, context id, collective state), referenced
 * once per member handle, and one handle per member. A handle counts the
 * user's reference and one per nonblocking request using it, so
 * MPI_Comm_free with operations pending frees nothing they still read;
 * the shared object goes with the last member's handle, whenever the
 * other members free theirs. A handle's virtual topology (core.h,
 * myr_topo) is referenced by the handle and its duplicates' handles.
 */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

#include "net/net.h"

struct myr_mpi_comm myr_mpi_comm_world = {
    .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_WORLD, .context_id = 0,
    .size = 0, .name = "MPI_COMM_WORLD"};
struct myr_mpi_comm myr_mpi_comm_self = {
    .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_SELF, .context_id = 1,
    .size = 1, .name = "MPI_COMM_SELF"};
struct myr_mpi_group myr_mpi_group_empty = {
    .magic = MYR_MAGIC_GROUP, .size = 0, .map = NULL};

static _Atomic unsigned next_context_id = 2;

unsigned myr_context_id_next(void)
{
    return atomic_fetch_add_explicit(&next_context_id, 1, memory_order_relaxed);
}

unsigned myr_context_ids_next(unsigned n)
{
    return atomic_fetch_add_explicit(&next_context_id, n, memory_order_relaxed);
}

unsigned myr_context_ids_spanning(unsigned n)
{
    static _Atomic unsigned next_spanning;
    unsigned proc_bits = 0;
    while ((1u << proc_bits) < (unsigned)myr_net_the_place.nprocs)
        proc_bits++;
    unsigned counter_bits = 29 - proc_bits;   /* below MYR_CONTEXT_SPANNING */
    unsigned first = atomic_fetch_add_explicit(&next_spanning, n, memory_order_relaxed);
    if (first >= (1u << counter_bits) || n > (1u << counter_bits) - first)
        return 0;
    return MYR_CONTEXT_SPANNING | (unsigned)myr_net_the_place.proc << counter_bits | first;
}

/* ---- rank maps ---------------------------------------------------------- */

myr_rankmap *myr_rankmap_new(int size)
{
    myr_rankmap *m = malloc(sizeof *m + (size_t)size * sizeof m->world[0]);
    if (m) {
        atomic_init(&m->refs, 1);
        m->size = size;
    }
    return m;
}

void myr_rankmap_retain(myr_rankmap *m)
{
    if (m)
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

void myr_rankmap_release(myr_rankmap *m)
{
    if (m && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1)
        free(m);
}

/* ---- groups --------------------------------------------------------------- */

bool myr_group_valid(MPI_Group g)
{
    return g && myr_handle_magic(g) == MYR_MAGIC_GROUP;
}

MPI_Group myr_group_new(myr_rankmap *map, int size)
{
    if (size == 0) {
        myr_rankmap_release(map);
        return MPI_GROUP_EMPTY;
    }
    MPI_Group g = malloc(sizeof *g);
    if (!g) {
        myr_rankmap_release(map);
        return NULL;
    }
    *g = (struct myr_mpi_group){.magic = MYR_MAGIC_GROUP, .size = size, .map = map};
    return g;
}

void myr_group_free(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return;
    myr_rankmap_release(g->map);
    g->magic = MYR_MAGIC_DEAD;
    free(g);
}

int myr_group_rank_of(MPI_Group g, int world)
{
    if (!g->map)
        return world >= 0 && world < g->size ? world : MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->map->world[i] == world)
            return i;
    return MPI_UNDEFINED;
}

/* ---- communicators --------------------------------------------------------- */

myr_comm_shared *myr_comm_shared_new(myr_rankmap *map, int refs)
{
    return myr_comm_shared_new_ctx(map, refs, myr_context_id_next());
}

myr_comm_shared *myr_comm_shared_new_ctx(myr_rankmap *map, int refs, unsigned ctx)
{
    myr_comm_shared *sh = malloc(sizeof *sh);
    if (!sh) {
        myr_rankmap_release(map);
        return NULL;
    }
    atomic_init(&sh->refs, refs);
    sh->spanning = false;
    sh->context_id = ctx;
    sh->size = map->size;
    sh->map = map;
    sh->coll = NULL;
    sh->coll_free = NULL;
    return sh;
}

void myr_comm_shared_release(myr_comm_shared *sh)
{
    if (atomic_fetch_sub_explicit(&sh->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (sh->coll_free)
        sh->coll_free(sh->coll);
    myr_rankmap_release(sh->map);
    free(sh);
}

MPI_Comm myr_comm_handle_new(myr_comm_shared *sh, int rank)
{
    MPI_Comm c = malloc(sizeof *c);
    if (!c) {
        myr_comm_shared_release(sh);
        return NULL;
    }
    *c = (struct myr_mpi_comm){
        .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_INTRA, .context_id = sh->context_id,
        .size = sh->size, .name = "", .rank = rank, .members = sh->map->world,
        .shared = sh, .local = {.errhandler = MPI_ERRORS_ARE_FATAL, .name = NULL}};
    atomic_init(&c->refs, 1);
    return c;
}

MPI_Comm myr_comm_inter_new(MPI_Comm local, myr_rankmap *remote, unsigned ctx)
{
    MPI_Comm c = malloc(sizeof *c);
    if (!c) {
        myr_comm_release(local);
        myr_rankmap_release(remote);
        return NULL;
    }
    *c = (struct myr_mpi_comm){
        .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_INTER, .context_id = ctx,
        .size = local->size, .name = "", .rank = local->rank, .members = local->members,
        .shared = NULL, .remote_size = remote->size, .remote_members = remote->world,
        .remote = remote, .local_comm = local,
        .local = {.errhandler = MPI_ERRORS_ARE_FATAL, .name = NULL}};
    atomic_init(&c->refs, 1);
    return c;
}

void myr_comm_destroy(MPI_Comm comm)
{
    myr_topo_release(comm->topo);
    if (comm->kind == MYR_COMM_INTER) {
        myr_rankmap_release(comm->remote);
        myr_comm_release(comm->local_comm);
    } else {
        myr_comm_shared_release(comm->shared);
    }
    free(comm->local.name);
    comm->magic = MYR_MAGIC_DEAD;
    free(comm);
}

/* ---- topologies ------------------------------------------------------------ */

myr_topo *myr_topo_new(myr_topo_kind kind, size_t nints)
{
    myr_topo *t = malloc(sizeof *t + nints * sizeof t->data[0]);
    if (t) {
        memset(t, 0, sizeof *t);
        atomic_init(&t->refs, 1);
        t->kind = kind;
    }
    return t;
}

void myr_topo_retain(myr_topo *t)
{
    if (t)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void myr_topo_release(myr_topo *t)
{
    if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        free(t);
}

void myr_comm_topo_inherit(MPI_Comm from, MPI_Comm to)
{
    if (from->kind == MYR_COMM_INTRA && from->topo && to) {
        myr_topo_retain(from->topo);
        to->topo = from->topo;
    }
}

myr_rankmap *myr_comm_rankmap(MPI_Comm comm, myr_rank *self, bool *ok)
{
    *ok = true;
    if (comm->kind == MYR_COMM_WORLD)
        return NULL;
    if (comm->kind == MYR_COMM_INTER)
        comm = comm->local_comm;
    if (comm->kind == MYR_COMM_INTRA) {
        myr_rankmap_retain(comm->shared->map);
        return comm->shared->map;
    }
    myr_rankmap *m = myr_rankmap_new(1);
    if (m)
        m->world[0] = self->world_rank;
    else
        *ok = false;
    return m;
}

int myr_comm_world(MPI_Comm comm, myr_rank *self, int rank)
{
    switch (comm->kind) {
    case MYR_COMM_INTRA:
    case MYR_COMM_INTER: return comm->members[rank];
    case MYR_COMM_SELF: return self->world_rank;
    default: return rank;
    }
}

myr_rank *myr_comm_peer(MPI_Comm comm, myr_rank *self, int rank)
{
    if (comm->kind == MYR_COMM_SELF)
        return rank == 0 ? self : NULL;
    if (rank < 0 || rank >= myr_comm_peer_count(comm))
        return NULL;
    if (comm->kind == MYR_COMM_INTER)
        return myr_job_rank(comm->remote_members[rank]);
    if (comm->kind == MYR_COMM_INTRA)
        return myr_job_rank(comm->members[rank]);
    return myr_job_rank(rank);
}
