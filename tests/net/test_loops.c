/*
 * test_loops.c — receives from ranks of other OS processes completed by
 * polling loops of MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome and
 * MPI_Request_get_status, with nothing else to wake the rank: the calls
 * themselves must see the messages arrive (they drive the network, and
 * the comm thread watches a small receive within a millisecond: net.h).
 *
 * Rank r and rank r + size/2 are partners (other processes when the job
 * has two processes or more of size/2 ranks). For each size (0 B, eager,
 * the eager limit's neighbourhood, rendezvous) and each polling call,
 * both partners post MPI_Irecv, then MPI_Isend, then poll until both
 * requests are done; every byte and the status (source, tag, count) are
 * checked, and the requests must come back as MPI_REQUEST_NULL.
 *
 *   test_loops [rounds]     (default 20 per size and call)
 *
 * Output: "test loops: N exchanges, 0 errors: ok", or FAILED lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEST, TESTALL, TESTANY, TESTSOME, GET_STATUS, NCALLS };
static const char *const call_names[NCALLS] = {"MPI_Test", "MPI_Testall", "MPI_Testany",
                                               "MPI_Testsome", "MPI_Request_get_status"};

static unsigned char pattern(int src, int round, size_t i)
{
    return (unsigned char)(src * 31 + round * 7 + i * 13 + (i >> 8));
}

static long errors;

static void fail(int rank, const char *what, const char *call, size_t bytes, int round)
{
    if (errors++ < 10)
        printf("FAILED: rank %d: %s (%s, %zu bytes, round %d)\n", rank, what, call, bytes,
               round);
}

/* Poll both requests with `call` until they are done; statuses[0] is the
 * receive's. */
static void poll_until_done(int call, MPI_Request reqs[2], MPI_Status statuses[2])
{
    int done[2] = {0, 0};
    while (!done[0] || !done[1]) {
        int flag = 0, index, count, indices[2];
        MPI_Status st[2];
        switch (call) {
        case TEST:
            for (int k = 0; k < 2; k++)
                if (!done[k]) {
                    MPI_Test(&reqs[k], &flag, &st[0]);
                    if (flag) {
                        done[k] = 1;
                        statuses[k] = st[0];
                    }
                }
            break;
        case TESTALL:
            MPI_Testall(2, reqs, &flag, st);
            if (flag) {
                done[0] = done[1] = 1;
                statuses[0] = st[0];
                statuses[1] = st[1];
            }
            break;
        case TESTANY:
            MPI_Testany(2, reqs, &index, &flag, &st[0]);
            if (flag && index != MPI_UNDEFINED) {
                done[index] = 1;
                statuses[index] = st[0];
            }
            break;
        case TESTSOME:
            MPI_Testsome(2, reqs, &count, indices, st);
            for (int k = 0; k < count && count != MPI_UNDEFINED; k++) {
                done[indices[k]] = 1;
                statuses[indices[k]] = st[k];
            }
            break;
        case GET_STATUS:
            /* get_status leaves the request alive: freed by MPI_Wait, which
             * must then return at once. */
            for (int k = 0; k < 2; k++)
                if (!done[k]) {
                    MPI_Request_get_status(reqs[k], &flag, &st[0]);
                    if (flag) {
                        done[k] = 1;
                        statuses[k] = st[0];
                        MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
                    }
                }
            break;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (size % 2 || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: an even number of ranks; test_loops [rounds >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    int partner = (rank + size / 2) % size;
    const size_t sizes[] = {0, 8, 4096, 16384, 16385, 1 << 20};
    size_t max = 1 << 20;
    unsigned char *sbuf = malloc(max), *rbuf = malloc(max);
    long exchanges = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t bytes = sizes[s];
        for (int call = 0; call < NCALLS; call++) {
            for (int round = 0; round < rounds; round++) {
                int tag = round * NCALLS + call;
                for (size_t i = 0; i < bytes; i++)
                    sbuf[i] = pattern(rank, round, i);
                memset(rbuf, 0xee, bytes);
                MPI_Request reqs[2];
                MPI_Status statuses[2];
                MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &reqs[0]);
                MPI_Isend(sbuf, (int)bytes, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &reqs[1]);
                poll_until_done(call, reqs, statuses);
                if (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL)
                    fail(rank, "a completed request is not MPI_REQUEST_NULL", call_names[call],
                         bytes, round);
                int count = -1;
                MPI_Get_count(&statuses[0], MPI_BYTE, &count);
                if (statuses[0].MPI_SOURCE != partner || statuses[0].MPI_TAG != tag ||
                    count != (int)bytes)
                    fail(rank, "wrong status of the receive", call_names[call], bytes, round);
                for (size_t i = 0; i < bytes; i++)
                    if (rbuf[i] != pattern(partner, round, i)) {
                        fail(rank, "wrong data", call_names[call], bytes, round);
                        break;
                    }
                exchanges++;
            }
        }
    }
    long total_errors = 0, total_exchanges = 0;
    MPI_Reduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&exchanges, &total_exchanges, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test loops: %ld exchanges, %ld errors%s\n", total_exchanges, total_errors,
               total_errors ? "" : ": ok");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
