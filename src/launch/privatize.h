/*
 * privatize.h — one private copy of the program's globals per rank.
 *
 * Ranks are ULTs of one process, so a program's global and static
 * variables would be shared by all of them. In the private mode every rank
 * but rank 0 runs the program's main from its own copy of the program
 * (copy.h: loaded with dlopen, so glibc relocates it and tells debuggers),
 * with its own data, bss and GOT; rank 0 runs the program itself. A copy
 * costs about its writable data. Copies stay loaded until the process
 * ends.
 *
 * The mode is MYR_PRIVATIZE=auto|always|never (mpiexec -privatize); auto
 * privatizes when the program defines writable globals of its own.
 */
#ifndef MYR_LAUNCH_PRIVATIZE_H
#define MYR_LAUNCH_PRIVATIZE_H

#include <dlfcn.h>    /* MYR_LIBC_NEXT */
#include <stdbool.h>
#include <stdlib.h>   /* struct drand48_data */

#include "core/core.h"
#include "launch/getopt_r.h"
#include "launch/image.h"
#include "launch/launch.h"

/* getopt's four variables, as the program of one image reads them. */
typedef struct myr_getopt_vars {
    int *optind, *opterr, *optopt;
    char **optarg;
} myr_getopt_vars;

/* What one rank runs: its image of the program. */
typedef struct myr_rank_image {
    myr_program_main main;
    void *dso_handle;        /* the image's atexit identity */
    myr_getopt_vars vars;
    struct {                 /* the variables themselves, for a private image */
        int optind, opterr, optopt;
        char *optarg;
    } own;
    myr_getopt_state getopt; /* the rank's getopt state (getopt.c) */
    struct myr_random *random;   /* the rank's rand()/random() (random.c), made on first use */
    myr_spinlock random_lock;
    char *strtok_next;       /* where the rank's strtok() goes on (strtok.c) */
    struct drand48_data drand48;  /* the rank's drand48() family (drand48.c) */
    /* The rank's results of localtime, gmtime, ctime and asctime
     * (timebuf.c), made on first use. */
    _Atomic(struct myr_time_results *) time_results;
    int fd;                  /* the memfd a copy was loaded from, or -1 */
} myr_rank_image;

typedef struct myr_privatization {
    bool private_globals;    /* the chosen mode */
    int nranks;
    myr_image image;         /* the executable, inspected */
    bool inspected;
    char reason[320];        /* why this mode, for mpiexec -v */
    char warning[1024];      /* what the user should know: lines, or "" */
    int exe_fd;              /* the executable, for sharing read-only pages */
    char *exe_name;          /* what debuggers and dladdr see for copies */
    unsigned long base;      /* the program's load address (bias) */
    myr_rank_image *ranks;   /* one per rank */
    int argc;                /* what the copies' initializers are given */
    char **argv;
} myr_privatization;

/* libc's own definition of `name` (a function of type `type`), looked up
 * once per call site: for the functions that launch/ defines per rank and
 * that are libc's outside ranks. */
#define MYR_LIBC_NEXT(type, name)                                   \
    ({                                                              \
        static __typeof__(type) libc_fn_;                           \
        if (!libc_fn_)                                              \
            libc_fn_ = (type)dlsym(RTLD_NEXT, name);                \
        libc_fn_;                                                   \
    })

/* Choose the mode for `nranks` ranks of `program` (started with argc,
 * argv) and check that it can work (memory mappings, open files).
 * p->ranks gets `job_ranks` images (an MPMD job's other programs' ranks
 * follow: mpmd.c), made here once: the copies' GOT slots point into them,
 * so they must never move. Returns 0, or -1 after printing why not. */
int myr_privatize_plan(myr_privatization *p, const myr_program *program,
                       int nranks, int job_ranks, int argc, char **argv);

/* Memory mappings the copies will take (to keep out of stack budgets). */
long myr_privatize_mappings(const myr_privatization *p);

/* Set up rank `rank`'s image (loading its copy in the private mode).
 * Call from one thread at a time, before the rank starts. Returns 0, or -1
 * after printing why not. */
int myr_privatize_load(myr_privatization *p, int rank);

/* Print what the user should know (each line of p->warning) on stderr. */
void myr_privatize_warn(const myr_privatization *p);

/* The calling rank's image, or NULL when not called from a rank's ULT. */
myr_rank_image *myr_privatize_current(void);

/* The job's privatization state (NULL before it is planned). */
extern myr_privatization *myr_privatization_state;

#endif
