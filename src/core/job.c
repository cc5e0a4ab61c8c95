/* job.c — the ranks of this OS process, and the predefined communicators. */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

myr_job myr_the_job;

struct myr_mpi_comm myr_mpi_comm_world = {
    .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_WORLD, .context_id = 0,
    .size = 0, .name = "MPI_COMM_WORLD"};
struct myr_mpi_comm myr_mpi_comm_self = {
    .magic = MYR_MAGIC_COMM, .kind = MYR_COMM_SELF, .context_id = 1,
    .size = 1, .name = "MPI_COMM_SELF"};

int myr_job_create(int nranks)
{
    if (nranks < 1)
        return -1;
    myr_rank *ranks = aligned_alloc(MYR_CACHE_LINE,
                                    (size_t)nranks * sizeof(myr_rank));
    if (!ranks)
        return -1;
    memset(ranks, 0, (size_t)nranks * sizeof(myr_rank));
    for (int i = 0; i < nranks; i++) {
        ranks[i].world_rank = i;
        ranks[i].world_local.errhandler = MPI_ERRORS_ARE_FATAL;
        ranks[i].self_local.errhandler = MPI_ERRORS_ARE_FATAL;
    }
    myr_the_job.size = nranks;
    myr_the_job.ranks = ranks;
    atomic_init(&myr_the_job.finalize_arrived, 0);
    myr_mpi_comm_world.size = nranks;
    return 0;
}

void myr_job_destroy(void)
{
    free(myr_the_job.ranks);
    myr_the_job.ranks = NULL;
    myr_the_job.size = 0;
    myr_mpi_comm_world.size = 0;
}

bool myr_comm_valid(MPI_Comm comm)
{
    return comm && comm->magic == MYR_MAGIC_COMM;
}

int myr_comm_size(MPI_Comm comm)
{
    return comm->kind == MYR_COMM_SELF ? 1 : comm->size;
}

int myr_comm_rank(MPI_Comm comm, const myr_rank *self)
{
    return comm->kind == MYR_COMM_SELF ? 0 : self->world_rank;
}

myr_comm_local *myr_comm_local_of(MPI_Comm comm, myr_rank *self)
{
    return comm->kind == MYR_COMM_SELF ? &self->self_local : &self->world_local;
}

myr_rank *myr_comm_peer(MPI_Comm comm, myr_rank *self, int rank)
{
    if (comm->kind == MYR_COMM_SELF)
        return rank == 0 ? self : NULL;
    if (rank < 0 || rank >= comm->size)
        return NULL;
    return &myr_the_job.ranks[rank];
}
