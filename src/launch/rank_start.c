/*
 * rank_start.c — start the job: the runtime, the ranks, and each rank's run
 * of the program's main (see launch.h for how the program gets here).
 *
 * run_job starts the ULT runtime, creates the job's ranks
 * (MYR_NRANKS, set by mpiexec; 1 when the program is run on its own: a
 * singleton), gives each rank its image of the program (privatize.h: its
 * own copy of the globals, or the shared program), and runs the program's
 * main once per rank, each with its own copy of argv: the array and the
 * strings, which programs tokenize in place (strtok(optarg, ":")) as a
 * process may its own.
 *
 * A rank ends when its main returns or it calls exit() (exit.c): both end
 * that rank only. In the private mode its atexit handlers and C++ static
 * destructors run then, once, as a process's would.
 *
 * Exit status: 0 when every rank ended with 0; otherwise the status of the
 * lowest-numbered rank that did not (MPICH's mpiexec reports the largest
 * code instead; the lowest rank is as deterministic and points at one
 * culprit). A value whose low 8 bits are 0 (256, say) would read as success
 * to the shell, so it becomes 1.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "core/core.h"
#include "core/remote.h"
#include "launch/exit.h"
#include "launch/launch.h"
#include "launch/mpmd.h"
#include "launch/privatize.h"
#include "launch/rank_stack.h"
#include "launch/tag_output.h"
#include "launch/watchdog.h"
#include "mpi/mpi_impl.h"
#include "net/net.h"

extern char **environ;

/* glibc: run (and forget) the atexit handlers and static destructors
 * registered by the object whose __dso_handle is `dso`. */
extern void __cxa_finalize(void *dso);

typedef struct rank_start {
    myr_rank *rank;
    int argc;
    char **argv;       /* the process's (or its program's, MPMD) */
    char **rank_argv;  /* the rank's own copy, strings included */
} rank_start;

/* File scope: exit() (exit.c) finds a rank's record from wherever it is
 * called, and leak checkers must see these as reachable if the process
 * ends while ranks still run. */
static rank_start *starts;
static myr_ult_t **ults;
static myr_privatization privatization;
static bool verbose;

/* The rank is done (its main returned `code`, or it called exit(code)):
 * runs on the rank's ULT. */
static void end_rank(rank_start *start, int code, bool by_exit)
{
    myr_rank *r = start->rank;
    r->exit_code = code;
    r->returned = true;
    if (r->init_state == 1)  /* the others would wait in MPI_Finalize forever */
        myr_mpi_die(code ? code : 1,
                    "rank %d: %s (with %d) without calling MPI_Finalize",
                    r->world_rank, by_exit ? "called exit" : "main returned",
                    code);
    myr_mpi_rank_ended_uninitialized(r);
    /* Its private image's atexit handlers and static destructors: what a
     * process would run at its exit. Shared globals may still be in use by
     * other ranks, so a shared image's run at the process's exit. */
    myr_rank_image *ri = &privatization.ranks[r - myr_the_job.ranks];
    if (privatization.private_globals && ri->dso_handle)
        __cxa_finalize(ri->dso_handle);
    /* Its argv stays: as a process's, it lives until the process ends
     * (a shared image's atexit handlers and every copy's destructors run
     * then, and may read what they kept of it). */
    myr_tag_output_rank_done(r->world_rank);
}

/* One allocation holding the array and the strings, as the kernel lays
 * out a process's: a rank may permute its argv (getopt does) and write
 * into its strings without touching another rank's. */
static char **copy_argv(int argc, char **argv)
{
    size_t bytes = ((size_t)argc + 1) * sizeof *argv;
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    char **copy = malloc(bytes);
    if (!copy)
        return NULL;
    char *strings = (char *)(copy + argc + 1);
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;
        copy[i] = memcpy(strings, argv[i], len);
        strings += len;
    }
    copy[argc] = NULL;
    return copy;
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
    char **argv = copy_argv(start->argc, start->argv);
    if (!argv) {
        fprintf(stderr, "myriad: out of memory starting rank %d\n", r->world_rank);
        r->exit_code = 1;
        return NULL;
    }
    start->rank_argv = argv;
    myr_rank_image *ri = &privatization.ranks[r - myr_the_job.ranks];
    if (!privatization.private_globals) {
        /* A shared image reads libc's getopt variables: as in a new
         * process, they start afresh (ranks that parse at the same time on
         * different workers still race: getopt.c). */
        *ri->vars.optind = 1;
        *ri->vars.opterr = 1;
        *ri->vars.optopt = '?';
        *ri->vars.optarg = NULL;
    }
    int code = ri->main(start->argc, argv, environ);
    end_rank(start, code, false);
    return NULL;
}

void myr_launch_end_rank(myr_rank *rank, int status, bool by_exit)
{
    end_rank(&starts[rank - myr_the_job.ranks], status, by_exit);
}

myr_rank *myr_launch_rank_self(void)
{
    myr_ult_t *self = myr_ult_self();
    myr_rank *r = self ? myr_ult_inherited() : NULL;
    /* Other ULTs may carry other inherited values; only a rank's own ULT
     * (not ones it spawned) is the rank. */
    if (!r || !starts || !myr_the_job.ranks || r < myr_the_job.ranks ||
        r >= myr_the_job.ranks + myr_the_job.local || r->ult != self)
        return NULL;
    return r;
}

/* The job's exit status from the ranks' (see the top). */
static int job_status(const myr_job *job)
{
    for (int i = 0; i < job->local; i++) {
        int code = job->ranks[i].exit_code;
        if (code != 0)
            return (code & 0xff) ? code & 0xff : 1;
    }
    return 0;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* The ranks this process runs: MYR_NRANKS (mpiexec sets it, per process
 * when there are several), else MYR_RANKS_PER_PROCESS for a process that
 * another PMIx launcher started, else 1. */
static int read_settings(long *nranks)
{
    *nranks = 1;
    myr_env_id id = MYR_ENV_NRANKS;
    const char *v = myr_env_get(id);
    if (!v && getenv("PMIX_RANK")) {
        id = MYR_ENV_RANKS_PER_PROCESS;
        v = myr_env_get(id);
    }
    if (v && (myr_env_parse_long(v, nranks) != 0 || *nranks < 1 ||
              *nranks > MYR_MAX_RANKS)) {
        fprintf(stderr, "myriad: %s=%s is not a number of ranks "
                "(1 to %ld)\n", myr_env_table[id].name, v, MYR_MAX_RANKS);
        return -1;
    }
    v = myr_env_get(MYR_ENV_VERBOSE);
    verbose = v && strcmp(v, "0") != 0;
    return 0;
}

/* Several processes of the job on this node share its CPUs: unless the
 * launcher gave each its own (an affinity mask of its share) or
 * MYR_WORKERS says how many, each takes its share of workers, and pins
 * them from its own offset, as mpirun --bind-to core would. */
static void share_node(myr_config_t *config, const myr_net_place *place)
{
    if (place->node_procs <= 1)
        return;
    cpu_set_t mask;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long allowed = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : cpus;
    long workers = allowed / place->node_procs;
    if (workers < 1)
        workers = 1;
    const char *w = myr_env_get(MYR_ENV_WORKERS);
    long want = w ? atol(w) : workers;
    /* More workers on the node than CPUs: a spinning thread would keep a
     * core that a descheduled peer needs (MYR_SPIN_YIELD=auto). */
    const char *y = myr_env_get(MYR_ENV_SPIN_YIELD);
    if ((!y || strcmp(y, "auto") == 0) && place->node_procs * (want > 0 ? want : 1) > cpus)
        config->spin_yield = 1;
    if (allowed < cpus)
        return;   /* the launcher bound us: the mask is our share */
    if (!w)
        config->workers = (int)workers;
    config->first_cpu = (int)((place->node_index * workers) % allowed);
    /* More processes than CPUs: unpinned (mpiexec's reason, launcher.c). */
    const char *b = myr_env_get(MYR_ENV_BIND);
    if (place->node_procs > allowed && (!b || strcmp(b, "auto") == 0))
        config->bind = -1;
}

/* MYR_BIND=auto: pin the workers only when each has ranks to run. With
 * fewer ranks than workers, pinning would decide which CPUs the ranks run
 * on (the first workers', so the first CPUs), the same for every such job
 * on the node; the kernel then cannot move a job of one rank off the CPU
 * another job of one rank holds. */
static void bind_when_every_worker_has_ranks(myr_config_t *config, long nranks)
{
    const char *b = myr_env_get(MYR_ENV_BIND);
    if ((b && strcmp(b, "auto") != 0) || config->bind < 0)
        return;   /* said, or share_node's */
    long workers = config->workers;
    const char *w = myr_env_get(MYR_ENV_WORKERS);
    if (workers <= 0 && w)
        workers = atol(w);
    if (workers <= 0) {
        cpu_set_t mask;
        workers = sched_getaffinity(0, sizeof mask, &mask) == 0
                      ? CPU_COUNT(&mask) : sysconf(_SC_NPROCESSORS_ONLN);
    }
    config->bind = nranks >= workers ? 1 : -1;
}

static int run_job(int argc, char **argv, const myr_program *program)
{
    long nranks;
    if (read_settings(&nranks) != 0)
        return 1;
    /* Where this process's ranks sit in the job (one process, unless a
     * PMIx launcher started several: net/net.h). From here on `nranks`
     * counts this process's ranks. */
    if (myr_net_place_init(nranks) != 0)
        return 1;
    const myr_net_place *place = &myr_net_the_place;
    myr_mpi_clock_share(place);
    if (place->job_size > MYR_MAX_RANKS) {
        fprintf(stderr, "myriad: a job of %ld ranks is more than Myriad's %ld\n",
                place->job_size, MYR_MAX_RANKS);
        return 1;
    }
    if (place->nprocs > 1 && myr_env_get(MYR_ENV_MPMD)) {
        fprintf(stderr, "myriad: an MPMD job runs in one OS process for now\n");
        return 1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* MPMD (mpmd.h): the program runs only its own ranks, the first `own`;
     * the job's other programs are loaded for the others. */
    long own;
    if (myr_mpmd_plan(nranks, &own) != 0)
        return 1;
    if (myr_privatize_plan(&privatization, program, (int)own, (int)nranks, argc, argv) != 0)
        return 1;
    /* Copies are loaded one after the other (glibc serialises dlopen), by
     * this thread before the workers exist: their constructors then run as
     * the program's own did, before any rank, and the mappings they make
     * need no TLB shootdowns to other cores (a third of the time with the
     * workers up). */
    for (long i = 0; i < own; i++)
        if (myr_privatize_load(&privatization, (int)i) != 0)
            return 1;
    if (myr_mpmd_load(&privatization, nranks) != 0)
        return 1;
    double load_seconds = seconds_since(&t0);
    /* The copies' mappings come out of what the stacks' guard pages may
     * use (arch/stack.h), so the two never ask for the same ones. */
    myr_config_t config = {.reserved_mappings = myr_privatize_mappings(&privatization) +
                                                myr_mpmd_mappings(),
                           .default_stack_size = myr_rank_stack_default(nranks)};
    share_node(&config, place);
    bind_when_every_worker_has_ranks(&config, nranks);
    int rc = myr_init_config(&config);
    if (rc != MYR_OK) {
        fprintf(stderr, "myriad: cannot start the runtime: %s\n", myr_strerror(rc));
        return 1;
    }
    if (verbose && place->nprocs > 1)
        fprintf(stderr, "myriad: process %d of %d (started by %s): ranks %ld-%ld of %ld\n",
                place->proc, place->nprocs, place->launcher, place->first,
                place->first + place->local - 1, place->job_size);
    if (verbose) {
        fprintf(stderr, "myriad: %ld rank%s on %d worker%s, globals %s (%s)\n",
                nranks, nranks == 1 ? "" : "s", myr_worker_count(),
                myr_worker_count() == 1 ? "" : "s",
                privatization.private_globals ? "private to each rank"
                                              : "shared by all ranks",
                privatization.reason);
    }
    /* Without -v: state a process of its own would not share (item by
     * item in privatize.c); one rank shares nothing. */
    if (nranks > 1)
        myr_privatize_warn(&privatization);
    if (verbose && privatization.private_globals)
        fprintf(stderr, "myriad: %ld private cop%s of the program loaded in "
                "%.3f s\n", own - 1, own == 2 ? "y" : "ies", load_seconds);

    starts = calloc((size_t)nranks, sizeof *starts);
    ults = calloc((size_t)nranks, sizeof *ults);
    if (myr_job_create((int)place->job_size, (int)place->first, (int)nranks) != 0 ||
        !starts || !ults) {
        fprintf(stderr, "myriad: out of memory for %ld ranks\n", nranks);
        return 1;
    }
    /* Messages from the other processes reach the ranks from here on. */
    if (place->nprocs > 1 && myr_remote_start() != 0)
        myr_exit_process(1);
    myr_the_job.argc = argc;   /* what MPI_INFO_ENV reports */
    myr_the_job.argv = argv;
    if (myr_tag_output_start((int)place->first, (int)nranks) != 0)
        return 1;
    if (myr_watchdog_start() != 0)
        return 1;
    int workers = myr_worker_count();
    for (long i = 0; i < nranks; i++) {
        int rank_argc = argc;
        char **rank_argv = argv;
        myr_mpmd_args(i, &rank_argc, &rank_argv);  /* another program's (MPMD) */
        starts[i] = (rank_start){&myr_the_job.ranks[i], rank_argc, rank_argv, NULL};
        int w = myr_job_worker_of(i, nranks, workers);
        rc = myr_ult_spawn_on(w, &ults[i], run_rank, &starts[i]);
        if (rc != MYR_OK) {
            fprintf(stderr, "myriad: cannot start rank %ld: %s\n", i, myr_strerror(rc));
            myr_exit_process(1);
        }
        myr_the_job.ranks[i].ult = ults[i];
    }
    for (long i = 0; i < nranks; i++)
        myr_ult_join(ults[i], NULL);
    if (place->nprocs > 1) {
        /* A rank of another process may wait for one of ours forever: the
         * deadlock check across processes goes on until every process's
         * ranks have ended (this fence), this process quiescent meanwhile.
         * Every process calls it, whatever its MYR_DEADLOCK: fences pair
         * up by their order. */
        myr_watchdog_ranks_ended();
        (void)myr_net_fence();
    }
    myr_watchdog_stop();
    if (place->nprocs > 1)
        myr_remote_stop();
    myr_net_place_fini();
    int status = job_status(&myr_the_job);
    myr_finalize();
    myr_tag_output_finish();
    free(ults);   /* starts stays: it holds the ranks' argv (end_rank) */
    myr_job_destroy();
    return status;
}

/* What the stub gave, for the process's main below. */
static myr_program the_program;

/* glibc's main for the process: the launcher. */
static int launcher_main(int argc, char **argv, char **envp)
{
    (void)envp;
    return run_job(argc, argv, &the_program);
}

int myr_launch_main(const myr_program *program, const myr_libc_start *start,
                    int argc, char **argv)
{
    the_program = *program;
    return start->start_main(launcher_main, argc, argv, start->init, start->fini,
                             start->rtld_fini, start->stack_end);
}
