/* getopt_r_test.c — myr_getopt_r behaves exactly as glibc's getopt,
 * getopt_long, getopt_long_only and __posix_getopt, and keeps one parse
 * per state.
 *
 * Differential: each argument vector is parsed by glibc (reset with
 * optind = 0) on one copy and by myr_getopt_r (reset with ind = 0) on
 * another; after every call the return value, optind, optopt, optarg (which
 * original element and where in it), *longindex and the flag variable must
 * agree, and so must the final order of argv and everything written to
 * stderr. Vectors come from a hand-written list (each run under every
 * configuration) and from a seeded generator.
 *
 * Usage: getopt_r_test [GROUP]; without GROUP every group runs. Each
 * failure is one line on stdout; each group ends with "N passed, N failed".
 * Exit status 1 if anything failed. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "../check.h"
#include "launch/getopt_r.h"

/* glibc's getopt for programs built for strict POSIX (not declared when
 * _GNU_SOURCE is). */
extern int __posix_getopt(int argc, char *const argv[], const char *optstring);

#define MAX_ARGS 16
#define MAX_STEPS 48
#define MAX_ERR_TEXT 8192

/* ---- What is parsed ---------------------------------------------------- */

enum parse_mode { MODE_GETOPT, MODE_POSIX_GETOPT, MODE_LONG, MODE_LONG_ONLY };
static const char *const mode_names[] = {"getopt", "__posix_getopt",
                                         "getopt_long", "getopt_long_only"};

/* Orderings ('+', '-', POSIXLY_CORRECT), silent ':' after them, "W;",
 * a plain W, '-' as an option character, and nothing at all. */
static const char *const optstrings[] = {
    "ab:c::d",  "+ab:c::d", "-ab:c::d", ":ab:c::d", "+:ab:c::d", "-:ab:c::d",
    "ab:W;c::", ":W;ab:",   "abW",      "+-ab:",    "-+a:",      "",
};
#define N_OPTSTRINGS (int)(sizeof(optstrings) / sizeof(optstrings[0]))

static int flag_target;

/* Prefixes of verbose/version/verb test ambiguity and exact matches;
 * color/colour and cat/cats share a meaning (ambiguous for long_only
 * only); flag/flagged set a variable; "a" and "add" meet short -a and the
 * long_only fallback; debug/dbg share 'd' with the short option. */
static const struct option long_table[] = {
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    {"verb", no_argument, NULL, 'R'},
    {"file", required_argument, NULL, 'f'},
    {"fill", optional_argument, NULL, 'F'},
    {"color", optional_argument, NULL, 'c'},
    {"colour", optional_argument, NULL, 'c'},
    {"flag", no_argument, &flag_target, 1},
    {"flagged", no_argument, &flag_target, 2},
    {"a", no_argument, NULL, 'x'},
    {"add", required_argument, NULL, 'A'},
    {"debug", no_argument, NULL, 'd'},
    {"dbg", no_argument, NULL, 'd'},
    {"cat", required_argument, NULL, 300},
    {"cats", required_argument, NULL, 300},
    {NULL, 0, NULL, 0},
};

typedef struct parse_config {
    const char *optstring;
    enum parse_mode mode;
    int opterr;
    int posixly_correct_env;
} parse_config;

#define N_CONFIGS (N_OPTSTRINGS * 4 * 2 * 2)

static parse_config config_number(int n)
{
    return (parse_config){.optstring = optstrings[n % N_OPTSTRINGS],
                          .mode = (enum parse_mode)(n / N_OPTSTRINGS % 4),
                          .opterr = n / (N_OPTSTRINGS * 4) % 2,
                          .posixly_correct_env = n / (N_OPTSTRINGS * 8) % 2};
}

/* An argument vector without argv[0] ("prog" is added), NULL-ended. */
typedef struct arg_vector {
    const char *args[MAX_ARGS];
} arg_vector;

static int vector_argc(const arg_vector *v)
{
    int n = 0;
    while (n < MAX_ARGS - 1 && v->args[n] != NULL)
        n++;
    return n + 1;
}

/* ---- What is observed -------------------------------------------------- */

typedef struct step {
    int ret, ind, opt;
    int arg_element, arg_offset; /* optarg inside the original element */
    int longindex, flag;
} step;

typedef struct parse_record {
    int nsteps;
    step steps[MAX_STEPS];
    int argc;
    int order[MAX_ARGS]; /* original index of each final argv element */
    size_t err_len;
    char err_text[MAX_ERR_TEXT];
} parse_record;

/* One parse's own copy of the vector, so permutations are observable. */
typedef struct argv_copy {
    int argc;
    char *strings[MAX_ARGS]; /* by original index */
    char *argv[MAX_ARGS + 1];
} argv_copy;

static void copy_vector(argv_copy *c, const arg_vector *v)
{
    c->argc = vector_argc(v);
    for (int i = 0; i < c->argc; i++) {
        c->strings[i] = strdup(i == 0 ? "prog" : v->args[i - 1]);
        CHECK(c->strings[i] != NULL);
        c->argv[i] = c->strings[i];
    }
    c->argv[c->argc] = NULL;
}

static void free_copy(argv_copy *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->strings[i]);
}

static void record_step(parse_record *r, const argv_copy *c, int ret, int ind,
                        int opt, const char *arg, int longindex)
{
    step *s = &r->steps[r->nsteps++];
    *s = (step){.ret = ret, .ind = ind, .opt = opt, .arg_element = -1,
                .arg_offset = 0, .longindex = longindex, .flag = flag_target};
    if (arg == NULL)
        return;
    s->arg_element = -2; /* outside the vector: never expected */
    for (int i = 0; i < c->argc; i++)
        if (arg >= c->strings[i] && arg <= c->strings[i] + strlen(c->strings[i])) {
            s->arg_element = i;
            s->arg_offset = (int)(arg - c->strings[i]);
        }
}

static void record_order(parse_record *r, const argv_copy *c)
{
    r->argc = c->argc;
    for (int i = 0; i < c->argc; i++) {
        r->order[i] = -1;
        for (int j = 0; j < c->argc; j++)
            if (c->argv[i] == c->strings[j])
                r->order[i] = j;
    }
}

/* ---- stderr capture ---------------------------------------------------- */

static FILE *capture_file;
static int original_stderr = -1;

static void capture_begin(void)
{
    if (capture_file == NULL) {
        capture_file = tmpfile();
        CHECK(capture_file != NULL);
        original_stderr = dup(2);
        CHECK(original_stderr >= 0);
    }
    fflush(stderr);
    CHECK(ftruncate(fileno(capture_file), 0) == 0);
    CHECK(lseek(fileno(capture_file), 0, SEEK_SET) == 0);
    CHECK(dup2(fileno(capture_file), 2) == 2);
}

static void capture_end(parse_record *r)
{
    fflush(stderr);
    CHECK(dup2(original_stderr, 2) == 2);
    CHECK(lseek(fileno(capture_file), 0, SEEK_SET) == 0);
    ssize_t n = read(fileno(capture_file), r->err_text, sizeof r->err_text - 1);
    CHECK(n >= 0);
    r->err_len = (size_t)n;
    r->err_text[n] = '\0';
}

/* ---- The two parsers --------------------------------------------------- */

static void set_environment(const parse_config *cfg)
{
    if (cfg->posixly_correct_env)
        CHECK(setenv("POSIXLY_CORRECT", "1", 1) == 0);
    else
        CHECK(unsetenv("POSIXLY_CORRECT") == 0);
}

/* Calls until the first -1 and once more (what a second loop would see). */
#define PARSE_LOOP(r, c, call, ind, opt, arg)                            \
    do {                                                                 \
        int ends_seen = 0;                                               \
        while (ends_seen < 2 && (r)->nsteps < MAX_STEPS) {               \
            int longindex = -7;                                          \
            flag_target = -1;                                            \
            int ret = call;                                              \
            record_step(r, c, ret, ind, opt, arg, longindex);            \
            ends_seen += ret == -1;                                      \
        }                                                                \
    } while (0)

static int call_glibc(const parse_config *cfg, argv_copy *c, int *longindex)
{
    switch (cfg->mode) {
    case MODE_GETOPT:
        return getopt(c->argc, c->argv, cfg->optstring);
    case MODE_POSIX_GETOPT:
        return __posix_getopt(c->argc, c->argv, cfg->optstring);
    case MODE_LONG:
        return getopt_long(c->argc, c->argv, cfg->optstring, long_table,
                           longindex);
    case MODE_LONG_ONLY:
        return getopt_long_only(c->argc, c->argv, cfg->optstring, long_table,
                                longindex);
    }
    return -2;
}

static void parse_with_glibc(const parse_config *cfg, const arg_vector *v,
                             parse_record *r)
{
    argv_copy c;
    copy_vector(&c, v);
    set_environment(cfg);
    r->nsteps = 0;
    optind = 0;
    opterr = cfg->opterr;
    capture_begin();
    PARSE_LOOP(r, &c, call_glibc(cfg, &c, &longindex), optind, optopt, optarg);
    capture_end(r);
    record_order(r, &c);
    free_copy(&c);
}

static int call_myr(myr_getopt_state *s, const parse_config *cfg, argv_copy *c,
                    int *longindex)
{
    int long_mode = cfg->mode == MODE_LONG || cfg->mode == MODE_LONG_ONLY;
    return myr_getopt_r(s, c->argc, c->argv, cfg->optstring,
                        long_mode ? long_table : NULL, longindex,
                        cfg->mode == MODE_LONG_ONLY);
}

/* Starts a parse on s the way a program restarts glibc: ind = 0. */
static void restart(myr_getopt_state *s, const parse_config *cfg)
{
    s->ind = 0;
    s->err = cfg->opterr;
    s->posixly_correct = cfg->mode == MODE_POSIX_GETOPT;
}

static void parse_with_myr(myr_getopt_state *s, const parse_config *cfg,
                           const arg_vector *v, parse_record *r)
{
    argv_copy c;
    copy_vector(&c, v);
    set_environment(cfg);
    r->nsteps = 0;
    capture_begin();
    PARSE_LOOP(r, &c, call_myr(s, cfg, &c, &longindex), s->ind, s->opt, s->arg);
    capture_end(r);
    record_order(r, &c);
    free_copy(&c);
}

/* ---- Comparing and reporting ------------------------------------------- */

static void print_vector(const arg_vector *v)
{
    printf("[prog");
    for (int i = 0; i + 1 < vector_argc(v); i++)
        printf(" '%s'", v->args[i]);
    printf("]");
}

static void print_config(const parse_config *cfg)
{
    printf("%s \"%s\" opterr=%d POSIXLY_CORRECT=%s",
           mode_names[cfg->mode], cfg->optstring, cfg->opterr,
           cfg->posixly_correct_env ? "1" : "unset");
}

/* text with newlines shown as \n, cut to fit `size`. */
static const char *one_line(char *out, size_t size, const char *text)
{
    size_t n = 0;
    for (; *text != '\0' && n + 3 < size; text++) {
        if (*text == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else {
            out[n++] = *text;
        }
    }
    out[n] = '\0';
    return out;
}

/* Describes the first difference into `why`; returns 1 if identical. */
static int same_records(const parse_record *want, const parse_record *got,
                        char *why, size_t why_size)
{
    for (int i = 0; i < want->nsteps || i < got->nsteps; i++) {
        if (i >= want->nsteps || i >= got->nsteps) {
            snprintf(why, why_size, "call %d: %s made more calls", i,
                     i >= want->nsteps ? "myr" : "reference");
            return 0;
        }
        const step *a = &want->steps[i], *b = &got->steps[i];
        if (memcmp(a, b, sizeof *a) != 0) {
            snprintf(why, why_size,
                     "call %d: reference ret=%d ind=%d opt=%d arg=%d+%d "
                     "longindex=%d flag=%d, myr ret=%d ind=%d opt=%d "
                     "arg=%d+%d longindex=%d flag=%d",
                     i, a->ret, a->ind, a->opt, a->arg_element, a->arg_offset,
                     a->longindex, a->flag, b->ret, b->ind, b->opt,
                     b->arg_element, b->arg_offset, b->longindex, b->flag);
            return 0;
        }
    }
    if (memcmp(want->order, got->order, sizeof(int) * (size_t)want->argc)) {
        snprintf(why, why_size, "final argv order differs");
        return 0;
    }
    if (want->err_len != got->err_len ||
        memcmp(want->err_text, got->err_text, want->err_len) != 0) {
        char a[400], b[400];
        snprintf(why, why_size, "stderr: reference \"%s\", myr \"%s\"",
                 one_line(a, sizeof a, want->err_text),
                 one_line(b, sizeof b, got->err_text));
        return 0;
    }
    return 1;
}

typedef struct tally {
    long passed, failed;
} tally;

static void count(tally *t, int ok, const char *group, const parse_config *cfg,
                  const arg_vector *v, const char *why)
{
    if (ok) {
        t->passed++;
        return;
    }
    t->failed++;
    printf("FAIL %s: ", group);
    if (cfg != NULL) {
        print_config(cfg);
        printf(" ");
    }
    print_vector(v);
    printf(": %s\n", why);
}

static void report(const char *group, const tally *t)
{
    printf("%s: %ld passed, %ld failed\n", group, t->passed, t->failed);
}

/* The state myr parses with across the whole differential run, reset by
 * ind = 0 before each vector like glibc's hidden state. */
static myr_getopt_state long_lived = MYR_GETOPT_STATE_INIT;

static int differs_from_glibc(const parse_config *cfg, const arg_vector *v,
                              char *why, size_t why_size)
{
    static parse_record want, got;
    /* glibc never resets optopt, not even for optind = 0; start both from
     * the same value so that one difference does not spread. Before its
     * first call, glibc's own value (0) is not yet in optopt ('?'). */
    static int glibc_called;
    if (glibc_called)
        long_lived.opt = optopt;
    glibc_called = 1;
    parse_with_glibc(cfg, v, &want);
    restart(&long_lived, cfg);
    parse_with_myr(&long_lived, cfg, v, &got);
    return !same_records(&want, &got, why, why_size);
}

/* ---- Vectors ----------------------------------------------------------- */

#define V(...) {{__VA_ARGS__, NULL}}

static const arg_vector chosen_vectors[] = {
    {{NULL}},
    V("-a"),
    V("-a", "-d"),
    V("-ad"),
    V("-da", "x"),
    V("-b", "val"),
    V("-bval"),
    V("-abval", "rest"),
    V("-b"),
    V("-ab"),
    V("-b", "-a"),
    V("-b", "--"),
    V("-c"),
    V("-cval"),
    V("-c", "val"),
    V("-acd"),
    V("-z"),
    V("-az", "-zz"),
    V("-:"),
    V("-;"),
    V("-a:"),
    V("--"),
    V("--", "-a"),
    V("-a", "--", "-b", "x"),
    V("x", "--", "-a"),
    V("x", "y", "--"),
    V("-"),
    V("-", "-a"),
    V("x", "-a", "y", "-b", "z", "w"),
    V("x", "y", "-ad", "z", "-c1", "--", "-b", "q"),
    V("x", "y", "z"),
    V("-a", "x", "-b"),
    V("x", "-b", "-"),
    V("--verbose"),
    V("--version", "--verb"),
    V("--ver"),
    V("--verbo"),
    V("--verbose=1"),
    V("--file"),
    V("--file", "f", "--file=g", "--fil=h"),
    V("--fi"),
    V("--fi=1"),
    V("--fill", "x", "--fill=y"),
    V("--col", "--colo=red", "--colour"),
    V("--flag"),
    V("--fla", "--flagg"),
    V("--cat", "--ca=1", "--cats=2"),
    V("--unknown", "--nope=3"),
    V("--=x"),
    V("--="),
    V("--a", "--ad", "x"),
    V("--debug", "--d", "-d"),
    V("-W", "verbose"),
    V("-Wverbose", "-Wfile=x", "-W", "file", "y"),
    V("-W", "fi"),
    V("-Wnope"),
    V("-W"),
    V("-aW", "ver"),
    V("-verbose", "-ver", "-verb"),
    V("-file", "x", "-fi", "y"),
    V("-a", "-ad", "x"),
    V("-abd", "-ba", "-ca"),
    V("-col", "-colour=red", "-colo"),
    V("-flag", "-flagx"),
    V("-=x", "-a=1"),
    V("-x", "-xyz"),
    V("-d=1", "-debug=1"),
    V("-\xc3\xa9", "--\xc3\xa9"),
    V("x", "--file", "y", "z", "--", "w"),
    V("-", "--", "-"),
    V("", "-a", ""),
    V("-W", ""),
    V("--file", ""),
    V("-b", "", "-c", ""),
};
#define N_CHOSEN (int)(sizeof(chosen_vectors) / sizeof(chosen_vectors[0]))

static const char *const tokens[] = {
    "-a", "-b", "-bval", "-c", "-cval", "-d", "-ab", "-ad", "-ba", "-acd",
    "-abq", "-z", "-az", "-:", "-;", "-W", "-Wverbose", "-Wfi", "-Wfile=w",
    "verbose", "file", "--verbose", "--ver", "--verb", "--version",
    "--verbose=1", "--file", "--file=x", "--fi", "--fill", "--fill=y",
    "--col", "--color=red", "--colour", "--flag", "--fla", "--flagged",
    "--unknown", "--unknown=3", "--cat", "--ca=2", "--a", "--ad", "--=x",
    "--", "--", "-", "x", "y", "z", "-verbose", "-ver", "-file", "-fi",
    "-col", "-flag", "-a=1", "-x", "-xyz", "-add", "-debug", "-d=1", "-=x",
    "-\xc3\xa9", "", "-+", "--+", "-a-",
};
#define N_TOKENS (int)(sizeof(tokens) / sizeof(tokens[0]))

/* xorshift64: the same vectors on every platform and libc. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static arg_vector random_vector(uint64_t *seed)
{
    arg_vector v = {{NULL}};
    int n = (int)(next_random(seed) % 10);
    for (int i = 0; i < n; i++)
        v.args[i] = tokens[next_random(seed) % N_TOKENS];
    return v;
}

/* ---- Groups ------------------------------------------------------------ */

#define N_RANDOM_VECTORS 3000
#define CONFIGS_PER_RANDOM_VECTOR 24

static tally chosen_vectors_match_glibc_in_every_configuration(void)
{
    tally t = {0, 0};
    char why[1024];
    for (int i = 0; i < N_CHOSEN; i++)
        for (int n = 0; n < N_CONFIGS; n++) {
            parse_config cfg = config_number(n);
            int ok = !differs_from_glibc(&cfg, &chosen_vectors[i], why,
                                         sizeof why);
            count(&t, ok, "chosen", &cfg, &chosen_vectors[i], why);
        }
    return t;
}

static tally random_vectors_match_glibc(void)
{
    tally t = {0, 0};
    char why[1024];
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < N_RANDOM_VECTORS; i++) {
        arg_vector v = random_vector(&seed);
        for (int k = 0; k < CONFIGS_PER_RANDOM_VECTOR; k++) {
            parse_config cfg = config_number((int)(next_random(&seed) % N_CONFIGS));
            int ok = !differs_from_glibc(&cfg, &v, why, sizeof why);
            count(&t, ok, "random", &cfg, &v, why);
        }
    }
    return t;
}

/* The reason the code exists: two ranks parsing at once, one call each in
 * turn, see what each would see alone. Messages are off here, since the
 * two parses' lines would interleave. */
static tally interleaved_states_parse_independently(void)
{
    tally t = {0, 0};
    char why[1024];
    uint64_t seed = 0x243f6a8885a308d3u;
    static parse_record alone[2], together[2];
    for (int i = 0; i < 1000; i++) {
        arg_vector v[2] = {random_vector(&seed), random_vector(&seed)};
        parse_config cfg[2];
        for (int k = 0; k < 2; k++) {
            cfg[k] = config_number((int)(next_random(&seed) % N_CONFIGS));
            cfg[k].opterr = 0;
            cfg[k].posixly_correct_env = 0;
            myr_getopt_state fresh;
            myr_getopt_state_init(&fresh);
            fresh.err = 0;
            fresh.posixly_correct = cfg[k].mode == MODE_POSIX_GETOPT;
            parse_with_myr(&fresh, &cfg[k], &v[k], &alone[k]);
        }

        myr_getopt_state s[2] = {MYR_GETOPT_STATE_INIT, MYR_GETOPT_STATE_INIT};
        argv_copy c[2];
        int ends_seen[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            s[k].err = 0;
            s[k].posixly_correct = cfg[k].mode == MODE_POSIX_GETOPT;
            copy_vector(&c[k], &v[k]);
            together[k].nsteps = 0;
        }
        while (ends_seen[0] < 2 || ends_seen[1] < 2)
            for (int k = 0; k < 2; k++) {
                parse_record *r = &together[k];
                if (ends_seen[k] == 2 || r->nsteps == MAX_STEPS) {
                    ends_seen[k] = 2;
                    continue;
                }
                int longindex = -7;
                flag_target = -1;
                int ret = call_myr(&s[k], &cfg[k], &c[k], &longindex);
                record_step(r, &c[k], ret, s[k].ind, s[k].opt, s[k].arg,
                            longindex);
                ends_seen[k] += ret == -1;
            }
        for (int k = 0; k < 2; k++) {
            record_order(&together[k], &c[k]);
            together[k].err_len = alone[k].err_len = 0;
            free_copy(&c[k]);
            int ok = same_records(&alone[k], &together[k], why, sizeof why);
            count(&t, ok, "interleaved", &cfg[k], &v[k], why);
        }
    }
    return t;
}

/* ind = 0 in the middle of a parse starts the next one afresh: the same
 * as a new state (apart from opt, which glibc keeps too), ind back at 1. */
static tally zero_ind_restarts_the_parse(void)
{
    tally t = {0, 0};
    char why[1024];
    uint64_t seed = 0x452821e638d01377u;
    static parse_record first, after_reset, fresh_parse;
    for (int i = 0; i < 1000; i++) {
        arg_vector v[2] = {random_vector(&seed), random_vector(&seed)};
        parse_config cfg[2];
        for (int k = 0; k < 2; k++) {
            cfg[k] = config_number((int)(next_random(&seed) % N_CONFIGS));
            cfg[k].opterr = 0;
        }
        int calls_before_reset = (int)(next_random(&seed) % 4);

        myr_getopt_state s = MYR_GETOPT_STATE_INIT;
        restart(&s, &cfg[0]);
        argv_copy c;
        copy_vector(&c, &v[0]);
        set_environment(&cfg[0]);
        first.nsteps = 0;
        for (int n = 0; n < calls_before_reset; n++) {
            int longindex = -7;
            int ret = call_myr(&s, &cfg[0], &c, &longindex);
            record_step(&first, &c, ret, s.ind, s.opt, s.arg, longindex);
        }
        free_copy(&c);

        myr_getopt_state fresh = MYR_GETOPT_STATE_INIT;
        fresh.opt = s.opt;
        restart(&s, &cfg[1]);
        restart(&fresh, &cfg[1]);
        parse_with_myr(&s, &cfg[1], &v[1], &after_reset);
        parse_with_myr(&fresh, &cfg[1], &v[1], &fresh_parse);
        int ok = same_records(&fresh_parse, &after_reset, why, sizeof why);
        if (ok && after_reset.steps[0].ind == 0) {
            snprintf(why, sizeof why, "ind stayed 0 after the first call");
            ok = 0;
        }
        count(&t, ok, "reset", &cfg[1], &v[1], why);
    }
    return t;
}

typedef struct test_group {
    const char *name;
    tally (*run)(void);
} test_group;

static const test_group groups[] = {
    {"chosen_vectors_match_glibc_in_every_configuration",
     chosen_vectors_match_glibc_in_every_configuration},
    {"random_vectors_match_glibc", random_vectors_match_glibc},
    {"interleaved_states_parse_independently",
     interleaved_states_parse_independently},
    {"zero_ind_restarts_the_parse", zero_ind_restarts_the_parse},
};

int main(int argc, char **argv)
{
    /* Failures are reported while stderr is redirected, so on stdout;
     * unbuffered so that they stay in order with anything else. */
    setvbuf(stdout, NULL, _IONBF, 0);
    tally total = {0, 0};
    int ran = 0;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (argc > 1 && strcmp(argv[1], groups[g].name) != 0)
            continue;
        tally t = groups[g].run();
        report(groups[g].name, &t);
        total.passed += t.passed;
        total.failed += t.failed;
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "usage: %s [GROUP]\n", argv[0]);
        return 2;
    }
    report("total", &total);
    return total.failed != 0;
}
