/*
 * strtok.c — strtok per rank.
 *
 * libc's strtok remembers where it stopped in one process-wide pointer.
 * Ranks are threads of one process, so two ranks tokenizing at the same
 * time on two workers would each go on in the other's string: MPICH's test
 * harness splits its "-name=value" arguments with strtok, and a rank read
 * another's value for its own argument in 4 runs of 2,000. A process has a
 * pointer of its own; so does a rank here: called by a rank, strtok goes on
 * where that rank's last call stopped (strtok_r on the rank's pointer).
 * Anywhere else it is libc's. As in a process, the kernel threads acting
 * for one rank share its pointer.
 */
#include <string.h>

#include "launch/privatize.h"

char *strtok(char *restrict s, const char *restrict delim)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return MYR_LIBC_NEXT(char *(*)(char *, const char *), "strtok")(s, delim);
    return strtok_r(s, delim, &ri->strtok_next);
}
