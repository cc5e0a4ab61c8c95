/*
 * exit.h — exit() from a rank ends that rank, not the job.
 *
 * libmyriad defines exit(), which comes before libc's in the lookup order
 * of every object in the process. Called on a rank's ULT, it ends the rank
 * as if its main had returned the status (C defines returning from main as
 * calling exit; here it is the other way round): the job goes on, and its
 * exit status counts this one. Anywhere else (the launcher's thread,
 * threads the program made, ULTs a rank spawned) it is libc's exit, which
 * ends the process. _exit, _Exit and abort end the process as ever.
 */
#ifndef MYR_LAUNCH_EXIT_H
#define MYR_LAUNCH_EXIT_H

#include <stdbool.h>

#include "core/core.h"

/* The rank whose main runs on the calling ULT, or NULL. */
myr_rank *myr_launch_rank_self(void);

/* End the calling rank with `status` (rank_start.c); runs on its ULT. */
void myr_launch_end_rank(myr_rank *rank, int status, bool by_exit);

/* libc's exit: end the process. */
_Noreturn void myr_exit_process(int status);

#endif
