/* getopt_r.c — a reentrant getopt family, written from the documented and
 * observed behaviour of glibc 2.36 (man 3 getopt, the glibc manual).
 *
 * Model. Each call looks at argv[ind], or continues inside a cluster of
 * short options ("-abc") whose unread rest is `cluster`. Three orderings:
 *   PERMUTE        (default) non-options are skipped and, once options
 *                  follow them, moved after those options, so that at the
 *                  end argv holds options first and ind points at the first
 *                  non-option;
 *   REQUIRE_ORDER  ('+' or POSIXLY_CORRECT) the first non-option ends;
 *   RETURN_IN_ORDER ('-') each non-option is returned as option 1.
 * Invariant while permuting: argv[nonopt_start, nonopt_end) are non-options
 * already skipped; argv[nonopt_end, ind) are options consumed after them.
 * Whenever a new element is about to be read, the two runs are swapped (a
 * rotation keeps the order inside each), so the non-options always sit just
 * before ind. The exact moments of those swaps are visible to programs (argv
 * and ind between calls), so they follow glibc's.
 *
 * Messages are glibc's texts, translated through glibc's own "libc" domain,
 * so a program sees the same words in any locale. */
#include "launch/getopt_r.h"

#include <libintl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum getopt_ordering { PERMUTE, REQUIRE_ORDER, RETURN_IN_ORDER };

#define LIBC_TEXT(msgid) dgettext("libc", msgid)

void myr_getopt_state_init(myr_getopt_state *s)
{
    *s = (myr_getopt_state)MYR_GETOPT_STATE_INIT;
}

/* "-" alone is an operand, like anything not starting with '-'. */
static int is_nonoption(const char *arg)
{
    return arg[0] != '-' || arg[1] == '\0';
}

static void reverse(char **first, char **last)
{
    while (first < last) {
        char *t = *first;
        *first++ = *last;
        *last-- = t;
    }
}

/* Moves the skipped non-options after the options consumed since (see the
 * invariant above). argv is declared const by POSIX, but permuting it is
 * GNU getopt's documented behaviour. */
static void move_nonoptions_after_options(myr_getopt_state *s,
                                          char *const argv[])
{
    char **v = (char **)argv;
    reverse(v + s->nonopt_start, v + s->nonopt_end - 1);
    reverse(v + s->nonopt_end, v + s->ind - 1);
    reverse(v + s->nonopt_start, v + s->ind - 1);
    s->nonopt_start += s->ind - s->nonopt_end;
    s->nonopt_end = s->ind;
}

/* The ordering is fixed here, at initialisation; later calls only skip the
 * '+' or '-' of optstring. */
static void start_scan(myr_getopt_state *s, const char *optstring)
{
    if (s->ind == 0)
        s->ind = 1;
    s->nonopt_start = s->nonopt_end = s->ind;
    s->cluster = NULL;
    if (optstring[0] == '-')
        s->ordering = RETURN_IN_ORDER;
    else if (optstring[0] == '+')
        s->ordering = REQUIRE_ORDER;
    else if (s->posixly_correct || getenv("POSIXLY_CORRECT") != NULL)
        s->ordering = REQUIRE_ORDER;
    else
        s->ordering = PERMUTE;
    s->initialised = 1;
}

/* What the option table says about one long option name. */
typedef struct long_lookup {
    const struct option *found; /* NULL: no option has this name or prefix */
    int index;
    int ambiguous;
} long_lookup;

/* Can prefix match `other` as well as `first` without any doubt about what
 * it means? getopt_long accepts several prefix matches that all behave the
 * same; getopt_long_only accepts none, since a short option may be meant. */
static int same_meaning(const struct option *first, const struct option *other,
                        int long_only)
{
    return !long_only && first->has_arg == other->has_arg &&
           first->flag == other->flag && first->val == other->val;
}

static long_lookup lookup_long(const struct option *longopts, const char *name,
                               size_t len, int long_only)
{
    long_lookup r = {.found = NULL, .index = -1, .ambiguous = 0};
    /* An exact match wins over any prefix match, wherever it is. */
    for (int i = 0; longopts[i].name != NULL; i++)
        if (strncmp(longopts[i].name, name, len) == 0 &&
            strlen(longopts[i].name) == len)
            return (long_lookup){.found = &longopts[i], .index = i};
    for (int i = 0; longopts[i].name != NULL; i++) {
        if (strncmp(longopts[i].name, name, len) != 0)
            continue;
        if (r.found == NULL)
            r = (long_lookup){.found = &longopts[i], .index = i};
        else if (!same_meaning(r.found, &longopts[i], long_only))
            r.ambiguous = 1;
    }
    return r;
}

/* Lists the first prefix match and every later one that means something
 * else, in table order, as one line. name is the whole text the user wrote
 * ("name=value" included, as glibc shows it); len covers the name. */
static void report_ambiguous(const char *argv0, const char *prefix,
                             const char *name, size_t len,
                             const struct option *longopts,
                             const long_lookup *r, int long_only)
{
    flockfile(stderr); /* one line even if other threads write */
    fprintf(stderr, LIBC_TEXT("%s: option '%s%s' is ambiguous; possibilities:"),
            argv0, prefix, name);
    for (int i = 0; longopts[i].name != NULL; i++)
        if (strncmp(longopts[i].name, name, len) == 0 &&
            (i == r->index || !same_meaning(r->found, &longopts[i], long_only)))
            fprintf(stderr, " '%s%s'", prefix, longopts[i].name);
    fprintf(stderr, "\n");
    funlockfile(stderr);
}

/* Parses the long option whose text ("name" or "name=value") starts at
 * s->cluster; argv[s->ind] is the element holding it, or for "-W name" the
 * element after -W. prefix is how the user wrote it, for messages. Returns
 * -1 only for getopt_long_only when the text should be read as short
 * options instead. */
static int parse_long(myr_getopt_state *s, int argc, char *const argv[],
                      const char *optstring, const struct option *longopts,
                      int *longindex, int long_only, int print_errors,
                      const char *prefix)
{
    char *name = s->cluster;
    char *name_end = name + strcspn(name, "=");
    size_t len = (size_t)(name_end - name);
    long_lookup r = lookup_long(longopts, name, len, long_only);

    if (r.ambiguous) {
        if (print_errors)
            report_ambiguous(argv[0], prefix, name, len, longopts, &r,
                             long_only);
        s->cluster = name + strlen(name);
        s->ind++;
        s->opt = 0;
        return '?';
    }
    if (r.found == NULL) {
        /* getopt_long_only reads "-xyz" as short options when it names no
         * long option and starts with a known short option character. */
        if (long_only && argv[s->ind][1] != '-' &&
            strchr(optstring, *name) != NULL)
            return -1;
        if (print_errors)
            fprintf(stderr, LIBC_TEXT("%s: unrecognized option '%s%s'\n"),
                    argv[0], prefix, name);
        s->cluster = NULL;
        s->ind++;
        s->opt = 0;
        return '?';
    }

    const struct option *o = r.found;
    s->ind++;
    s->cluster = NULL;
    if (*name_end == '=') {
        if (o->has_arg == no_argument) {
            if (print_errors)
                fprintf(stderr,
                        LIBC_TEXT("%s: option '%s%s' doesn't allow an "
                                  "argument\n"),
                        argv[0], prefix, o->name);
            s->opt = o->val;
            return '?';
        }
        s->arg = name_end + 1;
    } else if (o->has_arg == required_argument) {
        /* A required argument may be the next element, whatever it is. */
        if (s->ind >= argc) {
            if (print_errors)
                fprintf(stderr,
                        LIBC_TEXT("%s: option '%s%s' requires an argument\n"),
                        argv[0], prefix, o->name);
            s->opt = o->val;
            return optstring[0] == ':' ? ':' : '?';
        }
        s->arg = argv[s->ind++];
    }
    if (longindex != NULL)
        *longindex = r.index;
    if (o->flag != NULL) {
        *o->flag = o->val;
        return 0;
    }
    return o->val;
}

/* A short option whose argument is missing: '?' with a message, or ':'
 * silently when optstring starts with ':'. */
static int missing_short_argument(myr_getopt_state *s, char *const argv[],
                                  const char *optstring, int print_errors,
                                  char c)
{
    if (print_errors)
        fprintf(stderr,
                LIBC_TEXT("%s: option requires an argument -- '%c'\n"),
                argv[0], c);
    s->opt = c;
    return optstring[0] == ':' ? ':' : '?';
}

/* Reads the next character of the current cluster. `char`, not unsigned:
 * glibc returns the character as its platform's char, so does this. */
static int parse_short(myr_getopt_state *s, int argc, char *const argv[],
                       const char *optstring, const struct option *longopts,
                       int *longindex, int print_errors)
{
    char c = *s->cluster++;
    const char *spec = strchr(optstring, c);

    /* ind moves past the element as soon as its last character is read. */
    if (*s->cluster == '\0')
        s->ind++;

    if (spec == NULL || c == ':' || c == ';') {
        if (print_errors)
            fprintf(stderr, LIBC_TEXT("%s: invalid option -- '%c'\n"),
                    argv[0], c);
        s->opt = c;
        return '?';
    }

    /* "W;" in optstring: "-W name" and "-Wname" mean "--name". */
    if (spec[0] == 'W' && spec[1] == ';' && longopts != NULL) {
        if (*s->cluster == '\0') {
            if (s->ind == argc)
                return missing_short_argument(s, argv, optstring,
                                              print_errors, c);
            s->cluster = argv[s->ind];
        }
        return parse_long(s, argc, argv, optstring, longopts, longindex, 0,
                          print_errors, "-W ");
    }

    if (spec[1] != ':')
        return c;

    if (spec[2] == ':') {
        /* An optional argument is only ever the rest of the cluster. */
        if (*s->cluster != '\0') {
            s->arg = s->cluster;
            s->ind++;
        }
    } else if (*s->cluster != '\0') {
        s->arg = s->cluster;
        s->ind++;
    } else if (s->ind == argc) {
        s->cluster = NULL;
        return missing_short_argument(s, argv, optstring, print_errors, c);
    } else {
        s->arg = argv[s->ind++];
    }
    s->cluster = NULL;
    return c;
}

/* Moves to the next argv element to read, permuting as the ordering asks.
 * Returns 0 when argv[s->ind] is an option element to parse, otherwise the
 * value myr_getopt_r returns (-1 at the end, 1 for an in-order operand). */
static int next_element(myr_getopt_state *s, int argc, char *const argv[])
{
    /* The caller may have moved ind back; the remembered run of
     * non-options cannot lie beyond it. */
    if (s->nonopt_end > s->ind)
        s->nonopt_end = s->ind;
    if (s->nonopt_start > s->ind)
        s->nonopt_start = s->ind;

    if (s->ordering == PERMUTE) {
        if (s->nonopt_start != s->nonopt_end && s->nonopt_end != s->ind)
            move_nonoptions_after_options(s, argv);
        else if (s->nonopt_end != s->ind)
            s->nonopt_start = s->ind; /* no non-options pending */
        while (s->ind < argc && is_nonoption(argv[s->ind]))
            s->ind++;
        s->nonopt_end = s->ind;
    }

    /* "--" is consumed as an option; everything after it is an operand. */
    if (s->ind != argc && strcmp(argv[s->ind], "--") == 0) {
        s->ind++;
        if (s->nonopt_start != s->nonopt_end && s->nonopt_end != s->ind)
            move_nonoptions_after_options(s, argv);
        else if (s->nonopt_start == s->nonopt_end)
            s->nonopt_start = s->ind;
        s->nonopt_end = argc;
        s->ind = argc;
    }

    if (s->ind == argc) {
        /* Leave ind at the first operand. */
        if (s->nonopt_start != s->nonopt_end)
            s->ind = s->nonopt_start;
        return -1;
    }

    if (is_nonoption(argv[s->ind])) {
        if (s->ordering == REQUIRE_ORDER)
            return -1;
        s->arg = argv[s->ind++];
        return 1;
    }
    return 0;
}

int myr_getopt_r(myr_getopt_state *s, int argc, char *const argv[],
                 const char *optstring, const struct option *longopts,
                 int *longindex, int long_only)
{
    if (argc < 1)
        return -1;
    s->arg = NULL;

    if (s->ind == 0 || !s->initialised)
        start_scan(s, optstring);
    if (optstring[0] == '-' || optstring[0] == '+')
        optstring++;
    int print_errors = s->err && optstring[0] != ':';

    if (s->cluster != NULL && *s->cluster != '\0')
        return parse_short(s, argc, argv, optstring, longopts, longindex,
                           print_errors);

    int ended = next_element(s, argc, argv);
    if (ended != 0)
        return ended;

    char *element = argv[s->ind];
    if (longopts != NULL) {
        if (element[1] == '-') {
            s->cluster = element + 2;
            return parse_long(s, argc, argv, optstring, longopts, longindex,
                              long_only, print_errors, "--");
        }
        /* getopt_long_only tries "-name" as a long option first, unless it
         * is exactly one known short option. */
        if (long_only &&
            (element[2] != '\0' || strchr(optstring, element[1]) == NULL)) {
            s->cluster = element + 1;
            int rc = parse_long(s, argc, argv, optstring, longopts, longindex,
                                long_only, print_errors, "-");
            if (rc != -1)
                return rc;
        }
    }
    s->cluster = element + 1;
    return parse_short(s, argc, argv, optstring, longopts, longindex,
                       print_errors);
}
