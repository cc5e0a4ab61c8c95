/* getopt_r.h — getopt, getopt_long and getopt_long_only with the parsing
 * state held by the caller instead of in libc's process-global variables.
 *
 * Ranks are user-level threads sharing one process, so each rank that parses
 * its argv needs its own state: one myr_getopt_state per rank. The behaviour
 * (return values, the four public variables after each call, the permutation
 * of argv, the messages on stderr) is glibc 2.36's.
 *
 * The state is used by one rank at a time; myr_getopt_r keeps no other data,
 * so calls on different states never interfere. */
#ifndef MYR_LAUNCH_GETOPT_R_H
#define MYR_LAUNCH_GETOPT_R_H

#include <getopt.h> /* struct option, no_argument, required_argument, ... */

typedef struct myr_getopt_state {
    /* The variables a program sees as optind, opterr, optopt and optarg.
     * The caller copies ind and err in before a call and ind, opt and arg
     * out after it (glibc never reads optopt or optarg back in). */
    int ind;   /* next argv element; 0 asks for a full re-initialisation */
    int err;   /* non-zero: print messages on stderr */
    int opt;   /* the option character behind the last error; starts at 0,
                * not at optopt's initial '?': glibc copies its own value,
                * 0 until an error, out after every call */
    char *arg; /* the argument of the option just returned, or NULL */

    /* Set before the first call (or a reset) to behave as __posix_getopt,
     * the variant strict POSIX programs reach: as if POSIXLY_CORRECT were
     * set in the environment. */
    int posixly_correct;

    /* Private. */
    int initialised;   /* ordering and non-option block are set up */
    int ordering;      /* enum in getopt_r.c, chosen at initialisation */
    int nonopt_start;  /* argv[nonopt_start, nonopt_end) are the non-options */
    int nonopt_end;    /*   skipped so far and not yet moved past options */
    char *cluster;     /* rest of the option cluster being scanned, or NULL */
} myr_getopt_state;

#define MYR_GETOPT_STATE_INIT \
    { .ind = 1, .err = 1, .opt = 0, .arg = NULL, .initialised = 0 }

void myr_getopt_state_init(myr_getopt_state *s);

/* One step of getopt (longopts NULL), getopt_long (long_only 0) or
 * getopt_long_only (long_only 1). argv may be permuted, as glibc does. */
int myr_getopt_r(myr_getopt_state *s, int argc, char *const argv[],
                 const char *optstring, const struct option *longopts,
                 int *longindex, int long_only);

#endif
