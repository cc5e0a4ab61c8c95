/* waitall_stress.c — MPI_Waitall over mixed requests whose completions come
 * from other ranks, on other workers, in any order: standard, synchronous
 * and persistent sends, receives by source and by MPI_ANY_SOURCE, small
 * (eager) and large (single-copy) messages, a nonblocking Allreduce and a
 * Barrier, null entries; some ranks compute for a random while before they
 * wait, so that their requests complete before, during and after the wait.
 * Each round's partners and sizes are drawn afresh; every payload, status
 * and reduction result is checked.
 * Usage: waitall_stress ROUNDS (default 200). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

enum { PARTNERS = 4, MAX_BYTES = 40000, SLOTS = 4 * PARTNERS + 3 };

static uint32_t mix(uint32_t x)
{
    return check_hash32(x);
}

/* Round `round`'s k-th distance (the same for every rank), in 1..size-1. */
static int distance(int round, int k, int size)
{
    return 1 + (int)(mix((uint32_t)round * 7919u + (uint32_t)k * 104729u) % (uint32_t)(size - 1));
}

/* Length of the message from `src` at distance index k in `round`: mostly
 * small, one in four above the eager limit. */
static int length_of(int round, int src, int k)
{
    uint32_t h = mix((uint32_t)round * 2654435761u ^ (uint32_t)src * 40503u ^ (uint32_t)k);
    return h % 4 == 0 ? (int)(h / 4 % MAX_BYTES) : (int)(h / 4 % 600);
}

static unsigned char byte_of(int round, int src, int k, int i)
{
    return (unsigned char)mix((uint32_t)round * 31u + (uint32_t)src * 131u +
                              (uint32_t)k * 17u + (uint32_t)i);
}

static volatile double sink;

static void compute(uint32_t h)
{
    double x = 1.0;
    for (uint32_t i = 0; i < h % 20000; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    if (size < 2) {
        CHECK_OK(MPI_Finalize());
        return 0;
    }
    unsigned char *sbuf[PARTNERS], *rbuf[PARTNERS];
    for (int k = 0; k < PARTNERS; k++) {
        sbuf[k] = malloc(MAX_BYTES);
        rbuf[k] = malloc(MAX_BYTES);
        CHECK(sbuf[k] && rbuf[k]);
    }
    /* One persistent send per distance index, restarted every round that
     * picks it (its buffer and length fixed: the largest message). */
    unsigned char *pbuf = malloc(MAX_BYTES);
    CHECK(pbuf);
    long checked = 0;
    for (int round = 0; round < rounds; round++) {
        MPI_Request req[SLOTS];
        for (int i = 0; i < SLOTS; i++)
            req[i] = MPI_REQUEST_NULL;
        int n = 0;
        int recv_slot[PARTNERS], from[PARTNERS], tag[PARTNERS];
        int persistent_k = (int)(mix((uint32_t)round) % PARTNERS);
        MPI_Request persistent = MPI_REQUEST_NULL;
        for (int k = 0; k < PARTNERS; k++) {
            int d = distance(round, k, size);
            from[k] = (rank - d + size) % size;
            tag[k] = (round % 1000) * PARTNERS + k;
            /* Every third distance by MPI_ANY_SOURCE: its tag is unique to
             * one sender this round. */
            int src = (round + k) % 3 == 0 ? MPI_ANY_SOURCE : from[k];
            recv_slot[k] = n;
            CHECK_OK(MPI_Irecv(rbuf[k], MAX_BYTES, MPI_BYTE, src, tag[k], MPI_COMM_WORLD,
                               &req[n++]));
            n++;   /* a null entry between requests */
        }
        for (int k = 0; k < PARTNERS; k++) {
            int d = distance(round, k, size);
            int to = (rank + d) % size;
            int len = length_of(round, rank, k);
            for (int i = 0; i < len; i++)
                sbuf[k][i] = byte_of(round, rank, k, i);
            int t = (round % 1000) * PARTNERS + k;
            if (k == persistent_k) {
                memcpy(pbuf, sbuf[k], (size_t)len);
                CHECK_OK(MPI_Send_init(pbuf, len, MPI_BYTE, to, t, MPI_COMM_WORLD, &persistent));
                CHECK_OK(MPI_Start(&persistent));
                req[n++] = persistent;
            } else if ((round + rank + k) % 4 == 0) {
                CHECK_OK(MPI_Issend(sbuf[k], len, MPI_BYTE, to, t, MPI_COMM_WORLD, &req[n++]));
            } else {
                CHECK_OK(MPI_Isend(sbuf[k], len, MPI_BYTE, to, t, MPI_COMM_WORLD, &req[n++]));
            }
        }
        long mine = rank + round, sum = -1;
        CHECK_OK(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req[n++]));
        if (round % 5 == 0)
            CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[n++]));
        uint32_t h = mix((uint32_t)(rank * 977 + round));
        if (h % 3 == 0)
            compute(h >> 2);
        MPI_Status st[SLOTS];
        CHECK_OK(MPI_Waitall(n, req, st));
        for (int i = 0; i < n; i++)
            CHECK(req[i] == MPI_REQUEST_NULL || req[i] == persistent);
        CHECK_OK(MPI_Request_free(&persistent));
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * round);
        for (int k = 0; k < PARTNERS; k++) {
            int len = length_of(round, from[k], k);
            MPI_Status *s = &st[recv_slot[k]];
            int count;
            CHECK_OK(MPI_Get_count(s, MPI_BYTE, &count));
            CHECK(s->MPI_SOURCE == from[k] && s->MPI_TAG == tag[k] && count == len);
            for (int i = 0; i < len; i++)
                CHECK(rbuf[k][i] == byte_of(round, from[k], k, i));
            checked++;
        }
    }
    long total = 0;
    CHECK_OK(MPI_Reduce(&checked, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        printf("%d ranks, %ld messages checked\n", size, total);
    for (int k = 0; k < PARTNERS; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    free(pbuf);
    CHECK_OK(MPI_Finalize());
    return 0;
}
