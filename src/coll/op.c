/*
 * op.c — reduction operations: the predefined ones of MPI 3.1, 5.9.2 and
 * 5.9.4 on the types MPI defines them for, user-defined ones
 * (MPI_Op_create), and applying either to buffers of any datatype layout.
 *
 * Types. Which op may reduce which type goes by the type's *reduction base*:
 * a predefined type is its own; a derived type has one when every type it
 * was built from (its contents, recursively; MPI_LB/MPI_UB markers carry no
 * data) has the same one. So a vector of MPI_INT reduces as ints and a
 * contiguous of MPI_2INT as (value, index) pairs for MINLOC, although its
 * type signature is just ints; a struct of an int and a double has none.
 *
 * Kernels. One per element type, with the operation chosen outside the
 * loop so that each loop is a plain element-wise one the compiler
 * vectorises. Signed integer sums and products are computed in the
 * matching unsigned type: they wrap around instead of being undefined
 * behaviour (types narrower than int go through `unsigned`, because their
 * unsigned types would be promoted back to a signed int). A predefined
 * type, or a derived one whose data is one gapless block, is one kernel
 * call; otherwise the layout's blocks are walked (each block holds whole
 * basic elements) and each block is one call. Misaligned data (a derived
 * type may place an int at an odd byte) goes through an aligned bounce
 * buffer, since the kernels load and store typed values.
 *
 * MINLOC/MAXLOC pairs of a predefined pair type are C structs {value,
 * int}; inside a derived type a pair's value and index may even sit in
 * different blocks (MPI_SHORT_INT's padding), so the walk meets them as an
 * alternating sequence of values and indices and combines each pair once
 * its index is reached.
 *
 * User ops live in slabs that are never returned to malloc: a released op
 * is marked dead and kept on a free list, so a stale handle (an op freed
 * already) still reads as an object whose magic says it is not an op.
 */
#include "coll/coll.h"

#include <complex.h>
#include <limits.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PREDEFINED_OP(var, k, nm, comm)                                      \
    struct myr_mpi_op var = {.magic = MYR_MAGIC_OP, .kind = k, .name = nm,   \
                             .commute = comm}

PREDEFINED_OP(myr_mpi_op_max, MYR_OP_MAX, "MPI_MAX", true);
PREDEFINED_OP(myr_mpi_op_min, MYR_OP_MIN, "MPI_MIN", true);
PREDEFINED_OP(myr_mpi_op_sum, MYR_OP_SUM, "MPI_SUM", true);
PREDEFINED_OP(myr_mpi_op_prod, MYR_OP_PROD, "MPI_PROD", true);
PREDEFINED_OP(myr_mpi_op_land, MYR_OP_LAND, "MPI_LAND", true);
PREDEFINED_OP(myr_mpi_op_lor, MYR_OP_LOR, "MPI_LOR", true);
PREDEFINED_OP(myr_mpi_op_lxor, MYR_OP_LXOR, "MPI_LXOR", true);
PREDEFINED_OP(myr_mpi_op_band, MYR_OP_BAND, "MPI_BAND", true);
PREDEFINED_OP(myr_mpi_op_bor, MYR_OP_BOR, "MPI_BOR", true);
PREDEFINED_OP(myr_mpi_op_bxor, MYR_OP_BXOR, "MPI_BXOR", true);
PREDEFINED_OP(myr_mpi_op_maxloc, MYR_OP_MAXLOC, "MPI_MAXLOC", true);
PREDEFINED_OP(myr_mpi_op_minloc, MYR_OP_MINLOC, "MPI_MINLOC", true);
/* a REPLACE b = a and a NO_OP b = b: neither is commutative. */
PREDEFINED_OP(myr_mpi_op_replace, MYR_OP_REPLACE, "MPI_REPLACE", false);
PREDEFINED_OP(myr_mpi_op_no_op, MYR_OP_NO_OP, "MPI_NO_OP", false);

/* ---- kernels ------------------------------------------------------------ */

typedef void (*kernel_fn)(myr_op_kind kind, size_t n, const void *in, void *inout);

/* Integers: arithmetic, order, logical and bitwise operations. U is the
 * type the arithmetic is done in. */
#define INTEGER_KERNEL(name, T, U)                                           \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const T *in = in_;                                                   \
        T *io = io_;                                                         \
        switch (kind) {                                                      \
        case MYR_OP_SUM:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)((U)in[i] + (U)io[i]);                            \
            break;                                                           \
        case MYR_OP_PROD:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)((U)in[i] * (U)io[i]);                            \
            break;                                                           \
        case MYR_OP_MIN:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] < io[i] ? in[i] : io[i];                       \
            break;                                                           \
        case MYR_OP_MAX:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] > io[i] ? in[i] : io[i];                       \
            break;                                                           \
        case MYR_OP_LAND:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(in[i] && io[i]);                                 \
            break;                                                           \
        case MYR_OP_LOR:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(in[i] || io[i]);                                 \
            break;                                                           \
        case MYR_OP_LXOR:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(!in[i] != !io[i]);                               \
            break;                                                           \
        case MYR_OP_BAND:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(in[i] & io[i]);                                  \
            break;                                                           \
        case MYR_OP_BOR:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(in[i] | io[i]);                                  \
            break;                                                           \
        case MYR_OP_BXOR:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)(in[i] ^ io[i]);                                  \
            break;                                                           \
        default:                                                             \
            break;                                                           \
        }                                                                    \
    }

/* Floating point: arithmetic and order. */
#define FLOAT_KERNEL(name, T)                                                \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const T *in = in_;                                                   \
        T *io = io_;                                                         \
        switch (kind) {                                                      \
        case MYR_OP_SUM:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] + io[i];                                       \
            break;                                                           \
        case MYR_OP_PROD:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] * io[i];                                       \
            break;                                                           \
        case MYR_OP_MIN:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] < io[i] ? in[i] : io[i];                       \
            break;                                                           \
        case MYR_OP_MAX:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] > io[i] ? in[i] : io[i];                       \
            break;                                                           \
        default:                                                             \
            break;                                                           \
        }                                                                    \
    }

/* Complex numbers: SUM and PROD only (no order). */
#define COMPLEX_KERNEL(name, T)                                              \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const T *in = in_;                                                   \
        T *io = io_;                                                         \
        if (kind == MYR_OP_SUM)                                              \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] + io[i];                                       \
        else if (kind == MYR_OP_PROD)                                        \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] * io[i];                                       \
    }

INTEGER_KERNEL(k_schar, signed char, unsigned)
INTEGER_KERNEL(k_uchar, unsigned char, unsigned)
INTEGER_KERNEL(k_short, short, unsigned)
INTEGER_KERNEL(k_ushort, unsigned short, unsigned)
INTEGER_KERNEL(k_int, int, unsigned)
INTEGER_KERNEL(k_uint, unsigned, unsigned)
INTEGER_KERNEL(k_long, long, unsigned long)
INTEGER_KERNEL(k_ulong, unsigned long, unsigned long)
INTEGER_KERNEL(k_llong, long long, unsigned long long)
INTEGER_KERNEL(k_ullong, unsigned long long, unsigned long long)
INTEGER_KERNEL(k_i8, int8_t, unsigned)
INTEGER_KERNEL(k_i16, int16_t, unsigned)
INTEGER_KERNEL(k_i32, int32_t, uint32_t)
INTEGER_KERNEL(k_i64, int64_t, uint64_t)
INTEGER_KERNEL(k_u8, uint8_t, unsigned)
INTEGER_KERNEL(k_u16, uint16_t, unsigned)
INTEGER_KERNEL(k_u32, uint32_t, uint32_t)
INTEGER_KERNEL(k_u64, uint64_t, uint64_t)
INTEGER_KERNEL(k_aint, MPI_Aint, uintptr_t)
INTEGER_KERNEL(k_mpicount, MPI_Count, unsigned long long)
INTEGER_KERNEL(k_offset, MPI_Offset, unsigned long long)
INTEGER_KERNEL(k_byte, unsigned char, unsigned)   /* only BAND, BOR, BXOR reach it */
FLOAT_KERNEL(k_float, float)
FLOAT_KERNEL(k_double, double)
FLOAT_KERNEL(k_ldouble, long double)
COMPLEX_KERNEL(k_cfloat, float _Complex)
COMPLEX_KERNEL(k_cdouble, double _Complex)
COMPLEX_KERNEL(k_cldouble, long double _Complex)

static void k_bool(myr_op_kind kind, size_t n, const void *in_, void *io_)
{
    const _Bool *in = in_;
    _Bool *io = io_;
    switch (kind) {
    case MYR_OP_LAND:
        for (size_t i = 0; i < n; i++)
            io[i] = in[i] && io[i];
        break;
    case MYR_OP_LOR:
        for (size_t i = 0; i < n; i++)
            io[i] = in[i] || io[i];
        break;
    case MYR_OP_LXOR:
        for (size_t i = 0; i < n; i++)
            io[i] = in[i] != io[i];
        break;
    default:
        break;
    }
}

/* MINLOC/MAXLOC of (u, i) (the left operand, `in`) and (v, j): the smaller
 * or larger value wins; on a tie, the smaller index (MPI 3.1, 5.9.4). */
#define PAIR_COMBINE(kind, u, i, v, j)                                       \
    do {                                                                     \
        if ((kind) == MYR_OP_MINLOC ? (u) < (v) : (u) > (v)) {               \
            (v) = (u);                                                       \
            (j) = (i);                                                       \
        } else if ((u) == (v) && (i) < (j)) {                                \
            (j) = (i);                                                       \
        }                                                                    \
    } while (0)

/* Pairs of a predefined pair type: an array of C structs (the layout of
 * datatype.c's pair types). */
#define PAIR_KERNEL(name, T)                                                 \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const struct { T value; int index; } *in = in_;                      \
        struct { T value; int index; } *io = io_;                            \
        for (size_t p = 0; p < n; p++)                                       \
            PAIR_COMBINE(kind, in[p].value, in[p].index, io[p].value,        \
                         io[p].index);                                       \
    }

/* One pair anywhere (inside a derived type's layout): value and index
 * addresses given separately, read and written bytewise (no alignment). */
typedef void (*pair_fn)(myr_op_kind kind, const char *vin, const char *iin,
                        char *vio, char *iio);

#define PAIR_ONE(name, T)                                                    \
    static void name(myr_op_kind kind, const char *vin, const char *iin,     \
                     char *vio, char *iio)                                   \
    {                                                                        \
        T u, v;                                                              \
        int i, j;                                                            \
        memcpy(&u, vin, sizeof u);                                           \
        memcpy(&i, iin, sizeof i);                                           \
        memcpy(&v, vio, sizeof v);                                           \
        memcpy(&j, iio, sizeof j);                                           \
        PAIR_COMBINE(kind, u, i, v, j);                                      \
        memcpy(vio, &v, sizeof v);                                           \
        memcpy(iio, &j, sizeof j);                                           \
    }

/* Fortran's pairs (MPI_2REAL, MPI_2DOUBLE_PRECISION): the index is of
 * the value's type. */
#define PAIR_SAME_KERNEL(name, T)                                            \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const T *in = in_;                                                   \
        T *io = io_;                                                         \
        for (size_t p = 0; p < n; p++)                                       \
            PAIR_COMBINE(kind, in[2 * p], in[2 * p + 1], io[2 * p],          \
                         io[2 * p + 1]);                                     \
    }

#define PAIR_SAME_ONE(name, T)                                               \
    static void name(myr_op_kind kind, const char *vin, const char *iin,     \
                     char *vio, char *iio)                                   \
    {                                                                        \
        T u, v, i, j;                                                        \
        memcpy(&u, vin, sizeof u);                                           \
        memcpy(&i, iin, sizeof i);                                           \
        memcpy(&v, vio, sizeof v);                                           \
        memcpy(&j, iio, sizeof j);                                           \
        PAIR_COMBINE(kind, u, i, v, j);                                      \
        memcpy(vio, &v, sizeof v);                                           \
        memcpy(iio, &j, sizeof j);                                           \
    }

PAIR_SAME_KERNEL(k_2real, float)
PAIR_SAME_KERNEL(k_2double, double)
PAIR_SAME_ONE(p_2real, float)
PAIR_SAME_ONE(p_2double, double)
PAIR_KERNEL(k_float_int, float)
PAIR_KERNEL(k_double_int, double)
PAIR_KERNEL(k_long_int, long)
PAIR_KERNEL(k_2int, int)
PAIR_KERNEL(k_short_int, short)
PAIR_KERNEL(k_ldouble_int, long double)
PAIR_ONE(p_float_int, float)
PAIR_ONE(p_double_int, double)
PAIR_ONE(p_long_int, long)
PAIR_ONE(p_2int, int)
PAIR_ONE(p_short_int, short)
PAIR_ONE(p_ldouble_int, long double)

/* ---- which op on which type --------------------------------------------- */

/* Classes of types in MPI 3.1, 5.9.2 (Fortran ones aside). */
enum {
    C_INTEGER = 1 << 0,    /* MPI_INT ... MPI_UINT64_T, not MPI_CHAR */
    MULTI_LANG = 1 << 1,   /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    FLOATING = 1 << 2,
    COMPLEX = 1 << 3,
    LOGICAL = 1 << 4,      /* MPI_C_BOOL, MPI_LOGICAL */
    BYTE = 1 << 5,
    PAIR = 1 << 6,         /* MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT, MPI_2REAL... */
};

static const struct {
    int classes;
    const char *domain;
} op_table[] = {
    [MYR_OP_MAX] = {C_INTEGER | MULTI_LANG | FLOATING,
                    "integer, floating point, MPI_AINT, MPI_OFFSET and MPI_COUNT types"},
    [MYR_OP_MIN] = {C_INTEGER | MULTI_LANG | FLOATING,
                    "integer, floating point, MPI_AINT, MPI_OFFSET and MPI_COUNT types"},
    [MYR_OP_SUM] = {C_INTEGER | MULTI_LANG | FLOATING | COMPLEX,
                    "integer, floating point, complex, MPI_AINT, MPI_OFFSET and "
                    "MPI_COUNT types"},
    [MYR_OP_PROD] = {C_INTEGER | MULTI_LANG | FLOATING | COMPLEX,
                     "integer, floating point, complex, MPI_AINT, MPI_OFFSET and "
                     "MPI_COUNT types"},
    /* MPI 3.1 lists C integers and logicals; MPI_AINT, MPI_OFFSET and
     * MPI_COUNT are integers too, and MPICH takes them: so do we. */
    [MYR_OP_LAND] = {C_INTEGER | MULTI_LANG | LOGICAL,
                     "integer types, MPI_C_BOOL, MPI_LOGICAL, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_LOR] = {C_INTEGER | MULTI_LANG | LOGICAL,
                    "integer types, MPI_C_BOOL, MPI_LOGICAL, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_LXOR] = {C_INTEGER | MULTI_LANG | LOGICAL,
                     "integer types, MPI_C_BOOL, MPI_LOGICAL, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_BAND] = {C_INTEGER | MULTI_LANG | BYTE,
                     "integer types, MPI_BYTE, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_BOR] = {C_INTEGER | MULTI_LANG | BYTE,
                    "integer types, MPI_BYTE, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_BXOR] = {C_INTEGER | MULTI_LANG | BYTE,
                     "integer types, MPI_BYTE, MPI_AINT, MPI_OFFSET and MPI_COUNT"},
    [MYR_OP_MAXLOC] = {PAIR, "the pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, "
                             "MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL "
                             "and MPI_2DOUBLE_PRECISION"},
    [MYR_OP_MINLOC] = {PAIR, "the pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, "
                             "MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL "
                             "and MPI_2DOUBLE_PRECISION"},
    [MYR_OP_REPLACE] = {0, "no type in reductions (one-sided accumulate calls only)"},
    [MYR_OP_NO_OP] = {0, "no type in reductions (one-sided accumulate calls only)"},
    [MYR_OP_USER] = {0, "any committed type"},
};

/* Per basic type: its class, its kernel, and for the pair types how to
 * combine one pair and the bytes of its value. `size` and `align` are
 * those of one element the kernel steps over. NULL kernel: no predefined
 * op applies (MPI_CHAR, MPI_WCHAR, MPI_PACKED, the bound markers). */
typedef struct base_info {
    int cls;
    kernel_fn fn;
    pair_fn one;
    unsigned char size, align;
    unsigned char value_size, index_size;
} base_info;

#define INFO(c, f, T) {.cls = c, .fn = f, .size = sizeof(T), .align = alignof(T)}
#define PAIR_INFO(f, one_, T)                                                \
    {.cls = PAIR, .fn = f, .one = one_, .size = sizeof(struct { T v; int i; }), \
     .align = alignof(struct { T v; int i; }), .value_size = sizeof(T),          \
     .index_size = sizeof(int)}
#define PAIR_SAME_INFO(f, one_, T)                                           \
    {.cls = PAIR, .fn = f, .one = one_, .size = 2 * sizeof(T), .align = alignof(T), \
     .value_size = sizeof(T), .index_size = sizeof(T)}

static const base_info bases[MYR_BT_COUNT_] = {
    [MYR_BT_SIGNED_CHAR] = INFO(C_INTEGER, k_schar, signed char),
    [MYR_BT_UNSIGNED_CHAR] = INFO(C_INTEGER, k_uchar, unsigned char),
    [MYR_BT_SHORT] = INFO(C_INTEGER, k_short, short),
    [MYR_BT_UNSIGNED_SHORT] = INFO(C_INTEGER, k_ushort, unsigned short),
    [MYR_BT_INT] = INFO(C_INTEGER, k_int, int),
    [MYR_BT_UNSIGNED] = INFO(C_INTEGER, k_uint, unsigned),
    [MYR_BT_LONG] = INFO(C_INTEGER, k_long, long),
    [MYR_BT_UNSIGNED_LONG] = INFO(C_INTEGER, k_ulong, unsigned long),
    [MYR_BT_LONG_LONG] = INFO(C_INTEGER, k_llong, long long),
    [MYR_BT_UNSIGNED_LONG_LONG] = INFO(C_INTEGER, k_ullong, unsigned long long),
    [MYR_BT_INT8] = INFO(C_INTEGER, k_i8, int8_t),
    [MYR_BT_INT16] = INFO(C_INTEGER, k_i16, int16_t),
    [MYR_BT_INT32] = INFO(C_INTEGER, k_i32, int32_t),
    [MYR_BT_INT64] = INFO(C_INTEGER, k_i64, int64_t),
    [MYR_BT_UINT8] = INFO(C_INTEGER, k_u8, uint8_t),
    [MYR_BT_UINT16] = INFO(C_INTEGER, k_u16, uint16_t),
    [MYR_BT_UINT32] = INFO(C_INTEGER, k_u32, uint32_t),
    [MYR_BT_UINT64] = INFO(C_INTEGER, k_u64, uint64_t),
    [MYR_BT_AINT] = INFO(MULTI_LANG, k_aint, MPI_Aint),
    [MYR_BT_COUNT] = INFO(MULTI_LANG, k_mpicount, MPI_Count),
    [MYR_BT_OFFSET] = INFO(MULTI_LANG, k_offset, MPI_Offset),
    [MYR_BT_FLOAT] = INFO(FLOATING, k_float, float),
    [MYR_BT_DOUBLE] = INFO(FLOATING, k_double, double),
    [MYR_BT_LONG_DOUBLE] = INFO(FLOATING, k_ldouble, long double),
    [MYR_BT_C_FLOAT_COMPLEX] = INFO(COMPLEX, k_cfloat, float _Complex),
    [MYR_BT_C_DOUBLE_COMPLEX] = INFO(COMPLEX, k_cdouble, double _Complex),
    [MYR_BT_C_LONG_DOUBLE_COMPLEX] = INFO(COMPLEX, k_cldouble, long double _Complex),
    [MYR_BT_C_BOOL] = INFO(LOGICAL, k_bool, _Bool),
    [MYR_BT_BYTE] = INFO(BYTE, k_byte, unsigned char),
    [MYR_BT_FLOAT_INT] = PAIR_INFO(k_float_int, p_float_int, float),
    [MYR_BT_DOUBLE_INT] = PAIR_INFO(k_double_int, p_double_int, double),
    [MYR_BT_LONG_INT] = PAIR_INFO(k_long_int, p_long_int, long),
    [MYR_BT_2INT] = PAIR_INFO(k_2int, p_2int, int),
    [MYR_BT_SHORT_INT] = PAIR_INFO(k_short_int, p_short_int, short),
    [MYR_BT_LONG_DOUBLE_INT] = PAIR_INFO(k_ldouble_int, p_ldouble_int, long double),
    [MYR_BT_LOGICAL] = INFO(LOGICAL, k_int, int),
    [MYR_BT_2REAL] = PAIR_SAME_INFO(k_2real, p_2real, float),
    [MYR_BT_2DOUBLE_PRECISION] = PAIR_SAME_INFO(k_2double, p_2double, double),
};

enum { BASE_NONE = -1, BASE_MIXED = -2 };

/* The type's reduction base (see the top): a myr_base_type, BASE_NONE when
 * it holds no data element at all, BASE_MIXED when its elements are of
 * different kinds. */
static int reduction_base(MPI_Datatype t)
{
    if (t->predefined)
        return t->base == MYR_BT_LB || t->base == MYR_BT_UB ? BASE_NONE : t->base;
    int base = BASE_NONE;
    if (t->contents) {
        for (int i = 0; i < t->contents->nt; i++) {
            int b = reduction_base(t->contents->types[i]);
            if (b == BASE_MIXED || (b != BASE_NONE && base != BASE_NONE && b != base))
                return BASE_MIXED;
            if (b != BASE_NONE)
                base = b;
        }
        return base;
    }
    /* Built inside the library without recorded contents: its signature
     * decides (pairs cannot be recognised there). */
    for (int i = 0; i < t->nruns; i++) {
        if (base != BASE_NONE && t->runs[i].base != base)
            return BASE_MIXED;
        base = t->runs[i].base;
    }
    return base;
}

bool myr_op_valid(MPI_Op op)
{
    return op && myr_handle_magic(op) == MYR_MAGIC_OP && !op->freed;
}

bool myr_op_defined_for(MPI_Op op, MPI_Datatype type)
{
    if (op->kind == MYR_OP_USER)
        return true;
    int base = type->predefined ? type->base : reduction_base(type);
    if (base < 0 || base >= MYR_BT_COUNT_ || !bases[base].fn)
        return false;
    return (bases[base].cls & op_table[op->kind].classes) != 0;
}

bool myr_op_commutative(MPI_Op op)
{
    return op->commute;
}

bool myr_op_matches(MPI_Op a, MPI_Op b)
{
    return a == b || (a->kind == MYR_OP_USER && b->kind == MYR_OP_USER);
}

const char *myr_op_label(MPI_Op op)
{
    return op->name;
}

const char *myr_op_domain(MPI_Op op)
{
    return op_table[op->kind].domain;
}

/* ---- applying an op -------------------------------------------------------- */

/* n elements of `b` at in and io, which may be misaligned. */
static void kernel_apply(const base_info *b, myr_op_kind kind, size_t n,
                         const char *in, char *io)
{
    if ((((uintptr_t)in | (uintptr_t)io) & (b->align - 1u)) == 0) {
        b->fn(kind, n, in, io);
        return;
    }
    enum { BOUNCE = 512 };
    alignas(64) unsigned char a[BOUNCE], c[BOUNCE];
    size_t per = BOUNCE / b->size;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < per ? n - done : per;
        size_t bytes = k * b->size;
        memcpy(a, in + done * b->size, bytes);
        memcpy(c, io + done * b->size, bytes);
        b->fn(kind, k, a, c);
        memcpy(io + done * b->size, c, bytes);
        done += k;
    }
}

/* Walking a derived layout: count elements of t, each its unit repeated,
 * each unit its blocks; `span` gets every block's offset from the buffer
 * start and its length, in type-map order. */
typedef struct walk {
    myr_op_kind kind;
    const base_info *b;
    uintptr_t in, io;          /* buffer starts (MPI_BOTTOM may be 0) */
    /* pairs: the value seen last whose index is still to come */
    bool have_value;
    uintptr_t value_at;
} walk;

static void span_elements(walk *w, uintptr_t off, size_t len)
{
    kernel_apply(w->b, w->kind, len / w->b->size, (const char *)(w->in + off),
                 (char *)(w->io + off));
}

static void span_pairs(walk *w, uintptr_t off, size_t len)
{
    for (size_t pos = 0; pos < len;) {
        if (!w->have_value) {
            w->value_at = off + pos;
            w->have_value = true;
            pos += w->b->value_size;
        } else {
            uintptr_t index_at = off + pos;
            w->b->one(w->kind, (const char *)(w->in + w->value_at),
                      (const char *)(w->in + index_at), (char *)(w->io + w->value_at),
                      (char *)(w->io + index_at));
            w->have_value = false;
            pos += w->b->index_size;
        }
    }
}

static void walk_layout(walk *w, MPI_Datatype t, size_t count,
                        void (*span)(walk *, uintptr_t, size_t))
{
    for (size_t k = 0; k < count; k++) {
        uintptr_t elem = (uintptr_t)((MPI_Aint)k * t->extent);
        for (MPI_Count r = 0; r < t->reps; r++) {
            uintptr_t unit = elem + (uintptr_t)(r * t->rstride);
            for (int i = 0; i < t->nblocks; i++)
                span(w, unit + (uintptr_t)t->blocks[i].off, (size_t)t->blocks[i].len);
        }
    }
}

/* A user function takes an int count: larger counts go in pieces. */
static void user_apply(MPI_Op op, MPI_Datatype type, size_t count, const void *in,
                       void *inout)
{
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)inout;
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        MPI_Datatype dt = type;
        op->fn((void *)a, (void *)b, &len, &dt);
        a += (uintptr_t)((MPI_Aint)len * type->extent);
        b += (uintptr_t)((MPI_Aint)len * type->extent);
        count -= (size_t)len;
    }
}

void myr_op_reduce(MPI_Op op, MPI_Datatype type, size_t count, const void *in,
                   void *inout)
{
    if (count == 0 || op->kind == MYR_OP_NO_OP)
        return;
    if (op->kind == MYR_OP_USER) {
        user_apply(op, type, count, in, inout);
        return;
    }
    if (op->kind == MYR_OP_REPLACE) {
        myr_datatype_transfer(inout, type, in, type, count * type->size);
        return;
    }
    if (type->predefined) {
        kernel_apply(&bases[type->base], op->kind, count, in, inout);
        return;
    }
    const base_info *b = &bases[reduction_base(type)];
    walk w = {.kind = op->kind, .b = b, .in = (uintptr_t)in, .io = (uintptr_t)inout};
    if (b->cls == PAIR)
        walk_layout(&w, type, count, span_pairs);
    else if (type->contig)   /* count * size bytes of whole elements at the start */
        span_elements(&w, 0, count * type->size);
    else
        walk_layout(&w, type, count, span_elements);
}

void myr_op_fold(MPI_Op op, MPI_Datatype type, size_t count, const void *values,
                 size_t stride, int n, void *acc)
{
    const char *v = values;
    memcpy(acc, v + (size_t)(n - 1) * stride, count * type->size);
    bool kernel = type->predefined && op->kind != MYR_OP_USER &&
                  op->kind != MYR_OP_REPLACE && op->kind != MYR_OP_NO_OP;
    for (int r = n - 2; r >= 0; r--) {
        if (kernel)
            kernel_apply(&bases[type->base], op->kind, count, v + (size_t)r * stride, acc);
        else
            myr_op_reduce(op, type, count, v + (size_t)r * stride, acc);
    }
}

/* ---- user ops ------------------------------------------------------------- */

enum { SLAB_OPS = 64 };

typedef struct op_slab {
    struct op_slab *next;
    struct myr_mpi_op ops[SLAB_OPS];
} op_slab;

static myr_spinlock pool_lock;
static op_slab *slabs;                 /* every slab, so none is ever lost */
static struct myr_mpi_op *free_ops;

MPI_Op myr_op_create(MPI_User_function *fn, bool commute)
{
    myr_spin_lock(&pool_lock);
    if (!free_ops) {
        op_slab *s = calloc(1, sizeof *s);
        if (!s) {
            myr_spin_unlock(&pool_lock);
            return NULL;
        }
        s->next = slabs;
        slabs = s;
        for (int i = 0; i < SLAB_OPS; i++) {
            s->ops[i].magic = MYR_MAGIC_DEAD;
            s->ops[i].next_free = free_ops;
            free_ops = &s->ops[i];
        }
    }
    struct myr_mpi_op *op = free_ops;
    free_ops = op->next_free;
    myr_spin_unlock(&pool_lock);
    op->kind = MYR_OP_USER;
    op->name = "(user-defined op)";
    op->commute = commute;
    op->freed = false;
    op->fn = fn;
    op->next_free = NULL;
    atomic_store_explicit(&op->refs, 1, memory_order_relaxed);
    op->magic = MYR_MAGIC_OP;
    return op;
}

void myr_op_retain(MPI_Op op)
{
    if (op->kind == MYR_OP_USER)
        atomic_fetch_add_explicit(&op->refs, 1, memory_order_relaxed);
}

void myr_op_release(MPI_Op op)
{
    if (op->kind != MYR_OP_USER ||
        atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) != 1)
        return;
    op->magic = MYR_MAGIC_DEAD;
    op->fn = NULL;
    myr_spin_lock(&pool_lock);
    op->next_free = free_ops;
    free_ops = op;
    myr_spin_unlock(&pool_lock);
}

void myr_op_free(MPI_Op op)
{
    op->freed = true;
    myr_op_release(op);
}
