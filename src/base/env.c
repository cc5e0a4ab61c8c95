/* env.c — the table of environment variables and their parsers. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

const myr_env_var myr_env_table[MYR_ENV_COUNT_] = {
    [MYR_ENV_WORKERS] = {
        "MYR_WORKERS", "CPUs in the affinity mask",
        "Number of worker kernel threads that run ULTs (MPI ranks). "
        "Workers are pinned one per core while there are cores to spare "
        "(MYR_BIND)."},
    [MYR_ENV_STACK_SIZE] = {
        "MYR_STACK_SIZE", "ulimit -s",
        "Usable stack of each ULT (MPI rank), e.g. `256k`, `8M`. By default, "
        "in an MPI job, what a thread gets (`ulimit -s`, 8 MiB on most "
        "systems; 1 MiB to 1 GiB, and at most 32 GiB / ranks in a process: 8 "
        "MiB up to 4096 ranks, 2 MiB at 16384, 1 MiB from 32768); 1 MiB "
        "for programs of the ULT API alone. An overflow is reported "
        "with the ULT's name (see `MYR_STACK_GUARD`). Memory is reserved, not "
        "committed: only touched pages cost RAM."},
    [MYR_ENV_STACK_GUARD] = {
        "MYR_STACK_GUARD", "auto",
        "How stack overflows are caught. `auto`: a guard page below each "
        "stack while guarded stacks use at most half of "
        "`vm.max_map_count` (two mappings each), then stacks carved from "
        "large mappings with a canary, checked when the ULT switches out or "
        "ends (no mapping of their own, so 10^6 live ULTs fit). `always`: "
        "guard pages only; beyond ~`vm.max_map_count`/2 live ULTs Myriad "
        "stops with an out-of-stacks error. `never`: canaries only."},
    [MYR_ENV_BIND] = {
        "MYR_BIND", "auto",
        "`core`: pin each worker to its own core (hwloc, or "
        "sched_setaffinity); `none`: let the kernel place workers; `auto`: "
        "`core`, except in an MPI process that runs fewer ranks than "
        "workers, where it is `none` (pinned, the ranks of such a job would "
        "all sit on the first cores, the same ones for every such job on "
        "the node: two jobs of one rank each ran on CPU 0 at half speed "
        "while CPU 1 idled), and in a job with more OS processes on the node "
        "than CPUs, whose processes `mpiexec` does not pin either (pinned, "
        "they cannot leave a CPU that another program wants: "
        "docs/mpiexec.md)."},
    [MYR_ENV_SPIN_US] = {
        "MYR_SPIN_US", "50",
        "Microseconds an idle worker keeps looking for work before it sleeps "
        "on a futex; also how long a rank whose worker has nothing else to "
        "run spins on what it waits for (a request, or its completions in "
        "MPI_Waitall and the like) before it suspends: a completion from "
        "another worker is then seen at once. In a job of several OS "
        "processes the spin goes on, giving the CPU away at each turn, "
        "while a rendezvous transfer issued by its process may still be "
        "moving data (its size at 1 GB/s, at most 50 ms). 0 sleeps and "
        "suspends at once (lowest CPU use, slower wake-up). Every 10 us of "
        "a spin the thread gives its CPU away once (sched_yield), for "
        "another thread that may have to run there to answer "
        "(docs/network.md)."},
    [MYR_ENV_SPIN_YIELD] = {
        "MYR_SPIN_YIELD", "auto",
        "`1`: an idle worker (and a rank spinning on what it waits for) "
        "gives its core away at every turn of its spin (sched_yield), as "
        "Open MPI's mpi_yield_when_idle does; `0`: it keeps the core for "
        "the spin (lowest latency when every thread has a core); `auto`: "
        "`1` when the OS processes of a job on this node run more workers "
        "than the node has CPUs (`mpiexec -nfg` with more processes than "
        "cores: 4 processes of one rank on 2 cores took 0.6 ms a barrier "
        "while the spinning threads used up their time slices, 14-28 us "
        "yielding), else `0`."},
    [MYR_ENV_STEAL_DELAY_US] = {
        "MYR_STEAL_DELAY_US", "100",
        "Microseconds a worker that ran out of work waits for its own queues "
        "to refill before it steals from another worker. Ranks that wait for "
        "each other (collectives, exchanges) are usually woken within that "
        "time on their own worker; stealing them sooner moves them, and the "
        "cache lines they use, to another core. 0 steals at once. Also how "
        "long a worker may hold its one ready ULT without running it (it runs "
        "another ULT all along, or its thread is preempted) before another "
        "worker takes it; a rank taken so may stay there (docs/ult.md)."},
    [MYR_ENV_PLACE] = {
        "MYR_PLACE", "auto",
        "Where ranks start. `auto`: a job of two ranks starts with both on "
        "one worker (a message between them is then a switch, not a wake-up "
        "of another core; if they compute, the scheduler spreads them within "
        "`MYR_STEAL_DELAY_US`), larger jobs in blocks of consecutive ranks, "
        "one block per worker. `spread`: blocks for every job."},
    [MYR_ENV_NRANKS] = {
        "MYR_NRANKS", "1",
        "Number of MPI ranks the program starts (set by `mpiexec -n`; a "
        "program run on its own is a singleton)."},
    [MYR_ENV_TAG_OUTPUT] = {
        "MYR_TAG_OUTPUT", "0",
        "`1`: prefix every line a rank writes to stdout or stderr with "
        "`[rank] ` (set by `mpiexec -l`). Lines are never mixed; C stdio only "
        "(not `write(2)` nor C++ streams)."},
    [MYR_ENV_MPIEXEC_TIMEOUT] = {
        "MPIEXEC_TIMEOUT", "0 (no limit)",
        "Seconds after which the job ends (exit status 124) with a report of "
        "what every rank is doing (`mpiexec -timeout` sets it; a program run "
        "on its own honours it too)."},
    [MYR_ENV_DEADLOCK] = {
        "MYR_DEADLOCK", "1",
        "`1`: when every rank waits inside MPI and none can go on (all "
        "workers idle, no thread of the program running; with several OS "
        "processes, in every process, and no message on its way between "
        "them), print what each rank waits for and end the job with exit "
        "status 85. A rank that computes, sleeps or blocks in a system call "
        "is running, so it is never taken for a deadlock. `0`: no check (in "
        "any process of a job: for the whole job)."},
    [MYR_ENV_PRIVATIZE] = {
        "MYR_PRIVATIZE", "auto",
        "Whether each rank gets its own copy of the program's global and "
        "static variables (`mpiexec -privatize`). `always`: every rank but "
        "rank 0 runs a private copy of the program (code pages shared); "
        "`never`: all ranks share one set of globals; `auto`: private when "
        "the program defines writable globals of its own, else shared. "
        "`mpiexec -v` says which was chosen and why."},
    [MYR_ENV_VERBOSE] = {
        "MYR_VERBOSE", "0",
        "`1`: the program says at start-up how the job was set up (ranks, "
        "workers, private or shared globals and why, time to load private "
        "copies) on stderr (set by `mpiexec -v`)."},
    [MYR_ENV_MPMD] = {
        "MYR_MPMD", "unset",
        "The other programs of an MPMD job (`mpiexec -n 2 ./a : -n 3 ./b`), "
        "which the first one's runtime loads into its process: set by "
        "`mpiexec`, in a format of its own (src/launch/mpmd.h)."},
    [MYR_ENV_RANKS_PER_PROCESS] = {
        "MYR_RANKS_PER_PROCESS", "1",
        "Ranks each OS process runs when another PMIx launcher starts the "
        "processes (`mpirun -n 4` with 8 gives 32 ranks; `srun --mpi=pmix`). "
        "`mpiexec -nfg` sets MYR_NRANKS per process instead, which wins."},
    [MYR_ENV_NET_EAGER_BYTES] = {
        "MYR_NET_EAGER_BYTES", "16k",
        "Messages to ranks of other OS processes up to this size travel with "
        "their envelope (eager); larger ones are fetched by the receiver into "
        "its buffer (rendezvous, zero-copy where UCX can)."},
    [MYR_ENV_NET_SPIN_US] = {
        "MYR_NET_SPIN_US", "50 with a spare CPU, else 0",
        "Microseconds the communication thread keeps polling the network "
        "after its last event before it sleeps until the next one. By default "
        "it polls only when the node has a CPU that no worker of the job's "
        "processes there uses: polling on a worker's CPU delays that worker "
        "by a time slice (milliseconds on a loaded machine)."},
    [MYR_ENV_NET_LIBRARY] = {
        "MYR_NET_LIBRARY", "next to libmyriad",
        "Path of the network engine (libmyriad-net.so), loaded only by jobs "
        "of several OS processes."},
    [MYR_ENV_WIREUP_TIMEOUT] = {
        "MYR_WIREUP_TIMEOUT", "60",
        "Seconds `mpiexec -nfg` waits for every process of a job of several "
        "OS processes to connect to its PMIx server (in MPI_Init) before it "
        "ends the job and names the ones missing; 0: no limit."},
    [MYR_ENV_MPIEXEC_PMIX] = {
        "MYR_MPIEXEC_PMIX", "unset",
        "Set by `mpiexec -nfg` in the processes it starts (their PMIx server "
        "is mpiexec's, not another launcher's); not for users to set."},
    [MYR_ENV_NET_IDLE_DRIVE] = {
        "MYR_NET_IDLE_DRIVE", "1",
        "`1`: a worker whose only ULT waits for a message drives the network "
        "itself while it spins (MYR_SPIN_US), and a send finding the network "
        "free is issued by its own thread, so that a blocking exchange "
        "between processes pays no hand-off to the comm thread; `0`: the comm "
        "thread alone does (for comparison)."},
    [MYR_ENV_WAIT_POLICY] = {
        "MYR_WAIT_POLICY", "suspend",
        "What a ULT waiting in point-to-point (MPI_Send, MPI_Recv, the "
        "MPI_Wait and MPI_Probe families) does once its spin (MYR_SPIN_US) "
        "is over. `suspend`: it leaves the ready queue and whoever completes "
        "what it waits for makes it ready again; `yield`: it stays ready and "
        "yields in a loop, re-checking at each turn (seed 001's alternative, "
        "kept for `scripts/bench-threads` to compare the two). Collectives "
        "always suspend."},
};

const char *myr_env_get(myr_env_id id)
{
    if ((unsigned)id >= MYR_ENV_COUNT_)
        return NULL;
    const char *v = getenv(myr_env_table[id].name);
    return (v && *v) ? v : NULL;
}

int myr_env_parse_long(const char *text, long *out)
{
    if (!text || !isdigit((unsigned char)*text))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int myr_env_parse_size(const char *text, size_t *out)
{
    if (!text || !isdigit((unsigned char)*text))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': shift = 10; end++; break;
    case 'm': shift = 20; end++; break;
    case 'g': shift = 30; end++; break;
    case 'b': case 'B': break;  /* plain bytes, "100b" */
    default: return -1;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || (shift && v > (~0ULL >> shift)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

void myr_env_print_markdown(FILE *out)
{
    fputs("# Environment variables\n\n"
          "Generated from the table in `src/base/env.c` by `myriad-envvars`;\n"
          "do not edit by hand (`make check` fails when the two differ).\n\n"
          "| variable | default | meaning |\n|---|---|---|\n", out);
    for (int i = 0; i < MYR_ENV_COUNT_; i++)
        fprintf(out, "| `%s` | %s | %s |\n", myr_env_table[i].name,
                myr_env_table[i].default_text, myr_env_table[i].meaning);
}
