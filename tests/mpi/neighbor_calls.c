/* neighbor_calls.c — neighbour collectives on each topology kind, payloads
 * checked against the neighbour lists; MPI_PROC_NULL blocks untouched.
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
