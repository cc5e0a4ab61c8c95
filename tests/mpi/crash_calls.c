/* crash_calls.c — a fatal signal in one rank's code ends the job with a
 * report naming the rank, the signal and its cause, and a symbolised
 * backtrace of that rank's stack (ult/overflow.c). Usage: crash_calls CASE;
 * rank 2 crashes while the others wait in a barrier. */
#include <mpi.h>

/* A failed assert is one of the cases: it must stay in a build type that
 * defines NDEBUG (Release). */
#undef NDEBUG
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"

/* Out of line and opaque to the optimiser, so each is a frame of its own
 * and its fault happens where the source says. */
__attribute__((noinline)) void store_through_null(int *volatile p)
{
    *p = 7;
}

__attribute__((noinline)) int divide_by(volatile int d)
{
    return 100 / d;
}

/* Deep enough for any stack: each frame keeps 1 KiB live. */
__attribute__((noinline)) int recurse(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    return depth > 1 << 30 ? frame[0] : recurse(depth + 1) + frame[0];
}

static void crash_in_rank_2(const char *how)
{
    int me;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (me == 2) {
        if (strcmp(how, "segfault") == 0)
            store_through_null(NULL);
        else if (strcmp(how, "divide") == 0)
            printf("%d\n", divide_by(0));
        else if (strcmp(how, "overflow") == 0)
            printf("%d\n", recurse(0));
        else
            assert(me != 2 && "rank 2 asserts");
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void segfault_in_a_rank(void)
{
    crash_in_rank_2("segfault");
}

static void divide_by_zero_in_a_rank(void)
{
    crash_in_rank_2("divide");
}

static void stack_overflow_in_a_rank(void)
{
    crash_in_rank_2("overflow");
}

static void failed_assert_in_a_rank(void)
{
    crash_in_rank_2("assert");
}

static const test_case cases[] = {
    {"segfault_in_a_rank", segfault_in_a_rank},
    {"divide_by_zero_in_a_rank", divide_by_zero_in_a_rank},
    {"failed_assert_in_a_rank", failed_assert_in_a_rank},
    {"stack_overflow_in_a_rank", stack_overflow_in_a_rank},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
