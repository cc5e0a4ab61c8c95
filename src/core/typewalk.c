/*
 * typewalk.c — walking datatype layouts (see datatype.c): copying data
 * between two layouts, counting basic elements, and the external32
 * representation.
 *
 * A cursor stands at a byte of a (buffer, type): which element, which
 * repetition of the unit, which block and how far into it. A copy moves
 * min(what is left of the source block, of the destination block, of the
 * message) bytes at a time, so two layouts are walked together with no
 * intermediate buffer; a contiguous side is just a moving pointer.
 * Addresses are computed as integers: a buffer may be MPI_BOTTOM (NULL)
 * with absolute displacements in the type.
 */
#include "core/core.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

typedef struct cursor {
    MPI_Datatype t;
    uintptr_t elem;     /* the current element's start */
    uintptr_t unit;     /* the current unit's start */
    MPI_Count rep;
    int blk;
    MPI_Aint in;        /* bytes of the current block already passed */
} cursor;

static inline void cur_init(cursor *c, MPI_Datatype t, const void *buf)
{
    *c = (cursor){.t = t, .elem = (uintptr_t)buf, .unit = (uintptr_t)buf};
}

static inline void *cur_ptr(const cursor *c)
{
    return (void *)(c->unit + (uintptr_t)c->t->blocks[c->blk].off + (uintptr_t)c->in);
}

static inline size_t cur_left(const cursor *c)
{
    return (size_t)(c->t->blocks[c->blk].len - c->in);
}

/* Move n bytes on (n <= cur_left). */
static inline void cur_advance(cursor *c, size_t n)
{
    MPI_Datatype t = c->t;
    c->in += (MPI_Aint)n;
    if (c->in < t->blocks[c->blk].len)
        return;
    c->in = 0;
    if (++c->blk < t->nblocks)
        return;
    c->blk = 0;
    if (++c->rep < t->reps) {
        c->unit += (uintptr_t)t->rstride;
        return;
    }
    c->rep = 0;
    c->elem += (uintptr_t)t->extent;
    c->unit = c->elem;
}

static inline size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

void myr_datatype_transfer(void *dst, MPI_Datatype dtype, const void *src,
                           MPI_Datatype stype, size_t bytes)
{
    if (bytes == 0)
        return;
    if (stype->contig && dtype->contig) {
        memcpy(dst, src, bytes);
        return;
    }
    cursor s, d;
    if (stype->contig) {
        const char *p = src;
        cur_init(&d, dtype, dst);
        while (bytes) {
            size_t n = min_size(cur_left(&d), bytes);
            memcpy(cur_ptr(&d), p, n);
            p += n;
            bytes -= n;
            cur_advance(&d, n);
        }
        return;
    }
    if (dtype->contig) {
        char *p = dst;
        cur_init(&s, stype, src);
        while (bytes) {
            size_t n = min_size(cur_left(&s), bytes);
            memcpy(p, cur_ptr(&s), n);
            p += n;
            bytes -= n;
            cur_advance(&s, n);
        }
        return;
    }
    cur_init(&s, stype, src);
    cur_init(&d, dtype, dst);
    while (bytes) {
        size_t n = min_size(min_size(cur_left(&s), cur_left(&d)), bytes);
        memcpy(cur_ptr(&d), cur_ptr(&s), n);
        bytes -= n;
        cur_advance(&s, n);
        cur_advance(&d, n);
    }
}

size_t myr_datatype_copy(void *dst, const void *src, int count,
                         MPI_Datatype type, size_t max_bytes)
{
    size_t want = (size_t)count * type->size;
    if (want > max_bytes)
        want = max_bytes;
    myr_datatype_transfer(dst, type, src, type, want);
    return want;
}

/* ---- element counts ---------------------------------------------------- */

MPI_Count myr_datatype_elements(MPI_Datatype type, MPI_Count bytes)
{
    if (type->size == 0)
        return 0;
    MPI_Count size = (MPI_Count)type->size;
    MPI_Count count = bytes / size * type->nelems;
    MPI_Count rest = bytes % size;
    count += rest / (MPI_Count)type->unit_size * type->unit_nelems;
    rest %= (MPI_Count)type->unit_size;
    for (int i = 0; i < type->nruns && rest > 0; i++) {
        const myr_dt_run *r = &type->runs[i];
        MPI_Count all = r->n * r->bsize;
        if (rest >= all) {
            count += r->n;
            rest -= all;
            continue;
        }
        if (rest % r->bsize)
            return -1;   /* the bytes end inside a basic element */
        return count + rest / r->bsize;
    }
    return count;
}

MPI_Count myr_datatype_element_bytes(MPI_Datatype type, MPI_Count elements)
{
    const MPI_Count max = 0x7fffffffffffffffLL;
    if (type->nelems == 0)
        return 0;
    MPI_Count whole = elements / type->nelems, rest = elements % type->nelems;
    if (type->size != 0 && whole > (max - (MPI_Count)type->size) / (MPI_Count)type->size)
        return -1;
    MPI_Count bytes = whole * (MPI_Count)type->size;
    bytes += rest / type->unit_nelems * (MPI_Count)type->unit_size;
    rest %= type->unit_nelems;
    for (int i = 0; i < type->nruns && rest > 0; i++) {
        MPI_Count n = rest < type->runs[i].n ? rest : type->runs[i].n;
        bytes += n * type->runs[i].bsize;
        rest -= n;
    }
    return bytes;
}

/* ---- external32 -------------------------------------------------------- */

/* How a basic element is represented: integers are big-endian two's
 * complement of the standard's size (MPI 3.1, table 13.2: MPI_LONG is 4
 * bytes, MPI_WCHAR 2), reals big-endian IEEE (long double as binary128),
 * complex numbers two reals. Fortran sizes with no C type here (REAL*2,
 * REAL*16 on x86_64, INTEGER*16) are already in the IEEE or two's
 * complement format of their size: only their byte order changes. */
typedef enum { X_RAW, X_SINT, X_UINT, X_REAL, X_COMPLEX, X_SWAP } ext_kind;

typedef struct ext_info {
    ext_kind kind;
    int size;     /* external32 bytes */
} ext_info;

#if WCHAR_MIN < 0
#define WCHAR_KIND X_SINT
#else
#define WCHAR_KIND X_UINT   /* aarch64 */
#endif

static ext_info ext_of(int base)
{
    switch (base) {
    case MYR_BT_CHAR: case MYR_BT_SIGNED_CHAR: case MYR_BT_UNSIGNED_CHAR:
    case MYR_BT_BYTE: case MYR_BT_PACKED: case MYR_BT_C_BOOL:
    case MYR_BT_INT8: case MYR_BT_UINT8:
        return (ext_info){X_RAW, 1};
    case MYR_BT_SHORT: case MYR_BT_INT16: return (ext_info){X_SINT, 2};
    case MYR_BT_UNSIGNED_SHORT: case MYR_BT_UINT16: return (ext_info){X_UINT, 2};
    case MYR_BT_INT: case MYR_BT_INT32: case MYR_BT_LONG: case MYR_BT_LOGICAL:
        return (ext_info){X_SINT, 4};
    case MYR_BT_UNSIGNED: case MYR_BT_UINT32: case MYR_BT_UNSIGNED_LONG:
        return (ext_info){X_UINT, 4};
    case MYR_BT_LONG_LONG: case MYR_BT_INT64: case MYR_BT_AINT: case MYR_BT_COUNT:
    case MYR_BT_OFFSET:
        return (ext_info){X_SINT, 8};
    case MYR_BT_UNSIGNED_LONG_LONG: case MYR_BT_UINT64: return (ext_info){X_UINT, 8};
    case MYR_BT_WCHAR: return (ext_info){WCHAR_KIND, 2};
    case MYR_BT_FLOAT: return (ext_info){X_REAL, 4};
    case MYR_BT_DOUBLE: return (ext_info){X_REAL, 8};
    case MYR_BT_LONG_DOUBLE: return (ext_info){X_REAL, 16};
    case MYR_BT_C_FLOAT_COMPLEX: return (ext_info){X_COMPLEX, 8};
    case MYR_BT_C_DOUBLE_COMPLEX: return (ext_info){X_COMPLEX, 16};
    case MYR_BT_C_LONG_DOUBLE_COMPLEX: return (ext_info){X_COMPLEX, 32};
    case MYR_BT_REAL2: return (ext_info){X_SWAP, 2};
    case MYR_BT_INTEGER16: case MYR_BT_REAL16: return (ext_info){X_SWAP, 16};
    default: return (ext_info){X_RAW, 0};   /* markers: no data */
    }
}

MPI_Count myr_datatype_external_size(MPI_Datatype type, MPI_Count count)
{
    MPI_Count unit = 0;
    for (int i = 0; i < type->nruns; i++)
        unit += type->runs[i].n * ext_of(type->runs[i].base).size;
    return unit * type->reps * count;
}

static void put_be(unsigned char *out, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        out[i] = (unsigned char)v;
}

static uint64_t get_be(const unsigned char *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | in[i];
    return v;
}

static uint64_t load_native(const void *p, int n)
{
    switch (n) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_native(void *p, uint64_t v, int n)
{
    switch (n) {
    case 1: { uint8_t w = (uint8_t)v; memcpy(p, &w, 1); break; }
    case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Does v (an n-byte integer, sign-extended if signed) fit m bytes? */
static bool int_fits(uint64_t v, int m, bool is_signed)
{
    if (m >= 8)
        return true;
    if (!is_signed)
        return v >> (8 * m) == 0;
    int64_t s = (int64_t)v, lim = (int64_t)1 << (8 * m - 1);
    return s >= -lim && s < lim;
}

static uint64_t sign_extend(uint64_t v, int n)
{
    if (n >= 8)
        return v;
    uint64_t sign = (uint64_t)1 << (8 * n - 1);
    return (v ^ sign) - sign;
}

/* Reals: native IEEE in host order <-> big-endian of the same size, but
 * long double goes through binary128 (x87's 80-bit format on x86_64). */
static bool real_out(unsigned char *out, const void *in, int native, int ext)
{
    if (native == ext && native <= 8) {
        put_be(out, load_native(in, native), native);
        return true;
    }
#if LDBL_MANT_DIG == 113
    uint64_t w[2];
    memcpy(w, in, 16);
    int hi = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    put_be(out, w[hi], 8);
    put_be(out + 8, w[!hi], 8);
    return true;
#elif LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t mant;
    uint16_t se;
    memcpy(&mant, in, 8);
    memcpy(&se, (const char *)in + 8, 2);
    uint64_t frac = mant & 0x7fffffffffffffffULL;  /* the integer bit is implicit */
    put_be(out, (uint64_t)se << 48 | frac >> 15, 8);
    put_be(out + 8, frac << 49, 8);
    return true;
#else
    (void)out; (void)in;
    return false;
#endif
}

static bool real_in(void *out, const unsigned char *in, int native, int ext)
{
    if (native == ext && native <= 8) {
        store_native(out, get_be(in, native), native);
        return true;
    }
#if LDBL_MANT_DIG == 113
    uint64_t w[2];
    int hi = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    w[hi] = get_be(in, 8);
    w[!hi] = get_be(in + 8, 8);
    memcpy(out, w, 16);
    return true;
#elif LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t h = get_be(in, 8), l = get_be(in + 8, 8);
    uint16_t se = (uint16_t)(h >> 48);
    uint64_t frac = (h & 0xffffffffffffULL) << 15 | l >> 49;  /* rounds toward zero */
    uint64_t mant = frac | ((se & 0x7fff) ? 0x8000000000000000ULL : 0);
    memset(out, 0, sizeof(long double));
    memcpy(out, &mant, 8);
    memcpy((char *)out + 8, &se, 2);
    return true;
#else
    (void)out; (void)in;
    return false;
#endif
}

/* One basic element, native <-> external32. */
static bool convert(int base, int native, void *mem, unsigned char *ext, bool pack)
{
    ext_info x = ext_of(base);
    switch (x.kind) {
    case X_RAW:
        if (pack)
            memcpy(ext, mem, (size_t)x.size);
        else
            memcpy(mem, ext, (size_t)x.size);
        return true;
    case X_SINT:
    case X_UINT: {
        bool s = x.kind == X_SINT;
        if (pack) {
            uint64_t v = load_native(mem, native);
            if (s)
                v = sign_extend(v, native);
            if (!int_fits(v, x.size, s))
                return false;
            put_be(ext, v, x.size);
        } else {
            uint64_t v = get_be(ext, x.size);
            if (s)
                v = sign_extend(v, x.size);
            if (!int_fits(v, native, s))
                return false;
            store_native(mem, v, native);
        }
        return true;
    }
    case X_SWAP:
        for (int i = 0; i < x.size; i++) {
            int j = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? x.size - 1 - i : i;
            if (pack)
                ext[i] = ((const unsigned char *)mem)[j];
            else
                ((unsigned char *)mem)[j] = ext[i];
        }
        return true;
    case X_REAL:
        return pack ? real_out(ext, mem, native, x.size) : real_in(mem, ext, native, x.size);
    case X_COMPLEX: {
        int half = native / 2, xhalf = x.size / 2;
        char *m = mem;
        return pack ? real_out(ext, m, half, xhalf) && real_out(ext + xhalf, m + half, half, xhalf)
                    : real_in(m, ext, half, xhalf) && real_in(m + half, ext + xhalf, half, xhalf);
    }
    }
    return false;
}

/* Element by element: the runs say which basic type comes next, the
 * blocks where it is (a basic element never straddles two blocks). */
static int walk_external(void *mem, unsigned char *ext, MPI_Count count,
                         MPI_Datatype type, bool pack)
{
    uintptr_t elem = (uintptr_t)mem;
    for (MPI_Count e = 0; e < count; e++, elem += (uintptr_t)type->extent) {
        uintptr_t unit = elem;
        for (MPI_Count r = 0; r < type->reps; r++, unit += (uintptr_t)type->rstride) {
            int blk = 0;
            MPI_Aint in = 0;
            for (int i = 0; i < type->nruns; i++) {
                const myr_dt_run *run = &type->runs[i];
                int xsize = ext_of(run->base).size;
                for (MPI_Count k = 0; k < run->n; k++) {
                    void *p = (void *)(unit + (uintptr_t)type->blocks[blk].off + (uintptr_t)in);
                    if (!convert(run->base, run->bsize, p, ext, pack))
                        return MPI_ERR_CONVERSION;
                    ext += xsize;
                    in += run->bsize;
                    if (in == type->blocks[blk].len) {
                        blk++;
                        in = 0;
                    }
                }
            }
        }
    }
    return MPI_SUCCESS;
}

int myr_datatype_pack_external(void *out, const void *in, MPI_Count count,
                               MPI_Datatype type)
{
    return walk_external((void *)in, out, count, type, true);
}

int myr_datatype_unpack_external(void *out, const void *in, MPI_Count count,
                                 MPI_Datatype type)
{
    return walk_external(out, (unsigned char *)in, count, type, false);
}
