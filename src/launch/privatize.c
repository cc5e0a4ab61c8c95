/* privatize.c — private copies of the program, one per rank (see
 * privatize.h). */
#include "launch/privatize.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "arch/stack.h"
#include "base/env.h"
#include "core/core.h"
#include "launch/copy.h"
#include "launch/exit.h"


/* Mappings left for everything but the copies: libraries, heap arenas,
 * stack chunks, the guarded stacks' share (which shrinks to fit). */
#define MAPPINGS_MARGIN 2048
/* Open files left for the program once the copies hold theirs. */
#define FILES_MARGIN 1024

myr_privatization *myr_privatization_state;

/* The program reads these through its GOT; libmyriad sees libc's. */
extern int optind, opterr, optopt;
extern char *optarg;

static const myr_getopt_vars libc_vars = {&optind, &opterr, &optopt, &optarg};

static void describe_globals(const myr_image *img, char *out, size_t len)
{
    if (!img->symbols) {
        snprintf(out, len, "%zu bytes of writable data (no symbol table: "
                 "judged by section sizes)", img->globals_bytes);
        return;
    }
    int n = snprintf(out, len, "%zu writable global%s, %zu bytes:", img->globals,
                     img->globals == 1 ? "" : "s", img->globals_bytes);
    for (size_t i = 0; i < img->globals && i < MYR_IMAGE_NAMED_GLOBALS &&
                       n > 0 && (size_t)n < len; i++)
        n += snprintf(out + n, len - (size_t)n, " %s%s", img->global_names[i],
                      i + 1 < img->globals ? "," : "");
    if (img->globals > MYR_IMAGE_NAMED_GLOBALS && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, " ...");
}

/* Add one line to what the job is warned of (myr_privatize_warn). */
__attribute__((format(printf, 2, 3)))
static void add_warning(myr_privatization *p, const char *fmt, ...)
{
    size_t len = strlen(p->warning);
    if (len + 2 >= sizeof p->warning)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->warning + len, sizeof p->warning - len - 1, fmt, ap);
    va_end(ap);
    len = n < 0 ? len : strlen(p->warning);
    p->warning[len] = '\n';
    p->warning[len + 1] = '\0';
}

/* Up to four names of a list, then "...". */
static void name_some(char *out, size_t len, const char *const *names,
                      size_t shown, size_t total)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < shown && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", names[i]);
    if (total > shown && n < len)
        snprintf(out + n, len - n, ", ...");
}

/* Objects of libraries that the program reaches through COPY relocations
 * and that may change (environ after setenv, a library's own counter):
 * each copy of the program starts with a snapshot of rank 0's, and the
 * library's own code goes on with rank 0's. Say so. */
static void note_shared_copies(myr_privatization *p)
{
    const myr_image *img = &p->image;
    const char *names[4];
    size_t total = 0;
    for (int i = 0; i < img->ncopied; i++) {
        const myr_image_copied *c = &img->copied[i];
        if (c->constant || c->libc_var >= 0)
            continue;
        if (total < 4)
            names[total] = c->name;
        total++;
    }
    if (total == 0)
        return;
    char list[160];
    name_some(list, sizeof list, names, total < 4 ? total : 4, total);
    add_warning(p, "the program reads a library's %s directly (compiled "
                "without -fPIC): ranks other than 0 see a copy taken when "
                "they start, the library itself rank 0's", list);
}

/* Libraries installed with the system (and Myriad itself, with its network
 * engine): their state is the system's business, as in any threaded
 * program. */
static bool is_system_library(const char *path)
{
    const char *base = strrchr(path, '/');
    if (base && strncmp(base + 1, "libmyriad-net.so", 16) == 0)
        return true;
    static const char *const system_dirs[] = {"/lib/", "/lib64/", "/usr/lib/",
                                              "/usr/lib64/", "/lib32/", "/usr/lib32/"};
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++)
        if (strncmp(path, system_dirs[i], strlen(system_dirs[i])) == 0)
            return true;
    Dl_info self;
    return dladdr((void *)myr_privatize_plan, &self) && self.dli_fname &&
           strcmp(self.dli_fname, path) == 0;
}

/* The program's own shared libraries are loaded once per process, so their
 * writable globals are shared by all ranks, where each process of a
 * process-based MPI has its own: name them. */
static int note_library_globals(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    myr_privatization *p = arg;
    const char *path = info->dlpi_name;
    if (!path || path[0] != '/' || is_system_library(path))
        return 0;   /* the program itself (""), the vDSO, the system's */
    myr_image lib;
    char err[256];
    if (myr_image_inspect(&lib, path, err, sizeof err) != 0)
        return 0;
    if (lib.globals > 0) {
        char list[160];
        name_some(list, sizeof list, lib.global_names,
                  lib.globals < MYR_IMAGE_NAMED_GLOBALS ? lib.globals
                                                        : MYR_IMAGE_NAMED_GLOBALS,
                  lib.globals);
        const char *base = strrchr(path, '/') + 1;
        add_warning(p, "%s has %zu writable global%s (%s), one copy shared "
                    "by all ranks of this process: link its code into the "
                    "program (a static library) to give each rank its own",
                    base, lib.globals, lib.globals == 1 ? "" : "s",
                    lib.symbols ? list : "judged by section sizes");
    }
    myr_image_release(&lib);
    return 0;
}

void myr_privatize_warn(const myr_privatization *p)
{
    const char *line = p->warning;
    while (*line) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(stderr, "myriad: warning: %.*s\n", len, line);
        line += len + (end ? 1 : 0);
    }
}

/* The shared library that holds the program's main when the executable
 * does not (the program links main from a library of its own), else NULL. */
static const char *main_library(const myr_program *program)
{
    Dl_info m, exe;
    if (!dladdr((void *)program->main, &m) || !program->dso_handle ||
        !dladdr(program->dso_handle, &exe) || m.dli_fbase == exe.dli_fbase)
        return NULL;
    return m.dli_fname && m.dli_fname[0] ? m.dli_fname : "a shared library";
}

static int plan_mode(myr_privatization *p, const myr_program *program)
{
    const char *mode = myr_env_get(MYR_ENV_PRIVATIZE);
    if (!mode)
        mode = "auto";
    if (strcmp(mode, "never") == 0) {
        snprintf(p->reason, sizeof p->reason, "MYR_PRIVATIZE=never");
        return 0;
    }
    bool always = strcmp(mode, "always") == 0;
    if (!always && strcmp(mode, "auto") != 0) {
        fprintf(stderr, "myriad: MYR_PRIVATIZE=%s is not `auto`, `always` or "
                "`never`\n", mode);
        return -1;
    }
    /* Copies of the executable would not hold main: every rank runs the
     * library's one main, which reads the library's globals and the
     * program's (rank 0's). */
    const char *lib = main_library(program);
    if (lib && always && p->nranks > 1) {
        fprintf(stderr, "myriad: cannot give each rank its own copy of the "
                "program's globals (MYR_PRIVATIZE=always): its main is in %s, "
                "which is loaded once per process\n"
                "myriad: link main into the program (an object or a static "
                "library), or set MYR_PRIVATIZE=auto or never to run with "
                "globals shared by all ranks\n", lib);
        return -1;
    }
    if (lib) {
        const char *base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
        snprintf(p->reason, sizeof p->reason, "MYR_PRIVATIZE=%s: main is in "
                 "%s, loaded once", mode, base);
        add_warning(p, "the program's main is in %s, loaded once per process: "
                    "all ranks share its globals and the program's; link main "
                    "into the program (an object or a static library) to give "
                    "each rank its own", base);
        return 0;
    }

    char err[4200];
    if (myr_image_inspect(&p->image, "/proc/self/exe", err, sizeof err) != 0) {
        fprintf(stderr, "myriad: cannot privatize the program's globals: %s\n"
                "myriad: set MYR_PRIVATIZE=never to run with globals shared "
                "by all ranks\n", err);
        return -1;
    }
    p->inspected = true;
    const myr_image *img = &p->image;
    char globals[200];
    describe_globals(img, globals, sizeof globals);

    if (p->nranks > 1)
        dl_iterate_phdr(note_library_globals, p);

    if (!always && img->globals == 0) {
        snprintf(p->reason, sizeof p->reason, "MYR_PRIVATIZE=auto: the program "
                 "defines no writable globals");
        return 0;
    }
    if (img->unloadable && p->nranks <= 1) {
        /* Rank 0 runs the program itself: there is nothing to copy. */
        snprintf(p->reason, sizeof p->reason, "MYR_PRIVATIZE=%s: one rank, "
                 "which runs the program itself", mode);
        return 0;
    }
    if (img->unloadable) {
        fprintf(stderr, "myriad: cannot give each rank its own copy of the "
                "program's globals (%s): %s%s%s%s\n"
                "myriad: build it with mpicc (or -fPIC -pie), or set "
                "MYR_PRIVATIZE=never if its ranks may share globals\n",
                always ? "MYR_PRIVATIZE=always" : globals, img->unloadable,
                img->unloadable_detail[0] ? " (" : "", img->unloadable_detail,
                img->unloadable_detail[0] ? ")" : "");
        return -1;
    }
    p->private_globals = true;
    note_shared_copies(p);
    snprintf(p->reason, sizeof p->reason, "MYR_PRIVATIZE=%s: %s", mode,
             always ? "asked for" : globals);
    return 0;
}

/* Enough mappings and open files for the copies, or a message that says
 * what to raise. */
static int check_limits(myr_privatization *p)
{
    long copies = p->nranks - 1;
    if (copies <= 0)
        return 0;
    long per_copy = p->image.mappings_per_copy;
    long needed = copies * per_copy;
    long max = myr_stack_max_map_count();
    long used = myr_stack_mappings_in_use();
    if (needed + used + MAPPINGS_MARGIN > max) {
        long fit = (max - used - MAPPINGS_MARGIN) / per_copy + 1;
        long suggest = ((needed + max) / 65536 + 1) * 65536;
        fprintf(stderr,
                "myriad: %d ranks with private globals need about %ld memory "
                "mappings (%ld per copy of the program) and vm.max_map_count "
                "is %ld: at most %ld ranks fit\n"
                "myriad: raise it (sysctl -w vm.max_map_count=%ld), run fewer "
                "ranks per process, or set MYR_PRIVATIZE=never if the ranks "
                "may share globals\n",
                p->nranks, needed, per_copy, max, fit > 1 ? fit : 1, suggest);
        return -1;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)(copies + FILES_MARGIN)) {
        rlim_t want = (rlim_t)(copies + FILES_MARGIN);
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
            fprintf(stderr,
                    "myriad: %d ranks with private globals keep %ld files "
                    "open and the hard limit is %lu\n"
                    "myriad: raise it (ulimit -Hn), run fewer ranks per "
                    "process, or set MYR_PRIVATIZE=never if the ranks may "
                    "share globals\n",
                    p->nranks, copies, (unsigned long)rl.rlim_max);
            return -1;
        }
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            fprintf(stderr, "myriad: cannot raise the open files limit to "
                    "%lu: %s\n", (unsigned long)want, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int open_program(myr_privatization *p, const myr_program *program)
{
    p->exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    char path[4096];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    if (p->exe_fd < 0 || len <= 0) {
        fprintf(stderr, "myriad: cannot open the program (/proc/self/exe): "
                "%s\n", strerror(errno));
        return -1;
    }
    path[len] = '\0';
    p->exe_name = strdup(path);
    /* The stub's __dso_handle is the executable's (main may be elsewhere). */
    Dl_info info;
    if (!p->exe_name || !dladdr(program->dso_handle, &info) || !info.dli_fbase) {
        fprintf(stderr, "myriad: cannot find where the program is loaded\n");
        return -1;
    }
    /* A PIE's first segment is at vaddr 0, so its base is its bias. */
    p->base = (unsigned long)info.dli_fbase - (unsigned long)p->image.loads[0].vaddr;
    return 0;
}

int myr_privatize_plan(myr_privatization *p, const myr_program *program,
                       int nranks, int job_ranks, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->exe_fd = -1;
    p->nranks = nranks;
    p->argc = argc;
    p->argv = argv;
    if (plan_mode(p, program) != 0)
        return -1;
    if (!p->private_globals && p->inspected)
        myr_image_release(&p->image);
    if (p->private_globals &&
        (check_limits(p) != 0 || open_program(p, program) != 0))
        return -1;
    p->ranks = calloc((size_t)job_ranks, sizeof *p->ranks);
    if (!p->ranks) {
        fprintf(stderr, "myriad: out of memory for %d ranks\n", job_ranks);
        return -1;
    }
    for (int i = 0; i < job_ranks; i++)
        p->ranks[i] = (myr_rank_image){.main = program->main,
                                       .dso_handle = program->dso_handle,
                                       .vars = libc_vars,
                                       .own = {1, 1, '?', NULL},
                                       .getopt = MYR_GETOPT_STATE_INIT,
                                       .fd = -1};
    myr_privatization_state = p;
    return 0;
}

long myr_privatize_mappings(const myr_privatization *p)
{
    return p->private_globals ? (long)(p->nranks - 1) * p->image.mappings_per_copy : 0;
}

static int load_copy(myr_privatization *p, int rank)
{
    myr_rank_image *ri = &p->ranks[rank];
    char what[48];
    snprintf(what, sizeof what, "the program for rank %d", rank);
    myr_copy copy;
    if (myr_copy_load(&p->image, p->exe_fd, what, ri, true, p->argc, p->argv,
                      &copy) != 0)
        return -1;
    /* Debuggers and dladdr() name the object by l_name: the executable's
     * path finds its symbols, "/proc/self/fd/N" would not outside us. */
    char *exe_name = strdup(p->exe_name);
    if (exe_name)
        copy.map->l_name = exe_name;
    unsigned long bias = copy.map->l_addr;
    ri->fd = copy.fd;
    ri->main = (myr_program_main)((unsigned long)ri->main - p->base + bias);
    if (ri->dso_handle)
        ri->dso_handle = (char *)ri->dso_handle - p->base + bias;
    return 0;
}

int myr_privatize_load(myr_privatization *p, int rank)
{
    if (!p->private_globals)
        return 0;
    if (rank == 0)  /* the program itself, with getopt's variables its own */
        return myr_copy_adopt_program(&p->image, &p->ranks[0], p->base);
    return load_copy(p, rank);
}

myr_rank_image *myr_privatize_current(void)
{
    myr_privatization *p = myr_privatization_state;
    myr_rank *r = p ? myr_launch_rank_self() : NULL;
    /* By the rank's place in this process, not its world rank: a process
     * of a multi-process job holds only its own ranks' images. */
    return r ? &p->ranks[r - myr_the_job.ranks] : NULL;
}
