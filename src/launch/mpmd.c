/* mpmd.c — the other programs of an MPMD job, loaded into the process
 * (see mpmd.h). */
#include "launch/mpmd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/env.h"
#include "launch/copy.h"
#include "mpi/mpi_impl.h"

/* Open files left for the program once the copies hold theirs. */
#define FILES_MARGIN 1024

typedef struct mpmd_app {
    long first, nranks;   /* its ranks of MPI_COMM_WORLD */
    char *path;           /* its file */
    int argc;
    char **argv;
    myr_image image;
    bool per_rank;        /* one copy per rank (its own globals) */
    uint64_t main_vaddr, dso_handle_vaddr;   /* in the image; 0: none */
} mpmd_app;

/* apps[0] is the program itself; only its rank count is used. */
static mpmd_app *apps;
static int napps;
static int *appnums;      /* MPI_APPNUM per world rank */
static long mappings;     /* the loaded copies take */

/* The program reads these through its GOT; libmyriad sees libc's. */
extern int optind, opterr, optopt;
extern char *optarg;

/* ---- MYR_MPMD ---------------------------------------------------------- */

/* The next `<length>:<bytes>` field of *cursor, as a new string; NULL when
 * there is none or it is malformed. */
static char *next_field(const char **cursor)
{
    const char *c = *cursor;
    char *end;
    errno = 0;
    unsigned long len = strtoul(c, &end, 10);
    if (errno || end == c || *end != ':' || strnlen(end + 1, len) < len)
        return NULL;
    *cursor = end + 1 + len;
    return strndup(end + 1, len);
}

static bool next_number(const char **cursor, long min, long max, long *out)
{
    char *f = next_field(cursor);
    bool ok = f && myr_env_parse_long(f, out) == 0 && *out >= min && *out <= max;
    free(f);
    return ok;
}

static int parse_layout(const char *text, long nranks)
{
    const char *c = text;
    long n;
    if (!next_number(&c, 2, nranks, &n))
        return -1;
    napps = (int)n;
    apps = calloc((size_t)napps, sizeof *apps);
    if (!apps || !next_number(&c, 1, nranks, &apps[0].nranks))
        return -1;
    long next = apps[0].nranks;
    for (int k = 1; k < napps; k++) {
        mpmd_app *a = &apps[k];
        long argc;
        a->first = next;
        if (!next_number(&c, 1, nranks, &a->nranks) ||
            !(a->path = next_field(&c)) || a->path[0] != '/' ||
            !next_number(&c, 1, 1L << 20, &argc))
            return -1;
        a->argc = (int)argc;
        a->argv = calloc((size_t)argc + 1, sizeof *a->argv);
        if (!a->argv)
            return -1;
        for (long i = 0; i < argc; i++)
            if (!(a->argv[i] = next_field(&c)))
                return -1;
        next += a->nranks;
        if (next > nranks)
            return -1;
    }
    return *c == '\0' && next == nranks ? 0 : -1;
}

int myr_mpmd_plan(long nranks, long *own)
{
    *own = nranks;
    const char *text = myr_env_get(MYR_ENV_MPMD);
    if (!text)
        return 0;
    if (parse_layout(text, nranks) != 0) {
        fprintf(stderr, "myriad: MYR_MPMD does not describe a job of %ld "
                "ranks as mpiexec writes it (it is mpiexec's to set, for "
                "`mpiexec -n 2 ./a : -n 3 ./b`)\n", nranks);
        return -1;
    }
    *own = apps[0].nranks;
    return 0;
}

/* ---- loading ----------------------------------------------------------- */

/* The value of the symbol `name` defined in the image (its full symbol
 * table, then its dynamic one), or 0; *present: named at all (defined or
 * not). */
static uint64_t find_symbol(const myr_image *img, const char *name, bool *present)
{
    const unsigned char *map = img->map;
    size_t size = img->file_size;
    const ElfW(Ehdr) *eh = img->map;
    *present = false;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff > size || (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > size - eh->e_shoff)
        return 0;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
    uint64_t value = 0;
    size_t nlen = strlen(name);
    for (int pass = 0; pass < 2 && !value; pass++) {
        for (int i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
                sh[i].sh_link >= eh->e_shnum || sh[i].sh_entsize != sizeof(ElfW(Sym)))
                continue;
            const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
            if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
                strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
                continue;
            const ElfW(Sym) *sym = (const ElfW(Sym) *)(map + sh[i].sh_offset);
            const char *strings = (const char *)map + strtab->sh_offset;
            for (size_t k = 1; k < sh[i].sh_size / sizeof *sym; k++) {
                size_t at = sym[k].st_name;
                if (at >= strtab->sh_size || strtab->sh_size - at <= nlen ||
                    memcmp(strings + at, name, nlen + 1) != 0)
                    continue;
                *present = true;
                if (sym[k].st_shndx != SHN_UNDEF && sym[k].st_value)
                    value = sym[k].st_value;
            }
        }
    }
    return value;
}

/* Which copies an app needs, as MYR_PRIVATIZE decides for the program
 * itself. */
static bool wants_copy_per_rank(const mpmd_app *a)
{
    const char *mode = myr_env_get(MYR_ENV_PRIVATIZE);
    if (mode && strcmp(mode, "never") == 0)
        return false;
    if (mode && strcmp(mode, "always") == 0)
        return a->nranks > 1;
    return a->nranks > 1 && a->image.globals > 0;
}

/* Inspect app `a`'s file: can it run in this process, and where is its
 * main. */
static int check_app(mpmd_app *a)
{
    char err[4200];
    if (myr_image_inspect(&a->image, a->path, err, sizeof err) != 0) {
        fprintf(stderr, "myriad: cannot run %s in this job (MPMD): %s\n",
                a->path, err);
        return -1;
    }
    bool present;
    find_symbol(&a->image, "myr_launch_main", &present);
    if (!present) {
        fprintf(stderr, "myriad: cannot run %s in this job (MPMD): it is not "
                "an MPI program built with Myriad's mpicc\n", a->path);
        return -1;
    }
    if (a->image.unloadable) {
        fprintf(stderr, "myriad: cannot load %s into the job's OS process "
                "(MPMD): %s%s%s%s; build it with Myriad's mpicc\n", a->path,
                a->image.unloadable, a->image.unloadable_detail[0] ? " (" : "",
                a->image.unloadable_detail, a->image.unloadable_detail[0] ? ")" : "");
        return -1;
    }
    a->main_vaddr = find_symbol(&a->image, "main", &present);
    if (!a->main_vaddr && present) {
        /* Named but not defined: a shared library of its own has it. */
        fprintf(stderr, "myriad: cannot run %s in this job (MPMD): its main "
                "is in a shared library; link main into the program (an "
                "object or a static library)\n", a->path);
        return -1;
    }
    if (!a->main_vaddr) {
        fprintf(stderr, "myriad: cannot run %s in this job (MPMD): its main "
                "cannot be found (no symbol table: was it stripped?)\n", a->path);
        return -1;
    }
    a->dso_handle_vaddr = find_symbol(&a->image, "__dso_handle", &present);
    a->per_rank = wants_copy_per_rank(a);
    return 0;
}

/* Each copy keeps its memfd open (glibc would hand back an object already
 * loaded from the same name): make room for `files` of them besides the
 * program's own copies and what the program may open. */
static int make_room_for_files(const myr_privatization *p, long files)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    rlim_t want = (rlim_t)(files + p->nranks + FILES_MARGIN);
    if (rl.rlim_cur >= want)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) {
        fprintf(stderr, "myriad: the MPMD job's programs keep %ld files open "
                "and the hard limit is %lu: raise it (ulimit -Hn) or run "
                "fewer ranks\n", files + p->nranks, (unsigned long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        fprintf(stderr, "myriad: cannot raise the open files limit to %lu: %s\n",
                (unsigned long)want, strerror(errno));
        return -1;
    }
    return 0;
}

/* Load one copy of app `a` for rank `rank` (and, when the app's ranks
 * share it, the ones after it); *bias is where it landed. */
static int load_copy(const mpmd_app *a, int file_fd, long rank, myr_rank_image *ri,
                     unsigned long *bias)
{
    char what[64 + 4096];
    snprintf(what, sizeof what, "%s for rank %ld (MPMD)", a->path, rank);
    myr_copy copy;
    if (myr_copy_load(&a->image, file_fd, what, ri, a->per_rank, a->argc, a->argv,
                      &copy) != 0)
        return -1;
    /* Its launcher must be ours: a program linked with another Myriad
     * build would bring a second runtime into the process. */
    void *its_launcher = dlsym(copy.handle, "myr_launch_main");
    if (its_launcher != (void *)myr_launch_main) {
        Dl_info theirs = {0}, ours = {0};
        if (its_launcher)
            dladdr(its_launcher, &theirs);
        dladdr((void *)myr_launch_main, &ours);
        fprintf(stderr, "myriad: cannot run %s in this job (MPMD): it uses "
                "another libmyriad (%s) than the job's first program (%s); "
                "build both with the same mpicc\n", a->path,
                theirs.dli_fname ? theirs.dli_fname : "none",
                ours.dli_fname ? ours.dli_fname : "?");
        return -1;
    }
    /* Debuggers and dladdr() name the object by l_name: the file's path
     * finds its symbols, "/proc/self/fd/N" would not outside us. */
    char *name = strdup(a->path);
    if (name)
        copy.map->l_name = name;
    ri->fd = copy.fd;
    *bias = copy.map->l_addr;
    mappings += a->image.mappings_per_copy;
    return 0;
}

static int load_app(myr_privatization *p, mpmd_app *a)
{
    int file_fd = open(a->path, O_RDONLY | O_CLOEXEC);
    if (file_fd < 0) {
        fprintf(stderr, "myriad: cannot open %s (MPMD): %s\n", a->path,
                strerror(errno));
        return -1;
    }
    unsigned long bias = 0;
    for (long r = a->first; r < a->first + a->nranks; r++) {
        myr_rank_image *ri = &p->ranks[r];
        if (r == a->first || a->per_rank) {
            if (load_copy(a, file_fd, r, ri, &bias) != 0)
                return -1;
        } else {
            ri->vars = p->ranks[a->first].vars;   /* the copy they share */
        }
        ri->main = (myr_program_main)(bias + a->main_vaddr);
        /* A copy shared by several ranks finishes at the process's exit,
         * not when its first rank ends. */
        ri->dso_handle = a->per_rank && a->dso_handle_vaddr
                             ? (void *)(bias + a->dso_handle_vaddr) : NULL;
    }
    /* The copies map their code from the file: the descriptor may go. */
    close(file_fd);
    return 0;
}

int myr_mpmd_load(myr_privatization *p, long nranks)
{
    if (napps == 0)
        return 0;
    long own = apps[0].nranks;
    /* p->ranks has room for every rank (myr_privatize_plan): growing it
     * here would move the images the program's ranks' getopt variables
     * live in, which their copies' GOT slots point at. */
    appnums = calloc((size_t)nranks, sizeof *appnums);
    if (!appnums) {
        fprintf(stderr, "myriad: out of memory for %ld ranks\n", nranks);
        return -1;
    }
    for (long r = own; r < nranks; r++)
        p->ranks[r] = (myr_rank_image){
            .vars = {&optind, &opterr, &optopt, &optarg},
            .own = {1, 1, '?', NULL},
            .getopt = MYR_GETOPT_STATE_INIT,
            .fd = -1};
    long files = 0;
    for (int k = 1; k < napps; k++) {
        if (check_app(&apps[k]) != 0)
            return -1;
        files += apps[k].per_rank ? apps[k].nranks : 1;
    }
    if (make_room_for_files(p, files) != 0)
        return -1;
    const char *v = myr_env_get(MYR_ENV_VERBOSE);
    bool verbose = v && strcmp(v, "0") != 0;
    for (int k = 1; k < napps; k++) {
        mpmd_app *a = &apps[k];
        if (load_app(p, a) != 0)
            return -1;
        for (long r = a->first; r < a->first + a->nranks; r++)
            appnums[r] = k;
        if (verbose)
            fprintf(stderr, "myriad: ranks %ld-%ld run %s (MPI_APPNUM %d), "
                    "globals %s\n", a->first, a->first + a->nranks - 1,
                    a->path, k, a->per_rank ? "private to each rank"
                                            : "shared by its ranks");
        myr_image_release(&a->image);
    }
    myr_attr_set_appnums(appnums);
    return 0;
}

long myr_mpmd_mappings(void)
{
    return mappings;
}

void myr_mpmd_args(long rank, int *argc, char ***argv)
{
    for (int k = 1; k < napps; k++) {
        if (rank >= apps[k].first && rank < apps[k].first + apps[k].nranks) {
            *argc = apps[k].argc;
            *argv = apps[k].argv;
            return;
        }
    }
}
