/*
 * watchdog.h — the deadlock check and the time limit of a job (watchdog.c).
 */
#ifndef MYR_LAUNCH_WATCHDOG_H
#define MYR_LAUNCH_WATCHDOG_H

/* Start the check thread for the job's ranks (MYR_DEADLOCK, MPIEXEC_TIMEOUT);
 * -1 after a message when their values are wrong. */
int myr_watchdog_start(void);
/* Stop it, once every rank has ended. */
void myr_watchdog_stop(void);

#endif
