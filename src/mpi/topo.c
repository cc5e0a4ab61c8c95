/*
 * topo.c — Cartesian virtual topologies, MPI_Dims_create and MPI_Topo_test
 * (MPI 3.1 chapter 7). A Cartesian communicator is a split of the parent
 * (ranks beyond the grid get MPI_COMM_NULL) carrying a myr_topo; reorder
 * is ignored, so grid rank = parent rank. Ranks are row-major.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

static int check_cart_comm(const char *call, MPI_Comm comm)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    if (!comm->topo || comm->topo->kind != MYR_TOPO_CART)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no Cartesian topology");
    return MPI_SUCCESS;
}

static int check_ptr(const char *call, MPI_Comm comm, const void *p, const char *what)
{
    if (!p)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    (void)reorder;   /* ignored: the grid keeps the parent's rank order */
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) || (err = check_ptr(call, comm, comm_cart, "comm_cart")))
        return err;
    *comm_cart = MPI_COMM_NULL;   /* what an erroneous call leaves there */
    if (ndims < 0)
        return myr_mpi_error(comm, MPI_ERR_DIMS, call, "invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && ((err = check_ptr(call, comm, dims, "dims")) ||
                      (err = check_ptr(call, comm, periods, "periods"))))
        return err;
    long cells = 1;
    int size = myr_comm_size(comm);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "invalid dims[%d] = %d (must be > 0)", i, dims[i]);
        cells *= dims[i];
        if (cells > size)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "grid of dims has more cells than the %d ranks of comm", size);
    }
    myr_topo *t = myr_topo_new(MYR_TOPO_CART, 2 * (size_t)ndims);
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    t->ndims = ndims;
    t->dims = t->data;
    t->periods = t->data + ndims;
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    int me = myr_comm_rank(comm, self);
    MPI_Comm made = MPI_COMM_NULL;
    err = PMPI_Comm_split(comm, me < cells ? 0 : MPI_UNDEFINED, me, &made);
    if (err != MPI_SUCCESS) {
        myr_topo_release(t);
        return err;
    }
    if (made != MPI_COMM_NULL)
        made->topo = t;
    else
        myr_topo_release(t);
    *comm_cart = made;
    return MPI_SUCCESS;
}
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart) MYR_PMPI(Cart_create);

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)) || (err = check_ptr(call, comm, ndims, "ndims")))
        return err;
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}
int MPI_Cartdim_get(MPI_Comm comm, int *ndims) MYR_PMPI(Cartdim_get);

static void rank_to_coords(const myr_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char call[] = "MPI_Cart_get";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_cart_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    if (maxdims < t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxdims %d (must be >= ndims %d)", maxdims, t->ndims);
    if (t->ndims > 0 && ((err = check_ptr(call, comm, dims, "dims")) ||
                         (err = check_ptr(call, comm, periods, "periods")) ||
                         (err = check_ptr(call, comm, coords, "coords"))))
        return err;
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    if (t->ndims > 0)
        rank_to_coords(t, myr_comm_rank(comm, self), coords);
    return MPI_SUCCESS;
}
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
    MYR_PMPI(Cart_get);

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    int size = myr_comm_size(comm);
    if (rank < 0 || rank >= size)
        return myr_mpi_error(comm, MPI_ERR_RANK, call,
                             "invalid rank %d (communicator size %d)", rank, size);
    if (maxdims < t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxdims %d (must be >= ndims %d)", maxdims, t->ndims);
    if (t->ndims > 0 && (err = check_ptr(call, comm, coords, "coords")))
        return err;
    rank_to_coords(t, rank, coords);
    return MPI_SUCCESS;
}
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) MYR_PMPI(Cart_coords);

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_cart_comm(call, comm)) || (err = check_ptr(call, comm, rank, "rank")))
        return err;
    const myr_topo *t = comm->topo;
    if (t->ndims > 0 && (err = check_ptr(call, comm, coords, "coords")))
        return err;
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (t->periods[i])
            c = ((c % t->dims[i]) + t->dims[i]) % t->dims[i];
        else if (c < 0 || c >= t->dims[i])
            return myr_mpi_error(comm, MPI_ERR_ARG, call,
                                 "invalid coords[%d] = %d (non-periodic dimension of size %d)",
                                 i, coords[i], t->dims[i]);
        r = r * t->dims[i] + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) MYR_PMPI(Cart_rank);

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_cart_comm(call, comm)) ||
        (err = check_ptr(call, comm, rank_source, "rank_source")) ||
        (err = check_ptr(call, comm, rank_dest, "rank_dest")))
        return err;
    const myr_topo *t = comm->topo;
    if (direction < 0 || direction >= t->ndims)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid direction %d (must be in [0, %d))", direction, t->ndims);
    int coords[t->ndims];
    rank_to_coords(t, myr_comm_rank(comm, self), coords);
    int here = coords[direction], n = t->dims[direction];
    int ends[2];
    for (int k = 0; k < 2; k++) {
        long c = here + (k ? (long)disp : -(long)disp);
        if (t->periods[direction])
            c = ((c % n) + n) % n;
        else if (c < 0 || c >= n) {
            ends[k] = MPI_PROC_NULL;
            continue;
        }
        int r = 0;
        for (int i = 0; i < t->ndims; i++)
            r = r * t->dims[i] + (i == direction ? (int)c : coords[i]);
        ends[k] = r;
    }
    *rank_source = ends[0];
    *rank_dest = ends[1];
    return MPI_SUCCESS;
}
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
    MYR_PMPI(Cart_shift);

/* ---- MPI_Dims_create ------------------------------------------------------
 *
 * The free entries get the non-increasing factorisation of nnodes / (the
 * product of the given ones) that is most balanced: the smallest spread
 * (largest minus smallest factor); among those, the largest smallest
 * factor, then the largest second smallest, and so on (MPICH's choice,
 * which its tests check decomposition by decomposition). A depth-first
 * search over the divisors, pruned by the spread found so far. */

typedef struct dims_search {
    int k;              /* factors to find */
    int ndiv;
    const int *div;     /* the divisors of the whole product, ascending */
    int *cur, *best;
    bool found;
} dims_search;

/* Whether f^k >= n. */
static bool power_reaches(long long f, int k, long long n)
{
    long long p = 1;
    for (int i = 0; i < k; i++)
        if ((p *= f) >= n)
            return true;
    return p >= n;
}

/* The largest r with r^k <= n. */
static int root_floor(int n, int k)
{
    int r = 1;
    while (!power_reaches(r + 1, k, (long long)n + 1))
        r++;
    return r;
}

static bool dims_better(const int *a, const int *b, int k)
{
    int sa = a[0] - a[k - 1], sb = b[0] - b[k - 1];
    if (sa != sb)
        return sa < sb;
    for (int i = k - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return false;
}

/* Factors depth.. of cur: n split into k - depth factors, each <= most. */
static void dims_search_from(dims_search *s, int depth, int n, int most)
{
    int left = s->k - depth;
    if (left == 1) {
        if (n > most)
            return;
        s->cur[depth] = n;
        if (!s->found || dims_better(s->cur, s->best, s->k)) {
            memcpy(s->best, s->cur, (size_t)s->k * sizeof *s->cur);
            s->found = true;
        }
        return;
    }
    /* The smallest factor is at most the left-th root of n. */
    int smallest_at_most = root_floor(n, left);
    for (int d = s->ndiv - 1; d >= 0; d--) {
        int f = s->div[d];
        if (f > most || n % f)
            continue;
        if (!power_reaches(f, left, n))
            break;   /* smaller ones cannot reach n either */
        int top = depth ? s->cur[0] : f;
        if (s->found && top - smallest_at_most > s->best[0] - s->best[s->k - 1])
            continue;   /* cannot beat the spread found */
        s->cur[depth] = f;
        dims_search_from(s, depth + 1, n / f, f);
    }
}

/* The best factorisation of n (>= 1) into k (>= 1) factors, into out[]
 * (non-increasing). false when out of memory. */
static bool dims_balance(int n, int k, int *out)
{
    int cap = 64, ndiv = 0;
    int *div = malloc((size_t)cap * sizeof *div);
    int *cur = malloc((size_t)k * sizeof *cur);
    bool ok = div && cur;
    for (long long d = 1; ok && d * d <= n; d++) {
        if (n % d)
            continue;
        if (ndiv + 2 > cap) {
            int *grown = realloc(div, (size_t)(cap *= 2) * sizeof *div);
            if (!grown) {
                ok = false;
                break;
            }
            div = grown;
        }
        div[ndiv++] = (int)d;
        if (d * d != n)
            div[ndiv++] = (int)(n / d);
    }
    if (ok) {
        /* Ascending (the pairs came in as small, large). */
        for (int i = 1; i < ndiv; i++)
            for (int j = i; j > 0 && div[j] < div[j - 1]; j--) {
                int x = div[j];
                div[j] = div[j - 1];
                div[j - 1] = x;
            }
        dims_search s = {.k = k, .ndiv = ndiv, .div = div, .cur = cur, .best = out};
        dims_search_from(&s, 0, n, n);
        ok = s.found;
    }
    free(div);
    free(cur);
    return ok;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (nnodes <= 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "invalid nnodes %d (must be > 0)", nnodes);
    if (ndims < 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                             "invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && (err = check_ptr(call, MPI_COMM_WORLD, dims, "dims")))
        return err;
    int rest = nnodes, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "invalid dims[%d] = %d (must be >= 0)", i, dims[i]);
        if (dims[i] == 0) {
            nfree++;
            continue;
        }
        if (rest % dims[i])
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "nnodes %d is not divisible by the product of the "
                                 "nonzero dims", nnodes);
        rest /= dims[i];
    }
    if (nfree == 0) {
        if (rest != 1)
            return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call,
                                 "the nonzero dims do not multiply to nnodes %d", nnodes);
        return MPI_SUCCESS;
    }
    int *got = malloc((size_t)nfree * sizeof *got);
    if (!got || !dims_balance(rest, nfree, got)) {
        free(got);
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = got[k++];
    free(got);
    return MPI_SUCCESS;
}
int MPI_Dims_create(int nnodes, int ndims, int dims[]) MYR_PMPI(Dims_create);

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = check_ptr(call, comm, status, "status")))
        return err;
    if (comm->kind != MYR_COMM_INTRA || !comm->topo)
        *status = MPI_UNDEFINED;
    else
        *status = comm->topo->kind == MYR_TOPO_CART    ? MPI_CART
                  : comm->topo->kind == MYR_TOPO_GRAPH ? MPI_GRAPH
                                                       : MPI_DIST_GRAPH;
    return MPI_SUCCESS;
}
int MPI_Topo_test(MPI_Comm comm, int *status) MYR_PMPI(Topo_test);

/* Ranks with equal coordinates in the dropped dimensions form one
 * sub-grid; the kept dimensions keep their order. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Cart_sub";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_cart_comm(call, comm)) || (err = check_ptr(call, comm, newcomm, "newcomm")))
        return err;
    const myr_topo *t = comm->topo;
    if (t->ndims > 0 && (err = check_ptr(call, comm, remain_dims, "remain_dims")))
        return err;
    int me = myr_comm_rank(comm, self);
    int coords[t->ndims > 0 ? t->ndims : 1];
    rank_to_coords(t, me, coords);
    int color = 0, kept = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i])
            kept++;
        else
            color = color * t->dims[i] + coords[i];
    }
    myr_topo *sub = myr_topo_new(MYR_TOPO_CART, 2 * (size_t)kept);
    if (!sub)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    sub->ndims = kept;
    sub->dims = sub->data;
    sub->periods = sub->data + kept;
    for (int i = 0, k = 0; i < t->ndims; i++)
        if (remain_dims[i]) {
            sub->dims[k] = t->dims[i];
            sub->periods[k++] = t->periods[i];
        }
    MPI_Comm made = MPI_COMM_NULL;
    if ((err = PMPI_Comm_split(comm, color, me, &made)) != MPI_SUCCESS) {
        myr_topo_release(sub);
        return err;
    }
    made->topo = sub;
    *newcomm = made;
    return MPI_SUCCESS;
}
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) MYR_PMPI(Cart_sub);

/* No reordering: a rank inside the grid keeps its rank. */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char call[] = "MPI_Cart_map";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    (void)periods;
    if ((err = myr_check_intra(call, comm)) || (err = check_ptr(call, comm, newrank, "newrank")))
        return err;
    if (ndims < 0)
        return myr_mpi_error(comm, MPI_ERR_DIMS, call, "invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && (err = check_ptr(call, comm, dims, "dims")))
        return err;
    long cells = 1;
    int size = myr_comm_size(comm);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "invalid dims[%d] = %d (must be > 0)", i, dims[i]);
        cells *= dims[i];
        if (cells > size)
            return myr_mpi_error(comm, MPI_ERR_DIMS, call,
                                 "grid of dims has more cells than the %d ranks of comm", size);
    }
    int me = myr_comm_rank(comm, self);
    *newrank = me < cells ? me : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
    MYR_PMPI(Cart_map);

/* ---- graphs ---------------------------------------------------------------- */

static int check_graph_comm(const char *call, MPI_Comm comm)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    if (!comm->topo || comm->topo->kind != MYR_TOPO_GRAPH)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no graph topology");
    return MPI_SUCCESS;
}

static int check_graph_args(const char *call, MPI_Comm comm, int nnodes, const int index[],
                            const int edges[])
{
    int size = myr_comm_size(comm), err;
    if (nnodes < 0 || nnodes > size)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid nnodes %d (must be in [0, %d])", nnodes, size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if ((err = check_ptr(call, comm, index, "index")))
        return err;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return myr_mpi_error(comm, MPI_ERR_ARG, call,
                                 "invalid index[%d] = %d (must be >= %d, non-decreasing)", i,
                                 index[i], i ? index[i - 1] : 0);
    if (index[nnodes - 1] > 0 && (err = check_ptr(call, comm, edges, "edges")))
        return err;
    for (int e = 0; e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return myr_mpi_error(comm, MPI_ERR_ARG, call,
                                 "invalid edges[%d] = %d (must be in [0, %d))", e, edges[e],
                                 nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    (void)reorder;   /* ignored: the graph keeps the parent's rank order */
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) ||
        (err = check_ptr(call, comm, comm_graph, "comm_graph")) ||
        (err = check_graph_args(call, comm, nnodes, index, edges)))
        return err;
    int nedges = nnodes ? index[nnodes - 1] : 0;
    myr_topo *t = myr_topo_new(MYR_TOPO_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    t->nnodes = nnodes;
    t->index = t->data;
    t->edges = t->data + nnodes;
    if (nnodes)
        memcpy(t->index, index, (size_t)nnodes * sizeof *index);
    if (nedges)
        memcpy(t->edges, edges, (size_t)nedges * sizeof *edges);
    int me = myr_comm_rank(comm, self);
    MPI_Comm made = MPI_COMM_NULL;
    if ((err = PMPI_Comm_split(comm, me < nnodes ? 0 : MPI_UNDEFINED, me, &made))) {
        myr_topo_release(t);
        return err;
    }
    if (made != MPI_COMM_NULL)
        made->topo = t;
    else
        myr_topo_release(t);
    *comm_graph = made;
    return MPI_SUCCESS;
}
int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph) MYR_PMPI(Graph_create);

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_graph_comm(call, comm)) || (err = check_ptr(call, comm, nnodes, "nnodes")) ||
        (err = check_ptr(call, comm, nedges, "nedges")))
        return err;
    const myr_topo *t = comm->topo;
    *nnodes = t->nnodes;
    *nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    return MPI_SUCCESS;
}
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) MYR_PMPI(Graphdims_get);

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char call[] = "MPI_Graph_get";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_graph_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    int nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    if (maxindex < 0 || maxedges < 0)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxindex %d or maxedges %d (must be >= 0)", maxindex,
                             maxedges);
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < nedges ? maxedges : nedges;
    if ((ni > 0 && (err = check_ptr(call, comm, index, "index"))) ||
        (ne > 0 && (err = check_ptr(call, comm, edges, "edges"))))
        return err;
    if (ni)
        memcpy(index, t->index, (size_t)ni * sizeof *index);
    if (ne)
        memcpy(edges, t->edges, (size_t)ne * sizeof *edges);
    return MPI_SUCCESS;
}
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
    MYR_PMPI(Graph_get);

static int check_graph_rank(const char *call, MPI_Comm comm, int rank)
{
    int n = comm->topo->nnodes;
    if (rank < 0 || rank >= n)
        return myr_mpi_error(comm, MPI_ERR_RANK, call,
                             "invalid rank %d (graph of %d nodes)", rank, n);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_graph_comm(call, comm)) || (err = check_graph_rank(call, comm, rank)) ||
        (err = check_ptr(call, comm, nneighbors, "nneighbors")))
        return err;
    const myr_topo *t = comm->topo;
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
    MYR_PMPI(Graph_neighbors_count);

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_graph_comm(call, comm)) || (err = check_graph_rank(call, comm, rank)))
        return err;
    if (maxneighbors < 0)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "invalid maxneighbors %d (must be >= 0)", maxneighbors);
    const myr_topo *t = comm->topo;
    int first = rank ? t->index[rank - 1] : 0, count = t->index[rank] - first;
    if (count > maxneighbors)
        count = maxneighbors;
    if (count > 0 && (err = check_ptr(call, comm, neighbors, "neighbors")))
        return err;
    if (count)
        memcpy(neighbors, t->edges + first, (size_t)count * sizeof *neighbors);
    return MPI_SUCCESS;
}
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
    MYR_PMPI(Graph_neighbors);

/* No reordering: a rank inside the graph keeps its rank. */
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                   int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm)) || (err = check_ptr(call, comm, newrank, "newrank")) ||
        (err = check_graph_args(call, comm, nnodes, index, edges)))
        return err;
    int me = myr_comm_rank(comm, self);
    *newrank = me < nnodes ? me : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
    MYR_PMPI(Graph_map);

/* ---- distributed graphs ---------------------------------------------------- */

/* Distinct sentinels: "no weights" versus "weights, but none here". */
int myr_mpi_unweighted;
int myr_mpi_weights_empty;

static int check_dist_comm(const char *call, MPI_Comm comm)
{
    int err = myr_check_intra(call, comm);
    if (err)
        return err;
    if (!comm->topo || comm->topo->kind != MYR_TOPO_DIST_GRAPH)
        return myr_mpi_error(comm, MPI_ERR_TOPOLOGY, call,
                             "communicator has no distributed graph topology");
    return MPI_SUCCESS;
}

static int check_peers(const char *call, MPI_Comm comm, const char *what, int degree,
                       const int *peers)
{
    int size = myr_comm_size(comm), err;
    if (degree > 0 && (err = check_ptr(call, comm, peers, what)))
        return err;
    for (int i = 0; i < degree; i++)
        if (peers[i] < 0 || peers[i] >= size)
            return myr_mpi_error(comm, MPI_ERR_RANK, call,
                                 "invalid %s[%d] = %d (communicator size %d)", what, i,
                                 peers[i], size);
    return MPI_SUCCESS;
}

static int check_weights(const char *call, MPI_Comm comm, const char *what, int degree,
                         const int *weights)
{
    if (weights == MPI_UNWEIGHTED || degree == 0)
        return MPI_SUCCESS;
    if (!weights || weights == MPI_WEIGHTS_EMPTY)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "%s is %s with %d edges (give the weights or MPI_UNWEIGHTED)",
                             what, weights ? "MPI_WEIGHTS_EMPTY" : "NULL", degree);
    for (int i = 0; i < degree; i++)
        if (weights[i] < 0)
            return myr_mpi_error(comm, MPI_ERR_ARG, call,
                                 "invalid %s[%d] = %d (must be >= 0)", what, i, weights[i]);
    return MPI_SUCCESS;
}

/* A new communicator over comm's ranks in their order, holding this
 * rank's neighbour lists. */
static int attach_dist(const char *call, MPI_Comm comm, myr_rank *self, int indegree,
                       const int *sources, const int *sourceweights, int outdegree,
                       const int *destinations, const int *destweights, bool weighted,
                       MPI_Comm *newcomm)
{
    int err;
    myr_topo *t = myr_topo_new(MYR_TOPO_DIST_GRAPH, 2 * ((size_t)indegree + (size_t)outdegree));
    if (!t)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = t->data;
    t->destinations = t->data + indegree;
    for (int i = 0; i < indegree; i++)
        t->sources[i] = sources[i];
    for (int i = 0; i < outdegree; i++)
        t->destinations[i] = destinations[i];
    if (weighted) {
        t->sourceweights = t->data + indegree + outdegree;
        t->destweights = t->sourceweights + indegree;
        for (int i = 0; i < indegree; i++)
            t->sourceweights[i] = sourceweights ? sourceweights[i] : 1;
        for (int i = 0; i < outdegree; i++)
            t->destweights[i] = destweights ? destweights[i] : 1;
    }
    MPI_Comm made = MPI_COMM_NULL;
    if ((err = PMPI_Comm_split(comm, 0, myr_comm_rank(comm, self), &made))) {
        myr_topo_release(t);
        return err;
    }
    made->topo = t;
    *newcomm = made;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    (void)reorder;   /* ignored: the parent's rank order is kept */
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm_old)) ||
        (err = myr_check_info(call, comm_old, info, true)) ||
        (err = check_ptr(call, comm_old, comm_dist_graph, "comm_dist_graph")))
        return err;
    if (indegree < 0 || outdegree < 0)
        return myr_mpi_error(comm_old, MPI_ERR_ARG, call,
                             "invalid indegree %d or outdegree %d (must be >= 0)", indegree,
                             outdegree);
    if ((err = check_peers(call, comm_old, "sources", indegree, sources)) ||
        (err = check_peers(call, comm_old, "destinations", outdegree, destinations)) ||
        (err = check_weights(call, comm_old, "sourceweights", indegree, sourceweights)) ||
        (err = check_weights(call, comm_old, "destweights", outdegree, destweights)))
        return err;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return myr_mpi_error(comm_old, MPI_ERR_ARG, call,
                             "only one of sourceweights and destweights is MPI_UNWEIGHTED");
    bool weighted = sourceweights != MPI_UNWEIGHTED;
    return attach_dist(call, comm_old, self, indegree, sources,
                       indegree ? sourceweights : NULL, outdegree, destinations,
                       outdegree ? destweights : NULL, weighted, comm_dist_graph);
}
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
    MYR_PMPI(Dist_graph_create_adjacent);

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                    int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_dist_comm(call, comm)) ||
        (err = check_ptr(call, comm, indegree, "indegree")) ||
        (err = check_ptr(call, comm, outdegree, "outdegree")) ||
        (err = check_ptr(call, comm, weighted, "weighted")))
        return err;
    *indegree = comm->topo->indegree;
    *outdegree = comm->topo->outdegree;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                   int *weighted) MYR_PMPI(Dist_graph_neighbors_count);

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[])
{
    static const char call[] = "MPI_Dist_graph_neighbors";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_dist_comm(call, comm)))
        return err;
    const myr_topo *t = comm->topo;
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
        return myr_mpi_error(comm, MPI_ERR_ARG, call,
                             "maxindegree %d or maxoutdegree %d below the degrees %d, %d",
                             maxindegree, maxoutdegree, t->indegree, t->outdegree);
    if ((t->indegree && (err = check_ptr(call, comm, sources, "sources"))) ||
        (t->outdegree && (err = check_ptr(call, comm, destinations, "destinations"))))
        return err;
    for (int i = 0; i < t->indegree; i++)
        sources[i] = t->sources[i];
    for (int i = 0; i < t->outdegree; i++)
        destinations[i] = t->destinations[i];
    if (t->weighted) {
        if (sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < t->indegree; i++)
                sourceweights[i] = t->sourceweights[i];
        if (destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < t->outdegree; i++)
                destweights[i] = t->destweights[i];
    }
    return MPI_SUCCESS;
}
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                             int sourceweights[], int maxoutdegree, int destinations[],
                             int destweights[]) MYR_PMPI(Dist_graph_neighbors);

/* Edges may be given by any rank: each edge goes, as a record {kind, peer,
 * weight}, to its source (an out-edge) and to its destination (an
 * in-edge) through MPI_Alltoall of the counts and MPI_Alltoallv of the
 * records on comm_old. A rank's neighbours come in the order of the
 * giving ranks, then of their lists. */
enum { EDGE_IN, EDGE_OUT, EDGE_INTS = 3 };

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    (void)reorder;   /* ignored: the parent's rank order is kept */
    if (!self)
        return err;
    if ((err = myr_check_intra(call, comm_old)) ||
        (err = myr_check_info(call, comm_old, info, true)) ||
        (err = check_ptr(call, comm_old, comm_dist_graph, "comm_dist_graph")))
        return err;
    int size = myr_comm_size(comm_old);
    /* A source may be named several times, so n may exceed the size. */
    if (n < 0)
        return myr_mpi_error(comm_old, MPI_ERR_ARG, call, "invalid n %d (must be >= 0)", n);
    if ((err = check_peers(call, comm_old, "sources", n, sources)) ||
        (n > 0 && (err = check_ptr(call, comm_old, degrees, "degrees"))))
        return err;
    long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return myr_mpi_error(comm_old, MPI_ERR_ARG, call,
                                 "invalid degrees[%d] = %d (must be >= 0)", i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > (1 << 24))
        return myr_mpi_error(comm_old, MPI_ERR_ARG, call, "too many edges (%ld)", nedges);
    if ((err = check_peers(call, comm_old, "destinations", (int)nedges, destinations)) ||
        (err = check_weights(call, comm_old, "weights", (int)nedges, weights)))
        return err;
    int local_weighted = weights != MPI_UNWEIGHTED, weighted = 0;
    if ((err = PMPI_Allreduce(&local_weighted, &weighted, 1, MPI_INT, MPI_MAX, comm_old)))
        return err;
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    int *records = malloc((2 * (size_t)nedges * EDGE_INTS + 1) * sizeof *records);
    int *recv = NULL;
    if (!counts || !records) {
        free(counts);
        free(records);
        return myr_mpi_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory for the edges");
    }
    int *sdispls = counts + size, *rcounts = counts + 2 * size, *rdispls = counts + 3 * size;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            counts[sources[i]] += EDGE_INTS;
            counts[destinations[e]] += EDGE_INTS;
        }
    for (int r = 1; r < size; r++)
        sdispls[r] = sdispls[r - 1] + counts[r - 1];
    int *fill = calloc((size_t)size, sizeof *fill);
    if (!fill) {
        free(counts);
        free(records);
        return myr_mpi_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory for the edges");
    }
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int w = local_weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
            int *out = records + sdispls[sources[i]] + fill[sources[i]];
            fill[sources[i]] += EDGE_INTS;
            out[0] = EDGE_OUT, out[1] = destinations[e], out[2] = w;
            int *in = records + sdispls[destinations[e]] + fill[destinations[e]];
            fill[destinations[e]] += EDGE_INTS;
            in[0] = EDGE_IN, in[1] = sources[i], in[2] = w;
        }
    free(fill);
    err = PMPI_Alltoall(counts, 1, MPI_INT, rcounts, 1, MPI_INT, comm_old);
    long total = 0;
    for (int r = 0; err == MPI_SUCCESS && r < size; r++) {
        rdispls[r] = (int)total;
        total += rcounts[r];
    }
    if (err == MPI_SUCCESS && !(recv = malloc(((size_t)total + 1) * sizeof *recv)))
        err = myr_mpi_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory for the edges");
    if (err == MPI_SUCCESS)
        err = PMPI_Alltoallv(records, counts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT,
                             comm_old);
    if (err == MPI_SUCCESS) {
        int indegree = 0, outdegree = 0;
        for (long i = 0; i < total; i += EDGE_INTS)
            recv[i] == EDGE_IN ? indegree++ : outdegree++;
        int *lists = malloc(2 * ((size_t)indegree + (size_t)outdegree + 1) * sizeof *lists);
        if (!lists) {
            err = myr_mpi_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory for the edges");
        } else {
            int *src = lists, *dst = lists + indegree;
            int *sw = dst + outdegree, *dw = sw + indegree;
            int ni = 0, no = 0;
            for (long i = 0; i < total; i += EDGE_INTS) {
                if (recv[i] == EDGE_IN) {
                    src[ni] = recv[i + 1];
                    sw[ni++] = recv[i + 2];
                } else {
                    dst[no] = recv[i + 1];
                    dw[no++] = recv[i + 2];
                }
            }
            err = attach_dist(call, comm_old, self, indegree, src, sw, outdegree, dst, dw,
                              weighted != 0, comm_dist_graph);
            free(lists);
        }
    }
    free(recv);
    free(records);
    free(counts);
    return err;
}
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph) MYR_PMPI(Dist_graph_create);
