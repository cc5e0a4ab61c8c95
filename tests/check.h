/* check.h — the assertion every test program uses: it names the file, the
 * line and the failed condition, then ends the program with status 1. */
#ifndef MYR_TEST_CHECK_H
#define MYR_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 32-bit integer hash (xor-shift-multiply): the stress tests derive
 * sizes, partners and payload bytes from it, so that a receiver can
 * recompute what a sender sent. */
static inline uint32_t check_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* For functions returning MYR_OK (0) or an error code. */
#define CHECK_OK(expr)                                                       \
    do {                                                                     \
        int check_rc_ = (expr);                                              \
        if (check_rc_ != 0) {                                                \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__,   \
                    #expr, check_rc_);                                       \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* A test program holds several behaviours; CTest runs each by name:
 * `prog CASE`. */
typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

static inline int run_test_case(int argc, char **argv, const test_case *cases,
                                size_t ncases)
{
    for (size_t i = 0; argc == 2 && i < ncases; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            printf("%s: ok\n", argv[1]);
            return 0;
        }
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}

/* Lines of /proc/self/maps: the process's memory mappings (VMAs), counted
 * independently of the library under test. */
static inline long check_mapping_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

#define RUN_TEST_CASES(argc, argv, cases) \
    run_test_case(argc, argv, cases, sizeof(cases) / sizeof((cases)[0]))

#endif
