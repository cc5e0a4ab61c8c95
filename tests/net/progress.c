/*
 * progress.c — a message between two OS processes moves while its
 * receiver computes and calls no MPI function (issue 17: the comm thread
 * progresses the network when no worker does).
 *
 * Two ranks in two processes. Each round, rank 1 posts MPI_Irecv of
 * `bytes` (rendezvous above the eager limit, eager below), tells rank 0
 * to send, then only reads its receive buffer (no MPI call) until the
 * first and last words hold the round's pattern, for at most
 * POLL_LIMIT_S; then MPI_Wait and a check of every byte. Between rounds
 * rank 1 computes for a varying time, long enough for both processes'
 * workers and comm threads to fall asleep, so each round starts from
 * another sleeping state: a comm thread that sleeps through an arrival
 * (a lost wake-up, an arm of UCX's events that another thread's progress
 * spent) leaves the data unmoved, and the round fails.
 *
 *   progress [rounds] [bytes]     (default 40 rounds of 4 MiB)
 *
 * Output: "progress: R rounds of B bytes moved while the receiver computed:
 * ok", or FAILED lines and exit status 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POLL_LIMIT_S 10.0
#define TAG_GO 1
#define TAG_DATA 2

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t word_of(long round, size_t i)
{
    uint64_t x = ((uint64_t)round << 40) ^ (uint64_t)i ^ 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    return x ^ (x >> 29);
}

static void fill(uint64_t *buf, size_t words, long round)
{
    for (size_t i = 0; i < words; i++)
        buf[i] = word_of(round, i);
}

/* No MPI call, nothing the compiler may drop: a dependent chain. */
static void compute_for(double seconds)
{
    volatile double x = 1.0;
    double until = now_s() + seconds;
    while (now_s() < until)
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 40;
    long bytes = argc > 2 ? atol(argv[2]) : 4L << 20;
    if (size != 2 || rounds < 1 || bytes < 16 || bytes % 8) {
        if (rank == 0)
            fprintf(stderr, "usage: 2 ranks; progress [rounds >= 1] [bytes >= 16, "
                    "a multiple of 8]\n");
        MPI_Finalize();
        return 2;
    }
    size_t words = (size_t)bytes / 8;
    uint64_t *buf = malloc((size_t)bytes);
    if (!buf) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int failed = 0;
    double longest = 0, total = 0;
    for (long r = 0; r < rounds; r++) {
        if (rank == 0) {
            fill(buf, words, r);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)words, MPI_UINT64_T, 1, TAG_DATA, MPI_COMM_WORLD);
            continue;
        }
        /* 0.2 .. 3 ms: past every spin (MYR_SPIN_US, MYR_NET_SPIN_US) and
         * through a few of the comm thread's naps. */
        compute_for(0.0002 + 0.0001 * (double)(r % 29));
        memset(buf, 0, (size_t)bytes);
        MPI_Request req;
        MPI_Irecv(buf, (int)words, MPI_UINT64_T, 0, TAG_DATA, MPI_COMM_WORLD, &req);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
        volatile uint64_t *first = &buf[0], *last = &buf[words - 1];
        uint64_t want_first = word_of(r, 0), want_last = word_of(r, words - 1);
        double t0 = now_s(), waited = 0;
        while ((*first != want_first || *last != want_last) &&
               (waited = now_s() - t0) < POLL_LIMIT_S)
            compute_for(0.00001);
        total += waited;
        if (waited > longest)
            longest = waited;
        if (waited >= POLL_LIMIT_S) {
            fprintf(stderr, "rank 1: FAILED: round %ld: %ld bytes did not move in %.0f s "
                    "while this rank computed without MPI calls\n", r, bytes, POLL_LIMIT_S);
            failed = 1;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < words; i++)
            if (buf[i] != word_of(r, i)) {
                fprintf(stderr, "rank 1: FAILED: round %ld: word %zu wrong\n", r, i);
                failed = 1;
                break;
            }
    }
    if (rank == 1 && !failed)
        printf("progress: %ld rounds of %ld bytes moved while the receiver computed "
               "(%.3f ms on average, %.3f at most): ok\n", rounds, bytes,
               1e3 * total / (double)rounds, 1e3 * longest);
    free(buf);
    MPI_Finalize();
    return failed;
}
