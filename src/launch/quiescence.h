/*
 * quiescence.h — is the job quiescent: every rank blocked (or ended) and
 * nothing on its way that could wake one? In one process the scheduler
 * says; across processes, waves of questions from process 0 count the
 * messages between them (quiescence.c says how). For the deadlock check
 * (watchdog.c).
 */
#ifndef MYR_LAUNCH_QUIESCENCE_H
#define MYR_LAUNCH_QUIESCENCE_H

#include <stdbool.h>

/* Answer process 0's questions from here on (a job of several
 * processes; nothing otherwise). checking: false answers "not quiescent"
 * to every question, which keeps the whole job from being found
 * deadlocked (MYR_DEADLOCK=0 in this process). asked_to_report: called on
 * the driving thread (short; net.h) when process 0 asks this process for
 * its ranks' report. 0, or -1 with a message. */
int myr_quiescence_start(bool checking, void (*asked_to_report)(void));
/* No more waves: one under way ends at once (before the check thread is
 * joined). */
void myr_quiescence_stop(void);

/* Every rank of this process has ended; the process waits for the others
 * to end theirs and counts as quiescent meanwhile, none of its ranks
 * waiting. */
void myr_quiescence_ranks_ended(void);

/* This process by itself: one process, every rank suspended and one
 * waiting in MPI, no kernel thread of the program running; several, every
 * rank suspended or all ended, and nothing of this process in flight that
 * could wake one (core/remote.h's busy). *epoch: the scheduler's wake-up
 * epoch (myr_sched_quiescent): two equal ones mean nothing ran between. */
bool myr_quiescence_local(unsigned long *epoch);

typedef enum myr_job_quiescence {
    MYR_JOB_ACTIVE,          /* something runs, or is in flight, or no answer */
    MYR_JOB_QUIET_ONCE,      /* quiescent by this wave: one more to confirm */
    MYR_JOB_DEADLOCKED,      /* two waves in a row agree: nothing can happen */
} myr_job_quiescence;

/* Process 0's check thread, its own process quiescent: ask every process
 * for its state (one wave) and compare with the last wave. */
myr_job_quiescence myr_quiescence_wave(void);

/* Another process's check thread, every sample: while this process is
 * quiescent, take in what arrived (a question of process 0's) without
 * waiting for the comm thread's nap, however long that is. */
void myr_quiescence_listen(void);

/* Process 0, the job deadlocked: ask process `proc` to print its ranks'
 * report and wait until it has (true), or a few seconds (false). */
bool myr_quiescence_ask_report(int proc);
/* Another process: has process 0 asked for the report? Then, once it is
 * printed, tell process 0. */
bool myr_quiescence_report_asked(void);
void myr_quiescence_report_done(void);

#endif
