/* neighbor_calls.c — neighbour collectives (blocking, nonblocking; plain,
 * v and w forms) on each topology kind, payloads checked against the
 * neighbour lists; MPI_PROC_NULL blocks and gaps untouched.
 * Usage: neighbor_calls CASE. */
#include <mpi.h>

#include "../check.h"

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int world_size(void)
{
    int s;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    return s;
}

/* Rank r's block for its j-th out-neighbour: distinct per (r, j, k). */
static int payload(int r, int j, int k)
{
    return r * 1000 + j * 10 + k;
}

/* On a grid of dims (periods p): allgather gets each neighbour's rank
 * block, alltoall the block that neighbour sent towards us. */
static void check_cart(int ndims, const int *dims, const int *periods)
{
    int me = world_rank();
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
    if (cart == MPI_COMM_NULL)
        return;
    int nb = 2 * ndims, in[6];
    for (int d = 0; d < ndims; d++)
        CHECK_OK(MPI_Cart_shift(cart, d, 1, &in[2 * d], &in[2 * d + 1]));
    int mine[2] = {me, -me}, got[12], send[12];
    for (int i = 0; i < 12; i++)
        got[i] = -7;
    CHECK_OK(MPI_Neighbor_allgather(mine, 2, MPI_INT, got, 2, MPI_INT, cart));
    for (int i = 0; i < nb; i++) {
        int want0 = in[i] == MPI_PROC_NULL ? -7 : in[i];
        int want1 = in[i] == MPI_PROC_NULL ? -7 : -in[i];
        CHECK(got[2 * i] == want0 && got[2 * i + 1] == want1);
    }
    for (int i = 0; i < 12; i++)
        got[i] = -7;
    for (int j = 0; j < nb; j++)
        for (int k = 0; k < 2; k++)
            send[2 * j + k] = payload(me, j, k);
    CHECK_OK(MPI_Neighbor_alltoall(send, 2, MPI_INT, got, 2, MPI_INT, cart));
    for (int i = 0; i < nb; i++)
        for (int k = 0; k < 2; k++) {
            /* My -1 neighbour sent me its +1 block, and the other way. */
            int want = in[i] == MPI_PROC_NULL ? -7 : payload(in[i], i ^ 1, k);
            CHECK(got[2 * i + k] == want);
        }
    CHECK_OK(MPI_Comm_free(&cart));
}

static void cart_neighbours_exchange_blocks(void)
{
    int n = world_size();
    int d2[2] = {0, 0}, p2[2] = {1, 0};
    CHECK_OK(MPI_Dims_create(n, 2, d2));
    check_cart(2, d2, p2);
    int d3[3] = {0, 0, 0}, p3[3] = {0, 1, 1};
    CHECK_OK(MPI_Dims_create(n, 3, d3));
    check_cart(3, d3, p3);
    /* Periodic dimensions of size 2 and 1: the same neighbour twice. */
    int small[3] = {2, 1, n / 2}, per[3] = {1, 1, 0};
    check_cart(3, small, per);
}

static void graph_and_dist_graph_neighbours_exchange_blocks(void)
{
    int n = world_size(), me = world_rank();
    /* Graph (symmetric, as neighbour collectives need): i -- i+1, i-1. */
    int index[64], edges[128];
    for (int i = 0; i < n; i++) {
        edges[2 * i] = (i + 1) % n;
        edges[2 * i + 1] = (i + n - 1) % n;
        index[i] = 2 * i + 2;
    }
    MPI_Comm graph;
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
    int mine = me * 3 + 1, got[4] = {-7, -7, -7, -7}, send[4];
    CHECK_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, graph));
    CHECK(got[0] == ((me + 1) % n) * 3 + 1 && got[1] == ((me + n - 1) % n) * 3 + 1);
    CHECK_OK(MPI_Comm_free(&graph));
    /* Dist graph: in from me-1 and me-2, out to me+1 and me+2; plus a
     * PROC_NULL-free check of alltoall ordering. */
    int src[2] = {(me + n - 1) % n, (me + n - 2) % n}, dst[2] = {(me + 1) % n, (me + 2) % n};
    MPI_Comm dist;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
    for (int j = 0; j < 2; j++)
        send[j] = payload(me, j, 0);
    got[0] = got[1] = -7;
    CHECK_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, dist));
    /* me-1 sent me its block 0 (me is its +1), me-2 its block 1. */
    CHECK(got[0] == payload(src[0], 0, 0) && got[1] == payload(src[1], 1, 0));
    got[0] = got[1] = -7;
    CHECK_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, dist));
    CHECK(got[0] == src[0] * 3 + 1 && got[1] == src[1] * 3 + 1);
    CHECK_OK(MPI_Comm_free(&dist));
}

/* A dist graph with uneven degrees: rank r receives from r-1, r-2, ...,
 * r-d_in(r) and sends to r+1, ..., r+d_out(r), where the degrees are
 * chosen so that every edge is listed on both sides. */
static int out_degree(int r, int n)
{
    return 1 + r % 3 < n ? 1 + r % 3 : n - 1;
}

static MPI_Comm uneven_graph(int *nin, int *src, int *nout, int *dst)
{
    int n = world_size(), me = world_rank();
    *nout = out_degree(me, n);
    for (int j = 0; j < *nout; j++)
        dst[j] = (me + 1 + j) % n;
    *nin = 0;
    for (int k = 1; k < n && k <= 3; k++) {
        int from = (me + n - k) % n;
        if (out_degree(from, n) >= k)
            src[(*nin)++] = from;
    }
    MPI_Comm g;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, *nin, src, MPI_UNWEIGHTED, *nout,
                                            dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    return g;
}

/* Position of `me` in the out-list of `from` (uneven_graph). */
static int slot_at(int from, int me, int n)
{
    return (me - from + n) % n - 1;
}

/* Block for rank r's j-th out-neighbour: j+1+r%2 ints, so sizes differ
 * per edge. */
static int block_len(int r, int j)
{
    return j + 1 + r % 2;
}

/* v and w forms on uneven degrees, blocking and nonblocking, with gaps
 * between the receive blocks that must stay untouched. */
static void vector_forms_place_blocks_at_displacements(void)
{
    int n = world_size(), me = world_rank();
    int nin, nout, src[4], dst[4];
    MPI_Comm g = uneven_graph(&nin, src, &nout, dst);
    for (int nb = 0; nb < 2; nb++) {
        /* allgatherv: each in-neighbour sends its 1 + r%4 ints. */
        int mine[4], rc[4], rd[4], got[64], at = 3;
        for (int k = 0; k < 4; k++)
            mine[k] = me * 100 + k;
        for (int i = 0; i < nin; i++) {
            rc[i] = 1 + src[i] % 4;
            rd[i] = at;
            at += rc[i] + 2;
        }
        for (int i = 0; i < 64; i++)
            got[i] = -7;
        MPI_Request req;
        if (nb) {
            CHECK_OK(MPI_Ineighbor_allgatherv(mine, 1 + me % 4, MPI_INT, got, rc, rd, MPI_INT, g,
                                              &req));
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Neighbor_allgatherv(mine, 1 + me % 4, MPI_INT, got, rc, rd, MPI_INT, g));
        }
        int expect[64];
        for (int i = 0; i < 64; i++)
            expect[i] = -7;
        for (int i = 0; i < nin; i++)
            for (int k = 0; k < rc[i]; k++)
                expect[rd[i] + k] = src[i] * 100 + k;
        for (int i = 0; i < 64; i++)
            CHECK(got[i] == expect[i]);

        /* alltoallv: block j is block_len(me, j) ints, sent reversed. */
        int send[64], sc[4], sd[4];
        at = 0;
        for (int j = nout - 1; j >= 0; j--) {
            sc[j] = block_len(me, j);
            sd[j] = at;
            for (int k = 0; k < sc[j]; k++)
                send[at + k] = payload(me, j, k);
            at += sc[j];
        }
        at = 1;
        for (int i = 0; i < nin; i++) {
            rc[i] = block_len(src[i], slot_at(src[i], me, n));
            rd[i] = at;
            at += rc[i] + 1;
        }
        for (int i = 0; i < 64; i++)
            got[i] = expect[i] = -7;
        if (nb) {
            CHECK_OK(MPI_Ineighbor_alltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, g, &req));
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Neighbor_alltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, g));
        }
        for (int i = 0; i < nin; i++)
            for (int k = 0; k < rc[i]; k++)
                expect[rd[i] + k] = payload(src[i], slot_at(src[i], me, n), k);
        for (int i = 0; i < 64; i++)
            CHECK(got[i] == expect[i]);

        /* alltoallw: sends ints, receives them as pairs (a contiguous
         * type), at byte displacements. */
        MPI_Datatype two_ints, stypes[4], rtypes[4];
        CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two_ints));
        CHECK_OK(MPI_Type_commit(&two_ints));
        int wsc[4], wrc[4];
        MPI_Aint wsd[4], wrd[4];
        at = 0;
        for (int j = nout - 1; j >= 0; j--) {
            wsc[j] = 2 * block_len(me, j);   /* ints, received as pairs */
            wsd[j] = (MPI_Aint)(at * sizeof(int));
            stypes[j] = MPI_INT;
            for (int k = 0; k < wsc[j]; k++)
                send[at + k] = payload(me, j, k);
            at += wsc[j];
        }
        at = 2;
        for (int i = 0; i < nin; i++) {
            wrc[i] = block_len(src[i], slot_at(src[i], me, n));   /* pairs */
            wrd[i] = (MPI_Aint)(at * sizeof(int));
            rtypes[i] = two_ints;
            at += 2 * wrc[i] + 1;
        }
        for (int i = 0; i < 64; i++)
            got[i] = expect[i] = -7;
        if (nb) {
            CHECK_OK(MPI_Ineighbor_alltoallw(send, wsc, wsd, stypes, got, wrc, wrd, rtypes, g,
                                             &req));
            CHECK_OK(MPI_Type_free(&two_ints));   /* still in use by the operation */
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Neighbor_alltoallw(send, wsc, wsd, stypes, got, wrc, wrd, rtypes, g));
            CHECK_OK(MPI_Type_free(&two_ints));
        }
        for (int i = 0; i < nin; i++)
            for (int k = 0; k < 2 * wrc[i]; k++)
                expect[wrd[i] / (MPI_Aint)sizeof(int) + k] =
                    payload(src[i], slot_at(src[i], me, n), k);
        for (int i = 0; i < 64; i++)
            CHECK(got[i] == expect[i]);
    }
    CHECK_OK(MPI_Comm_free(&g));
}

/* Many I-forms outstanding at once on one communicator, mixed with the
 * blocking forms and with other collectives: each completes with its own
 * data, in the order MPI prescribes. */
static void nonblocking_forms_overlap_in_order(void)
{
    int n = world_size(), me = world_rank();
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    CHECK_OK(MPI_Dims_create(n, 2, dims));
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    int in[4];
    for (int d = 0; d < 2; d++)
        CHECK_OK(MPI_Cart_shift(cart, d, 1, &in[2 * d], &in[2 * d + 1]));
    enum { ROUNDS = 16 };
    int mine[ROUNDS], got[ROUNDS][4], send[ROUNDS][4], got2[ROUNDS][4];
    MPI_Request reqs[2 * ROUNDS + 1];
    for (int r = 0; r < ROUNDS; r++) {
        mine[r] = me * 1000 + r;
        for (int j = 0; j < 4; j++) {
            got[r][j] = got2[r][j] = -7;
            send[r][j] = payload(me, j, r);
        }
        CHECK_OK(MPI_Ineighbor_allgather(&mine[r], 1, MPI_INT, got[r], 1, MPI_INT, cart,
                                         &reqs[2 * r]));
        CHECK_OK(MPI_Ineighbor_alltoall(send[r], 1, MPI_INT, got2[r], 1, MPI_INT, cart,
                                        &reqs[2 * r + 1]));
    }
    CHECK_OK(MPI_Ibarrier(cart, &reqs[2 * ROUNDS]));
    int extra_got[4];
    CHECK_OK(MPI_Neighbor_allgather(&me, 1, MPI_INT, extra_got, 1, MPI_INT, cart));
    CHECK_OK(MPI_Waitall(2 * ROUNDS + 1, reqs, MPI_STATUSES_IGNORE));
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < 4; i++) {
            CHECK(got[r][i] == in[i] * 1000 + r);
            CHECK(got2[r][i] == payload(in[i], i ^ 1, r));
        }
    for (int i = 0; i < 4; i++)
        CHECK(extra_got[i] == in[i]);
    CHECK_OK(MPI_Comm_free(&cart));
}

static void vector_and_nonblocking_bad_arguments(void)
{
    int n = world_size(), me = world_rank();
    int dims[1] = {n}, periods[1] = {1};
    MPI_Comm ring;
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int a[8] = {0}, b[8], c1[2] = {1, 1}, neg[2] = {1, -1}, d[2] = {0, 1};
    MPI_Aint wd[2] = {0, sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT}, bad_ty[2] = {MPI_INT, MPI_DATATYPE_NULL};
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(MPI_Ineighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, ring, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, ring) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, neg, d, MPI_INT, ring) == MPI_ERR_COUNT);
    CHECK(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, NULL, d, MPI_INT, ring) == MPI_ERR_ARG);
    CHECK(MPI_Ineighbor_alltoallv(a, c1, d, MPI_INT, b, c1, NULL, MPI_INT, ring, &req) ==
          MPI_ERR_ARG);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(MPI_Neighbor_alltoallv(a, c1, d, MPI_DATATYPE_NULL, b, c1, d, MPI_INT, ring) ==
          MPI_ERR_TYPE);
    CHECK(MPI_Neighbor_alltoallw(a, c1, wd, bad_ty, b, c1, wd, ty, ring) == MPI_ERR_TYPE);
    CHECK(MPI_Ineighbor_alltoall(a, 1, MPI_INT, NULL, 1, MPI_INT, ring, &req) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Ineighbor_alltoallw(a, c1, wd, ty, b, c1, wd, ty, MPI_COMM_WORLD, &req) ==
          MPI_ERR_TOPOLOGY);
    /* A block of 0 elements may name any type, even MPI_DATATYPE_NULL. */
    int sc[2] = {1, 0}, rc[2] = {0, 1};   /* to the -1 side, from the +1 side */
    MPI_Datatype null_first[2] = {MPI_DATATYPE_NULL, MPI_INT};
    int got[2] = {-7, -7};
    a[0] = me;
    CHECK_OK(MPI_Neighbor_alltoallw(a, sc, wd, bad_ty, got, rc, wd, null_first, ring));
    CHECK(got[0] == -7 && got[1] == (me + 1) % n);
    /* Nothing lost: the ring still exchanges, blocking and not. */
    CHECK_OK(MPI_Ineighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(got[0] == (me + n - 1) % n && got[1] == (me + 1) % n);
    CHECK_OK(MPI_Comm_free(&ring));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int a[8], b[8];
    CHECK(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD) ==
          MPI_ERR_TOPOLOGY);
    CHECK(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_NULL) == MPI_ERR_COMM);
    int dims[1] = {world_size()}, periods[1] = {1};
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CHECK_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    CHECK(MPI_Neighbor_allgather(a, -1, MPI_INT, b, 1, MPI_INT, cart) == MPI_ERR_COUNT);
    CHECK(MPI_Neighbor_alltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, cart) == MPI_ERR_TYPE);
    CHECK(MPI_Neighbor_alltoall(a, 1, MPI_INT, NULL, 1, MPI_INT, cart) == MPI_ERR_BUFFER);
    /* Nothing lost: the grid still exchanges. */
    int me = world_rank(), got[2] = {-7, -7};
    CHECK_OK(MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, cart));
    int n = world_size();
    CHECK(got[0] == (me + n - 1) % n && got[1] == (me + 1) % n);
    CHECK_OK(MPI_Comm_free(&cart));
}

static void no_topology_is_fatal(void)
{
    int a = 0, b[8];
    if (world_rank() == 0)
        MPI_Neighbor_allgather(&a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
}

static const test_case cases[] = {
    {"cart_neighbours_exchange_blocks", cart_neighbours_exchange_blocks},
    {"graph_and_dist_graph_neighbours_exchange_blocks",
     graph_and_dist_graph_neighbours_exchange_blocks},
    {"vector_forms_place_blocks_at_displacements", vector_forms_place_blocks_at_displacements},
    {"nonblocking_forms_overlap_in_order", nonblocking_forms_overlap_in_order},
    {"vector_and_nonblocking_bad_arguments", vector_and_nonblocking_bad_arguments},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"no_topology_is_fatal", no_topology_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
