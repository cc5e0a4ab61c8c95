/*
 * datatype.c — datatypes: the predefined ones, and building the layout of
 * derived ones (typewalk.c walks the layouts).
 *
 * Layout. One element of a type is a *unit* repeated `reps` times every
 * `rstride` bytes; a unit is a list of data blocks (byte offset from the
 * element's start, length) in type-map order, where blocks that touch are
 * merged, plus its type signature as runs of basic elements (base type,
 * bytes each, how many), where equal neighbours are merged. So
 *   MPI_Type_vector(1000000, 1, 2, MPI_INT)   is one block {0, 4} x 1000000
 *   MPI_Type_contiguous(1000000, MPI_INT)     is one block {0, 4000000}
 *   a struct {int; double} of 2 blocks        stays 2 blocks x its count
 * and a count passed to a communication call is never expanded at all: the
 * walkers step from element to element by the extent. Only nesting a
 * repeated type inside another constructor flattens the inner repetition
 * into blocks (a vector of vectors holds one block per inner block).
 *
 * A predefined type is one block of its size, except the MINLOC/MAXLOC
 * pair types, whose C structs have padding: {double, int} holds 12 bytes of
 * data in 16, {short, int} holds 6 in 8 with the gap *between* its two
 * members; a pair is two basic elements (the value, the int). Sizes, copies
 * and element counts only ever look at data bytes, never at padding.
 *
 * Bounds follow MPI 3.1 section 4.1: lb/ub are the min/max over the type
 * map, except that MPI_LB/MPI_UB markers and resized types set them
 * ("sticky" through later constructors); a struct's extent is padded to
 * the alignment of its most aligned basic element, as C pads structs.
 *
 * Derived types are reference counted: the handle holds one reference,
 * every nonblocking request using the type and every type built from it
 * (through its contents) one more, so MPI_Type_free never pulls a layout
 * from under a pending operation.
 */
#include "core/core.h"

#include <complex.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define BASIC(var, bt, ctype, nm)                                               \
    struct myr_mpi_datatype var = {                                             \
        .magic = MYR_MAGIC_TYPE, .predefined = true, .committed = true,         \
        .contig = true, .base = bt, .size = sizeof(ctype),                      \
        .extent = sizeof(ctype), .name = nm, .true_ub = sizeof(ctype),          \
        .align = _Alignof(ctype), .nelems = 1, .nblocks = 1,                    \
        .blocks = var.inline_blocks, .reps = 1, .unit_size = sizeof(ctype),     \
        .unit_nelems = 1, .nruns = 1, .runs = var.inline_runs,                  \
        .inline_blocks = {{0, sizeof(ctype)}},                                  \
        .inline_runs = {{bt, sizeof(ctype), 1}}}

#define PAIR_T(first) struct { first value; int index; }
#define PAIR_DATA(first) (sizeof(first) + sizeof(int))
#define PAIR_AT(first) offsetof(PAIR_T(first), index)
#define PAIR_GAPLESS(first) (PAIR_AT(first) == sizeof(first))

#define PAIR(var, bt, first, fbt, nm)                                           \
    struct myr_mpi_datatype var = {                                             \
        .magic = MYR_MAGIC_TYPE, .predefined = true, .committed = true,         \
        .contig = PAIR_GAPLESS(first) && PAIR_DATA(first) == sizeof(PAIR_T(first)), \
        .base = bt, .size = PAIR_DATA(first), .extent = sizeof(PAIR_T(first)),  \
        .name = nm, .true_ub = PAIR_AT(first) + sizeof(int),                    \
        .align = _Alignof(PAIR_T(first)), .nelems = 2,                          \
        .nblocks = PAIR_GAPLESS(first) ? 1 : 2, .blocks = var.inline_blocks,    \
        .reps = 1, .unit_size = PAIR_DATA(first), .unit_nelems = 2, .nruns = 2, \
        .runs = var.inline_runs,                                                \
        .inline_blocks = {{0, PAIR_GAPLESS(first) ? PAIR_DATA(first) : sizeof(first)}, \
                          {PAIR_AT(first), sizeof(int)}},                       \
        .inline_runs = {{fbt, sizeof(first), 1}, {MYR_BT_INT, sizeof(int), 1}}}

/* MPI_LB / MPI_UB: no data, a marked bound at their displacement. */
#define MARKER(var, bt, nm, is_lb)                                              \
    struct myr_mpi_datatype var = {                                             \
        .magic = MYR_MAGIC_TYPE, .predefined = true, .committed = true,         \
        .contig = true, .marked_lb = is_lb, .marked_ub = !(is_lb), .base = bt,  \
        .name = nm, .align = 1, .blocks = var.inline_blocks, .reps = 1,         \
        .runs = var.inline_runs}

BASIC(myr_mpi_type_char, MYR_BT_CHAR, char, "MPI_CHAR");
BASIC(myr_mpi_type_short, MYR_BT_SHORT, short, "MPI_SHORT");
BASIC(myr_mpi_type_int, MYR_BT_INT, int, "MPI_INT");
BASIC(myr_mpi_type_long, MYR_BT_LONG, long, "MPI_LONG");
BASIC(myr_mpi_type_long_long, MYR_BT_LONG_LONG, long long, "MPI_LONG_LONG_INT");
BASIC(myr_mpi_type_signed_char, MYR_BT_SIGNED_CHAR, signed char, "MPI_SIGNED_CHAR");
BASIC(myr_mpi_type_unsigned_char, MYR_BT_UNSIGNED_CHAR, unsigned char, "MPI_UNSIGNED_CHAR");
BASIC(myr_mpi_type_unsigned_short, MYR_BT_UNSIGNED_SHORT, unsigned short, "MPI_UNSIGNED_SHORT");
BASIC(myr_mpi_type_unsigned, MYR_BT_UNSIGNED, unsigned, "MPI_UNSIGNED");
BASIC(myr_mpi_type_unsigned_long, MYR_BT_UNSIGNED_LONG, unsigned long, "MPI_UNSIGNED_LONG");
BASIC(myr_mpi_type_unsigned_long_long, MYR_BT_UNSIGNED_LONG_LONG, unsigned long long, "MPI_UNSIGNED_LONG_LONG");
BASIC(myr_mpi_type_float, MYR_BT_FLOAT, float, "MPI_FLOAT");
BASIC(myr_mpi_type_double, MYR_BT_DOUBLE, double, "MPI_DOUBLE");
BASIC(myr_mpi_type_long_double, MYR_BT_LONG_DOUBLE, long double, "MPI_LONG_DOUBLE");
BASIC(myr_mpi_type_wchar, MYR_BT_WCHAR, wchar_t, "MPI_WCHAR");
BASIC(myr_mpi_type_c_bool, MYR_BT_C_BOOL, _Bool, "MPI_C_BOOL");
BASIC(myr_mpi_type_int8, MYR_BT_INT8, int8_t, "MPI_INT8_T");
BASIC(myr_mpi_type_int16, MYR_BT_INT16, int16_t, "MPI_INT16_T");
BASIC(myr_mpi_type_int32, MYR_BT_INT32, int32_t, "MPI_INT32_T");
BASIC(myr_mpi_type_int64, MYR_BT_INT64, int64_t, "MPI_INT64_T");
BASIC(myr_mpi_type_uint8, MYR_BT_UINT8, uint8_t, "MPI_UINT8_T");
BASIC(myr_mpi_type_uint16, MYR_BT_UINT16, uint16_t, "MPI_UINT16_T");
BASIC(myr_mpi_type_uint32, MYR_BT_UINT32, uint32_t, "MPI_UINT32_T");
BASIC(myr_mpi_type_uint64, MYR_BT_UINT64, uint64_t, "MPI_UINT64_T");
BASIC(myr_mpi_type_aint, MYR_BT_AINT, MPI_Aint, "MPI_AINT");
BASIC(myr_mpi_type_count, MYR_BT_COUNT, MPI_Count, "MPI_COUNT");
BASIC(myr_mpi_type_offset, MYR_BT_OFFSET, MPI_Offset, "MPI_OFFSET");
BASIC(myr_mpi_type_c_float_complex, MYR_BT_C_FLOAT_COMPLEX, float _Complex, "MPI_C_COMPLEX");
BASIC(myr_mpi_type_c_double_complex, MYR_BT_C_DOUBLE_COMPLEX, double _Complex, "MPI_C_DOUBLE_COMPLEX");
BASIC(myr_mpi_type_c_long_double_complex, MYR_BT_C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX");
/* The C++ types: the same kinds of element as their C counterparts. */
BASIC(myr_mpi_type_cxx_bool, MYR_BT_C_BOOL, _Bool, "MPI_CXX_BOOL");
BASIC(myr_mpi_type_cxx_float_complex, MYR_BT_C_FLOAT_COMPLEX, float _Complex, "MPI_CXX_FLOAT_COMPLEX");
BASIC(myr_mpi_type_cxx_double_complex, MYR_BT_C_DOUBLE_COMPLEX, double _Complex, "MPI_CXX_DOUBLE_COMPLEX");
BASIC(myr_mpi_type_cxx_long_double_complex, MYR_BT_C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_CXX_LONG_DOUBLE_COMPLEX");
BASIC(myr_mpi_type_byte, MYR_BT_BYTE, unsigned char, "MPI_BYTE");
BASIC(myr_mpi_type_packed, MYR_BT_PACKED, unsigned char, "MPI_PACKED");
PAIR(myr_mpi_type_float_int, MYR_BT_FLOAT_INT, float, MYR_BT_FLOAT, "MPI_FLOAT_INT");
PAIR(myr_mpi_type_double_int, MYR_BT_DOUBLE_INT, double, MYR_BT_DOUBLE, "MPI_DOUBLE_INT");
PAIR(myr_mpi_type_long_int, MYR_BT_LONG_INT, long, MYR_BT_LONG, "MPI_LONG_INT");
PAIR(myr_mpi_type_2int, MYR_BT_2INT, int, MYR_BT_INT, "MPI_2INT");
PAIR(myr_mpi_type_short_int, MYR_BT_SHORT_INT, short, MYR_BT_SHORT, "MPI_SHORT_INT");
PAIR(myr_mpi_type_long_double_int, MYR_BT_LONG_DOUBLE_INT, long double, MYR_BT_LONG_DOUBLE, "MPI_LONG_DOUBLE_INT");
MARKER(myr_mpi_type_lb, MYR_BT_LB, "MPI_LB", true);
MARKER(myr_mpi_type_ub, MYR_BT_UB, "MPI_UB", false);

/* Fortran's named types (MPI 3.1, 3.2.2 and 17.2.5), which C programs
 * name too (MPI_COMPLEX for std::complex<float>): each is the C type of
 * the same layout that gfortran and the usual Fortran ABIs use (INTEGER
 * and LOGICAL are int, REAL float, COMPLEX float _Complex), so a buffer
 * of that C type is sent, received and reduced as such. */
BASIC(myr_mpi_type_character, MYR_BT_CHAR, char, "MPI_CHARACTER");
BASIC(myr_mpi_type_logical, MYR_BT_LOGICAL, int, "MPI_LOGICAL");
BASIC(myr_mpi_type_integer, MYR_BT_INT, int, "MPI_INTEGER");
BASIC(myr_mpi_type_real, MYR_BT_FLOAT, float, "MPI_REAL");
BASIC(myr_mpi_type_double_precision, MYR_BT_DOUBLE, double, "MPI_DOUBLE_PRECISION");
BASIC(myr_mpi_type_complex, MYR_BT_C_FLOAT_COMPLEX, float _Complex, "MPI_COMPLEX");
BASIC(myr_mpi_type_double_complex, MYR_BT_C_DOUBLE_COMPLEX, double _Complex, "MPI_DOUBLE_COMPLEX");
BASIC(myr_mpi_type_integer1, MYR_BT_INT8, int8_t, "MPI_INTEGER1");
BASIC(myr_mpi_type_integer2, MYR_BT_INT16, int16_t, "MPI_INTEGER2");
BASIC(myr_mpi_type_integer4, MYR_BT_INT32, int32_t, "MPI_INTEGER4");
BASIC(myr_mpi_type_integer8, MYR_BT_INT64, int64_t, "MPI_INTEGER8");
BASIC(myr_mpi_type_real4, MYR_BT_FLOAT, float, "MPI_REAL4");
BASIC(myr_mpi_type_real8, MYR_BT_DOUBLE, double, "MPI_REAL8");
BASIC(myr_mpi_type_complex8, MYR_BT_C_FLOAT_COMPLEX, float _Complex, "MPI_COMPLEX8");
BASIC(myr_mpi_type_complex16, MYR_BT_C_DOUBLE_COMPLEX, double _Complex, "MPI_COMPLEX16");
/* MINLOC/MAXLOC pairs of Fortran: the index has the value's type, so a
 * pair is two elements of one kind with no padding. */
#define PAIR_SAME(var, bt, T, fbt, nm)                                          \
    struct myr_mpi_datatype var = {                                             \
        .magic = MYR_MAGIC_TYPE, .predefined = true, .committed = true,         \
        .contig = true, .base = bt, .size = 2 * sizeof(T),                      \
        .extent = 2 * sizeof(T), .name = nm, .true_ub = 2 * sizeof(T),          \
        .align = _Alignof(T), .nelems = 2, .nblocks = 1,                        \
        .blocks = var.inline_blocks, .reps = 1, .unit_size = 2 * sizeof(T),     \
        .unit_nelems = 2, .nruns = 1, .runs = var.inline_runs,                  \
        .inline_blocks = {{0, 2 * sizeof(T)}},                                  \
        .inline_runs = {{fbt, sizeof(T), 2}}}
PAIR(myr_mpi_type_2integer, MYR_BT_2INT, int, MYR_BT_INT, "MPI_2INTEGER");
PAIR_SAME(myr_mpi_type_2real, MYR_BT_2REAL, float, MYR_BT_FLOAT, "MPI_2REAL");
PAIR_SAME(myr_mpi_type_2double_precision, MYR_BT_2DOUBLE_PRECISION, double, MYR_BT_DOUBLE,
          "MPI_2DOUBLE_PRECISION");
/* Sizes that no C type of this platform has: elements of `elem` bytes
 * (`n` per item: 2 for a complex), moved as they are and byte-swapped by
 * external32; no predefined op takes them (op.c says so by name). */
#define NO_C_TYPE(var, bt, elem, n, nm)                                         \
    struct myr_mpi_datatype var = {                                             \
        .magic = MYR_MAGIC_TYPE, .predefined = true, .committed = true,         \
        .contig = true, .base = bt, .size = (elem) * (n),                       \
        .extent = (elem) * (n), .name = nm, .true_ub = (elem) * (n),            \
        .align = (elem) < 16 ? (elem) : 16, .nelems = n, .nblocks = 1,          \
        .blocks = var.inline_blocks, .reps = 1, .unit_size = (elem) * (n),      \
        .unit_nelems = n, .nruns = 1, .runs = var.inline_runs,                  \
        .inline_blocks = {{0, (elem) * (n)}},                                   \
        .inline_runs = {{bt, elem, n}}}
NO_C_TYPE(myr_mpi_type_integer16, MYR_BT_INTEGER16, 16, 1, "MPI_INTEGER16");
NO_C_TYPE(myr_mpi_type_real2, MYR_BT_REAL2, 2, 1, "MPI_REAL2");
NO_C_TYPE(myr_mpi_type_complex4, MYR_BT_REAL2, 2, 2, "MPI_COMPLEX4");
/* REAL*16 is IEEE binary128: long double where that is what it is
 * (aarch64), otherwise (x87's 80-bit long double) a size with no C type. */
#if LDBL_MANT_DIG == 113
BASIC(myr_mpi_type_real16, MYR_BT_LONG_DOUBLE, long double, "MPI_REAL16");
BASIC(myr_mpi_type_complex32, MYR_BT_C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_COMPLEX32");
#else
NO_C_TYPE(myr_mpi_type_real16, MYR_BT_REAL16, 16, 1, "MPI_REAL16");
NO_C_TYPE(myr_mpi_type_complex32, MYR_BT_REAL16, 16, 2, "MPI_COMPLEX32");
#endif

bool myr_datatype_valid(MPI_Datatype type)
{
    return type && myr_handle_magic(type) == MYR_MAGIC_TYPE;
}

/* ---- building a unit --------------------------------------------------- */

typedef struct builder {
    myr_dt_block *b;
    int nb, bcap;
    myr_dt_run *r;
    int nr, rcap;
    bool oom;
} builder;

static bool grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    if (need == INT_MAX)
        return false;
    int cap2 = *cap ? *cap : 4;
    while (cap2 < need)
        cap2 = cap2 > INT_MAX / 2 ? INT_MAX : cap2 * 2;
    void *q = realloc(*p, (size_t)cap2 * elem);
    if (!q)
        return false;
    *p = q;
    *cap = cap2;
    return true;
}

static void put_block(builder *bd, MPI_Aint off, MPI_Aint len)
{
    if (len == 0 || bd->oom)
        return;
    if (bd->nb) {
        myr_dt_block *last = &bd->b[bd->nb - 1];
        if (last->off + last->len == off) {
            last->len += len;   /* touching blocks: one memcpy instead of two */
            return;
        }
    }
    if (!grow((void **)&bd->b, &bd->bcap, bd->nb + 1, sizeof *bd->b)) {
        bd->oom = true;
        return;
    }
    bd->b[bd->nb++] = (myr_dt_block){off, len};
}

static void put_run(builder *bd, int base, int bsize, MPI_Count n)
{
    if (n == 0 || bd->oom)
        return;
    if (bd->nr && bd->r[bd->nr - 1].base == base) {
        bd->r[bd->nr - 1].n += n;
        return;
    }
    if (!grow((void **)&bd->r, &bd->rcap, bd->nr + 1, sizeof *bd->r)) {
        bd->oom = true;
        return;
    }
    bd->r[bd->nr++] = (myr_dt_run){base, bsize, n};
}

/* The signature of `times` units of t, appended. */
static void put_runs(builder *bd, MPI_Datatype t, MPI_Count times)
{
    if (t->nruns == 1) {
        put_run(bd, t->runs[0].base, t->runs[0].bsize, t->runs[0].n * times);
        return;
    }
    for (MPI_Count k = 0; k < times && !bd->oom; k++)
        for (int i = 0; i < t->nruns; i++)
            put_run(bd, t->runs[i].base, t->runs[i].bsize, t->runs[i].n);
}

/* One unit of t at disp. */
static void put_unit(builder *bd, MPI_Aint disp, MPI_Datatype t)
{
    for (int i = 0; i < t->nblocks; i++)
        put_block(bd, disp + t->blocks[i].off, t->blocks[i].len);
    put_runs(bd, t, 1);
}

/* `blocklen` whole elements of t at disp, flattened. */
static void put_elements(builder *bd, MPI_Aint disp, MPI_Count blocklen, MPI_Datatype t)
{
    if (t->size == 0 || blocklen == 0)
        return;
    if (t->contig) {
        put_block(bd, disp, (MPI_Aint)(blocklen * (MPI_Count)t->size));
        put_runs(bd, t, blocklen * t->reps);
        return;
    }
    for (MPI_Count k = 0; k < blocklen && !bd->oom; k++)
        for (MPI_Count r = 0; r < t->reps && !bd->oom; r++)
            put_unit(bd, disp + (MPI_Aint)k * t->extent + (MPI_Aint)r * t->rstride, t);
}

/* ---- bounds ------------------------------------------------------------ */

typedef struct bounds {
    bool any, tany, mlb, mub;
    MPI_Aint lb, ub, tlb, tub, marked_lb, marked_ub;
    size_t align;
} bounds;

static MPI_Aint min_aint(MPI_Aint a, MPI_Aint b) { return a < b ? a : b; }
static MPI_Aint max_aint(MPI_Aint a, MPI_Aint b) { return a > b ? a : b; }

/* `blocklen` elements of t from disp. */
static void bounds_add(bounds *bd, MPI_Aint disp, MPI_Count blocklen, MPI_Datatype t)
{
    if (blocklen == 0)
        return;
    MPI_Aint span = (MPI_Aint)(blocklen - 1) * t->extent;
    MPI_Aint lo = disp + min_aint(0, span), hi = disp + max_aint(0, span);
    MPI_Aint lb = lo + t->lb, ub = hi + t->lb + t->extent;
    bd->lb = bd->any ? min_aint(bd->lb, lb) : lb;
    bd->ub = bd->any ? max_aint(bd->ub, ub) : ub;
    bd->any = true;
    if (t->marked_lb) {
        bd->marked_lb = bd->mlb ? min_aint(bd->marked_lb, lb) : lb;
        bd->mlb = true;
    }
    if (t->marked_ub) {
        bd->marked_ub = bd->mub ? max_aint(bd->marked_ub, ub) : ub;
        bd->mub = true;
    }
    if (t->size > 0) {
        bd->tlb = bd->tany ? min_aint(bd->tlb, lo + t->true_lb) : lo + t->true_lb;
        bd->tub = bd->tany ? max_aint(bd->tub, hi + t->true_ub) : hi + t->true_ub;
        bd->tany = true;
    }
    if (t->align > bd->align)
        bd->align = t->align;
}

/* ---- types ------------------------------------------------------------- */

static void set_contig(struct myr_mpi_datatype *t)
{
    t->contig = t->size == 0 ||
                (t->nblocks == 1 && t->blocks[0].off == 0 &&
                 (t->reps == 1 || t->blocks[0].len == t->rstride) &&
                 (ptrdiff_t)t->size == t->extent);
}

static struct myr_mpi_datatype *type_alloc(void)
{
    struct myr_mpi_datatype *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->magic = MYR_MAGIC_TYPE;
    t->base = -1;
    t->name = t->namebuf;
    atomic_init(&t->refs, 1);
    return t;
}

/* Give t the builder's unit, repeated. */
static void adopt_unit(struct myr_mpi_datatype *t, builder *bd, MPI_Count reps,
                       MPI_Aint rstride)
{
    t->nblocks = bd->nb;
    t->blocks = bd->b;
    t->nruns = bd->nr;
    t->runs = bd->r;
    size_t unit = 0;
    MPI_Count nel = 0;
    for (int i = 0; i < bd->nr; i++) {
        unit += (size_t)bd->r[i].n * (size_t)bd->r[i].bsize;
        nel += bd->r[i].n;
    }
    if (bd->nb == 0)
        reps = 1;
    /* One block that ends where the next unit starts, and a one-run
     * signature: the repetition is a single longer block. */
    if (reps > 1 && bd->nb == 1 && bd->b[0].len == rstride && bd->nr == 1) {
        bd->b[0].len *= (MPI_Aint)reps;
        bd->r[0].n *= reps;
        unit *= (size_t)reps;
        nel *= reps;
        reps = 1;
    }
    t->reps = reps;
    t->rstride = reps > 1 ? rstride : 0;
    t->unit_size = unit;
    t->unit_nelems = nel;
    t->size = unit * (size_t)reps;
    t->nelems = nel * reps;
}

static void set_bounds(struct myr_mpi_datatype *t, const bounds *b, int flags)
{
    MPI_Aint lb = b->mlb ? b->marked_lb : (b->any ? b->lb : 0);
    MPI_Aint ub = b->mub ? b->marked_ub : (b->any ? b->ub : 0);
    t->align = b->align ? b->align : 1;
    if ((flags & MYR_DT_ALIGN_EXTENT) && !b->mub && t->align > 1) {
        MPI_Aint over = (ub - lb) % (MPI_Aint)t->align;
        if (over > 0)
            ub += (MPI_Aint)t->align - over;
    }
    t->lb = lb;
    t->extent = ub - lb;
    t->marked_lb = b->mlb;
    t->marked_ub = b->mub;
    t->true_lb = b->tany ? b->tlb : 0;
    t->true_ub = b->tany ? b->tub : 0;
}

int myr_datatype_create(MPI_Datatype *out, int n, const myr_dt_entry *e,
                        MPI_Count reps, MPI_Aint rstride, int flags)
{
    struct myr_mpi_datatype *t = type_alloc();
    if (!t)
        return MPI_ERR_NO_MEM;
    builder bd = {0};
    bounds b = {0};
    for (int i = 0; i < n; i++) {
        if (reps == 0)
            break;
        bounds_add(&b, e[i].disp, e[i].blocklen, e[i].type);
        if (reps > 1)
            bounds_add(&b, e[i].disp + (MPI_Aint)(reps - 1) * rstride, e[i].blocklen,
                       e[i].type);
    }
    if (reps == 0) {
        reps = 1;   /* no data: an empty unit */
    } else if (n == 1 && e[0].type->reps == 1 && e[0].blocklen == 1) {
        put_unit(&bd, e[0].disp, e[0].type);           /* reps x one element */
    } else if (n == 1 && e[0].type->reps == 1 && reps == 1 && e[0].blocklen > 1 &&
               !e[0].type->contig) {
        put_unit(&bd, e[0].disp, e[0].type);           /* blocklen elements */
        reps = e[0].blocklen;
        rstride = e[0].type->extent;
    } else if (n == 1 && e[0].blocklen == 1 && reps == 1) {
        put_unit(&bd, e[0].disp, e[0].type);           /* a repeated type, moved */
        reps = e[0].type->reps;
        rstride = e[0].type->rstride;
    } else {
        for (int i = 0; i < n; i++)
            put_elements(&bd, e[i].disp, e[i].blocklen, e[i].type);
    }
    if (bd.oom) {
        free(bd.b);
        free(bd.r);
        free(t);
        return MPI_ERR_NO_MEM;
    }
    adopt_unit(t, &bd, reps, rstride);
    set_bounds(t, &b, flags);
    set_contig(t);
    *out = t;
    return MPI_SUCCESS;
}

int myr_datatype_resized(MPI_Datatype *out, MPI_Datatype old, MPI_Aint lb,
                         MPI_Aint extent)
{
    myr_dt_entry e = {0, 1, old};
    int err = myr_datatype_create(out, 1, &e, 1, 0, 0);
    if (err)
        return err;
    struct myr_mpi_datatype *t = *out;
    t->lb = lb;
    t->extent = extent;
    t->marked_lb = t->marked_ub = true;
    set_contig(t);
    return MPI_SUCCESS;
}

int myr_datatype_set_contents(MPI_Datatype t, int combiner, int ni, const int *ints,
                              int na, const MPI_Aint *aints, int nt,
                              const MPI_Datatype *types)
{
    myr_dt_contents *c = calloc(1, sizeof *c + (size_t)ni * sizeof(int) +
                                       (size_t)na * sizeof(MPI_Aint) +
                                       (size_t)nt * sizeof(MPI_Datatype));
    if (!c)
        return MPI_ERR_NO_MEM;
    c->combiner = combiner;
    c->ni = ni;
    c->na = na;
    c->nt = nt;
    /* One allocation: the aints first (the most aligned), then types, ints. */
    c->aints = (MPI_Aint *)(c + 1);
    c->types = (MPI_Datatype *)(c->aints + na);
    c->ints = (int *)(c->types + nt);
    if (na)
        memcpy(c->aints, aints, (size_t)na * sizeof *aints);
    if (ni)
        memcpy(c->ints, ints, (size_t)ni * sizeof *ints);
    for (int i = 0; i < nt; i++) {
        c->types[i] = types[i];
        myr_datatype_retain(types[i]);
    }
    t->contents = c;
    return MPI_SUCCESS;
}

void myr_datatype_release_derived(MPI_Datatype t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (t->contents) {
        for (int i = 0; i < t->contents->nt; i++)
            myr_datatype_release(t->contents->types[i]);
        free(t->contents);
    }
    free((void *)t->blocks);
    free((void *)t->runs);
    t->magic = MYR_MAGIC_DEAD;
    free(t);
}
