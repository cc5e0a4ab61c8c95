/*
 * datatype.c — the predefined datatypes, copying typed data, and counting
 * the basic elements in received bytes.
 *
 * A predefined type is `size` bytes of data per element at a stride of
 * `extent` bytes. They differ only for the MINLOC/MAXLOC pair types, whose
 * C structs have padding: {double, int} holds 12 bytes of data in 16, and
 * {short, int} holds 6 in 8, with the gap *between* its two members. A pair
 * type is two basic elements: the value at offset 0 and the int at
 * offsetof(struct, index); sizes, copies and element counts only ever look
 * at these data bytes, never at padding. (MPI_2INT has no padding but is
 * two basic elements all the same.)
 *
 * Derived datatypes (the collectives/datatypes issue) will add a type map;
 * myr_datatype_copy and the element counts are the places that will learn
 * to walk it.
 */
#include "core/core.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#define PAIR(first) struct { first value; int index; }
#define PAIR_DATA(first) (sizeof(first) + sizeof(int))

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

/* The layout of a pair type: its value's size and where its int is. */
typedef struct pair_layout {
    size_t first;       /* bytes of the value at offset 0 */
    size_t second_at;   /* offset of the int */
} pair_layout;

#define PAIR_LAYOUT(first_type) \
    ((pair_layout){sizeof(first_type), offsetof(PAIR(first_type), index)})

static bool pair_layout_of(MPI_Datatype type, pair_layout *out)
{
    if (!type->predefined)
        return false;
    switch (type->base) {
    case MYR_BT_FLOAT_INT: *out = PAIR_LAYOUT(float); return true;
    case MYR_BT_DOUBLE_INT: *out = PAIR_LAYOUT(double); return true;
    case MYR_BT_LONG_INT: *out = PAIR_LAYOUT(long); return true;
    case MYR_BT_2INT: *out = PAIR_LAYOUT(int); return true;
    case MYR_BT_SHORT_INT: *out = PAIR_LAYOUT(short); return true;
    case MYR_BT_LONG_DOUBLE_INT: *out = PAIR_LAYOUT(long double); return true;
    default: return false;
    }
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
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
    size_t done = 0;
    char *d = dst;
    const char *s = src;
    pair_layout pair;
    if (!pair_layout_of(type, &pair)) {
        /* Data then padding in each element: element by element. */
        while (done < want) {
            size_t n = min_size(type->size, want - done);
            memcpy(d, s, n);
            done += n;
            d += type->extent;
            s += type->extent;
        }
        return done;
    }
    /* Padded pair types: member by member, data bytes only; a truncated
     * copy stops inside the member where the bytes run out. */
    while (done < want) {
        size_t n = min_size(pair.first, want - done);
        memcpy(d, s, n);
        done += n;
        n = min_size(sizeof(int), want - done);
        memcpy(d + pair.second_at, s + pair.second_at, n);
        done += n;
        d += type->extent;
        s += type->extent;
    }
    return done;
}

MPI_Count myr_datatype_elements(MPI_Datatype type, MPI_Count bytes)
{
    pair_layout pair;
    if (pair_layout_of(type, &pair)) {
        MPI_Count whole = bytes / (MPI_Count)type->size;
        MPI_Count rest = bytes % (MPI_Count)type->size;
        if (rest == 0)
            return 2 * whole;
        if (rest == (MPI_Count)pair.first)
            return 2 * whole + 1;
        return -1;
    }
    if (type->size == 0)
        return 0;
    if (bytes % (MPI_Count)type->size != 0)
        return -1;
    return bytes / (MPI_Count)type->size;
}

MPI_Count myr_datatype_element_bytes(MPI_Datatype type, MPI_Count elements)
{
    const MPI_Count max = 0x7fffffffffffffffLL;
    pair_layout pair;
    if (pair_layout_of(type, &pair)) {
        MPI_Count pairs = elements / 2;
        if (pairs > (max - (MPI_Count)pair.first) / (MPI_Count)type->size)
            return -1;
        return pairs * (MPI_Count)type->size + (elements % 2) * (MPI_Count)pair.first;
    }
    if (type->size != 0 && elements > max / (MPI_Count)type->size)
        return -1;
    return elements * (MPI_Count)type->size;
}
