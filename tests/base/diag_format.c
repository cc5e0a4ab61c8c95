/* diag_format.c — async-signal-safe message formatting: numbers and strings
 * appended to a fixed buffer, written with one write(2).
 * Usage: diag_format CASE. */
#include <limits.h>
#include <unistd.h>

#include "../check.h"
#include "base/diag.h"

/* Does the buffer hold exactly `expected`? */
static int holds(const myr_diag_buf *b, const char *expected)
{
    size_t n = strlen(expected);
    if (b->len == n && memcmp(b->text, expected, n) == 0)
        return 1;
    fprintf(stderr, "buffer holds \"%.*s\", expected \"%s\"\n", (int)b->len,
            b->text, expected);
    return 0;
}

/* Unsigned numbers are written in decimal, without padding. */
static void ulong_is_decimal(void)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_ulong(&b, 0);
    CHECK(holds(&b, "0"));
    b.len = 0;
    myr_diag_ulong(&b, 42);
    CHECK(holds(&b, "42"));
    b.len = 0;
    myr_diag_ulong(&b, 1000000);
    CHECK(holds(&b, "1000000"));
    b.len = 0;
    myr_diag_ulong(&b, ULONG_MAX);
    CHECK(holds(&b, ULONG_MAX == 18446744073709551615ul ? "18446744073709551615"
                                                          : "4294967295"));
}

/* Hexadecimal numbers get a 0x prefix and lower-case digits, no padding. */
static void hex_is_prefixed_lower_case(void)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_hex(&b, 0);
    CHECK(holds(&b, "0x0"));
    b.len = 0;
    myr_diag_hex(&b, 0xdeadBEEFul);
    CHECK(holds(&b, "0xdeadbeef"));
    b.len = 0;
    myr_diag_hex(&b, 0x10);
    CHECK(holds(&b, "0x10"));
    b.len = 0;
    myr_diag_hex(&b, ULONG_MAX);
    CHECK(holds(&b, ULONG_MAX == 18446744073709551615ul ? "0xffffffffffffffff"
                                                          : "0xffffffff"));
}

/* Strings are copied as they are; an empty or NULL string adds nothing. */
static void str_appends_text(void)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "rank");
    myr_diag_str(&b, "");
    myr_diag_str(&b, NULL);
    myr_diag_str(&b, " 100%");
    CHECK(holds(&b, "rank 100%"));
}

/* Pieces follow each other, making one message. */
static void pieces_make_one_message(void)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "rank ");
    myr_diag_ulong(&b, 7);
    myr_diag_str(&b, " overflowed its stack at ");
    myr_diag_hex(&b, 0x7f0012345000ul);
    myr_diag_str(&b, "\n");
    CHECK(holds(&b, "rank 7 overflowed its stack at 0x7f0012345000\n"));
}

/* A full buffer drops what does not fit (keeping the leading digits of a
 * number) and never writes past its end (which would change len). */
static void full_buffer_truncates(void)
{
    myr_diag_buf buf = {.len = 0};
    myr_diag_buf *b = &buf;
    char filler[sizeof b->text - 2 + 1];
    memset(filler, '.', sizeof filler - 1);
    filler[sizeof filler - 1] = '\0';
    myr_diag_str(b, filler);
    CHECK(b->len == sizeof b->text - 2);
    myr_diag_ulong(b, 12345);
    CHECK(b->len == sizeof b->text);
    CHECK(b->text[sizeof b->text - 2] == '1' && b->text[sizeof b->text - 1] == '2');
    myr_diag_hex(b, 0xabc);
    myr_diag_str(b, "more");
    CHECK(b->len == sizeof b->text);
}

/* Flushing writes the whole message to stderr and empties the buffer. */
static void flush_writes_to_stderr_and_empties(void)
{
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0);
    int saved_stderr = dup(STDERR_FILENO);
    CHECK(saved_stderr >= 0);
    CHECK(dup2(pipe_fds[1], STDERR_FILENO) == STDERR_FILENO);

    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "stack overflow in rank ");
    myr_diag_ulong(&b, 3);
    myr_diag_flush(&b);
    size_t len_after = b.len;

    CHECK(dup2(saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(saved_stderr);
    close(pipe_fds[1]);
    char got[64];
    ssize_t n = read(pipe_fds[0], got, sizeof got);
    close(pipe_fds[0]);
    CHECK(n == (ssize_t)strlen("stack overflow in rank 3"));
    CHECK(memcmp(got, "stack overflow in rank 3", (size_t)n) == 0);
    CHECK(len_after == 0);
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"ulong_is_decimal", ulong_is_decimal},
        {"hex_is_prefixed_lower_case", hex_is_prefixed_lower_case},
        {"str_appends_text", str_appends_text},
        {"pieces_make_one_message", pieces_make_one_message},
        {"full_buffer_truncates", full_buffer_truncates},
        {"flush_writes_to_stderr_and_empties",
         flush_writes_to_stderr_and_empties},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
