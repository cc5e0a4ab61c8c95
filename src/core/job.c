/* job.c — the ranks of this OS process. */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

myr_job myr_the_job;

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
    for (int i = 0; i < myr_the_job.size; i++) {
        free(myr_the_job.ranks[i].world_local.name);
        free(myr_the_job.ranks[i].self_local.name);
    }
    free(myr_the_job.ranks);
    myr_the_job.ranks = NULL;
    myr_the_job.size = 0;
    myr_mpi_comm_world.size = 0;
}
