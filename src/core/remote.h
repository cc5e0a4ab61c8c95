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

/* Start the engine for a job of several processes (myr_the_job is
 * created): arrivals then reach the ranks' queues. 0, or -1 (printed). */
int myr_remote_start(void);
/* After every rank of this process has finished: wait for this
 * process's messages, fence with the others, stop the engine. */
void myr_remote_stop(void);

#endif
