/* datatype.c — derived datatypes: each constructor's layout and bounds
 * against hand-computed ones, messages between different layouts of the
 * same type signature, counts of what was received, contents, names, and
 * types freed while a request still uses them. Usage: datatype CASE. */
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../check.h"

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static MPI_Datatype commit(MPI_Datatype t)
{
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

/* size, lb, extent, true lb, true extent */
static void check_bounds(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent)
{
    int s;
    MPI_Aint l, e, tl, te;
    MPI_Count sx, lx, ex, tlx, tex;
    CHECK_OK(MPI_Type_size(t, &s));
    CHECK_OK(MPI_Type_get_extent(t, &l, &e));
    CHECK_OK(MPI_Type_get_true_extent(t, &tl, &te));
    CHECK_OK(MPI_Type_size_x(t, &sx));
    CHECK_OK(MPI_Type_get_extent_x(t, &lx, &ex));
    CHECK_OK(MPI_Type_get_true_extent_x(t, &tlx, &tex));
    if (s != size || l != lb || e != extent || tl != true_lb || te != true_extent) {
        fprintf(stderr, "got size %d lb %ld extent %ld true_lb %ld true_extent %ld\n", s,
                (long)l, (long)e, (long)tl, (long)te);
        CHECK(0);
    }
    CHECK(sx == s && lx == l && ex == e && tlx == tl && tex == te);
}

/* Pack `count` elements of t from base (ints numbered 0, 1, ... in the
 * array) and check they come out as the indices `want`, in that order. */
static void check_ints_order(MPI_Datatype t, int count, const int *base, const int *want,
                             int n)
{
    int out[64], pos = 0;
    CHECK(n <= 64);
    CHECK_OK(MPI_Pack(base, count, t, out, (int)sizeof out, &pos, MPI_COMM_WORLD));
    CHECK(pos == n * (int)sizeof(int));
    for (int i = 0; i < n; i++) {
        if (out[i] != want[i])
            fprintf(stderr, "packed[%d] = %d, want %d\n", i, out[i], want[i]);
        CHECK(out[i] == want[i]);
    }
}

static void iota(int *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = i;
}

/* ---- layouts ----------------------------------------------------------- */

static void contiguous_and_vector_layouts(void)
{
    int a[64];
    iota(a, 64);
    MPI_Datatype c;
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &c));
    c = commit(c);
    check_bounds(c, 12, 0, 12, 0, 12);
    check_ints_order(c, 2, a, (int[]){0, 1, 2, 3, 4, 5}, 6);

    MPI_Datatype v;  /* 3 blocks of 2 ints, every 4 ints */
    CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    v = commit(v);
    check_bounds(v, 24, 0, 40, 0, 40);
    /* The second element starts one extent (10 ints) later. */
    check_ints_order(v, 2, a, (int[]){0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}, 12);

    MPI_Datatype neg;  /* a negative stride walks backwards from the buffer */
    CHECK_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &neg));
    neg = commit(neg);
    check_bounds(neg, 12, -16, 20, -16, 20);
    check_ints_order(neg, 1, a + 10, (int[]){10, 8, 6}, 3);

    MPI_Datatype hv;  /* stride in bytes: 3 ints */
    CHECK_OK(MPI_Type_create_hvector(4, 1, 3 * sizeof(int), MPI_INT, &hv));
    hv = commit(hv);
    check_bounds(hv, 16, 0, 40, 0, 40);
    check_ints_order(hv, 1, a, (int[]){0, 3, 6, 9}, 4);

    MPI_Datatype vv;  /* a vector of vectors: 2 x (3 blocks of 2) every 12 ints */
    MPI_Datatype row;
    CHECK_OK(MPI_Type_vector(2, 1, 3, v, &row));
    CHECK_OK(MPI_Type_create_resized(row, 0, 0, &vv));  /* extent 0: overlap */
    CHECK_OK(MPI_Type_free(&row));
    vv = commit(vv);
    check_bounds(vv, 48, 0, 0, 0, 160);
    check_ints_order(vv, 1, a, (int[]){0, 1, 4, 5, 8, 9, 30, 31, 34, 35, 38, 39}, 12);

    MPI_Datatype ts[] = {c, v, neg, hv, vv};
    for (int i = 0; i < 5; i++)
        CHECK_OK(MPI_Type_free(&ts[i]));
    CHECK(ts[0] == MPI_DATATYPE_NULL);
}

static void indexed_layouts_keep_type_map_order(void)
{
    int a[64];
    iota(a, 64);
    MPI_Datatype t;
    /* Blocks in the order given, not sorted by address. */
    CHECK_OK(MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){5, 0, 10}, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 24, 0, 52, 0, 52);
    check_ints_order(t, 1, a, (int[]){5, 6, 0, 10, 11, 12}, 6);
    CHECK_OK(MPI_Type_free(&t));

    CHECK_OK(MPI_Type_create_hindexed(2, (int[]){1, 2},
                                      (MPI_Aint[]){8 * sizeof(int), -2 * (MPI_Aint)sizeof(int)},
                                      MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 12, -8, 44, -8, 44);
    check_ints_order(t, 1, a + 10, (int[]){18, 8, 9}, 3);
    CHECK_OK(MPI_Type_free(&t));

    CHECK_OK(MPI_Type_create_indexed_block(3, 2, (int[]){6, 0, 3}, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 24, 0, 32, 0, 32);
    check_ints_order(t, 1, a, (int[]){6, 7, 0, 1, 3, 4}, 6);
    CHECK_OK(MPI_Type_free(&t));

    CHECK_OK(MPI_Type_create_hindexed_block(2, 3, (MPI_Aint[]){4 * sizeof(int), 0},
                                            MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 24, 0, 28, 0, 28);
    check_ints_order(t, 1, a, (int[]){4, 5, 6, 0, 1, 2}, 6);
    CHECK_OK(MPI_Type_free(&t));

    /* Zero-length blocks add nothing, not even to the bounds. */
    CHECK_OK(MPI_Type_indexed(3, (int[]){0, 2, 0}, (int[]){100, 1, -50}, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 8, 4, 8, 4, 8);
    CHECK_OK(MPI_Type_free(&t));
}

struct cd { char c; double d; };
struct dc { double d; char c; };

static void struct_extent_is_padded_like_c(void)
{
    MPI_Datatype t;
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1},
                                    (MPI_Aint[]){offsetof(struct cd, c), offsetof(struct cd, d)},
                                    types, &t));
    t = commit(t);
    check_bounds(t, 9, 0, sizeof(struct cd), 0, sizeof(struct cd));
    CHECK_OK(MPI_Type_free(&t));
    MPI_Datatype types2[] = {MPI_DOUBLE, MPI_CHAR};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1},
                                    (MPI_Aint[]){offsetof(struct dc, d), offsetof(struct dc, c)},
                                    types2, &t));
    t = commit(t);
    /* Data ends at 9; the extent is padded to double's alignment as C does. */
    check_bounds(t, 9, 0, sizeof(struct dc), 0, 9);
    /* So an array of them goes as C lays it out. */
    struct dc in[3] = {{1.5, 'a'}, {2.5, 'b'}, {3.5, 'c'}}, out[3] = {{0, 0}};
    int pos = 0;
    char buf[64];
    CHECK_OK(MPI_Pack(in, 3, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 27);
    pos = 0;
    CHECK_OK(MPI_Unpack(buf, sizeof buf, &pos, out, 3, t, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++)
        CHECK(out[i].d == in[i].d && out[i].c == in[i].c);
    CHECK_OK(MPI_Type_free(&t));
}

static void resized_and_marker_bounds(void)
{
    int a[64];
    iota(a, 64);
    MPI_Datatype r;
    CHECK_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &r));
    r = commit(r);
    check_bounds(r, 4, -4, 12, 0, 4);
    check_ints_order(r, 3, a, (int[]){0, 3, 6}, 3);
    /* A resized type's bounds are sticky inside a struct. */
    MPI_Datatype s;
    MPI_Datatype types[] = {r, MPI_INT};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 40}, types, &s));
    check_bounds(s, 8, -4, 12, 0, 44);
    CHECK_OK(MPI_Type_free(&s));
    CHECK_OK(MPI_Type_free(&r));

    /* MPI-1: MPI_LB and MPI_UB set the bounds whatever the data. */
    MPI_Datatype m;
    MPI_Datatype mt[] = {MPI_LB, MPI_INT, MPI_UB};
    CHECK_OK(MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){-8, 4, 32}, mt, &m));
    m = commit(m);
    check_bounds(m, 4, -8, 40, 4, 4);
    MPI_Aint lb, ub, ext;
    CHECK_OK(MPI_Type_lb(m, &lb));
    CHECK_OK(MPI_Type_ub(m, &ub));
    CHECK_OK(MPI_Type_extent(m, &ext));
    CHECK(lb == -8 && ub == 32 && ext == 40);
    check_ints_order(m, 3, a, (int[]){1, 11, 21}, 3);
    CHECK_OK(MPI_Type_free(&m));
}

static void subarray_layouts(void)
{
    int a[64];
    iota(a, 64);
    MPI_Datatype t;
    /* Rows 1..2, columns 2..4 of a 4 x 5 C array. */
    CHECK_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                      MPI_ORDER_C, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 24, 0, 80, 28, 32);
    check_ints_order(t, 1, a, (int[]){7, 8, 9, 12, 13, 14}, 6);
    CHECK_OK(MPI_Type_free(&t));
    /* The same numbers in Fortran order: the first index is the fastest. */
    CHECK_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                      MPI_ORDER_FORTRAN, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 24, 0, 80, 36, 40);
    check_ints_order(t, 1, a, (int[]){9, 10, 13, 14, 17, 18}, 6);
    CHECK_OK(MPI_Type_free(&t));
    /* 3-D: a 2 x 2 x 2 corner at (1, 1, 1) of 3 x 3 x 3. */
    CHECK_OK(MPI_Type_create_subarray(3, (int[]){3, 3, 3}, (int[]){2, 2, 2}, (int[]){1, 1, 1},
                                      MPI_ORDER_C, MPI_INT, &t));
    t = commit(t);
    check_bounds(t, 32, 0, 108, 13 * 4, 14 * 4);
    check_ints_order(t, 1, a, (int[]){13, 14, 16, 17, 22, 23, 25, 26}, 8);
    CHECK_OK(MPI_Type_free(&t));
}

/* The indices a process of a darray owns, as hand-computed sets. */
static void check_darray(int size, int rank, int ndims, const int *g, const int *dist,
                         const int *darg, const int *p, int order, const int *want, int n,
                         int total)
{
    int a[64];
    iota(a, 64);
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_darray(size, rank, ndims, g, dist, darg, p, order, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    MPI_Aint lb, extent;
    CHECK_OK(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(lb == 0 && extent == total * (MPI_Aint)sizeof(int));
    check_ints_order(t, 1, a, want, n);
    CHECK_OK(MPI_Type_free(&t));
}

static void darray_layouts(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, D = MPI_DISTRIBUTE_DFLT_DARG;
    /* 10 indices on 3 processes, blocks of ceil(10/3) = 4. */
    check_darray(3, 0, 1, (int[]){10}, (int[]){B}, (int[]){D}, (int[]){3}, MPI_ORDER_C,
                 (int[]){0, 1, 2, 3}, 4, 10);
    check_darray(3, 2, 1, (int[]){10}, (int[]){B}, (int[]){D}, (int[]){3}, MPI_ORDER_C,
                 (int[]){8, 9}, 2, 10);
    /* Cyclic by 1 and by 3 (the last block of rank 1 is cut short). */
    check_darray(3, 1, 1, (int[]){10}, (int[]){C}, (int[]){D}, (int[]){3}, MPI_ORDER_C,
                 (int[]){1, 4, 7}, 3, 10);
    check_darray(2, 1, 1, (int[]){10}, (int[]){C}, (int[]){3}, (int[]){2}, MPI_ORDER_C,
                 (int[]){3, 4, 5, 9}, 4, 10);
    check_darray(2, 0, 1, (int[]){10}, (int[]){C}, (int[]){3}, (int[]){2}, MPI_ORDER_C,
                 (int[]){0, 1, 2, 6, 7, 8}, 6, 10);
    /* 4 x 6 on a 2 x 2 grid, rows by block, columns cyclic: rank 3 is
     * grid (1, 1): rows 2..3, columns 1, 3, 5. */
    check_darray(4, 3, 2, (int[]){4, 6}, (int[]){B, C}, (int[]){D, D}, (int[]){2, 2},
                 MPI_ORDER_C, (int[]){13, 15, 17, 19, 21, 23}, 6, 24);
    /* The same in Fortran order: index i + 4 j, rows (first index) 2..3. */
    check_darray(4, 3, 2, (int[]){4, 6}, (int[]){B, C}, (int[]){D, D}, (int[]){2, 2},
                 MPI_ORDER_FORTRAN, (int[]){6, 7, 14, 15, 22, 23}, 6, 24);
    /* Not distributed along the columns. */
    check_darray(2, 1, 2, (int[]){4, 3}, (int[]){B, MPI_DISTRIBUTE_NONE}, (int[]){D, D},
                 (int[]){2, 1}, MPI_ORDER_C, (int[]){6, 7, 8, 9, 10, 11}, 6, 12);
}

/* Counts near INT_MAX of a small type are described, not expanded. */
static void huge_counts_are_not_expanded(void)
{
    MPI_Datatype v, c, pair;
    CHECK_OK(MPI_Type_vector(INT_MAX, 1, 2, MPI_CHAR, &v));
    check_bounds(v, INT_MAX, 0, 2 * (MPI_Aint)(INT_MAX - 1) + 1, 0,
                 2 * (MPI_Aint)(INT_MAX - 1) + 1);
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                    (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &pair));
    CHECK_OK(MPI_Type_contiguous(INT_MAX, pair, &c));
    MPI_Count size;
    CHECK_OK(MPI_Type_size_x(c, &size));
    CHECK(size == 9 * (MPI_Count)INT_MAX);
    /* Elements count per basic element in the repeated unit. */
    MPI_Status st;
    MPI_Count n;
    CHECK_OK(MPI_Status_set_elements_x(&st, c, 3));
    CHECK_OK(MPI_Get_elements_x(&st, pair, &n));
    CHECK(n == 3);
    int count;
    CHECK_OK(MPI_Get_count(&st, pair, &count));
    CHECK(count == MPI_UNDEFINED);
    MPI_Datatype ts[] = {v, c, pair};
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Type_free(&ts[i]));
}

static void dup_keeps_layout_and_commit(void)
{
    MPI_Datatype v, d, dd;
    CHECK_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    CHECK_OK(MPI_Type_dup(v, &d));
    int a[8];
    iota(a, 8);
    v = commit(v);
    CHECK_OK(MPI_Type_dup(v, &dd));
    check_bounds(dd, 8, 0, 16, 0, 16);
    check_ints_order(dd, 2, a, (int[]){0, 3, 4, 7}, 4);  /* committed by the dup */
    MPI_Datatype ts[] = {v, d, dd};
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Type_free(&ts[i]));
}

/* ---- envelope, contents, names ----------------------------------------- */

static void envelope_and_contents_give_the_arguments_back(void)
{
    int ni, na, nt, comb;
    CHECK_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0);

    MPI_Datatype v, s, r, sub, out[4];
    int ints[16];
    MPI_Aint aints[8];
    CHECK_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v));
    CHECK_OK(MPI_Type_get_envelope(v, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1);
    CHECK_OK(MPI_Type_get_contents(v, 16, 8, 4, ints, aints, out));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && out[0] == MPI_DOUBLE);

    MPI_Datatype types[] = {MPI_INT, v};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){4, 1}, (MPI_Aint[]){0, 64}, types, &s));
    CHECK_OK(MPI_Type_get_envelope(s, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nt == 2);
    CHECK_OK(MPI_Type_get_contents(s, 16, 8, 4, ints, aints, out));
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[2] == 1);
    CHECK(aints[0] == 0 && aints[1] == 64);
    CHECK(out[0] == MPI_INT && out[1] == v);
    /* The derived type came back as a reference of ours: freeing it and
     * the original leaves the struct (which holds one too) working. */
    CHECK_OK(MPI_Type_free(&out[1]));
    CHECK_OK(MPI_Type_free(&v));
    s = commit(s);
    check_bounds(s, 64, 0, 64 + 12 * 8, 0, 64 + 12 * 8);

    CHECK_OK(MPI_Type_create_resized(s, -8, 200, &r));
    CHECK_OK(MPI_Type_get_envelope(r, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nt == 1);
    CHECK_OK(MPI_Type_get_contents(r, 0, 2, 1, NULL, aints, out));
    CHECK(aints[0] == -8 && aints[1] == 200 && out[0] == s);
    CHECK_OK(MPI_Type_free(&out[0]));

    CHECK_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                      MPI_ORDER_FORTRAN, MPI_INT, &sub));
    CHECK_OK(MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nt == 1);
    CHECK_OK(MPI_Type_get_contents(sub, 16, 0, 1, ints, NULL, out));
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[2] == 5 && ints[3] == 2 && ints[4] == 3 &&
          ints[5] == 1 && ints[6] == 2 && ints[7] == MPI_ORDER_FORTRAN);

    MPI_Datatype d;
    CHECK_OK(MPI_Type_dup(sub, &d));
    CHECK_OK(MPI_Type_get_envelope(d, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nt == 1);
    MPI_Datatype ts[] = {s, r, sub, d};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Type_free(&ts[i]));
}

static void names_are_set_and_read(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
    MPI_Datatype t;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0');
    CHECK_OK(MPI_Type_set_name(t, "pair of ints"));
    CHECK_OK(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "pair of ints") == 0 && len == 12);
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_OK(MPI_Type_set_name(t, longname));
    CHECK_OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1);
    CHECK_OK(MPI_Type_free(&t));
    /* MPI_C_FLOAT_COMPLEX is a synonym of MPI_C_COMPLEX */
    CHECK_OK(MPI_Type_get_name(MPI_C_COMPLEX, name, &len));
    CHECK(strcmp(name, "MPI_C_COMPLEX") == 0 && len == 13);
    /* A predefined type may be renamed, by each rank for itself (the
     * ranks of a process share the object) */
    int rank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    char mine[32];
    snprintf(mine, sizeof mine, "int of rank %d", rank);
    if (rank % 2 == 0)
        CHECK_OK(MPI_Type_set_name(MPI_INT, "int"));
    CHECK_OK(MPI_Type_set_name(MPI_INT, rank % 2 ? mine : "int, again"));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every rank has renamed it */
    CHECK_OK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, rank % 2 ? mine : "int, again") == 0 && len == (int)strlen(name));
    CHECK_OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0);
    CHECK_OK(MPI_Type_set_name(MPI_INT, longname));
    CHECK_OK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1);
    CHECK_OK(MPI_Type_set_name(MPI_INT, "MPI_INT"));
}

static void addresses_and_address_arithmetic(void)
{
    double x[4] = {0};
    MPI_Aint a0, a2, old;
    CHECK_OK(MPI_Get_address(&x[0], &a0));
    CHECK_OK(MPI_Get_address(&x[2], &a2));
    CHECK_OK(MPI_Address(&x[2], &old));
    CHECK(old == a2);
    CHECK(MPI_Aint_diff(a2, a0) == 2 * (MPI_Aint)sizeof(double));
    CHECK(MPI_Aint_add(a0, 2 * sizeof(double)) == a2);
    CHECK(a0 == (MPI_Aint)(intptr_t)&x[0]);
}

/* ---- messages ---------------------------------------------------------- */

/* A column of a matrix goes to a contiguous array and back. */
static void vector_to_contiguous_and_back(void)
{
    int me = world_rank();
    double m[4][4];
    MPI_Datatype col;
    CHECK_OK(MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col));
    col = commit(col);
    if (me == 0) {
        for (int i = 0; i < 16; i++)
            m[i / 4][i % 4] = i;
        CHECK_OK(MPI_Send(&m[0][1], 1, col, 1, 0, MPI_COMM_WORLD));
        for (int i = 0; i < 16; i++)
            m[i / 4][i % 4] = -1;
        CHECK_OK(MPI_Recv(&m[0][2], 1, col, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 16; i++)
            CHECK(m[i / 4][i % 4] == (i % 4 == 2 ? 100 + i / 4 : -1));
    } else if (me == 1) {
        double v[5] = {0, 0, 0, 0, -7};
        MPI_Status st;
        CHECK_OK(MPI_Recv(v, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st));
        CHECK(v[0] == 1 && v[1] == 5 && v[2] == 9 && v[3] == 13 && v[4] == -7);
        int n;
        CHECK_OK(MPI_Get_count(&st, col, &n));
        CHECK(n == 1);
        for (int i = 0; i < 4; i++)
            v[i] = 100 + i;
        CHECK_OK(MPI_Send(v, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Type_free(&col));
}

/* A C struct with a gap goes to an indexed type of another shape. */
struct gap { int a; char pad[4]; int b; int c; };

static void struct_with_padding_to_indexed(void)
{
    int me = world_rank();
    MPI_Datatype s, idx;
    MPI_Datatype types[] = {MPI_INT, MPI_INT};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 2},
                                    (MPI_Aint[]){offsetof(struct gap, a), offsetof(struct gap, b)},
                                    types, &s));
    s = commit(s);
    check_bounds(s, 12, 0, sizeof(struct gap), 0, sizeof(struct gap));
    CHECK_OK(MPI_Type_indexed(3, (int[]){1, 1, 1}, (int[]){2, 0, 5}, MPI_INT, &idx));
    idx = commit(idx);
    for (int rep = 0; rep < 2; rep++) {   /* eager, then with the receive posted first */
        if (me == 0) {
            struct gap g[2] = {{1, "", 2, 3}, {4, "", 5, 6}};
            if (rep)
                CHECK_OK(MPI_Recv(NULL, 0, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Send(g, 2, s, 1, rep, MPI_COMM_WORLD));
        } else if (me == 1) {
            int r[12];
            for (int i = 0; i < 12; i++)
                r[i] = -1;
            MPI_Request q;
            CHECK_OK(MPI_Irecv(r, 2, idx, 0, rep, MPI_COMM_WORLD, &q));
            if (rep)
                CHECK_OK(MPI_Send(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD));
            MPI_Status st;
            CHECK_OK(MPI_Wait(&q, &st));
            int want[12] = {2, -1, 1, -1, -1, 3, 5, -1, 4, -1, -1, 6};
            for (int i = 0; i < 12; i++)
                CHECK(r[i] == want[i]);
            int n;
            CHECK_OK(MPI_Get_count(&st, idx, &n));
            CHECK(n == 2);
            CHECK_OK(MPI_Get_elements(&st, idx, &n));
            CHECK(n == 6);
        }
    }
    CHECK_OK(MPI_Type_free(&s));
    CHECK_OK(MPI_Type_free(&idx));
}

/* Large messages (not eager): both layouts strided, walked together. */
static void large_strided_to_strided(void)
{
    enum { N = 100000 };
    int me = world_rank();
    MPI_Datatype every3, pairs;
    CHECK_OK(MPI_Type_vector(N, 1, 3, MPI_INT, &every3));
    every3 = commit(every3);
    CHECK_OK(MPI_Type_vector(N / 2, 2, 5, MPI_INT, &pairs));
    pairs = commit(pairs);
    if (me == 0) {
        int *a = malloc(3 * N * sizeof(int));
        CHECK(a);
        for (int i = 0; i < 3 * N; i++)
            a[i] = i;
        CHECK_OK(MPI_Ssend(a, 1, every3, 1, 0, MPI_COMM_WORLD));
        free(a);
    } else if (me == 1) {
        int *b = calloc(5 * N / 2, sizeof(int));
        CHECK(b);
        CHECK_OK(MPI_Recv(b, 1, pairs, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < N; k++)
            CHECK(b[(k / 2) * 5 + k % 2] == 3 * k);
        CHECK(b[2] == 0 && b[3] == 0 && b[4] == 0);
        free(b);
    }
    CHECK_OK(MPI_Type_free(&every3));
    CHECK_OK(MPI_Type_free(&pairs));
}

/* A message longer than the receive: the receive's layout is filled as far
 * as it goes, nothing beyond it, and the status says truncated. */
static void truncated_receive_fills_the_layout(void)
{
    int me = world_rank();
    MPI_Datatype every2;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every2));
    every2 = commit(every2);
    if (me == 0) {
        int v[6] = {10, 11, 12, 13, 14, 15};
        CHECK_OK(MPI_Send(v, 6, MPI_INT, 1, 0, MPI_COMM_WORLD));
    } else if (me == 1) {
        CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int r[12];
        for (int i = 0; i < 12; i++)
            r[i] = -1;
        MPI_Status st;
        st.MPI_ERROR = -5;   /* the return value carries the error, not the status */
        /* Room for 3 of the 6 ints, at every other int. */
        CHECK(MPI_Recv(r, 1, every2, 0, 0, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        CHECK(st.MPI_ERROR == -5);
        int want[12] = {10, -1, 11, -1, 12, -1, -1, -1, -1, -1, -1, -1};
        for (int i = 0; i < 12; i++)
            CHECK(r[i] == want[i]);
        int n;
        CHECK_OK(MPI_Get_elements(&st, every2, &n));
        CHECK(n == 3);
        CHECK_OK(MPI_Get_count(&st, every2, &n));
        CHECK(n == 1);
    }
    CHECK_OK(MPI_Type_free(&every2));
}

/* Counts of received data: whole elements or MPI_UNDEFINED, and basic
 * elements of mixed types. */
static void counts_and_elements_of_derived_types(void)
{
    int me = world_rank();
    MPI_Datatype two, id;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
    two = commit(two);
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, types, &id));
    id = commit(id);
    if (me == 0) {
        int v[5] = {1, 2, 3, 4, 5};
        CHECK_OK(MPI_Send(v, 5, MPI_INT, 1, 0, MPI_COMM_WORLD));
        struct { int i; double d; } s[2] = {{1, 1.5}, {2, 2.5}};
        CHECK_OK(MPI_Send(s, 1, id, 1, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(&s[1], 4, MPI_BYTE, 1, 1, MPI_COMM_WORLD));  /* one int's bytes */
        CHECK_OK(MPI_Send(v, 6, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(v, 6, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
        CHECK_OK(MPI_Send(v, 6, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
    } else if (me == 1) {
        int r[6];
        MPI_Status st;
        int n;
        CHECK_OK(MPI_Recv(r, 3, two, 0, 0, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_count(&st, two, &n));
        CHECK(n == MPI_UNDEFINED);
        CHECK_OK(MPI_Get_elements(&st, two, &n));
        CHECK(n == 5);
        CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == 5);
        struct { int i; double d; } s[2];
        CHECK_OK(MPI_Recv(s, 2, id, 0, 1, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_count(&st, id, &n));
        CHECK(n == 1);
        CHECK_OK(MPI_Get_elements(&st, id, &n));
        CHECK(n == 2);
        CHECK_OK(MPI_Recv(s, 2, id, 0, 1, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_count(&st, id, &n));
        CHECK(n == MPI_UNDEFINED);
        CHECK_OK(MPI_Get_elements(&st, id, &n));
        CHECK(n == 1);
        /* 6 bytes end inside an int: the type signatures cannot match
         * (MPI_ERR_TYPE, as MPICH says), whichever call completes it */
        CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        CHECK(MPI_Recv(r, 2, two, 0, 2, MPI_COMM_WORLD, &st) == MPI_ERR_TYPE);
        CHECK_OK(MPI_Get_elements(&st, two, &n));
        CHECK(n == MPI_UNDEFINED);
        MPI_Request q;
        CHECK_OK(MPI_Irecv(r, 2, two, 0, 3, MPI_COMM_WORLD, &q));
        CHECK(MPI_Wait(&q, &st) == MPI_ERR_TYPE);
        CHECK_OK(MPI_Irecv(r, 2, MPI_INT, 0, 4, MPI_COMM_WORLD, &q));
        MPI_Status sts[1];
        CHECK(MPI_Waitall(1, &q, sts) == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_ERR_TYPE);
        CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        /* set_elements is the inverse: int, double, int is 16 bytes. */
        MPI_Count x = -1;
        CHECK_OK(MPI_Status_set_elements(&st, id, 3));
        CHECK_OK(MPI_Get_elements_x(&st, id, &x));
        CHECK(x == 3);
        CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 16);
    }
    CHECK_OK(MPI_Type_free(&two));
    CHECK_OK(MPI_Type_free(&id));
}

/* MPI_Type_free while a request uses the type: the request still works. */
static void type_freed_while_requests_pending(void)
{
    enum { N = 50000 };   /* not eager */
    int me = world_rank();
    MPI_Datatype t;
    CHECK_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &t));
    t = commit(t);
    int *a = calloc(2 * N, sizeof(int));
    CHECK(a);
    MPI_Request q;
    if (me == 0) {
        for (int i = 0; i < 2 * N; i++)
            a[i] = i;
        CHECK_OK(MPI_Isend(a, 1, t, 1, 0, MPI_COMM_WORLD, &q));
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else if (me == 1) {
        CHECK_OK(MPI_Irecv(a, 1, t, 0, 0, MPI_COMM_WORLD, &q));
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * N; i++)
            CHECK(a[i] == (i % 2 ? 0 : i));
    } else {
        CHECK_OK(MPI_Type_free(&t));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* A persistent request keeps it across starts. */
    MPI_Datatype p;
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &p));
    p = commit(p);
    int v[3] = {me, me + 1, me + 2}, w[3];
    MPI_Request sr, rr;
    CHECK_OK(MPI_Send_init(v, 1, p, me, 5, MPI_COMM_WORLD, &sr));
    CHECK_OK(MPI_Recv_init(w, 1, p, me, 5, MPI_COMM_WORLD, &rr));
    CHECK_OK(MPI_Type_free(&p));
    for (int k = 0; k < 3; k++) {
        CHECK_OK(MPI_Start(&rr));
        CHECK_OK(MPI_Start(&sr));
        CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        CHECK(w[0] == me && w[2] == me + 2);
    }
    CHECK_OK(MPI_Request_free(&sr));
    CHECK_OK(MPI_Request_free(&rr));
    free(a);
}

/* MPI_BOTTOM with a type of absolute addresses, on both sides. */
struct di { double d; int i; };

static void bottom_with_absolute_addresses(void)
{
    int me = world_rank();
    int i = 0;
    double d = 0;
    MPI_Aint ai, ad;
    CHECK_OK(MPI_Get_address(&i, &ai));
    CHECK_OK(MPI_Get_address(&d, &ad));
    MPI_Datatype t, rt;
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_INT};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){ad, ai}, types, &t));
    t = commit(t);
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1},
                                    (MPI_Aint[]){offsetof(struct di, d), offsetof(struct di, i)},
                                    types, &rt));
    rt = commit(rt);
    if (me == 0) {
        i = 42;
        d = 2.75;
        CHECK_OK(MPI_Send(MPI_BOTTOM, 1, t, 1, 0, MPI_COMM_WORLD));
        /* The answer lands at the absolute addresses. */
        CHECK_OK(MPI_Recv(MPI_BOTTOM, 1, t, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(i == 43 && d == 5.5);
    } else if (me == 1) {
        struct di r = {0, 0};
        CHECK_OK(MPI_Recv(&r, 1, rt, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(r.i == 42 && r.d == 2.75);
        r.i++;
        r.d *= 2;
        CHECK_OK(MPI_Send(&r, 1, rt, 0, 1, MPI_COMM_WORLD));
    }
    /* Pack reads from MPI_BOTTOM too. */
    i = 7;
    d = 0.5;
    char buf[16];
    int pos = 0;
    CHECK_OK(MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 12);
    double pd;
    int pi;
    memcpy(&pd, buf, 8);
    memcpy(&pi, buf + 8, 4);
    CHECK(pd == 0.5 && pi == 7);
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_free(&rt));
}

/* Bcast: every rank may describe the data with its own layout. */
static void bcast_between_layouts(void)
{
    int me = world_rank();
    MPI_Datatype every2;
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every2));
    every2 = commit(every2);
    int a[8];
    for (int i = 0; i < 8; i++)
        a[i] = me == 0 ? i * 10 : -1;
    if (me % 2 == 0) {
        CHECK_OK(MPI_Bcast(a, 1, every2, 0, MPI_COMM_WORLD));
        for (int i = 0; i < 8; i++)
            CHECK(a[i] == (i % 2 ? (me == 0 ? i * 10 : -1) : i * 10));
    } else {
        CHECK_OK(MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD));
        for (int i = 0; i < 8; i++)
            CHECK(a[i] == (i < 4 ? i * 20 : -1));
    }
    CHECK_OK(MPI_Type_free(&every2));
}

static const test_case cases[] = {
    {"contiguous_and_vector_layouts", contiguous_and_vector_layouts},
    {"indexed_layouts_keep_type_map_order", indexed_layouts_keep_type_map_order},
    {"struct_extent_is_padded_like_c", struct_extent_is_padded_like_c},
    {"resized_and_marker_bounds", resized_and_marker_bounds},
    {"subarray_layouts", subarray_layouts},
    {"darray_layouts", darray_layouts},
    {"huge_counts_are_not_expanded", huge_counts_are_not_expanded},
    {"dup_keeps_layout_and_commit", dup_keeps_layout_and_commit},
    {"envelope_and_contents_give_the_arguments_back", envelope_and_contents_give_the_arguments_back},
    {"names_are_set_and_read", names_are_set_and_read},
    {"addresses_and_address_arithmetic", addresses_and_address_arithmetic},
    {"vector_to_contiguous_and_back", vector_to_contiguous_and_back},
    {"struct_with_padding_to_indexed", struct_with_padding_to_indexed},
    {"large_strided_to_strided", large_strided_to_strided},
    {"truncated_receive_fills_the_layout", truncated_receive_fills_the_layout},
    {"counts_and_elements_of_derived_types", counts_and_elements_of_derived_types},
    {"type_freed_while_requests_pending", type_freed_while_requests_pending},
    {"bottom_with_absolute_addresses", bottom_with_absolute_addresses},
    {"bcast_between_layouts", bcast_between_layouts},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
