/* random_calls.c — rand()/random() per rank (launch/random.c): each rank
 * draws its own sequence, the one glibc gives a process for that seed,
 * however the ranks interleave (they yield between draws, on two workers).
 * Usage: random_calls CASE. */
#define _DEFAULT_SOURCE
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "../check.h"

/* glibc's own generator for `seed`, as the oracle (random_r is not
 * interposed). */
typedef struct oracle {
    struct random_data buf;
    char state[128];
} oracle;

static void oracle_seed(oracle *o, unsigned seed)
{
    memset(o, 0, sizeof *o);
    CHECK(initstate_r(seed, o->state, sizeof o->state, &o->buf) == 0);
}

static int oracle_next(oracle *o)
{
    int32_t v;
    CHECK(random_r(&o->buf, &v) == 0);
    return v;
}

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static void each_rank_draws_its_own_sequence(void)
{
    int me = world_rank();
    oracle o;
    oracle_seed(&o, 1000u + (unsigned)me);
    srand(1000u + (unsigned)me);
    for (int i = 0; i < 2000; i++) {
        CHECK(rand() == oracle_next(&o));
        if (i % 7 == 0)
            MPIX_Yield();
    }
    /* random()/srandom() are the same generator. */
    srandom(5);
    oracle_seed(&o, 5);
    for (int i = 0; i < 100; i++) {
        CHECK(random() == oracle_next(&o));
        MPIX_Yield();
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Seeded alike, every rank draws alike (MPICH's comm_group_rand relies on
 * it to pick the same random groups everywhere). */
static void same_seed_same_numbers_in_every_rank(void)
{
    unsigned long sum = 0;   /* wraps: a checksum */
    for (int round = 0; round < 20; round++) {
        srand((unsigned)round);
        for (int i = 0; i < 50; i++) {
            sum = sum * 31 + (unsigned long)(rand() % 1000);
            MPIX_Yield();
        }
    }
    unsigned long lo, hi;
    CHECK_OK(MPI_Allreduce(&sum, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD));
    CHECK_OK(MPI_Allreduce(&sum, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi);
}

static void unseeded_rank_starts_at_seed_1(void)
{
    oracle o;
    oracle_seed(&o, 1);
    for (int i = 0; i < 100; i++)
        CHECK(rand() == oracle_next(&o));
}

static const test_case cases[] = {
    {"each_rank_draws_its_own_sequence", each_rank_draws_its_own_sequence},
    {"same_seed_same_numbers_in_every_rank", same_seed_same_numbers_in_every_rank},
    {"unseeded_rank_starts_at_seed_1", unseeded_rank_starts_at_seed_1},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
