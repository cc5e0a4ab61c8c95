/*
 * getopt.c — getopt, getopt_long, getopt_long_only and __posix_getopt for
 * ranks.
 *
 * libc's getopt keeps its parsing state in process-wide variables, which
 * ranks parsing their argv at the same time on several workers would
 * clobber. libmyriad's definitions come first in every object's lookup
 * order: called by a rank, they parse with that rank's own state
 * (getopt_r.c) and update the optind, opterr, optopt and optarg the rank's
 * program reads — its own ones in the private mode (privatize.c points its
 * GOT at them), libc's in the shared mode. Anywhere else they are libc's.
 */
#include <getopt.h>
#include <stddef.h>

#include "launch/getopt_r.h"
#include "launch/privatize.h"

typedef int (*short_fn)(int, char *const *, const char *);
typedef int (*long_fn)(int, char *const *, const char *, const struct option *, int *);

static int parse(myr_rank_image *ri, int argc, char *const argv[],
                 const char *optstring, const struct option *longopts,
                 int *longindex, int long_only)
{
    myr_getopt_state *s = &ri->getopt;
    const myr_getopt_vars *v = &ri->vars;
    s->ind = *v->optind;
    s->err = *v->opterr;
    int c = myr_getopt_r(s, argc, argv, optstring, longopts, longindex, long_only);
    *v->optind = s->ind;
    *v->optopt = s->opt;
    *v->optarg = s->arg;
    return c;
}

int getopt(int argc, char *const argv[], const char *optstring)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return MYR_LIBC_NEXT(short_fn, "getopt")(argc, argv, optstring);
    return parse(ri, argc, argv, optstring, NULL, NULL, 0);
}

int __posix_getopt(int argc, char *const argv[], const char *optstring);
int __posix_getopt(int argc, char *const argv[], const char *optstring)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return MYR_LIBC_NEXT(short_fn, "__posix_getopt")(argc, argv, optstring);
    ri->getopt.posixly_correct = 1;
    return parse(ri, argc, argv, optstring, NULL, NULL, 0);
}

int getopt_long(int argc, char *const argv[], const char *optstring,
                const struct option *longopts, int *longindex)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return MYR_LIBC_NEXT(long_fn, "getopt_long")(argc, argv, optstring, longopts,
                                                     longindex);
    return parse(ri, argc, argv, optstring, longopts, longindex, 0);
}

int getopt_long_only(int argc, char *const argv[], const char *optstring,
                     const struct option *longopts, int *longindex)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return MYR_LIBC_NEXT(long_fn, "getopt_long_only")(argc, argv, optstring,
                                                          longopts, longindex);
    return parse(ri, argc, argv, optstring, longopts, longindex, 1);
}
