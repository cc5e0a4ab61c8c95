/* ult_calls.c — MPI_THREAD_MULTIPLE with ULTs a rank spawns (myr_ult.h):
 * T ULTs per rank, each paired with ULT t of a partner rank, talk through
 * blocking point-to-point and collectives at once, every payload checked.
 * ULT t's partner is collocated for odd t and, when the job spans several
 * OS processes (tests/net), in the other half of the job for even t.
 * Usage: ult_calls CASE (the job needs an even number of ranks). */
#include <mpi.h>
#include <myr_ult.h>

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
    ULT_CASE_ENTRIES(1),
    ULT_CASE_ENTRIES(8),
    ULT_CASE_ENTRIES(64),
};

int main(int argc, char **argv)
{
    return run_test_case(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
