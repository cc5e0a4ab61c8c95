/*
 * collectives.c — every collective, on MPI_COMM_WORLD and on communicators
 * split from it, with results checked; meant for jobs of several OS
 * processes, where each communicator's ranks are spread over processes in
 * rank order (WORLD, a dup) or interleaved (a split with reversed keys,
 * so that reductions must still fold in rank order). A non-commutative
 * op checks that order; derived types, MPI_IN_PLACE and roots in every
 * process are covered. Prints one line per communicator and "ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            printf("rank %d: %s:%d: ", wrank, __FILE__, __LINE__);                \
            printf(__VA_ARGS__);                                                  \
            printf("\n");                                                         \
            errors++;                                                             \
        }                                                                         \
    } while (0)

static int wrank;

/* A non-commutative op on pairs (a, b): composition of affine maps
 * x -> a*x + b, exact in integers modulo 2^31. inout = in o inout. */
typedef struct affine {
    int a, b;
} affine;

static void compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    affine *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        /* (x o y)(t) = x(y(t)) = x.a*(y.a*t + y.b) + x.b */
        int a = (int)(((long long)x[i].a * y[i].a) & 0x7fffffff);
        int b = (int)(((long long)x[i].a * y[i].b + x[i].b) & 0x7fffffff);
        y[i].a = a;
        y[i].b = b;
    }
}

static affine affine_of(int rank, int i)
{
    return (affine){2 + (rank + i) % 3, rank * 7 + i};
}

static void run(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int before = errors;
    enum { N = 5 };

    MPI_Barrier(comm);

    /* Bcast from every root, with a strided (vector) type. */
    for (int root = 0; root < size; root++) {
        int buf[2 * N];
        MPI_Datatype every_other;
        MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        for (int i = 0; i < 2 * N; i++)
            buf[i] = rank == root ? root * 100 + i : -1;
        MPI_Bcast(buf, 1, every_other, root, comm);
        for (int i = 0; i < N; i++)
            CHECK(buf[2 * i] == root * 100 + 2 * i, "%s bcast root %d", name, root);
        if (rank != root)
            CHECK(buf[1] == -1, "%s bcast wrote a gap", name);
        MPI_Type_free(&every_other);
    }

    /* Bcast and Ibcast whose ranks describe the same data with different
     * types: ints at even ranks, pairs of ints (a contiguous type) at odd
     * ranks, and a strided pair at every third one. */
    for (int root = 0; root < size; root += (size > 4 ? size / 4 : 1)) {
        enum { M = 6 };
        int buf[2 * M];
        MPI_Datatype pair2, strided;
        MPI_Type_contiguous(2, MPI_INT, &pair2);
        MPI_Type_commit(&pair2);
        MPI_Type_vector(M, 1, 2, MPI_INT, &strided);
        MPI_Type_commit(&strided);
        for (int nb = 0; nb < 2; nb++) {
            for (int i = 0; i < 2 * M; i++)
                buf[i] = -1;
            int stride = rank % 3 == 2 && rank != root ? 2 : 1;
            for (int i = 0; rank == root && i < M; i++)
                buf[i] = root * 1000 + i;
            MPI_Datatype t = stride == 2 ? strided : rank % 2 ? pair2 : MPI_INT;
            int count = stride == 2 ? 1 : rank % 2 ? M / 2 : M;
            if (nb) {
                MPI_Request q;
                MPI_Ibcast(buf, count, t, root, comm, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Bcast(buf, count, t, root, comm);
            }
            for (int i = 0; i < M; i++)
                CHECK(buf[i * stride] == root * 1000 + i, "%s %s of mixed types root %d", name,
                      nb ? "ibcast" : "bcast", root);
            if (stride == 2)
                CHECK(buf[1] == -1, "%s bcast of mixed types wrote a gap", name);
        }
        MPI_Type_free(&pair2);
        MPI_Type_free(&strided);
    }

    /* Reduce and Allreduce: a sum, and the non-commutative composition
     * folded in rank order. */
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    affine want[N];
    for (int i = 0; i < N; i++) {
        want[i] = affine_of(size - 1, i);
        for (int r = size - 2; r >= 0; r--) {
            affine x = affine_of(r, i);
            int len = 1;
            compose(&x, &want[i], &len, NULL);
        }
    }
    for (int root = 0; root < size; root += (size > 3 ? size / 3 : 1)) {
        affine mine[N], out[N];
        for (int i = 0; i < N; i++)
            mine[i] = affine_of(rank, i);
        MPI_Reduce(mine, out, N, pair, op, root, comm);
        if (rank == root)
            for (int i = 0; i < N; i++)
                CHECK(out[i].a == want[i].a && out[i].b == want[i].b,
                      "%s reduce (non-commutative) root %d", name, root);
        long s = rank + 1, total = 0;
        MPI_Reduce(&s, &total, 1, MPI_LONG, MPI_SUM, root, comm);
        if (rank == root)
            CHECK(total == (long)size * (size + 1) / 2, "%s reduce sum", name);
    }
    {
        affine io[N];
        for (int i = 0; i < N; i++)
            io[i] = affine_of(rank, i);
        MPI_Allreduce(MPI_IN_PLACE, io, N, pair, op, comm);
        for (int i = 0; i < N; i++)
            CHECK(io[i].a == want[i].a && io[i].b == want[i].b,
                  "%s allreduce (non-commutative, in place)", name);
        double d = rank, mx;
        MPI_Allreduce(&d, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
        CHECK(mx == size - 1, "%s allreduce max", name);
    }

    /* Gather(v), Scatter(v), Allgather(v), Alltoall(v). */
    int *all = malloc((size_t)size * 2 * sizeof *all);
    int *counts = malloc((size_t)size * sizeof *counts);
    int *displs = malloc((size_t)size * sizeof *displs);
    int mine2[2] = {rank, -rank};
    for (int root = 0; root < size; root += (size > 2 ? size - 1 : 1)) {
        memset(all, 0xff, (size_t)size * 2 * sizeof *all);
        MPI_Gather(mine2, 2, MPI_INT, all, 2, MPI_INT, root, comm);
        if (rank == root)
            for (int r = 0; r < size; r++)
                CHECK(all[2 * r] == r && all[2 * r + 1] == -r, "%s gather", name);
        int got[2] = {-7, -7};
        MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, root, comm);
        CHECK(got[0] == rank && got[1] == -rank, "%s scatter", name);
    }
    memset(all, 0xff, (size_t)size * 2 * sizeof *all);
    all[2 * rank] = rank;
    all[2 * rank + 1] = -rank;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == r && all[2 * r + 1] == -r, "%s allgather in place", name);
    int total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r % 3;
        displs[r] = total;
        total += counts[r];
    }
    int *v = malloc((size_t)(total + 1) * sizeof *v), mine3[3] = {rank, rank, rank};
    MPI_Allgatherv(mine3, counts[rank], MPI_INT, v, counts, displs, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < counts[r]; k++)
            CHECK(v[displs[r] + k] == r, "%s allgatherv", name);
    int *sendv = malloc((size_t)size * sizeof *sendv), *recvv = malloc((size_t)size * sizeof *recvv);
    for (int r = 0; r < size; r++)
        sendv[r] = rank * 1000 + r;
    MPI_Alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        CHECK(recvv[r] == r * 1000 + rank, "%s alltoall", name);

    /* Scan, Exscan (non-commutative), Reduce_scatter_block. */
    affine pre[N], ex[N];
    for (int i = 0; i < N; i++)
        pre[i] = affine_of(rank, i);
    MPI_Scan(MPI_IN_PLACE, pre, N, pair, op, comm);
    affine mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = affine_of(rank, i);
    MPI_Exscan(mine, ex, N, pair, op, comm);
    for (int i = 0; i < N; i++) {
        affine w = affine_of(rank, i);
        for (int r = rank - 1; r >= 0; r--) {
            affine x = affine_of(r, i);
            int len = 1;
            compose(&x, &w, &len, NULL);
        }
        CHECK(pre[i].a == w.a && pre[i].b == w.b, "%s scan", name);
        if (rank > 0) {
            affine e = affine_of(rank - 1, i);
            for (int r = rank - 2; r >= 0; r--) {
                affine x = affine_of(r, i);
                int len = 1;
                compose(&x, &e, &len, NULL);
            }
            CHECK(ex[i].a == e.a && ex[i].b == e.b, "%s exscan", name);
        }
    }
    int *blocks = malloc((size_t)size * 2 * sizeof *blocks), rs[2];
    for (int r = 0; r < size; r++) {
        blocks[2 * r] = r + rank;
        blocks[2 * r + 1] = 1;
    }
    MPI_Reduce_scatter_block(blocks, rs, 2, MPI_INT, MPI_SUM, comm);
    CHECK(rs[0] == size * rank + size * (size - 1) / 2 && rs[1] == size,
          "%s reduce_scatter_block", name);

    /* A nonblocking one, overlapped with point-to-point on the same comm. */
    MPI_Request req;
    int ib = rank == 0 ? 4242 : 0;
    MPI_Ibcast(&ib, 1, MPI_INT, 0, comm, &req);
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 9, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 9, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(ib == 4242 && got == (rank + size - 1) % size, "%s ibcast + sendrecv", name);

    free(all);
    free(counts);
    free(displs);
    free(v);
    free(sendv);
    free(recvv);
    free(blocks);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    int bad = errors - before, sum;
    MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("%s (%d ranks): %s\n", name, size, sum ? "FAILED" : "ok");
}

/* Alltoallv and Alltoallw with counts that differ per pair (zeros too),
 * in place, and with one pair of ranks moving a block far above the
 * others: a communicator whose processes' ranks are consecutive agrees
 * between its hierarchical form and pairwise messages from what every
 * rank moves (src/coll/procs.c, alltoallv_hier), so the one large block
 * must turn every rank to pairwise messages, not only its two ranks. */
static int vw_value(int src, int dst, int k)
{
    return src * 1000003 + dst * 101 + k;
}

static void alltoallv_sizes(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int before = errors;
    int *sc = malloc((size_t)size * sizeof *sc), *sd = malloc((size_t)size * sizeof *sd);
    int *rc = malloc((size_t)size * sizeof *rc), *rd = malloc((size_t)size * sizeof *rd);
    int *wsd = malloc((size_t)size * sizeof *wsd), *wrd = malloc((size_t)size * sizeof *wrd);
    MPI_Datatype *st = malloc((size_t)size * sizeof *st), *rt = malloc((size_t)size * sizeof *rt);
    enum { BIG = 600000 };   /* ints: 2.4 MB between one pair */
    for (int round = 0; round < 3; round++) {
        /* round 0: small; 1: rank 0 -> rank size-1 big; 2: in place, small. */
        int stot = 0, rtot = 0;
        for (int r = 0; r < size; r++) {
            sc[r] = (rank + 2 * r + round) % 4;
            rc[r] = (r + 2 * rank + round) % 4;
            if (round == 1 && rank == 0 && r == size - 1)
                sc[r] = BIG;
            if (round == 1 && r == 0 && rank == size - 1)
                rc[r] = BIG;
            if (round == 2)
                sc[r] = rc[r] = (rank + r) % 3;   /* in place: symmetric */
            sd[r] = stot;
            rd[r] = rtot + 1;   /* a gap before each block stays untouched */
            stot += sc[r];
            rtot += rc[r] + 1;
            wsd[r] = sd[r] * (int)sizeof(int);
            wrd[r] = rd[r] * (int)sizeof(int);
            st[r] = sc[r] ? MPI_INT : MPI_DATATYPE_NULL;
            rt[r] = rc[r] ? MPI_INT : MPI_DATATYPE_NULL;
        }
        int *sb = malloc((size_t)(stot + 1) * sizeof *sb);
        int *rb = malloc((size_t)(rtot + 1) * sizeof *rb);
        for (int w = 0; w < 2; w++) {
            for (int r = 0; r < size; r++)
                for (int k = 0; k < sc[r]; k++)
                    sb[sd[r] + k] = vw_value(rank, r, k);
            for (int i = 0; i <= rtot; i++)
                rb[i] = -7;
            if (round == 2) {   /* the blocks to send are in rb, in place */
                for (int r = 0; r < size; r++)
                    for (int k = 0; k < rc[r]; k++)
                        rb[rd[r] + k] = vw_value(rank, r, k);
                if (w)
                    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, wrd, rt, comm);
                else
                    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rc, rd,
                                  MPI_INT, comm);
            } else if (w) {
                MPI_Alltoallw(sb, sc, wsd, st, rb, rc, wrd, rt, comm);
            } else {
                MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm);
            }
            int bad = 0;
            for (int r = 0; r < size && !bad; r++) {
                bad |= rb[rd[r] - 1] != -7;
                for (int k = 0; k < rc[r] && !bad; k++)
                    bad |= rb[rd[r] + k] != vw_value(r, rank, k);
            }
            CHECK(!bad, "%s %s round %d", name, w ? "alltoallw" : "alltoallv", round);
        }
        free(sb);
        free(rb);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(wsd);
    free(wrd);
    free(st);
    free(rt);
    int bad = errors - before, sum;
    MPI_Allreduce(&bad, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("%s (%d ranks), alltoallv/w sizes: %s\n", name, size, sum ? "FAILED" : "ok");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    alltoallv_sizes(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm dup, halves, reversed, shared;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run(dup, "a dup of MPI_COMM_WORLD");
    /* Even and odd ranks: each half spans the processes, interleaved
     * with the other half. */
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &halves);
    run(halves, wrank % 2 ? "the odd ranks" : "the even ranks");
    alltoallv_sizes(halves, wrank % 2 ? "the odd ranks" : "the even ranks");
    /* Reversed order: comm rank r is world rank size-1-r. */
    MPI_Comm_split(dup, 0, size - wrank, &reversed);
    int rrank;
    MPI_Comm_rank(reversed, &rrank);
    if (rrank != size - 1 - wrank) {
        printf("rank %d: rank %d in the reversed communicator\n", wrank, rrank);
        errors++;
    }
    run(reversed, "the reversed ranks");
    alltoallv_sizes(reversed, "the reversed ranks");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    int shared_size;
    MPI_Comm_size(shared, &shared_size);
    if (shared_size != size) {
        printf("rank %d: MPI_COMM_TYPE_SHARED has %d ranks, not %d (one node)\n", wrank,
               shared_size, size);
        errors++;
    }
    MPI_Comm_free(&shared);
    /* This process's ranks: FG-MPI's collocation queries and the split
     * type agree, and they are consecutive job ranks. */
    MPI_Comm mine;
    int local, first, mine_size, mine_rank;
    MPIX_Get_collocated_size(&local);
    MPIX_Get_collocated_startrank(&first);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_PROCESS, 0, MPI_INFO_NULL, &mine);
    MPI_Comm_size(mine, &mine_size);
    MPI_Comm_rank(mine, &mine_rank);
    if (mine_size != local || mine_rank != wrank - first || first > wrank ||
        wrank >= first + local) {
        printf("rank %d: this process's ranks: %d from %d, split type gives %d (rank %d)\n",
               wrank, local, first, mine_size, mine_rank);
        errors++;
    }
    MPI_Comm_free(&mine);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&dup);
    int sum;
    MPI_Allreduce(&errors, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("collectives across processes: %s\n", sum ? "FAILED" : "ok");
    MPI_Finalize();
    return sum != 0;
}
