/*
 * timebuf.c — the results of localtime, gmtime, ctime and asctime per rank.
 *
 * These return pointers to libc's static objects: one struct tm that
 * localtime and gmtime both fill, one string that asctime and ctime both
 * write. Ranks are threads of one process, so a rank formatting a time
 * while another does got the other's (a log line stamped with another
 * rank's clock, or half of it). A process has its own; so does a rank
 * here: called by a rank, they fill the rank's own struct tm and string
 * (allocated on first use: most ranks never ask), with glibc's reentrant
 * functions and asctime's format; anywhere else they are libc's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "launch/privatize.h"

struct myr_time_results {
    struct tm tm;     /* localtime's and gmtime's */
    /* asctime's and ctime's: glibc's size, room for any int year. */
    char text[3 + 1 + 3 + 1 + 20 + 1 + 20 + 1 + 20 + 1 + 20 + 1 + 20 + 1 + 1];
};

/* The calling rank's results, or NULL outside a rank (or without memory:
 * then libc's). */
static struct myr_time_results *rank_results(void)
{
    myr_rank_image *ri = myr_privatize_current();
    if (!ri)
        return NULL;
    struct myr_time_results *r =
        atomic_load_explicit(&ri->time_results, memory_order_acquire);
    if (r)
        return r;
    struct myr_time_results *made = calloc(1, sizeof *made);
    if (!made)
        return NULL;
    /* A kernel thread acting for the rank may have made them meanwhile. */
    if (!atomic_compare_exchange_strong_explicit(&ri->time_results, &r, made,
                                                 memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(made);
        return r;
    }
    return made;
}

struct tm *localtime(const time_t *t)
{
    struct myr_time_results *r = rank_results();
    if (!r)
        return MYR_LIBC_NEXT(struct tm *(*)(const time_t *), "localtime")(t);
    tzset();   /* localtime follows TZ changes; localtime_r need not */
    return localtime_r(t, &r->tm);
}

struct tm *gmtime(const time_t *t)
{
    struct myr_time_results *r = rank_results();
    if (!r)
        return MYR_LIBC_NEXT(struct tm *(*)(const time_t *), "gmtime")(t);
    return gmtime_r(t, &r->tm);
}

/* asctime's text, as glibc writes it (English names, "???" for a day or
 * month out of range; EOVERFLOW for a year that does not fit an int). */
static char *format_time(const struct tm *tp, char *buf, size_t len)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (!tp) {
        errno = EINVAL;
        return NULL;
    }
    if (tp->tm_year > INT_MAX - 1900) {
        errno = EOVERFLOW;
        return NULL;
    }
    int n = snprintf(buf, len, "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n",
                     tp->tm_wday < 0 || tp->tm_wday >= 7 ? "???" : days[tp->tm_wday],
                     tp->tm_mon < 0 || tp->tm_mon >= 12 ? "???" : months[tp->tm_mon],
                     tp->tm_mday, tp->tm_hour, tp->tm_min, tp->tm_sec,
                     1900 + tp->tm_year);
    if (n < 0)
        return NULL;
    if ((size_t)n >= len) {
        errno = EOVERFLOW;
        return NULL;
    }
    return buf;
}

char *asctime(const struct tm *tp)
{
    struct myr_time_results *r = rank_results();
    if (!r)
        return MYR_LIBC_NEXT(char *(*)(const struct tm *), "asctime")(tp);
    return format_time(tp, r->text, sizeof r->text);
}

/* As glibc's: asctime(localtime(t)), both results the rank's. */
char *ctime(const time_t *t)
{
    struct myr_time_results *r = rank_results();
    if (!r)
        return MYR_LIBC_NEXT(char *(*)(const time_t *), "ctime")(t);
    struct tm *tm = localtime(t);
    return tm ? format_time(tm, r->text, sizeof r->text) : NULL;
}
