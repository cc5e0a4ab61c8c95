/* diag.c — async-signal-safe message formatting (see diag.h). */
#include "diag.h"

#include <unistd.h>

void myr_diag_str(myr_diag_buf *b, const char *s)
{
    while (s && *s && b->len < sizeof b->text)
        b->text[b->len++] = *s++;
}

static void put_digits(myr_diag_buf *b, unsigned long v, unsigned base)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n > 0 && b->len < sizeof b->text)
        b->text[b->len++] = tmp[--n];
}

void myr_diag_ulong(myr_diag_buf *b, unsigned long v) { put_digits(b, v, 10); }

void myr_diag_hex(myr_diag_buf *b, unsigned long v)
{
    myr_diag_str(b, "0x");
    put_digits(b, v, 16);
}

void myr_diag_flush(myr_diag_buf *b)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = write(STDERR_FILENO, b->text + off, b->len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    b->len = 0;
}
