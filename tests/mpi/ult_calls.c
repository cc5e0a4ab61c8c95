/* ult_calls.c — MPI_THREAD_MULTIPLE with ULTs a rank spawns (myr_ult.h):
 * T ULTs per rank, each paired with ULT t of a partner rank, talk through
 * blocking point-to-point and collectives at once, every payload checked.
 * ULT t's partner is collocated for odd t and, when the job spans several
 * OS processes (tests/net), in the other half of the job for even t.
 * Usage: ult_calls CASE (the job needs an even number of ranks). */
#include <mpi.h>
#include <myr_ult.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)

enum { MAX_T = 64, MAX_WORDS = 20000 };

/* Messages of 8 B, 1 KiB and 80 KB: eager and rendezvous across processes. */
static const int sizes[] = {2, 256, MAX_WORDS};

typedef struct ult_arg {
    int t, nt, rank, size;
    MPI_Comm comm;  /* MPI_COMM_WORLD, or a communicator of ULT t's own */
} ult_arg;

static int partner_of(int rank, int size, int t)
{
    return t % 2 ? rank ^ 1 : (rank + size / 2) % size;
}

static unsigned word(int from, int t, int round, int i)
{
    return (unsigned)from * 2654435761u ^ (unsigned)t * 40503u ^ (unsigned)round * 977u ^
           (unsigned)i;
}

static int rounds_for(int nt)
{
    return nt >= 64 ? 24 : nt >= 8 ? 60 : 200;
}

static void fill(unsigned *buf, int n, int from, int t, int round)
{
    for (int i = 0; i < n; i++)
        buf[i] = word(from, t, round, i);
}

static void check_payload(const unsigned *buf, int n, int from, int t, int round)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == word(from, t, round, i));
}

/* One round: the lower rank of the pair sends first. The receive names
 * its source or takes MPI_ANY_SOURCE, and with `any_tag` MPI_ANY_TAG (the
 * tag then carries the round); the status must say who sent what. */
static void ping_pong_round(const ult_arg *a, int peer, int round, int tag, bool any_tag,
                            unsigned *out, unsigned *in)
{
    int n = sizes[round % 3];
    int src = round % 2 ? MPI_ANY_SOURCE : peer;
    for (int leg = 0; leg < 2; leg++) {
        bool sending = (leg == 0) == (a->rank < peer);
        if (sending) {
            fill(out, n, a->rank, a->t, round);
            CHECK_MPI(MPI_Send(out, n, MPI_UNSIGNED, peer, tag, a->comm));
        } else {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(in, MAX_WORDS, MPI_UNSIGNED, src, any_tag ? MPI_ANY_TAG : tag,
                               a->comm, &st));
            int count;
            CHECK_MPI(MPI_Get_count(&st, MPI_UNSIGNED, &count));
            CHECK(count == n);
            CHECK(st.MPI_SOURCE == peer);
            CHECK(st.MPI_TAG == tag);
            check_payload(in, n, peer, a->t, round);
        }
    }
}

static void *ping_pong_ult(void *arg)
{
    const ult_arg *a = arg;
    int level, rank;
    CHECK_MPI(MPI_Query_thread(&level));
    CHECK(level == MPI_THREAD_MULTIPLE);
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(rank == a->rank);
    int main_thread;
    CHECK_MPI(MPI_Is_thread_main(&main_thread));
    CHECK(!main_thread);  /* the rank's own ULT is its main thread */
    unsigned *out = malloc(MAX_WORDS * sizeof *out), *in = malloc(MAX_WORDS * sizeof *in);
    CHECK(out && in);
    int peer = partner_of(a->rank, a->size, a->t);
    for (int round = 0; round < rounds_for(a->nt); round++)
        ping_pong_round(a, peer, round, a->t, false, out, in);
    free(out);
    free(in);
    return NULL;
}

/* Point-to-point with MPI_ANY_TAG and MPI_ANY_SOURCE is safe only on a
 * communicator no other ULT uses: each ULT duplicates its own (the
 * duplications of all ULTs run at once), then ping-pongs and runs
 * collectives on it, next to the other ULTs doing the same. */
static void *own_comm_ult(void *arg)
{
    ult_arg *a = arg;
    MPI_Comm mine;
    CHECK_MPI(MPI_Comm_dup(a->comm, &mine));
    ult_arg on_mine = *a;
    on_mine.comm = mine;
    unsigned *out = malloc(MAX_WORDS * sizeof *out), *in = malloc(MAX_WORDS * sizeof *in);
    CHECK(out && in);
    int peer = partner_of(a->rank, a->size, a->t);
    for (int round = 0; round < rounds_for(a->nt); round++)
        ping_pong_round(&on_mine, peer, round, round % 100, true, out, in);

    /* Collectives: every rank's ULT t takes part on its communicator. */
    long mine_v = (long)a->rank * a->nt + a->t, sum;
    CHECK_MPI(MPI_Allreduce(&mine_v, &sum, 1, MPI_LONG, MPI_SUM, mine));
    long expect = 0;
    for (int r = 0; r < a->size; r++)
        expect += (long)r * a->nt + a->t;
    CHECK(sum == expect);
    int root = a->t % a->size;
    for (int round = 0; round < 4; round++) {
        int n = sizes[round % 3];
        if (a->rank == root)
            fill(out, n, root, a->t, round);
        CHECK_MPI(MPI_Bcast(out, n, MPI_UNSIGNED, root, mine));
        check_payload(out, n, root, a->t, round);
    }
    long *all = malloc((size_t)a->size * sizeof *all);
    CHECK(all);
    CHECK_MPI(MPI_Allgather(&mine_v, 1, MPI_LONG, all, 1, MPI_LONG, mine));
    for (int r = 0; r < a->size; r++)
        CHECK(all[r] == (long)r * a->nt + a->t);
    CHECK_MPI(MPI_Barrier(mine));
    free(all);
    free(out);
    free(in);
    CHECK_MPI(MPI_Comm_free(&mine));
    return NULL;
}

/* The rank's main ULT: MPI_THREAD_MULTIPLE, nt ULTs running fn, joined. */
static void run_ults(int nt, void *(*fn)(void *), bool own_comms)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    int main_thread;
    CHECK_MPI(MPI_Is_thread_main(&main_thread));
    CHECK(main_thread);
    ult_arg args[MAX_T];
    myr_ult_t *ults[MAX_T];
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size % 2 == 0);
    for (int t = 0; t < nt; t++) {
        args[t] = (ult_arg){.t = t, .nt = nt, .rank = rank, .size = size,
                            .comm = MPI_COMM_WORLD};
        /* Collective: one after the other, in the rank's main ULT. */
        if (own_comms)
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &args[t].comm));
    }
    for (int t = 0; t < nt; t++)
        CHECK_OK(myr_ult_spawn(&ults[t], fn, &args[t]));
    for (int t = 0; t < nt; t++)
        CHECK_OK(myr_ult_join(ults[t], NULL));
    for (int t = 0; t < nt && own_comms; t++)
        CHECK_MPI(MPI_Comm_free(&args[t].comm));
    CHECK_MPI(MPI_Finalize());
}

/* ---- a ULT waits for the collectives the main ULT goes on starting ------
 *
 * Under MPI_THREAD_MULTIPLE the rank's MPI_Wait on a collective (which may
 * join its round and finish it, coll/nbc.c) runs while another ULT of the
 * rank starts the next collectives on the same communicator: the FIFO's
 * finisher and its starts race, and so do the completer's claim of its own
 * operation and the waiter's join. The main ULT starts Ibarrier, Iallreduce
 * and Ibcast (from a moving root) in the same order on every rank and hands
 * each request to a waiter ULT through a ring of SLOTS; the waiter waits for
 * them in order and checks every payload; now and then the main ULT waits
 * for one itself first, or runs a blocking Allreduce (it follows the
 * pending ones). */
enum { SLOTS = 4, HANDOFF_ITERS = 3000 };

typedef struct handoff {
    MPI_Request req[SLOTS];
    int kind[SLOTS], mine[SLOTS], result[SLOTS], expect[SLOTS];
    _Atomic int started, waited;   /* operations handed over, and retired */
    int iters;
} handoff;

static void *handoff_waiter(void *arg)
{
    handoff *h = arg;
    for (int i = 0; i < h->iters; i++) {
        while (atomic_load(&h->started) <= i)
            myr_ult_yield();
        int k = i % SLOTS;
        CHECK_MPI(MPI_Wait(&h->req[k], MPI_STATUS_IGNORE));
        CHECK(h->req[k] == MPI_REQUEST_NULL);
        if (h->kind[k] != 0)
            CHECK(h->result[k] == h->expect[k]);
        atomic_store(&h->waited, i + 1);
    }
    return NULL;
}

static void a_ult_waits_for_collectives_the_main_ult_goes_on_starting(void)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    handoff *h = calloc(1, sizeof *h);
    CHECK(h);
    h->iters = size > 16 ? HANDOFF_ITERS / 10 : size > 2 ? HANDOFF_ITERS / 3 : HANDOFF_ITERS;
    myr_ult_t *waiter;
    CHECK_OK(myr_ult_spawn(&waiter, handoff_waiter, h));
    for (int i = 0; i < h->iters; i++) {
        while (i - atomic_load(&h->waited) >= SLOTS)
            myr_ult_yield();
        int k = i % SLOTS, kind = i % 3;
        MPI_Comm c = i % 2 ? comm : MPI_COMM_WORLD;
        h->kind[k] = kind;
        if (kind == 0) {
            CHECK_MPI(MPI_Ibarrier(c, &h->req[k]));
        } else if (kind == 1) {
            h->mine[k] = rank + i;
            h->result[k] = -1;
            h->expect[k] = size * (size - 1) / 2 + size * i;
            CHECK_MPI(MPI_Iallreduce(&h->mine[k], &h->result[k], 1, MPI_INT, MPI_SUM, c,
                                     &h->req[k]));
        } else {
            int root = i % size;
            h->expect[k] = 5 * i + root;
            h->result[k] = rank == root ? h->expect[k] : -1;
            CHECK_MPI(MPI_Ibcast(&h->result[k], 1, MPI_INT, root, c, &h->req[k]));
        }
        if (i % 11 == 0) {
            int least = -1;
            CHECK_MPI(MPI_Allreduce(&rank, &least, 1, MPI_INT, MPI_MIN, c));
            CHECK(least == 0);
        }
        atomic_store(&h->started, i + 1);
    }
    CHECK_OK(myr_ult_join(waiter, NULL));
    CHECK(atomic_load(&h->waited) == h->iters);
    free(h);
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Finalize());
}

#define ULT_CASES(t)                                                              \
    static void ult_pairs_ping_pong_on_their_own_tags_##t(void)                   \
    {                                                                             \
        run_ults(t, ping_pong_ult, false);                                        \
    }                                                                             \
    static void ults_use_any_tag_and_collectives_on_own_communicators_##t(void)   \
    {                                                                             \
        run_ults(t, own_comm_ult, true);                                          \
    }
ULT_CASES(1)
ULT_CASES(8)
ULT_CASES(64)

#define ULT_CASE_ENTRIES(t)                                                          \
    {"ult_pairs_ping_pong_on_their_own_tags_" #t,                                   \
     ult_pairs_ping_pong_on_their_own_tags_##t},                                    \
        {"ults_use_any_tag_and_collectives_on_own_communicators_" #t,               \
         ults_use_any_tag_and_collectives_on_own_communicators_##t}

static const test_case cases[] = {
    {"a_ult_waits_for_collectives_the_main_ult_goes_on_starting",
     a_ult_waits_for_collectives_the_main_ult_goes_on_starting},
    ULT_CASE_ENTRIES(1),
    ULT_CASE_ENTRIES(8),
    ULT_CASE_ENTRIES(64),
};

int main(int argc, char **argv)
{
    return run_test_case(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
