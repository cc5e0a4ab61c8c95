/* argv_in_place.c — each rank owns its argument strings, as each process
 * does.
 *
 * Run as `argv_in_place -m 4:1024 plain --list=a,b,c`. Every rank first
 * checks that it sees those strings unchanged, then tokenizes them in
 * place the way option parsers do: `strtok(optarg, ":")` after getopt, and
 * '\0' written over the commas of argv[4]. The getopt parses go one rank
 * after the other (a ring of messages), so that a rank parses after the
 * ranks before it have cut their strings: shared strings would show rank 1
 * `-m 4`. The '\0' writes happen at once, ranks yielding in between.
 * Then each rank checks its strings hold its own cuts. Rank 0 prints the
 * result. */
#include <getopt.h>
#include <string.h>

#include "priv.h"

static int rank_;

#define EXPECT(cond)                                                       \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: %s\n", rank_, __FILE__,      \
                    __LINE__, #cond);                                      \
            return 0;                                                      \
        }                                                                  \
    } while (0)

static const char *const original[] = {"-m", "4:1024", "plain", "--list=a,b,c"};
#define NARGS ((int)(sizeof original / sizeof *original))

static int unchanged(int argc, char **argv)
{
    EXPECT(argc == NARGS + 1);
    for (int i = 0; i < NARGS; i++)
        EXPECT(strcmp(argv[i + 1], original[i]) == 0);
    return 1;
}

/* getopt, then strtok on its optarg: "4:1024" becomes "4" and "1024". */
static int parse_m(int argc, char **argv)
{
    optind = 0;   /* GNU: start afresh (shared globals share optind) */
    int c;
    char *m = NULL;
    while ((c = getopt(argc, argv, "+m:")) != -1) {
        EXPECT(c == 'm');
        m = optarg;
    }
    EXPECT(m && strcmp(m, "4:1024") == 0);
    char *count = strtok(m, ":");
    MPIX_Yield();
    char *size = strtok(NULL, ":");
    EXPECT(count && strcmp(count, "4") == 0 && size && strcmp(size, "1024") == 0);
    EXPECT(strcmp(argv[2], "4") == 0);
    return 1;
}

/* '\0' over every comma of "--list=a,b,c", as a hand-written split does. */
static int split_list(char **argv)
{
    char *list = argv[4] + strlen("--list=");
    for (char *p = list; *p; p++) {
        if (*p == ',') {
            *p = '\0';
            MPIX_Yield();
        }
    }
    EXPECT(strcmp(list, "a") == 0 && strcmp(list + 2, "b") == 0 &&
           strcmp(list + 4, "c") == 0);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = rank;
    priv_yield(3);
    int ok = unchanged(argc, argv);
    /* One rank at a time: wait for the one before, parse, pass on. */
    int token = 0;
    if (rank > 0)
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok = ok && parse_m(argc, argv);
    if (rank + 1 < size)
        MPI_Send(&token, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD);
    ok = ok && split_list(argv);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Its own cuts, and nobody else's. */
    ok = ok && strcmp(argv[1], "-m") == 0 && strcmp(argv[2], "4") == 0 &&
         strcmp(argv[3], "plain") == 0 && strcmp(argv[4], "--list=a") == 0;
    ok = priv_all(ok);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok)
        printf("argv_in_place: %d ranks, each saw the original arguments and "
               "cut only its own\n", size);
    else
        printf("argv_in_place: %d ranks, WRONG: a rank saw another's cuts\n", size);
    return ok ? 0 : 1;
}
