/*
 * cancel_send.c — MPI_Cancel of sends whose receiver is a rank of another
 * OS process (MPI 3.1, 3.8.4): the receiving process drops the message if
 * no receive has matched it yet, and the send completes cancelled; once
 * matched, the cancel fails and the send completes as it would have.
 *
 * Usage: mpiexec -n N -nfg N/2 cancel_send CASE (N even): rank r of the
 * first half pairs with r + N/2, in the other process (checked). In each
 * pair one rank sends and the other receives, both directions across the
 * pairs: the first half's even ranks send, its odd ranks receive.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

enum { TAG_MSG = 5, TAG_CTL = 6, TAG_SYNC = 7 };
enum { SMALL = 400, LARGE = 1 << 20 };   /* eager; rendezvous (1 MiB) */

/* Ranks are threads of one process that may share this program's
 * globals: the rank is asked for, never stored globally. */
static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int world_size(void)
{
    int s;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    return s;
}

/* This rank's partner, in the other half (another process), and whether
 * this rank is the pair's sender. */
static bool pair(int *peer)
{
    int rank = world_rank(), half = world_size() / 2;
    if (rank < half) {
        *peer = rank + half;
        return rank % 2 == 0;
    }
    *peer = rank - half;
    return *peer % 2 == 1;
}

/* Byte i of message `seed`'s payload. */
static unsigned char payload_byte(int seed, size_t i)
{
    return (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static unsigned char *payload(int seed, size_t bytes)
{
    unsigned char *p = malloc(bytes ? bytes : 1);
    CHECK(p != NULL);
    for (size_t i = 0; i < bytes; i++)
        p[i] = payload_byte(seed, i);
    return p;
}

static void check_payload(const unsigned char *p, int seed, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != payload_byte(seed, i)) {
            fprintf(stderr, "rank %d: byte %zu of message %d is %u, not %u\n",
                    world_rank(), i, seed, p[i], payload_byte(seed, i));
            CHECK(p[i] == payload_byte(seed, i));
        }
}

static void pair_sync(int peer)
{
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_SYNC, NULL, 0, MPI_BYTE, peer,
                          TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static bool cancelled(const MPI_Status *st)
{
    int flag;
    CHECK_OK(MPI_Test_cancelled(st, &flag));
    return flag != 0;
}

static void isend(const void *buf, int bytes, bool sync, int peer, MPI_Request *r)
{
    if (sync)
        CHECK_OK(MPI_Issend(buf, bytes, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, r));
    else
        CHECK_OK(MPI_Isend(buf, bytes, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, r));
}

/* Receive message `seed` (`bytes` long) from peer and check it. */
static void receive_checked(int peer, int seed, int bytes)
{
    unsigned char *got = malloc(bytes ? (size_t)bytes : 1);
    CHECK(got != NULL);
    MPI_Status st;
    int count;
    CHECK_OK(MPI_Recv(got, bytes, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, &st));
    CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == bytes && !cancelled(&st));
    check_payload(got, seed, (size_t)bytes);
    free(got);
}

static bool nothing_from(int peer)
{
    int flag;
    CHECK_OK(MPI_Iprobe(peer, TAG_MSG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    return !flag;
}

/* The sender's message 1 is cancelled while unmatched: cancelled at once
 * after its post, or (`arrived`) once the receiver has seen it in its
 * queue with MPI_Iprobe. The receiver never gets it: its MPI_Iprobe then
 * finds nothing, and messages 2, 3 and 4 of the same tag arrive after, in
 * order and intact. */
static void cancel_unmatched(int bytes, bool sync, bool arrived)
{
    int peer;
    if (pair(&peer)) {
        unsigned char *first = payload(1, (size_t)bytes);
        MPI_Request r;
        MPI_Status st;
        isend(first, bytes, sync, peer, &r);
        if (arrived)
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Cancel(&r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(cancelled(&st));
        free(first);
        /* Told, the receiver looks for it; then the next messages go. */
        CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        MPI_Request later[3];
        unsigned char *data[3];
        for (int k = 0; k < 3; k++) {
            data[k] = payload(2 + k, (size_t)bytes);
            isend(data[k], bytes, sync, peer, &later[k]);
        }
        CHECK_OK(MPI_Waitall(3, later, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 3; k++)
            free(data[k]);
    } else {
        if (arrived) {
            MPI_Status st;
            int flag = 0, count;
            while (!flag)
                CHECK_OK(MPI_Iprobe(peer, TAG_MSG, MPI_COMM_WORLD, &flag, &st));
            CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == bytes);
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        }
        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        CHECK(nothing_from(peer));
        CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        for (int k = 0; k < 3; k++)
            receive_checked(peer, 2 + k, bytes);
        CHECK(nothing_from(peer));
    }
    pair_sync(peer);
}

static void unmatched_eager_send_is_cancelled(void)
{
    cancel_unmatched(SMALL, false, false);
    cancel_unmatched(SMALL, false, true);
    cancel_unmatched(0, false, true);
}

static void unmatched_rendezvous_send_is_cancelled(void)
{
    cancel_unmatched(LARGE, false, false);
    cancel_unmatched(LARGE, false, true);
}

static void unmatched_synchronous_send_is_cancelled(void)
{
    cancel_unmatched(SMALL, true, false);
    cancel_unmatched(SMALL, true, true);
    cancel_unmatched(LARGE, true, true);
}

/* A message the receiver has received cannot be cancelled any more: the
 * send completes normally (its request not waited for before the
 * cancel), and the receiver has the data. */
static void matched_send_is_not_cancelled(void)
{
    static const struct { int bytes; bool sync; } kinds[] = {
        {SMALL, false}, {LARGE, false}, {SMALL, true}, {LARGE, true}};
    int peer;
    bool sender = pair(&peer);
    for (int seed = 0; seed < 4; seed++) {
        int bytes = kinds[seed].bytes;
        if (sender) {
            unsigned char *data = payload(seed, (size_t)bytes);
            MPI_Request r;
            MPI_Status st;
            isend(data, bytes, kinds[seed].sync, peer, &r);
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK(!cancelled(&st));
            free(data);
        } else {
            receive_checked(peer, seed, bytes);
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        }
    }
    pair_sync(peer);
}

/* A persistent send cancelled, then started again: the second start is
 * delivered, and its status no longer says cancelled. */
static void persistent_send_is_cancelled_then_delivered(void)
{
    static const int sizes[] = {SMALL, LARGE};
    int peer;
    bool sender = pair(&peer);
    for (int k = 0; k < 2; k++) {
        int bytes = sizes[k];
        if (sender) {
            unsigned char *data = payload(9, (size_t)bytes);
            MPI_Request r;
            MPI_Status st;
            CHECK_OK(MPI_Send_init(data, bytes, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD,
                                   &r));
            CHECK_OK(MPI_Start(&r));
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK(cancelled(&st));
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
            CHECK_OK(MPI_Start(&r));
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK(!cancelled(&st));
            CHECK_OK(MPI_Request_free(&r));
            free(data);
        } else {
            /* Not before the sender's cancel is done: it would then fail. */
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            receive_checked(peer, 9, bytes);
            CHECK(nothing_from(peer));
        }
        pair_sync(peer);
    }
}

/* A cancelled send whose request is freed before the answer comes: the
 * answer completes and releases it; the message is never delivered. Its
 * buffer lives as long as the program: once the request is freed, nothing
 * says when the dropped message's data has been read. */
static void cancelled_send_freed_before_the_answer(void)
{
    static const unsigned char dropped[LARGE];
    int peer;
    for (int k = 0; k < 2; k++) {
        int bytes = k == 0 ? SMALL : LARGE;
        if (pair(&peer)) {
            unsigned char *second = payload(2, SMALL);
            MPI_Request r;
            CHECK_OK(MPI_Isend(dropped, bytes, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD,
                               &r));
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Request_free(&r));
            /* After the cancel: the receiving process has dealt with it. */
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Send(second, SMALL, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD));
            free(second);
        } else {
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            CHECK(nothing_from(peer));
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
            receive_checked(peer, 2, SMALL);
        }
        pair_sync(peer);
    }
}

/* The sender cancels while the receiver posts its receive, many times
 * over, with eager, rendezvous and synchronous messages: each ends in
 * exactly one of the two outcomes. Cancelled: the receive stays
 * unmatched (and is cancelled in turn). Not cancelled: the receive gets
 * the message, intact. */
static void cancel_races_a_receive(void)
{
    enum { ROUNDS = 300 };
    static const struct { int bytes; bool sync; } kinds[] = {
        {SMALL, false}, {LARGE, false}, {SMALL, true}, {LARGE, true}};
    int peer;
    bool sender = pair(&peer);
    int outcomes[2] = {0, 0};   /* received, cancelled */
    unsigned char *got = sender ? NULL : malloc(LARGE);
    for (int i = 0; i < ROUNDS; i++) {
        int bytes = kinds[i % 4].bytes;
        if (sender) {
            unsigned char *data = payload(i, (size_t)bytes);
            MPI_Request r;
            MPI_Status st;
            isend(data, bytes, kinds[i % 4].sync, peer, &r);
            pair_sync(peer);
            /* Shift the cancel against the receive a little, round by round. */
            double until = MPI_Wtime() + (i % 7) * 2e-6;
            while (MPI_Wtime() < until)
                ;
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Wait(&r, &st));
            int c = cancelled(&st);
            outcomes[c]++;
            CHECK_OK(MPI_Send(&c, 1, MPI_INT, peer, TAG_CTL, MPI_COMM_WORLD));
            free(data);
        } else {
            MPI_Request rr;
            MPI_Status st;
            int c, count;
            pair_sync(peer);
            CHECK_OK(MPI_Irecv(got, LARGE, MPI_BYTE, peer, TAG_MSG, MPI_COMM_WORLD, &rr));
            CHECK_OK(MPI_Recv(&c, 1, MPI_INT, peer, TAG_CTL, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            if (c) {
                /* Nothing will match the receive now: cancelling it must
                 * succeed, or it got the cancelled message as well. */
                CHECK_OK(MPI_Cancel(&rr));
                CHECK_OK(MPI_Wait(&rr, &st));
                if (!cancelled(&st))
                    fprintf(stderr, "rank %d: round %d: the send was cancelled and "
                            "its message received (source %d, tag %d, error %d)\n",
                            world_rank(), i, st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
                CHECK(cancelled(&st));
            } else {
                CHECK_OK(MPI_Wait(&rr, &st));
                CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(!cancelled(&st) && count == bytes);
                check_payload(got, i, (size_t)bytes);
            }
            outcomes[c]++;
            CHECK(nothing_from(peer));
        }
        pair_sync(peer);   /* the next message only once this round is over */
    }
    free(got);
    if (sender)
        printf("rank %d: %d rounds: %d cancelled, %d received\n", world_rank(), ROUNDS,
               outcomes[1], outcomes[0]);
    pair_sync(peer);
}

static const test_case cases[] = {
    {"unmatched_eager_send_is_cancelled", unmatched_eager_send_is_cancelled},
    {"unmatched_rendezvous_send_is_cancelled", unmatched_rendezvous_send_is_cancelled},
    {"unmatched_synchronous_send_is_cancelled", unmatched_synchronous_send_is_cancelled},
    {"matched_send_is_not_cancelled", matched_send_is_not_cancelled},
    {"persistent_send_is_cancelled_then_delivered",
     persistent_send_is_cancelled_then_delivered},
    {"cancelled_send_freed_before_the_answer", cancelled_send_freed_before_the_answer},
    {"cancel_races_a_receive", cancel_races_a_receive},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int size = world_size(), peer;
    CHECK(size % 2 == 0);
    pair(&peer);
    /* The partner must be in another process, or this tests nothing here:
     * every process but the last holds MYR_NRANKS ranks (mpiexec -nfg). */
    const char *local = getenv("MYR_NRANKS");
    int per_process = local ? atoi(local) : size;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &per_process, 1, MPI_INT, MPI_MAX,
                           MPI_COMM_WORLD));
    CHECK(world_rank() / per_process != peer / per_process);
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Finalize());
    return rc;
}
