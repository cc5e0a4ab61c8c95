/*
 * remote.h — point-to-point with ranks of other OS processes (remote.c),
 * over the network engine (net/net.h). The matching stays p2p.c's.
 */
#ifndef MYR_CORE_REMOTE_H
#define MYR_CORE_REMOTE_H

#include "core/p2p.h"

/* send_core's path for a destination in another process (job rank
 * `dest_rank`): same contract (s NULL: a blocking send, which returns
 * MYR_P2P_NEEDS_REQUEST when it must wait). */
MYR_INTERNAL int myr_remote_send(myr_rank *self, const void *buf, int count,
                                 MPI_Datatype type, long dest_rank, int src, int tag,
                                 unsigned ctx, myr_send_mode mode,
                                 struct myr_mpi_request *s);
/* A receive took envelope `e` of a rendezvous message: fetch its data
 * into rr's buffer; rr completes when it is here (on the comm thread). */
MYR_INTERNAL void myr_remote_take_rndv(struct myr_mpi_request *rr, myr_envelope *e);
/* Acknowledge the synchronous send of `e`, now matched. */
MYR_INTERNAL void myr_remote_ack(const myr_envelope *e);
/* MPI_Cancel of send request `s` (active, posted by myr_remote_send to job
 * rank `dest_rank`): ask the receiving process to drop the message if it
 * is still unmatched. `s` completes once the answer is here (cancelled,
 * or as it would have), reopened for that if it was complete. Returns at
 * once; a second cancel of the same send does nothing. */
MYR_INTERNAL void myr_remote_cancel(struct myr_mpi_request *s, long dest_rank);

/* ---- for the deadlock check across processes (launch/quiescence.c) ---- */

/* This process's point-to-point traffic with the others, counted for a
 * termination detection (Mattern's counting method): `sent` counts a
 * message before it is posted, so before it can arrive anywhere;
 * `received` counts it once the core has taken it (matched, or queued as
 * unexpected, and the request it completes completed). A rendezvous
 * message also counts its end, an answer the other way: the receiver
 * counts it sent when it starts fetching the data, the sender received
 * when its send is done (the data taken). So every effect of one process
 * on another is a counted message, and the totals over all processes are
 * equal only when none is in flight. `busy`: operations still in the
 * engine's hands whose end is no such message and could still change
 * something here (an eager send UCX has not finished, a fetch): while
 * any runs the process is not quiescent. Reads are not one snapshot: a
 * caller compares two readings taken apart. */
typedef struct myr_remote_traffic {
    unsigned long long sent, received;
    long busy;
} myr_remote_traffic;
MYR_INTERNAL void myr_remote_traffic_read(myr_remote_traffic *t);

/* Control messages between the runtimes of the job's processes (at most
 * MYR_REMOTE_CONTROL_MAX bytes, in the message's header): outside the
 * traffic counts, in order with the traffic per pair of processes.
 * `handler` gets each on the driving thread (net.h: short, no blocking;
 * it may send). Any thread sends; a thread about to wait for an answer
 * brackets the wait with await_begin/end, so that this process watches
 * the network meanwhile (a process that awaits nothing sees a message
 * within the comm thread's nap, net.h). */
#define MYR_REMOTE_CONTROL_MAX 32
typedef void (*myr_remote_control_handler)(int proc, const void *msg, size_t len);
MYR_INTERNAL void myr_remote_control_handle(myr_remote_control_handler handler);
MYR_INTERNAL int myr_remote_control_send(int proc, const void *msg, size_t len);
MYR_INTERNAL void myr_remote_control_await_begin(void);
MYR_INTERNAL void myr_remote_control_await_end(void);
/* One pass over the network from this thread, if no other drives it:
 * control messages (and whatever else arrived) are taken in now, even in
 * a process that awaits nothing; and a polling loop of MPI_Test and its
 * family sees a message of another process when it arrives, not once the
 * comm thread has taken it in (net.h: a small receive does not wake it). */
MYR_INTERNAL void myr_remote_poll(void);

/* Start the engine for a job of several processes (myr_the_job is
 * created): arrivals then reach the ranks' queues. 0, or -1 (printed). */
int myr_remote_start(void);
/* After every rank of this process has finished: wait for this
 * process's messages, fence with the others, stop the engine. */
void myr_remote_stop(void);

#endif
