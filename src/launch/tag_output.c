/*
 * tag_output.c — "[rank] " before every line of output (see tag_output.h).
 *
 * Why the streams are unbuffered: a FILE's buffer is shared by every rank,
 * so with line buffering one rank's unfinished "abc" would sit in it until
 * another rank's "x\n" flushed "abcx\n", under the second rank's tag. With
 * _IONBF each fwrite/printf reaches tag_write at once, from the rank that
 * made it, and tag_write does the line buffering per rank: a rank's complete
 * lines go out as soon as their newline is written (stdout behaves as line
 * buffered, for each rank separately).
 *
 * Locking: glibc holds the FILE's lock while it calls tag_write, which then
 * takes the stream's mutex; the mutex guards the pending lines and keeps
 * each batch of lines in one uninterrupted series of write(2) calls. Neither
 * is held across a ULT switch (nothing in here blocks a ULT).
 *
 * A fatal end of the job (a crash, the deadlock check, the time limit,
 * MPI_Abort) _exits without atexit handlers: it calls flush_for_fatal_end
 * (myr_job_end_flush, ult/overflow.c), which writes out every rank's
 * unfinished line. It may run in a signal handler of a thread that crashed
 * inside malloc or inside tag_write itself, so it allocates nothing and
 * only tries a stream's mutex until the deadline it is given.
 */
#include "launch/tag_output.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "core/core.h"

typedef struct pending_line {
    char *text;
    size_t len, cap;
} pending_line;

typedef struct tag_stream {
    int fd;
    FILE *original;
    FILE *file;
    pthread_mutex_t lock;
    pending_line *lines;   /* [nranks + 1]; the last: written outside any rank */
    char *out;             /* what one call writes, composed here */
    size_t out_cap;
} tag_stream;

static tag_stream streams[2];
static int tag_nranks;
static int tag_first;      /* the job rank of slot 0 (this process's first) */
static bool tagging;

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap : 128;
    while (cap2 < need)
        cap2 *= 2;
    char *b = realloc(*buf, cap2);
    if (!b)
        return -1;
    *buf = b;
    *cap = cap2;
    return 0;
}

static size_t format_prefix(char *prefix, int rank)
{
    return rank < 0 ? 0 : (size_t)snprintf(prefix, 16, "[%d] ", rank + tag_first);
}

/* Write `pending` (if any) then data[0..n) as lines, each with the prefix;
 * data ends with a newline, or `add_newline` supplies one. Stream locked. */
static int emit(tag_stream *s, int rank, pending_line *pending, const char *data,
                size_t n, bool add_newline)
{
    char prefix[16];
    size_t plen = format_prefix(prefix, rank);
    size_t lines = add_newline ? 1 : 0;
    for (const char *p = data; (p = memchr(p, '\n', (size_t)(data + n - p))); p++)
        lines++;
    size_t need = pending->len + n + lines * plen + 1;
    if (reserve(&s->out, &s->out_cap, need) != 0) {
        /* No memory: the text, untagged, rather than nothing. */
        int rc = write_all(s->fd, pending->text, pending->len);
        pending->len = 0;
        return rc | write_all(s->fd, data, n);
    }
    /* The first line: prefix, what was pending, then the data. */
    char *o = s->out;
    memcpy(o, prefix, plen);
    o += plen;
    if (pending->len)
        memcpy(o, pending->text, pending->len);
    o += pending->len;
    pending->len = 0;
    bool line_start = false;
    for (size_t i = 0; i < n; i++) {
        if (line_start) {
            memcpy(o, prefix, plen);
            o += plen;
        }
        *o++ = data[i];
        line_start = data[i] == '\n';
    }
    if (add_newline)
        *o++ = '\n';
    return write_all(s->fd, s->out, (size_t)(o - s->out));
}

static int put(tag_stream *s, int rank, const char *data, size_t n)
{
    pending_line *pending = &s->lines[rank < 0 ? tag_nranks : rank];
    const char *last_nl = memrchr(data, '\n', n);
    size_t complete = last_nl ? (size_t)(last_nl - data) + 1 : 0;
    int rc = 0;
    if (complete)
        rc = emit(s, rank, pending, data, complete, false);
    data += complete;
    n -= complete;
    if (n == 0)
        return rc;
    /* An unfinished line is kept whole however long it grows: cutting it
     * would either add a newline the program did not write or let another
     * rank's line continue it. Out of memory, it goes out as a line. */
    if (reserve(&pending->text, &pending->cap, pending->len + n) != 0)
        return rc | emit(s, rank, pending, data, n, true);
    memcpy(pending->text + pending->len, data, n);
    pending->len += n;
    return rc;
}

static ssize_t tag_write(void *cookie, const char *data, size_t n)
{
    tag_stream *s = cookie;
    myr_rank *r = myr_rank_self();
    int rank = r && (unsigned)(r->world_rank - tag_first) < (unsigned)tag_nranks
                   ? r->world_rank - tag_first : -1;
    pthread_mutex_lock(&s->lock);
    int rc = put(s, rank, data, n);
    pthread_mutex_unlock(&s->lock);
    return rc == 0 ? (ssize_t)n : -1;
}

/* Write out the unfinished line of `slot` (a rank, or tag_nranks). */
static void flush_pending(tag_stream *s, int slot)
{
    pthread_mutex_lock(&s->lock);
    pending_line *p = &s->lines[slot];
    if (p->len)
        (void)emit(s, slot < tag_nranks ? slot : -1, p, "", 0, true);
    pthread_mutex_unlock(&s->lock);
}

static void flush_all(void)
{
    for (int i = 0; i < 2; i++)
        for (int slot = 0; slot <= tag_nranks; slot++)
            flush_pending(&streams[i], slot);
}

static void flush_for_fatal_end(double deadline)
{
    for (int i = 0; i < 2; i++) {
        tag_stream *s = &streams[i];
        bool locked;
        while (!(locked = pthread_mutex_trylock(&s->lock) == 0)) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)now.tv_sec + (double)now.tv_nsec / 1e9 >= deadline)
                break;
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        /* Not locked by the deadline: its holder will not let go, and the
         * lines are written anyway (a line may come out twice, none is
         * lost). */
        for (int slot = 0; slot <= tag_nranks; slot++) {
            pending_line *p = &s->lines[slot];
            if (!p->len)
                continue;
            char prefix[16];
            size_t plen = format_prefix(prefix, slot < tag_nranks ? slot : -1);
            (void)(write_all(s->fd, prefix, plen) | write_all(s->fd, p->text, p->len) |
                   write_all(s->fd, "\n", 1));
            p->len = 0;
        }
        if (locked)
            pthread_mutex_unlock(&s->lock);
    }
}

/* The process may end while ranks still run (exit() from a thread that is
 * not a rank): what they left unfinished still goes out. */
static void flush_at_exit(void)
{
    if (tagging)
        flush_all();
}

int myr_tag_output_start(int first, int nranks)
{
    const char *v = myr_env_get(MYR_ENV_TAG_OUTPUT);
    if (!v || strcmp(v, "0") == 0)
        return 0;
    if (strcmp(v, "1") != 0) {
        fprintf(stderr, "myriad: MYR_TAG_OUTPUT=%s: use 1 (tag each line with "
                "its rank) or 0\n", v);
        return -1;
    }
    FILE *originals[2] = {stdout, stderr};
    cookie_io_functions_t io = {.write = tag_write};
    tag_nranks = nranks;
    tag_first = first;
    for (int i = 0; i < 2; i++) {
        tag_stream *s = &streams[i];
        fflush(originals[i]);
        s->original = originals[i];
        s->fd = fileno(originals[i]);
        pthread_mutex_init(&s->lock, NULL);
        s->lines = calloc((size_t)nranks + 1, sizeof *s->lines);
        s->file = s->lines ? fopencookie(s, "w", io) : NULL;
        if (!s->file) {
            fprintf(stderr, "myriad: cannot tag output: out of memory\n");
            return -1;
        }
        setvbuf(s->file, NULL, _IONBF, 0);
    }
    stdout = streams[0].file;
    stderr = streams[1].file;
    tagging = true;
    atexit(flush_at_exit);
    myr_job_end_set_flush_hook(flush_for_fatal_end);
    return 0;
}

void myr_tag_output_rank_done(int rank)
{
    rank -= tag_first;
    if (!tagging || rank < 0 || rank >= tag_nranks)
        return;
    for (int i = 0; i < 2; i++)
        flush_pending(&streams[i], rank);
}

void myr_tag_output_finish(void)
{
    if (!tagging)
        return;
    flush_all();
    myr_job_end_set_flush_hook(NULL);
    tagging = false;
    stdout = streams[0].original;
    stderr = streams[1].original;
    for (int i = 0; i < 2; i++) {
        tag_stream *s = &streams[i];
        fclose(s->file);
        for (int slot = 0; slot <= tag_nranks; slot++)
            free(s->lines[slot].text);
        free(s->lines);
        free(s->out);
        pthread_mutex_destroy(&s->lock);
        *s = (tag_stream){0};
    }
}
