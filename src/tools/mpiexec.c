/*
 * mpiexec.c — start an MPI job.
 *
 *   mpiexec [-n N] [-workers W] [-nfg P] [-l] [-timeout SEC]
 *           [-privatize auto|always|never] [-v] prog [args...]
 *
 * Every rank of a job runs as a ULT of one OS process (more than one OS
 * process needs the network engine, which is not there yet), so mpiexec has
 * little to do: it puts the job's shape in the environment (MYR_NRANKS,
 * MYR_WORKERS, MYR_TAG_OUTPUT, MYR_PRIVATIZE, MYR_VERBOSE), where the program's runtime main
 * (src/launch/rank_start.c) reads it, and execs the program. Only with a time limit
 * (-timeout, or MPIEXEC_TIMEOUT) does mpiexec stay: it runs the program as
 * its child, passes termination signals on to it (no orphan when mpiexec is
 * killed), and ends it if it is still running a few seconds after the
 * limit, which the program's runtime keeps itself (with a report of what
 * every rank is doing, launch/watchdog.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "launch/launch.h"

/* Exit statuses of mpiexec itself (others are the program's). */
enum {
    STATUS_USAGE = 2,       /* bad command line */
    STATUS_TIMEOUT = 124,   /* as timeout(1) */
    STATUS_CANNOT_RUN = 126,
    STATUS_NOT_FOUND = 127, /* as the shell */
};

/* Seconds mpiexec gives the job to end after SIGTERM before SIGKILL. */
#define KILL_GRACE_SECONDS 3
/* How long after the limit the job's runtime gets to report what every
 * rank is doing and end itself (launch/watchdog.c), before mpiexec ends it. */
#define REPORT_GRACE_SECONDS 5
/* Bounds that only catch typing mistakes. */
#define MAX_WORKERS 1000000L
#define MAX_TIMEOUT_SECONDS 100000000L

static const char usage_text[] =
    "usage: mpiexec [options] program [args...]\n"
    "  -n N, -np N      run N ranks (default 1)\n"
    "  -workers W       run them on W worker threads (default: one per core\n"
    "                   the process may use; MYR_WORKERS)\n"
    "  -nfg P           P ranks per OS process; for now P must equal N (all\n"
    "                   ranks in one OS process)\n"
    "  -l, -tag-output  prefix each line of output with \"[rank] \"\n"
    "  -timeout SEC     end the job after SEC seconds, exit status 124\n"
    "                   (MPIEXEC_TIMEOUT; 0: no limit)\n"
    "  -privatize MODE  auto, always or never: give each rank its own copy of\n"
    "                   the program's global variables (MYR_PRIVATIZE; auto:\n"
    "                   when the program defines writable globals)\n"
    "  -v, -verbose     say how the job is set up (workers, private or shared\n"
    "                   globals and why) on stderr\n"
    "  -gdb             run the job under gdb, with Myriad's commands loaded\n"
    "                   (myriad ranks, myriad bt RANK; docs/debugging.md)\n"
    "  -h, -help        print this help;  -version  print the version\n"
    "Options may also be written with two dashes (--n 4) and as name=value.\n";

typedef struct options {
    long nranks;
    long workers;   /* 0: not given */
    long nfg;       /* 0: not given */
    bool tag_output;
    bool verbose;
    const char *privatize;  /* NULL: not given */
    long timeout;   /* seconds; 0: no limit */
    bool timeout_given;
    bool gdb;
    char **program; /* program and its arguments (NULL-terminated) */
} options;

__attribute__((format(printf, 1, 2)))
_Noreturn static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiexec: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (mpiexec -help lists the options)\n", stderr);
    exit(STATUS_USAGE);
}

/* A count in [min, max], or a usage error that says what `option` needs. */
static long parse_count(const char *option, const char *text, long min,
                        long max, const char *needs)
{
    if (!text) {
        fprintf(stderr, "mpiexec: %s needs %s (mpiexec -help lists the options)\n",
                option, needs);
        exit(STATUS_USAGE);
    }
    long v = 0;
    bool is_number = myr_env_parse_long(text, &v) == 0;
    if (!is_number || v < min || v > max) {
        fprintf(stderr, "mpiexec: %s needs %s, not '%s'", option, needs, text);
        if (is_number && v > max)
            fprintf(stderr, " (at most %ld)", max);
        fputs("\n", stderr);
        exit(STATUS_USAGE);
    }
    return v;
}

/* An option's value: after its '=', or the next argument (consumed). */
static const char *option_value(const char *eq, int argc, char **argv, int *i)
{
    if (eq)
        return eq + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static void parse_options(int argc, char **argv, options *o)
{
    *o = (options){.nranks = 1};
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
            break;
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        /* "-name", "--name", "-name=value": one spelling to compare. */
        char name[32];
        const char *name_start = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name_start, '=');
        size_t len = eq ? (size_t)(eq - name_start) : strlen(name_start);
        if (len == 0 || len >= sizeof name)
            usage_error("unknown option '%s'", arg);
        memcpy(name, name_start, len);
        name[len] = '\0';
        if (strcmp(name, "n") == 0 || strcmp(name, "np") == 0) {
            o->nranks = parse_count("-n", option_value(eq, argc, argv, &i), 1,
                                    MYR_MAX_RANKS, "a positive number of ranks");
        } else if (strcmp(name, "workers") == 0) {
            o->workers = parse_count("-workers", option_value(eq, argc, argv, &i), 1,
                                     MAX_WORKERS, "a positive number of worker threads");
        } else if (strcmp(name, "nfg") == 0) {
            o->nfg = parse_count("-nfg", option_value(eq, argc, argv, &i), 1,
                                 MYR_MAX_RANKS, "a positive number of ranks per OS process");
        } else if (strcmp(name, "l") == 0 || strcmp(name, "tag-output") == 0) {
            if (eq)
                usage_error("%s takes no value", arg);
            o->tag_output = true;
        } else if (strcmp(name, "v") == 0 || strcmp(name, "verbose") == 0) {
            if (eq)
                usage_error("%s takes no value", arg);
            o->verbose = true;
        } else if (strcmp(name, "privatize") == 0) {
            o->privatize = option_value(eq, argc, argv, &i);
            if (!o->privatize || (strcmp(o->privatize, "auto") != 0 &&
                                  strcmp(o->privatize, "always") != 0 &&
                                  strcmp(o->privatize, "never") != 0))
                usage_error("-privatize needs auto, always or never%s%s%s",
                            o->privatize ? ", not '" : "",
                            o->privatize ? o->privatize : "",
                            o->privatize ? "'" : "");
        } else if (strcmp(name, "timeout") == 0) {
            o->timeout = parse_count("-timeout", option_value(eq, argc, argv, &i), 0,
                                     MAX_TIMEOUT_SECONDS, "a number of seconds (0: no limit)");
            o->timeout_given = true;
        } else if (strcmp(name, "gdb") == 0) {
            if (eq)
                usage_error("%s takes no value", arg);
            o->gdb = true;
        } else if (strcmp(name, "h") == 0 || strcmp(name, "help") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (strcmp(name, "version") == 0) {
            printf("mpiexec (Myriad) %s\n", MYR_VERSION);
            exit(0);
        } else {
            usage_error("unknown option '%s'", arg);
        }
    }
    if (i >= argc) {
        fputs("mpiexec: no program to run\n", stderr);
        fputs(usage_text, stderr);
        exit(STATUS_USAGE);
    }
    o->program = argv + i;

    if (o->nfg && o->nfg != o->nranks) {
        fprintf(stderr,
                "mpiexec: -nfg %ld with -n %ld would need more than one OS "
                "process; ranks in several OS processes need the network "
                "engine, which Myriad does not have yet. Use -nfg %ld, or "
                "leave -nfg out, to run all ranks in one OS process\n",
                o->nfg, o->nranks, o->nranks);
        exit(STATUS_USAGE);
    }
    if (!o->timeout_given) {
        const char *v = myr_env_get(MYR_ENV_MPIEXEC_TIMEOUT);
        if (v && (myr_env_parse_long(v, &o->timeout) != 0 ||
                  o->timeout > MAX_TIMEOUT_SECONDS)) {
            fprintf(stderr, "mpiexec: MPIEXEC_TIMEOUT=%s is not a number of "
                    "seconds (0: no limit)\n", v);
            exit(STATUS_USAGE);
        }
    }
}

static void set_env_text(myr_env_id id, const char *text)
{
    if (setenv(myr_env_table[id].name, text, 1) != 0) {
        perror("mpiexec: setenv");
        exit(1);
    }
}

static void set_env(myr_env_id id, long value)
{
    char text[24];
    snprintf(text, sizeof text, "%ld", value);
    set_env_text(id, text);
}

/* execvp, and on failure the shell's statuses: 127 not found, 126 other. */
_Noreturn static void exec_program(char **program)
{
    execvp(program[0], program);
    int err = errno;
    fprintf(stderr, "mpiexec: cannot run '%s': %s\n", program[0], strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? STATUS_NOT_FOUND : STATUS_CANNOT_RUN);
}

/* gdb -q -x <Myriad's gdb commands> --args program... */
_Noreturn static void exec_gdb(char **program)
{
    size_t n = 0;
    while (program[n])
        n++;
    char **argv = calloc(n + 6, sizeof *argv);
    if (!argv) {
        fputs("mpiexec: out of memory\n", stderr);
        _exit(STATUS_CANNOT_RUN);
    }
    argv[0] = "gdb";
    argv[1] = "-q";
    argv[2] = "-x";
    argv[3] = MYR_GDB_SCRIPT;
    argv[4] = "--args";
    memcpy(argv + 5, program, (n + 1) * sizeof *argv);
    execvp(argv[0], argv);
    int err = errno;
    fprintf(stderr, "mpiexec: cannot run gdb: %s\n", strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? STATUS_NOT_FOUND : STATUS_CANNOT_RUN);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Signals taken by sigtimedwait: the child's end, and those mpiexec passes
 * on to the job instead of dying of them. */
static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void ignore_signal(int sig)
{
    (void)sig;  /* only there so that a blocked SIGCHLD is queued */
}

/* Wait for `pid` until `deadline` (monotonic seconds), passing forwarded
 * signals on. True with *status set when the child ended in time. */
static bool wait_child(pid_t pid, const sigset_t *set, double deadline, int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR) {
            perror("mpiexec: waitpid");
            exit(1);
        }
        double left = deadline - now_seconds();
        if (left <= 0)
            return false;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        siginfo_t info;
        int sig = sigtimedwait(set, &info, &ts);
        if (sig > 0 && sig != SIGCHLD)
            kill(pid, sig);
    }
}

/* The job's exit status as mpiexec reports it: the program's own status, or
 * 128 + the signal that killed it (as the shell does). */
static int job_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        fprintf(stderr, "mpiexec: the job was killed by signal %d (%s)\n", sig,
                strsignal(sig));
        return 128 + sig;
    }
    return 1;
}

static int run_with_timeout(char **program, long seconds)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        sigaddset(&set, forwarded_signals[i]);
    struct sigaction sa = {.sa_handler = ignore_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    /* Blocked before fork, so neither the child's end nor a signal for
     * mpiexec can slip in between fork and the wait. */
    sigprocmask(SIG_BLOCK, &set, &old);
    double start = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        perror("mpiexec: fork");
        return 1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        signal(SIGCHLD, SIG_DFL);
        exec_program(program);
    }
    int status;
    if (wait_child(pid, &set, start + (double)(seconds + REPORT_GRACE_SECONDS), &status))
        return job_status(status);
    fprintf(stderr, "mpiexec: job timed out after %ld s\n", seconds);
    kill(pid, SIGTERM);
    if (!wait_child(pid, &set, now_seconds() + KILL_GRACE_SECONDS, &status)) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    return STATUS_TIMEOUT;
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);
    set_env(MYR_ENV_NRANKS, o.nranks);
    if (o.workers)
        set_env(MYR_ENV_WORKERS, o.workers);
    if (o.tag_output)
        set_env(MYR_ENV_TAG_OUTPUT, 1);
    if (o.verbose)
        set_env(MYR_ENV_VERBOSE, 1);
    if (o.privatize)
        set_env_text(MYR_ENV_PRIVATIZE, o.privatize);
    if (o.gdb) {
        if (o.timeout > 0)
            usage_error("-gdb and a time limit (-timeout, MPIEXEC_TIMEOUT) do not go together");
        exec_gdb(o.program);
    }
    if (o.timeout > 0) {
        /* The runtime keeps the limit itself, with a report of the ranks;
         * mpiexec ends the job only if that does not happen. */
        set_env(MYR_ENV_MPIEXEC_TIMEOUT, o.timeout);
        return run_with_timeout(o.program, o.timeout);
    }
    exec_program(o.program);
}
