/* getopt.c — getopt, getopt_long and getopt_long_only on per-rank
 * arguments.
 *
 * Each rank first parses the real command line (the test passes
 * `-k 5 --mode=fast rest1 rest2`), then argument vectors of its own that
 * carry its rank, letting the other ranks run between a call and the
 * reading of optarg, optind and optopt, so the ranks' parses interleave. With
 * the private mode each rank reads its own optind, optarg, opterr and
 * optopt; rank 0 prints whether every rank got exactly its own options. */
#include <getopt.h>
#include <string.h>

#include "priv.h"

static int rank_;  /* for messages */

#define EXPECT(cond)                                                       \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: %s\n", rank_, __FILE__,      \
                    __LINE__, #cond);                                      \
            return 0;                                                      \
        }                                                                  \
    } while (0)

/* `-k 5 --mode=fast rest1 rest2` from the command line. */
static int parse_command_line(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"mode", required_argument, NULL, 'm'}, {NULL, 0, NULL, 0}};
    const char *k = NULL, *mode = NULL;
    EXPECT(optind == 1 && opterr == 1 && optarg == NULL);
    int c;
    while ((c = getopt_long(argc, argv, "k:", longopts, NULL)) != -1) {
        MPIX_Yield();
        EXPECT(c == 'k' || c == 'm');
        if (c == 'k')
            k = optarg;
        else
            mode = optarg;
    }
    MPIX_Yield();
    EXPECT(k && strcmp(k, "5") == 0 && mode && strcmp(mode, "fast") == 0);
    EXPECT(optind == argc - 2 && strcmp(argv[optind], "rest1") == 0 &&
           strcmp(argv[optind + 1], "rest2") == 0);
    return 1;
}

/* Short options: prog first-R -aR [-v]*(R%3) -<unknown> -b -- second-R
 * (GNU getopt permutes first-R behind the options). */
static int parse_short(int rank)
{
    char first[32], a[32], second[32], unknown[3] = {'-', (char)('A' + rank % 26), 0};
    snprintf(first, sizeof first, "first-%d", rank);
    snprintf(a, sizeof a, "-a%d", rank);
    snprintf(second, sizeof second, "second-%d", rank);
    char *argv[16];
    int argc = 0;
    argv[argc++] = "prog";
    argv[argc++] = first;
    argv[argc++] = a;
    for (int i = 0; i < rank % 3; i++)
        argv[argc++] = "-v";
    argv[argc++] = unknown;
    argv[argc++] = "-b";
    argv[argc++] = "--";
    argv[argc++] = second;
    argv[argc] = NULL;

    optind = 0;   /* GNU: start afresh */
    opterr = 0;   /* the unknown option is expected: no message */
    int c, v = 0, b = 0, unknowns = 0;
    const char *a_arg = NULL;
    while ((c = getopt(argc, argv, "a:bv")) != -1) {
        MPIX_Yield();
        switch (c) {
        case 'a': a_arg = optarg; break;
        case 'b': b++; break;
        case 'v': v++; break;
        case '?':
            EXPECT(optopt == 'A' + rank % 26);
            unknowns++;
            break;
        default: EXPECT(!"an option getopt should not return");
        }
        MPIX_Yield();
    }
    EXPECT(a_arg && atoi(a_arg) == rank && strncmp(a_arg, a + 2, 32) == 0);
    EXPECT(v == rank % 3 && b == 1 && unknowns == 1 && opterr == 0);
    EXPECT(optind == argc - 2 && strcmp(argv[optind], first) == 0 &&
           strcmp(argv[optind + 1], second) == 0);
    return 1;
}

/* Long options: --alpha=R --beta pos-R --count --count=2R --al R, then the
 * same with getopt_long_only and single dashes. */
static int parse_long(int rank, int only)
{
    static int beta;
    static const struct option longopts[] = {
        {"alpha", required_argument, NULL, 'a'},
        {"beta", no_argument, &beta, 1},
        {"count", optional_argument, NULL, 'c'},
        {NULL, 0, NULL, 0}};
    const char *dash = only ? "-" : "--";
    char alpha[32], pos[32], count[32], r[16], beta_opt[16], count_opt[16], al[16];
    snprintf(alpha, sizeof alpha, "%salpha=%d", dash, rank);
    snprintf(pos, sizeof pos, "pos-%d", rank);
    snprintf(count, sizeof count, "%scount=%d", dash, 2 * rank);
    snprintf(r, sizeof r, "%d", rank);
    snprintf(beta_opt, sizeof beta_opt, "%sbeta", dash);
    snprintf(count_opt, sizeof count_opt, "%scount", dash);
    snprintf(al, sizeof al, "%sal", dash);
    char *argv[] = {"prog", alpha, beta_opt, pos, count_opt, count, al, r, NULL};
    int argc = 8;

    optind = 0;
    beta = 0;
    int c, index = -1, alphas = 0, counts = 0;
    while ((c = only ? getopt_long_only(argc, argv, "", longopts, &index)
                     : getopt_long(argc, argv, "", longopts, &index)) != -1) {
        MPIX_Yield();
        switch (c) {
        case 'a':
            EXPECT(index == 0 && optarg && atoi(optarg) == rank);
            alphas++;
            break;
        case 0:
            EXPECT(index == 1 && beta == 1);
            break;
        case 'c':
            EXPECT(index == 2);
            if (counts++ == 0)
                EXPECT(optarg == NULL);
            else
                EXPECT(optarg && atoi(optarg) == 2 * rank);
            break;
        default: EXPECT(!"an option getopt_long should not return");
        }
        MPIX_Yield();
    }
    EXPECT(alphas == 2 && counts == 2 && beta == 1);
    EXPECT(optind == argc - 1 && strcmp(argv[optind], pos) == 0);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = rank;
    int ok = parse_command_line(argc, argv) && parse_short(rank) &&
             parse_long(rank, 0) && parse_long(rank, 1);
    ok = priv_all(ok);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok)
        printf("getopt: %d ranks, each parsed its own arguments\n", size);
    else
        printf("getopt: %d ranks, WRONG: a rank's options were not its own\n", size);
    return ok ? 0 : 1;
}
