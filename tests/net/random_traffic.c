/*
 * random_traffic.c — every rank sends messages of random sizes (0 B to
 * 4 MiB, most small) to random ranks, and receives what is sent to it
 * with a mix of MPI_ANY_SOURCE / MPI_ANY_TAG, named-source and
 * named-tag receives and probes. Each rank can recompute every other
 * rank's sequence (one generator per sender), so a received message must
 * be exactly the next one its sender sent this rank: payload, size, tag
 * and order are all checked, and nothing may be lost or duplicated.
 * Meant for jobs of several OS processes (mpiexec -nfg, mpirun), where
 * collocated and remote senders race for the same receives; correct in
 * one process too.
 *
 * Usage: net_random_traffic [messages per rank] [rounds]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BYTES = 4 << 20, TAGS = 7 };

typedef struct msg {
    int dest, tag;
    int bytes;
} msg;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Sender `src`'s i-th message (the sequence is fixed by src alone). */
static msg draw(uint64_t *s, int nranks)
{
    msg m;
    m.dest = (int)(next(s) % (uint64_t)nranks);
    m.tag = (int)(next(s) % TAGS);
    uint64_t kind = next(s) % 1000;
    if (kind < 900)
        m.bytes = (int)(next(s) % 257);            /* small: eager */
    else if (kind < 995)
        m.bytes = (int)(next(s) % (64 << 10));     /* around the eager limit */
    else
        m.bytes = (int)(next(s) % (MAX_BYTES + 1)); /* large: rendezvous */
    return m;
}

static unsigned char pattern(int src, long seq, int i)
{
    return (unsigned char)(src * 131 + seq * 7 + i * 13 + (i >> 8));
}

static void fill(unsigned char *buf, int src, long seq, int bytes)
{
    for (int i = 0; i < bytes; i++)
        buf[i] = pattern(src, seq, i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long per_rank = argc > 1 ? atol(argv[1]) : 2000;
    int rounds = argc > 2 ? atoi(argv[2]) : 10;
    long per_round = (per_rank + rounds - 1) / rounds;

    /* Every sender's generator, and what each one sends this rank: the
     * expected sequence per source, as (seq, tag, bytes). */
    uint64_t *gen = malloc((size_t)nranks * sizeof *gen);
    long *expect_count = calloc((size_t)nranks, sizeof *expect_count);
    msg **expect = calloc((size_t)nranks, sizeof *expect);
    long **expect_seq = calloc((size_t)nranks, sizeof *expect_seq);
    long *got = calloc((size_t)nranks, sizeof *got);
    long *to_me_in_round = calloc((size_t)rounds, sizeof *to_me_in_round);
    for (int s = 0; s < nranks; s++) {
        gen[s] = 0x9e3779b97f4a7c15ull ^ ((uint64_t)s * 0xbf58476d1ce4e5b9ull + 1);
        uint64_t g = gen[s];
        for (long i = 0; i < per_rank; i++) {
            msg m = draw(&g, nranks);
            if (m.dest != rank)
                continue;
            long n = expect_count[s]++;
            expect[s] = realloc(expect[s], (size_t)(n + 1) * sizeof **expect);
            expect_seq[s] = realloc(expect_seq[s], (size_t)(n + 1) * sizeof **expect_seq);
            expect[s][n] = m;
            expect_seq[s][n] = i;
            to_me_in_round[i / per_round]++;
        }
    }
    unsigned char *rbuf = malloc(MAX_BYTES + 1);
    unsigned char *want = malloc(MAX_BYTES + 1);
    unsigned char **sbufs = malloc((size_t)per_round * sizeof *sbufs);
    MPI_Request *sreqs = malloc((size_t)per_round * sizeof *sreqs);
    long errors = 0, received = 0, sent = 0;
    uint64_t mine = gen[rank];
    uint64_t choice = 12345u + (uint64_t)rank;

    for (int r = 0; r < rounds; r++) {
        long first = r * per_round, last = first + per_round;
        if (last > per_rank)
            last = per_rank;
        int nsends = 0;
        for (long i = first; i < last; i++) {
            msg m = draw(&mine, nranks);
            sbufs[nsends] = malloc(m.bytes ? (size_t)m.bytes : 1);
            fill(sbufs[nsends], rank, i, m.bytes);
            /* Some synchronous sends: they complete only once matched. */
            if (i % 17 == 5)
                MPI_Issend(sbufs[nsends], m.bytes, MPI_BYTE, m.dest, m.tag, MPI_COMM_WORLD,
                           &sreqs[nsends]);
            else
                MPI_Isend(sbufs[nsends], m.bytes, MPI_BYTE, m.dest, m.tag, MPI_COMM_WORLD,
                          &sreqs[nsends]);
            nsends++;
        }
        for (long k = 0; k < to_me_in_round[r]; k++) {
            /* Which receive: the named forms name a source whose next
             * message to us is of this round or earlier (one of a later
             * round may not be sent before we receive ours: waiting for it
             * could deadlock), else wildcards. */
            int how = (int)(next(&choice) % 4), src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
            if (how >= 2) {
                int s = (int)(next(&choice) % (uint64_t)nranks), t = 0;
                for (; t < nranks; t++, s = (s + 1) % nranks)
                    if (got[s] < expect_count[s] && expect_seq[s][got[s]] < last)
                        break;
                if (t < nranks) {
                    src = s;
                    if (how == 3)
                        tag = expect[s][got[s]].tag;
                }
            }
            MPI_Status st;
            if (how == 1) {
                /* Probe first, then receive exactly that message. */
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                src = st.MPI_SOURCE;
                tag = st.MPI_TAG;
            }
            MPI_Recv(rbuf, MAX_BYTES + 1, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE, bytes;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if (s < 0 || s >= nranks || got[s] >= expect_count[s]) {
                printf("rank %d: unexpected message from %d (tag %d, %d bytes)\n", rank, s,
                       st.MPI_TAG, bytes);
                errors++;
                continue;
            }
            msg m = expect[s][got[s]];
            long seq = expect_seq[s][got[s]];
            got[s]++;
            received++;
            if (st.MPI_TAG != m.tag || bytes != m.bytes) {
                printf("rank %d: message %ld from %d: tag %d bytes %d, expected tag %d "
                       "bytes %d\n", rank, seq, s, st.MPI_TAG, bytes, m.tag, m.bytes);
                errors++;
                continue;
            }
            fill(want, s, seq, bytes);
            if (memcmp(rbuf, want, (size_t)bytes) != 0) {
                printf("rank %d: message %ld from %d (%d bytes): wrong payload\n", rank, seq,
                       s, bytes);
                errors++;
            }
        }
        MPI_Waitall(nsends, sreqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < nsends; i++)
            free(sbufs[i]);
        sent += nsends;
    }
    for (int s = 0; s < nranks; s++)
        if (got[s] != expect_count[s]) {
            printf("rank %d: got %ld of %ld messages from %d\n", rank, got[s],
                   expect_count[s], s);
            errors++;
        }
    /* Nothing may be left over: a duplicate would still be queued. */
    int flag;
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
        printf("rank %d: a message too many, from %d\n", rank, st.MPI_SOURCE);
        errors++;
    }
    long totals[3] = {sent, received, errors}, sums[3];
    MPI_Reduce(totals, sums, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int s = 0; s < nranks; s++) {
        free(expect[s]);
        free(expect_seq[s]);
    }
    free(expect);
    free(expect_seq);
    free(expect_count);
    free(got);
    free(gen);
    free(to_me_in_round);
    free(rbuf);
    free(want);
    free(sbufs);
    free(sreqs);
    if (rank == 0)
        printf("random traffic: %d ranks, %ld messages sent, %ld received, %ld errors: %s\n",
               nranks, sums[0], sums[1], sums[2],
               sums[2] == 0 && sums[0] == sums[1] ? "ok" : "FAILED");
    MPI_Finalize();
    return errors ? 1 : 0;
}
