/*
 * launcher.c — myriad-launch: a job of several OS processes on this node.
 *
 *   myriad-launch --from-mpiexec N P SECONDS program [args...]
 *
 * mpiexec execs it (same process id, so signals meant for mpiexec arrive
 * here) for `mpiexec -n N -nfg P`, P < N, after it has set the job's
 * environment (MYR_TAG_OUTPUT, MYR_PRIVATIZE, -x, -genv, ...), gone to
 * -wdir and checked the program. SECONDS is the job's time limit (0: none).
 * The command line is mpiexec's business, not a user's.
 *
 * The job: ceil(N/P) processes, P ranks each (the last may have fewer),
 * ranks numbered process by process. Each process gets MYR_NRANKS (its
 * rank count), MYR_MPIEXEC_PMIX=1, the PMIx variables that make its
 * runtime connect to this program's PMIx server (pmix_server.c), and,
 * unless MYR_WORKERS is set, workers for its share of the CPUs: the CPUs
 * mpiexec may use are split between the processes (each process's
 * affinity mask, unless MYR_BIND=none), so the node is not oversubscribed.
 * Output is not relayed: the processes write to mpiexec's stdout and
 * stderr themselves, so nothing is lost when one crashes.
 *
 * Ending, never hanging. The main thread waits on a signalfd (children's
 * ends, and SIGINT/SIGTERM/SIGHUP/SIGQUIT for mpiexec) and an eventfd (the
 * PMIx server's reports). The job ends early, with one line naming the
 * process and its ranks, when a process
 *   - is killed by a signal, or exits (any status) before PMIx_Finalize
 *     (with no line of ours when its status is a deadlock's, 85: its
 *     runtime has reported every process's ranks and said why);
 *   - calls PMIx_Abort (MPI_Abort): its status and message;
 *   - has not connected within MYR_WIREUP_TIMEOUT seconds;
 * or when mpiexec gets a termination signal (passed on to every process)
 * or the time limit passes. Ending: SIGTERM to every process still
 * running, SIGKILL to those left KILL_GRACE_SECONDS later. Each process
 * also has PR_SET_PDEATHSIG: if mpiexec itself is killed, they die too.
 *
 * A process that called PMIx_Finalize may exit when it likes; once all
 * have exited, mpiexec's status is the first non-zero one (by process),
 * or 0.
 *
 * State: `st` (per process) and `abort_req` are shared with PMIx's thread
 * under `lock`. That thread only sets connected/finalized/abort_req and
 * writes the eventfd; everything else is the main thread's.
 */
#include "tools/launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "launch/launch.h"

/* Seconds between SIGTERM and SIGKILL when the job is ended. */
#define KILL_GRACE_SECONDS 2
/* How long after the time limit the processes' runtimes get to report
 * what their ranks are doing and end themselves (launch/watchdog.c), as
 * for one process (mpiexec.c). */
#define REPORT_GRACE_SECONDS 5
#define DEFAULT_WIREUP_TIMEOUT 60
#define MAX_PROCS (1L << 20)

enum { STATUS_USAGE = 2, STATUS_TIMEOUT = 124, STATUS_CANNOT_RUN = 126,
       STATUS_NOT_FOUND = 127 };

typedef struct proc_state {
    bool connected;      /* PMIx_Init reached the server */
    bool finalized;      /* PMIx_Finalize did */
    bool ended;          /* reaped (main thread only) */
    int status;          /* wait status, once ended */
} proc_state;

static myr_launcher_job job;
static proc_state *st;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int wake_fd = -1;

static struct {
    bool requested;
    int proc, status;
    char msg[1024];
} abort_req;

/* ---- what the PMIx server reports (its thread) ---------------------------- */

static void wake_main(void)
{
    uint64_t one = 1;
    ssize_t w = write(wake_fd, &one, sizeof one);
    (void)w;  /* a full counter still wakes the main thread */
}

static bool valid(int proc)
{
    return proc >= 0 && proc < job.nprocs;
}

void myr_launcher_connected(int proc)
{
    if (!valid(proc))
        return;
    pthread_mutex_lock(&lock);
    st[proc].connected = true;
    pthread_mutex_unlock(&lock);
}

/* Is `pid` on its way out (or gone)? The kernel sets PF_EXITING on every
 * thread before it closes the process's files, so a process whose PMIx
 * connection closed because it exited always shows it; one that called
 * PMIx_Finalize is alive, waiting for the server's answer. */
static bool process_exiting(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true;
    buf[n] = '\0';
    const char *after = strrchr(buf, ')');  /* the name may hold anything */
    char state = 0;
    unsigned flags = 0;
    if (!after || sscanf(after + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
        return false;
    return state == 'Z' || state == 'X' || (flags & 0x4 /* PF_EXITING */);
}

void myr_launcher_finalized(int proc)
{
    if (!valid(proc))
        return;
    pthread_mutex_lock(&lock);
    pid_t pid = job.procs[proc].pid;
    pthread_mutex_unlock(&lock);
    /* PMIx reports a closed connection the same way as PMIx_Finalize. */
    bool finalized = pid > 0 && !process_exiting(pid);
    pthread_mutex_lock(&lock);
    st[proc].finalized = finalized;
    pthread_mutex_unlock(&lock);
}

void myr_launcher_aborted(int proc, int status, const char *msg)
{
    if (!valid(proc))
        return;
    pthread_mutex_lock(&lock);
    if (!abort_req.requested) {
        abort_req.requested = true;
        abort_req.proc = proc;
        abort_req.status = status;
        snprintf(abort_req.msg, sizeof abort_req.msg, "%s", msg ? msg : "");
    }
    pthread_mutex_unlock(&lock);
    wake_main();
}

/* ---- the main thread -------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* "process 1 (ranks 4-7)" */
static const char *name_of(int p, char *buf, size_t size)
{
    const myr_launcher_proc *pr = &job.procs[p];
    if (pr->count == 1)
        snprintf(buf, size, "process %d (rank %ld)", p, pr->first);
    else
        snprintf(buf, size, "process %d (ranks %ld-%ld)", p, pr->first,
                 pr->first + pr->count - 1);
    return buf;
}

/* Statuses as the shell shows them: the exit status, or 128 + signal. */
static int shell_status(int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 1;
}

static bool ending;          /* the job is being ended */
/* A process's runtime kept the time limit: the others keep it too and
 * are still reporting their ranks; mpiexec says so once they all ended. */
static bool timed_out;
static int end_status;       /* mpiexec's status when it was ended */
static double kill_at;       /* when SIGKILL follows, once ending */
static int spared = -1;      /* a process left to exit by itself (MPI_Abort's) */

static void signal_running(int sig)
{
    for (int p = 0; p < job.nprocs; p++)
        if (!st[p].ended && job.procs[p].pid > 0 && p != spared)
            kill(job.procs[p].pid, sig);
}

/* End the job with `status`: `sig` to every process still running (the
 * one MPI_Abort'ed is spared, so that it exits by itself), SIGKILL to all
 * of them after the grace period. */
static void end_job(int status, int sig)
{
    if (ending)
        return;
    ending = true;
    end_status = status;
    signal_running(sig);
    kill_at = now_seconds() + KILL_GRACE_SECONDS;
}

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* One write, so the line does not mix with the processes' output. */
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
}

/* A process ended: is that the end of the job? */
static void on_process_end(int p, int wstatus, double start, long timeout)
{
    pthread_mutex_lock(&lock);
    st[p].ended = true;
    st[p].status = wstatus;
    bool connected = st[p].connected, finalized = st[p].finalized;
    pthread_mutex_unlock(&lock);
    if (ending)
        return;  /* ended by mpiexec, or after the cause was reported */
    char who[96];
    name_of(p, who, sizeof who);
    if (finalized) {
        /* Done with MPI: the others may still be finishing. */
        if (WIFSIGNALED(wstatus))
            say("mpiexec: %s was killed by signal %d (%s) after MPI_Finalize", who,
                WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        return;
    }
    int status = shell_status(wstatus);
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        say("mpiexec: %s was killed by signal %d (%s); ending the job", who, sig,
            strsignal(sig));
    } else if (status == STATUS_TIMEOUT && timeout > 0 &&
               now_seconds() >= start + (double)timeout) {
        /* Its runtime kept the time limit and reported its ranks; the
         * others' runtimes do the same (watch() ends any that has not by
         * the grace's end). Signalled now, a process would be cut off in
         * its report, and mpiexec's line would land in the middle of it. */
        timed_out = true;
        return;
    } else if (status == MYR_STATUS_DEADLOCK && connected) {
        /* Its runtime found the job deadlocked (launch/watchdog.c), had
         * every process report its ranks, and said so last. */
    } else if (!connected) {
        say("mpiexec: %s exited with status %d before connecting to mpiexec "
            "(before MPI_Init); ending the job", who, status);
    } else {
        say("mpiexec: %s exited with status %d before MPI_Finalize; ending the job",
            who, status);
    }
    /* An exit with 0 in the middle of the job is a failure all the same. */
    end_job(status ? status : 1, SIGTERM);
}

/* Processes that have not connected by the wire-up deadline. */
static bool report_unconnected(long limit)
{
    bool any = false;
    pthread_mutex_lock(&lock);
    for (int p = 0; p < job.nprocs; p++) {
        if (!st[p].connected && !st[p].ended) {
            char who[96];
            say("mpiexec: %s did not connect to mpiexec within %ld s "
                "(MYR_WIREUP_TIMEOUT): it did not reach MPI_Init; ending the job",
                name_of(p, who, sizeof who),
                limit);
            any = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return any;
}

static bool abort_requested(void)
{
    pthread_mutex_lock(&lock);
    bool requested = abort_req.requested;
    pthread_mutex_unlock(&lock);
    if (!requested || ending)
        return false;
    char who[96];
    name_of(abort_req.proc, who, sizeof who);
    say("mpiexec: %s called MPI_Abort (PMIx_Abort) with status %d%s%s; ending the job",
        who, abort_req.status, abort_req.msg[0] ? ": " : "", abort_req.msg);
    spared = abort_req.proc;
    end_job(abort_req.status ? abort_req.status : 1, SIGTERM);
    return true;
}

/* Reap every process that ended; how many. When several ended at once,
 * those killed by a signal are looked at first: the others may be exiting
 * because of them (a fence that failed, say), and the line should name
 * the cause. */
static int reap(double start, long timeout)
{
    int n = 0, wstatus;
    pid_t pid;
    static struct { int proc, wstatus; } *batch;
    if (!batch && !(batch = calloc((size_t)job.nprocs, sizeof *batch)))
        abort();
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0)
        for (int p = 0; p < job.nprocs; p++)
            if (job.procs[p].pid == pid && !st[p].ended) {
                batch[n].proc = p;
                batch[n++].wstatus = wstatus;
                st[p].ended = true;  /* not signalled any more */
            }
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < n; k++)
            if (WIFSIGNALED(batch[k].wstatus) == (pass == 0))
                on_process_end(batch[k].proc, batch[k].wstatus, start, timeout);
    return n;
}

/* ---- starting the processes ------------------------------------------------- */

/* A copy of the environment that PMIx may grow (it reallocs the array). */
static char **environment_copy(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(env[i] = strdup(environ[i])))
            return NULL;
    return env;
}

static bool environment_set(char ***env, const char *name, const char *value)
{
    size_t len = strlen(name), n = 0;
    char *entry;
    if (asprintf(&entry, "%s=%s", name, value) < 0)
        return false;
    for (; (*env)[n]; n++) {
        if (strncmp((*env)[n], name, len) == 0 && (*env)[n][len] == '=') {
            free((*env)[n]);
            (*env)[n] = entry;
            return true;
        }
    }
    char **grown = realloc(*env, (n + 2) * sizeof *grown);
    if (!grown) {
        free(entry);
        return false;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *env = grown;
    return true;
}

static void environment_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* The file execvp would run (after mpiexec went to -wdir), or NULL. */
static char *resolve_program(const char *name)
{
    if (strchr(name, '/'))
        return strdup(name);
    const char *dirs = getenv("PATH");
    if (!dirs)
        dirs = "/bin:/usr/bin";
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        char *path;
        if (asprintf(&path, "%.*s%s%s", (int)len, dirs, len ? "/" : "", name) < 0)
            return NULL;
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0)
            return path;
        free(path);
        dirs += len + (dirs[len] == ':');
    }
    return NULL;
}

/* Each process's CPUs: a block of mpiexec's CPUs when there are at least as
 * many as processes, else one CPU each, round robin. */
static void cpu_share(const cpu_set_t *all, int p, cpu_set_t *mine)
{
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, all))
            cpus[n++] = c;
    CPU_ZERO(mine);
    if (n == 0)
        return;
    if (job.nprocs <= n) {
        for (long k = (long)p * n / job.nprocs; k < (long)(p + 1) * n / job.nprocs; k++)
            CPU_SET(cpus[k], mine);
    } else {
        CPU_SET(cpus[p % n], mine);
    }
}

/* In the child, between fork and exec: only async-signal-safe calls. */
_Noreturn static void exec_child(int p, const char *path, char **argv, char **env,
                                 const sigset_t *mask, const cpu_set_t *cpus,
                                 pid_t parent)
{
    /* Die with mpiexec, whatever kills it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(STATUS_CANNOT_RUN);
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (cpus)
        sched_setaffinity(0, sizeof *cpus, cpus);
    if (p != 0) {  /* stdin goes to the first process, as other MPIs do */
        int null = open("/dev/null", O_RDONLY);
        if (null > 0) {
            dup2(null, 0);
            close(null);
        }
    }
    execve(path, argv, env);
    int err = errno;
    static const char msg[] = "mpiexec: cannot run the program: ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    const char *why = strerror(err);  /* not safe in theory; glibc's is a table */
    w = write(2, why, strlen(why));
    w = write(2, "\n", 1);
    (void)w;
    _exit(err == ENOENT || err == ENOTDIR ? STATUS_NOT_FOUND : STATUS_CANNOT_RUN);
}

/* "0-3,6" */
static void cpu_list(const cpu_set_t *set, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && at < size; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last > c ? snprintf(buf + at, size - at, "%s%d-%d", at ? "," : "", c, last)
                         : snprintf(buf + at, size - at, "%s%d", at ? "," : "", c);
        at += n > 0 ? (size_t)n : 0;
    }
}

/* Fork every process (main thread; the server is up). The count started. */
static int start_processes(const char *path, char **program, const sigset_t *old)
{
    /* Workers and CPUs per process. */
    cpu_set_t all;
    bool bind = true;
    const char *b = myr_env_get(MYR_ENV_BIND);
    if (b && strcmp(b, "none") == 0)
        bind = false;
    if (sched_getaffinity(0, sizeof all, &all) != 0) {
        CPU_ZERO(&all);
        bind = false;
    }
    long ncpus = CPU_COUNT(&all);
    /* More processes than CPUs: none is pinned (unless MYR_BIND=core), as
     * Open MPI does when oversubscribed. Two processes pinned to a CPU that
     * another program also wants cannot leave it, and the one whose turn it
     * is waits for that program's time slice: with one busy program beside
     * 4 processes on 2 CPUs a collective took 1-1.5 ms, unpinned 5-330 us
     * (quiet, pinned is 1.2-1.7x faster: docs/mpiexec.md). */
    if (job.nprocs > ncpus && !(b && strcmp(b, "core") == 0))
        bind = false;
    bool workers_given = myr_env_get(MYR_ENV_WORKERS) != NULL;
    const char *v = myr_env_get(MYR_ENV_VERBOSE);
    bool verbose = v && strcmp(v, "0") != 0;
    if (verbose) {
        const char *version = myr_pmix_server_version();  /* "OpenPMIx 4.2.2 (...)" */
        int len = (int)strcspn(version, "(");
        while (len > 0 && version[len - 1] == ' ')
            len--;
        say("mpiexec: %ld ranks in %d OS processes of %ld, PMIx server of %.*s", job.nranks,
            job.nprocs, job.procs[0].count, len, version);
    }

    pid_t self = getpid();
    for (int p = 0; p < job.nprocs; p++) {
        char **env = environment_copy();
        char count[24], workers[24];
        snprintf(count, sizeof count, "%ld", job.procs[p].count);
        cpu_set_t mine;
        cpu_share(&all, p, &mine);
        long share = CPU_COUNT(&mine);
        if (share < 1)
            share = ncpus / job.nprocs;
        snprintf(workers, sizeof workers, "%ld", share > 0 ? share : 1);
        if (!env || !environment_set(&env, "MYR_NRANKS", count) ||
            !environment_set(&env, "MYR_MPIEXEC_PMIX", "1") ||
            (!workers_given && !environment_set(&env, "MYR_WORKERS", workers)) ||
            myr_pmix_server_child_env(p, &env) != 0) {
            fputs("mpiexec: cannot prepare the environment of the job's processes\n", stderr);
            environment_free(env);
            end_job(1, SIGKILL);
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("mpiexec: fork");
            environment_free(env);
            end_job(1, SIGKILL);
            break;
        }
        if (pid == 0)
            exec_child(p, path, program, env, old, bind && CPU_COUNT(&mine) ? &mine : NULL,
                       self);
        pthread_mutex_lock(&lock);
        job.procs[p].pid = pid;
        pthread_mutex_unlock(&lock);
        environment_free(env);
        if (verbose) {
            char who[96], cpus[256] = "any CPU";
            if (bind && CPU_COUNT(&mine))
                cpu_list(&mine, cpus, sizeof cpus);
            say("mpiexec: %s: process id %ld, CPUs %s, %s worker%s", name_of(p, who, sizeof who),
                (long)pid, cpus, workers_given ? myr_env_get(MYR_ENV_WORKERS) : workers,
                !workers_given && share == 1 ? "" : "s");
        }
    }

    int started = 0;
    for (int p = 0; p < job.nprocs; p++)
        started += job.procs[p].pid > 0;
    return started;
}

/* Wait for every process to end, ending the job when one fails (the
 * top of this file says when), when mpiexec gets a termination signal or
 * when a time limit passes. */
static void watch(int sfd, int running, double start, long timeout, long wireup_limit)
{
    double wireup_at = wireup_limit > 0 ? start + (double)wireup_limit : 0;
    double timeout_at = timeout > 0 ? start + (double)(timeout + REPORT_GRACE_SECONDS) : 0;
    while (running > 0) {
        double now = now_seconds(), next = 0;
        if (ending)
            next = kill_at;
        else {
            if (wireup_at > 0)
                next = wireup_at;
            if (timeout_at > 0 && (next == 0 || timeout_at < next))
                next = timeout_at;
        }
        int wait_ms = -1;
        if (next > 0)
            wait_ms = next <= now ? 0 : next - now > 3600 ? 3600000  /* int ms */
                                                      : (int)((next - now) * 1000) + 1;
        struct pollfd fds[2] = {{.fd = sfd, .events = POLLIN},
                                {.fd = wake_fd, .events = POLLIN}};
        if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) {
            perror("mpiexec: poll");
            end_job(1, SIGKILL);
        }
        /* mpiexec's own signals first: a Ctrl-C also reaches the
         * processes (one process group), and their ends are not failures. */
        struct signalfd_siginfo info;
        while (read(sfd, &info, sizeof info) == sizeof info) {
            int sig = (int)info.ssi_signo;
            if (sig == SIGCHLD || sig == SIGPIPE) {
                continue;  /* children are reaped below, every time round */
            } else if (!ending) {
                say("mpiexec: got signal %d (%s); ending the job", sig, strsignal(sig));
                /* SIGHUP goes on as SIGTERM: UCX takes SIGHUP in every
                 * process for its debug output (UCX_DEBUG_SIGNO), and the
                 * process would go on. */
                end_job(128 + sig, sig == SIGHUP ? SIGTERM : sig);
            } else {
                signal_running(SIGKILL);  /* a second one: at once */
            }
        }
        uint64_t events;
        if (read(wake_fd, &events, sizeof events) == sizeof events)
            abort_requested();
        running -= reap(start, timeout);
        if (running == 0)
            break;
        now = now_seconds();
        if (ending && now >= kill_at) {
            spared = -1;
            signal_running(SIGKILL);
            kill_at = now + KILL_GRACE_SECONDS;  /* again, should one linger */
        } else if (!ending && wireup_at > 0 && now >= wireup_at) {
            wireup_at = 0;
            if (report_unconnected(wireup_limit))
                end_job(1, SIGTERM);
        } else if (!ending && timeout_at > 0 && now >= timeout_at) {
            say("mpiexec: job timed out after %ld s", timeout);
            end_job(STATUS_TIMEOUT, SIGTERM);
        }
    }
}

/* A job of its own, even when mpiexec runs under another PMIx launcher:
 * that one's PMIX_* variables (its namespace, rank, server address) must
 * neither reach the library's server nor be left in the processes'
 * environment. PMIx's own settings (PMIX_MCA_*) stay. */
static void drop_enclosing_pmix(void)
{
    for (size_t i = 0; environ[i];) {
        char name[256];
        size_t len = strcspn(environ[i], "=");
        if (strncmp(environ[i], "PMIX_", 5) == 0 && strncmp(environ[i], "PMIX_MCA_", 9) != 0 &&
            len < sizeof name) {
            memcpy(name, environ[i], len);
            name[len] = '\0';
            unsetenv(name);  /* moves the rest down: look at i again */
        } else {
            i++;
        }
    }
}

_Noreturn static void usage(void)
{
    fputs("myriad-launch is started by mpiexec (mpiexec -n N -nfg P program ...)\n", stderr);
    exit(STATUS_USAGE);
}

static long number(const char *text, long min, long max)
{
    long v;
    if (myr_env_parse_long(text, &v) != 0 || v < min || v > max)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[1], "--from-mpiexec") != 0)
        usage();
    long nranks = number(argv[2], 1, MYR_MAX_RANKS);
    long nfg = number(argv[3], 1, nranks);
    long timeout = number(argv[4], 0, 100000000L);
    char **program = argv + 5;
    long nprocs = (nranks + nfg - 1) / nfg;
    if (nprocs > MAX_PROCS) {
        fprintf(stderr, "mpiexec: -n %ld -nfg %ld would start %ld OS processes; at most %ld\n",
                nranks, nfg, nprocs, MAX_PROCS);
        return STATUS_USAGE;
    }
    long wireup_limit = DEFAULT_WIREUP_TIMEOUT;
    const char *w = myr_env_get(MYR_ENV_WIREUP_TIMEOUT);
    if (w && myr_env_parse_long(w, &wireup_limit) != 0) {
        fprintf(stderr, "mpiexec: MYR_WIREUP_TIMEOUT=%s is not a number of seconds "
                "(0: no limit)\n", w);
        return STATUS_USAGE;
    }
    char *path = resolve_program(program[0]);
    if (!path) {
        fprintf(stderr, "mpiexec: cannot run '%s': %s\n", program[0], strerror(ENOENT));
        return STATUS_NOT_FOUND;
    }

    drop_enclosing_pmix();

    job.nranks = nranks;
    job.nprocs = (int)nprocs;
    job.procs = calloc((size_t)nprocs, sizeof *job.procs);
    st = calloc((size_t)nprocs, sizeof *st);
    if (!job.procs || !st) {
        fputs("mpiexec: out of memory\n", stderr);
        return 1;
    }
    for (int p = 0; p < job.nprocs; p++) {
        job.procs[p].first = (long)p * nfg;
        job.procs[p].count = p == job.nprocs - 1 ? nranks - job.procs[p].first : nfg;
    }

    /* Signals: blocked before PMIx's thread exists (it inherits the mask)
     * and read from a signalfd. SIGHUP is left ignored under nohup. */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    int forwarded[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        struct sigaction was;
        sigaction(forwarded[i], NULL, &was);
        if (forwarded[i] == SIGHUP && was.sa_handler == SIG_IGN)
            continue;
        signal(forwarded[i], SIG_DFL);  /* children start with the default */
        sigaddset(&set, forwarded[i]);
    }
    signal(SIGCHLD, SIG_DFL);
    /* Blocked, not ignored (the processes would inherit SIG_IGN): a write
     * to a closed stderr fails with EPIPE instead of killing mpiexec. */
    sigaddset(&set, SIGPIPE);
    sigprocmask(SIG_BLOCK, &set, &old);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (sfd < 0 || wake_fd < 0) {
        perror("mpiexec: signalfd/eventfd");
        return 1;
    }

    double start = now_seconds();
    if (myr_pmix_server_start(&job) != 0) {
        myr_pmix_server_stop();
        _exit(1);
    }

    watch(sfd, start_processes(path, program, &old), start, timeout, wireup_limit);
    if (timed_out && !ending)
        say("mpiexec: job timed out after %ld s", timeout);
    myr_pmix_server_stop();
    /* Every process ended by itself: the first failure, by process. */
    int status = ending ? end_status : 0;
    for (int p = 0; p < job.nprocs && !ending && status == 0; p++)
        status = shell_status(st[p].status);
    _exit(status);  /* PMIx's thread still runs: no destructors beside it */
}
