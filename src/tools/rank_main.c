/*
 * rank_main.c — the real main() of every MPI program built with mpicc.
 *
 * mpi.h renamed the program's main to myr_rank_main. This main starts the
 * ULT runtime, creates the job's ranks (MYR_NRANKS, set by mpiexec; 1 when
 * the program is run on its own: a singleton), runs the program's main once
 * per rank, each with its own copy of argc/argv, and exits with a non-zero
 * status if any rank's main returned non-zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "core/core.h"

/* The program's main: C (any prototype), or a C++ `int main()`. */
extern int myr_rank_main() __attribute__((weak));
extern int _Z13myr_rank_mainv(void) __attribute__((weak));

typedef struct rank_start {
    myr_rank *rank;
    int argc;
    char **argv;
} rank_start;

static void *run_rank(void *arg)
{
    rank_start *start = arg;
    myr_rank *r = start->rank;
    myr_ult_set_inherited(r);
    char name[32];
    snprintf(name, sizeof name, "MPI rank %d", r->world_rank);
    myr_ult_set_name(myr_ult_self(), name);
    /* Each rank gets its own argv array (the strings are shared, read-only
     * by convention as in every MPI). */
    char **argv = malloc(((size_t)start->argc + 1) * sizeof *argv);
    if (!argv) {
        fprintf(stderr, "myriad: out of memory starting rank %d\n", r->world_rank);
        r->exit_code = 1;
        return NULL;
    }
    memcpy(argv, start->argv, ((size_t)start->argc + 1) * sizeof *argv);
    int code = myr_rank_main ? myr_rank_main(start->argc, argv)
                             : _Z13myr_rank_mainv();
    r->exit_code = code;
    r->returned = true;
    free(argv);
    return NULL;
}

int main(int argc, char **argv)
{
    if (!myr_rank_main && !_Z13myr_rank_mainv) {
        fprintf(stderr, "myriad: this program has no main (was mpi.h included?)\n");
        return 1;
    }
    long nranks = 1;
    const char *v = myr_env_get(MYR_ENV_NRANKS);
    if (v && (myr_env_parse_long(v, &nranks) != 0 || nranks < 1 || nranks > 100000000)) {
        fprintf(stderr, "myriad: MYR_NRANKS=%s is not a number of ranks\n", v);
        return 1;
    }
    int rc = myr_init();
    if (rc != MYR_OK) {
        fprintf(stderr, "myriad: cannot start the runtime: %s\n", myr_strerror(rc));
        return 1;
    }
    if (myr_job_create((int)nranks) != 0) {
        fprintf(stderr, "myriad: out of memory for %ld ranks\n", nranks);
        return 1;
    }
    rank_start *starts = calloc((size_t)nranks, sizeof *starts);
    myr_ult_t **ults = calloc((size_t)nranks, sizeof *ults);
    if (!starts || !ults) {
        fprintf(stderr, "myriad: out of memory for %ld ranks\n", nranks);
        return 1;
    }
    int workers = myr_worker_count();
    for (long i = 0; i < nranks; i++) {
        starts[i] = (rank_start){&myr_the_job.ranks[i], argc, argv};
        /* Spread ranks over the workers in blocks (neighbours together). */
        int w = (int)(i * workers / nranks);
        rc = myr_ult_spawn_on(w, &ults[i], run_rank, &starts[i]);
        if (rc != MYR_OK) {
            fprintf(stderr, "myriad: cannot start rank %ld: %s\n", i, myr_strerror(rc));
            return 1;
        }
        myr_the_job.ranks[i].ult = ults[i];
    }
    int status = 0;
    for (long i = 0; i < nranks; i++) {
        myr_ult_join(ults[i], NULL);
        if (myr_the_job.ranks[i].exit_code != 0 && status == 0)
            status = myr_the_job.ranks[i].exit_code;
    }
    myr_finalize();
    free(starts);
    free(ults);
    myr_job_destroy();
    fflush(stdout);
    return status;
}
