/*
 * mpiexec.c — start an MPI job.
 *
 *   mpiexec [options] prog [args...] [: [options] prog2 [args...]]...
 *
 * By default every rank of a job runs as a ULT of one OS process, so
 * mpiexec has little to do: it puts the job's shape in the environment
 * (MYR_NRANKS, MYR_WORKERS, MYR_TAG_OUTPUT, MYR_PRIVATIZE, MYR_VERBOSE),
 * where the program's runtime main (src/launch/rank_start.c) reads it, and
 * execs the program. Only with a time limit
 * (-timeout, or MPIEXEC_TIMEOUT) does mpiexec stay: it runs the program as
 * its child, passes termination signals on to it (no orphan when mpiexec is
 * killed), and ends it if it is still running a few seconds after the
 * limit, which the program's runtime keeps itself (with a report of what
 * every rank is doing, launch/watchdog.c).
 *
 * Several OS processes (`-n N -nfg P`, P < N): mpiexec sets up the
 * environment the same way and execs myriad-launch (launcher.c), which
 * starts the processes and hosts the PMIx server they connect to. It is a
 * program of its own so that mpiexec, which starts every job of one
 * process, does not load libpmix (~3 ms a start).
 *
 * MPMD (`-n 2 ./a : -n 3 ./b`): still one OS process. mpiexec execs the
 * first program and describes the others in MYR_MPMD; the runtime loads
 * them into the process (launch/mpmd.c) and runs their main for their
 * ranks of the one MPI_COMM_WORLD.
 *
 * A program not built with Myriad (hostname, a script) has no runtime to
 * start ranks, so mpiexec runs it once per rank as separate processes, as
 * every MPI does, with the PMI_* and OMPI_COMM_WORLD_* variables set.
 *
 * Options that mean something only for several nodes or processes
 * (--bind-to, -host localhost, ...) are accepted with a note; docs/mpiexec.md
 * lists them all.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "launch/launch.h"
#include "tools/beside.h"
#include "tools/gdb_script.h"

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
    "usage: mpiexec [options] program [args...] [: [options] program [args...]]...\n"
    "  -n N, -np N      run N ranks of the program (default 1)\n"
    "  -workers W       run them on W worker threads (default: one per core\n"
    "                   the process may use; MYR_WORKERS)\n"
    "  -nfg P           P ranks per OS process: ceil(N/P) processes on this\n"
    "                   node, ranks numbered process by process (default: all\n"
    "                   ranks in one OS process); the CPUs are shared out\n"
    "                   between the processes\n"
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
    "  -wdir DIR, -wd DIR  run in DIR (this program and the ones after it)\n"
    "  -x VAR[=VALUE]   set VAR (Open MPI; without a value: pass it on, as\n"
    "                   every variable is passed on anyway)\n"
    "  -genv VAR VALUE  set VAR for every program (MPICH)\n"
    "  -env VAR VALUE   set VAR for this program of an MPMD job (MPICH)\n"
    "  -genvlist A,B, -envlist A,B, -genvall, -envall   pass variables on\n"
    "                   (every variable is passed on anyway)\n"
    "  -h, -help        print this help;  -version  print the version\n"
    "Options may also be written with two dashes (--n 4) and as name=value.\n"
    "\n"
    "MPMD: `mpiexec -n 2 ./a : -n 3 ./b` runs one MPI_COMM_WORLD of 5 ranks:\n"
    "  0-1 run a (MPI_APPNUM 0), 2-4 run b (MPI_APPNUM 1), all in one OS\n"
    "  process; every program must be built with Myriad's mpicc.\n"
    "A program not built with Myriad (hostname, a script) runs N times as\n"
    "  separate processes, with PMI_RANK, PMI_SIZE, OMPI_COMM_WORLD_RANK,\n"
    "  OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_LOCAL_RANK set in each.\n"
    "\n"
    "Accepted and ignored (with a note), as they mean nothing for one OS\n"
    "process on one node: --oversubscribe, --allow-run-as-root, --bind-to X,\n"
    "  --map-by X, -ppn N, -host/--host/-H H[,H...] and -hostfile/\n"
    "  -machinefile/-f FILE naming only this node (localhost, 127.0.0.1 or\n"
    "  its host name).\n"
    "Not supported (mpiexec says why and stops): other nodes in -host or a\n"
    "  host file (use srun --mpi=pmix or prterun there), one MPMD job mixing\n"
    "  Myriad programs with others, different -wdir or -env for the Myriad\n"
    "  programs of one MPMD job (they share one process), -nfg below N with\n"
    "  MPMD, -gdb or a program not built with Myriad, and any option not\n"
    "  listed here.\n"
    "docs/mpiexec.md says more.\n";

/* A variable to set: -x VAR=VALUE, -genv VAR VALUE, -env VAR VALUE. */
typedef struct env_setting {
    const char *name;
    const char *value;
} env_setting;

/* What mpiexec found the program to be (see classify_program). */
typedef enum program_kind {
    KIND_UNKNOWN,  /* cannot tell: run it as a Myriad program, as always */
    KIND_MYRIAD,   /* its main runs through Myriad's launcher */
    KIND_OTHER,    /* anything else: one process per rank */
} program_kind;

/* One program of the job (one MPMD section; the only one without ':'). */
typedef struct section {
    long nranks;
    char **program;        /* program and its arguments (NULL-terminated) */
    const char *wdir;      /* -wdir, or NULL: mpiexec's directory */
    env_setting *env;      /* -env, in order */
    size_t nenv;
    char *path;            /* the file the program name stands for, or NULL */
    program_kind kind;
    const char *what;      /* for KIND_OTHER: why it is not a Myriad program */
} section;

typedef struct options {
    long nranks;    /* in all sections */
    long workers;   /* 0: not given */
    long nfg;       /* 0: not given */
    bool tag_output;
    bool verbose;
    const char *privatize;  /* NULL: not given */
    long timeout;   /* seconds; 0: no limit */
    bool timeout_given;
    bool gdb;
    section *sections;
    size_t nsections;
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

/* One line saying why the job cannot run as asked; the status of a usage
 * error, since it is the command line that asks for it. */
__attribute__((format(printf, 1, 2)))
_Noreturn static void cannot_honour(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiexec: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    exit(STATUS_USAGE);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("mpiexec: out of memory\n", stderr);
        exit(1);
    }
    return p;
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

/* A value that must be there. */
static const char *required_value(const char *arg, const char *needs,
                                  const char *eq, int argc, char **argv, int *i)
{
    const char *v = option_value(eq, argc, argv, i);
    if (!v)
        usage_error("%s needs %s", arg, needs);
    return v;
}

/* ---- hosts: all ranks run here ------------------------------------------- */

/* Is `host` (a name or address, maybe with ":slots") this node? Its short
 * name is compared too, as host files often hold the short one. */
static bool is_this_host(const char *host)
{
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(host, ":"), host);
    if (strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0 ||
        strcmp(name, "::1") == 0 || strncmp(name, "localhost.", 10) == 0)
        return true;
    char me[256];
    if (gethostname(me, sizeof me) != 0)
        return false;
    me[sizeof me - 1] = '\0';
    if (strcmp(name, me) == 0)
        return true;
    size_t short_name = strcspn(name, "."), short_me = strcspn(me, ".");
    return short_name == short_me && strncmp(name, me, short_me) == 0;
}

_Noreturn static void other_host(const char *option, const char *value,
                                 const char *host)
{
    cannot_honour("%s %s names host '%s': mpiexec runs every rank on this node; "
                  "start jobs across nodes with a PMIx launcher (srun --mpi=pmix, "
                  "prterun; docs/mpiexec.md)", option, value, host);
}

/* -host a,b:2,... : every host must be this node. */
static void check_host_list(const char *option, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        exit(1);
    for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save))
        if (!is_this_host(h))
            other_host(option, list, h);
    free(copy);
}

/* A host file: lines `host`, `host:n`, `host slots=n ...`, `# comments`. */
static void check_host_file(const char *option, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f)
        cannot_honour("%s %s: cannot read it: %s", option, file, strerror(errno));
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = '\0';
        char *save = NULL;
        char *host = strtok_r(line, " \t\r", &save);
        if (host && !is_this_host(host)) {
            fclose(f);
            other_host(option, file, host);
        }
    }
    fclose(f);
}

static void note_ignored(const char *option, const char *value, const char *why)
{
    fprintf(stderr, "mpiexec: note: %s%s%s %s; ignored\n", option,
            value ? " " : "", value ? value : "", why);
}

/* ---- the command line ------------------------------------------------------ */

static void add_env(env_setting **list, size_t *n, const char *name, const char *value)
{
    env_setting *grown = realloc(*list, (*n + 1) * sizeof **list);
    if (!grown) {
        fputs("mpiexec: out of memory\n", stderr);
        exit(1);
    }
    *list = grown;
    (*list)[(*n)++] = (env_setting){name, value};
}

static void check_env_name(const char *option, const char *name)
{
    if (!name[0] || strchr(name, '='))
        usage_error("%s needs a variable name, not '%s'", option, name);
}

/* Options that act on the whole job (and are set at once), or on the
 * section being read (`s`). Returns false for an unknown option. */
static bool parse_option(options *o, section *s, const char **wdir, int argc,
                         char **argv, int *i)
{
    const char *arg = argv[*i];
    /* "-name", "--name", "-name=value": one spelling to compare. */
    char name[32];
    const char *name_start = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name_start, '=');
    size_t len = eq ? (size_t)(eq - name_start) : strlen(name_start);
    if (len == 0 || len >= sizeof name)
        return false;
    memcpy(name, name_start, len);
    name[len] = '\0';
#define IS(text) (strcmp(name, text) == 0)
    if (IS("n") || IS("np")) {
        s->nranks = parse_count("-n", option_value(eq, argc, argv, i), 1,
                                MYR_MAX_RANKS, "a positive number of ranks");
    } else if (IS("workers")) {
        o->workers = parse_count("-workers", option_value(eq, argc, argv, i), 1,
                                 MAX_WORKERS, "a positive number of worker threads");
    } else if (IS("nfg")) {
        o->nfg = parse_count("-nfg", option_value(eq, argc, argv, i), 1,
                             MYR_MAX_RANKS, "a positive number of ranks per OS process");
    } else if (IS("l") || IS("tag-output")) {
        if (eq)
            usage_error("%s takes no value", arg);
        o->tag_output = true;
    } else if (IS("v") || IS("verbose")) {
        if (eq)
            usage_error("%s takes no value", arg);
        o->verbose = true;
    } else if (IS("privatize")) {
        o->privatize = option_value(eq, argc, argv, i);
        if (!o->privatize || (strcmp(o->privatize, "auto") != 0 &&
                              strcmp(o->privatize, "always") != 0 &&
                              strcmp(o->privatize, "never") != 0))
            usage_error("-privatize needs auto, always or never%s%s%s",
                        o->privatize ? ", not '" : "",
                        o->privatize ? o->privatize : "",
                        o->privatize ? "'" : "");
    } else if (IS("timeout")) {
        o->timeout = parse_count("-timeout", option_value(eq, argc, argv, i), 0,
                                 MAX_TIMEOUT_SECONDS, "a number of seconds (0: no limit)");
        o->timeout_given = true;
    } else if (IS("gdb")) {
        if (eq)
            usage_error("%s takes no value", arg);
        o->gdb = true;
    } else if (IS("wdir") || IS("wd") || IS("gwdir")) {
        /* MPICH's -wdir is per program, Open MPI's per job: here it holds
         * for this program and the ones after it. */
        const char *dir = required_value(arg, "a directory", eq, argc, argv, i);
        struct stat st;
        if (stat(dir, &st) != 0)
            cannot_honour("%s %s: %s", arg, dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            cannot_honour("%s %s: %s", arg, dir, strerror(ENOTDIR));
        *wdir = s->wdir = dir;
    } else if (IS("x")) {
        const char *v = required_value(arg, "VAR or VAR=VALUE", eq, argc, argv, i);
        const char *val = strchr(v, '=');
        if (val) {
            char *var = strndup(v, (size_t)(val - v));
            if (!var)
                exit(1);
            check_env_name(arg, var);
            if (setenv(var, val + 1, 1) != 0)
                usage_error("%s %s: cannot set it", arg, v);
            free(var);
        } else {
            check_env_name(arg, v);  /* passed on like every variable */
        }
    } else if (IS("genv") || IS("env")) {
        const char *var = required_value(arg, "VAR VALUE", eq, argc, argv, i);
        const char *val = option_value(NULL, argc, argv, i);
        if (!val)
            usage_error("%s needs VAR VALUE", arg);
        check_env_name(arg, var);
        if (IS("genv")) {
            if (setenv(var, val, 1) != 0)
                usage_error("%s %s: cannot set it", arg, var);
        } else {
            add_env(&s->env, &s->nenv, var, val);
        }
    } else if (IS("genvlist") || IS("envlist")) {
        required_value(arg, "a list of variables", eq, argc, argv, i);
    } else if (IS("genvall") || IS("envall")) {
        if (eq)
            usage_error("%s takes no value", arg);
    } else if (IS("oversubscribe") || IS("allow-run-as-root")) {
        if (eq)
            usage_error("%s takes no value", arg);
        note_ignored(arg, NULL, "means nothing for one OS process");
    } else if (IS("bind-to") || IS("map-by")) {
        const char *v = required_value(arg, "a value", eq, argc, argv, i);
        note_ignored(arg, v, "means nothing for ranks that are threads of one "
                     "OS process (the workers are bound by MYR_BIND)");
    } else if (IS("ppn")) {
        const char *v = option_value(eq, argc, argv, i);
        parse_count(arg, v, 1, MYR_MAX_RANKS, "a positive number of ranks per node");
        note_ignored(arg, v, "means nothing on one node");
    } else if (IS("host") || IS("hosts") || IS("H")) {
        const char *v = required_value(arg, "a list of hosts", eq, argc, argv, i);
        check_host_list(arg, v);
        note_ignored(arg, v, "names only this node, where every rank runs anyway");
    } else if (IS("hostfile") || IS("machinefile") || IS("f")) {
        const char *v = required_value(arg, "a file", eq, argc, argv, i);
        check_host_file(arg, v);
        note_ignored(arg, v, "names only this node, where every rank runs anyway");
    } else if (IS("h") || IS("help")) {
        fputs(usage_text, stdout);
        exit(0);
    } else if (IS("version")) {
        printf("mpiexec (Myriad) %s\n", MYR_VERSION);
        exit(0);
    } else {
        return false;
    }
#undef IS
    return true;
}

static void parse_options(int argc, char **argv, options *o)
{
    *o = (options){0};
    /* At most one section per argument. */
    o->sections = xcalloc((size_t)argc, sizeof *o->sections);
    const char *wdir = NULL;
    int i = 1;
    for (;;) {
        section *s = &o->sections[o->nsections++];
        *s = (section){.nranks = 1, .wdir = wdir};
        for (; i < argc; i++) {
            const char *arg = argv[i];
            if (arg[0] != '-' || arg[1] == '\0')
                break;
            if (strcmp(arg, "--") == 0) {
                i++;
                break;
            }
            if (!parse_option(o, s, &wdir, argc, argv, &i))
                usage_error("unknown option '%s'", arg);
        }
        if (i >= argc || strcmp(argv[i], ":") == 0) {
            if (o->nsections > 1)
                usage_error("no program after ':' (MPMD: -n N prog args : -n M prog2 args)");
            fputs("mpiexec: no program to run\n", stderr);
            fputs(usage_text, stderr);
            exit(STATUS_USAGE);
        }
        s->program = argv + i;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        o->nranks += s->nranks;
        if (i >= argc)
            break;
        argv[i++] = NULL;  /* ends this program's arguments */
    }
    if (o->nranks > MYR_MAX_RANKS)
        cannot_honour("the job would have %ld ranks; at most %ld", o->nranks,
                      MYR_MAX_RANKS);

    if (o->nfg >= o->nranks)
        o->nfg = 0;  /* every rank in one OS process, as without -nfg */
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

/* ---- what the program is ---------------------------------------------------- */

#if defined(__x86_64__)
#define MACHINE EM_X86_64
#elif defined(__aarch64__)
#define MACHINE EM_AARCH64
#else
#error "mpiexec.c knows x86_64 and aarch64"
#endif

/* The file execvp would run for `name` (run in `wdir` if not NULL), or
 * NULL when there is none. */
static char *resolve_program(const char *name, const char *wdir)
{
    char *path = NULL;
    if (strchr(name, '/')) {
        if (name[0] == '/' || !wdir)
            return strdup(name);
        if (asprintf(&path, "%s/%s", wdir, name) < 0)
            return NULL;
        return path;
    }
    const char *dirs = getenv("PATH");
    if (!dirs)
        dirs = "/bin:/usr/bin";  /* execvp's default */
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        /* An empty entry is the current directory. */
        if (asprintf(&path, "%.*s%s%s", (int)len, dirs, len ? "/" : "", name) < 0)
            return NULL;
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return path;
        free(path);
        path = NULL;
        dirs += len + (dirs[len] == ':');
    }
    return NULL;
}

/* Does the symbol table `sh` hold a symbol called `name`? */
static bool has_symbol(const unsigned char *map, size_t size, const ElfW(Ehdr) *eh,
                       const ElfW(Shdr) *sh, const char *name)
{
    if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(ElfW(Sym)))
        return false;
    const ElfW(Shdr) *strtab = &((const ElfW(Shdr) *)(map + eh->e_shoff))[sh->sh_link];
    if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
        strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
        return false;
    const ElfW(Sym) *sym = (const ElfW(Sym) *)(map + sh->sh_offset);
    const char *strings = (const char *)map + strtab->sh_offset;
    size_t nlen = strlen(name);
    for (size_t k = 0; k < sh->sh_size / sizeof *sym; k++) {
        size_t at = sym[k].st_name;
        if (at < strtab->sh_size && strtab->sh_size - at > nlen &&
            memcmp(strings + at, name, nlen + 1) == 0)
            return true;
    }
    return false;
}

/* What the program at `path` is. A Myriad MPI program is one whose main
 * goes through Myriad's launcher: mpicc links the stub of
 * tools/program_main.c, which calls myr_launch_main in libmyriad, so the
 * program's dynamic symbol table names myr_launch_main (undefined: it is
 * libmyriad's), or its full symbol table does (linked statically). That
 * holds for every way of building with Myriad (mpicc, mpicxx, CMake's
 * FindMPI through the wrappers) and, unlike a DT_NEEDED of libmyriad.so,
 * not for a program of the ULT API, which keeps its own main. A program
 * that finds its place in a job itself (myr_net_place_init: the network
 * engine's test programs) counts as one too, so that -nfg starts it. A script
 * (#!) or any other file that is not an ELF program is not a Myriad
 * program; neither is an ELF program of this machine without that symbol.
 * An ELF file of another machine cannot be run here but through an
 * emulator (qemu-user in cross builds runs `qemu prog`): mpiexec cannot
 * tell, and runs it once as it always did. */
static program_kind classify_program(const char *path, const char **what)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return KIND_UNKNOWN;  /* exec says what is wrong */
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *map =
        size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (map == MAP_FAILED)
        return KIND_UNKNOWN;
    program_kind kind = KIND_OTHER;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map;
    *what = "not an ELF program";
    if (size >= 2 && map[0] == '#' && map[1] == '!') {
        *what = "a script";
    } else if (size < sizeof *eh || memcmp(map, ELFMAG, SELFMAG) != 0) {
        /* not ELF: execvp hands it to the shell */
    } else if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != MACHINE) {
        kind = KIND_UNKNOWN;
    } else if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
               eh->e_shoff > size ||
               (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > size - eh->e_shoff) {
        kind = KIND_UNKNOWN;  /* no section headers to look in */
    } else {
        *what = "not built with Myriad's mpicc";
        const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum && kind == KIND_OTHER; i++)
            if ((sh[i].sh_type == SHT_DYNSYM || sh[i].sh_type == SHT_SYMTAB) &&
                (has_symbol(map, size, eh, &sh[i], "myr_launch_main") ||
                 has_symbol(map, size, eh, &sh[i], "myr_net_place_init")))
                kind = KIND_MYRIAD;
    }
    if (map)
        munmap((void *)map, size);
    return kind;
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
    argv[3] = myr_gdb_script();
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

/* ---- MPMD: one OS process for every program --------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

/* Append `<length>:<bytes>`: arguments may hold any byte but NUL. */
static void add_field(text *t, const char *field)
{
    size_t flen = strlen(field);
    char head[24];
    int hlen = snprintf(head, sizeof head, "%zu:", flen);
    size_t need = t->len + (size_t)hlen + flen + 1;
    if (need > t->cap) {
        t->cap = need * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) {
            fputs("mpiexec: out of memory\n", stderr);
            exit(1);
        }
    }
    memcpy(t->s + t->len, head, (size_t)hlen);
    memcpy(t->s + t->len + hlen, field, flen + 1);
    t->len += (size_t)hlen + flen;
}

static void add_number_field(text *t, long v)
{
    char n[24];
    snprintf(n, sizeof n, "%ld", v);
    add_field(t, n);
}

static bool same_env(const section *a, const section *b)
{
    if (a->nenv != b->nenv)
        return false;
    for (size_t k = 0; k < a->nenv; k++)
        if (strcmp(a->env[k].name, b->env[k].name) != 0 ||
            strcmp(a->env[k].value, b->env[k].value) != 0)
            return false;
    return true;
}

static bool same_dir(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* MYR_MPMD (format in launch/mpmd.h): the rank counts of all programs, and
 * the file and argv of every program after the first, which the first
 * one's runtime loads. Their ranks share the process's directory and
 * environment, so those must agree. */
static void describe_mpmd(const options *o)
{
    const section *first = &o->sections[0];
    text t = {0};
    add_number_field(&t, (long)o->nsections);
    add_number_field(&t, first->nranks);
    for (size_t k = 1; k < o->nsections; k++) {
        const section *s = &o->sections[k];
        if (!same_dir(s->wdir, first->wdir))
            cannot_honour("'%s' and '%s' would run in different directories "
                          "(-wdir), but Myriad runs the programs of an MPMD job "
                          "in one OS process, which has one", first->program[0],
                          s->program[0]);
        if (!same_env(s, first))
            cannot_honour("'%s' and '%s' would get different -env settings, "
                          "but Myriad runs the programs of an MPMD job in one OS "
                          "process, which has one environment: use -genv",
                          first->program[0], s->program[0]);
        if (!s->path) {
            fprintf(stderr, "mpiexec: cannot run '%s': %s\n", s->program[0],
                    strerror(ENOENT));
            exit(STATUS_NOT_FOUND);
        }
        /* The runtime opens it after mpiexec went to -wdir. */
        char *full = realpath(s->path, NULL);
        if (!full) {
            fprintf(stderr, "mpiexec: cannot run '%s': %s\n", s->program[0],
                    strerror(errno));
            exit(errno == ENOENT || errno == ENOTDIR ? STATUS_NOT_FOUND
                                                     : STATUS_CANNOT_RUN);
        }
        add_number_field(&t, s->nranks);
        add_field(&t, full);
        free(full);
        long argc = 0;
        while (s->program[argc])
            argc++;
        add_number_field(&t, argc);
        for (long a = 0; a < argc; a++)
            add_field(&t, s->program[a]);
    }
    set_env_text(MYR_ENV_MPMD, t.s);
    free(t.s);
}

/* ---- programs not built with Myriad: one process per rank ------------ */

/* One output stream of a rank under -l, cut into lines. */
typedef struct tagged_stream {
    int fd;          /* read end, or -1 once closed */
    int to;          /* 1 or 2 */
    int rank;
    char *buf;       /* the unfinished line */
    size_t len, cap;
} tagged_stream;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;  /* nowhere to write to: the output is lost, as the
                      * process's own would be */
        p += w;
        n -= (size_t)w;
    }
}

/* "[rank] line\n" in one write, so lines of different ranks never mix. */
static void emit_line(const tagged_stream *ts, const char *line, size_t n)
{
    char prefix[24];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", ts->rank);
    char *out = malloc((size_t)plen + n + 1);
    if (!out)
        return;
    memcpy(out, prefix, (size_t)plen);
    memcpy(out + plen, line, n);
    out[(size_t)plen + n] = '\n';
    write_all(ts->to, out, (size_t)plen + n + 1);
    free(out);
}

/* Read what is there; false at end of file. */
static bool pump_stream(tagged_stream *ts)
{
    char chunk[4096];
    ssize_t n = read(ts->fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        if (ts->len)  /* an unfinished last line still gets its line */
            emit_line(ts, ts->buf, ts->len);
        ts->len = 0;
        close(ts->fd);
        ts->fd = -1;
        return false;
    }
    if (ts->len + (size_t)n > ts->cap) {
        size_t cap = (ts->len + (size_t)n) * 2;
        char *grown = realloc(ts->buf, cap);
        if (!grown) {
            fputs("mpiexec: out of memory\n", stderr);
            exit(1);
        }
        ts->buf = grown;
        ts->cap = cap;
    }
    memcpy(ts->buf + ts->len, chunk, (size_t)n);
    ts->len += (size_t)n;
    size_t start = 0;
    for (size_t k = 0; k < ts->len; k++) {
        if (ts->buf[k] == '\n') {
            emit_line(ts, ts->buf + start, k - start);
            start = k + 1;
        }
    }
    memmove(ts->buf, ts->buf + start, ts->len - start);
    ts->len -= start;
    return true;
}

static void set_env_number(const char *name, long value)
{
    char v[24];
    snprintf(v, sizeof v, "%ld", value);
    setenv(name, v, 1);
}

/* In the child: the rank's directory, environment and streams, then the
 * program. */
_Noreturn static void start_rank_process(const section *s, long rank, long size,
                                         long appnum, const int out[2],
                                         const int err[2])
{
    if (s->wdir && chdir(s->wdir) != 0) {
        fprintf(stderr, "mpiexec: -wdir %s: %s\n", s->wdir, strerror(errno));
        _exit(STATUS_CANNOT_RUN);
    }
    for (size_t k = 0; k < s->nenv; k++)
        setenv(s->env[k].name, s->env[k].value, 1);
    /* What MPICH's (PMI) and Open MPI's launchers tell each process; the
     * node is one, so local ranks are ranks. */
    set_env_number("PMI_RANK", rank);
    set_env_number("PMI_SIZE", size);
    set_env_number("PMI_APPNUM", appnum);
    set_env_number("MPI_LOCALRANKID", rank);
    set_env_number("MPI_LOCALNRANKS", size);
    set_env_number("OMPI_COMM_WORLD_RANK", rank);
    set_env_number("OMPI_COMM_WORLD_SIZE", size);
    set_env_number("OMPI_COMM_WORLD_LOCAL_RANK", rank);
    set_env_number("OMPI_COMM_WORLD_LOCAL_SIZE", size);
    set_env_number("OMPI_COMM_WORLD_NODE_RANK", rank);
    set_env_number("OMPI_APP_CTX_NUM_PROCS", s->nranks);
    if (rank != 0) {  /* stdin goes to rank 0, as other MPIs do */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != 0) {
            dup2(null, 0);
            close(null);
        }
    }
    if (out[1] >= 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
    }
    exec_program(s->program);
}

typedef struct rank_process {
    pid_t pid;
    int status;
    bool ended;
} rank_process;

static void signal_all(const rank_process *procs, long n, int sig)
{
    for (long r = 0; r < n; r++)
        if (!procs[r].ended)
            kill(procs[r].pid, sig);
}

/* Run every rank as a process of its own; the job's status is that of the
 * lowest rank that failed (as the runtime reports it for Myriad jobs), or
 * 124 when the time limit ends it. */
static int run_separately(const options *o)
{
    long n = o->nranks;
    rank_process *procs = xcalloc((size_t)n, sizeof *procs);
    tagged_stream *streams = o->tag_output ? xcalloc((size_t)n * 2, sizeof *streams) : NULL;

    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        sigaddset(&set, forwarded_signals[i]);
    signal(SIGCHLD, SIG_DFL);  /* not SIG_IGN, which would reap for us */
    /* Blocked before the first fork, so no end and no signal is missed. */
    sigprocmask(SIG_BLOCK, &set, &old);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        perror("mpiexec: signalfd");
        return 1;
    }

    double start = now_seconds();
    long rank = 0, running = 0;
    for (size_t k = 0; k < o->nsections; k++) {
        const section *s = &o->sections[k];
        for (long i = 0; i < s->nranks; i++, rank++) {
            int out[2] = {-1, -1}, err[2] = {-1, -1};
            if (streams && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
                perror("mpiexec: pipe");
                signal_all(procs, rank, SIGKILL);
                return 1;
            }
            pid_t pid = fork();
            if (pid < 0) {
                perror("mpiexec: fork");
                signal_all(procs, rank, SIGKILL);
                return 1;
            }
            if (pid == 0) {
                close(sfd);
                sigprocmask(SIG_SETMASK, &old, NULL);
                start_rank_process(s, rank, n, (long)k, out, err);
            }
            procs[rank].pid = pid;
            running++;
            if (streams) {
                close(out[1]);
                close(err[1]);
                streams[2 * rank] = (tagged_stream){.fd = out[0], .to = 1, .rank = (int)rank};
                streams[2 * rank + 1] = (tagged_stream){.fd = err[0], .to = 2, .rank = (int)rank};
            }
        }
    }

    struct pollfd *fds = xcalloc((size_t)n * 2 + 1, sizeof *fds);
    long *which = xcalloc((size_t)n * 2 + 1, sizeof *which);
    int phase = 0;  /* 0: running, 1: SIGTERM sent, 2: SIGKILL sent */
    double deadline = o->timeout > 0 ? start + (double)o->timeout : 0;
    for (;;) {
        nfds_t nfds = 0;
        fds[nfds++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (long k = 0; streams && k < 2 * n; k++)
            if (streams[k].fd >= 0) {
                which[nfds] = k;
                fds[nfds++] = (struct pollfd){.fd = streams[k].fd, .events = POLLIN};
            }
        /* Once every rank has ended, only what is already in the pipes is
         * read: a background process of a rank may keep them open. */
        if (running == 0 && nfds == 1)
            break;
        int wait_ms = -1;
        if (running == 0)
            wait_ms = 0;
        else if (deadline > 0) {
            double left = deadline - now_seconds();
            wait_ms = left > 0 ? (int)(left * 1000) + 1 : 0;
        }
        int ready = poll(fds, nfds, wait_ms);
        if (ready < 0 && errno != EINTR) {
            perror("mpiexec: poll");
            signal_all(procs, n, SIGKILL);
            return 1;
        }
        if (ready == 0 && running == 0)
            break;
        if (running > 0 && deadline > 0 && now_seconds() >= deadline) {
            if (phase == 0)
                fprintf(stderr, "mpiexec: job timed out after %ld s\n", o->timeout);
            signal_all(procs, n, phase == 0 ? SIGTERM : SIGKILL);
            phase = phase < 2 ? phase + 1 : 2;
            deadline = now_seconds() + KILL_GRACE_SECONDS;
        }
        for (nfds_t f = 1; ready > 0 && f < nfds; f++)
            if (fds[f].revents)
                pump_stream(&streams[which[f]]);
        struct signalfd_siginfo info;
        while (read(sfd, &info, sizeof info) == sizeof info)
            if (info.ssi_signo != SIGCHLD)
                signal_all(procs, n, (int)info.ssi_signo);
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            for (long r = 0; r < n; r++) {
                if (procs[r].pid == pid && !procs[r].ended) {
                    procs[r].ended = true;
                    procs[r].status = status;
                    running--;
                }
            }
        }
    }
    for (long k = 0; streams && k < 2 * n; k++) {
        if (streams[k].fd >= 0) {
            if (streams[k].len)
                emit_line(&streams[k], streams[k].buf, streams[k].len);
            close(streams[k].fd);
        }
        free(streams[k].buf);
    }
    free(streams);
    free(fds);
    free(which);
    close(sfd);
    int job = phase > 0 ? STATUS_TIMEOUT : 0;
    for (long r = 0; r < n && job == 0; r++) {
        int st = procs[r].status;
        if (WIFSIGNALED(st)) {
            int sig = WTERMSIG(st);
            fprintf(stderr, "mpiexec: rank %ld was killed by signal %d (%s)\n", r,
                    sig, strsignal(sig));
            job = 128 + sig;
        } else if (WIFEXITED(st)) {
            job = WEXITSTATUS(st);
        }
    }
    free(procs);
    return job;
}

/* ---- several OS processes: myriad-launch ----------------------------- */

/* myriad-launch: beside an installed mpiexec (MYR_LAUNCHER_FROM_BIN is its
 * path relative to the bin directory), else the build tree's. NULL when
 * Myriad was built without PMIx. */
static const char *launcher_path(void)
{
#ifdef MYR_HAVE_LAUNCHER
    static char found[PATH_MAX];
    if (myr_tools_beside_bin(MYR_LAUNCHER_FROM_BIN, X_OK, found))
        return found;
    if (access(MYR_LAUNCHER_BUILD, X_OK) == 0)
        return MYR_LAUNCHER_BUILD;
#endif
    return NULL;
}

/* -nfg P < N: what one process cannot host is refused first, then
 * myriad-launch takes over (same process id: signals for mpiexec reach it). */
_Noreturn static void exec_launcher(const options *o)
{
    const section *s = &o->sections[0];
    if (o->nsections > 1)
        cannot_honour("-nfg %ld with an MPMD command line: the programs of an MPMD "
                      "job run in one OS process for now; leave -nfg out", o->nfg);
    if (o->gdb)
        cannot_honour("-gdb runs one OS process under gdb; with -nfg %ld the job "
                      "would have %ld (attach gdb to each instead: docs/debugging.md)",
                      o->nfg, (o->nranks + o->nfg - 1) / o->nfg);
    if (!s->path) {
        fprintf(stderr, "mpiexec: cannot run '%s': %s\n", s->program[0], strerror(ENOENT));
        exit(STATUS_NOT_FOUND);
    }
    if (s->kind == KIND_OTHER)
        cannot_honour("-nfg %ld starts OS processes of %ld ranks of a Myriad program; "
                      "'%s' is %s (without -nfg, mpiexec runs it once per rank)",
                      o->nfg, o->nfg, s->program[0], s->what);
    const char *launcher = launcher_path();
    if (!launcher)
        cannot_honour("-nfg %ld with -n %ld needs several OS processes, and this "
                      "Myriad was built without PMIx (libpmix-dev), which starts "
                      "them; leave -nfg out to run every rank in one OS process",
                      o->nfg, o->nranks);
    size_t n = 0;
    while (s->program[n])
        n++;
    char **argv = calloc(n + 6, sizeof *argv);
    char nranks[24], nfg[24], timeout[24];
    if (!argv) {
        fputs("mpiexec: out of memory\n", stderr);
        exit(1);
    }
    snprintf(nranks, sizeof nranks, "%ld", o->nranks);
    snprintf(nfg, sizeof nfg, "%ld", o->nfg);
    snprintf(timeout, sizeof timeout, "%ld", o->timeout);
    argv[0] = "mpiexec";  /* what ps shows; the launcher says mpiexec: too */
    argv[1] = "--from-mpiexec";
    argv[2] = nranks;
    argv[3] = nfg;
    argv[4] = timeout;
    memcpy(argv + 5, s->program, (n + 1) * sizeof *argv);
    execv(launcher, argv);
    fprintf(stderr, "mpiexec: cannot run %s: %s\n", launcher, strerror(errno));
    exit(STATUS_CANNOT_RUN);
}

/* ---- the job ---------------------------------------------------------- */

/* What every program is, and whether the job can run as one. True: a
 * Myriad job (one OS process); false: one process per rank. */
static bool classify_job(options *o)
{
    const section *myriad = NULL, *other = NULL;
    for (size_t k = 0; k < o->nsections; k++) {
        section *s = &o->sections[k];
        s->path = resolve_program(s->program[0], s->wdir);
        s->kind = s->path ? classify_program(s->path, &s->what) : KIND_UNKNOWN;
        if (s->kind == KIND_MYRIAD && !myriad)
            myriad = s;
        if (s->kind == KIND_OTHER && !other)
            other = s;
    }
    if (myriad && other)
        cannot_honour("'%s' is an MPI program built with Myriad and '%s' is "
                      "not (%s): Myriad runs the one with all ranks in one OS "
                      "process and the other as one process per rank, and "
                      "cannot make them one job", myriad->program[0],
                      other->program[0], other->what);
    return !other;
}

/* File scope: what it points to stays reachable for leak checkers. */
static options job;

int main(int argc, char **argv)
{
    parse_options(argc, argv, &job);
    bool myriad_job = classify_job(&job);
    if (job.nfg && !myriad_job)
        exec_launcher(&job);  /* refuses it with the reason */
    if (!myriad_job) {
        if (job.gdb)
            cannot_honour("-gdb runs a job of Myriad programs under gdb; '%s' is %s",
                          job.sections[0].program[0],
                          job.sections[0].what ? job.sections[0].what : "not one");
        return run_separately(&job);
    }

    section *first = &job.sections[0];
    if (job.nsections > 1)
        describe_mpmd(&job);
    else  /* not one left over from an enclosing job */
        unsetenv(myr_env_table[MYR_ENV_MPMD].name);
    if (first->wdir && chdir(first->wdir) != 0)
        cannot_honour("-wdir %s: %s", first->wdir, strerror(errno));
    for (size_t k = 0; k < first->nenv; k++)
        if (setenv(first->env[k].name, first->env[k].value, 1) != 0)
            cannot_honour("-env %s: cannot set it", first->env[k].name);
    set_env(MYR_ENV_NRANKS, job.nranks);
    if (job.workers)
        set_env(MYR_ENV_WORKERS, job.workers);
    if (job.tag_output)
        set_env(MYR_ENV_TAG_OUTPUT, 1);
    if (job.verbose)
        set_env(MYR_ENV_VERBOSE, 1);
    if (job.privatize)
        set_env_text(MYR_ENV_PRIVATIZE, job.privatize);
    if (job.nfg) {
        if (job.timeout > 0)
            set_env(MYR_ENV_MPIEXEC_TIMEOUT, job.timeout);
        exec_launcher(&job);
    }
    if (job.gdb) {
        if (job.timeout > 0)
            usage_error("-gdb and a time limit (-timeout, MPIEXEC_TIMEOUT) do not go together");
        exec_gdb(first->program);
    }
    if (job.timeout > 0) {
        /* The runtime keeps the limit itself, with a report of the ranks;
         * mpiexec ends the job only if that does not happen. */
        set_env(MYR_ENV_MPIEXEC_TIMEOUT, job.timeout);
        return run_with_timeout(first->program, job.timeout);
    }
    exec_program(first->program);
}
