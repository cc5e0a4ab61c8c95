/*
 * launch_fail.c — one process of a job under `mpiexec -nfg` that fails
 * the way its first argument says, while the others wait for it in a
 * fence (or sleep): the job must end within the bound, with the right line
 * and status, and leave no process behind (tests/tools/launcher.cmake).
 * Not an MPI program: it finds its place with myr_net_place_init itself.
 *
 *   ok           every process finds its place, fences and leaves: status 0
 *   kill         process 1 SIGKILLs itself
 *   segv         process 1 dereferences NULL
 *   abort        process 2 calls myr_net_abort(7, ...) (what MPI_Abort does)
 *   exit3        process 1 exits with 3 in the middle of the job
 *   early        process 1 exits (0) before connecting (before MPI_Init)
 *   never        process 1 never connects (sleeps instead)
 *   late_exit3   process 1 leaves the job (PMIx_Finalize), then exits 3
 *   sleep        every process says it is ready and sleeps
 *   show         every process prints what it was given (workers, CPUs, a
 *                variable, its directory), then leaves as in ok
 *
 * Every process prints "process P ready" once it has its place. Other
 * arguments are ignored (the tests add one that names their processes).
 */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/net.h"

static void wait_forever(void)
{
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "ok";
    const char *rank_env = getenv("PMIX_RANK");
    int proc = rank_env ? atoi(rank_env) : 0;
    if (proc == 1 && strcmp(what, "early") == 0)
        return 0;
    if (proc == 1 && strcmp(what, "never") == 0)
        wait_forever();
    const char *nranks = getenv("MYR_NRANKS");
    if (myr_net_place_init(nranks ? atol(nranks) : 1) != 0)
        return 1;
    proc = myr_net_the_place.proc;
    printf("process %d ready\n", proc);
    fflush(stdout);
    if (strcmp(what, "show") == 0) {
        cpu_set_t cpus;
        int ncpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : -1;
        const char *workers = getenv("MYR_WORKERS"), *var = getenv("LAUNCH_TEST_VAR");
        char cwd[4096];
        printf("process %d: workers %s, cpus %d, LAUNCH_TEST_VAR %s, directory %s\n", proc,
               workers ? workers : "unset", ncpus, var ? var : "unset",
               getcwd(cwd, sizeof cwd) ? cwd : "?");
        what = "ok";
    }
    if (strcmp(what, "ok") == 0 || strcmp(what, "late_exit3") == 0) {
        if (myr_net_fence() != 0)
            return 1;
        myr_net_place_fini();
        return proc == 1 && strcmp(what, "late_exit3") == 0 ? 3 : 0;
    }
    if (proc == 1 && strcmp(what, "kill") == 0)
        raise(SIGKILL);
    if (proc == 1 && strcmp(what, "segv") == 0)
        *(volatile int *)(uintptr_t)argc = 0;  /* argc is small: unmapped */
    if (proc == 2 && strcmp(what, "abort") == 0) {
        myr_net_abort(7, "launch_fail: process 2 gives up");
        return 7;
    }
    if (proc == 1 && strcmp(what, "exit3") == 0)
        exit(3);
    if (strcmp(what, "sleep") != 0)
        myr_net_fence();  /* the failing process never comes */
    wait_forever();
}
