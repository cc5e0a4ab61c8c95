/* job.c — the ranks of this OS process. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"

myr_job myr_the_job;
int myr_job_pack_max = 2;
bool myr_wait_yields;

/* MYR_WAIT_POLICY (base/env.c). */
static bool wait_yields_from_env(void)
{
    const char *v = myr_env_get(MYR_ENV_WAIT_POLICY);
    if (!v || strcmp(v, "suspend") == 0)
        return false;
    if (strcmp(v, "yield") == 0)
        return true;
    fprintf(stderr, "myriad: MYR_WAIT_POLICY=%s is not `suspend` or `yield`; using suspend\n", v);
    return false;
}

/* MYR_PLACE (base/env.c). */
static int pack_max_from_env(void)
{
    const char *v = myr_env_get(MYR_ENV_PLACE);
    if (!v || strcmp(v, "auto") == 0)
        return 2;
    if (strcmp(v, "spread") == 0)
        return 0;
    fprintf(stderr, "myriad: MYR_PLACE=%s is not `auto` or `spread`; using auto\n", v);
    return 2;
}

int myr_job_create(int size, int first, int nranks)
{
    if (nranks < 1 || first < 0 || first + nranks > size)
        return -1;
    myr_rank *ranks = aligned_alloc(MYR_CACHE_LINE,
                                    (size_t)nranks * sizeof(myr_rank));
    if (!ranks)
        return -1;
    memset(ranks, 0, (size_t)nranks * sizeof(myr_rank));
    for (int i = 0; i < nranks; i++) {
        ranks[i].world_rank = first + i;
        ranks[i].world_local.errhandler = MPI_ERRORS_ARE_FATAL;
        ranks[i].self_local.errhandler = MPI_ERRORS_ARE_FATAL;
    }
    myr_job_pack_max = pack_max_from_env();
    myr_wait_yields = wait_yields_from_env();
    myr_the_job.size = size;
    myr_the_job.first = first;
    myr_the_job.local = nranks;
    myr_the_job.multiprocess = nranks != size;
    myr_the_job.ranks = ranks;
    atomic_init(&myr_the_job.finalize_arrived, 0);
    myr_mpi_comm_world.size = size;
    return 0;
}

void myr_job_destroy(void)
{
    for (int i = 0; i < myr_the_job.local; i++) {
        free(myr_the_job.ranks[i].world_local.name);
        free(myr_the_job.ranks[i].self_local.name);
        myr_p2p_queues_fini(&myr_the_job.ranks[i].match);
    }
    free(myr_the_job.ranks);
    myr_the_job.ranks = NULL;
    myr_the_job.size = myr_the_job.local = myr_the_job.first = 0;
    myr_the_job.multiprocess = false;
    myr_mpi_comm_world.size = 0;
}
