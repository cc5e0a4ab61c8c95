/* pack.c — MPI_Pack/MPI_Unpack between layouts, and the external32
 * representation byte by byte (big-endian, the standard's sizes).
 * Usage: pack CASE. */
#include <complex.h>
#include <float.h>
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

struct rec { char tag; double x; int n[3]; };

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t;
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_OK(MPI_Type_create_struct(3, (int[]){1, 1, 3},
                                    (MPI_Aint[]){offsetof(struct rec, tag), offsetof(struct rec, x),
                                                 offsetof(struct rec, n)},
                                    types, &t));
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

/* Several calls append to one buffer; unpacking reads them back in order,
 * each into its own layout, and the packed bytes travel as MPI_PACKED. */
static void pack_appends_and_unpack_reads_back(void)
{
    int me = world_rank();
    MPI_Datatype rt = rec_type(), col;
    CHECK_OK(MPI_Type_vector(3, 1, 3, MPI_INT, &col));
    CHECK_OK(MPI_Type_commit(&col));
    int size_rec, size_col;
    CHECK_OK(MPI_Pack_size(2, rt, MPI_COMM_WORLD, &size_rec));
    CHECK_OK(MPI_Pack_size(1, col, MPI_COMM_WORLD, &size_col));
    CHECK(size_rec == 2 * 21 && size_col == 12);
    char buf[128];
    int pos = 0;
    if (me == 0) {
        struct rec r[2] = {{'a', 1.25, {1, 2, 3}}, {'b', -2.5, {4, 5, 6}}};
        int m[9] = {10, 11, 12, 13, 14, 15, 16, 17, 18};
        CHECK_OK(MPI_Pack(r, 2, rt, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        CHECK(pos == 42);
        CHECK(buf[0] == 'a' && buf[21] == 'b');  /* no padding packed */
        CHECK_OK(MPI_Pack(m, 1, col, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        CHECK(pos == 54);
        CHECK_OK(MPI_Send(buf, pos, MPI_PACKED, 1, 0, MPI_COMM_WORLD));
    } else if (me == 1) {
        MPI_Status st;
        CHECK_OK(MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 0, MPI_COMM_WORLD, &st));
        int n;
        CHECK_OK(MPI_Get_count(&st, MPI_PACKED, &n));
        CHECK(n == 54);
        struct rec r[2];
        memset(r, 0, sizeof r);
        CHECK_OK(MPI_Unpack(buf, n, &pos, r, 2, rt, MPI_COMM_WORLD));
        CHECK(r[0].tag == 'a' && r[0].x == 1.25 && r[0].n[2] == 3);
        CHECK(r[1].tag == 'b' && r[1].x == -2.5 && r[1].n[0] == 4);
        int flat[3] = {0};
        CHECK_OK(MPI_Unpack(buf, n, &pos, flat, 3, MPI_INT, MPI_COMM_WORLD));
        CHECK(flat[0] == 10 && flat[1] == 13 && flat[2] == 16);
        CHECK(pos == 54);
    }
    CHECK_OK(MPI_Type_free(&rt));
    CHECK_OK(MPI_Type_free(&col));
}

static void check_bytes(const unsigned char *got, const unsigned char *want, int n)
{
    for (int i = 0; i < n; i++) {
        if (got[i] != want[i])
            fprintf(stderr, "byte %d: 0x%02x, want 0x%02x\n", i, got[i], want[i]);
        CHECK(got[i] == want[i]);
    }
}

/* Each basic type at its table size, most significant byte first. */
static void external32_is_big_endian_with_fixed_sizes(void)
{
    struct { const char *what; MPI_Datatype t; const void *v; int size;
             unsigned char want[16]; } cases[] = {
        {"int", MPI_INT, &(int){0x01020304}, 4, {1, 2, 3, 4}},
        {"short", MPI_SHORT, &(short){-2}, 2, {0xff, 0xfe}},
        {"long", MPI_LONG, &(long){-5}, 4, {0xff, 0xff, 0xff, 0xfb}},
        {"unsigned long", MPI_UNSIGNED_LONG, &(unsigned long){0x80000001u}, 4,
         {0x80, 0, 0, 1}},
        {"long long", MPI_LONG_LONG, &(long long){0x0102030405060708LL}, 8,
         {1, 2, 3, 4, 5, 6, 7, 8}},
        {"aint", MPI_AINT, &(MPI_Aint){-1}, 8,
         {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
        {"float", MPI_FLOAT, &(float){1.0f}, 4, {0x3f, 0x80, 0, 0}},
        {"double", MPI_DOUBLE, &(double){-2.0}, 8, {0xc0, 0, 0, 0, 0, 0, 0, 0}},
        {"long double", MPI_LONG_DOUBLE, &(long double){1.5L}, 16,
         {0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"wchar", MPI_WCHAR, &(wchar_t){0x263a}, 2, {0x26, 0x3a}},
        {"char", MPI_CHAR, &(char){'Z'}, 1, {'Z'}},
        {"float complex", MPI_C_FLOAT_COMPLEX, &(float _Complex){CMPLXF(1.0f, 2.0f)}, 8,
         {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char buf[32];
        MPI_Aint pos = 0, size;
        CHECK_OK(MPI_Pack_external_size("external32", 1, cases[i].t, &size));
        if (size != cases[i].size)
            fprintf(stderr, "%s: size %ld\n", cases[i].what, (long)size);
        CHECK(size == cases[i].size);
        CHECK_OK(MPI_Pack_external("external32", cases[i].v, 1, cases[i].t, buf, sizeof buf, &pos));
        CHECK(pos == size);
        check_bytes(buf, cases[i].want, cases[i].size);
        /* And back to the same native value. */
        unsigned char back[32] = {0};
        pos = 0;
        CHECK_OK(MPI_Unpack_external("external32", buf, size, &pos, back, 1, cases[i].t));
        CHECK(pos == size);
        MPI_Aint lb, extent;
        CHECK_OK(MPI_Type_get_extent(cases[i].t, &lb, &extent));
        /* x87's long double is 10 bytes of data in 16. */
        size_t native = cases[i].t == MPI_LONG_DOUBLE && LDBL_MANT_DIG == 64 ? 10 : (size_t)extent;
        CHECK(memcmp(back, cases[i].v, native) == 0);
    }
}

/* A struct with padding: the packed form has no gaps, and the pair types
 * are their two members. */
static void external32_of_derived_and_pair_types(void)
{
    MPI_Datatype rt = rec_type();
    MPI_Aint size;
    CHECK_OK(MPI_Pack_external_size("external32", 2, rt, &size));
    CHECK(size == 2 * (1 + 8 + 12));
    struct rec r[2] = {{'q', 0.5, {1, -1, 256}}, {'r', 4.0, {7, 8, 9}}}, back[2];
    unsigned char buf[64];
    MPI_Aint pos = 0;
    CHECK_OK(MPI_Pack_external("external32", r, 2, rt, buf, sizeof buf, &pos));
    CHECK(pos == 42);
    const unsigned char first[21] = {'q', 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                     0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0};
    check_bytes(buf, first, 21);
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK_OK(MPI_Unpack_external("external32", buf, 42, &pos, back, 2, rt));
    for (int i = 0; i < 2; i++)
        CHECK(back[i].tag == r[i].tag && back[i].x == r[i].x && back[i].n[0] == r[i].n[0] &&
              back[i].n[1] == r[i].n[1] && back[i].n[2] == r[i].n[2]);
    CHECK_OK(MPI_Type_free(&rt));

    struct { short v; int i; } si = {-3, 9};
    CHECK_OK(MPI_Pack_external_size("external32", 1, MPI_SHORT_INT, &size));
    CHECK(size == 6);
    pos = 0;
    CHECK_OK(MPI_Pack_external("external32", &si, 1, MPI_SHORT_INT, buf, sizeof buf, &pos));
    check_bytes(buf, (const unsigned char[]){0xff, 0xfd, 0, 0, 0, 9}, 6);
}

static const test_case cases[] = {
    {"pack_appends_and_unpack_reads_back", pack_appends_and_unpack_reads_back},
    {"external32_is_big_endian_with_fixed_sizes", external32_is_big_endian_with_fixed_sizes},
    {"external32_of_derived_and_pair_types", external32_of_derived_and_pair_types},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
