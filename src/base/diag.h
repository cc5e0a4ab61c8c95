/*
 * diag.h — messages that must work where stdio must not: in signal handlers
 * and on a half-broken stack. Everything here is async-signal-safe: it
 * formats into a caller-provided buffer and writes with write(2).
 */
#ifndef MYR_BASE_DIAG_H
#define MYR_BASE_DIAG_H

#include <stddef.h>

typedef struct myr_diag_buf {
    char text[512];
    size_t len;
} myr_diag_buf;

void myr_diag_str(myr_diag_buf *b, const char *s);
void myr_diag_ulong(myr_diag_buf *b, unsigned long v);
void myr_diag_hex(myr_diag_buf *b, unsigned long v);
/* Write the buffer to stderr in one write(2) and empty it. */
void myr_diag_flush(myr_diag_buf *b);

#endif
