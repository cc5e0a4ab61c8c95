/* p2p.c — point-to-point semantics between collocated ranks.
 * Usage: p2p CASE (every rank runs the case). Rank counts come from
 * MYR_NRANKS (set by CTest, as mpiexec -n would). */
#include <mpi.h>
/* After mpi.h (which renames main): the rank's state, whose start counter
 * one case moves to where it wraps. */
#include "core/core.h"

#include <myr_ult.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"

/* Ranks are threads of one process sharing this program's globals (until
 * globals are privatized), so the rank is asked for, never stored globally. */
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

#define rank world_rank()
#define size world_size()

/* A barrier made of point-to-point only (the tests must not depend on the
 * collectives they do not test). */
static void sync_all(void)
{
    int token = 0;
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            CHECK_OK(MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        for (int i = 1; i < size; i++)
            CHECK_OK(MPI_Send(&token, 1, MPI_INT, i, 998, MPI_COMM_WORLD));
    } else {
        CHECK_OK(MPI_Send(&token, 1, MPI_INT, 0, 999, MPI_COMM_WORLD));
        CHECK_OK(MPI_Recv(&token, 1, MPI_INT, 0, 998, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = seed * 7919 + i;
}

static void check_filled(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == seed * 7919 + i);
}

/* Pairs (0,1), (2,3)... exchange a small and a large message both ways;
 * the status tells source, tag and count. */
static void send_recv_between_pairs(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    enum { SMALL = 10, LARGE = 100000 };
    int *out = malloc(LARGE * sizeof(int)), *in = malloc(LARGE * sizeof(int));
    for (int n = SMALL; n <= LARGE; n += LARGE - SMALL) {
        fill(out, n, rank);
        MPI_Status st;
        if (rank < peer) {
            CHECK_OK(MPI_Send(out, n, MPI_INT, peer, 5, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(in, n, MPI_INT, peer, 6, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == 6);
        } else {
            CHECK_OK(MPI_Recv(in, n, MPI_INT, peer, 5, MPI_COMM_WORLD, &st));
            CHECK_OK(MPI_Send(out, n, MPI_INT, peer, 6, MPI_COMM_WORLD));
            CHECK(st.MPI_TAG == 5);
        }
        CHECK(st.MPI_SOURCE == peer);
        int count;
        CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == n);
        check_filled(in, n, peer);
    }
    free(out);
    free(in);
}

/* Messages from one sender with the same tag arrive in the order sent,
 * whatever their sizes (eager copies and large zero-copy ones mixed). */
static void messages_do_not_overtake(void)
{
    enum { N = 400 };
    if (rank == 0) {
        MPI_Request req[N];
        static int bufs[N][2000];
        for (int i = 0; i < N; i++) {
            int len = (i % 3 == 0) ? 2000 : 1 + i % 7;
            bufs[i][0] = i;
            CHECK_OK(MPI_Isend(bufs[i], len, MPI_INT, 1, 3, MPI_COMM_WORLD, &req[i]));
        }
        CHECK_OK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        static int buf[2000];
        for (int i = 0; i < N; i++) {
            CHECK_OK(MPI_Recv(buf, 2000, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf[0] == i);
        }
    }
}

/* Rank 0 receives everything with MPI_ANY_SOURCE / MPI_ANY_TAG: it gets
 * every message once, and each sender's messages in that sender's order. */
static void wildcards_receive_everything_in_order(void)
{
    enum { PER = 50 };
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < (size - 1) * PER; i++) {
            int msg[2];
            MPI_Status st;
            CHECK_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(msg[0] == st.MPI_SOURCE && st.MPI_TAG == msg[1] % 5);
            CHECK(msg[1] == next[st.MPI_SOURCE]);
            next[st.MPI_SOURCE]++;
        }
        for (int s = 1; s < size; s++)
            CHECK(next[s] == PER);
        free(next);
        /* Release the senders only now: nothing else may reach our
         * wildcard receives. */
        int done = 1;
        for (int s = 1; s < size; s++)
            CHECK_OK(MPI_Send(&done, 1, MPI_INT, s, 100, MPI_COMM_WORLD));
    } else {
        for (int i = 0; i < PER; i++) {
            int msg[2] = {rank, i};
            CHECK_OK(MPI_Send(msg, 2, MPI_INT, 0, i % 5, MPI_COMM_WORLD));
        }
        int done;
        CHECK_OK(MPI_Recv(&done, 1, MPI_INT, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

/* Rank 0 finds every other rank's PER messages queued (tags i % 4), then
 * takes them out of arrival order: each source's tag 3 from the last
 * source to the first, then the first message of every odd source by
 * probe and receive naming the source, then the rest by wildcards. Each
 * (source, tag) keeps its order, every message comes once; long queues
 * are searched by source through an index (core/p2p.c), short ones not. */
static void a_long_unexpected_queue_is_taken_in_any_order(void)
{
    enum { PER = 40 };
    if (rank != 0) {
        for (int i = 0; i < PER; i++) {
            int msg[2] = {rank, i};
            CHECK_OK(MPI_Send(msg, 2, MPI_INT, 0, i % 4, MPI_COMM_WORLD));
        }
        sync_all();
        return;
    }
    sync_all();   /* every message is sent (queued here, or on its way) */
    char *taken = calloc((size_t)size * PER, 1);
    long got = 0;
    int msg[2];
    MPI_Status st;
    for (int s = size - 1; s >= 1; s--)
        for (int i = 3; i < PER; i += 4) {
            CHECK_OK(MPI_Recv(msg, 2, MPI_INT, s, 3, MPI_COMM_WORLD, &st));
            CHECK(msg[0] == s && msg[1] == i && st.MPI_SOURCE == s && st.MPI_TAG == 3);
            taken[s * PER + i] = 1, got++;
        }
    for (int s = 1; s < size; s += 2) {
        CHECK_OK(MPI_Probe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == s && st.MPI_TAG == 0);
        CHECK_OK(MPI_Recv(msg, 2, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(msg[0] == s && msg[1] == 0 && st.MPI_TAG == 0);
        taken[s * PER] = 1, got++;
    }
    int *last = malloc((size_t)size * sizeof *last);
    for (int s = 0; s < size; s++)
        last[s] = -1;
    while (got < (long)(size - 1) * PER) {
        CHECK_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE, i = msg[1];
        CHECK(msg[0] == s && s > 0 && s < size && i >= 0 && i < PER && st.MPI_TAG == i % 4);
        if (s > 0 && s < size && i >= 0 && i < PER) {
            CHECK(!taken[s * PER + i] && i > last[s]);
            taken[s * PER + i] = 1;
            last[s] = i;
        }
        got++;
    }
    for (int k = PER; k < size * PER; k++)
        CHECK(taken[k]);
    free(last);
    free(taken);
}

/* Rank 0 posts, for every other rank s, K times: a receive from s, one
 * from MPI_ANY_SOURCE, one from s, all of tag s; only then do the others
 * send their 3K messages (tag s). Each message takes the earliest posted
 * receive it matches, whichever queue entries are indexed (core/p2p.c):
 * message j of s lands in the j-th of s's receives. */
static void posted_receives_match_in_posting_order(void)
{
    enum { K = 4 };
    if (rank != 0) {
        sync_all();
        for (int j = 0; j < 3 * K; j++) {
            int msg[2] = {rank, j};
            CHECK_OK(MPI_Send(msg, 2, MPI_INT, 0, rank, MPI_COMM_WORLD));
        }
        sync_all();
        return;
    }
    int n = (size - 1) * 3 * K;
    int (*got)[2] = calloc((size_t)n, sizeof *got);
    MPI_Request *req = malloc((size_t)n * sizeof *req);
    for (int s = 1; s < size; s++)
        for (int j = 0; j < 3 * K; j++) {
            int at = (s - 1) * 3 * K + j;
            CHECK_OK(MPI_Irecv(got[at], 2, MPI_INT, j % 3 == 1 ? MPI_ANY_SOURCE : s, s,
                               MPI_COMM_WORLD, &req[at]));
        }
    sync_all();
    CHECK_OK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int s = 1; s < size; s++)
        for (int j = 0; j < 3 * K; j++) {
            int at = (s - 1) * 3 * K + j;
            CHECK(got[at][0] == s && got[at][1] == j);
        }
    free(req);
    free(got);
    sync_all();
}

/* A message longer than the receive buffer: MPI_ERR_TRUNCATE, the buffer
 * holds what fits; the status's MPI_ERROR is left alone (MPI 3.1, 3.2.5:
 * calls that complete one operation return its error instead). */
static void long_message_is_truncated(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        int out[10];
        fill(out, 10, 1);
        CHECK_OK(MPI_Send(out, 10, MPI_INT, 1, 0, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(out, 10, MPI_INT, 1, 1, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int in[10] = {0};
        MPI_Status st;
        CHECK(MPI_Recv(in, 5, MPI_INT, 0, 0, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        check_filled(in, 5, 1);
        CHECK(in[5] == 0);
        MPI_Request r;
        CHECK_OK(MPI_Irecv(in, 3, MPI_INT, 0, 1, MPI_COMM_WORLD, &r));
        st.MPI_ERROR = -5;
        CHECK(MPI_Wait(&r, &st) == MPI_ERR_TRUNCATE);
        CHECK(st.MPI_ERROR == -5 && st.MPI_SOURCE == 0 && st.MPI_TAG == 1);
    }
}

/* The MPI_ERROR field: calls completing one operation never write it;
 * Waitall/Waitsome write it in every entry only when they return
 * MPI_ERR_IN_STATUS, and leave it alone otherwise (MPI 3.1, 3.2.5). */
static void status_error_field_is_set_only_with_err_in_status(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        int out[4] = {1, 2, 3, 4};
        for (int tag = 0; tag < 6; tag++)
            CHECK_OK(MPI_Send(out, tag == 5 ? 4 : 1, MPI_INT, 1, tag, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int in[8] = {0};
        MPI_Status st, sts[3];
        st.MPI_ERROR = -5;
        CHECK_OK(MPI_Probe(0, 0, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_ERROR == -5 && st.MPI_TAG == 0);
        CHECK_OK(MPI_Recv(in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_ERROR == -5);
        /* Waitall without a failure: no MPI_ERROR written. */
        MPI_Request r[3];
        for (int i = 0; i < 2; i++) {
            CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, 0, 1 + i, MPI_COMM_WORLD, &r[i]));
            sts[i].MPI_ERROR = -5;
        }
        CHECK_OK(MPI_Waitall(2, r, sts));
        CHECK(sts[0].MPI_ERROR == -5 && sts[1].MPI_ERROR == -5);
        /* A truncation among three: every entry tells. */
        for (int i = 0; i < 3; i++) {
            CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, 0, 3 + i, MPI_COMM_WORLD, &r[i]));
            sts[i].MPI_ERROR = -5;
        }
        CHECK(MPI_Waitall(3, r, sts) == MPI_ERR_IN_STATUS);
        CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_SUCCESS);
        CHECK(sts[2].MPI_ERROR == MPI_ERR_TRUNCATE && sts[2].MPI_TAG == 5);
    }
}

/* MPI_PROC_NULL: sends and receives complete at once, with the empty status. */
static void proc_null_completes_at_once(void)
{
    int x = 5;
    MPI_Status st;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    int count;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0 && x == 5);
    MPI_Request r;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_PROC_NULL);
}

/* A synchronous send does not complete before the receive matches it. */
static void ssend_waits_for_the_match(void)
{
    int x = 42, go = 1;
    if (rank == 0) {
        MPI_Request r;
        int flag;
        CHECK_OK(MPI_Issend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r));
        for (int i = 0; i < 100; i++) {
            CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag);
        }
        CHECK_OK(MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        /* Blocking Ssend too (the receiver is already waiting or not). */
        CHECK_OK(MPI_Ssend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int y = 0;
        CHECK_OK(MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(y == 42);
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

/* Several MPI_ANY_SOURCE receives that have all completed: Waitany and
 * Testany hand them back in the order they matched (the order they were
 * posted), whatever their index, so that a program stopping at a sender's
 * last message (HPCC's RandomAccess) sees every message sent before it.
 * Rank 1 sends SLOTS messages, tags 0, 1, ...; rank 0 posts the receives
 * into slots SLOTS-1 ... 0 (the last index first) and waits until all of
 * them completed before it takes any. Round 0: the messages may arrive
 * before their receives; round 1: after (rank 1 waits for a go); round 2
 * as round 1, with the requests numbered across the point where the
 * rank's count of started requests wraps at 32 bits (what a request keeps
 * of it). */
static void any_returns_completed_requests_in_start_order(void)
{
    enum { SLOTS = 6, GO = 99 };
    MPI_Comm comm;   /* its own: no other message matches its wildcards */
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    for (int round = 0; round < 3 && size >= 2; round++) {
        if (rank == 0 && round == 2) {
            myr_rank *self = myr_ult_inherited();
            atomic_store(&self->start_seq, 0xffffffffUL - SLOTS / 2);
        }
        if (rank == 1) {
            int go;
            if (round >= 1)
                CHECK_OK(MPI_Recv(&go, 1, MPI_INT, 0, GO, comm, MPI_STATUS_IGNORE));
            for (int t = 0; t < SLOTS; t++)
                CHECK_OK(MPI_Send(&t, 1, MPI_INT, 0, t, comm));
        } else if (rank == 0) {
            int vals[SLOTS];
            MPI_Request reqs[SLOTS];
            for (int i = SLOTS - 1; i >= 0; i--)
                CHECK_OK(MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   comm, &reqs[i]));
            if (round >= 1) {
                int go = 1;
                CHECK_OK(MPI_Send(&go, 1, MPI_INT, 1, GO, comm));
            }
            for (int i = 0; i < SLOTS; i++) {   /* all complete, none retired */
                int flag = 0;
                while (!flag)
                    CHECK_OK(MPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE));
            }
            for (int t = 0; t < SLOTS; t++) {
                int idx, flag = 1;
                MPI_Status st;
                if (round != 1)
                    CHECK_OK(MPI_Waitany(SLOTS, reqs, &idx, &st));
                else
                    CHECK_OK(MPI_Testany(SLOTS, reqs, &idx, &flag, &st));
                CHECK(flag && idx == SLOTS - 1 - t && st.MPI_TAG == t && vals[idx] == t &&
                      st.MPI_SOURCE == 1);
            }
        }
    }
    CHECK_OK(MPI_Comm_free(&comm));
    sync_all();
}

/* Waitany, Waitsome, Testany, Testsome, Testall over a set of receives from
 * every other rank: each completes exactly once. */
static void wait_and_test_families(void)
{
    int n = size - 1;
    if (n == 0)
        return;
    int *vals = calloc((size_t)size, sizeof(int));
    MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
    int *seen = calloc((size_t)size, sizeof(int));
    for (int round = 0; round < 4; round++) {
        int k = 0;
        for (int p = 0; p < size; p++)
            if (p != rank)
                CHECK_OK(MPI_Irecv(&vals[p], 1, MPI_INT, p, round, MPI_COMM_WORLD, &reqs[k++]));
        int me = rank * 100 + round;
        for (int p = 0; p < size; p++)
            if (p != rank)
                CHECK_OK(MPI_Send(&me, 1, MPI_INT, p, round, MPI_COMM_WORLD));
        memset(seen, 0, (size_t)size * sizeof(int));
        int done = 0;
        while (done < n) {
            MPI_Status st;
            if (round == 0) {
                int idx;
                CHECK_OK(MPI_Waitany(n, reqs, &idx, &st));
                CHECK(idx >= 0 && idx < n && reqs[idx] == MPI_REQUEST_NULL);
                seen[st.MPI_SOURCE]++;
                done++;
            } else if (round == 1) {
                int out, idx[64];
                MPI_Status sts[64];
                CHECK(n <= 64);
                CHECK_OK(MPI_Waitsome(n, reqs, &out, idx, sts));
                CHECK(out >= 1);
                for (int i = 0; i < out; i++)
                    seen[sts[i].MPI_SOURCE]++;
                done += out;
            } else if (round == 2) {
                int idx, flag;
                CHECK_OK(MPI_Testany(n, reqs, &idx, &flag, &st));
                if (flag) {
                    seen[st.MPI_SOURCE]++;
                    done++;
                }
            } else {
                int flag;
                MPI_Status sts[64];
                CHECK_OK(MPI_Testall(n, reqs, &flag, sts));
                if (flag) {
                    for (int i = 0; i < n; i++)
                        seen[sts[i].MPI_SOURCE]++;
                    done = n;
                }
            }
        }
        for (int p = 0; p < size; p++) {
            CHECK(seen[p] == (p == rank ? 0 : 1));
            if (p != rank)
                CHECK(vals[p] == p * 100 + round);
        }
        /* Everything retired: a Waitany over null requests says so. */
        int idx;
        CHECK_OK(MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == MPI_UNDEFINED);
    }
    free(vals);
    free(reqs);
    free(seen);
}

/* Probe sees a message without receiving it; Iprobe says no when nothing
 * matches; Mprobe takes a message so that no other receive can get it. */
static void probe_and_matched_probe(void)
{
    if (rank == 0) {
        int a = 1, b = 2;
        CHECK_OK(MPI_Send(&a, 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(&b, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Status st;
        int flag, x, count;
        CHECK_OK(MPI_Probe(0, 11, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 11);
        CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 1);
        CHECK_OK(MPI_Iprobe(0, 12, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag);
        MPI_Message m;
        CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &m, &st));
        CHECK(st.MPI_TAG == 10);
        /* The matched message is gone from the queue. */
        CHECK_OK(MPI_Iprobe(0, 10, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag);
        CHECK_OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
        CHECK(x == 1 && m == MPI_MESSAGE_NULL);
        CHECK_OK(MPI_Improbe(0, 11, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK(flag);
        MPI_Request r;
        CHECK_OK(MPI_Imrecv(&x, 1, MPI_INT, &m, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(x == 2 && st.MPI_TAG == 11);
        CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
        CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
        CHECK_OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
    }
}

/* Several ULTs of rank 0 (MPI_THREAD_MULTIPLE) race with MPI_Mprobe on
 * MPI_ANY_SOURCE: every message is received exactly once. */
enum { RACE_PER_SENDER = 200, RACE_TASKS = 4 };
static _Atomic long race_sum, race_count;

static void *mprobe_task(void *arg)
{
    long want = (long)arg;
    for (long i = 0; i < want; i++) {
        MPI_Message m;
        MPI_Status st;
        int v;
        CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &m, &st));
        CHECK_OK(MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
        atomic_fetch_add(&race_sum, v);
        atomic_fetch_add(&race_count, 1);
    }
    return NULL;
}

static void mprobe_races_receive_each_message_once(void)
{
    int total = (size - 1) * RACE_PER_SENDER;
    if (rank == 0) {
        myr_ult_t *t[RACE_TASKS];
        for (int i = 0; i < RACE_TASKS; i++)
            CHECK_OK(myr_ult_spawn(&t[i], mprobe_task,
                                   (void *)(long)(total / RACE_TASKS +
                                                  (i < total % RACE_TASKS))));
        for (int i = 0; i < RACE_TASKS; i++)
            CHECK_OK(myr_ult_join(t[i], NULL));
        long expect = 0;
        for (int s = 1; s < size; s++)
            for (int i = 0; i < RACE_PER_SENDER; i++)
                expect += s * 1000 + i;
        CHECK(atomic_load(&race_count) == total);
        CHECK(atomic_load(&race_sum) == expect);
    } else {
        for (int i = 0; i < RACE_PER_SENDER; i++) {
            int v = rank * 1000 + i;
            CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        }
    }
}

/* A receive that nothing matches can be cancelled; so can a large send
 * nobody received (and then it is never received). */
static void cancel_pending_operations(void)
{
    MPI_Status st;
    int flag, x;
    MPI_Request r;
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Cancel(&r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag);
    if (size < 2)
        return;
    enum { BIG = 100000 };
    if (rank == 0) {
        int *big = calloc(BIG, sizeof(int));
        CHECK_OK(MPI_Isend(big, BIG, MPI_INT, 1, 78, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Cancel(&r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag);
        free(big);
    }
    sync_all();
    if (rank == 1) {
        CHECK_OK(MPI_Iprobe(0, 78, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag);
    }
    /* A matched receive cannot be cancelled: it completes normally. */
    if (rank == 0) {
        x = 5;
        CHECK_OK(MPI_Send(&x, 1, MPI_INT, 1, 79, MPI_COMM_WORLD));
    } else if (rank == 1) {
        CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, 0, 79, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag && x == 5);
    }
}

/* Persistent requests: started, waited for and restarted many times. */
static void persistent_requests_restart(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    int out, in;
    MPI_Request reqs[2];
    CHECK_OK(MPI_Send_init(&out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Recv_init(&in, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[1]));
    for (int i = 0; i < 100; i++) {
        out = rank * 1000 + i;
        if (i % 2)
            CHECK_OK(MPI_Startall(2, reqs));
        else {
            CHECK_OK(MPI_Start(&reqs[1]));
            CHECK_OK(MPI_Start(&reqs[0]));
        }
        CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL);
        CHECK(in == peer * 1000 + i);
    }
    /* Inactive persistent requests: Wait returns at once. */
    MPI_Status st;
    CHECK_OK(MPI_Wait(&reqs[0], &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE);
    CHECK_OK(MPI_Request_free(&reqs[0]));
    CHECK_OK(MPI_Request_free(&reqs[1]));
    CHECK(reqs[0] == MPI_REQUEST_NULL);
}

/* Buffered sends complete at once while the attached buffer has room;
 * beyond it they fail with MPI_ERR_BUFFER; detach waits for delivery. */
static void bsend_uses_the_attached_buffer(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        int size_needed = 3 * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        char *buffer = malloc((size_t)size_needed);
        CHECK_OK(MPI_Buffer_attach(buffer, size_needed));
        int data[100];
        for (int i = 0; i < 3; i++) {
            fill(data, 100, i);
            CHECK_OK(MPI_Bsend(data, 100, MPI_INT, 1, 20 + i, MPI_COMM_WORLD));
        }
        CHECK(MPI_Bsend(data, 100, MPI_INT, 1, 30, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
        CHECK_OK(MPI_Send(data, 1, MPI_INT, 1, 40, MPI_COMM_WORLD));  /* "go" */
        void *back;
        int back_size;
        CHECK_OK(MPI_Buffer_detach(&back, &back_size));
        CHECK(back == buffer && back_size == size_needed);
        free(buffer);
    } else if (rank == 1) {
        int data[100];
        CHECK_OK(MPI_Recv(data, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 2; i >= 0; i--) {
            CHECK_OK(MPI_Recv(data, 100, MPI_INT, 0, 20 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            check_filled(data, 100, i);
        }
    }
}

/* Sendrecv and Sendrecv_replace around a ring of all ranks. */
static void sendrecv_around_a_ring(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1,
                          MPI_COMM_WORLD, &st));
    CHECK(in == left && st.MPI_SOURCE == left);
    int v[3] = {rank, rank, rank};
    CHECK_OK(MPI_Sendrecv_replace(v, 3, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, &st));
    CHECK(v[0] == left && v[2] == left);
}

/* MPI_Request_free on an active send: the message is still delivered. */
static void freed_request_still_delivers(void)
{
    if (rank == 0) {
        static int big[50000];
        big[0] = 9;
        MPI_Request r;
        CHECK_OK(MPI_Isend(big, 50000, MPI_INT, 1, 50, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL);
        int ack;
        CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
        static int big[50000];
        CHECK_OK(MPI_Recv(big, 50000, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(big[0] == 9);
        int ack = 1;
        CHECK_OK(MPI_Send(&ack, 1, MPI_INT, 0, 51, MPI_COMM_WORLD));
    }
}

/* Pair types keep their padding out of the data: MPI_DOUBLE_INT moves
 * the double and the int of each element. */
static void pair_types_travel(void)
{
    struct { double d; int i; } out[4], in[4];
    for (int k = 0; k < 4; k++) {
        out[k].d = rank + k * 0.5;
        out[k].i = rank * 10 + k;
    }
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(out, 4, MPI_DOUBLE_INT, peer, 0, in, 4, MPI_DOUBLE_INT, peer, 0,
                          MPI_COMM_WORLD, &st));
    for (int k = 0; k < 4; k++)
        CHECK(in[k].d == peer + k * 0.5 && in[k].i == peer * 10 + k);
}

/* A rank waiting for a message spins while its worker has nothing else to
 * run; work that arrives for that worker must stop the spin. Ranks 0, 1 on
 * worker 0 and 2, 3 on worker 1 (4 ranks, 2 workers). In each round rank 1
 * wakes rank 0 and tells rank 3, then blocks (rank 0 is ready, so it
 * suspends); rank 0 runs and waits for rank 3 with nothing else to run on
 * worker 0: it spins. Rank 3 has rank 2 send to rank 1, which is woken on
 * worker 0 while rank 0 spins there; only rank 1 can let rank 3 answer
 * rank 0. Rank 0 waits with MPI_Recv in even rounds and with MPI_Waitall
 * in odd ones (a request's own wait, and the rank's wait cell). Run with
 * MYR_SPIN_US=1000000: a spin that ignored the woken rank would hold every
 * round for a second (the test's time limit catches that; nothing here is
 * timed). Payloads are checked. */
static void spinning_waiter_lets_its_worker_run_others(void)
{
    if (size != 4)
        return;
    enum { TOKEN, TOLD, GO, WAKE, DONE, FINAL };
    for (int i = 0; i < 300; i++) {
        int v = -1, t = i * 8;
        switch (rank) {
        case 0:
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 1, t + TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i);
            if (i % 2 == 0) {
                CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 3, t + FINAL, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
            } else {
                int none;
                MPI_Request r[2];
                CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, 3, t + FINAL, MPI_COMM_WORLD, &r[0]));
                CHECK_OK(MPI_Irecv(&none, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
                CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            }
            CHECK(v == i * 4 + 3);
            break;
        case 1:
            CHECK_OK(MPI_Send(&i, 1, MPI_INT, 0, t + TOKEN, MPI_COMM_WORLD));
            CHECK_OK(MPI_Send(&i, 1, MPI_INT, 3, t + TOLD, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 2, t + WAKE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i * 4 + 2);
            v = i * 4 + 1;
            CHECK_OK(MPI_Send(&v, 1, MPI_INT, 3, t + DONE, MPI_COMM_WORLD));
            break;
        case 2:
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 3, t + GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i);
            v = i * 4 + 2;
            CHECK_OK(MPI_Send(&v, 1, MPI_INT, 1, t + WAKE, MPI_COMM_WORLD));
            break;
        default:
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 1, t + TOLD, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i);
            CHECK_OK(MPI_Send(&i, 1, MPI_INT, 2, t + GO, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 1, t + DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i * 4 + 1);
            v = i * 4 + 3;
            CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, t + FINAL, MPI_COMM_WORLD));
            break;
        }
    }
}

/* A receiver on an idle worker spins on its request for MYR_SPIN_US (1 us
 * here), its completer resumes nobody, and a receiver whose spin ends first
 * registers to be resumed: the sender's delays straddle the spin budget, so
 * that messages arrive while it spins, after it has registered and
 * suspended, and as it registers. A lost wake-up hangs (the CTest timeout);
 * every payload is checked. */
static void spinning_receiver_registers_when_its_spin_ends(void)
{
    if (size != 2)
        return;
    uint64_t seed = 88172645463325252u;
    for (int i = 0; i < 20000; i++) {
        int msg[4], ack = -1;
        if (rank == 0) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            double until = MPI_Wtime() + (double)(seed % 3000) * 1e-9;
            while (MPI_Wtime() < until)
                ;
            fill(msg, 4, i);
            CHECK_OK(MPI_Send(msg, 4, MPI_INT, 1, i % 7, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ack == i);
        } else {
            MPI_Status st;
            CHECK_OK(MPI_Recv(msg, 4, MPI_INT, 0, i % 7, MPI_COMM_WORLD, &st));
            check_filled(msg, 4, i);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == i % 7);
            CHECK_OK(MPI_Send(&i, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
        }
    }
}

static const test_case cases[] = {
    {"spinning_waiter_lets_its_worker_run_others", spinning_waiter_lets_its_worker_run_others},
    {"spinning_receiver_registers_when_its_spin_ends",
     spinning_receiver_registers_when_its_spin_ends},
    {"send_recv_between_pairs", send_recv_between_pairs},
    {"messages_do_not_overtake", messages_do_not_overtake},
    {"wildcards_receive_everything_in_order", wildcards_receive_everything_in_order},
    {"a_long_unexpected_queue_is_taken_in_any_order",
     a_long_unexpected_queue_is_taken_in_any_order},
    {"posted_receives_match_in_posting_order", posted_receives_match_in_posting_order},
    {"long_message_is_truncated", long_message_is_truncated},
    {"status_error_field_is_set_only_with_err_in_status",
     status_error_field_is_set_only_with_err_in_status},
    {"proc_null_completes_at_once", proc_null_completes_at_once},
    {"ssend_waits_for_the_match", ssend_waits_for_the_match},
    {"wait_and_test_families", wait_and_test_families},
    {"any_returns_completed_requests_in_start_order",
     any_returns_completed_requests_in_start_order},
    {"probe_and_matched_probe", probe_and_matched_probe},
    {"mprobe_races_receive_each_message_once", mprobe_races_receive_each_message_once},
    {"cancel_pending_operations", cancel_pending_operations},
    {"persistent_requests_restart", persistent_requests_restart},
    {"bsend_uses_the_attached_buffer", bsend_uses_the_attached_buffer},
    {"sendrecv_around_a_ring", sendrecv_around_a_ring},
    {"freed_request_still_delivers", freed_request_still_delivers},
    {"pair_types_travel", pair_types_travel},
};

int main(int argc, char **argv)
{
    int provided;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    int rc = RUN_TEST_CASES(argc, argv, cases);
    sync_all();
    CHECK_OK(MPI_Finalize());
    return rc;
}
