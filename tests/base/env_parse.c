/* env_parse.c — reading environment variables: the table, unset and empty
 * values, and the parsers for sizes and integers. Usage: env_parse CASE. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "../check.h"
#include "base/env.h"

static size_t size_of(const char *text)
{
    size_t out = 12345;
    if (myr_env_parse_size(text, &out) != 0) {
        fprintf(stderr, "\"%s\" was not accepted as a size\n", text);
        CHECK(!"size accepted");
    }
    return out;
}

static void check_size_refused(const char *text)
{
    size_t out = 12345;
    if (myr_env_parse_size(text, &out) != -1 || out != 12345) {
        fprintf(stderr, "\"%s\" was accepted as the size %zu\n",
                text ? text : "(null)", out);
        CHECK(!"size refused");
    }
}

/* A plain number is a size in bytes. */
static void size_without_suffix_is_bytes(void)
{
    CHECK(size_of("0") == 0);
    CHECK(size_of("4096") == 4096);
    CHECK(size_of("65536") == 65536);
    CHECK(size_of("18446744073709551615") == SIZE_MAX);
}

/* k, M and g (either case, optionally followed by b or B) multiply by
 * powers of 1024. */
static void size_suffixes_are_powers_of_1024(void)
{
    CHECK(size_of("64k") == 64 * 1024);
    CHECK(size_of("64K") == 64 * 1024);
    CHECK(size_of("1M") == 1024 * 1024);
    CHECK(size_of("1m") == 1024 * 1024);
    CHECK(size_of("2g") == 2ull << 30);
    CHECK(size_of("2G") == 2ull << 30);
    CHECK(size_of("256kb") == 256 * 1024);
    CHECK(size_of("100b") == 100);
    CHECK(size_of("8MB") == 8 * 1024 * 1024);
    CHECK(size_of("0k") == 0);
}

/* Anything else is not a size: empty text, signs, spaces, unknown or
 * repeated suffixes, other bases. */
static void size_refuses_what_is_not_a_size(void)
{
    check_size_refused(NULL);
    check_size_refused("");
    check_size_refused("12x");
    check_size_refused("-1");
    check_size_refused("+1");
    check_size_refused(" 1");
    check_size_refused("1 ");
    check_size_refused("1 k");
    check_size_refused("k");
    check_size_refused("1kk");
    check_size_refused("1t");
    check_size_refused("1kbb");
    check_size_refused("0x10");
    check_size_refused("1.5M");
}

/* A size that does not fit in size_t is refused, not wrapped around. */
static void size_refuses_overflow(void)
{
    check_size_refused("18446744073709551616");      /* 2^64 */
    check_size_refused("99999999999999999999999");
    check_size_refused("18014398509481984k");        /* 2^54 KiB = 2^64 */
    check_size_refused("17592186044416M");           /* 2^44 MiB = 2^64 */
    check_size_refused("17179869184g");              /* 2^34 GiB = 2^64 */
    CHECK(size_of("18014398509481983k") == SIZE_MAX - 1023);
    CHECK(size_of("17179869183g") == (size_t)17179869183 << 30);
}

static long long_of(const char *text)
{
    long out = 12345;
    if (myr_env_parse_long(text, &out) != 0) {
        fprintf(stderr, "\"%s\" was not accepted as an integer\n", text);
        CHECK(!"integer accepted");
    }
    return out;
}

static void check_long_refused(const char *text)
{
    long out = 12345;
    if (myr_env_parse_long(text, &out) != -1 || out != 12345) {
        fprintf(stderr, "\"%s\" was accepted as the integer %ld\n",
                text ? text : "(null)", out);
        CHECK(!"integer refused");
    }
}

/* Non-negative decimal integers up to LONG_MAX are accepted. */
static void long_accepts_non_negative_decimals(void)
{
    CHECK(long_of("0") == 0);
    CHECK(long_of("50") == 50);
    CHECK(long_of("007") == 7);
    CHECK(long_of("9223372036854775807") == LONG_MAX);
}

/* Signs, spaces, suffixes, other bases and overflow are refused. */
static void long_refuses_what_is_not_a_non_negative_decimal(void)
{
    check_long_refused(NULL);
    check_long_refused("");
    check_long_refused("-1");
    check_long_refused("+1");
    check_long_refused(" 1");
    check_long_refused("1 ");
    check_long_refused("12x");
    check_long_refused("1k");
    check_long_refused("0x10");
    check_long_refused("9223372036854775808");
}

/* myr_env_get gives the raw value, and treats an empty value like an unset
 * variable. */
static void get_treats_empty_as_unset(void)
{
    const char *name = myr_env_table[MYR_ENV_SPIN_US].name;
    CHECK(unsetenv(name) == 0);
    CHECK(myr_env_get(MYR_ENV_SPIN_US) == NULL);
    CHECK(setenv(name, "", 1) == 0);
    CHECK(myr_env_get(MYR_ENV_SPIN_US) == NULL);
    CHECK(setenv(name, "20", 1) == 0);
    CHECK(myr_env_get(MYR_ENV_SPIN_US) != NULL);
    CHECK(strcmp(myr_env_get(MYR_ENV_SPIN_US), "20") == 0);
    CHECK(myr_env_get(MYR_ENV_COUNT_) == NULL);
    CHECK(myr_env_get((myr_env_id)-1) == NULL);
}

/* Every variable in the table has a MYR_ name of its own (or the MPIEXEC_
 * name MPI users know from other implementations), a default and a
 * meaning (a new enum value without a table entry fails here). */
static void table_describes_every_variable(void)
{
    for (int i = 0; i < MYR_ENV_COUNT_; i++) {
        const myr_env_var *v = &myr_env_table[i];
        if (!v->name || !v->default_text || !v->meaning)
            fprintf(stderr, "table entry %d is incomplete\n", i);
        CHECK(v->name && v->default_text && v->meaning);
        CHECK(strncmp(v->name, "MYR_", 4) == 0 ||
              strncmp(v->name, "MPIEXEC_", 8) == 0);
        CHECK(*v->default_text && *v->meaning);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(v->name, myr_env_table[j].name) != 0);
    }
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"size_without_suffix_is_bytes", size_without_suffix_is_bytes},
        {"size_suffixes_are_powers_of_1024", size_suffixes_are_powers_of_1024},
        {"size_refuses_what_is_not_a_size", size_refuses_what_is_not_a_size},
        {"size_refuses_overflow", size_refuses_overflow},
        {"long_accepts_non_negative_decimals",
         long_accepts_non_negative_decimals},
        {"long_refuses_what_is_not_a_non_negative_decimal",
         long_refuses_what_is_not_a_non_negative_decimal},
        {"get_treats_empty_as_unset", get_treats_empty_as_unset},
        {"table_describes_every_variable", table_describes_every_variable},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
