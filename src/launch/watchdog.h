/*
 * watchdog.h — the deadlock check and the time limit of a job (watchdog.c).
 */
#ifndef MYR_LAUNCH_WATCHDOG_H
#define MYR_LAUNCH_WATCHDOG_H

/* Start the check thread for the job's ranks (MYR_DEADLOCK, MPIEXEC_TIMEOUT);
 * -1 after a message when their values are wrong. */
int myr_watchdog_start(void);
/* Every rank of this process has ended. In a job of several processes,
 * the check goes on while this process waits for the others' ranks to
 * end (one of them may wait for one of ours forever). */
void myr_watchdog_ranks_ended(void);
/* Stop it, once every rank has ended (and, with several processes, the
 * others' too). */
void myr_watchdog_stop(void);

#endif
