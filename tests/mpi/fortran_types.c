/* fortran_types.c — Fortran's named datatypes used from C (MPI 3.1, 3.2.2,
 * 17.2.5): each is the C type of the same layout (MPI_REAL float,
 * MPI_COMPLEX float _Complex, MPI_INTEGER and MPI_LOGICAL int...), in
 * point-to-point, collectives and reductions; the sizes with no C type
 * move data but take no op; statuses to and from Fortran's. Every case
 * runs in every rank. Usage: fortran_types CASE. */
#include <mpi.h>

#include <complex.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)

static int rank, size;

static void start(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
}

static void sizes_names_and_extents(void)
{
    start();
    static const struct {
        MPI_Datatype t;
        const char *name;
        int size;
    } types[] = {
        {MPI_CHARACTER, "MPI_CHARACTER", 1},
        {MPI_LOGICAL, "MPI_LOGICAL", sizeof(int)},
        {MPI_INTEGER, "MPI_INTEGER", sizeof(int)},
        {MPI_REAL, "MPI_REAL", sizeof(float)},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", sizeof(double)},
        {MPI_COMPLEX, "MPI_COMPLEX", sizeof(float _Complex)},
        {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", sizeof(double _Complex)},
        {MPI_2INTEGER, "MPI_2INTEGER", 2 * sizeof(int)},
        {MPI_2REAL, "MPI_2REAL", 2 * sizeof(float)},
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double)},
        {MPI_INTEGER1, "MPI_INTEGER1", 1},
        {MPI_INTEGER2, "MPI_INTEGER2", 2},
        {MPI_INTEGER4, "MPI_INTEGER4", 4},
        {MPI_INTEGER8, "MPI_INTEGER8", 8},
        {MPI_INTEGER16, "MPI_INTEGER16", 16},
        {MPI_REAL2, "MPI_REAL2", 2},
        {MPI_REAL4, "MPI_REAL4", 4},
        {MPI_REAL8, "MPI_REAL8", 8},
        {MPI_REAL16, "MPI_REAL16", 16},
        {MPI_COMPLEX4, "MPI_COMPLEX4", 4},
        {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
        {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
        {MPI_COMPLEX32, "MPI_COMPLEX32", 32},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int sz, len, ni, na, nd, comb;
        MPI_Aint lb, extent;
        char name[MPI_MAX_OBJECT_NAME];
        CHECK_MPI(MPI_Type_size(types[i].t, &sz));
        CHECK(sz == types[i].size);
        CHECK_MPI(MPI_Type_get_extent(types[i].t, &lb, &extent));
        CHECK(lb == 0 && extent == types[i].size);
        CHECK_MPI(MPI_Type_get_name(types[i].t, name, &len));
        CHECK(strcmp(name, types[i].name) == 0 && len == (int)strlen(name));
        CHECK_MPI(MPI_Type_get_envelope(types[i].t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED);
    }
    /* Distinct handles, as MPI requires of named types. */
    CHECK(MPI_INTEGER != MPI_INT && MPI_REAL != MPI_FLOAT && MPI_COMPLEX != MPI_C_FLOAT_COMPLEX);
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CHECK(t == MPI_REAL8);
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    CHECK(t == MPI_INTEGER4);
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    CHECK(t == MPI_COMPLEX16);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(99, 4, &t) == MPI_ERR_ARG);
    CHECK_MPI(MPI_Finalize());
}

/* Every rank sends to the next one (a ring) and checks what it got. */
static void point_to_point_moves_each_type(void)
{
    start();
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    int count;

    float r[3] = {rank + 0.5f, -1.0f, 2.25f}, rr[3];
    CHECK_MPI(MPI_Sendrecv(r, 3, MPI_REAL, to, 1, rr, 3, MPI_REAL, from, 1, MPI_COMM_WORLD, &st));
    CHECK(rr[0] == from + 0.5f && rr[1] == -1.0f && rr[2] == 2.25f);
    CHECK_MPI(MPI_Get_count(&st, MPI_REAL, &count));
    CHECK(count == 3);

    float _Complex c[2] = {rank + 1.0f * I, 2.0f - 3.0f * I}, cr[2];
    CHECK_MPI(MPI_Sendrecv(c, 2, MPI_COMPLEX, to, 2, cr, 2, MPI_COMPLEX, from, 2, MPI_COMM_WORLD, &st));
    CHECK(cr[0] == from + 1.0f * I && cr[1] == 2.0f - 3.0f * I);

    double _Complex z = rank - 0.5 * I, zr;
    CHECK_MPI(MPI_Sendrecv(&z, 1, MPI_DOUBLE_COMPLEX, to, 3, &zr, 1, MPI_DOUBLE_COMPLEX, from, 3,
                           MPI_COMM_WORLD, &st));
    CHECK(zr == from - 0.5 * I);

    int iv[2] = {rank, -rank}, ir[2], lv = rank % 2, lr;
    CHECK_MPI(MPI_Sendrecv(iv, 2, MPI_INTEGER, to, 4, ir, 2, MPI_INTEGER, from, 4, MPI_COMM_WORLD, &st));
    CHECK(ir[0] == from && ir[1] == -from);
    CHECK_MPI(MPI_Sendrecv(&lv, 1, MPI_LOGICAL, to, 5, &lr, 1, MPI_LOGICAL, from, 5, MPI_COMM_WORLD, &st));
    CHECK(lr == from % 2);

    double d = rank * 1.5, dr;
    CHECK_MPI(MPI_Sendrecv(&d, 1, MPI_DOUBLE_PRECISION, to, 6, &dr, 1, MPI_DOUBLE_PRECISION, from, 6,
                           MPI_COMM_WORLD, &st));
    CHECK(dr == from * 1.5);

    char s[6] = "abcde", sr[6];
    s[0] = (char)('a' + rank % 26);
    CHECK_MPI(MPI_Sendrecv(s, 6, MPI_CHARACTER, to, 7, sr, 6, MPI_CHARACTER, from, 7, MPI_COMM_WORLD, &st));
    CHECK(sr[0] == 'a' + from % 26 && strcmp(sr + 1, "bcde") == 0);

    int64_t i8 = (int64_t)rank << 40, i8r;
    CHECK_MPI(MPI_Sendrecv(&i8, 1, MPI_INTEGER8, to, 8, &i8r, 1, MPI_INTEGER8, from, 8, MPI_COMM_WORLD, &st));
    CHECK(i8r == (int64_t)from << 40);

    float p[2] = {rank * 2.0f, (float)rank}, pr[2];
    CHECK_MPI(MPI_Sendrecv(p, 1, MPI_2REAL, to, 9, pr, 1, MPI_2REAL, from, 9, MPI_COMM_WORLD, &st));
    CHECK(pr[0] == from * 2.0f && pr[1] == (float)from);
    CHECK_MPI(MPI_Get_elements(&st, MPI_2REAL, &count));
    CHECK(count == 2);

    /* No C type: 16 bytes per element moved as they are. */
    unsigned char q[2][16], qr[2][16];
    for (int i = 0; i < 32; i++)
        q[i / 16][i % 16] = (unsigned char)(rank * 32 + i);
    CHECK_MPI(MPI_Sendrecv(q, 2, MPI_INTEGER16, to, 10, qr, 2, MPI_INTEGER16, from, 10,
                           MPI_COMM_WORLD, &st));
    for (int i = 0; i < 32; i++)
        CHECK(qr[i / 16][i % 16] == (unsigned char)(from * 32 + i));
    CHECK_MPI(MPI_Finalize());
}

static void collectives_move_each_type(void)
{
    start();
    double d[2] = {0, 0};
    if (rank == 0)
        d[0] = 3.5, d[1] = -7.25;
    CHECK_MPI(MPI_Bcast(d, 2, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD));
    CHECK(d[0] == 3.5 && d[1] == -7.25);

    int64_t mine = (int64_t)rank * 1000000007, all[64];
    CHECK(size <= 64);
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INTEGER8, all, 1, MPI_INTEGER8, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(all[i] == (int64_t)i * 1000000007);

    float _Complex c = rank + 2.0f * rank * I, call[64];
    CHECK_MPI(MPI_Gather(&c, 1, MPI_COMPLEX, call, 1, MPI_COMPLEX, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        for (int i = 0; i < size; i++)
            CHECK(call[i] == i + 2.0f * i * I);

    int ints[64], got;
    for (int i = 0; i < size; i++)
        ints[i] = 100 * i + rank;
    int back[64];
    CHECK_MPI(MPI_Alltoall(ints, 1, MPI_INTEGER, back, 1, MPI_INTEGER, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(back[i] == 100 * rank + i);
    CHECK_MPI(MPI_Scatter(ints, 1, MPI_INTEGER4, &got, 1, MPI_INTEGER4, 0, MPI_COMM_WORLD));
    CHECK(got == 100 * rank);
    CHECK_MPI(MPI_Finalize());
}

static void reductions_follow_the_c_type(void)
{
    start();
    int n = size;
    /* MPI_SUM on MPI_REAL: small integers, exact in float. */
    float f[2] = {(float)rank, 1.5f}, fs[2];
    CHECK_MPI(MPI_Allreduce(f, fs, 2, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
    CHECK(fs[0] == (float)(n * (n - 1) / 2) && fs[1] == 1.5f * n);
    double dmax;
    double dv = rank * 0.25;
    CHECK_MPI(MPI_Allreduce(&dv, &dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD));
    CHECK(dmax == (n - 1) * 0.25);
    /* Complex sums and products, single and double. */
    float _Complex c = 1.0f + 1.0f * I, cs;
    CHECK_MPI(MPI_Allreduce(&c, &cs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(cs == n + n * 1.0f * I);
    double _Complex z = 1.0 * I, zp;   /* i^n */
    CHECK_MPI(MPI_Reduce(&z, &zp, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, 0, MPI_COMM_WORLD));
    static const double _Complex powers[4] = {1.0, 1.0 * I, -1.0, -1.0 * I};
    if (rank == 0)
        CHECK(zp == powers[n % 4]);
    /* Integers: sums, bitwise ops; logicals: logical ops. */
    int iv = rank + 1, isum, iband;
    CHECK_MPI(MPI_Allreduce(&iv, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(isum == n * (n + 1) / 2);
    int bits = ~(1 << rank % 16);
    CHECK_MPI(MPI_Allreduce(&bits, &iband, 1, MPI_INTEGER, MPI_BAND, MPI_COMM_WORLD));
    CHECK(iband == ~(int)((1u << (n < 16 ? n : 16)) - 1));
    int l[3] = {1, rank == 0, rank == 1}, land[3], lor[3];
    CHECK_MPI(MPI_Allreduce(l, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(l, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(land[0] == 1 && land[1] == (n == 1) && land[2] == 0);
    CHECK(lor[0] == 1 && lor[1] == 1 && lor[2] == (n > 1));
    int64_t i8 = rank, i8s;
    CHECK_MPI(MPI_Allreduce(&i8, &i8s, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(i8s == (int64_t)n * (n - 1) / 2);
    /* Scan on MPI_REAL8. */
    double one = 1.0, pre;
    CHECK_MPI(MPI_Scan(&one, &pre, 1, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(pre == rank + 1.0);
    CHECK_MPI(MPI_Finalize());
}

/* MAXLOC and MINLOC on Fortran's pairs: the index is an int for
 * MPI_2INTEGER, a real for MPI_2REAL and MPI_2DOUBLE_PRECISION; equal
 * values keep the smaller index. */
static void maxloc_minloc_on_fortran_pairs(void)
{
    start();
    int n = size;
    int pi[2][2] = {{rank % 3, rank}, {-rank, rank}}, pmax[2][2];
    CHECK_MPI(MPI_Allreduce(pi, pmax, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    int top = n >= 3 ? 2 : n - 1;
    CHECK(pmax[0][0] == top && pmax[0][1] == top);     /* first rank with rank%3 == top */
    CHECK(pmax[1][0] == 0 && pmax[1][1] == 0);
    float pr[2] = {(float)(rank % 2), (float)rank}, pmin[2];
    CHECK_MPI(MPI_Allreduce(pr, pmin, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(pmin[0] == 0.0f && pmin[1] == 0.0f);
    CHECK_MPI(MPI_Allreduce(pr, pmin, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(pmin[0] == (n > 1 ? 1.0f : 0.0f) && pmin[1] == (n > 1 ? 1.0f : 0.0f));
    double pd[2] = {-(double)rank, 10.0 + rank}, pdm[2];
    CHECK_MPI(MPI_Reduce(pd, pdm, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(pdm[0] == -(double)(n - 1) && pdm[1] == 10.0 + (n - 1));
    /* A derived type made of pairs reduces as pairs. */
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_2REAL, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    float q[4] = {(float)rank, (float)rank, (float)-rank, (float)rank}, qm[4];
    CHECK_MPI(MPI_Allreduce(q, qm, 1, two, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(qm[0] == (float)(n - 1) && qm[1] == (float)(n - 1) && qm[2] == 0.0f && qm[3] == 0.0f);
    CHECK_MPI(MPI_Type_free(&two));
    CHECK_MPI(MPI_Finalize());
}

/* What MPI 3.1's table (5.9.2) leaves out is refused with MPI_ERR_OP:
 * arithmetic on logicals and characters, any op on a size with no C type. */
static void ops_outside_the_table_are_refused(void)
{
    start();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int a = 1, b = 1;
    char c1 = 'a', c2 = 'b';
    unsigned char w[16] = {0}, v[16] = {0};
    float p[2] = {0, 0}, q[2] = {0, 0};
    CHECK(MPI_Reduce_local(&a, &b, 1, MPI_LOGICAL, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(&a, &b, 1, MPI_LOGICAL, MPI_BAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(&c1, &c2, 1, MPI_CHARACTER, MPI_MAX) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(w, v, 1, MPI_INTEGER16, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(w, v, 1, MPI_REAL2, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(p, q, 1, MPI_2REAL, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(p, q, 1, MPI_COMPLEX, MPI_MAX) == MPI_ERR_OP);
#if LDBL_MANT_DIG == 113
    long double x = 1, y = 2;   /* REAL*16 is long double here */
    CHECK_MPI(MPI_Reduce_local(&x, &y, 1, MPI_REAL16, MPI_SUM));
    CHECK(y == 3);
#else
    CHECK(MPI_Reduce_local(w, v, 1, MPI_REAL16, MPI_SUM) == MPI_ERR_OP);
#endif
    CHECK_MPI(MPI_Reduce_local(&a, &b, 1, MPI_LOGICAL, MPI_LXOR));
    CHECK(b == 0);
    CHECK_MPI(MPI_Finalize());
}

/* external32: INTEGER and LOGICAL are 4-byte big-endian integers, REAL2 a
 * big-endian binary16 (its bytes reversed on a little-endian host). */
static void external32_of_fortran_types(void)
{
    start();
    MPI_Aint sz, pos = 0;
    CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_LOGICAL, &sz));
    CHECK(sz == 4);
    CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_COMPLEX32, &sz));
    CHECK(sz == 32);
    int v[2] = {0x01020304, 1};
    unsigned char out[8];
    CHECK_MPI(MPI_Pack_external("external32", v, 1, MPI_INTEGER, out, sizeof out, &pos));
    CHECK_MPI(MPI_Pack_external("external32", v + 1, 1, MPI_LOGICAL, out, sizeof out, &pos));
    CHECK(pos == 8 && out[0] == 1 && out[3] == 4 && out[7] == 1);
    uint16_t h = 0x3c00, h2 = 0;   /* 1.0 in binary16 */
    unsigned char e[2];
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &h, 1, MPI_REAL2, e, sizeof e, &pos));
    CHECK(e[0] == 0x3c && e[1] == 0x00);
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", e, sizeof e, &pos, &h2, 1, MPI_REAL2));
    CHECK(h2 == 0x3c00);
    CHECK_MPI(MPI_Finalize());
}

/* Statuses to and from Fortran's integer arrays and MPI_F08_status. */
static void statuses_convert_both_ways(void)
{
    start();
    MPI_Status s = {.MPI_SOURCE = 3, .MPI_TAG = 77, .MPI_ERROR = MPI_ERR_TRUNCATE}, back;
    CHECK_MPI(MPI_Status_set_elements_x(&s, MPI_DOUBLE, (MPI_Count)1 << 31));
    CHECK_MPI(MPI_Status_set_cancelled(&s, 1));
    MPI_Fint f[6], f2[6];
    MPI_F08_status f08, f08b;
    CHECK_MPI(MPI_Status_c2f(&s, f));
    CHECK(f[0] == 3 && f[1] == 77 && f[2] == MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Status_f2f08(f, &f08));
    CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 77);
    CHECK_MPI(MPI_Status_f082c(&f08, &back));
    MPI_Count n;
    int flag;
    CHECK_MPI(MPI_Get_elements_x(&back, MPI_DOUBLE, &n));
    CHECK(n == (MPI_Count)1 << 31);
    CHECK_MPI(MPI_Test_cancelled(&back, &flag));
    CHECK(flag && back.MPI_SOURCE == 3 && back.MPI_TAG == 77 && back.MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Status_c2f08(&s, &f08b));
    CHECK_MPI(MPI_Status_f082f(&f08b, f2));
    CHECK(memcmp(f, f2, sizeof f) == 0);
    CHECK_MPI(MPI_Status_f2c(f2, &back));
    CHECK(back.MPI_SOURCE == 3 && back.myr_bytes == s.myr_bytes);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, f) == MPI_ERR_ARG);
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back) == MPI_ERR_ARG);
    CHECK_MPI(MPI_Finalize());
}

static const test_case cases[] = {
    {"sizes_names_and_extents", sizes_names_and_extents},
    {"point_to_point_moves_each_type", point_to_point_moves_each_type},
    {"collectives_move_each_type", collectives_move_each_type},
    {"reductions_follow_the_c_type", reductions_follow_the_c_type},
    {"maxloc_minloc_on_fortran_pairs", maxloc_minloc_on_fortran_pairs},
    {"ops_outside_the_table_are_refused", ops_outside_the_table_are_refused},
    {"external32_of_fortran_types", external32_of_fortran_types},
    {"statuses_convert_both_ways", statuses_convert_both_ways},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
