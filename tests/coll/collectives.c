/* collectives.c — gather, scatter, allgather, alltoall (and their v and w
 * forms), reduce, reduce_scatter(_block), scan and exscan against results
 * computed serially by every rank. Usage: collectives CASE (MYR_NRANKS
 * and MYR_WORKERS come from CTest, as mpiexec would set them).
 *
 * Each semantic case runs on MPI_COMM_WORLD, MPI_COMM_SELF and a split
 * communicator whose ranks are in a scrambled order of their world ranks,
 * with zero, small and large counts (large ones make the ranks share the
 * work, small ones leave it to one rank), in place and not, and with a
 * strided datatype (an int with a gap after it) on one side against plain
 * ints on the other. Receive buffers start filled with a sentinel: every
 * byte a collective must not write is checked to still hold it. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"

enum { SENT = -7777 };

/* Whether the semantic cases use the nonblocking forms: MPI_IX, then
 * MPI_Wait. Every rank sets it alike (the ranks share this program's
 * globals). */
static _Atomic bool use_nonblocking;

/* MPI_NAME(args), or MPI_INAME(args, &request) and MPI_Wait. */
#define COLL(NAME, INAME, ...)                                                        \
    ({                                                                                \
        int coll_rc_;                                                                 \
        if (atomic_load_explicit(&use_nonblocking, memory_order_relaxed)) {           \
            MPI_Request coll_req_ = MPI_REQUEST_NULL;                                 \
            coll_rc_ = MPI_##INAME(__VA_ARGS__, &coll_req_);                          \
            if (coll_rc_ == MPI_SUCCESS)                                              \
                coll_rc_ = MPI_Wait(&coll_req_, MPI_STATUS_IGNORE);                   \
            CHECK(coll_req_ == MPI_REQUEST_NULL);                                     \
        } else {                                                                      \
            coll_rc_ = MPI_##NAME(__VA_ARGS__);                                       \
        }                                                                             \
        coll_rc_;                                                                     \
    })

/* The value element i of rank r's data (or of its block for rank q). */
static int val(int r, int i)
{
    return (int)((unsigned)r * 100003u + (unsigned)i * 7u + 1u);
}

static int val2(int r, int q, int i)
{
    return (int)((unsigned)r * 1000003u + (unsigned)q * 1009u + (unsigned)i * 3u + 5u);
}

static int comm_rank(MPI_Comm c)
{
    int r;
    CHECK_OK(MPI_Comm_rank(c, &r));
    return r;
}

static int comm_size(MPI_Comm c)
{
    int n;
    CHECK_OK(MPI_Comm_size(c, &n));
    return n;
}

static int *ints(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    CHECK(p != NULL);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* An int followed by a gap of one int: element k sits at int index 2k. */
static MPI_Datatype gapped_int(void)
{
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t));
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

/* Check that buf[at] holds v, then erase it: once every expected value is
 * taken, the whole buffer must hold the sentinel again (all_sent). */
static void take(int *buf, size_t at, int v)
{
    CHECK(buf[at] == v);
    buf[at] = SENT;
}

static void all_sent(const int *buf, size_t n)
{
    for (size_t k = 0; k < n; k++)
        CHECK(buf[k] == SENT);
}

/* Counts that vary by rank (zeros included), and displacements placing
 * the blocks in reverse rank order with a one-element gap after each.
 * Returns the elements the layout spans. */
static int v_layout(int size, int salt, int scale, int *counts, int *displs)
{
    int pos = 0;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = ((r * 5 + salt) % 4) * scale;
        displs[r] = pos;
        pos += counts[r] + 1;
    }
    return pos;
}

/* Counts large enough for the ranks to share the work (coll_worth_parallel:
 * more than about 8 KiB plus 1 KiB per rank to move), and no larger: a
 * large count of the gather family, of alltoall, of the reductions and
 * scans, and of each block of a reduce_scatter. */
static int big_count(int size)
{
    return size <= 8 ? 2000 : 400;
}

static int big_alltoall(int size)
{
    return size <= 8 ? 500 : size <= 64 ? 50 : 2;
}

static int big_reduction(int size)
{
    return size <= 8 ? 1500 : size <= 64 ? 300 : 200;
}

static int big_block(int size)
{
    return size <= 8 ? 1000 : size <= 64 ? 50 : 20;
}

static int roots_of(int size, int *roots)
{
    int n = 0, picks[] = {0, size - 1, size / 2};
    for (int k = 0; k < 3; k++) {
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen |= roots[j] == picks[k];
        if (!seen)
            roots[n++] = picks[k];
    }
    return n;
}

/* Run fn on MPI_COMM_WORLD, MPI_COMM_SELF, and a split of the world in
 * two whose ranks are ordered (rank % 3, then descending world rank). */
static void on_each_comm(void (*fn)(MPI_Comm))
{
    fn(MPI_COMM_WORLD);
    fn(MPI_COMM_SELF);
    int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
    MPI_Comm split;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, (rank % 3) * size - rank, &split));
    fn(split);
    CHECK_OK(MPI_Comm_free(&split));
}

/* ---- gather -------------------------------------------------------------------------------- */

static void check_gather(MPI_Comm comm, int root, int count, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    int *sbuf = ints((size_t)count, 0);
    for (int i = 0; i < count; i++)
        sbuf[i] = val(rank, i);
    /* only the root has (and checks) a full receive buffer */
    size_t rlen = rank == root ? (size_t)size * count * stride + 1 : 1;
    int *rbuf = ints(rlen, SENT);
    bool mine_in_place = in_place && rank == root;
    if (mine_in_place)
        for (int i = 0; i < count; i++)
            rbuf[((size_t)root * count + i) * stride] = val(root, i);
    CHECK_OK(COLL(Gather, Igather, mine_in_place ? MPI_IN_PLACE : sbuf, count, MPI_INT, rbuf, count,
                        rtype, root, comm));
    for (size_t k = 0; k < rlen; k++) {
        size_t e = k / stride;
        int want = rank == root && k % stride == 0 && e < (size_t)size * count
                       ? val((int)(e / count), (int)(e % count)) : SENT;
        CHECK(rbuf[k] == want);
    }
    for (int i = 0; i < count; i++)
        CHECK(sbuf[i] == val(rank, i));
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

static void check_gatherv(MPI_Comm comm, int root, int scale, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    int *counts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);
    int span = v_layout(size, root, scale, counts, displs);
    int *sbuf = ints((size_t)counts[rank], 0);
    for (int i = 0; i < counts[rank]; i++)
        sbuf[i] = val(rank, i);
    size_t rlen = rank == root ? (size_t)span * stride : 1;
    int *rbuf = ints(rlen, SENT);
    bool mine_in_place = in_place && rank == root;
    if (mine_in_place)
        for (int i = 0; i < counts[root]; i++)
            rbuf[(size_t)(displs[root] + i) * stride] = val(root, i);
    /* Non-roots pass no receive arguments at all: they are not significant. */
    CHECK_OK(COLL(Gatherv, Igatherv, mine_in_place ? MPI_IN_PLACE : sbuf, counts[rank], MPI_INT,
                         rank == root ? rbuf : NULL, rank == root ? counts : NULL,
                         rank == root ? displs : NULL, rank == root ? rtype : MPI_DATATYPE_NULL,
                         root, comm));
    for (int r = 0; rank == root && r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            take(rbuf, (size_t)(displs[r] + i) * stride, val(r, i));
    all_sent(rbuf, rlen);
    free(counts);
    free(displs);
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

static void gather_on(MPI_Comm comm)
{
    int size = comm_size(comm), roots[3], nroots = roots_of(size, roots);
    int counts[] = {0, 3, big_count(size)};
    for (int k = 0; k < nroots; k++)
        for (int c = 0; c < 3; c++)
            for (int mode = 0; mode < 4; mode++) {
                check_gather(comm, roots[k], counts[c], mode & 1, mode & 2);
                check_gatherv(comm, roots[k], c == 2 ? counts[c] / 2 : c, mode & 1, mode & 2);
            }
}

static void gather_and_gatherv(void)
{
    on_each_comm(gather_on);
}

/* ---- scatter ---------------------------------------------------------------------------------- */

/* The root sends with the gapped type when `gapped`; receivers take ints. */
static void check_scatter(MPI_Comm comm, int root, int count, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype stype = gapped ? gapped_int() : MPI_INT;
    size_t slen = rank == root ? (size_t)size * count * stride : 1;
    int *sbuf = ints(slen, SENT);
    if (rank == root)
        for (size_t e = 0; e < (size_t)size * count; e++)
            sbuf[e * stride] = val((int)(e / count), (int)(e % count));
    int *rbuf = ints((size_t)count + 1, SENT);
    bool mine_in_place = in_place && rank == root;
    CHECK_OK(COLL(Scatter, Iscatter, rank == root ? sbuf : NULL, count, stype,
                         mine_in_place ? MPI_IN_PLACE : rbuf, count, MPI_INT, root, comm));
    for (int i = 0; i <= count; i++)
        CHECK(rbuf[i] == (i < count && !mine_in_place ? val(rank, i) : SENT));
    if (rank == root)   /* the send buffer is left alone */
        for (size_t k = 0; k < slen; k++)
            CHECK(sbuf[k] == (k % stride ? SENT
                                         : val((int)(k / stride / count),
                                               (int)(k / stride % count))));
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&stype));
}

static void check_scatterv(MPI_Comm comm, int root, int scale, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype stype = gapped ? gapped_int() : MPI_INT;
    int *counts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);
    int span = v_layout(size, root + 1, scale, counts, displs);
    int *sbuf = ints(rank == root ? (size_t)span * stride : 1, SENT);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                sbuf[(size_t)(displs[r] + i) * stride] = val(r, i);
    int *rbuf = ints((size_t)counts[rank] + 1, SENT);
    bool mine_in_place = in_place && rank == root;
    CHECK_OK(COLL(Scatterv, Iscatterv, rank == root ? sbuf : NULL, rank == root ? counts : NULL,
                          rank == root ? displs : NULL, rank == root ? stype : MPI_DATATYPE_NULL,
                          mine_in_place ? MPI_IN_PLACE : rbuf, counts[rank], MPI_INT, root,
                          comm));
    for (int i = 0; i <= counts[rank]; i++)
        CHECK(rbuf[i] == (i < counts[rank] && !mine_in_place ? val(rank, i) : SENT));
    free(counts);
    free(displs);
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&stype));
}

static void scatter_on(MPI_Comm comm)
{
    int size = comm_size(comm), roots[3], nroots = roots_of(size, roots);
    int counts[] = {0, 3, big_count(size)};
    for (int k = 0; k < nroots; k++)
        for (int c = 0; c < 3; c++)
            for (int mode = 0; mode < 4; mode++) {
                check_scatter(comm, roots[k], counts[c], mode & 1, mode & 2);
                check_scatterv(comm, roots[k], c == 2 ? counts[c] / 2 : c, mode & 1, mode & 2);
            }
}

static void scatter_and_scatterv(void)
{
    on_each_comm(scatter_on);
}

/* ---- allgather ------------------------------------------------------------------------------- */

static void check_allgather(MPI_Comm comm, int count, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    int *sbuf = ints((size_t)count, 0);
    for (int i = 0; i < count; i++)
        sbuf[i] = val(rank, i);
    size_t rlen = (size_t)size * count * stride + 1;
    int *rbuf = ints(rlen, SENT);
    if (in_place)
        for (int i = 0; i < count; i++)
            rbuf[((size_t)rank * count + i) * stride] = val(rank, i);
    CHECK_OK(COLL(Allgather, Iallgather, in_place ? MPI_IN_PLACE : sbuf, count, MPI_INT, rbuf, count, rtype,
                           comm));
    for (size_t k = 0; k < rlen; k++) {
        size_t e = k / stride;
        int want = k % stride == 0 && e < (size_t)size * count
                       ? val((int)(e / count), (int)(e % count)) : SENT;
        CHECK(rbuf[k] == want);
    }
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

static void check_allgatherv(MPI_Comm comm, int scale, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    int *counts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);
    int span = v_layout(size, 3, scale, counts, displs);
    int *sbuf = ints((size_t)counts[rank], 0);
    for (int i = 0; i < counts[rank]; i++)
        sbuf[i] = val(rank, i);
    size_t rlen = (size_t)span * stride;
    int *rbuf = ints(rlen, SENT);
    if (in_place)
        for (int i = 0; i < counts[rank]; i++)
            rbuf[(size_t)(displs[rank] + i) * stride] = val(rank, i);
    CHECK_OK(COLL(Allgatherv, Iallgatherv, in_place ? MPI_IN_PLACE : sbuf, counts[rank], MPI_INT, rbuf,
                            counts, displs, rtype, comm));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            take(rbuf, (size_t)(displs[r] + i) * stride, val(r, i));
    all_sent(rbuf, rlen);
    free(counts);
    free(displs);
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

static void allgather_on(MPI_Comm comm)
{
    int size = comm_size(comm), counts[] = {0, 3, big_count(size)};
    for (int c = 0; c < 3; c++)
        for (int mode = 0; mode < 4; mode++) {
            check_allgather(comm, counts[c], mode & 1, mode & 2);
            check_allgatherv(comm, c == 2 ? counts[c] / 2 : c, mode & 1, mode & 2);
        }
}

static void allgather_and_allgatherv(void)
{
    on_each_comm(allgather_on);
}

/* ---- alltoall ----------------------------------------------------------------------------------- */

static void check_alltoall(MPI_Comm comm, int count, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    size_t n = (size_t)size * count;
    int *sbuf = ints(n, 0);
    for (size_t e = 0; e < n; e++)
        sbuf[e] = val2(rank, (int)(e / count), (int)(e % count));
    size_t rlen = n * stride + 1;
    int *rbuf = ints(rlen, SENT);
    if (in_place)   /* the outgoing blocks, in the receive layout */
        for (size_t e = 0; e < n; e++)
            rbuf[e * stride] = sbuf[e];
    CHECK_OK(COLL(Alltoall, Ialltoall, in_place ? MPI_IN_PLACE : sbuf, count, MPI_INT, rbuf, count,
                          rtype, comm));
    for (size_t k = 0; k < rlen; k++) {
        size_t e = k / stride;
        int want = k % stride == 0 && e < n ? val2((int)(e / count), rank, (int)(e % count))
                                            : SENT;
        CHECK(rbuf[k] == want);
    }
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

/* Elements rank r sends to rank q. In place the exchange must be
 * symmetric (r's block for q is also where q's data for r lands). */
static int a2a_count(int r, int q, int scale, bool symmetric)
{
    return ((symmetric ? r + q : r + 2 * q) % 3) * scale;
}

static void check_alltoallv(MPI_Comm comm, int scale, bool in_place, bool gapped)
{
    int rank = comm_rank(comm), size = comm_size(comm), stride = gapped ? 2 : 1;
    MPI_Datatype rtype = gapped ? gapped_int() : MPI_INT;
    int *sc = ints((size_t)size, 0), *sd = ints((size_t)size, 0);
    int *rc = ints((size_t)size, 0), *rd = ints((size_t)size, 0);
    int spos = 0, rpos = 0;
    for (int q = size - 1; q >= 0; q--) {   /* blocks in reverse order, gaps between */
        sc[q] = a2a_count(rank, q, scale, in_place);
        rc[q] = a2a_count(q, rank, scale, in_place);
        sd[q] = spos;
        rd[q] = rpos;
        spos += sc[q] + 2;
        rpos += rc[q] + 1;
    }
    int *sbuf = ints((size_t)spos, SENT);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < sc[q]; i++)
            sbuf[sd[q] + i] = val2(rank, q, i);
    size_t rlen = (size_t)rpos * stride;
    int *rbuf = ints(rlen, SENT);
    for (int q = 0; in_place && q < size; q++)
        for (int i = 0; i < rc[q]; i++)
            rbuf[(size_t)(rd[q] + i) * stride] = val2(rank, q, i);
    CHECK_OK(COLL(Alltoallv, Ialltoallv, in_place ? MPI_IN_PLACE : sbuf, sc, sd, MPI_INT, rbuf, rc, rd,
                           rtype, comm));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < rc[q]; i++)
            take(rbuf, (size_t)(rd[q] + i) * stride, val2(q, rank, i));
    all_sent(rbuf, rlen);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sbuf);
    free(rbuf);
    if (gapped)
        CHECK_OK(MPI_Type_free(&rtype));
}

/* Alltoallw: the type of each block depends on the pair (gapped or plain
 * on either side), displacements are in bytes. */
static void check_alltoallw(MPI_Comm comm, int scale, bool in_place)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    MPI_Datatype gap = gapped_int();
    int *sc = ints((size_t)size, 0), *sd = ints((size_t)size, 0);
    int *rc = ints((size_t)size, 0), *rd = ints((size_t)size, 0);
    MPI_Datatype *st = malloc((size_t)size * sizeof *st), *rt = malloc((size_t)size * sizeof *rt);
    int spos = 0, rpos = 0;   /* in ints */
    for (int q = 0; q < size; q++) {
        sc[q] = a2a_count(rank, q, scale, in_place);
        rc[q] = a2a_count(q, rank, scale, in_place);
        st[q] = (rank + q) % 2 ? gap : MPI_INT;
        rt[q] = (rank + 2 * q) % 3 == 0 ? gap : MPI_INT;
        sd[q] = spos * (int)sizeof(int);
        rd[q] = rpos * (int)sizeof(int);
        spos += sc[q] * (st[q] == gap ? 2 : 1) + 1;
        rpos += rc[q] * (rt[q] == gap ? 2 : 1) + 1;
    }
    int *sbuf = ints((size_t)spos, SENT);
    int *rbuf = ints((size_t)rpos, SENT);
    for (int q = 0; q < size; q++) {
        int sstride = st[q] == gap ? 2 : 1, rstride = rt[q] == gap ? 2 : 1;
        for (int i = 0; i < sc[q]; i++)
            sbuf[sd[q] / (int)sizeof(int) + i * sstride] = val2(rank, q, i);
        for (int i = 0; in_place && i < rc[q]; i++)
            rbuf[rd[q] / (int)sizeof(int) + i * rstride] = val2(rank, q, i);
    }
    CHECK_OK(COLL(Alltoallw, Ialltoallw, in_place ? MPI_IN_PLACE : sbuf, sc, sd, st, rbuf, rc, rd, rt, comm));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < rc[q]; i++)
            take(rbuf, (size_t)(rd[q] / (int)sizeof(int) + i * (rt[q] == gap ? 2 : 1)),
                 val2(q, rank, i));
    all_sent(rbuf, (size_t)rpos);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    free(sbuf);
    free(rbuf);
    CHECK_OK(MPI_Type_free(&gap));
}

static void alltoall_on(MPI_Comm comm)
{
    int size = comm_size(comm);
    int counts[] = {0, 3, big_alltoall(size)};
    for (int c = 0; c < 3; c++)
        for (int mode = 0; mode < 4; mode++) {
            check_alltoall(comm, counts[c], mode & 1, mode & 2);
            check_alltoallv(comm, c == 2 ? counts[c] / 2 : c, mode & 1, mode & 2);
            if (mode < 2)
                check_alltoallw(comm, c == 2 ? counts[c] / 2 : c, mode & 1);
        }
}

static void alltoall_v_and_w(void)
{
    on_each_comm(alltoall_on);
}

/* ---- reductions --------------------------------------------------------------------------------- */

/* Doubles whose sum depends on the order of addition: large and small
 * magnitudes mixed. Exact comparisons check the order of evaluation. Every
 * product here is exact, so the value is the same wherever the compiler
 * fuses a multiply and an add (aarch64 does). */
static double dval(int r, int i)
{
    double big = (r % 3 == 0) ? 1e16 : 1.0;
    return big * ((r * 7 + i * 3) % 5 - 2) + (r % 13) * 0.125 + (i % 7) * 0.0625 + 0.001;
}

/* Whether this rank checks element i of a reduction's result: all of them
 * up to 64 ranks; beyond, each element by one rank (the serial result
 * costs O(N) per element). */
static bool checks_element(int rank, int size, size_t i)
{
    return size <= 64 || i % (size_t)size == (size_t)rank;
}

/* x0 + (x1 + (... + x[n-1])), MPI's rank order for a reduction. */
static double fold_sum(int n, int i)
{
    double acc = dval(n - 1, i);
    for (int r = n - 2; r >= 0; r--)
        acc = dval(r, i) + acc;
    return acc;
}

/* ((x0 + x1) + ...) + x[k]: a scan's prefix. */
static double prefix_sum(int k, int i)
{
    double acc = dval(0, i);
    for (int r = 1; r <= k; r++)
        acc = acc + dval(r, i);
    return acc;
}

static void check_reduce(MPI_Comm comm, int root, int count, bool in_place)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    double *sbuf = malloc(((size_t)count + 1) * sizeof *sbuf);
    double *rbuf = malloc(((size_t)count + 1) * sizeof *rbuf);
    for (int i = 0; i <= count; i++) {
        sbuf[i] = dval(rank, i);
        rbuf[i] = rank == root && in_place ? dval(rank, i) : -1.5;
    }
    bool mine_in_place = in_place && rank == root;
    CHECK_OK(COLL(Reduce, Ireduce, mine_in_place ? MPI_IN_PLACE : sbuf, rank == root ? rbuf : NULL, count,
                        MPI_DOUBLE, MPI_SUM, root, comm));
    for (int i = 0; i < count; i++) {
        double want = rank == root ? fold_sum(size, i) : -1.5;
        CHECK(memcmp(&rbuf[i], &want, sizeof want) == 0);
        CHECK(sbuf[i] == dval(rank, i));
    }
    CHECK(rbuf[count] == (mine_in_place ? dval(rank, count) : -1.5));
    /* Integers: MAX, and PROD with wrap-around. */
    int *iv = ints((size_t)count, 0), *ir = ints((size_t)count, SENT);
    for (int i = 0; i < count; i++)
        iv[i] = (rank * 13 + i) % 17;
    CHECK_OK(COLL(Reduce, Ireduce, iv, ir, count, MPI_INT, MPI_MAX, root, comm));
    for (int i = 0; i < count; i++) {
        int hi = 0;
        for (int r = 0; rank == root && r < size; r++)
            hi = (r * 13 + i) % 17 > hi ? (r * 13 + i) % 17 : hi;
        CHECK(ir[i] == (rank == root ? hi : SENT));
    }
    free(sbuf);
    free(rbuf);
    free(iv);
    free(ir);
}

static void check_allreduce(MPI_Comm comm, int count, bool in_place)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    double *sbuf = malloc(((size_t)count + 1) * sizeof *sbuf);
    double *rbuf = malloc(((size_t)count + 1) * sizeof *rbuf);
    for (int i = 0; i <= count; i++) {
        sbuf[i] = dval(rank, i);
        rbuf[i] = in_place ? dval(rank, i) : -1.5;
    }
    CHECK_OK(COLL(Allreduce, Iallreduce, in_place ? MPI_IN_PLACE : sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM,
                           comm));
    for (int i = 0; i < count; i++) {
        if (!checks_element(rank, size, (size_t)i))
            continue;
        double want = fold_sum(size, i);
        CHECK(memcmp(&rbuf[i], &want, sizeof want) == 0);
    }
    CHECK(rbuf[count] == (in_place ? dval(rank, count) : -1.5));
    free(sbuf);
    free(rbuf);
}

static void reduce_on(MPI_Comm comm)
{
    int size = comm_size(comm), roots[3], nroots = roots_of(size, roots);
    int counts[] = {0, 1, 2, 3, big_reduction(size)};
    for (int c = 0; c < 5; c++)
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int k = 0; k < nroots; k++)
                check_reduce(comm, roots[k], counts[c], in_place);
            check_allreduce(comm, counts[c], in_place);
        }
}

static void reduce_and_allreduce_in_rank_order(void)
{
    on_each_comm(reduce_on);
}

/* Reduce_scatter with the counts of v_layout (zeros included) or, for the
 * block form (counts NULL), `block` each. */
static void check_reduce_scatter(MPI_Comm comm, int block, int scale, bool in_place)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    int *counts = ints((size_t)size, block), *ignored = ints((size_t)size, 0);
    if (block < 0)
        v_layout(size, 1, scale, counts, ignored);
    size_t total = 0, start = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank)
            start = total;
        total += (size_t)counts[r];
    }
    int mine = counts[rank];
    double *sbuf = malloc((total + 1) * sizeof *sbuf);
    double *rbuf = malloc((total + 1) * sizeof *rbuf);
    for (size_t i = 0; i <= total; i++) {
        sbuf[i] = dval(rank, (int)i);
        rbuf[i] = in_place ? sbuf[i] : -1.5;
    }
    if (block >= 0)
        CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, in_place ? MPI_IN_PLACE : sbuf, rbuf, block,
                                          MPI_DOUBLE, MPI_SUM, comm));
    else
        CHECK_OK(COLL(Reduce_scatter, Ireduce_scatter, in_place ? MPI_IN_PLACE : sbuf, rbuf, counts, MPI_DOUBLE,
                                    MPI_SUM, comm));
    for (size_t i = 0; i <= total; i++) {
        /* in place, what follows the result is the input, untouched */
        double want = i < (size_t)mine ? fold_sum(size, (int)(start + i))
                                       : in_place ? dval(rank, (int)i) : -1.5;
        CHECK(memcmp(&rbuf[i], &want, sizeof want) == 0);
    }
    free(counts);
    free(ignored);
    free(sbuf);
    free(rbuf);
}

static void reduce_scatter_on(MPI_Comm comm)
{
    int size = comm_size(comm), big = big_block(size);
    for (int in_place = 0; in_place < 2; in_place++) {
        int blocks[] = {0, 2, big};
        for (int b = 0; b < 3; b++) {
            check_reduce_scatter(comm, blocks[b], 0, in_place);
            check_reduce_scatter(comm, -1, b == 2 ? big : b, in_place);
        }
    }
}

static void reduce_scatter_and_block(void)
{
    on_each_comm(reduce_scatter_on);
}

static void check_scan(MPI_Comm comm, int count, bool in_place, bool exclusive)
{
    int rank = comm_rank(comm);
    double *sbuf = malloc(((size_t)count + 1) * sizeof *sbuf);
    double *rbuf = malloc(((size_t)count + 1) * sizeof *rbuf);
    for (int i = 0; i <= count; i++) {
        sbuf[i] = dval(rank, i);
        rbuf[i] = in_place ? sbuf[i] : -1.5;
    }
    if (exclusive)
        CHECK_OK(COLL(Exscan, Iexscan, in_place ? MPI_IN_PLACE : sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM,
                            comm));
    else
        CHECK_OK(COLL(Scan, Iscan, in_place ? MPI_IN_PLACE : sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM,
                          comm));
    for (int i = 0; i <= count; i++) {
        double untouched = in_place ? dval(rank, i) : -1.5, want;
        /* beyond 64 ranks, one element each (a prefix costs O(rank)) */
        if (comm_size(comm) > 64 && i != rank % (count ? count : 1) && i != count)
            continue;
        if (i == count)
            want = untouched;
        else if (exclusive)   /* rank 0's recvbuf: MPI leaves it undefined; ours is untouched */
            want = rank == 0 ? untouched : prefix_sum(rank - 1, i);
        else
            want = prefix_sum(rank, i);
        CHECK(memcmp(&rbuf[i], &want, sizeof want) == 0);
    }
    free(sbuf);
    free(rbuf);
}

static void scan_on(MPI_Comm comm)
{
    int size = comm_size(comm), counts[] = {0, 1, 2, 3, big_reduction(size)};
    for (int c = 0; c < 5; c++)
        for (int mode = 0; mode < 4; mode++)
            check_scan(comm, counts[c], mode & 1, mode & 2);
}

static void scan_and_exscan_in_rank_order(void)
{
    on_each_comm(scan_on);
}

/* ---- non-commutative reductions ---------------------------------------------------------------------- */

/* A 2x2 matrix of unsigned ints (arithmetic modulo 2^32: associative, not
 * commutative), stored as rows of 2 with a gap after each row and one
 * more at the end: elements 0, 1, 3, 4 of 6. The user function gets this
 * type and walks its layout. */
enum { MAT_STRIDE = 6 };

static MPI_Datatype matrix_type(void)
{
    MPI_Datatype rows, t;
    CHECK_OK(MPI_Type_vector(2, 2, 3, MPI_UNSIGNED, &rows));
    CHECK_OK(MPI_Type_create_resized(rows, 0, MAT_STRIDE * sizeof(unsigned), &t));
    CHECK_OK(MPI_Type_free(&rows));
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

static const int mat_at[4] = {0, 1, 3, 4};

static void mat_mul(const unsigned *a, const unsigned *b, unsigned *c)
{
    unsigned r[4] = {a[0] * b[0] + a[1] * b[3], a[0] * b[1] + a[1] * b[4],
                     a[3] * b[0] + a[4] * b[3], a[3] * b[1] + a[4] * b[4]};
    for (int k = 0; k < 4; k++)
        c[mat_at[k]] = r[k];
}

/* inout = in * inout: MPI's order (invec is the left operand). */
static void mat_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Aint lb, extent;
    CHECK_OK(MPI_Type_get_extent(*type, &lb, &extent));
    CHECK(lb == 0 && extent == MAT_STRIDE * sizeof(unsigned));
    for (int e = 0; e < *len; e++)
        mat_mul((unsigned *)in + e * MAT_STRIDE, (unsigned *)inout + e * MAT_STRIDE,
                (unsigned *)inout + e * MAT_STRIDE);
}

/* Rank r's matrix for element e. */
static void mat_of(int r, int e, unsigned *m)
{
    m[0] = 1;
    m[1] = (unsigned)(r + 1 + e);
    m[3] = (unsigned)((r + e) % 3);
    m[4] = 1 + (unsigned)(e % 2);
}

/* M[lo] * M[lo+1] * ... * M[hi] for element e. */
static void mat_run(int lo, int hi, int e, unsigned *out)
{
    mat_of(lo, e, out);
    for (int r = lo + 1; r <= hi; r++) {
        unsigned m[MAT_STRIDE];
        mat_of(r, e, m);
        mat_mul(out, m, out);
    }
}

static unsigned *mat_buf(int count, int rank, int first)
{
    unsigned *p = malloc(((size_t)count + 1) * MAT_STRIDE * sizeof *p);
    CHECK(p != NULL);
    for (size_t k = 0; k < ((size_t)count + 1) * MAT_STRIDE; k++)
        p[k] = (unsigned)SENT;
    for (int e = 0; rank >= 0 && e < count; e++)
        mat_of(rank, first + e, p + (size_t)e * MAT_STRIDE);
    return p;
}

/* buf's element e holds `want` (or, want NULL, is untouched: SENT), gaps
 * included. */
static void mat_check(const unsigned *buf, int e, const unsigned *want)
{
    for (int k = 0; k < MAT_STRIDE; k++) {
        bool data = k != 2 && k != 5;
        CHECK(buf[(size_t)e * MAT_STRIDE + k] == (want && data ? want[k] : (unsigned)SENT));
    }
}

static void noncommutative_on(MPI_Comm comm)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    MPI_Datatype mt = matrix_type();
    MPI_Op op;
    CHECK_OK(MPI_Op_create(mat_product, 0, &op));
    int roots[3], nroots = roots_of(size, roots);
    int counts[] = {1, 3, size <= 8 ? 1500 : 200};
    unsigned want[MAT_STRIDE];
    for (int c = 0; c < 3; c++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int n = counts[c];
            unsigned *in = mat_buf(n, rank, 0), *out;
            for (int k = 0; k < nroots; k++) {
                int root = roots[k];
                bool mine = in_place && rank == root;
                out = mat_buf(n, mine ? rank : -1, 0);
                CHECK_OK(COLL(Reduce, Ireduce, mine ? MPI_IN_PLACE : in, out, n, mt, op, root, comm));
                for (int e = 0; e < n; e++) {
                    mat_run(0, size - 1, e, want);
                    mat_check(out, e, rank == root ? want : mine ? want : NULL);
                }
                mat_check(out, n, NULL);
                free(out);
            }
            out = mat_buf(n, in_place ? rank : -1, 0);
            CHECK_OK(COLL(Allreduce, Iallreduce, in_place ? MPI_IN_PLACE : in, out, n, mt, op, comm));
            for (int e = 0; e < n; e++) {
                mat_run(0, size - 1, e, want);
                mat_check(out, e, want);
            }
            free(out);
            for (int ex = 0; ex < 2; ex++) {
                out = mat_buf(n, in_place ? rank : -1, 0);
                if (ex)
                    CHECK_OK(COLL(Exscan, Iexscan, in_place ? MPI_IN_PLACE : in, out, n, mt, op, comm));
                else
                    CHECK_OK(COLL(Scan, Iscan, in_place ? MPI_IN_PLACE : in, out, n, mt, op, comm));
                for (int e = 0; e < n; e++) {
                    unsigned own[MAT_STRIDE];
                    mat_of(rank, e, own);
                    if (ex && rank == 0) {   /* untouched */
                        mat_check(out, e, in_place ? own : NULL);
                        continue;
                    }
                    mat_run(0, ex ? rank - 1 : rank, e, want);
                    mat_check(out, e, want);
                }
                free(out);
            }
            free(in);
            /* reduce_scatter_block: n matrices per rank */
            in = mat_buf(n * size, rank, 0);
            out = in_place ? in : mat_buf(n, -1, 0);
            CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, in_place ? MPI_IN_PLACE : in, out, n, mt, op, comm));
            for (int e = 0; e < n; e++) {
                mat_run(0, size - 1, rank * n + e, want);
                mat_check(out, e, want);
            }
            if (!in_place)
                free(out);
            free(in);
        }
    CHECK_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);
    CHECK_OK(MPI_Type_free(&mt));
}

static void reductions_respect_a_non_commutative_op(void)
{
    on_each_comm(noncommutative_on);
}

/* ---- small reductions ------------------------------------------------------------------------------- */

/* Reductions and scans of up to 16 bytes of a contiguous type go through
 * a copy of each rank's input taken as it arrives (coll/reduce.c): the
 * same results, in rank order, for a non-commutative user op on a
 * contiguous derived type (a 2x2 matrix of unsigned shorts, 8 bytes; each
 * rank builds its own handle of it, so the ranks pass different handles
 * of one type map); no input of an earlier round read in a later one. */
static void small_mat_of(int r, int e, int round, unsigned short *m)
{
    m[0] = 1;
    m[1] = (unsigned short)(r + 1 + e + round);
    m[2] = (unsigned short)((r + e + round) % 3);
    m[3] = (unsigned short)(1 + (e + round) % 2);
}

static void small_mat_mul(const unsigned short *a, const unsigned short *b, unsigned short *c)
{
    unsigned short r[4] = {(unsigned short)(a[0] * b[0] + a[1] * b[2]),
                           (unsigned short)(a[0] * b[1] + a[1] * b[3]),
                           (unsigned short)(a[2] * b[0] + a[3] * b[2]),
                           (unsigned short)(a[2] * b[1] + a[3] * b[3])};
    memcpy(c, r, sizeof r);
}

static void small_mat_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size;
    CHECK_OK(MPI_Type_size(*type, &size));
    int n = *len * size / (int)(4 * sizeof(unsigned short));
    for (int e = 0; e < n; e++)
        small_mat_mul((unsigned short *)in + 4 * e, (unsigned short *)inout + 4 * e,
                      (unsigned short *)inout + 4 * e);
}

static void small_mat_run(int size, int e, int round, unsigned short *out)
{
    small_mat_of(0, e, round, out);
    for (int r = 1; r < size; r++) {
        unsigned short m[4];
        small_mat_of(r, e, round, m);
        small_mat_mul(out, m, out);
    }
}

static void small_reductions_on(MPI_Comm comm)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    MPI_Datatype mat;
    CHECK_OK(MPI_Type_contiguous(4, MPI_UNSIGNED_SHORT, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    MPI_Op op;
    CHECK_OK(MPI_Op_create(small_mat_product, 0, &op));
    int roots[3], nroots = roots_of(size, roots);
    const unsigned short none = 0xBEEF;   /* what no call may write */
    for (int round = 0; round < 6; round++) {
        int n = 1 + round % 2;   /* n matrices: 8 or 16 bytes */
        bool in_place = round % 4 >= 2;
        unsigned short in[8], out[9], want[8];
        for (int e = 0; e < n; e++)
            small_mat_of(rank, e, round, in + 4 * e);
        for (int e = 0; e < n; e++)
            small_mat_run(size, e, round, want + 4 * e);
        for (int k = 0; k < nroots; k++) {
            int root = roots[k];
            bool mine = in_place && rank == root;
            for (int i = 0; i < 9; i++)
                out[i] = mine && i < 4 * n ? in[i] : none;
            CHECK_OK(COLL(Reduce, Ireduce, mine ? MPI_IN_PLACE : in, out, n, mat, op, root,
                          comm));
            for (int i = 0; i < 9; i++)   /* recvbuf matters at the root only */
                CHECK(out[i] == (rank == root && i < 4 * n ? want[i] : none));
        }
        for (int i = 0; i < 9; i++)
            out[i] = in_place && i < 4 * n ? in[i] : none;
        CHECK_OK(COLL(Allreduce, Iallreduce, in_place ? MPI_IN_PLACE : in, out, n, mat, op,
                      comm));
        for (int i = 0; i < 9; i++)
            CHECK(out[i] == (i < 4 * n ? want[i] : none));
        /* Scan: the product of ranks 0..rank; Exscan: of 0..rank-1, rank
         * 0's buffer untouched. */
        for (int ex = 0; ex < 2; ex++) {
            for (int i = 0; i < 9; i++)
                out[i] = in_place && i < 4 * n ? in[i] : none;
            if (ex)
                CHECK_OK(COLL(Exscan, Iexscan, in_place ? MPI_IN_PLACE : in, out, n, mat, op,
                              comm));
            else
                CHECK_OK(COLL(Scan, Iscan, in_place ? MPI_IN_PLACE : in, out, n, mat, op, comm));
            int upto = ex ? rank - 1 : rank;
            for (int e = 0; e < n && upto >= 0; e++)
                small_mat_run(upto + 1, e, round, want + 4 * e);
            for (int i = 0; i < 9; i++) {
                unsigned short expect = i >= 4 * n ? none
                                        : upto >= 0 ? want[i]
                                        : in_place  ? in[i]
                                                    : none;
                CHECK(out[i] == expect);
            }
        }
        /* No call wrote to a send buffer. */
        for (int e = 0; e < n; e++) {
            unsigned short own[4];
            small_mat_of(rank, e, round, own);
            CHECK(memcmp(in + 4 * e, own, sizeof own) == 0);
        }
    }
    /* 16 bytes of a predefined type: a double complex sum, in rank order. */
    double _Complex z = dval(rank, 0) + dval(rank, 1) * 1.0i, zsum = 0, zwant = 0;
    CHECK_OK(COLL(Allreduce, Iallreduce, &z, &zsum, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm));
    zwant = dval(size - 1, 0) + dval(size - 1, 1) * 1.0i;
    for (int r = size - 2; r >= 0; r--)
        zwant = (dval(r, 0) + dval(r, 1) * 1.0i) + zwant;
    CHECK(memcmp(&zsum, &zwant, sizeof zsum) == 0);
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
}

static void small_reductions_copy_each_input_once(void)
{
    on_each_comm(small_reductions_on);
}

/* MPI_Allreduce of a few bytes with the usual arguments takes a short way
 * to its round (mpi/coll.c), anything else the general one; the ranks of
 * one round may come either way. Here a rank with an MPI_Ibarrier still
 * pending on the communicator comes the general way (which completes the
 * barrier first), the others the short way, in place or not. */
static void small_allreduce_either_way_on(MPI_Comm comm)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    const double none = -7.5;   /* what no call may write */
    for (int round = 0; round < 6; round++) {
        bool pending = (rank + round) % 2 == 1, in_place = (rank + round) % 3 == 0;
        MPI_Request barrier;
        CHECK_OK(MPI_Ibarrier(comm, &barrier));
        if (!pending)
            CHECK_OK(MPI_Wait(&barrier, MPI_STATUS_IGNORE));
        double in[2] = {dval(rank, round), -dval(rank, round + 1)};
        double out[3] = {in_place ? in[0] : none, in_place ? in[1] : none, none};
        CHECK_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, 2, MPI_DOUBLE, MPI_MAX,
                               comm));
        double want[2] = {dval(0, round), -dval(0, round + 1)};
        for (int r = 1; r < size; r++) {
            double a = dval(r, round), b = -dval(r, round + 1);
            want[0] = a > want[0] ? a : want[0];
            want[1] = b > want[1] ? b : want[1];
        }
        CHECK(out[0] == want[0] && out[1] == want[1] && out[2] == none);
        /* 8 bytes of a pair type: the smallest value and the lowest rank
         * that holds it. */
        int pair[2] = {(rank * 7 + round) % 5, rank}, least[3] = {-1, -1, -1};
        CHECK_OK(MPI_Allreduce(pair, least, 1, MPI_2INT, MPI_MINLOC, comm));
        int lo = 5, at = -1;
        for (int r = 0; r < size; r++)
            if ((r * 7 + round) % 5 < lo) {
                lo = (r * 7 + round) % 5;
                at = r;
            }
        CHECK(least[0] == lo && least[1] == at && least[2] == -1);
        if (pending)
            CHECK_OK(MPI_Wait(&barrier, MPI_STATUS_IGNORE));
    }
}

static void small_allreduce_either_way_in_one_round(void)
{
    on_each_comm(small_allreduce_either_way_on);
}

/* ---- every predefined op ------------------------------------------------------------------------------ */

static int int_input(int r, int i)
{
    return (r * 7 + i * 3) % 5 - 1;   /* -1..3: zeros for the logical ops */
}

static int apply(MPI_Op op, int a, int b)
{
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    if (op == MPI_LXOR) return !a != !b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    return a ^ b;
}

/* Each predefined op through every reduction: the serial fold of the same
 * values (small ones, so nothing overflows), MINLOC/MAXLOC on pairs with
 * ties (the smaller index wins). */
static void predefined_ops_on(MPI_Comm comm)
{
    int rank = comm_rank(comm), size = comm_size(comm);
    MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR,
                    MPI_BAND, MPI_BOR, MPI_BXOR};
    enum { N = 3 };
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        int in[N * 64], out[N * 64], want[N];
        for (int i = 0; i < N * size && i < N * 64; i++)
            in[i] = int_input(rank, i);
        int prefix[N];
        for (int i = 0; i < N; i++) {
            want[i] = int_input(size - 1, i);
            for (int r = size - 2; r >= 0; r--)
                want[i] = apply(ops[o], int_input(r, i), want[i]);
        }
        CHECK_OK(COLL(Reduce, Ireduce, in, out, N, MPI_INT, ops[o], size - 1, comm));
        for (int i = 0; rank == size - 1 && i < N; i++)
            CHECK(out[i] == want[i]);
        CHECK_OK(COLL(Allreduce, Iallreduce, in, out, N, MPI_INT, ops[o], comm));
        for (int i = 0; i < N; i++)
            CHECK(out[i] == want[i]);
        CHECK_OK(COLL(Scan, Iscan, in, out, N, MPI_INT, ops[o], comm));
        for (int i = 0; i < N; i++) {
            prefix[i] = int_input(0, i);
            for (int r = 1; r <= rank; r++)
                prefix[i] = apply(ops[o], prefix[i], int_input(r, i));
            CHECK(out[i] == prefix[i]);
        }
        out[0] = SENT;
        CHECK_OK(COLL(Exscan, Iexscan, in, out, N, MPI_INT, ops[o], comm));
        for (int i = 0; i < N && rank > 0; i++) {
            int p = int_input(0, i);
            for (int r = 1; r < rank; r++)
                p = apply(ops[o], p, int_input(r, i));
            CHECK(out[i] == p);
        }
        CHECK(rank > 0 || out[0] == SENT);
        if (size <= 64) {
            CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, in, out, N, MPI_INT, ops[o], comm));
            for (int i = 0; i < N; i++) {
                int w = int_input(size - 1, rank * N + i);
                for (int r = size - 2; r >= 0; r--)
                    w = apply(ops[o], int_input(r, rank * N + i), w);
                CHECK(out[i] == w);
            }
        }
    }
    /* MINLOC and MAXLOC: value ties between ranks go to the smaller index */
    struct { int value, index; } pin = {(rank * 5) % 3, rank}, pout = {-1, -1};
    CHECK_OK(COLL(Allreduce, Iallreduce, &pin, &pout, 1, MPI_2INT, MPI_MINLOC, comm));
    CHECK(pout.value == 0 && pout.index == 0);
    CHECK_OK(COLL(Reduce, Ireduce, &pin, &pout, 1, MPI_2INT, MPI_MAXLOC, 0, comm));
    int maxv = size > 2 ? 2 : (size - 1) * 5 % 3, maxi = -1;
    for (int r = 0; r < size && maxi < 0; r++)
        if ((r * 5) % 3 == maxv)
            maxi = r;
    CHECK(rank != 0 || (pout.value == maxv && pout.index == maxi));
    /* a vector of ints with gaps, with a predefined op: gaps untouched */
    MPI_Datatype gap = gapped_int();
    int vin[8], vout[8];
    for (int k = 0; k < 8; k++) {
        vin[k] = k % 2 ? SENT : rank + k;
        vout[k] = SENT;
    }
    CHECK_OK(COLL(Allreduce, Iallreduce, vin, vout, 4, gap, MPI_SUM, comm));
    for (int k = 0; k < 8; k++)
        CHECK(vout[k] == (k % 2 ? SENT : size * (size - 1) / 2 + size * k));
    CHECK_OK(MPI_Type_free(&gap));
}

static void every_predefined_op_in_every_reduction(void)
{
    on_each_comm(predefined_ops_on);
}

/* ---- all at once ------------------------------------------------------------------------------------ */

/* Every collective, one after the other on the same communicators, a few
 * times: rounds of different kinds and sizes reuse the same state. */
static void everything_on(MPI_Comm comm)
{
    int size = comm_size(comm), root = size / 3;
    for (int it = 0; it < 2; it++) {
        CHECK_OK(COLL(Barrier, Ibarrier, comm));
        check_gather(comm, root, 1 + it, it, !it);
        check_gatherv(comm, size - 1, 1, !it, it);
        check_scatter(comm, root, 2, it, it);
        check_scatterv(comm, 0, 1, !it, !it);
        check_allgather(comm, 1, it, !it);
        check_allgatherv(comm, 1, !it, it);
        check_alltoall(comm, 1, it, it);
        check_alltoallv(comm, 1, !it, !it);
        check_alltoallw(comm, 1, it);
        check_reduce(comm, root, 2, it);
        check_allreduce(comm, 2, !it);
        check_reduce_scatter(comm, 1, 0, it);
        check_reduce_scatter(comm, -1, 1, !it);
        check_scan(comm, 2, it, false);
        check_scan(comm, 2, !it, true);
    }
    /* and sizes that make the ranks share the work */
    check_gather(comm, root, big_count(size), false, true);
    check_scatter(comm, size - 1, big_count(size), true, false);
    check_reduce(comm, 0, big_reduction(size), true);
    check_scan(comm, big_reduction(size), false, true);
}

static void all_collectives_back_to_back(void)
{
    on_each_comm(everything_on);
}

/* Many ranks: every collective once on MPI_COMM_WORLD, with one element
 * per peer where a rank holds data for all of them (N^2 elements in all).
 * The v and w forms use count and displacement arrays that all ranks
 * share (the ranks share this program's globals), so that each rank does
 * not hold arrays of N entries of its own. At 4096 ranks: about 290 MB
 * resident at the peak (1.5 GB under ASan, which therefore runs only
 * 1000), 6 s with one worker here. */
static struct {
    int *ones, *displs, *bytes;   /* 1; 2q (a gap after each element); 8q */
    MPI_Datatype *ints;
} shared;

static void v_forms_at_scale(MPI_Comm comm)
{
    int rank = comm_rank(comm), size = comm_size(comm), root = size / 2;
    size_t n2 = 2 * (size_t)size;   /* one element and a gap per peer */
    int *big = ints(rank == root ? n2 : 1, SENT), *one = ints(2, SENT);

    int v = val(rank, 0);
    CHECK_OK(COLL(Gatherv, Igatherv, &v, 1, MPI_INT, big, shared.ones, shared.displs, MPI_INT, root, comm));
    for (int r = 0; rank == root && r < size; r++)
        take(big, 2 * (size_t)r, val(r, 0));
    all_sent(big, rank == root ? n2 : 1);
    for (int r = 0; rank == root && r < size; r++)
        big[2 * r] = val2(root, r, 1);
    CHECK_OK(COLL(Scatterv, Iscatterv, big, shared.ones, shared.displs, MPI_INT, one, 1, MPI_INT, root,
                          comm));
    take(one, 0, val2(root, rank, 1));
    all_sent(one, 2);
    free(big);
    free(one);

    int *rbuf = ints(n2, SENT), *sbuf = ints(n2, SENT);
    CHECK_OK(COLL(Allgatherv, Iallgatherv, &v, 1, MPI_INT, rbuf, shared.ones, shared.displs, MPI_INT, comm));
    for (int r = 0; r < size; r++)
        take(rbuf, 2 * (size_t)r, val(r, 0));
    all_sent(rbuf, n2);
    for (int q = 0; q < size; q++)   /* in place: the outgoing blocks */
        rbuf[2 * q] = val2(rank, q, 2);
    CHECK_OK(COLL(Alltoallv, Ialltoallv, MPI_IN_PLACE, NULL, NULL, MPI_INT, rbuf, shared.ones, shared.displs,
                           MPI_INT, comm));
    for (int q = 0; q < size; q++)
        take(rbuf, 2 * (size_t)q, val2(q, rank, 2));
    all_sent(rbuf, n2);
    for (int q = 0; q < size; q++)
        sbuf[2 * q] = val2(rank, q, 3);
    CHECK_OK(COLL(Alltoallw, Ialltoallw, sbuf, shared.ones, shared.bytes, shared.ints, rbuf, shared.ones,
                           shared.bytes, shared.ints, comm));
    for (int q = 0; q < size; q++)
        take(rbuf, 2 * (size_t)q, val2(q, rank, 3));
    all_sent(rbuf, n2);
    free(sbuf);
    free(rbuf);

    /* reduce_scatter of one double each: rank r gets element r's fold */
    double *in = malloc((size_t)size * sizeof *in), out[2] = {-1.5, -1.5};
    for (int i = 0; i < size; i++)
        in[i] = dval(rank, i);
    CHECK_OK(COLL(Reduce_scatter, Ireduce_scatter, in, out, shared.ones, MPI_DOUBLE, MPI_SUM, comm));
    double want = fold_sum(size, rank);
    CHECK(memcmp(&out[0], &want, sizeof want) == 0 && out[1] == -1.5);
    CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, in, 1, MPI_DOUBLE, MPI_SUM, comm));
    CHECK(memcmp(&in[0], &want, sizeof want) == 0);
    free(in);
}

static void all_collectives_at_scale(void)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = comm_rank(comm), size = comm_size(comm);
    if (rank == 0) {
        shared.ones = ints((size_t)size, 1);
        shared.displs = ints((size_t)size, 0);
        shared.bytes = ints((size_t)size, 0);
        shared.ints = malloc((size_t)size * sizeof *shared.ints);
        for (int q = 0; q < size; q++) {
            shared.displs[q] = 2 * q;
            shared.bytes[q] = 2 * q * (int)sizeof(int);
            shared.ints[q] = MPI_INT;
        }
    }
    CHECK_OK(COLL(Barrier, Ibarrier, comm));
    check_gather(comm, size - 1, 2, true, true);
    check_gather(comm, 1 % size, big_count(size), false, false);
    check_scatter(comm, size / 2, 2, false, true);
    check_scatter(comm, 0, big_count(size), true, false);
    check_allgather(comm, 1, true, false);
    check_alltoall(comm, 1, false, false);
    if (size <= 1000)   /* in place: Alltoallv's below, at any size */
        check_alltoall(comm, 1, true, false);
    v_forms_at_scale(comm);
    check_reduce(comm, size / 3, 3, false);
    check_reduce(comm, 0, 200, true);
    check_allreduce(comm, 200, false);
    check_scan(comm, 3, false, false);
    check_scan(comm, 100, true, true);
    CHECK_OK(COLL(Barrier, Ibarrier, comm));
    if (rank == 0) {
        free(shared.ones);
        free(shared.displs);
        free(shared.bytes);
        free(shared.ints);
    }
}

/* ---- zero counts ---------------------------------------------------------------------------------- */

/* Nothing to move: NULL buffers are fine, and nothing is written. */
static void zero_on(MPI_Comm comm)
{
    int size = comm_size(comm), root = size - 1;
    int *zeros = ints((size_t)size, 0), x = SENT;
    MPI_Datatype *types = malloc((size_t)size * sizeof *types);
    for (int r = 0; r < size; r++)
        types[r] = MPI_INT;
    CHECK_OK(COLL(Bcast, Ibcast, NULL, 0, MPI_INT, root, comm));
    CHECK_OK(COLL(Gather, Igather, NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm));
    CHECK_OK(COLL(Gatherv, Igatherv, NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, root, comm));
    CHECK_OK(COLL(Scatter, Iscatter, NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm));
    CHECK_OK(COLL(Scatterv, Iscatterv, NULL, zeros, zeros, MPI_INT, NULL, 0, MPI_INT, root, comm));
    CHECK_OK(COLL(Allgather, Iallgather, NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm));
    CHECK_OK(COLL(Allgatherv, Iallgatherv, NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm));
    CHECK_OK(COLL(Alltoall, Ialltoall, NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm));
    CHECK_OK(COLL(Alltoallv, Ialltoallv, NULL, zeros, zeros, MPI_INT, NULL, zeros, zeros, MPI_INT, comm));
    CHECK_OK(COLL(Alltoallw, Ialltoallw, NULL, zeros, zeros, types, NULL, zeros, zeros, types, comm));
    /* the type of a block of 0 elements is not looked at */
    for (int r = 0; r < size; r++)
        types[r] = MPI_DATATYPE_NULL;
    CHECK_OK(COLL(Alltoallw, Ialltoallw, NULL, zeros, zeros, types, NULL, zeros, zeros, types, comm));
    CHECK_OK(COLL(Reduce, Ireduce, NULL, NULL, 0, MPI_INT, MPI_SUM, root, comm));
    CHECK_OK(COLL(Allreduce, Iallreduce, NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    CHECK_OK(COLL(Reduce_scatter, Ireduce_scatter, NULL, NULL, zeros, MPI_INT, MPI_SUM, comm));
    CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    CHECK_OK(COLL(Scan, Iscan, NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    CHECK_OK(COLL(Exscan, Iexscan, &x, &x, 0, MPI_INT, MPI_SUM, comm));
    CHECK(x == SENT);
    free(zeros);
    free(types);
}

static void zero_counts_move_nothing(void)
{
    on_each_comm(zero_on);
}

/* ---- errors ---------------------------------------------------------------------------------------- */

static void expect_class(int rc, int want, int line)
{
    int cls = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != want)
        fprintf(stderr, "line %d: got error class %d, expected %d\n", line, cls, want);
    CHECK(cls == want);
}
#define EXPECT(call, cls) expect_class((call), (cls), __LINE__)

/* The collectives still match up after errors: nothing was started. */
static void still_works(MPI_Comm comm)
{
    int size = comm_size(comm), rank = comm_rank(comm), v = rank, sum = -1;
    CHECK_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2);
    check_gather(comm, 0, 2, false, false);
}

/* Under MPI_ERRORS_RETURN each bad argument gives its error class. Every
 * rank makes a mistake in each call (those only the root checks are paired
 * with another at the other ranks), so no rank enters a round. */
static void bad_arguments_return_errors(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank = comm_rank(w), size = comm_size(w), root = size - 1;
    bool is_root = rank == root;
    int *buf = ints(4 * (size_t)size + 8, 0), *buf2 = ints(4 * (size_t)size + 8, 0);
    int *ones = ints((size_t)size, 1), *neg = ints((size_t)size, 1);
    neg[size - 1] = -1;
    MPI_Datatype *types = malloc((size_t)size * sizeof *types), *bad_types;
    bad_types = malloc((size_t)size * sizeof *bad_types);
    MPI_Datatype loose;   /* not committed */
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &loose));
    for (int r = 0; r < size; r++) {
        types[r] = MPI_INT;
        bad_types[r] = r == size - 1 ? loose : MPI_INT;
    }
    /* a plain mistake of a non-root (or the root) in the calls below */
    int non_root_count = is_root ? 1 : -1;

    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Gather(buf, -1, MPI_INT, buf2, 1, MPI_INT, root, w), MPI_ERR_COUNT);
    EXPECT(MPI_Gather(buf, 1, MPI_DATATYPE_NULL, buf2, 1, MPI_INT, root, w), MPI_ERR_TYPE);
    EXPECT(MPI_Gather(buf, 1, loose, buf2, 1, MPI_INT, root, w), MPI_ERR_TYPE);
    EXPECT(MPI_Gather(NULL, 1, MPI_INT, buf2, 1, MPI_INT, root, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
    /* MPI_IN_PLACE: as recvbuf at the root, as sendbuf anywhere else */
    EXPECT(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, is_root ? MPI_IN_PLACE : buf2, 1, MPI_INT,
                      root, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Gather(buf, non_root_count, MPI_INT, buf2, -1, MPI_INT, root, w), MPI_ERR_COUNT);
    EXPECT(MPI_Gather(buf, non_root_count, MPI_INT, buf, 1, MPI_INT, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf, non_root_count, MPI_INT, buf2, NULL, ones, MPI_INT, root, w),
           is_root ? MPI_ERR_ARG : MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf, non_root_count, MPI_INT, buf2, ones, NULL, MPI_INT, root, w),
           is_root ? MPI_ERR_ARG : MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf, non_root_count, MPI_INT, buf2, neg, ones, MPI_INT, root, w),
           MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf, non_root_count, MPI_INT, NULL, ones, ones, MPI_INT, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf, non_root_count, MPI_INT, buf2, ones, ones, MPI_DATATYPE_NULL, root,
                       w), is_root ? MPI_ERR_TYPE : MPI_ERR_COUNT);

    EXPECT(MPI_Scatter(is_root ? MPI_IN_PLACE : buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
                       root, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Scatter(buf, 1, MPI_INT, buf2, -1, MPI_INT, root, w), MPI_ERR_COUNT);
    EXPECT(MPI_Scatter(buf, 1, MPI_INT, buf2, 1, MPI_INT, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Scatter(NULL, 1, MPI_INT, buf2, non_root_count, MPI_INT, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Scatterv(buf, NULL, ones, MPI_INT, buf2, non_root_count, MPI_INT, root, w),
           is_root ? MPI_ERR_ARG : MPI_ERR_COUNT);
    EXPECT(MPI_Scatterv(buf, ones, NULL, MPI_INT, buf2, non_root_count, MPI_INT, root, w),
           is_root ? MPI_ERR_ARG : MPI_ERR_COUNT);
    EXPECT(MPI_Scatterv(buf, neg, ones, MPI_INT, buf2, non_root_count, MPI_INT, root, w),
           MPI_ERR_COUNT);
    EXPECT(MPI_Scatterv(buf, ones, ones, loose, buf2, non_root_count, MPI_INT, root, w),
           is_root ? MPI_ERR_TYPE : MPI_ERR_COUNT);

    EXPECT(MPI_Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgather(buf, 1, MPI_INT, buf2, -1, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(buf, 1, MPI_INT, buf2, 1, MPI_DATATYPE_NULL, w), MPI_ERR_TYPE);
    EXPECT(MPI_Allgather(buf, 1, MPI_INT, NULL, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgatherv(buf, 1, MPI_INT, buf2, NULL, ones, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Allgatherv(buf, 1, MPI_INT, buf2, ones, NULL, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Allgatherv(buf, 1, MPI_INT, buf2, neg, ones, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Allgatherv(buf, 1, MPI_INT, NULL, ones, ones, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgatherv(MPI_IN_PLACE, 1, MPI_INT, buf2, ones, ones, loose, w), MPI_ERR_TYPE);
    /* sendbuf at the rank's own block of recvbuf (or recvbuf at the root's
     * block of sendbuf): the same memory, which only the calling rank sees
     * (MPICH's errors/coll/noalias2, where the others never call) */
    EXPECT(MPI_Allgather(buf + rank, 1, MPI_INT, buf, 1, MPI_INT, w), MPI_ERR_BUFFER);
    int *twos = ints((size_t)size, 2), *evens = ints((size_t)size, 0);
    for (int r = 0; r < size; r++)
        evens[r] = 2 * r;
    EXPECT(MPI_Allgatherv(buf + 2 * rank, 2, MPI_INT, buf, twos, evens, MPI_INT, w),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Gather(buf + 3 * rank, non_root_count * 3, MPI_INT, buf, 3, MPI_INT, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Gatherv(buf + 2 * rank, non_root_count * 2, MPI_INT, buf, twos, evens, MPI_INT,
                       root, w), is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Scatter(buf, 2, MPI_INT, buf + 2 * rank, non_root_count * 2, MPI_INT, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Scatterv(buf, twos, evens, MPI_INT, buf + 2 * rank, non_root_count * 2, MPI_INT,
                        root, w), is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    /* nonblocking forms check the same before starting anything */
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT(MPI_Iallgather(buf + rank, 1, MPI_INT, buf, 1, MPI_INT, w, &req), MPI_ERR_BUFFER);
    EXPECT(MPI_Igather(buf + rank, non_root_count, MPI_INT, buf, 1, MPI_INT, root, w, &req),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    CHECK(req == MPI_REQUEST_NULL);
    free(twos);
    free(evens);

    EXPECT(MPI_Alltoall(buf, -1, MPI_INT, buf2, 1, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, buf2, 1, loose, w), MPI_ERR_TYPE);
    EXPECT(MPI_Alltoallv(buf, NULL, ones, MPI_INT, buf2, ones, ones, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallv(buf, ones, NULL, MPI_INT, buf2, ones, ones, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallv(buf, ones, ones, MPI_INT, buf2, ones, NULL, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallv(buf, ones, ones, MPI_INT, buf2, neg, ones, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoallv(NULL, ones, ones, MPI_INT, buf2, ones, ones, MPI_INT, w),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallv(buf, ones, ones, MPI_INT, buf, ones, ones, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallw(buf, ones, ones, NULL, buf2, ones, ones, types, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallw(buf, ones, ones, types, buf2, ones, ones, bad_types, w), MPI_ERR_TYPE);
    EXPECT(MPI_Alltoallw(buf, neg, ones, types, buf2, ones, ones, types, w), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoallw(NULL, ones, ones, types, buf2, ones, ones, types, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallw(buf, ones, ones, types, MPI_IN_PLACE, ones, ones, types, w),
           MPI_ERR_BUFFER);

    EXPECT(MPI_Reduce(buf, buf2, 1, MPI_INT, MPI_OP_NULL, root, w), MPI_ERR_OP);
    EXPECT(MPI_Reduce(buf, buf2, 1, MPI_BYTE, MPI_SUM, root, w), MPI_ERR_OP);
    EXPECT(MPI_Reduce(buf, buf2, -1, MPI_INT, MPI_SUM, root, w), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce(buf, buf2, 1, MPI_DATATYPE_NULL, MPI_SUM, root, w), MPI_ERR_TYPE);
    EXPECT(MPI_Reduce(buf, buf2, 1, MPI_INT, MPI_SUM, -2, w), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(MPI_IN_PLACE, is_root ? MPI_IN_PLACE : buf2, 1, MPI_INT, MPI_SUM, root, w),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce(buf, is_root ? buf : buf2, non_root_count, MPI_INT, MPI_SUM, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);
    EXPECT(MPI_Reduce(buf, is_root ? NULL : buf2, non_root_count, MPI_INT, MPI_SUM, root, w),
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT);

    EXPECT(MPI_Reduce_scatter(buf, buf2, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
    EXPECT(MPI_Reduce_scatter(buf, buf2, neg, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter(buf, MPI_IN_PLACE, ones, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_scatter(buf, buf2, ones, MPI_INT, (MPI_Op)buf, w), MPI_ERR_OP);
    EXPECT(MPI_Reduce_scatter(NULL, buf2, ones, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_scatter_block(buf, buf2, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter_block(buf, buf2, 1, MPI_C_BOOL, MPI_PROD, w), MPI_ERR_OP);
    EXPECT(MPI_Reduce_scatter_block(buf, buf, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Scan(buf, buf2, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    EXPECT(MPI_Scan(buf, buf, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Scan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Exscan(buf, buf2, 1, loose, MPI_SUM, w), MPI_ERR_TYPE);
    EXPECT(MPI_Exscan(buf, NULL, 1, MPI_INT, MPI_MAX, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Exscan(buf, buf2, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);

    /* What only a root checks, on MPI_COMM_SELF (where the caller is it). */
    MPI_Comm s = MPI_COMM_SELF;
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf2, -1, MPI_INT, 0, s), MPI_ERR_COUNT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
    EXPECT(MPI_Gatherv(buf, 1, MPI_INT, buf2, NULL, ones, MPI_INT, 0, s), MPI_ERR_ARG);
    EXPECT(MPI_Gatherv(buf, 1, MPI_INT, buf2, ones, ones, MPI_DATATYPE_NULL, 0, s), MPI_ERR_TYPE);
    EXPECT(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, buf2, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
    EXPECT(MPI_Scatter(NULL, 1, MPI_INT, buf2, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
    EXPECT(MPI_Scatterv(buf, ones, NULL, MPI_INT, buf2, 1, MPI_INT, 0, s), MPI_ERR_ARG);
    EXPECT(MPI_Reduce(buf, NULL, 1, MPI_INT, MPI_SUM, 0, s), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce(buf, buf2, 1, MPI_INT, MPI_SUM, 1, s), MPI_ERR_ROOT);

    still_works(w);
    still_works(s);
    CHECK_OK(MPI_Type_free(&loose));
    free(buf);
    free(buf2);
    free(ones);
    free(neg);
    free(types);
    free(bad_types);
}

/* What only the ranks together can see is reported to every rank, and
 * the communicator is usable afterwards. */
static void mismatches_are_reported_to_every_rank(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    int rank = comm_rank(w), size = comm_size(w), last = size - 1;
    int *buf = ints(8 * (size_t)size, 0), *buf2 = ints(8 * (size_t)size, 0);
    int *ones = ints((size_t)size, 1), *displs = ints((size_t)size, 0);
    for (int r = 0; r < size; r++)
        displs[r] = 2 * r;
    if (size > 1) {
        EXPECT(rank == last ? MPI_Scatter(buf, 1, MPI_INT, buf2, 1, MPI_INT, 0, w)
                            : MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, 0, w),
               MPI_ERR_OTHER);
        EXPECT(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, rank == last, w), MPI_ERR_ROOT);
        /* the last rank sends 2 ints where the root takes 1: truncation */
        EXPECT(MPI_Gather(buf, rank == last ? 2 : 1, MPI_INT, buf2, 1, MPI_INT, 0, w),
               MPI_ERR_TRUNCATE);
        EXPECT(MPI_Gather(buf, rank == last ? 0 : 1, MPI_INT, buf2, 1, MPI_INT, 0, w),
               MPI_ERR_COUNT);
        EXPECT(MPI_Scatter(buf, 2, MPI_INT, buf2, rank == last ? 1 : 2, MPI_INT, 0, w),
               MPI_ERR_TRUNCATE);
        EXPECT(MPI_Allgather(buf, rank == last ? 2 : 1, MPI_INT, buf2, 1, MPI_INT, w),
               MPI_ERR_COUNT);
        EXPECT(MPI_Allgather(buf, 2, MPI_INT, buf2, rank == last ? 1 : 2, MPI_INT, w),
               MPI_ERR_TRUNCATE);
        /* found by the receivers while they copy (each checks its own) */
        int *counts = ints((size_t)size, 1);
        if (rank == last)
            counts[0] = 0;
        EXPECT(MPI_Allgatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, w),
               MPI_ERR_TRUNCATE);
        EXPECT(MPI_Alltoallv(buf, ones, displs, MPI_INT, buf2, counts, displs, MPI_INT, w),
               MPI_ERR_TRUNCATE);
        free(counts);
        EXPECT(MPI_Alltoall(rank == last ? MPI_IN_PLACE : buf, 1, MPI_INT, buf2, 1, MPI_INT, w),
               MPI_ERR_BUFFER);
        EXPECT(MPI_Alltoall(buf, 1, rank == last ? MPI_UNSIGNED_SHORT : MPI_INT, buf2, 1,
                            MPI_INT, w), MPI_ERR_COUNT);
        EXPECT(MPI_Reduce(buf, buf2, 1, MPI_INT, rank == last ? MPI_MAX : MPI_SUM, 0, w),
               MPI_ERR_OP);
        EXPECT(MPI_Allreduce(buf, buf2, rank == last ? 2 : 1, MPI_INT, MPI_SUM, w),
               MPI_ERR_COUNT);
        /* the last rank's 20 bytes go the general way, the others' 4 the
         * short way (mpi/coll.c): the same round all the same */
        EXPECT(MPI_Allreduce(buf, buf2, rank == last ? 5 : 1, MPI_INT, MPI_SUM, w),
               MPI_ERR_COUNT);
        EXPECT(MPI_Allreduce(rank == last ? MPI_IN_PLACE : buf, buf2, 1, MPI_INT,
                             rank == last ? MPI_MAX : MPI_SUM, w),
               MPI_ERR_OP);
        EXPECT(MPI_Scan(buf, buf2, 1, rank == last ? MPI_FLOAT : MPI_INT, MPI_SUM, w),
               MPI_ERR_TYPE);
        EXPECT(rank == last ? MPI_Exscan(buf, buf2, 1, MPI_INT, MPI_SUM, w)
                            : MPI_Scan(buf, buf2, 1, MPI_INT, MPI_SUM, w),
               MPI_ERR_OTHER);
        int *rs = ints((size_t)size, 1);
        if (rank == last)
            rs[last] = 2;
        EXPECT(MPI_Reduce_scatter(buf, buf2, rs, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
        free(rs);
        EXPECT(MPI_Reduce_scatter_block(buf, buf2, rank == last ? 2 : 1, MPI_INT, MPI_SUM, w),
               MPI_ERR_COUNT);
    }
    if (size > 1) {
        /* rank 0 sends 1 int to each; the last rank expects nothing from
         * rank 0, with no type */
        int *sc = ints((size_t)size, 1), *rc = ints((size_t)size, 1);
        MPI_Datatype *st = malloc((size_t)size * sizeof *st), *rt = malloc((size_t)size * sizeof *rt);
        int *bd = ints((size_t)size, 0);
        for (int r = 0; r < size; r++) {
            st[r] = rt[r] = MPI_INT;
            bd[r] = r * (int)sizeof(int);
        }
        if (rank == last) {
            rc[0] = 0;
            rt[0] = MPI_DATATYPE_NULL;
        }
        EXPECT(MPI_Alltoallw(buf, sc, bd, st, buf2, rc, bd, rt, w), MPI_ERR_TRUNCATE);
        free(sc);
        free(rc);
        free(st);
        free(rt);
        free(bd);
    }
    /* On MPI_COMM_SELF too: the one rank disagrees with itself. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    EXPECT(MPI_Gather(buf, 2, MPI_INT, buf2, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    int two = 2;
    EXPECT(MPI_Alltoallv(buf, &two, displs, MPI_INT, buf2, ones, displs, MPI_INT, MPI_COMM_SELF),
           MPI_ERR_TRUNCATE);
    still_works(w);
    still_works(MPI_COMM_SELF);
    free(buf);
    free(buf2);
    free(ones);
    free(displs);
}

/* For the fatal paths (tests/expect_crash.sh checks the message). */
static void gather_mismatch_is_fatal(void)
{
    int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
    int buf[2] = {0, 0}, *rbuf = ints(2 * (size_t)size, 0);
    MPI_Gather(buf, rank == size - 1 ? 2 : 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void alltoallv_mismatch_is_fatal(void)
{
    int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
    int *sc = ints((size_t)size, 1), *rc = ints((size_t)size, 1), *d = ints((size_t)size, 0);
    for (int r = 0; r < size; r++)
        d[r] = 2 * r;
    if (rank == 0)
        sc[1] = 2;   /* rank 1 expects 1 int from rank 0 */
    int *sbuf = ints(2 * (size_t)size, 0), *rbuf = ints(2 * (size_t)size, 0);
    MPI_Alltoallv(sbuf, sc, d, MPI_INT, rbuf, rc, d, MPI_INT, MPI_COMM_WORLD);
}

static void bad_recvcounts_is_fatal(void)
{
    int size = comm_size(MPI_COMM_WORLD), v = 0;
    int *counts = ints((size_t)size, 1), *displs = ints((size_t)size, 0);
    counts[size - 1] = -1;
    int *rbuf = ints((size_t)size, 0);
    MPI_Gatherv(&v, 1, MPI_INT, rbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
}

/* ---- stress ----------------------------------------------------------------------------------------- */

/* Thousands of rounds of every kind, small and large, roots moving: each
 * result checked. */
static void thousands_of_rounds(void)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = comm_rank(comm), size = comm_size(comm);
    enum { BIG = 3000 };
    int *sbuf = ints(BIG, 0), *rbuf = ints((size_t)size * BIG, 0);
    long *l = malloc((size_t)size * sizeof *l);
    for (int it = 0; it < 2000; it++) {
        int root = (it * 7) % size, n = it % 10 == 0 ? BIG : 1 + it % 3;
        for (int i = 0; i < n; i++)
            sbuf[i] = val(rank + it, i);
        switch (it % 5) {
        case 0:
            CHECK_OK(MPI_Gather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, root, comm));
            for (int r = 0; rank == root && r < size; r++)
                for (int i = 0; i < n; i++)
                    CHECK(rbuf[(size_t)r * n + i] == val(r + it, i));
            break;
        case 1:
            CHECK_OK(MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, comm));
            for (int r = 0; r < size; r++)
                CHECK(rbuf[(size_t)r * n + n - 1] == val(r + it, n - 1));
            break;
        case 2:
            for (int q = 0; rank == root && q < size; q++)
                for (int i = 0; i < n; i++)
                    rbuf[(size_t)q * n + i] = val2(root, q, it + i);
            CHECK_OK(MPI_Scatter(rbuf, n, MPI_INT, sbuf, n, MPI_INT, root, comm));
            for (int i = 0; i < n; i++)
                CHECK(sbuf[i] == val2(root, rank, it + i));
            break;
        case 3: {
            long mine = rank + it, sum = -1;
            CHECK_OK(MPI_Scan(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
            CHECK(sum == (long)rank * (rank + 1) / 2 + (long)(rank + 1) * it);
            CHECK_OK(MPI_Allgather(&mine, 1, MPI_LONG, l, 1, MPI_LONG, comm));
            for (int r = 0; r < size; r++)
                CHECK(l[r] == r + it);
            break;
        }
        default: {
            for (int q = 0; q < size; q++)
                rbuf[q] = val2(rank, q, it);
            CHECK_OK(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, comm));
            for (int q = 0; q < size; q++)
                CHECK(rbuf[q] == val2(q, rank, it));
            long v = rank * it, max = -1;
            CHECK_OK(MPI_Reduce(&v, &max, 1, MPI_LONG, MPI_MAX, root, comm));
            CHECK(rank != root || max == (long)(size - 1) * it);
        }
        }
    }
    free(sbuf);
    free(rbuf);
    free(l);
}

/* ---- nonblocking forms --------------------------------------------------------------------------------- */

/* Every semantic case above through the I-forms (MPI_IX then MPI_Wait). */
static void nonblocking_forms_against_serial_results(void)
{
    atomic_store(&use_nonblocking, true);
    gather_and_gatherv();
    scatter_and_scatterv();
    allgather_and_allgatherv();
    alltoall_v_and_w();
    reduce_and_allreduce_in_rank_order();
    reduce_scatter_and_block();
    scan_and_exscan_in_rank_order();
    reductions_respect_a_non_commutative_op();
    small_reductions_copy_each_input_once();
    every_predefined_op_in_every_reduction();
    zero_counts_move_nothing();
}

static void nonblocking_forms_at_scale(void)
{
    atomic_store(&use_nonblocking, true);
    all_collectives_at_scale();
}

/* One of every I-form started on MPI_COMM_WORLD before any is waited for
 * (a few on a split communicator and MPI_COMM_SELF in between, and a
 * blocking collective in the middle, which waits for those started
 * before it), then waited for in reverse order: each has its own result. */
static void every_kind_outstanding_at_once(void)
{
    MPI_Comm w = MPI_COMM_WORLD, split;
    int rank = comm_rank(w), size = comm_size(w), root = size / 2;
    CHECK_OK(MPI_Comm_split(w, rank % 2, -rank, &split));
    int srank = comm_rank(split), ssize = comm_size(split);
    MPI_Datatype mt = matrix_type();
    MPI_Op op;
    CHECK_OK(MPI_Op_create(mat_product, 0, &op));
    MPI_Request req[32];
    int k = 0;

    int bc = rank == root ? 4242 : -1, gv = val(rank, 0), sc_out = SENT, ssum = -1, self = -1;
    int *gat = ints((size_t)size, SENT), *sc_src = ints((size_t)size, SENT);
    int *ag = ints((size_t)size, SENT), *a2a = ints((size_t)size, 0);
    int *agv = ints(2 * (size_t)size, SENT), *ones = ints((size_t)size, 1);
    int *displs = ints((size_t)size, 0);
    for (int q = 0; q < size; q++) {
        a2a[q] = val2(rank, q, 9);
        displs[q] = 2 * q;
        if (rank == root)
            sc_src[q] = val2(root, q, 7);
    }
    long lv = rank + 1, rsum = -1, scan = -1, exscan = -1;
    unsigned *min = mat_buf(2, rank, 0), *mout = mat_buf(2, -1, 0);
    double *rs_in = malloc((size_t)size * sizeof *rs_in), rs_out = -1.5;
    for (int i = 0; i < size; i++)
        rs_in[i] = dval(rank, i);

    CHECK_OK(MPI_Ibcast(&bc, 1, MPI_INT, root, w, &req[k++]));
    CHECK_OK(MPI_Igather(&gv, 1, MPI_INT, gat, 1, MPI_INT, root, w, &req[k++]));
    CHECK_OK(MPI_Iallreduce(&srank, &ssum, 1, MPI_INT, MPI_SUM, split, &req[k++]));
    CHECK_OK(MPI_Iscatter(sc_src, 1, MPI_INT, &sc_out, 1, MPI_INT, root, w, &req[k++]));
    CHECK_OK(MPI_Iallgather(&gv, 1, MPI_INT, ag, 1, MPI_INT, w, &req[k++]));
    /* waits for the five on w above, not for the one on split */
    long total = -1;
    CHECK_OK(MPI_Allreduce(&lv, &total, 1, MPI_LONG, MPI_SUM, w));
    CHECK(total == (long)size * (size + 1) / 2);
    CHECK(bc == 4242);
    CHECK_OK(MPI_Iallgatherv(&gv, 1, MPI_INT, agv, ones, displs, MPI_INT, w, &req[k++]));
    CHECK_OK(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a, 1, MPI_INT, w, &req[k++]));
    CHECK_OK(MPI_Ibcast(&self, 1, MPI_INT, 0, MPI_COMM_SELF, &req[k++]));
    CHECK_OK(MPI_Ireduce(&lv, &rsum, 1, MPI_LONG, MPI_SUM, root, w, &req[k++]));
    CHECK_OK(MPI_Iallreduce(min, mout, 2, mt, op, w, &req[k++]));
    CHECK_OK(MPI_Iscan(&lv, &scan, 1, MPI_LONG, MPI_SUM, w, &req[k++]));
    CHECK_OK(MPI_Iexscan(&lv, &exscan, 1, MPI_LONG, MPI_SUM, w, &req[k++]));
    CHECK_OK(MPI_Ireduce_scatter_block(rs_in, &rs_out, 1, MPI_DOUBLE, MPI_SUM, w, &req[k++]));
    CHECK_OK(MPI_Ibarrier(w, &req[k++]));
    for (int spin = 0; spin < 10; spin++)   /* the rank goes on meanwhile */
        MPIX_Yield();
    while (k > 0)
        CHECK_OK(MPI_Wait(&req[--k], MPI_STATUS_IGNORE));

    CHECK(ssum == ssize * (ssize - 1) / 2 && self == -1);
    for (int r = 0; rank == root && r < size; r++)
        CHECK(gat[r] == val(r, 0));
    CHECK(sc_out == val2(root, rank, 7));
    for (int r = 0; r < size; r++) {
        CHECK(ag[r] == val(r, 0));
        CHECK(agv[2 * r] == val(r, 0) && agv[2 * r + 1] == SENT);
        CHECK(a2a[r] == val2(r, rank, 9));
    }
    CHECK(rank != root || rsum == (long)size * (size + 1) / 2);
    CHECK(scan == (long)(rank + 1) * (rank + 2) / 2);
    CHECK(rank == 0 ? exscan == -1 : exscan == (long)rank * (rank + 1) / 2);
    double want = fold_sum(size, rank);
    CHECK(memcmp(&rs_out, &want, sizeof want) == 0);
    for (int e = 0; e < 2; e++) {
        unsigned m[MAT_STRIDE];
        mat_run(0, size - 1, e, m);
        mat_check(mout, e, m);
    }
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mt));
    CHECK_OK(MPI_Comm_free(&split));
    free(gat);
    free(sc_src);
    free(ag);
    free(a2a);
    free(agv);
    free(ones);
    free(displs);
    free(min);
    free(mout);
    free(rs_in);
}

/* inout = 0: what a pending reduction must never apply. */
static void zero_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    MPI_Aint lb, extent;
    CHECK_OK(MPI_Type_get_extent(*type, &lb, &extent));
    memset(inout, 0, (size_t)*len * (size_t)extent);
}

/* The op and the datatype of a pending collective may be freed at once,
 * and a new op made (the freed one's memory may serve it): the collective
 * still uses what it was started with. */
static void freed_op_and_types_of_a_pending_collective(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = comm_rank(w), size = comm_size(w);
    enum { N = 3 };
    MPI_Datatype mt = matrix_type(), gap = gapped_int();
    MPI_Op op, other;
    CHECK_OK(MPI_Op_create(mat_product, 0, &op));
    unsigned *in = mat_buf(N, rank, 0), *out = mat_buf(N, -1, 0);
    int *gbuf = ints(2 * (size_t)size * N, SENT), mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = val(rank, i);
    MPI_Request req[2];
    CHECK_OK(MPI_Iallreduce(in, out, N, mt, op, w, &req[0]));
    CHECK_OK(MPI_Iallgather(mine, N, MPI_INT, gbuf, N, gap, w, &req[1]));
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mt));
    CHECK_OK(MPI_Type_free(&gap));
    CHECK_OK(MPI_Op_create(zero_op, 1, &other));
    CHECK_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int e = 0; e < N; e++) {
        unsigned m[MAT_STRIDE];
        mat_run(0, size - 1, e, m);
        mat_check(out, e, m);
    }
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) {
            take(gbuf, 2 * ((size_t)r * N + i), val(r, i));
        }
    all_sent(gbuf, 2 * (size_t)size * N);
    CHECK_OK(MPI_Op_free(&other));
    free(in);
    free(out);
    free(gbuf);
}

/* What MPI says is not significant (the receive side at a gather's
 * non-root ranks, the send side of an in-place call...) may hold anything:
 * a handle that is no datatype, negative counts, arrays that are not. */
static void insignificant_arguments_are_ignored(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = comm_rank(w), size = comm_size(w), root = size - 1;
    bool is_root = rank == root;
    /* zeroes: what a stale handle may look like; never to be touched */
    void *junk = calloc(1, 4096 + 16 * (size_t)size);
    MPI_Datatype bad = (MPI_Datatype)junk;
    int *bad_ints = junk;
    int v = val(rank, 0), *all = ints((size_t)size, SENT), one = SENT;
    int *ones = ints((size_t)size, 1), *displs = ints((size_t)size, 0);
    for (int q = 0; q < size; q++)
        displs[q] = q;
    for (int nb = 0; nb < 2; nb++) {
        atomic_store(&use_nonblocking, nb);
        CHECK_OK(COLL(Gather, Igather, &v, 1, MPI_INT, is_root ? all : junk, is_root ? 1 : -5,
                      is_root ? MPI_INT : bad, root, w));
        for (int r = 0; is_root && r < size; r++)
            take(all, (size_t)r, val(r, 0));
        CHECK_OK(COLL(Gatherv, Igatherv, is_root ? MPI_IN_PLACE : &v, is_root ? -3 : 1,
                      is_root ? bad : MPI_INT, is_root ? all : junk, is_root ? ones : bad_ints,
                      is_root ? displs : bad_ints, is_root ? MPI_INT : bad, root, w));
        for (int r = 0; is_root && r < size - 1; r++)
            take(all, (size_t)r, val(r, 0));
        for (int q = 0; is_root && q < size; q++)
            all[q] = val2(root, q, nb);
        CHECK_OK(COLL(Scatter, Iscatter, is_root ? all : junk, is_root ? 1 : -7,
                      is_root ? MPI_INT : bad, is_root ? MPI_IN_PLACE : &one, is_root ? -1 : 1,
                      is_root ? bad : MPI_INT, root, w));
        CHECK(is_root ? one == SENT : one == val2(root, rank, nb));
        CHECK_OK(COLL(Scatterv, Iscatterv, is_root ? all : junk, is_root ? ones : bad_ints,
                      is_root ? displs : bad_ints, is_root ? MPI_INT : bad, &one, 1, MPI_INT,
                      root, w));
        CHECK(one == val2(root, rank, nb));
        one = SENT;
        for (int q = 0; q < size; q++)
            all[q] = val2(rank, q, 5);
        CHECK_OK(COLL(Alltoall, Ialltoall, MPI_IN_PLACE, -1, bad, all, 1, MPI_INT, w));
        for (int q = 0; q < size; q++)
            take(all, (size_t)q, val2(q, rank, 5));
        all[rank] = v;
        CHECK_OK(COLL(Allgather, Iallgather, MPI_IN_PLACE, -2, bad, all, 1, MPI_INT, w));
        for (int q = 0; q < size; q++)
            take(all, (size_t)q, val(q, 0));
        all_sent(all, (size_t)size);
    }
    atomic_store(&use_nonblocking, false);
    free(junk);
    free(all);
    free(ones);
    free(displs);
}

/* The I-forms check their arguments as the blocking forms do, and their
 * request; a blocking call never matches a nonblocking one. */
static void nonblocking_errors(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank = comm_rank(w), size = comm_size(w), v = 1, r = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT(MPI_Igather(&v, 1, MPI_INT, &r, 1, MPI_INT, 0, w, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Igather(&v, -1, MPI_INT, &r, 1, MPI_INT, 0, w, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Iscatterv(&v, NULL, NULL, MPI_INT, &r, 1, MPI_INT, 0, MPI_COMM_SELF, &req),
           MPI_ERR_ARG);
    EXPECT(MPI_Iallgather(&v, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w, &req), MPI_ERR_BUFFER);
    EXPECT(MPI_Ialltoallw(&v, NULL, NULL, NULL, &r, NULL, NULL, NULL, w, &req), MPI_ERR_ARG);
    EXPECT(MPI_Ireduce(&v, &r, 1, MPI_INT, MPI_SUM, size, w, &req), MPI_ERR_ROOT);
    EXPECT(MPI_Ireduce_scatter(&v, &r, NULL, MPI_INT, MPI_SUM, w, &req), MPI_ERR_ARG);
    EXPECT(MPI_Iscan(&v, &r, 1, MPI_INT, MPI_OP_NULL, w, &req), MPI_ERR_OP);
    EXPECT(MPI_Iexscan(&v, &v, 1, MPI_INT, MPI_SUM, w, &req), MPI_ERR_BUFFER);
    CHECK(req == MPI_REQUEST_NULL);
    if (size > 1) {
        /* the last rank starts MPI_Ireduce, the others call MPI_Reduce */
        if (rank == size - 1) {
            CHECK_OK(MPI_Ireduce(&v, &r, 1, MPI_INT, MPI_SUM, 0, w, &req));
            EXPECT(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
        } else {
            EXPECT(MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, 0, w), MPI_ERR_OTHER);
        }
        /* a mismatch found while copying, reported by every rank's wait */
        int *counts = ints((size_t)size, 1), *displs = ints((size_t)size, 0);
        int *buf = ints((size_t)size, 0);
        for (int q = 0; q < size; q++)
            displs[q] = q;
        if (rank == 0)
            counts[size - 1] = 0;
        CHECK_OK(MPI_Iallgatherv(&v, 1, MPI_INT, buf, counts, displs, MPI_INT, w, &req));
        EXPECT(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
        free(counts);
        free(displs);
        free(buf);
    }
    still_works(w);
}

typedef struct coll_case {
    const char *name;
    void (*run)(void);
} coll_case;

static const coll_case cases[] = {
    {"gather_and_gatherv", gather_and_gatherv},
    {"scatter_and_scatterv", scatter_and_scatterv},
    {"allgather_and_allgatherv", allgather_and_allgatherv},
    {"alltoall_v_and_w", alltoall_v_and_w},
    {"reduce_and_allreduce_in_rank_order", reduce_and_allreduce_in_rank_order},
    {"reduce_scatter_and_block", reduce_scatter_and_block},
    {"scan_and_exscan_in_rank_order", scan_and_exscan_in_rank_order},
    {"reductions_respect_a_non_commutative_op", reductions_respect_a_non_commutative_op},
    {"small_reductions_copy_each_input_once", small_reductions_copy_each_input_once},
    {"small_allreduce_either_way_in_one_round", small_allreduce_either_way_in_one_round},
    {"every_predefined_op_in_every_reduction", every_predefined_op_in_every_reduction},
    {"all_collectives_back_to_back", all_collectives_back_to_back},
    {"all_collectives_at_scale", all_collectives_at_scale},
    {"zero_counts_move_nothing", zero_counts_move_nothing},
    {"bad_arguments_return_errors", bad_arguments_return_errors},
    {"mismatches_are_reported_to_every_rank", mismatches_are_reported_to_every_rank},
    {"gather_mismatch_is_fatal", gather_mismatch_is_fatal},
    {"alltoallv_mismatch_is_fatal", alltoallv_mismatch_is_fatal},
    {"bad_recvcounts_is_fatal", bad_recvcounts_is_fatal},
    {"thousands_of_rounds", thousands_of_rounds},
    {"nonblocking_forms_against_serial_results", nonblocking_forms_against_serial_results},
    {"nonblocking_forms_at_scale", nonblocking_forms_at_scale},
    {"every_kind_outstanding_at_once", every_kind_outstanding_at_once},
    {"freed_op_and_types_of_a_pending_collective", freed_op_and_types_of_a_pending_collective},
    {"insignificant_arguments_are_ignored", insignificant_arguments_are_ignored},
    {"nonblocking_errors", nonblocking_errors},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
    const coll_case *run = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            run = &cases[i];
    if (!run) {
        if (rank == 0)
            fprintf(stderr, "usage: %s CASE\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    run->run();
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("%s: ok (%d ranks)\n", run->name, size);
    return 0;
}
