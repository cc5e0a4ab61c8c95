/*
 * op.c — the predefined reduction operations MPI_MAX, MPI_MIN, MPI_SUM and
 * MPI_PROD, on the element types MPI defines them for.
 *
 * One kernel per element type, with the operation chosen outside the loop
 * so that each loop is a plain element-wise one the compiler vectorises.
 * Signed integer sums and products are computed in the matching unsigned
 * type: they wrap around instead of being undefined behaviour (types
 * narrower than int go through `unsigned`, because their unsigned types
 * would be promoted back to a signed int).
 */
#include "coll/coll.h"

#include <complex.h>
#include <stdint.h>

struct myr_mpi_op myr_mpi_op_max = {MYR_MAGIC_OP, MYR_OP_MAX, "MPI_MAX"};
struct myr_mpi_op myr_mpi_op_min = {MYR_MAGIC_OP, MYR_OP_MIN, "MPI_MIN"};
struct myr_mpi_op myr_mpi_op_sum = {MYR_MAGIC_OP, MYR_OP_SUM, "MPI_SUM"};
struct myr_mpi_op myr_mpi_op_prod = {MYR_MAGIC_OP, MYR_OP_PROD, "MPI_PROD"};

typedef void (*kernel_fn)(myr_op_kind kind, size_t n, const void *in, void *inout);

/* Integers and reals: all four operations. U is the type the arithmetic
 * is done in. */
#define ORDERED_KERNEL(name, T, U)                                           \
    static void name(myr_op_kind kind, size_t n, const void *in_, void *io_) \
    {                                                                        \
        const T *in = in_;                                                   \
        T *io = io_;                                                         \
        switch (kind) {                                                      \
        case MYR_OP_SUM:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)((U)io[i] + (U)in[i]);                            \
            break;                                                           \
        case MYR_OP_PROD:                                                    \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = (T)((U)io[i] * (U)in[i]);                            \
            break;                                                           \
        case MYR_OP_MIN:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] < io[i] ? in[i] : io[i];                       \
            break;                                                           \
        case MYR_OP_MAX:                                                     \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] = in[i] > io[i] ? in[i] : io[i];                       \
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
                io[i] += in[i];                                              \
        else                                                                 \
            for (size_t i = 0; i < n; i++)                                   \
                io[i] *= in[i];                                              \
    }

ORDERED_KERNEL(k_schar, signed char, unsigned)
ORDERED_KERNEL(k_uchar, unsigned char, unsigned)
ORDERED_KERNEL(k_short, short, unsigned)
ORDERED_KERNEL(k_ushort, unsigned short, unsigned)
ORDERED_KERNEL(k_int, int, unsigned)
ORDERED_KERNEL(k_uint, unsigned, unsigned)
ORDERED_KERNEL(k_long, long, unsigned long)
ORDERED_KERNEL(k_ulong, unsigned long, unsigned long)
ORDERED_KERNEL(k_llong, long long, unsigned long long)
ORDERED_KERNEL(k_ullong, unsigned long long, unsigned long long)
ORDERED_KERNEL(k_i8, int8_t, unsigned)
ORDERED_KERNEL(k_i16, int16_t, unsigned)
ORDERED_KERNEL(k_i32, int32_t, uint32_t)
ORDERED_KERNEL(k_i64, int64_t, uint64_t)
ORDERED_KERNEL(k_u8, uint8_t, unsigned)
ORDERED_KERNEL(k_u16, uint16_t, unsigned)
ORDERED_KERNEL(k_u32, uint32_t, uint32_t)
ORDERED_KERNEL(k_u64, uint64_t, uint64_t)
ORDERED_KERNEL(k_aint, MPI_Aint, uintptr_t)
ORDERED_KERNEL(k_mpicount, MPI_Count, unsigned long long)
ORDERED_KERNEL(k_offset, MPI_Offset, unsigned long long)
ORDERED_KERNEL(k_float, float, float)
ORDERED_KERNEL(k_double, double, double)
ORDERED_KERNEL(k_ldouble, long double, long double)
COMPLEX_KERNEL(k_cfloat, float _Complex)
COMPLEX_KERNEL(k_cdouble, double _Complex)
COMPLEX_KERNEL(k_cldouble, long double _Complex)

/* Indexed by myr_base_type; NULL: no arithmetic operation is defined
 * (MPI_CHAR, MPI_WCHAR, MPI_C_BOOL, MPI_BYTE, MPI_PACKED, the pair types). */
static const struct {
    kernel_fn fn;
    bool is_complex;
} kernels[MYR_BT_COUNT_] = {
    [MYR_BT_SIGNED_CHAR] = {k_schar, false},
    [MYR_BT_UNSIGNED_CHAR] = {k_uchar, false},
    [MYR_BT_SHORT] = {k_short, false},
    [MYR_BT_UNSIGNED_SHORT] = {k_ushort, false},
    [MYR_BT_INT] = {k_int, false},
    [MYR_BT_UNSIGNED] = {k_uint, false},
    [MYR_BT_LONG] = {k_long, false},
    [MYR_BT_UNSIGNED_LONG] = {k_ulong, false},
    [MYR_BT_LONG_LONG] = {k_llong, false},
    [MYR_BT_UNSIGNED_LONG_LONG] = {k_ullong, false},
    [MYR_BT_INT8] = {k_i8, false},
    [MYR_BT_INT16] = {k_i16, false},
    [MYR_BT_INT32] = {k_i32, false},
    [MYR_BT_INT64] = {k_i64, false},
    [MYR_BT_UINT8] = {k_u8, false},
    [MYR_BT_UINT16] = {k_u16, false},
    [MYR_BT_UINT32] = {k_u32, false},
    [MYR_BT_UINT64] = {k_u64, false},
    [MYR_BT_AINT] = {k_aint, false},
    [MYR_BT_COUNT] = {k_mpicount, false},
    [MYR_BT_OFFSET] = {k_offset, false},
    [MYR_BT_FLOAT] = {k_float, false},
    [MYR_BT_DOUBLE] = {k_double, false},
    [MYR_BT_LONG_DOUBLE] = {k_ldouble, false},
    [MYR_BT_C_FLOAT_COMPLEX] = {k_cfloat, true},
    [MYR_BT_C_DOUBLE_COMPLEX] = {k_cdouble, true},
    [MYR_BT_C_LONG_DOUBLE_COMPLEX] = {k_cldouble, true},
};

bool myr_op_valid(MPI_Op op)
{
    return op && op->magic == MYR_MAGIC_OP;
}

bool myr_op_defined_for(MPI_Op op, MPI_Datatype type)
{
    if (!type->predefined || type->base < 0 || type->base >= MYR_BT_COUNT_)
        return false;
    if (!kernels[type->base].fn)
        return false;
    return !kernels[type->base].is_complex || op->kind == MYR_OP_SUM ||
           op->kind == MYR_OP_PROD;
}

void myr_op_reduce(MPI_Op op, MPI_Datatype type, size_t count,
                   const void *in, void *inout)
{
    kernels[type->base].fn(op->kind, count, in, inout);
}
