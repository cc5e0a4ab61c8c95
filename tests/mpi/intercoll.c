/* intercoll.c — collectives on an intercommunicator between the "low"
 * world ranks 0..k-1 and the "high" ones k..n-1 (k = max(1, n/3): groups of
 * different sizes), checked against what each rank must receive, in both
 * directions. Usage: intercoll [nonblocking_]CASE (at least 2 ranks); with
 * the prefix every collective is its I-form followed by MPI_Wait. */
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

/* Whether the cases run the nonblocking forms (MPI_IX, then MPI_Wait):
 * the case name's prefix "nonblocking_" says so. */
static bool nonblocking;

/* MPI_NAME(args), or MPI_INAME(args, &request) and MPI_Wait: the error
 * code of whichever failed. */
#define COLL(NAME, INAME, ...)                                              \
    (nonblocking ? start_and_wait(MPI_##INAME(__VA_ARGS__, &coll_request_)) \
                 : MPI_##NAME(__VA_ARGS__))

static MPI_Request coll_request_ = MPI_REQUEST_NULL;

static int start_and_wait(int started)
{
    if (started != MPI_SUCCESS) {
        CHECK(coll_request_ == MPI_REQUEST_NULL);
        return started;
    }
    int err = MPI_Wait(&coll_request_, MPI_STATUS_IGNORE);
    CHECK(coll_request_ == MPI_REQUEST_NULL);
    return err;
}

typedef struct side {
    MPI_Comm inter, half;
    int group;            /* 0: low, 1: high */
    int rank, size, remote_size;
} side;

static side make_side(void)
{
    int me, n;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int k = n / 3 > 0 ? n / 3 : 1;
    side s = {.group = me >= k};
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, s.group, me, &s.half));
    CHECK_OK(MPI_Intercomm_create(s.half, 0, MPI_COMM_WORLD, s.group ? 0 : k, 11, &s.inter));
    CHECK_OK(MPI_Comm_rank(s.inter, &s.rank));
    CHECK_OK(MPI_Comm_size(s.inter, &s.size));
    CHECK_OK(MPI_Comm_remote_size(s.inter, &s.remote_size));
    return s;
}

static void free_side(side *s)
{
    CHECK_OK(MPI_Comm_free(&s->inter));
    CHECK_OK(MPI_Comm_free(&s->half));
}

/* Element i of what rank r of group g contributes. */
static int val(int g, int r, int i)
{
    return g * 1000000 + r * 1000 + i;
}

/* The root of a rooted operation from group `from`: its last rank. Returns
 * the root argument this rank passes. */
static int root_arg(const side *s, int from)
{
    if (s->group == from)
        return s->rank == s->size - 1 ? MPI_ROOT : MPI_PROC_NULL;
    return s->remote_size - 1;
}

static void barrier_waits_for_both_groups(void)
{
    side s = make_side();
    /* The high group arrives late; nobody of the low group may leave
     * before the last of them arrived. */
    if (s.group == 1)
        usleep(20000);
    double arrive = MPI_Wtime();
    CHECK_OK(COLL(Barrier, Ibarrier, s.inter));
    double leave = MPI_Wtime();
    double last_arrival, first_leave;
    CHECK_OK(COLL(Allreduce, Iallreduce, &arrive, &last_arrival, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK_OK(COLL(Allreduce, Iallreduce, &leave, &first_leave, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK(first_leave >= last_arrival);
    for (int i = 0; i < 50; i++)
        CHECK_OK(COLL(Barrier, Ibarrier, s.inter));
    free_side(&s);
}

static void bcast_reaches_the_other_group(void)
{
    side s = make_side();
    for (int from = 0; from < 2; from++) {
        int root = root_arg(&s, from);
        int buf[40];
        for (int i = 0; i < 40; i++)
            buf[i] = root == MPI_ROOT ? val(from, s.rank, i) : -1;
        CHECK_OK(COLL(Bcast, Ibcast, buf, 40, MPI_INT, root, s.inter));
        for (int i = 0; i < 40; i++) {
            if (root == MPI_PROC_NULL)
                CHECK(buf[i] == -1);   /* untouched */
            else
                CHECK(buf[i] == val(from, s.group == from ? s.rank : s.remote_size - 1, i));
        }
    }
    /* The receivers take it as a strided type (every other int). */
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(10, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    int root = root_arg(&s, 0), buf[20];
    for (int i = 0; i < 20; i++)
        buf[i] = root == MPI_ROOT ? i * 7 : -1;
    if (root == MPI_ROOT)
        CHECK_OK(COLL(Bcast, Ibcast, buf, 10, MPI_INT, root, s.inter));
    else
        CHECK_OK(COLL(Bcast, Ibcast, buf, 1, every_other, root, s.inter));
    if (s.group == 1)
        for (int i = 0; i < 20; i++)
            CHECK(buf[i] == (i % 2 ? -1 : (i / 2) * 7));
    CHECK_OK(MPI_Type_free(&every_other));
    free_side(&s);
}

static void gather_and_scatter_cross_groups(void)
{
    side s = make_side();
    enum { C = 3 };
    for (int from = 0; from < 2; from++) {
        /* Gather: the other group's ranks send to the root of `from`. */
        int root = root_arg(&s, from);
        int mine[C], *all = malloc(sizeof(int) * C * (size_t)s.remote_size);
        for (int i = 0; i < C; i++)
            mine[i] = val(s.group, s.rank, i);
        CHECK_OK(COLL(Gather, Igather, mine, C, MPI_INT, all, C, MPI_INT, root, s.inter));
        if (root == MPI_ROOT)
            for (int r = 0; r < s.remote_size; r++)
                for (int i = 0; i < C; i++)
                    CHECK(all[r * C + i] == val(1 - s.group, r, i));
        /* Gatherv: remote rank r sends r % 3 ints, placed in reverse order. */
        int *counts = malloc(sizeof(int) * (size_t)s.remote_size);
        int *displs = malloc(sizeof(int) * (size_t)s.remote_size);
        int total = 0;
        for (int r = s.remote_size - 1; r >= 0; r--) {
            counts[r] = r % 3;
            displs[r] = total;
            total += counts[r];
        }
        int *v = malloc(sizeof(int) * (size_t)(total + 1));
        CHECK_OK(COLL(Gatherv, Igatherv, mine, s.rank % 3, MPI_INT, v, counts, displs, MPI_INT, root,
                             s.inter));
        if (root == MPI_ROOT)
            for (int r = 0; r < s.remote_size; r++)
                for (int i = 0; i < counts[r]; i++)
                    CHECK(v[displs[r] + i] == val(1 - s.group, r, i));
        /* Scatter and Scatterv back again. */
        int got[C] = {-1, -1, -1};
        for (int r = 0; root == MPI_ROOT && r < s.remote_size; r++)
            for (int i = 0; i < C; i++)
                all[r * C + i] = val(9, r, i);
        CHECK_OK(COLL(Scatter, Iscatter, all, C, MPI_INT, got, C, MPI_INT, root, s.inter));
        if (s.group != from)
            for (int i = 0; i < C; i++)
                CHECK(got[i] == val(9, s.rank, i));
        for (int r = 0; root == MPI_ROOT && r < s.remote_size; r++)
            for (int i = 0; i < counts[r]; i++)
                v[displs[r] + i] = val(8, r, i);
        memset(got, 0xff, sizeof got);
        CHECK_OK(COLL(Scatterv, Iscatterv, v, counts, displs, MPI_INT, got, s.rank % 3, MPI_INT, root,
                              s.inter));
        if (s.group != from)
            for (int i = 0; i < C; i++)
                CHECK(got[i] == (i < s.rank % 3 ? val(8, s.rank, i) : -1));
        free(all);
        free(counts);
        free(displs);
        free(v);
    }
    free_side(&s);
}

static void allgather_brings_the_remote_group(void)
{
    side s = make_side();
    int n = s.remote_size;
    int mine[2] = {val(s.group, s.rank, 0), val(s.group, s.rank, 1)};
    int *all = malloc(sizeof(int) * 2 * (size_t)n);
    CHECK_OK(COLL(Allgather, Iallgather, mine, 2, MPI_INT, all, 2, MPI_INT, s.inter));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 2; i++)
            CHECK(all[2 * r + i] == val(1 - s.group, r, i));
    /* Allgatherv: remote rank r contributes r % 2 + 1 ints, stored with a
     * one-int gap after each block. */
    int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    int at = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r % 2 + 1;
        displs[r] = at;
        at += counts[r] + 1;
    }
    int *v = malloc(sizeof(int) * (size_t)at);
    for (int i = 0; i < at; i++)
        v[i] = -5;
    CHECK_OK(COLL(Allgatherv, Iallgatherv, mine, s.rank % 2 + 1, MPI_INT, v, counts, displs, MPI_INT,
                            s.inter));
    for (int r = 0; r < n; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(v[displs[r] + i] == val(1 - s.group, r, i));
        CHECK(v[displs[r] + counts[r]] == -5);
    }
    free(all);
    free(counts);
    free(displs);
    free(v);
    free_side(&s);
}

static void alltoall_pairs_every_rank_across(void)
{
    side s = make_side();
    int n = s.remote_size;
    int *out = malloc(sizeof(int) * 2 * (size_t)n), *in = malloc(sizeof(int) * 2 * (size_t)n);
    /* Block r is for remote rank r: it names sender and receiver. */
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 2; i++)
            out[2 * r + i] = val(s.group, s.rank, r * 2 + i);
    CHECK_OK(COLL(Alltoall, Ialltoall, out, 2, MPI_INT, in, 2, MPI_INT, s.inter));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 2; i++)
            CHECK(in[2 * r + i] == val(1 - s.group, r, s.rank * 2 + i));
    /* Alltoallv: to remote rank r go (my rank + r) % 3 ints. */
    /* (n is at least 1; the + 1 keeps gcc from assuming empty arrays.) */
    size_t cap = (size_t)n + 1;
    int *sc = calloc(cap, sizeof(int)), *sd = calloc(cap, sizeof(int));
    int *rc = calloc(cap, sizeof(int)), *rd = calloc(cap, sizeof(int));
    int *sv = malloc(sizeof(int) * 3 * (size_t)n), *rv = malloc(sizeof(int) * 3 * (size_t)n);
    for (int r = 0; r < n; r++) {
        sc[r] = (s.rank + r) % 3;
        sd[r] = 3 * r;
        rc[r] = (r + s.rank) % 3;
        rd[r] = 3 * (n - 1 - r);   /* reversed placement */
        for (int i = 0; i < 3; i++) {
            sv[3 * r + i] = val(s.group, s.rank, 10 * r + i);
            rv[3 * r + i] = -1;
        }
    }
    CHECK_OK(COLL(Alltoallv, Ialltoallv, sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, s.inter));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 3; i++)
            CHECK(rv[rd[r] + i] == (i < rc[r] ? val(1 - s.group, r, 10 * s.rank + i) : -1));
    /* Alltoallw: the same exchange with byte displacements and a type per
     * peer: what goes to an odd remote rank travels as bytes, so an odd
     * rank receives bytes from everyone. */
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)n);
    int *rcw = malloc(sizeof(int) * (size_t)n), isz = (int)sizeof(int);
    for (int r = 0; r < n; r++) {
        st[r] = r % 2 ? MPI_BYTE : MPI_INT;
        sc[r] *= r % 2 ? isz : 1;
        rt[r] = s.rank % 2 ? MPI_BYTE : MPI_INT;
        rcw[r] = rc[r] * (s.rank % 2 ? isz : 1);
        sd[r] *= isz;
        rd[r] *= isz;
        for (int i = 0; i < 3; i++)
            rv[3 * r + i] = -1;
    }
    CHECK_OK(COLL(Alltoallw, Ialltoallw, sv, sc, sd, st, rv, rcw, rd, rt, s.inter));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 3; i++)
            CHECK(rv[rd[r] / isz + i] ==
                  (i < rc[r] ? val(1 - s.group, r, 10 * s.rank + i) : -1));
    free(rcw);
    free(out), free(in), free(sc), free(sd), free(rc), free(rd), free(sv), free(rv);
    free(st), free(rt);
    free_side(&s);
}

/* 2x2 matrices of ints mod 1009, multiplied: associative, not commutative. */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *type)
{
    (void)type;
    int *in = in_, *io = inout_;
    for (int k = 0; k < *len; k++, in += 4, io += 4) {
        int r[4] = {(in[0] * io[0] + in[1] * io[2]) % 1009, (in[0] * io[1] + in[1] * io[3]) % 1009,
                    (in[2] * io[0] + in[3] * io[2]) % 1009, (in[2] * io[1] + in[3] * io[3]) % 1009};
        memcpy(io, r, sizeof r);
    }
}

static void matrix_of(int g, int r, int m[4])
{
    m[0] = 1 + g;
    m[1] = r + 2;
    m[2] = 3 * r % 7;
    m[3] = 1;
}

static void reductions_combine_the_other_group(void)
{
    side s = make_side();
    enum { C = 5 };
    for (int from = 0; from < 2; from++) {
        int root = root_arg(&s, from);
        int mine[C], got[C];
        for (int i = 0; i < C; i++) {
            mine[i] = val(s.group, s.rank, i);
            got[i] = -1;
        }
        CHECK_OK(COLL(Reduce, Ireduce, mine, got, C, MPI_INT, MPI_SUM, root, s.inter));
        if (root == MPI_ROOT)
            for (int i = 0; i < C; i++) {
                int want = 0;
                for (int r = 0; r < s.remote_size; r++)
                    want += val(1 - s.group, r, i);
                CHECK(got[i] == want);
            }
        else
            for (int i = 0; i < C; i++)
                CHECK(got[i] == -1);
    }
    int mine[C], got[C];
    for (int i = 0; i < C; i++)
        mine[i] = val(s.group, s.rank, i);
    CHECK_OK(COLL(Allreduce, Iallreduce, mine, got, C, MPI_INT, MPI_MAX, s.inter));
    for (int i = 0; i < C; i++)
        CHECK(got[i] == val(1 - s.group, s.remote_size - 1, i));
    /* A non-commutative user op folds the other group in its rank order. */
    MPI_Op op;
    MPI_Datatype mat;
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    int m[4], prod[4], want[4] = {1, 0, 0, 1};
    matrix_of(s.group, s.rank, m);
    CHECK_OK(COLL(Allreduce, Iallreduce, m, prod, 1, mat, op, s.inter));
    for (int r = s.remote_size - 1; r >= 0; r--) {   /* want = x0 x1 ... x(n-1) */
        int x[4], one = 1;
        matrix_of(1 - s.group, r, x);
        matmul(x, want, &one, &mat);
    }
    CHECK(memcmp(prod, want, sizeof want) == 0);
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
    free_side(&s);
}

/* Reduce_scatter: both groups' counts add up to the same total T; each
 * group gets the other's sum, split by its own counts. */
static void reduce_scatter_splits_the_other_sum(void)
{
    side s = make_side();
    enum { T = 24 };
    int *counts = malloc(sizeof(int) * (size_t)s.size);
    int left = T;
    for (int r = 0; r < s.size; r++) {
        counts[r] = r == s.size - 1 ? left : T / s.size + (r % 2);
        if (counts[r] > left)
            counts[r] = left;
        left -= counts[r];
    }
    int first = 0;
    for (int r = 0; r < s.rank; r++)
        first += counts[r];
    int in[T], got[T];
    for (int i = 0; i < T; i++) {
        in[i] = val(s.group, s.rank, i);
        got[i] = -1;
    }
    CHECK_OK(COLL(Reduce_scatter, Ireduce_scatter, in, got, counts, MPI_INT, MPI_SUM, s.inter));
    for (int i = 0; i < T; i++) {
        int want = 0;
        for (int r = 0; r < s.remote_size; r++)
            want += val(1 - s.group, r, first + i);
        CHECK(got[i] == (i < counts[s.rank] ? want : -1));
    }
    free(counts);
    free_side(&s);

    /* Reduce_scatter_block: blocks of b with n_low * b_low == n_high * b_high:
     * use the world as one intercommunicator half/half when n is even. */
    int n;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (n % 2)
        return;
    int me;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_Comm half, inter;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 12, &inter));
    int hr, hs;
    CHECK_OK(MPI_Comm_rank(half, &hr));
    CHECK_OK(MPI_Comm_size(half, &hs));
    int *vec = malloc(sizeof(int) * 2 * (size_t)hs), out[2] = {-1, -1};
    for (int i = 0; i < 2 * hs; i++)
        vec[i] = val(me % 2, hr, i);
    CHECK_OK(COLL(Reduce_scatter_block, Ireduce_scatter_block, vec, out, 2, MPI_INT, MPI_SUM, inter));
    for (int i = 0; i < 2; i++) {
        int want = 0;
        for (int r = 0; r < hs; r++)
            want += val(1 - me % 2, r, 2 * hr + i);
        CHECK(out[i] == want);
    }
    free(vec);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

static void bad_arguments_are_refused(void)
{
    side s = make_side();
    CHECK_OK(MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_RETURN));
    int buf[4] = {0}, cls;
    /* An intracommunicator root number is not a root here. */
    CHECK(COLL(Bcast, Ibcast, buf, 4, MPI_INT, s.remote_size, s.inter) != MPI_SUCCESS);
    CHECK_OK(MPI_Error_class(COLL(Bcast, Ibcast, buf, 4, MPI_INT, -7, s.inter), &cls));
    CHECK(cls == MPI_ERR_ROOT);
    CHECK_OK(MPI_Error_class(COLL(Allreduce, Iallreduce, MPI_IN_PLACE, buf, 4, MPI_INT, MPI_SUM, s.inter),
                             &cls));
    CHECK(cls == MPI_ERR_BUFFER);
    CHECK_OK(MPI_Error_class(COLL(Allgather, Iallgather, buf, -1, MPI_INT, buf, 1, MPI_INT, s.inter), &cls));
    CHECK(cls == MPI_ERR_COUNT);
    CHECK_OK(MPI_Error_class(COLL(Reduce, Ireduce, buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, MPI_ROOT,
                                        s.inter), &cls));
    CHECK(cls == MPI_ERR_OP);
    CHECK_OK(MPI_Error_class(COLL(Scan, Iscan, buf, buf + 1, 1, MPI_INT, MPI_SUM, s.inter), &cls));
    CHECK(cls == MPI_ERR_COMM);
    CHECK_OK(MPI_Error_class(COLL(Gatherv, Igatherv, buf, 1, MPI_INT, buf, NULL, NULL, MPI_INT,
                                         s.rank == 0 ? MPI_ROOT : MPI_PROC_NULL, s.inter),
                             &cls));
    CHECK(cls == (s.rank == 0 ? MPI_ERR_ARG : MPI_SUCCESS));
    /* Nothing was lost: the intercommunicator still works. */
    int x = s.rank, sum;
    CHECK_OK(COLL(Allreduce, Iallreduce, &x, &sum, 1, MPI_INT, MPI_SUM, s.inter));
    CHECK(sum == s.remote_size * (s.remote_size - 1) / 2);
    free_side(&s);
}

static void fatal_root_names_the_call(void)
{
    side s = make_side();
    int buf = 0;
    if (s.group == 1 && s.rank == 0)
        COLL(Bcast, Ibcast, &buf, 1, MPI_INT, 99, s.inter);   /* ends the job */
    CHECK_OK(COLL(Barrier, Ibarrier, MPI_COMM_WORLD));
    free_side(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const test_case cases[] = {
        {"barrier_waits_for_both_groups", barrier_waits_for_both_groups},
        {"bcast_reaches_the_other_group", bcast_reaches_the_other_group},
        {"gather_and_scatter_cross_groups", gather_and_scatter_cross_groups},
        {"allgather_brings_the_remote_group", allgather_brings_the_remote_group},
        {"alltoall_pairs_every_rank_across", alltoall_pairs_every_rank_across},
        {"reductions_combine_the_other_group", reductions_combine_the_other_group},
        {"reduce_scatter_splits_the_other_sum", reduce_scatter_splits_the_other_sum},
        {"bad_arguments_are_refused", bad_arguments_are_refused},
        {"fatal_root_names_the_call", fatal_root_names_the_call},
    };
    static const char prefix[] = "nonblocking_";
    if (argc > 1 && strncmp(argv[1], prefix, sizeof prefix - 1) == 0) {
        nonblocking = true;
        argv[1] += sizeof prefix - 1;
    }
    int rc = run_test_case(argc, argv, cases, sizeof cases / sizeof cases[0]);
    MPI_Finalize();
    return rc;
}
