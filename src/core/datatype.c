/*
 * datatype.c — the predefined datatypes and copying typed data.
 *
 * A predefined type is `size` bytes of data per element at a stride of
 * `extent` bytes. They differ only for the MINLOC/MAXLOC pair types, whose
 * C structs have padding: {double, int} holds 12 bytes of data in 16.
 * Derived datatypes (the collectives/datatypes issue) will add a type map;
 * myr_datatype_copy is the one place that will learn to walk it.
 */
#include "core/core.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#define PAIR(first) struct { first value; int index; }
#define PAIR_DATA(first) (offsetof(PAIR(first), index) + sizeof(int))

struct myr_mpi_datatype myr_mpi_type_char = {MYR_MAGIC_TYPE, true, true, MYR_BT_CHAR, sizeof(char), sizeof(char), "MPI_CHAR"};
struct myr_mpi_datatype myr_mpi_type_short = {MYR_MAGIC_TYPE, true, true, MYR_BT_SHORT, sizeof(short), sizeof(short), "MPI_SHORT"};
struct myr_mpi_datatype myr_mpi_type_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_INT, sizeof(int), sizeof(int), "MPI_INT"};
struct myr_mpi_datatype myr_mpi_type_long = {MYR_MAGIC_TYPE, true, true, MYR_BT_LONG, sizeof(long), sizeof(long), "MPI_LONG"};
struct myr_mpi_datatype myr_mpi_type_long_long = {MYR_MAGIC_TYPE, true, true, MYR_BT_LONG_LONG, sizeof(long long), sizeof(long long), "MPI_LONG_LONG_INT"};
struct myr_mpi_datatype myr_mpi_type_signed_char = {MYR_MAGIC_TYPE, true, true, MYR_BT_SIGNED_CHAR, sizeof(signed char), sizeof(signed char), "MPI_SIGNED_CHAR"};
struct myr_mpi_datatype myr_mpi_type_unsigned_char = {MYR_MAGIC_TYPE, true, true, MYR_BT_UNSIGNED_CHAR, sizeof(unsigned char), sizeof(unsigned char), "MPI_UNSIGNED_CHAR"};
struct myr_mpi_datatype myr_mpi_type_unsigned_short = {MYR_MAGIC_TYPE, true, true, MYR_BT_UNSIGNED_SHORT, sizeof(unsigned short), sizeof(unsigned short), "MPI_UNSIGNED_SHORT"};
struct myr_mpi_datatype myr_mpi_type_unsigned = {MYR_MAGIC_TYPE, true, true, MYR_BT_UNSIGNED, sizeof(unsigned), sizeof(unsigned), "MPI_UNSIGNED"};
struct myr_mpi_datatype myr_mpi_type_unsigned_long = {MYR_MAGIC_TYPE, true, true, MYR_BT_UNSIGNED_LONG, sizeof(unsigned long), sizeof(unsigned long), "MPI_UNSIGNED_LONG"};
struct myr_mpi_datatype myr_mpi_type_unsigned_long_long = {MYR_MAGIC_TYPE, true, true, MYR_BT_UNSIGNED_LONG_LONG, sizeof(unsigned long long), sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG"};
struct myr_mpi_datatype myr_mpi_type_float = {MYR_MAGIC_TYPE, true, true, MYR_BT_FLOAT, sizeof(float), sizeof(float), "MPI_FLOAT"};
struct myr_mpi_datatype myr_mpi_type_double = {MYR_MAGIC_TYPE, true, true, MYR_BT_DOUBLE, sizeof(double), sizeof(double), "MPI_DOUBLE"};
struct myr_mpi_datatype myr_mpi_type_long_double = {MYR_MAGIC_TYPE, true, true, MYR_BT_LONG_DOUBLE, sizeof(long double), sizeof(long double), "MPI_LONG_DOUBLE"};
struct myr_mpi_datatype myr_mpi_type_wchar = {MYR_MAGIC_TYPE, true, true, MYR_BT_WCHAR, sizeof(wchar_t), sizeof(wchar_t), "MPI_WCHAR"};
struct myr_mpi_datatype myr_mpi_type_c_bool = {MYR_MAGIC_TYPE, true, true, MYR_BT_C_BOOL, sizeof(_Bool), sizeof(_Bool), "MPI_C_BOOL"};
struct myr_mpi_datatype myr_mpi_type_int8 = {MYR_MAGIC_TYPE, true, true, MYR_BT_INT8, sizeof(int8_t), sizeof(int8_t), "MPI_INT8_T"};
struct myr_mpi_datatype myr_mpi_type_int16 = {MYR_MAGIC_TYPE, true, true, MYR_BT_INT16, sizeof(int16_t), sizeof(int16_t), "MPI_INT16_T"};
struct myr_mpi_datatype myr_mpi_type_int32 = {MYR_MAGIC_TYPE, true, true, MYR_BT_INT32, sizeof(int32_t), sizeof(int32_t), "MPI_INT32_T"};
struct myr_mpi_datatype myr_mpi_type_int64 = {MYR_MAGIC_TYPE, true, true, MYR_BT_INT64, sizeof(int64_t), sizeof(int64_t), "MPI_INT64_T"};
struct myr_mpi_datatype myr_mpi_type_uint8 = {MYR_MAGIC_TYPE, true, true, MYR_BT_UINT8, sizeof(uint8_t), sizeof(uint8_t), "MPI_UINT8_T"};
struct myr_mpi_datatype myr_mpi_type_uint16 = {MYR_MAGIC_TYPE, true, true, MYR_BT_UINT16, sizeof(uint16_t), sizeof(uint16_t), "MPI_UINT16_T"};
struct myr_mpi_datatype myr_mpi_type_uint32 = {MYR_MAGIC_TYPE, true, true, MYR_BT_UINT32, sizeof(uint32_t), sizeof(uint32_t), "MPI_UINT32_T"};
struct myr_mpi_datatype myr_mpi_type_uint64 = {MYR_MAGIC_TYPE, true, true, MYR_BT_UINT64, sizeof(uint64_t), sizeof(uint64_t), "MPI_UINT64_T"};
struct myr_mpi_datatype myr_mpi_type_aint = {MYR_MAGIC_TYPE, true, true, MYR_BT_AINT, sizeof(MPI_Aint), sizeof(MPI_Aint), "MPI_AINT"};
struct myr_mpi_datatype myr_mpi_type_count = {MYR_MAGIC_TYPE, true, true, MYR_BT_COUNT, sizeof(MPI_Count), sizeof(MPI_Count), "MPI_COUNT"};
struct myr_mpi_datatype myr_mpi_type_offset = {MYR_MAGIC_TYPE, true, true, MYR_BT_OFFSET, sizeof(MPI_Offset), sizeof(MPI_Offset), "MPI_OFFSET"};
struct myr_mpi_datatype myr_mpi_type_c_float_complex = {MYR_MAGIC_TYPE, true, true, MYR_BT_C_FLOAT_COMPLEX, sizeof(float _Complex), sizeof(float _Complex), "MPI_C_FLOAT_COMPLEX"};
struct myr_mpi_datatype myr_mpi_type_c_double_complex = {MYR_MAGIC_TYPE, true, true, MYR_BT_C_DOUBLE_COMPLEX, sizeof(double _Complex), sizeof(double _Complex), "MPI_C_DOUBLE_COMPLEX"};
struct myr_mpi_datatype myr_mpi_type_c_long_double_complex = {MYR_MAGIC_TYPE, true, true, MYR_BT_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), sizeof(long double _Complex), "MPI_C_LONG_DOUBLE_COMPLEX"};
struct myr_mpi_datatype myr_mpi_type_byte = {MYR_MAGIC_TYPE, true, true, MYR_BT_BYTE, sizeof(unsigned char), sizeof(unsigned char), "MPI_BYTE"};
struct myr_mpi_datatype myr_mpi_type_packed = {MYR_MAGIC_TYPE, true, true, MYR_BT_PACKED, sizeof(unsigned char), sizeof(unsigned char), "MPI_PACKED"};
struct myr_mpi_datatype myr_mpi_type_float_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_FLOAT_INT, PAIR_DATA(float), sizeof(PAIR(float)), "MPI_FLOAT_INT"};
struct myr_mpi_datatype myr_mpi_type_double_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_DOUBLE_INT, PAIR_DATA(double), sizeof(PAIR(double)), "MPI_DOUBLE_INT"};
struct myr_mpi_datatype myr_mpi_type_long_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_LONG_INT, PAIR_DATA(long), sizeof(PAIR(long)), "MPI_LONG_INT"};
struct myr_mpi_datatype myr_mpi_type_2int = {MYR_MAGIC_TYPE, true, true, MYR_BT_2INT, PAIR_DATA(int), sizeof(PAIR(int)), "MPI_2INT"};
struct myr_mpi_datatype myr_mpi_type_short_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_SHORT_INT, PAIR_DATA(short), sizeof(PAIR(short)), "MPI_SHORT_INT"};
struct myr_mpi_datatype myr_mpi_type_long_double_int = {MYR_MAGIC_TYPE, true, true, MYR_BT_LONG_DOUBLE_INT, PAIR_DATA(long double), sizeof(PAIR(long double)), "MPI_LONG_DOUBLE_INT"};

bool myr_datatype_valid(MPI_Datatype type)
{
    return type && type->magic == MYR_MAGIC_TYPE;
}

size_t myr_datatype_copy(void *dst, const void *src, int count,
                         MPI_Datatype type, size_t max_bytes)
{
    size_t want = (size_t)count * type->size;
    if (want > max_bytes)
        want = max_bytes;
    if ((ptrdiff_t)type->size == type->extent) {
        if (want)
            memcpy(dst, src, want);
        return want;
    }
    /* Padded pair types: element by element, data bytes only. */
    size_t done = 0;
    char *d = dst;
    const char *s = src;
    while (done + type->size <= want) {
        memcpy(d, s, type->size);
        d += type->extent;
        s += type->extent;
        done += type->size;
    }
    if (done < want) {  /* a truncated last element */
        memcpy(d, s, want - done);
        done = want;
    }
    return done;
}
