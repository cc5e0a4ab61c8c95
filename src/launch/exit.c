/* exit.c — exit() for ranks (see exit.h). */
#include "launch/exit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

_Noreturn void myr_exit_process(int status)
{
    void (*libc_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    if (libc_exit)
        libc_exit(status);
    fflush(NULL);  /* no libc exit to be found: the bare minimum of it */
    _exit(status);
}

void exit(int status)
{
    myr_rank *r = myr_launch_rank_self();
    if (!r)
        myr_exit_process(status);
    /* An atexit handler of the rank calling exit again (undefined in C)
     * just ends the rank. */
    if (!r->returned)
        myr_launch_end_rank(r, status, true);
    myr_ult_exit(NULL);
    myr_exit_process(status);  /* not reached: a rank's ULT can always end */
}
