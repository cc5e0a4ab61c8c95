/* strtok_calls.c — strtok per rank (launch/strtok.c): each rank goes on in
 * its own string, however the ranks interleave (they yield between calls,
 * on two workers), with libc's strtok semantics otherwise.
 * Usage: strtok_calls CASE. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

/* A writable global (the same value in every rank): under the default
 * mode the program then runs with private globals, as most programs do;
 * mpi.strtok_shared.* run it with one set (MYR_PRIVATIZE=never). */
const char *strtok_test_case;

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

/* "<rank>.0,<rank>.1,...": `n` tokens that name their rank. */
static char *numbered_tokens(int rank, int n)
{
    size_t cap = (size_t)n * 24 + 1;
    char *s = malloc(cap);
    CHECK(s != NULL);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%d.%d", i ? ",," : ",", rank, i);
    return s;
}

static void each_rank_goes_on_in_its_own_string(void)
{
    int me = world_rank();
    for (int round = 0; round < 20; round++) {
        const int n = 200;
        char *s = numbered_tokens(me, n);
        char want[32];
        int i = 0;
        for (char *t = strtok(s, ","); t; t = strtok(NULL, ","), i++) {
            snprintf(want, sizeof want, "%d.%d", me, i);
            CHECK(strcmp(t, want) == 0);
            if ((i + round) % 3 == 0)
                MPIX_Yield();
        }
        CHECK(i == n);
        free(s);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* The pattern that failed in MPICH's harness (mtest_common.c): split
 * "-name=value", free the copy, next argument; every rank at once. */
static void name_value_arguments_split_in_every_rank(void)
{
    int me = world_rank();
    for (int i = 0; i < 2000; i++) {
        char arg[64];
        snprintf(arg, sizeof arg, "-rank%d=%d", me, i);
        char *copy = strdup(arg);
        CHECK(copy != NULL);
        char *name = strtok(copy, "=");
        MPIX_Yield();
        char *value = strtok(NULL, "=");
        char want[32];
        snprintf(want, sizeof want, "-rank%d", me);
        CHECK(name && strcmp(name, want) == 0);
        CHECK(value && atoi(value) == i);
        CHECK(strtok(NULL, "=") == NULL);
        free(copy);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Against strtok_r (which libmyriad leaves alone) on the same inputs:
 * leading, repeated and trailing delimiters, no token at all, a delimiter
 * set that changes between calls, and a new string mid-way. */
static void same_tokens_as_strtok_r(void)
{
    static const char *const inputs[] = {
        "a b c", "  lead and trail  ", ",,,", "", "one", "x;y z;;w ", "a:b=c:d",
    };
    static const char *const delims[] = {" ", ",", " ;", ":=", ""};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++)
        for (size_t d = 0; d < sizeof delims / sizeof *delims; d++) {
            char *mine = strdup(inputs[i]), *theirs = strdup(inputs[i]);
            CHECK(mine && theirs);
            char *save = NULL;
            const char *delim = delims[d];
            char *a = strtok(mine, delim), *b = strtok_r(theirs, delim, &save);
            for (int k = 0;; k++) {
                CHECK((a == NULL) == (b == NULL));
                if (!a)
                    break;
                CHECK(a - mine == b - theirs);
                CHECK(strcmp(a, b) == 0);
                MPIX_Yield();
                /* From the third token on, split at every delimiter we know. */
                if (k == 1)
                    delim = " ,;:=";
                a = strtok(NULL, delim);
                b = strtok_r(NULL, delim, &save);
            }
            /* Exhausted: it stays so. */
            CHECK(strtok(NULL, delim) == NULL);
            free(mine);
            free(theirs);
        }
    /* A new string restarts at once, even before the old one is done. */
    char first[] = "p q r", second[] = "x y";
    CHECK(strcmp(strtok(first, " "), "p") == 0);
    CHECK(strcmp(strtok(second, " "), "x") == 0);
    CHECK(strcmp(strtok(NULL, " "), "y") == 0);
    CHECK(strtok(NULL, " ") == NULL);
}

/* Its place survives the rank's other MPI calls and switches. */
static void place_kept_across_mpi_calls(void)
{
    int me = world_rank(), size;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char *s = numbered_tokens(me, 8);
    char want[32];
    char *t = strtok(s, ",");
    for (int i = 0; i < 8; i++) {
        snprintf(want, sizeof want, "%d.%d", me, i);
        CHECK(t && strcmp(t, want) == 0);
        int token_sum = 0;
        CHECK_OK(MPI_Allreduce(&i, &token_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(token_sum == i * size);
        t = strtok(NULL, ",");
    }
    CHECK(t == NULL);
    free(s);
}

static const test_case cases[] = {
    {"each_rank_goes_on_in_its_own_string", each_rank_goes_on_in_its_own_string},
    {"name_value_arguments_split_in_every_rank", name_value_arguments_split_in_every_rank},
    {"same_tokens_as_strtok_r", same_tokens_as_strtok_r},
    {"place_kept_across_mpi_calls", place_kept_across_mpi_calls},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    strtok_test_case = argc > 1 ? argv[1] : "";
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
