/* timebuf_calls.c — localtime, gmtime, ctime and asctime per rank
 * (launch/timebuf.c): each rank's results stay its own however the ranks
 * interleave, and read as glibc's do. Usage: timebuf_calls CASE. */
#include <mpi.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"

/* A writable global (the same value in every rank): under the default
 * mode the program runs with private globals, as most programs do;
 * mpi.timebuf_shared.* run it with one set (MYR_PRIVATIZE=never). */
const char *timebuf_test_case;

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int same_tm(const struct tm *a, const struct tm *b)
{
    return a->tm_sec == b->tm_sec && a->tm_min == b->tm_min && a->tm_hour == b->tm_hour &&
           a->tm_mday == b->tm_mday && a->tm_mon == b->tm_mon && a->tm_year == b->tm_year &&
           a->tm_wday == b->tm_wday && a->tm_yday == b->tm_yday && a->tm_isdst == b->tm_isdst;
}

/* Every rank asks for its own time and yields before reading the result:
 * the others' calls in between must not show through. */
static void each_rank_keeps_its_own_results(void)
{
    int me = world_rank();
    for (int i = 0; i < 500; i++) {
        time_t t = (time_t)(me + 1) * 86400 * 37 + i * 3671;
        struct tm want;
        char want_text[64];
        CHECK(gmtime_r(&t, &want) != NULL);
        CHECK(asctime_r(&want, want_text) != NULL);

        struct tm *got = gmtime(&t);
        MPIX_Yield();
        CHECK(got && same_tm(got, &want));
        char *text = asctime(&want);
        MPIX_Yield();
        CHECK(text && strcmp(text, want_text) == 0);

        CHECK(localtime_r(&t, &want) != NULL);
        CHECK(asctime_r(&want, want_text) != NULL);
        got = localtime(&t);
        MPIX_Yield();
        CHECK(got && same_tm(got, &want));
        text = ctime(&t);
        MPIX_Yield();
        CHECK(text && strcmp(text, want_text) == 0);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* As in glibc: localtime and gmtime share one struct tm, asctime and ctime
 * one string (a later call overwrites an earlier result). */
static void results_shared_as_in_a_process(void)
{
    time_t a = 1000000000, b = 2000000000;
    struct tm *first = localtime(&a);
    struct tm *second = gmtime(&b);
    CHECK(first == second);
    struct tm want;
    CHECK(gmtime_r(&b, &want) && same_tm(first, &want));
    char *s1 = ctime(&a);
    char *s2 = asctime(&want);
    CHECK(s1 == s2);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* asctime's text against libc's own asctime (called on rank 0 alone, the
 * others waiting: libc's result is one string for the whole process), for
 * ordinary dates, days and months out of range, and years up to the
 * largest that fits. */
static void same_text_as_libc(void)
{
    if (world_rank() == 0) {
        void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
        CHECK(libc != NULL);
        char *(*libc_asctime)(const struct tm *) =
            (char *(*)(const struct tm *))dlsym(libc, "asctime");
        CHECK(libc_asctime != NULL && libc_asctime != asctime);
        static const struct tm cases[] = {
            {.tm_year = 70, .tm_mday = 1},
            {.tm_sec = 59, .tm_min = 59, .tm_hour = 23, .tm_mday = 31, .tm_mon = 11,
             .tm_year = 199, .tm_wday = 6},
            {.tm_mday = 5, .tm_mon = 12, .tm_year = 100, .tm_wday = 7},
            {.tm_mday = -3, .tm_mon = -1, .tm_year = -1900, .tm_wday = -1},
            {.tm_mday = 9, .tm_mon = 3, .tm_year = 1000000, .tm_wday = 2},
            {.tm_mday = 9, .tm_mon = 3, .tm_year = INT_MAX - 1900, .tm_wday = 2},
            {.tm_mday = 9, .tm_mon = 3, .tm_year = INT_MIN, .tm_wday = 2},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            char *theirs = libc_asctime(&cases[i]);
            CHECK(theirs != NULL);
            char copy[128];
            strcpy(copy, theirs);
            char *mine = asctime(&cases[i]);
            CHECK(mine && strcmp(mine, copy) == 0);
        }
        /* A year past INT_MAX: both refuse, with EOVERFLOW. */
        struct tm too_late = {.tm_mday = 1, .tm_year = INT_MAX - 1899};
        errno = 0;
        CHECK(libc_asctime(&too_late) == NULL && errno == EOVERFLOW);
        errno = 0;
        CHECK(asctime(&too_late) == NULL && errno == EOVERFLOW);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* localtime follows a change of TZ, as libc's does (rank 0 alone changes
 * the environment while the others wait). */
static void localtime_follows_tz(void)
{
    if (world_rank() == 0) {
        time_t t = 1700000000;
        CHECK(setenv("TZ", "UTC0", 1) == 0);
        int utc_hour = localtime(&t)->tm_hour;
        CHECK(setenv("TZ", "EST5", 1) == 0);
        int est_hour = localtime(&t)->tm_hour;
        CHECK((utc_hour - est_hour + 24) % 24 == 5);
        CHECK(unsetenv("TZ") == 0);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static const test_case cases[] = {
    {"each_rank_keeps_its_own_results", each_rank_keeps_its_own_results},
    {"results_shared_as_in_a_process", results_shared_as_in_a_process},
    {"same_text_as_libc", same_text_as_libc},
    {"localtime_follows_tz", localtime_follows_tz},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    timebuf_test_case = argc > 1 ? argv[1] : "";
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
