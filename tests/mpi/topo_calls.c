/* topo_calls.c — Cartesian topologies, MPI_Dims_create and MPI_Topo_test:
 * results checked against a serial computation, and the error class of
 * each bad argument. Usage: topo_calls CASE. */
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

static void dims_create_balances_and_keeps_given(void)
{
    int d2[2] = {0, 0};
    CHECK_OK(MPI_Dims_create(12, 2, d2));
    CHECK(d2[0] == 4 && d2[1] == 3);
    int d3[3] = {0, 0, 0};
    CHECK_OK(MPI_Dims_create(64, 3, d3));
    CHECK(d3[0] == 4 && d3[1] == 4 && d3[2] == 4);
    int k[3] = {0, 3, 0};
    CHECK_OK(MPI_Dims_create(30, 3, k));
    CHECK(k[0] == 5 && k[1] == 3 && k[2] == 2);
    int p[2] = {0, 0};
    CHECK_OK(MPI_Dims_create(7, 2, p));
    CHECK(p[0] == 7 && p[1] == 1);
    int f[2] = {2, 3};
    CHECK_OK(MPI_Dims_create(6, 2, f));
    CHECK(f[0] == 2 && f[1] == 3);
    int b[2] = {0, 0};
    CHECK_OK(MPI_Dims_create(1, 2, b));
    CHECK(b[0] == 1 && b[1] == 1);
    /* The most balanced, not a greedy split: 72 is 9 x 8 (not 12 x 6), 540
     * is 27 x 20; among equal spreads, the largest smallest factors. */
    static const struct {
        int n, k, want[5];
    } balanced[] = {{72, 2, {9, 8}}, {540, 2, {27, 20}}, {432, 3, {9, 8, 6}},
                    {5040, 3, {21, 16, 15}}, {9936, 4, {23, 9, 8, 6}},
                    {134064, 5, {19, 14, 9, 8, 7}}, {1 << 20, 4, {32, 32, 32, 32}},
                    {2147483647, 2, {2147483647, 1}}};
    for (size_t t = 0; t < sizeof balanced / sizeof balanced[0]; t++) {
        int d[5] = {0, 0, 0, 0, 0};
        CHECK_OK(MPI_Dims_create(balanced[t].n, balanced[t].k, d));
        for (int i = 0; i < balanced[t].k; i++)
            CHECK(d[i] == balanced[t].want[i]);
    }
    /* Every product is nnodes, non-increasing. */
    for (int n = 1; n <= 64; n++) {
        int d[3] = {0, 0, 0};
        CHECK_OK(MPI_Dims_create(n, 3, d));
        CHECK(d[0] * d[1] * d[2] == n && d[0] >= d[1] && d[1] >= d[2]);
    }
}

/* A 2-D or 3-D grid over every world rank, checked against row-major
 * arithmetic: coords, rank round trips, shifts with and without wrap. */
static void check_grid(int ndims, const int *dims, const int *periods)
{
    int n = world_size(), me = world_rank();
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
    int cells = 1;
    for (int i = 0; i < ndims; i++)
        cells *= dims[i];
    if (me >= cells) {
        CHECK(cart == MPI_COMM_NULL);
        return;
    }
    CHECK(cart != MPI_COMM_NULL);
    int status, nd, size;
    CHECK_OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART);
    CHECK_OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims);
    CHECK_OK(MPI_Comm_size(cart, &size));
    CHECK(size == cells && cells <= n);
    int gd[3], gp[3], gc[3] = {0, 0, 0};
    CHECK_OK(MPI_Cart_get(cart, 3, gd, gp, gc));
    for (int i = 0, r = me; i < ndims; i++) {
        CHECK(gd[i] == dims[i] && gp[i] == (periods[i] != 0));
        int stride = 1;
        for (int j = i + 1; j < ndims; j++)
            stride *= dims[j];
        CHECK(gc[i] == r / stride);
        r %= stride;
    }
    for (int r = 0; r < cells; r++) {
        int c[3], back;
        CHECK_OK(MPI_Cart_coords(cart, r, 3, c));
        CHECK_OK(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r);
    }
    for (int dir = 0; dir < ndims; dir++)
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst;
            CHECK_OK(MPI_Cart_shift(cart, dir, disp, &src, &dst));
            for (int k = 0; k < 2; k++) {
                int c[3] = {gc[0], gc[1], gc[2]};
                c[dir] += k ? disp : -disp;
                int want;
                if (periods[dir])
                    c[dir] = ((c[dir] % dims[dir]) + dims[dir]) % dims[dir];
                if (c[dir] < 0 || c[dir] >= dims[dir]) {
                    want = MPI_PROC_NULL;
                } else {
                    want = 0;
                    for (int i = 0; i < ndims; i++)
                        want = want * dims[i] + c[i];
                }
                CHECK((k ? dst : src) == want);
            }
        }
    /* A periodic coordinate out of range wraps in Cart_rank. */
    if (periods[0]) {
        int c[3] = {gc[0] + dims[0], gc[1], gc[2]}, r;
        CHECK_OK(MPI_Cart_rank(cart, c, &r));
        CHECK(r == me);
    }
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(cart, &dup));
    CHECK_OK(MPI_Topo_test(dup, &status));
    CHECK(status == MPI_CART);
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK_OK(MPI_Comm_free(&cart));
}

static void cart_grids_match_row_major(void)
{
    int n = world_size();
    int d2[2] = {0, 0}, p2[2] = {1, 0};
    CHECK_OK(MPI_Dims_create(n, 2, d2));
    check_grid(2, d2, p2);
    int p2b[2] = {0, 1};
    check_grid(2, d2, p2b);
    int d3[3] = {0, 0, 0}, p3[3] = {1, 0, 1};
    CHECK_OK(MPI_Dims_create(n, 3, d3));
    check_grid(3, d3, p3);
    /* A grid smaller than the communicator: the others get MPI_COMM_NULL. */
    int small[2] = {n / 2 > 0 ? n / 2 : 1, 1}, np[2] = {0, 0};
    check_grid(2, small, np);
    int status;
    CHECK_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED);
}

/* Sub-grids of a 3-D grid: members share the dropped coordinates, their
 * sub-grid rank follows the kept ones. */
static void cart_sub_keeps_the_chosen_dimensions(void)
{
    int n = world_size(), me = world_rank();
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    CHECK_OK(MPI_Dims_create(n, 3, dims));
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart));
    int c[3];
    CHECK_OK(MPI_Cart_coords(cart, me, 3, c));
    int remain[3] = {1, 0, 1};
    MPI_Comm sub;
    CHECK_OK(MPI_Cart_sub(cart, remain, &sub));
    int nd, sd[2], sp[2], sc[2], size, rank;
    CHECK_OK(MPI_Cartdim_get(sub, &nd));
    CHECK(nd == 2);
    CHECK_OK(MPI_Cart_get(sub, 2, sd, sp, sc));
    CHECK(sd[0] == dims[0] && sd[1] == dims[2] && sp[0] == 1 && sp[1] == 1);
    CHECK(sc[0] == c[0] && sc[1] == c[2]);
    CHECK_OK(MPI_Comm_size(sub, &size));
    CHECK_OK(MPI_Comm_rank(sub, &rank));
    CHECK(size == dims[0] * dims[2] && rank == c[0] * dims[2] + c[2]);
    /* Every member of the sub-grid has the same middle coordinate. */
    int mid = c[1], low, high;
    CHECK_OK(MPI_Allreduce(&mid, &low, 1, MPI_INT, MPI_MIN, sub));
    CHECK_OK(MPI_Allreduce(&mid, &high, 1, MPI_INT, MPI_MAX, sub));
    CHECK(low == c[1] && high == c[1]);
    CHECK_OK(MPI_Comm_free(&sub));
    /* Keeping nothing gives a 0-dimensional grid of one rank. */
    int none[3] = {0, 0, 0};
    CHECK_OK(MPI_Cart_sub(cart, none, &sub));
    CHECK_OK(MPI_Cartdim_get(sub, &nd));
    CHECK_OK(MPI_Comm_size(sub, &size));
    CHECK(nd == 0 && size == 1);
    CHECK_OK(MPI_Comm_free(&sub));
    int mapped;
    int line[1] = {n - 1};
    CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, line, periods, &mapped));
    CHECK(mapped == (me < n - 1 ? me : MPI_UNDEFINED));
    CHECK_OK(MPI_Comm_free(&cart));
}

/* A ring with chords over the first n - 1 ranks: what was given comes back. */
static void graph_gives_back_its_edges(void)
{
    int n = world_size(), me = world_rank(), nodes = n - 1;
    int index[64], edges[128], e = 0;
    for (int i = 0; i < nodes; i++) {
        edges[e++] = (i + 1) % nodes;
        if (i % 2 == 0)
            edges[e++] = (i + nodes - 1) % nodes;
        index[i] = e;
    }
    MPI_Comm graph;
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, nodes, index, edges, 0, &graph));
    int mapped;
    CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, nodes, index, edges, &mapped));
    CHECK(mapped == (me < nodes ? me : MPI_UNDEFINED));
    if (me >= nodes) {
        CHECK(graph == MPI_COMM_NULL);
        return;
    }
    int status, nn, ne;
    CHECK_OK(MPI_Topo_test(graph, &status));
    CHECK(status == MPI_GRAPH);
    CHECK_OK(MPI_Graphdims_get(graph, &nn, &ne));
    CHECK(nn == nodes && ne == e);
    int gi[64], ge[128];
    CHECK_OK(MPI_Graph_get(graph, 64, 128, gi, ge));
    for (int i = 0; i < nodes; i++)
        CHECK(gi[i] == index[i]);
    for (int i = 0; i < e; i++)
        CHECK(ge[i] == edges[i]);
    for (int r = 0; r < nodes; r++) {
        int count, nb[2] = {-5, -5};
        CHECK_OK(MPI_Graph_neighbors_count(graph, r, &count));
        CHECK(count == (r % 2 == 0 ? 2 : 1));
        CHECK_OK(MPI_Graph_neighbors(graph, r, 2, nb));
        CHECK(nb[0] == (r + 1) % nodes);
        CHECK(nb[1] == (count == 2 ? (r + nodes - 1) % nodes : -5));
    }
    CHECK_OK(MPI_Comm_free(&graph));
}

/* A weighted ring given adjacently, and an unweighted one: the lists and
 * weights come back in the given order. */
static void dist_graph_adjacent_keeps_lists_and_weights(void)
{
    int n = world_size(), me = world_rank();
    int src[2] = {(me + n - 1) % n, (me + 2) % n}, sw[2] = {10 * me, 10 * me + 1};
    int dst[1] = {(me + 1) % n}, dw[1] = {7 + me};
    MPI_Comm dist;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 1, dst, dw,
                                            MPI_INFO_NULL, 0, &dist));
    int status, in, out, weighted;
    CHECK_OK(MPI_Topo_test(dist, &status));
    CHECK(status == MPI_DIST_GRAPH);
    CHECK_OK(MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted));
    CHECK(in == 2 && out == 1 && weighted);
    int gs[2], gsw[2], gd[1], gdw[1];
    CHECK_OK(MPI_Dist_graph_neighbors(dist, 2, gs, gsw, 1, gd, gdw));
    CHECK(gs[0] == src[0] && gs[1] == src[1] && gsw[0] == sw[0] && gsw[1] == sw[1]);
    CHECK(gd[0] == dst[0] && gdw[0] == dw[0]);
    CHECK_OK(MPI_Comm_free(&dist));
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 0, NULL,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
    CHECK_OK(MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted));
    CHECK(in == 1 && out == 0 && !weighted);
    CHECK_OK(MPI_Dist_graph_neighbors(dist, 1, gs, MPI_UNWEIGHTED, 0, gd, MPI_UNWEIGHTED));
    CHECK(gs[0] == src[0]);
    CHECK_OK(MPI_Comm_free(&dist));
    CHECK(MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
}

/* Rank r gives the edges (r+1) -> r and (r+1) -> r+2 (weights r, r+50):
 * each rank learns its in- and out-edges, in the order of the giving ranks. */
static void dist_graph_create_routes_edges_to_their_ends(void)
{
    int n = world_size(), me = world_rank();
    int src[1] = {(me + 1) % n}, deg[1] = {2}, dst[2] = {me, (me + 2) % n};
    int w[2] = {me, me + 50};
    MPI_Comm dist;
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, dst, w, MPI_INFO_NULL, 0,
                                   &dist));
    int in, out, weighted;
    CHECK_OK(MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted));
    CHECK(in == 2 && out == 2 && weighted);
    int gs[2], gsw[2], gd[2], gdw[2];
    CHECK_OK(MPI_Dist_graph_neighbors(dist, 2, gs, gsw, 2, gd, gdw));
    int prev = (me + n - 1) % n, prev2 = (me + n - 2) % n;
    /* Out-edges: both given by rank me-1. */
    CHECK(gd[0] == prev && gdw[0] == prev && gd[1] == (me + 1) % n && gdw[1] == prev + 50);
    /* In-edges: from me+1 (given by me), from me-1 (given by me-2). */
    int first = me < prev2 ? 0 : 1;
    CHECK(gs[first] == (me + 1) % n && gsw[first] == me);
    CHECK(gs[1 - first] == prev && gsw[1 - first] == prev2 + 50);
    CHECK_OK(MPI_Comm_free(&dist));
    /* Unweighted, edges given by rank 0 only; source 0 is named twice (the
     * second time with no edge), so n exceeds the size. */
    int all[65], degs[65], ring[65];
    for (int r = 0; r < n; r++)
        all[r] = r, degs[r] = 1, ring[r] = (r + 1) % n;
    all[n] = 0, degs[n] = 0;
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? n + 1 : 0, all, degs, ring,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
    CHECK_OK(MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted);
    CHECK_OK(MPI_Dist_graph_neighbors(dist, 1, gs, MPI_UNWEIGHTED, 1, gd, MPI_UNWEIGHTED));
    CHECK(gs[0] == prev && gd[0] == (me + 1) % n);
    CHECK_OK(MPI_Comm_free(&dist));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int n = world_size();
    int dims[2] = {n, 1}, periods[2] = {0, 0}, big[2] = {n + 1, 1}, zero[2] = {0, 1};
    MPI_Comm cart;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart) == MPI_ERR_DIMS);
    cart = MPI_COMM_WORLD;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &cart) == MPI_ERR_DIMS);
    CHECK(cart == MPI_COMM_NULL);   /* a failed create leaves no handle behind */
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &cart) == MPI_ERR_DIMS);
    CHECK(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &cart) == MPI_ERR_COMM);
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, NULL) == MPI_ERR_ARG);
    int nd, c[2], r, s, d;
    CHECK(MPI_Cartdim_get(MPI_COMM_WORLD, &nd) == MPI_ERR_TOPOLOGY);
    CHECK(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c) == MPI_ERR_TOPOLOGY);
    CHECK(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d) == MPI_ERR_TOPOLOGY);
    int dd[2] = {0, 0};
    CHECK(MPI_Dims_create(0, 2, dd) == MPI_ERR_ARG);
    CHECK(MPI_Dims_create(4, -1, dd) == MPI_ERR_DIMS);
    int given[2] = {3, 0};
    CHECK(MPI_Dims_create(4, 2, given) == MPI_ERR_DIMS);
    int neg[2] = {-1, 0};
    CHECK(MPI_Dims_create(4, 2, neg) == MPI_ERR_DIMS);

    int gidx[2] = {1, 2}, gbad[2] = {0, 5}, gdown[2] = {2, 1};
    MPI_Comm graph;
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, n + 1, gidx, gbad, 0, &graph) == MPI_ERR_ARG);
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, 2, gidx, gbad, 0, &graph) == MPI_ERR_ARG);
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, 2, gdown, gbad, 0, &graph) == MPI_ERR_ARG);
    CHECK(MPI_Graphdims_get(MPI_COMM_WORLD, &nd, &r) == MPI_ERR_TOPOLOGY);
    CHECK(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &r) == MPI_ERR_TOPOLOGY);
    int dsrc[1] = {n}, dws[1] = {1};
    MPI_Comm dist;
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, dsrc, dws, 0, NULL, dws,
                                         MPI_INFO_NULL, 0, &dist) == MPI_ERR_RANK);
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, dsrc, dws, 0, NULL, dws,
                                         MPI_INFO_NULL, 0, &dist) == MPI_ERR_ARG);
    dsrc[0] = 0;
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, dsrc, MPI_WEIGHTS_EMPTY, 0,
                                         NULL, dws, MPI_INFO_NULL, 0, &dist) == MPI_ERR_ARG);
    CHECK(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &r, &s, &d) == MPI_ERR_TOPOLOGY);
    int negdeg[1] = {-1}, one[1] = {1}, far[1] = {n};
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, dsrc, negdeg, dsrc, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dist) == MPI_ERR_ARG);
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, dsrc, one, far, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dist) == MPI_ERR_RANK);
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, dsrc, one, dsrc, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dist) == MPI_ERR_ARG);
    int gok[2] = {1, 0};
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, 2, gidx, gok, 0, &graph));
    if (graph != MPI_COMM_NULL) {
        CHECK_OK(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
        CHECK(MPI_Graph_neighbors_count(graph, 2, &r) == MPI_ERR_RANK);
        CHECK(MPI_Graph_neighbors(graph, -1, 2, c) == MPI_ERR_RANK);
        CHECK(MPI_Cart_shift(graph, 0, 1, &s, &d) == MPI_ERR_TOPOLOGY);
        CHECK_OK(MPI_Comm_free(&graph));
    }
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    CHECK(MPI_Cart_coords(cart, n, 2, c) == MPI_ERR_RANK);
    CHECK(MPI_Cart_coords(cart, -1, 2, c) == MPI_ERR_RANK);
    CHECK(MPI_Cart_coords(cart, 0, 1, c) == MPI_ERR_ARG);
    int out[2] = {n, 0};
    CHECK(MPI_Cart_rank(cart, out, &r) == MPI_ERR_ARG);
    out[0] = -1;
    CHECK(MPI_Cart_rank(cart, out, &r) == MPI_ERR_ARG);
    CHECK(MPI_Cart_shift(cart, 2, 1, &s, &d) == MPI_ERR_ARG);
    CHECK(MPI_Cart_shift(cart, -1, 1, &s, &d) == MPI_ERR_ARG);
    CHECK(MPI_Cart_get(cart, 1, dd, periods, c) == MPI_ERR_ARG);
    CHECK(MPI_Topo_test(cart, NULL) == MPI_ERR_ARG);
    /* Nothing was lost: the grid still works. */
    CHECK_OK(MPI_Cart_coords(cart, n - 1, 2, c));
    CHECK(c[0] == n - 1 && c[1] == 0);
    CHECK_OK(MPI_Comm_free(&cart));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The default handler ends the job with one line naming the problem. */
static void no_topology_is_fatal(void)
{
    int nd;
    if (world_rank() == 0)
        MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
}

static const test_case cases[] = {
    {"dims_create_balances_and_keeps_given", dims_create_balances_and_keeps_given},
    {"cart_grids_match_row_major", cart_grids_match_row_major},
    {"cart_sub_keeps_the_chosen_dimensions", cart_sub_keeps_the_chosen_dimensions},
    {"graph_gives_back_its_edges", graph_gives_back_its_edges},
    {"dist_graph_adjacent_keeps_lists_and_weights",
     dist_graph_adjacent_keeps_lists_and_weights},
    {"dist_graph_create_routes_edges_to_their_ends",
     dist_graph_create_routes_edges_to_their_ends},
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
