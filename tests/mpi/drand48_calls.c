/* drand48_calls.c — the drand48 family per rank (launch/drand48.c): each
 * rank steps its own state, the sequence glibc gives a process for that
 * seed, however the ranks interleave (they yield between draws, on two
 * workers). Usage: drand48_calls CASE. */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "../check.h"

/* A writable global (the same value in every rank): under the default
 * mode the program runs with private globals, as most programs do;
 * mpi.drand48_shared.* run it with one set (MYR_PRIVATIZE=never). */
const char *drand48_test_case;

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

/* The oracle: glibc's reentrant functions on a state of our own, which
 * libmyriad leaves alone. */
static void oracle_seed(struct drand48_data *o, long seed)
{
    memset(o, 0, sizeof *o);
    CHECK(srand48_r(seed, o) == 0);
}

static void each_rank_draws_its_own_sequence(void)
{
    int me = world_rank();
    struct drand48_data o;
    oracle_seed(&o, 1000 + me);
    srand48(1000 + me);
    for (int i = 0; i < 3000; i++) {
        switch (i % 3) {
        case 0: {
            double want;
            CHECK(drand48_r(&o, &want) == 0);
            CHECK(drand48() == want);
            break;
        }
        case 1: {
            long want;
            CHECK(lrand48_r(&o, &want) == 0);
            CHECK(lrand48() == want);
            break;
        }
        default: {
            long want;
            CHECK(mrand48_r(&o, &want) == 0);
            CHECK(mrand48() == want);
        }
        }
        if (i % 5 == 0)
            MPIX_Yield();
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Seeded alike, every rank draws alike. */
static void same_seed_same_numbers_in_every_rank(void)
{
    unsigned long sum = 0;   /* wraps: a checksum */
    for (int round = 0; round < 20; round++) {
        srand48(round);
        for (int i = 0; i < 50; i++) {
            sum = sum * 31 + (unsigned long)lrand48();
            MPIX_Yield();
        }
    }
    unsigned long lo, hi;
    CHECK_OK(MPI_Allreduce(&sum, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD));
    CHECK_OK(MPI_Allreduce(&sum, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi);
}

/* Never seeded: the sequence of a fresh process (glibc's zeroed state). */
static void unseeded_rank_starts_as_a_process_does(void)
{
    struct drand48_data o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < 100; i++) {
        double want;
        CHECK(drand48_r(&o, &want) == 0);
        CHECK(drand48() == want);
        MPIX_Yield();
    }
}

/* seed48 returns the state it replaces; lcong48's multiplier and addend
 * are the rank's, and erand48, nrand48 and jrand48 step the caller's
 * state with them. */
static void seed48_lcong48_and_the_callers_state(void)
{
    int me = world_rank();
    struct drand48_data o;
    oracle_seed(&o, 77 + me);
    srand48(77 + me);
    unsigned short seed[3] = {(unsigned short)(0x1234 + me), 0x5678, 0x9abc};
    unsigned short oseed[3];
    memcpy(oseed, seed, sizeof seed);
    unsigned short *old = seed48(seed);
    CHECK(seed48_r(oseed, &o) == 0);
    MPIX_Yield();
    CHECK(memcmp(old, o.__old_x, sizeof o.__old_x) == 0);
    unsigned short param[7] = {(unsigned short)(3 + me), 5, 7, 0xe66d, 0xdeec, 0x0005, 0x0b};
    lcong48(param);
    CHECK(lcong48_r(param, &o) == 0);
    unsigned short x[3] = {1, 2, (unsigned short)me}, ox[3] = {1, 2, (unsigned short)me};
    for (int i = 0; i < 300; i++) {
        MPIX_Yield();
        switch (i % 4) {
        case 0: {
            double want;
            CHECK(erand48_r(ox, &o, &want) == 0);
            CHECK(erand48(x) == want);
            break;
        }
        case 1: {
            long want;
            CHECK(nrand48_r(ox, &o, &want) == 0);
            CHECK(nrand48(x) == want);
            break;
        }
        case 2: {
            long want;
            CHECK(jrand48_r(ox, &o, &want) == 0);
            CHECK(jrand48(x) == want);
            break;
        }
        default: {
            double want;   /* the rank's own state, with lcong48's parameters */
            CHECK(drand48_r(&o, &want) == 0);
            CHECK(drand48() == want);
        }
        }
        CHECK(memcmp(x, ox, sizeof x) == 0);
    }
}

static const test_case cases[] = {
    {"each_rank_draws_its_own_sequence", each_rank_draws_its_own_sequence},
    {"same_seed_same_numbers_in_every_rank", same_seed_same_numbers_in_every_rank},
    {"unseeded_rank_starts_as_a_process_does", unseeded_rank_starts_as_a_process_does},
    {"seed48_lcong48_and_the_callers_state", seed48_lcong48_and_the_callers_state},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    drand48_test_case = argc > 1 ? argv[1] : "";
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
