/* op_calls.c — reduction operations: every predefined op on exactly the
 * types MPI 3.1 (5.9.2, 5.9.4) allows, against serial results through
 * MPI_Reduce_local (inoutbuf = inbuf op inoutbuf) and MPI_Allreduce;
 * derived types reduced through their layout; user ops (MPI_Op_create,
 * _free, _commutative) with their operand order; bad arguments. Usage:
 * op_calls CASE, with any number of ranks (the tests use 3). */
#include <complex.h>
#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"

static int rank_, size_;

static void errors_return(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

/* ---- which op takes which type ------------------------------------------ */

enum { OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR,
       OP_BXOR, OP_MAXLOC, OP_MINLOC, OP_REPLACE, OP_NO_OP, NOPS };

static MPI_Op op_handle(int o)
{
    const MPI_Op ops[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
                              MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC,
                              MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    return ops[o];
}

/* The standard's table, written out (logical ops also take M): I C integer, M multi-language
 * (MPI_AINT, MPI_OFFSET, MPI_COUNT), F floating point, X complex, L
 * logical, B byte, P pair, - none (MPI_CHAR, MPI_WCHAR, MPI_PACKED). */
static const struct {
    MPI_Datatype type;
    char cls;
} all_types[] = {
    {MPI_CHAR, '-'}, {MPI_WCHAR, '-'}, {MPI_PACKED, '-'},
    {MPI_SIGNED_CHAR, 'I'}, {MPI_UNSIGNED_CHAR, 'I'}, {MPI_SHORT, 'I'},
    {MPI_UNSIGNED_SHORT, 'I'}, {MPI_INT, 'I'}, {MPI_UNSIGNED, 'I'}, {MPI_LONG, 'I'},
    {MPI_UNSIGNED_LONG, 'I'}, {MPI_LONG_LONG, 'I'}, {MPI_UNSIGNED_LONG_LONG, 'I'},
    {MPI_INT8_T, 'I'}, {MPI_INT16_T, 'I'}, {MPI_INT32_T, 'I'}, {MPI_INT64_T, 'I'},
    {MPI_UINT8_T, 'I'}, {MPI_UINT16_T, 'I'}, {MPI_UINT32_T, 'I'}, {MPI_UINT64_T, 'I'},
    {MPI_AINT, 'M'}, {MPI_OFFSET, 'M'}, {MPI_COUNT, 'M'},
    {MPI_FLOAT, 'F'}, {MPI_DOUBLE, 'F'}, {MPI_LONG_DOUBLE, 'F'},
    {MPI_C_FLOAT_COMPLEX, 'X'}, {MPI_C_DOUBLE_COMPLEX, 'X'}, {MPI_C_LONG_DOUBLE_COMPLEX, 'X'},
    {MPI_C_BOOL, 'L'}, {MPI_BYTE, 'B'},
    {MPI_CXX_BOOL, 'L'}, {MPI_CXX_FLOAT_COMPLEX, 'X'}, {MPI_CXX_DOUBLE_COMPLEX, 'X'},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, 'X'},
    {MPI_FLOAT_INT, 'P'}, {MPI_DOUBLE_INT, 'P'}, {MPI_LONG_INT, 'P'}, {MPI_2INT, 'P'},
    {MPI_SHORT_INT, 'P'}, {MPI_LONG_DOUBLE_INT, 'P'},
};

static bool allowed(int o, char cls)
{
    static const char *const classes[NOPS] = {
        [OP_MAX] = "IMF", [OP_MIN] = "IMF", [OP_SUM] = "IMFX", [OP_PROD] = "IMFX",
        /* Logical ops also on M: beyond MPI 3.1's table, as MPICH does. */
        [OP_LAND] = "ILM", [OP_LOR] = "ILM", [OP_LXOR] = "ILM",
        [OP_BAND] = "IMB", [OP_BOR] = "IMB", [OP_BXOR] = "IMB",
        [OP_MAXLOC] = "P", [OP_MINLOC] = "P", [OP_REPLACE] = "", [OP_NO_OP] = ""};
    return strchr(classes[o], cls) != NULL;
}

static void ops_are_defined_on_exactly_the_standard_types(void)
{
    errors_return();
    /* A logical op on MPI_AINT: 0 or 1, as on the C integers. */
    MPI_Aint a_in[3] = {0, 5, 0}, a_io[3] = {0, 0, -3};
    CHECK_OK(MPI_Reduce_local(a_in, a_io, 3, MPI_AINT, MPI_LOR));
    CHECK(a_io[0] == 0 && a_io[1] == 1 && a_io[2] == 1);
    _Alignas(64) unsigned char in[64] = {0}, io[64] = {0};
    int checked = 0;
    for (int o = 0; o < NOPS; o++)
        for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
            int rc = MPI_Reduce_local(in, io, 1, all_types[t].type, op_handle(o));
            bool ok = allowed(o, all_types[t].cls);
            if (rc != (ok ? MPI_SUCCESS : MPI_ERR_OP))
                fprintf(stderr, "op %d type %zu (class %c): got %d\n", o, t,
                        all_types[t].cls, rc);
            CHECK(rc == (ok ? MPI_SUCCESS : MPI_ERR_OP));
            checked++;
        }
    CHECK(checked == NOPS * 42);
    /* The same answers through a collective. */
    CHECK(MPI_Allreduce(in, io, 1, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(in, io, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(in, io, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(in, io, 1, MPI_INT, MPI_NO_OP, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(in, io, 1, MPI_AINT, MPI_LXOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(in, io, 1, MPI_COUNT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_ERR_OP);
}

/* ---- integers -------------------------------------------------------------- */

/* Contributions of rank r at index i: signs, zero, wrap-around. */
static long long ival(int r, int i)
{
    static const long long t[] = {0, 1, -1, 3, -7, 12, 100, -100, 0x55, 0x2a, 127, -128, 6};
    return t[(r * 5 + i * 7) % 13];
}

/* a op b computed independently of the library: in 64 bits, then narrowed
 * (wrapping, as the integer types' arithmetic does in MPI). */
#define INT_EXPECT(T, o, a, b)                                                    \
    ((o) == OP_SUM    ? (T)((unsigned long long)(a) + (unsigned long long)(b))   \
     : (o) == OP_PROD ? (T)((unsigned long long)(a) * (unsigned long long)(b))   \
     : (o) == OP_MIN  ? ((a) < (b) ? (a) : (b))                                  \
     : (o) == OP_MAX  ? ((a) > (b) ? (a) : (b))                                  \
     : (o) == OP_LAND ? (T)((a) != 0 && (b) != 0)                                \
     : (o) == OP_LOR  ? (T)((a) != 0 || (b) != 0)                                \
     : (o) == OP_LXOR ? (T)(((a) != 0) != ((b) != 0))                            \
     : (o) == OP_BAND ? (T)((a) & (b))                                           \
     : (o) == OP_BOR  ? (T)((a) | (b))                                           \
                      : (T)((a) ^ (b)))

#define INT_CASE(T, MPIT, LOGICAL)                                                \
    do {                                                                          \
        enum { N = 13 };                                                          \
        for (int o = OP_MAX; o <= OP_BXOR; o++) {                                 \
            if (!(LOGICAL) && o >= OP_LAND && o <= OP_LXOR)                       \
                continue;                                                         \
            T in[N], io[N], was[N], all[N];                                       \
            for (int i = 0; i < N; i++) {                                         \
                in[i] = (T)ival(rank_ + 1, i);                                    \
                io[i] = was[i] = (T)ival(rank_ + 2, i);                           \
            }                                                                     \
            CHECK_OK(MPI_Reduce_local(in, io, N, MPIT, op_handle(o)));            \
            for (int i = 0; i < N; i++) {                                         \
                T want = INT_EXPECT(T, o, in[i], was[i]);                         \
                if (io[i] != want)                                                \
                    fprintf(stderr, "%s op %d [%d]: got %lld want %lld\n", #MPIT, \
                            o, i, (long long)io[i], (long long)want);             \
                CHECK(io[i] == want);                                             \
            }                                                                     \
            for (int i = 0; i < N; i++)                                           \
                in[i] = (T)ival(rank_, i);                                        \
            CHECK_OK(MPI_Allreduce(in, all, N, MPIT, op_handle(o), MPI_COMM_WORLD)); \
            for (int i = 0; i < N; i++) {                                         \
                T acc = (T)ival(0, i);                                            \
                for (int r = 1; r < size_; r++) {                                 \
                    T x = (T)ival(r, i);                                          \
                    acc = INT_EXPECT(T, o, acc, x);                               \
                }                                                                 \
                CHECK(all[i] == acc);                                             \
            }                                                                     \
        }                                                                         \
    } while (0)

static void integer_ops_match_serial_results(void)
{
    INT_CASE(signed char, MPI_SIGNED_CHAR, 1);
    INT_CASE(unsigned char, MPI_UNSIGNED_CHAR, 1);
    INT_CASE(short, MPI_SHORT, 1);
    INT_CASE(unsigned short, MPI_UNSIGNED_SHORT, 1);
    INT_CASE(int, MPI_INT, 1);
    INT_CASE(unsigned, MPI_UNSIGNED, 1);
    INT_CASE(long, MPI_LONG, 1);
    INT_CASE(unsigned long, MPI_UNSIGNED_LONG, 1);
    INT_CASE(long long, MPI_LONG_LONG, 1);
    INT_CASE(unsigned long long, MPI_UNSIGNED_LONG_LONG, 1);
    INT_CASE(int8_t, MPI_INT8_T, 1);
    INT_CASE(int16_t, MPI_INT16_T, 1);
    INT_CASE(int32_t, MPI_INT32_T, 1);
    INT_CASE(int64_t, MPI_INT64_T, 1);
    INT_CASE(uint8_t, MPI_UINT8_T, 1);
    INT_CASE(uint16_t, MPI_UINT16_T, 1);
    INT_CASE(uint32_t, MPI_UINT32_T, 1);
    INT_CASE(uint64_t, MPI_UINT64_T, 1);
    INT_CASE(MPI_Aint, MPI_AINT, 0);
    INT_CASE(MPI_Offset, MPI_OFFSET, 0);
    INT_CASE(MPI_Count, MPI_COUNT, 0);
}

/* ---- floating point, complex, logical, byte ---------------------------------- */

/* Halves between -2 and 2: sums and products of a few are exact, so the
 * result is the same in any order of evaluation. */
static double fval(int r, int i)
{
    return ((r * 3 + i * 5) % 9 - 4) * 0.5;
}

#define FLOAT_CASE(T, MPIT)                                                       \
    do {                                                                          \
        enum { N = 9 };                                                           \
        for (int o = OP_MAX; o <= OP_PROD; o++) {                                 \
            T in[N], io[N], was[N], all[N];                                       \
            for (int i = 0; i < N; i++) {                                         \
                in[i] = (T)fval(rank_ + 1, i);                                    \
                io[i] = was[i] = (T)fval(rank_ + 2, i);                           \
            }                                                                     \
            CHECK_OK(MPI_Reduce_local(in, io, N, MPIT, op_handle(o)));            \
            for (int i = 0; i < N; i++)                                           \
                CHECK(io[i] == (o == OP_SUM    ? in[i] + was[i]                   \
                                : o == OP_PROD ? in[i] * was[i]                   \
                                : o == OP_MIN  ? (in[i] < was[i] ? in[i] : was[i]) \
                                               : (in[i] > was[i] ? in[i] : was[i]))); \
            for (int i = 0; i < N; i++)                                           \
                in[i] = (T)fval(rank_, i);                                        \
            CHECK_OK(MPI_Allreduce(in, all, N, MPIT, op_handle(o), MPI_COMM_WORLD)); \
            for (int i = 0; i < N; i++) {                                         \
                T acc = (T)fval(0, i);                                            \
                for (int r = 1; r < size_; r++) {                                 \
                    T x = (T)fval(r, i);                                          \
                    acc = o == OP_SUM ? acc + x : o == OP_PROD ? acc * x          \
                        : o == OP_MIN ? (x < acc ? x : acc) : (x > acc ? x : acc); \
                }                                                                 \
                CHECK(all[i] == acc);                                             \
            }                                                                     \
        }                                                                         \
    } while (0)

static void floating_ops_match_serial_results(void)
{
    FLOAT_CASE(float, MPI_FLOAT);
    FLOAT_CASE(double, MPI_DOUBLE);
    FLOAT_CASE(long double, MPI_LONG_DOUBLE);
}

/* Small Gaussian integers: exact sums and products. */
#define COMPLEX_CASE(T, R, MPIT)                                                  \
    do {                                                                          \
        enum { N = 5 };                                                           \
        for (int o = OP_SUM; o <= OP_PROD; o++) {                                 \
            T in[N], io[N], was[N], all[N];                                       \
            for (int i = 0; i < N; i++) {                                         \
                in[i] = (R)((rank_ + i) % 3 - 1) + (R)((rank_ * 2 + i) % 5 - 2) * (T)I; \
                io[i] = was[i] = (R)(i % 4 - 2) + (R)(rank_ % 3 + 1) * (T)I;      \
            }                                                                     \
            CHECK_OK(MPI_Reduce_local(in, io, N, MPIT, op_handle(o)));            \
            for (int i = 0; i < N; i++)                                           \
                CHECK(io[i] == (o == OP_SUM ? in[i] + was[i] : in[i] * was[i]));  \
            CHECK_OK(MPI_Allreduce(in, all, N, MPIT, op_handle(o), MPI_COMM_WORLD)); \
            for (int i = 0; i < N; i++) {                                         \
                T acc = o == OP_SUM ? 0 : 1;                                      \
                for (int r = 0; r < size_; r++) {                                 \
                    T x = (R)((r + i) % 3 - 1) + (R)((r * 2 + i) % 5 - 2) * (T)I; \
                    acc = o == OP_SUM ? acc + x : acc * x;                        \
                }                                                                 \
                CHECK(creal(all[i]) == creal(acc) && cimag(all[i]) == cimag(acc)); \
            }                                                                     \
        }                                                                         \
    } while (0)

static void complex_sum_and_prod_match_serial_results(void)
{
    COMPLEX_CASE(float _Complex, float, MPI_C_FLOAT_COMPLEX);
    COMPLEX_CASE(double _Complex, double, MPI_C_DOUBLE_COMPLEX);
    COMPLEX_CASE(long double _Complex, long double, MPI_C_LONG_DOUBLE_COMPLEX);
}

static void logical_ops_on_c_bool_and_bitwise_ops_on_byte(void)
{
    /* Every combination of two truth values, for each logical op. */
    bool a[4] = {false, false, true, true}, b[4] = {false, true, false, true};
    const bool land[4] = {0, 0, 0, 1}, lor[4] = {0, 1, 1, 1}, lxor[4] = {0, 1, 1, 0};
    const bool *want[3] = {land, lor, lxor};
    for (int o = OP_LAND; o <= OP_LXOR; o++) {
        bool io[4];
        memcpy(io, b, sizeof io);
        CHECK_OK(MPI_Reduce_local(a, io, 4, MPI_C_BOOL, op_handle(o)));
        CHECK(memcmp(io, want[o - OP_LAND], sizeof io) == 0);
    }
    /* Across ranks: element i is true on rank r when bit r of i is set. */
    enum { N = 16 };
    bool mine[N], all[N];
    for (int i = 0; i < N; i++)
        mine[i] = (i >> rank_) & 1;
    for (int o = OP_LAND; o <= OP_LXOR; o++) {
        CHECK_OK(MPI_Allreduce(mine, all, N, MPI_C_BOOL, op_handle(o), MPI_COMM_WORLD));
        for (int i = 0; i < N; i++) {
            int ones = 0;
            for (int r = 0; r < size_; r++)
                ones += (i >> r) & 1;
            bool w = o == OP_LAND ? ones == size_ : o == OP_LOR ? ones > 0 : ones % 2 == 1;
            CHECK(all[i] == w);
        }
    }
    unsigned char x[4] = {0xF0, 0xAA, 0x00, 0xFF}, y[4] = {0x3C, 0x55, 0xFF, 0x81};
    const unsigned char band[4] = {0x30, 0x00, 0x00, 0x81}, bor[4] = {0xFC, 0xFF, 0xFF, 0xFF},
                        bxor[4] = {0xCC, 0xFF, 0xFF, 0x7E};
    const unsigned char *bwant[3] = {band, bor, bxor};
    for (int o = OP_BAND; o <= OP_BXOR; o++) {
        unsigned char io[4];
        memcpy(io, y, sizeof io);
        CHECK_OK(MPI_Reduce_local(x, io, 4, MPI_BYTE, op_handle(o)));
        CHECK(memcmp(io, bwant[o - OP_BAND], sizeof io) == 0);
    }
    unsigned char bits = (unsigned char)(0x11u << rank_), ball;
    CHECK_OK(MPI_Allreduce(&bits, &ball, 1, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD));
    unsigned char bw = 0;
    for (int r = 0; r < size_; r++)
        bw ^= (unsigned char)(0x11u << r);
    CHECK(ball == bw);
}

/* ---- MINLOC / MAXLOC ------------------------------------------------------------ */

#define PAIR_LOCAL_CASE(T, MPIT)                                                  \
    do {                                                                          \
        struct { T v; int i; } in[4] = {{1, 5}, {3, 5}, {2, 4}, {2, 9}},          \
                               io[4] = {{2, 7}, {2, 7}, {2, 8}, {2, 3}};          \
        /* MINLOC: smaller value wins; tie (elements 2, 3): smaller index. */     \
        CHECK_OK(MPI_Reduce_local(in, io, 4, MPIT, MPI_MINLOC));                  \
        CHECK(io[0].v == 1 && io[0].i == 5 && io[1].v == 2 && io[1].i == 7);      \
        CHECK(io[2].v == 2 && io[2].i == 4 && io[3].v == 2 && io[3].i == 3);      \
        T v2[4] = {2, 2, 2, 2};                                                   \
        int i2[4] = {7, 7, 8, 3};                                                 \
        for (int k = 0; k < 4; k++) {                                             \
            io[k].v = v2[k];                                                      \
            io[k].i = i2[k];                                                      \
        }                                                                         \
        CHECK_OK(MPI_Reduce_local(in, io, 4, MPIT, MPI_MAXLOC));                  \
        CHECK(io[0].v == 2 && io[0].i == 7 && io[1].v == 3 && io[1].i == 5);      \
        CHECK(io[2].v == 2 && io[2].i == 4 && io[3].v == 2 && io[3].i == 3);      \
    } while (0)

/* Rank r holds value r % 2 at index 100 - r: the extreme values tie on
 * half the ranks, and the smallest index belongs to the highest of them. */
#define PAIR_ALLREDUCE_CASE(T, MPIT)                                              \
    do {                                                                          \
        struct { T v; int i; } mine = {(T)(rank_ % 2), 100 - rank_}, lo, hi;     \
        CHECK_OK(MPI_Allreduce(&mine, &lo, 1, MPIT, MPI_MINLOC, MPI_COMM_WORLD)); \
        CHECK_OK(MPI_Allreduce(&mine, &hi, 1, MPIT, MPI_MAXLOC, MPI_COMM_WORLD)); \
        int last_even = (size_ - 1) / 2 * 2, last_odd = size_ > 1 ? (size_ - 2) / 2 * 2 + 1 : 0; \
        CHECK(lo.v == 0 && lo.i == 100 - last_even);                              \
        if (size_ > 1)                                                            \
            CHECK(hi.v == 1 && hi.i == 100 - last_odd);                           \
    } while (0)

static void minloc_and_maxloc_take_the_smaller_index_on_ties(void)
{
    PAIR_LOCAL_CASE(float, MPI_FLOAT_INT);
    PAIR_LOCAL_CASE(double, MPI_DOUBLE_INT);
    PAIR_LOCAL_CASE(long, MPI_LONG_INT);
    PAIR_LOCAL_CASE(int, MPI_2INT);
    PAIR_LOCAL_CASE(short, MPI_SHORT_INT);
    PAIR_LOCAL_CASE(long double, MPI_LONG_DOUBLE_INT);
    /* The pair types without padding gaps (the others wait for the
     * collectives' layout walk). */
    PAIR_ALLREDUCE_CASE(float, MPI_FLOAT_INT);
    PAIR_ALLREDUCE_CASE(int, MPI_2INT);
}

/* ---- derived datatypes ------------------------------------------------------------ */

static MPI_Datatype commit(MPI_Datatype t)
{
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

static void derived_types_reduce_through_their_layout(void)
{
    errors_return();
    /* A vector of ints with gaps, resized to leave a trailing gap: ints at
     * 0, 2, 4 of each 6. The gaps of inoutbuf keep their values. */
    MPI_Datatype vec, every_other;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &every_other));
    every_other = commit(every_other);
    int in[12], io[12], was[12];
    for (int i = 0; i < 12; i++) {
        in[i] = 1000 + i;
        io[i] = was[i] = i % 2 ? -1 : i;
    }
    CHECK_OK(MPI_Reduce_local(in, io, 2, every_other, MPI_SUM));
    for (int i = 0; i < 12; i++)
        CHECK(io[i] == (i % 2 ? -1 : in[i] + was[i]));
    CHECK_OK(MPI_Reduce_local(in, io, 2, every_other, MPI_BXOR));
    for (int i = 0; i < 12; i++)
        CHECK(io[i] == (i % 2 ? -1 : (in[i] ^ (in[i] + was[i]))));

    /* A contiguous of MPI_2INT is pairs for MINLOC (its signature alone is
     * just ints); a contiguous of 4 ints is not. */
    MPI_Datatype pairs = MPI_DATATYPE_NULL, ints4 = MPI_DATATYPE_NULL;
    CHECK_OK(MPI_Type_contiguous(3, MPI_2INT, &pairs));
    pairs = commit(pairs);
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &ints4));
    ints4 = commit(ints4);
    int p_in[12] = {5, 1, 4, 2, 9, 9, 1, 1, 1, 1, 1, 1};
    int q_io[12] = {6, 0, 4, 7, 8, 3, 2, 2, 1, 5, 0, 9};
    CHECK_OK(MPI_Reduce_local(p_in, q_io, 2, pairs, MPI_MINLOC));
    const int q_want[12] = {5, 1, 4, 2, 8, 3, 1, 1, 1, 1, 0, 9};
    CHECK(memcmp(q_io, q_want, sizeof q_want) == 0);
    CHECK(MPI_Reduce_local(p_in, q_io, 1, ints4, MPI_MINLOC) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(p_in, q_io, 1, pairs, MPI_SUM) == MPI_ERR_OP);
    CHECK(memcmp(q_io, q_want, sizeof q_want) == 0);   /* nothing was touched */

    /* MPI_SHORT_INT has a padding gap between its members; a vector of it
     * has gaps between elements too. Only the data bytes change. */
    typedef struct { short v; int i; } short_int;
    MPI_Datatype sivec;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_SHORT_INT, &sivec));
    sivec = commit(sivec);
    short_int s_in[3], s_io[3], s_want[3];
    memset(s_in, 0xA5, sizeof s_in);
    memset(s_io, 0x5A, sizeof s_io);
    s_in[0].v = 7, s_in[0].i = 0, s_in[2].v = 9, s_in[2].i = 1;
    s_in[1].v = 99, s_in[1].i = 0;          /* the gap: never read */
    s_io[0].v = 7, s_io[0].i = 1, s_io[2].v = 4, s_io[2].i = 6;
    s_io[1].v = -1, s_io[1].i = -1;
    memcpy(s_want, s_io, sizeof s_want);
    s_want[0].i = 0;                         /* tie: the smaller index */
    s_want[2].v = 9, s_want[2].i = 1;        /* the larger value */
    CHECK_OK(MPI_Reduce_local(s_in, s_io, 1, sivec, MPI_MAXLOC));
    CHECK(memcmp(s_io, s_want, sizeof s_want) == 0);   /* padding included */

    /* Derived types of every pair type reduce as the pair type itself
     * does (whose results the MINLOC/MAXLOC case checks). */
#define PAIR_DERIVED_CASE(T, MPIT)                                                \
    do {                                                                          \
        struct { T v; int i; } a[4], b[4], c[4];                                  \
        memset(a, 0, sizeof a), memset(b, 0, sizeof b);                           \
        const double av[4] = {1.5, -2.25, 3, 7}, bv[4] = {1.25, -2.25, 4, 7};     \
        for (int k = 0; k < 4; k++) {                                             \
            a[k].v = (T)(av[k] * 4), a[k].i = 10 + k;                             \
            b[k].v = (T)(bv[k] * 4), b[k].i = 13 - 2 * k;                         \
        }                                                                         \
        MPI_Datatype four;                                                        \
        CHECK_OK(MPI_Type_contiguous(4, MPIT, &four));                            \
        four = commit(four);                                                      \
        for (int o = OP_MAXLOC; o <= OP_MINLOC; o++) {                            \
            memcpy(c, b, sizeof c);                                               \
            CHECK_OK(MPI_Reduce_local(a, c, 4, MPIT, op_handle(o)));              \
            struct { T v; int i; } d[4];                                          \
            memcpy(d, b, sizeof d);                                               \
            CHECK_OK(MPI_Reduce_local(a, d, 1, four, op_handle(o)));              \
            CHECK(memcmp(c, d, sizeof c) == 0);                                   \
            CHECK(memcmp(c, b, sizeof c) != 0);   /* something changed */         \
        }                                                                         \
        CHECK_OK(MPI_Type_free(&four));                                           \
    } while (0)
    PAIR_DERIVED_CASE(float, MPI_FLOAT_INT);
    PAIR_DERIVED_CASE(double, MPI_DOUBLE_INT);
    PAIR_DERIVED_CASE(long, MPI_LONG_INT);
    PAIR_DERIVED_CASE(int, MPI_2INT);
    PAIR_DERIVED_CASE(short, MPI_SHORT_INT);
    PAIR_DERIVED_CASE(long double, MPI_LONG_DOUBLE_INT);

    /* Misaligned elements (an hindexed type placing doubles at odd bytes)
     * reduce like aligned ones; the other bytes stay. */
    MPI_Datatype odd;
    CHECK_OK(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){1, 13}, MPI_DOUBLE, &odd));
    odd = commit(odd);
    _Alignas(16) unsigned char b_in[32], b_io[32], b_want[32];
    memset(b_in, 0x11, sizeof b_in);
    memset(b_io, 0x22, sizeof b_io);
    double d1 = 1.5, d2 = -4.25, e1 = 2.0, e2 = 0.5;
    memcpy(b_in + 1, &d1, 8), memcpy(b_in + 13, &d2, 8);
    memcpy(b_io + 1, &e1, 8), memcpy(b_io + 13, &e2, 8);
    memcpy(b_want, b_io, sizeof b_want);
    double w1 = d1 * e1, w2 = d2 * e2;
    memcpy(b_want + 1, &w1, 8), memcpy(b_want + 13, &w2, 8);
    CHECK_OK(MPI_Reduce_local(b_in, b_io, 1, odd, MPI_PROD));
    CHECK(memcmp(b_io, b_want, sizeof b_want) == 0);

    /* Bound markers carry no data: {int at 0, MPI_UB at 16} reduces as
     * ints 16 bytes apart. A resized MPI_DOUBLE_INT reduces as pairs. */
    MPI_Datatype marked, wide_pair;
    CHECK_OK(MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 16},
                             (MPI_Datatype[]){MPI_INT, MPI_UB}, &marked));
    marked = commit(marked);
    int m_in[8] = {1, 9, 9, 9, 2, 9, 9, 9}, m_io[8] = {10, 0, 0, 0, 20, 0, 0, 0};
    CHECK_OK(MPI_Reduce_local(m_in, m_io, 2, marked, MPI_MAX));
    CHECK(m_io[0] == 10 && m_io[4] == 20 && m_io[1] == 0 && m_io[5] == 0);
    CHECK_OK(MPI_Reduce_local(m_in, m_io, 2, marked, MPI_MIN));
    CHECK(m_io[0] == 1 && m_io[4] == 2 && m_io[2] == 0 && m_io[7] == 0);
    typedef struct { double v; int i; } double_int;
    CHECK_OK(MPI_Type_create_resized(MPI_DOUBLE_INT, 0, 2 * sizeof(double_int), &wide_pair));
    wide_pair = commit(wide_pair);
    double_int di_in[4] = {{1.0, 1}, {-8, -8}, {0.25, 4}, {-8, -8}};
    double_int di_io[4] = {{1.0, 2}, {7, 7}, {0.5, 9}, {7, 7}};
    CHECK_OK(MPI_Reduce_local(di_in, di_io, 2, wide_pair, MPI_MINLOC));
    CHECK(di_io[0].v == 1.0 && di_io[0].i == 1 && di_io[2].v == 0.25 && di_io[2].i == 4);
    CHECK(di_io[1].v == 7 && di_io[1].i == 7 && di_io[3].v == 7 && di_io[3].i == 7);

    /* Logical and bitwise ops through derived types of MPI_C_BOOL and
     * MPI_BYTE; elements of mixed kinds have no reduction. */
    MPI_Datatype bools, bytes, mixed;
    CHECK_OK(MPI_Type_contiguous(2, MPI_C_BOOL, &bools));
    bools = commit(bools);
    CHECK_OK(MPI_Type_indexed(2, (int[]){1, 2}, (int[]){0, 3}, MPI_BYTE, &bytes));
    bytes = commit(bytes);
    bool bl_in[4] = {true, false, true, true}, bl_io[4] = {true, true, false, true};
    CHECK_OK(MPI_Reduce_local(bl_in, bl_io, 2, bools, MPI_LXOR));
    CHECK(!bl_io[0] && bl_io[1] && bl_io[2] && !bl_io[3]);
    unsigned char by_in[5] = {0x0F, 0x00, 0x00, 0xF0, 0x33},
                  by_io[5] = {0xFF, 0x77, 0x3C, 0x0F, 0x0F};
    CHECK_OK(MPI_Reduce_local(by_in, by_io, 1, bytes, MPI_BAND));
    CHECK(by_io[0] == 0x0F && by_io[1] == 0x77 && by_io[2] == 0x3C && by_io[3] == 0x00 &&
          by_io[4] == 0x03);
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                    (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &mixed));
    mixed = commit(mixed);
    CHECK(MPI_Reduce_local(in, io, 1, mixed, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(bl_in, bl_io, 1, bools, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 1, every_other, MPI_LXOR) == MPI_SUCCESS);

    MPI_Datatype to_free[] = {vec, every_other, pairs, ints4, sivec, odd, marked, wide_pair,
                              bools, bytes, mixed};
    for (size_t i = 0; i < sizeof to_free / sizeof to_free[0]; i++)
        CHECK_OK(MPI_Type_free(&to_free[i]));
}

/* ---- user ops --------------------------------------------------------------------- */

/* What the last call of a user function saw. */
static MPI_Datatype seen_type;
static int seen_len, seen_calls;

/* Sums the ints of an `every_other`-like layout itself (ints at 0, 2, 4 of
 * 6), touching nothing else; for MPI_INT, plain ints. */
static void sum_ints(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    seen_type = *type;
    seen_len = *len;
    seen_calls++;
    const int *a = invec;
    int *b = inoutvec;
    if (*type == MPI_INT) {
        for (int i = 0; i < *len; i++)
            b[i] += a[i];
        return;
    }
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < 6; k += 2)
            b[e * 6 + k] += a[e * 6 + k];
}

static void user_ops_get_the_callers_type_and_layout(void)
{
    MPI_Op op;
    CHECK_OK(MPI_Op_create(sum_ints, 1, &op));
    MPI_Datatype vec, every_other;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &every_other));
    every_other = commit(every_other);
    int in[12], io[12];
    for (int i = 0; i < 12; i++) {
        in[i] = 100 * i;
        io[i] = i % 2 ? -5 : i;
    }
    seen_calls = 0;
    CHECK_OK(MPI_Reduce_local(in, io, 2, every_other, op));
    CHECK(seen_calls == 1 && seen_type == every_other && seen_len == 2);
    for (int i = 0; i < 12; i++)
        CHECK(io[i] == (i % 2 ? -5 : 101 * i));
    seen_calls = 0;
    CHECK_OK(MPI_Reduce_local(in, io, 0, every_other, op));   /* nothing to do */
    CHECK_OK(MPI_Type_free(&vec));
    CHECK_OK(MPI_Type_free(&every_other));

    /* Through MPI_Allreduce, each rank with its own handle of the op: small
     * counts, and a large one whose parts are reduced separately. */
    int v = rank_ + 1, total = 0;
    CHECK_OK(MPI_Allreduce(&v, &total, 1, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(total == size_ * (size_ + 1) / 2);
    enum { BIG = 20000 };
    int *big = malloc(BIG * sizeof *big), *sum = malloc(BIG * sizeof *sum);
    CHECK(big && sum);
    for (int i = 0; i < BIG; i++)
        big[i] = i * (rank_ + 1);
    CHECK_OK(MPI_Allreduce(big, sum, BIG, MPI_INT, op, MPI_COMM_WORLD));
    for (int i = 0; i < BIG; i++)
        CHECK(sum[i] == i * (size_ * (size_ + 1) / 2));
    free(big);
    free(sum);
    CHECK_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);
}

/* 2x2 integer matrices, row-major: inout = in x inout. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = invec;
    int *b = inoutvec;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

/* Concatenation of decimal digits: inout = in . inout. */
static void concat(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    (void)type;
    const long long *a = invec;
    long long *b = inoutvec;
    for (int k = 0; k < *len; k++) {
        long long scale = 1;
        while (scale <= b[k])
            scale *= 10;
        b[k] = a[k] * scale + b[k];
    }
}

static void non_commutative_user_ops_keep_the_operand_order(void)
{
    MPI_Op mat, cat;
    CHECK_OK(MPI_Op_create(matmul, 0, &mat));
    CHECK_OK(MPI_Op_create(concat, 0, &cat));
    MPI_Datatype m2;
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &m2));
    m2 = commit(m2);
    /* A B != B A: the result must be A B. */
    int a[8] = {1, 2, 3, 4, 0, 1, 1, 0}, b[8] = {0, 1, 1, 1, 2, 0, 0, 3};
    CHECK_OK(MPI_Reduce_local(a, b, 2, m2, mat));
    const int ab[8] = {2, 3, 4, 7, 0, 3, 2, 0};
    CHECK(memcmp(b, ab, sizeof ab) == 0);
    /* Folding M1 (M2 M3) as a reduction from the last operand down. */
    int m[3][4] = {{1, 1, 0, 1}, {2, 0, 0, 1}, {1, 0, 3, 1}};
    int acc[4];
    memcpy(acc, m[2], sizeof acc);
    CHECK_OK(MPI_Reduce_local(m[1], acc, 1, m2, mat));
    CHECK_OK(MPI_Reduce_local(m[0], acc, 1, m2, mat));
    const int m123[4] = {5, 1, 3, 1};
    CHECK(memcmp(acc, m123, sizeof acc) == 0);
    long long x[2] = {12, 7}, y[2] = {345, 5};
    CHECK_OK(MPI_Reduce_local(x, y, 2, MPI_LONG_LONG, cat));
    CHECK(y[0] == 12345 && y[1] == 75);
    CHECK_OK(MPI_Type_free(&m2));
    CHECK_OK(MPI_Op_free(&mat));
    CHECK_OK(MPI_Op_free(&cat));
}

static void op_create_free_and_commutative(void)
{
    errors_return();
    int c = -1;
    for (int o = 0; o < NOPS; o++) {
        CHECK_OK(MPI_Op_commutative(op_handle(o), &c));
        CHECK(c == (o == OP_REPLACE || o == OP_NO_OP ? 0 : 1));
    }
    MPI_Op yes, no;
    CHECK_OK(MPI_Op_create(sum_ints, 7, &yes));   /* any non-zero is true */
    CHECK_OK(MPI_Op_create(matmul, 0, &no));
    CHECK(yes != no && yes != MPI_OP_NULL);
    /* A freed op's memory may serve another rank's next MPI_Op_create: no
     * rank creates one between these barriers. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Op_commutative(yes, &c));
    CHECK(c == 1);
    CHECK_OK(MPI_Op_commutative(no, &c));
    CHECK(c == 0);
    /* Freed: the handle becomes MPI_OP_NULL and a copy of it is refused
     * everywhere, while the other op keeps working. */
    MPI_Op stale = no;
    CHECK_OK(MPI_Op_free(&no));
    CHECK(no == MPI_OP_NULL);
    int v[2] = {1, 2}, w[2] = {3, 4};
    CHECK(MPI_Op_commutative(stale, &c) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(v, w, 2, MPI_INT, stale) == MPI_ERR_OP);
    CHECK(MPI_Op_free(&stale) == MPI_ERR_OP);
    CHECK(w[0] == 3 && w[1] == 4);
    CHECK_OK(MPI_Reduce_local(v, w, 2, MPI_INT, yes));
    CHECK(w[0] == 4 && w[1] == 6);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Many creations and frees, all ranks at once: each new op works. */
    for (int k = 0; k < 300; k++) {
        MPI_Op t;
        CHECK_OK(MPI_Op_create(k % 2 ? sum_ints : matmul, k % 2, &t));
        CHECK_OK(MPI_Op_commutative(t, &c));
        CHECK(c == k % 2);
        if (k % 2) {
            int p = k, q = 1;
            CHECK_OK(MPI_Reduce_local(&p, &q, 1, MPI_INT, t));
            CHECK(q == k + 1);
        }
        CHECK_OK(MPI_Op_free(&t));
    }
    CHECK_OK(MPI_Op_free(&yes));
}

static void bad_arguments_return_error_classes(void)
{
    errors_return();
    int in[2] = {1, 2}, io[2] = {5, 6};
    MPI_Datatype loose;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &loose));   /* not committed */
    /* Reduce_local: each argument, and inoutbuf untouched every time. */
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_OP_NULL) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, (MPI_Op)in) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_DOUBLE, MPI_BXOR) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_MAXLOC) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_REPLACE) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_NO_OP) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(NULL, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(in, NULL, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(in, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(io, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(in, io, -1, MPI_INT, MPI_SUM) == MPI_ERR_COUNT);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_DATATYPE_NULL, MPI_SUM) == MPI_ERR_TYPE);
    CHECK(MPI_Reduce_local(in, io, 2, (MPI_Datatype)io, MPI_SUM) == MPI_ERR_TYPE);
    CHECK(MPI_Reduce_local(in, io, 1, loose, MPI_SUM) == MPI_ERR_TYPE);
    CHECK(io[0] == 5 && io[1] == 6);
    CHECK_OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));   /* nothing to read */
    CHECK_OK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_SUM));
    CHECK(io[0] == 6 && io[1] == 8);
    /* Op_create, Op_free, Op_commutative. */
    MPI_Op op = MPI_OP_NULL, sum = MPI_SUM, null = MPI_OP_NULL;
    int c;
    CHECK(MPI_Op_create(NULL, 1, &op) == MPI_ERR_ARG);
    CHECK(MPI_Op_create(sum_ints, 1, NULL) == MPI_ERR_ARG);
    CHECK(op == MPI_OP_NULL);
    CHECK(MPI_Op_free(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Op_free(&null) == MPI_ERR_OP);
    CHECK(MPI_Op_free(&sum) == MPI_ERR_OP);
    CHECK(sum == MPI_SUM);
    CHECK(MPI_Op_commutative(MPI_OP_NULL, &c) == MPI_ERR_OP);
    CHECK(MPI_Op_commutative(MPI_SUM, NULL) == MPI_ERR_ARG);
    /* The collectives use the same op checks. */
    CHECK(MPI_Allreduce(in, io, 2, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(in, io, 2, MPI_FLOAT, MPI_LOR, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(io[0] == 6 && io[1] == 8);
    CHECK_OK(MPI_Type_free(&loose));
    /* Nothing was started: a collective still matches up. */
    CHECK_OK(MPI_Allreduce(in, io, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(io[0] == size_ && io[1] == 2 * size_);
}

/* For the fatal paths (the message is checked by the test). */
static void replace_in_reduce_local_is_fatal(void)
{
    int a = 1, b = 2;
    if (rank_ == 0)
        MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_REPLACE);
}

static void op_not_defined_for_type_is_fatal(void)
{
    double a = 1, b = 2;
    if (rank_ == 1)
        MPI_Reduce_local(&a, &b, 1, MPI_DOUBLE, MPI_BAND);
}

static void freeing_a_predefined_op_is_fatal(void)
{
    MPI_Op op = MPI_MINLOC;
    if (rank_ == 0)
        MPI_Op_free(&op);
}

static const test_case cases[] = {
    {"ops_are_defined_on_exactly_the_standard_types",
     ops_are_defined_on_exactly_the_standard_types},
    {"integer_ops_match_serial_results", integer_ops_match_serial_results},
    {"floating_ops_match_serial_results", floating_ops_match_serial_results},
    {"complex_sum_and_prod_match_serial_results", complex_sum_and_prod_match_serial_results},
    {"logical_ops_on_c_bool_and_bitwise_ops_on_byte",
     logical_ops_on_c_bool_and_bitwise_ops_on_byte},
    {"minloc_and_maxloc_take_the_smaller_index_on_ties",
     minloc_and_maxloc_take_the_smaller_index_on_ties},
    {"derived_types_reduce_through_their_layout", derived_types_reduce_through_their_layout},
    {"user_ops_get_the_callers_type_and_layout", user_ops_get_the_callers_type_and_layout},
    {"non_commutative_user_ops_keep_the_operand_order",
     non_commutative_user_ops_keep_the_operand_order},
    {"op_create_free_and_commutative", op_create_free_and_commutative},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"replace_in_reduce_local_is_fatal", replace_in_reduce_local_is_fatal},
    {"op_not_defined_for_type_is_fatal", op_not_defined_for_type_is_fatal},
    {"freeing_a_predefined_op_is_fatal", freeing_a_predefined_op_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
