/* p2p_stress.c — many ranks exchange many messages of random sizes, small
 * (copied eagerly) and large (copied once, from the sender's buffer), to
 * their neighbours, received with MPI_ANY_SOURCE after MPI_Probe. Every
 * message's sender, sequence number and contents are checked.
 * Usage: p2p_stress MESSAGES_PER_RANK (default 1000). */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "../check.h"

enum { NEIGHBOURS = 4, BATCH = 16, MAX_INTS = 8192 };

static uint32_t mix(uint32_t x)
{
    return check_hash32(x);
}

/* Message `seq` from `src` to its `k`-th neighbour: its length in ints. */
static int length_of(int src, int seq)
{
    uint32_t h = mix((uint32_t)src * 1000003u + (uint32_t)seq);
    if (h % 20 == 0)
        return 2 + (int)(h / 20 % MAX_INTS);  /* 5% large, up to 32 KiB */
    return 2 + (int)(h / 20 % 64);
}

static int word(int src, int seq, int i)
{
    return (int)mix((uint32_t)src * 31u + (uint32_t)seq * 131u + (uint32_t)i);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int per_rank = argc > 1 ? atoi(argv[1]) : 1000;
    per_rank -= per_rank % BATCH;
    int k_max = size - 1 < NEIGHBOURS ? size - 1 : NEIGHBOURS;
    if (k_max == 0) {
        CHECK_OK(MPI_Finalize());
        return 0;
    }
    int batch = BATCH - BATCH % k_max;  /* each neighbour gets batch/k_max */
    per_rank -= per_rank % batch;

    int *out[BATCH], *in = malloc(MAX_INTS * 2 * sizeof(int));
    for (int b = 0; b < BATCH; b++)
        out[b] = malloc((MAX_INTS + 2) * sizeof(int));
    int *sent_seq = calloc((size_t)k_max, sizeof(int));
    int *recv_seq = calloc((size_t)size, sizeof(int));
    long received = 0;
    unsigned long checksum = 0;

    for (int base = 0; base < per_rank; base += batch) {
        MPI_Request reqs[BATCH];
        for (int b = 0; b < batch; b++) {
            int k = b % k_max;
            int dest = (rank + 1 + k) % size;
            int seq = sent_seq[k]++;
            int n = length_of(rank, seq * NEIGHBOURS + k);
            out[b][0] = rank;
            out[b][1] = seq;
            for (int i = 2; i < n; i++)
                out[b][i] = word(rank, seq * NEIGHBOURS + k, i);
            CHECK_OK(MPI_Isend(out[b], n, MPI_INT, dest, 0, MPI_COMM_WORLD, &reqs[b]));
        }
        for (int b = 0; b < batch; b++) {
            MPI_Status st;
            int n;
            CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st));
            CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
            int src = st.MPI_SOURCE;
            CHECK_OK(MPI_Recv(in, n, MPI_INT, src, 0, MPI_COMM_WORLD, &st));
            int k = (rank - src - 1 + size) % size;  /* I am src's k-th neighbour */
            CHECK(k < k_max);
            CHECK(in[0] == src);
            CHECK(in[1] == recv_seq[src]);  /* in order, none lost */
            int seq = recv_seq[src]++;
            CHECK(n == length_of(src, seq * NEIGHBOURS + k));
            for (int i = 2; i < n; i++) {
                CHECK(in[i] == word(src, seq * NEIGHBOURS + k, i));
                checksum += (unsigned)in[i];
            }
            received++;
        }
        CHECK_OK(MPI_Waitall(batch, reqs, MPI_STATUSES_IGNORE));
    }
    CHECK(received == per_rank);
    long total = 0;
    if (rank == 0) {
        total = received;
        for (int s = 1; s < size; s++) {
            long r;
            CHECK_OK(MPI_Recv(&r, 1, MPI_LONG, s, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            total += r;
        }
        printf("p2p_stress: %d ranks, %ld messages checked\n", size, total);
        CHECK(total == (long)size * per_rank);
    } else {
        CHECK_OK(MPI_Send(&received, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD));
    }
    (void)checksum;
    for (int b = 0; b < BATCH; b++)
        free(out[b]);
    free(in);
    free(sent_seq);
    free(recv_seq);
    CHECK_OK(MPI_Finalize());
    return 0;
}
