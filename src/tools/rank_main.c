/*
 * rank_main.c — the real main() of every MPI program built with mpicc.
 *
 * The program's main is wrapped (see __real_main below). This starts the
 * ULT runtime, creates the job's ranks (MYR_NRANKS, set by mpiexec; 1 when
 * the program is run on its own: a singleton), and runs the program's main
 * once per rank, each with its own copy of argv.
 *
 * Exit status: 0 when every rank's main returned 0; otherwise the value
 * returned by the lowest-numbered rank whose main returned non-zero (MPICH's
 * mpiexec reports the largest code instead; the lowest rank is as
 * deterministic and points at one culprit). A value whose low 8 bits are 0
 * (256, say) would read as success to the shell, so it becomes 1. A rank
 * that calls exit(n) ends the whole process with n at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "core/core.h"
#include "mpi/mpi_impl.h"
#include "tools/launch.h"
#include "tools/tag_output.h"

/* The program's own main. MPI programs are linked with -Wl,--wrap=main
 * (mpicc and myriad_main's link options add it): the C runtime's call of
 * main lands in __wrap_main below, and __real_main is the program's main,
 * which keeps its name and so its C and C++ semantics (an implicit
 * `return 0`, any of the standard prototypes). C calling conventions let us
 * pass argc, argv and envp whatever it declares. */
extern int __real_main(int argc, char **argv, char **envp);

extern char **environ;

typedef struct rank_start {
    myr_rank *rank;
    int argc;
    char **argv;       /* the process's */
    char **rank_argv;  /* the rank's own copy */
} rank_start;

/* File scope, not main's frame: a rank that calls exit() ends the process
 * while main waits, and leak checkers must still see these as reachable. */
static rank_start *starts;
static myr_ult_t **ults;

static int call_program_main(int argc, char **argv)
{
    return __real_main(argc, argv, environ);
}

static void *run_rank(void *arg)
{
    rank_start *start = arg;
    myr_rank *r = start->rank;
    r->ult = myr_ult_self();  /* before the program can ask (Is_thread_main) */
    myr_ult_set_inherited(r);
    char name[32];
    snprintf(name, sizeof name, "MPI rank %d", r->world_rank);
    myr_ult_set_name(myr_ult_self(), name);
    /* Each rank gets its own argv array, which a program may permute (as
     * getopt does) without disturbing the others; the strings are shared. */
    char **argv = malloc(((size_t)start->argc + 1) * sizeof *argv);
    if (!argv) {
        fprintf(stderr, "myriad: out of memory starting rank %d\n", r->world_rank);
        r->exit_code = 1;
        return NULL;
    }
    memcpy(argv, start->argv, ((size_t)start->argc + 1) * sizeof *argv);
    start->rank_argv = argv;
    r->exit_code = call_program_main(start->argc, argv);
    r->returned = true;
    if (r->init_state == 1)  /* the others would wait in MPI_Finalize forever */
        myr_mpi_die(r->exit_code ? r->exit_code : 1,
                    "rank %d: main returned (with %d) without calling MPI_Finalize",
                    r->world_rank, r->exit_code);
    start->rank_argv = NULL;
    free(argv);
    myr_tag_output_rank_done(r->world_rank);
    return NULL;
}

/* The job's exit status from the ranks' return values (see the top). */
static int job_status(const myr_job *job)
{
    for (int i = 0; i < job->size; i++) {
        int code = job->ranks[i].exit_code;
        if (code != 0)
            return (code & 0xff) ? code & 0xff : 1;
    }
    return 0;
}

int __wrap_main(int argc, char **argv)
{
    long nranks = 1;
    const char *v = myr_env_get(MYR_ENV_NRANKS);
    if (v && (myr_env_parse_long(v, &nranks) != 0 || nranks < 1 ||
              nranks > MYR_MAX_RANKS)) {
        fprintf(stderr, "myriad: MYR_NRANKS=%s is not a number of ranks "
                "(1 to %ld)\n", v, MYR_MAX_RANKS);
        return 1;
    }
    int rc = myr_init();
    if (rc != MYR_OK) {
        fprintf(stderr, "myriad: cannot start the runtime: %s\n", myr_strerror(rc));
        return 1;
    }
    starts = calloc((size_t)nranks, sizeof *starts);
    ults = calloc((size_t)nranks, sizeof *ults);
    if (myr_job_create((int)nranks) != 0 || !starts || !ults) {
        fprintf(stderr, "myriad: out of memory for %ld ranks\n", nranks);
        return 1;
    }
    if (myr_tag_output_start((int)nranks) != 0)
        return 1;
    int workers = myr_worker_count();
    for (long i = 0; i < nranks; i++) {
        starts[i] = (rank_start){&myr_the_job.ranks[i], argc, argv, NULL};
        /* Spread ranks over the workers in blocks (neighbours together). */
        int w = (int)(i * workers / nranks);
        rc = myr_ult_spawn_on(w, &ults[i], run_rank, &starts[i]);
        if (rc != MYR_OK) {
            fprintf(stderr, "myriad: cannot start rank %ld: %s\n", i, myr_strerror(rc));
            exit(1);
        }
        myr_the_job.ranks[i].ult = ults[i];
    }
    for (long i = 0; i < nranks; i++)
        myr_ult_join(ults[i], NULL);
    int status = job_status(&myr_the_job);
    myr_finalize();
    myr_tag_output_finish();
    free(starts);
    free(ults);
    myr_job_destroy();
    return status;
}
