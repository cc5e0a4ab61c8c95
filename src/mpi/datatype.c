/*
 * datatype.c — the datatype calls: constructors, commit and free, extents,
 * envelope and contents, names, addresses, and the MPI-1 names that real
 * programs still use (MPI_Type_struct, MPI_Address, ...).
 *
 * Constructors check their arguments, describe the new type map as
 * entries (blocklength x oldtype at a byte displacement) repeated every
 * stride bytes, and let core/datatype.c build the layout. They accept
 * uncommitted old types (only communication needs a commit).
 *
 * Errors here belong to no communicator: they go to the rank's
 * MPI_COMM_WORLD handler.
 */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *call, int errclass, const char *fmt, const char *a, long long b)
{
    return myr_mpi_error(MPI_COMM_NULL, errclass, call, fmt, a, b);
}

static int check_handle(const char *call, MPI_Datatype t, const char *what)
{
    if (t == MPI_DATATYPE_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid %s MPI_DATATYPE_NULL", what);
    if (!myr_datatype_valid(t))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid %s handle %p (%s)", what, (void *)t,
                             myr_handle_problem(t));
    return MPI_SUCCESS;
}

static int check_ptr(const char *call, const void *p, const char *what)
{
    if (!p)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

static int check_count(const char *call, int count)
{
    if (count < 0)
        return fail(call, MPI_ERR_COUNT, "invalid %s %lld (must be >= 0)", "count", count);
    return MPI_SUCCESS;
}

static int check_blocklen(const char *call, const char *what, int blocklen)
{
    if (blocklen < 0)
        return fail(call, MPI_ERR_ARG, "invalid %s %lld (must be >= 0)", what, blocklen);
    return MPI_SUCCESS;
}

/* Entered, count >= 0, old type a valid handle, newtype not NULL. */
static int prologue(const char *call, int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_count(call, count)) ||
        (err = check_handle(call, old, "oldtype")) ||
        (err = check_ptr(call, newtype, "newtype")))
        return err;
    return MPI_SUCCESS;
}

/* Build the type and record its contents; *newtype only on success. */
static int finish(const char *call, int n, const myr_dt_entry *e, MPI_Count reps,
                  MPI_Aint rstride, int flags, int combiner, int ni, const int *ints,
                  int na, const MPI_Aint *aints, int nt, const MPI_Datatype *types,
                  MPI_Datatype *newtype)
{
    MPI_Datatype t;
    int err = myr_datatype_create(&t, n, e, reps, rstride, flags);
    if (!err && (err = myr_datatype_set_contents(t, combiner, ni, ints, na, aints, nt, types)))
        myr_datatype_release(t);
    if (err)
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    *newtype = t;
    return MPI_SUCCESS;
}

/* A scratch array of n items for building entries/contents. */
static void *scratch(const char *call, size_t n, size_t size, int *err)
{
    void *p = malloc(n ? n * size : 1);
    *err = p ? MPI_SUCCESS
             : myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for %zu datatype entries", n);
    return p;
}

/* ---- regular constructors ---------------------------------------------- */

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    int err = prologue(call, count, oldtype, newtype);
    if (err)
        return err;
    myr_dt_entry e = {0, 1, oldtype};
    int ints[1] = {count};
    return finish(call, 1, &e, count, oldtype->extent, 0, MPI_COMBINER_CONTIGUOUS,
                  1, ints, 0, NULL, 1, &oldtype, newtype);
}
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_contiguous);

static int hvector(const char *call, int count, int blocklength, MPI_Aint stride,
                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err = prologue(call, count, oldtype, newtype);
    if (err || (err = check_blocklen(call, "blocklength", blocklength)))
        return err;
    myr_dt_entry e = {0, blocklength, oldtype};
    int ints[2] = {count, blocklength};
    return finish(call, 1, &e, count, stride, 0, MPI_COMBINER_HVECTOR, 2, ints, 1,
                  &stride, 1, &oldtype, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    int err = prologue(call, count, oldtype, newtype);
    if (err || (err = check_blocklen(call, "blocklength", blocklength)))
        return err;
    myr_dt_entry e = {0, blocklength, oldtype};
    int ints[3] = {count, blocklength, stride};
    return finish(call, 1, &e, count, (MPI_Aint)stride * oldtype->extent, 0,
                  MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype, newtype);
}
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype) MYR_PMPI(Type_vector);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype);
}
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                            MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_create_hvector);

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype);
}
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype) MYR_PMPI(Type_hvector);

/* ---- indexed constructors ---------------------------------------------- */

/* What varies between the indexed forms: one blocklength or an array,
 * displacements in elements (int) or bytes (MPI_Aint). */
typedef struct indexed_args {
    bool block;                /* every block is `blocklen` long */
    const int *blocklens;
    int blocklen;
    const int *idisps;         /* in extents of oldtype */
    const MPI_Aint *adisps;    /* in bytes */
} indexed_args;

static int indexed(const char *call, int count, const indexed_args *a,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner)
{
    int err = prologue(call, count, oldtype, newtype);
    if (err)
        return err;
    const void *disps = a->idisps ? (const void *)a->idisps : (const void *)a->adisps;
    if (count > 0 && (err = check_ptr(call, disps, "array_of_displacements")))
        return err;
    if (a->block ? (err = check_blocklen(call, "blocklength", a->blocklen))
                 : count > 0 && (err = check_ptr(call, a->blocklens,
                                                    "array_of_blocklengths")))
        return err;
    int n = count;
    bool block = a->block;
    for (int i = 0; !block && i < n; i++)
        if (a->blocklens[i] < 0)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "invalid array_of_blocklengths[%d] %d (must be >= 0)",
                                 i, a->blocklens[i]);
    myr_dt_entry *e = scratch(call, (size_t)n, sizeof *e, &err);
    if (!e)
        return err;
    int ni = 1 + (block ? 1 : n) + (a->idisps ? n : 0);
    int *ints = scratch(call, (size_t)ni, sizeof *ints, &err);
    if (!ints) {
        free(e);
        return err;
    }
    int k = 0;
    ints[k++] = n;
    if (block)
        ints[k++] = a->blocklen;
    for (int i = 0; i < n; i++) {
        int bl = block ? a->blocklen : a->blocklens[i];
        if (!block)
            ints[k++] = bl;
        MPI_Aint d = a->idisps ? (MPI_Aint)a->idisps[i] * oldtype->extent : a->adisps[i];
        e[i] = (myr_dt_entry){d, bl, oldtype};
    }
    for (int i = 0; a->idisps && i < n; i++)
        ints[k++] = a->idisps[i];
    err = finish(call, n, e, 1, 0, 0, combiner, ni, ints, a->idisps ? 0 : n, a->adisps,
                 1, &oldtype, newtype);
    free(ints);
    free(e);
    return err;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    indexed_args a = {false, array_of_blocklengths, 0, array_of_displacements, NULL};
    return indexed("MPI_Type_indexed", count, &a, oldtype, newtype, MPI_COMBINER_INDEXED);
}
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) MYR_PMPI(Type_indexed);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args a = {false, array_of_blocklengths, 0, NULL, array_of_displacements};
    return indexed("MPI_Type_create_hindexed", count, &a, oldtype, newtype, MPI_COMBINER_HINDEXED);
}
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_create_hindexed);

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    indexed_args a = {false, array_of_blocklengths, 0, NULL, array_of_displacements};
    return indexed("MPI_Type_hindexed", count, &a, oldtype, newtype, MPI_COMBINER_HINDEXED);
}
int MPI_Type_hindexed(int count, int array_of_blocklengths[],
                      MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype) MYR_PMPI(Type_hindexed);

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args a = {true, NULL, blocklength, array_of_displacements, NULL};
    return indexed("MPI_Type_create_indexed_block", count, &a, oldtype, newtype,
                   MPI_COMBINER_INDEXED_BLOCK);
}
int MPI_Type_create_indexed_block(int count, int blocklength,
                                  const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_create_indexed_block);

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args a = {true, NULL, blocklength, NULL, array_of_displacements};
    return indexed("MPI_Type_create_hindexed_block", count, &a, oldtype, newtype,
                   MPI_COMBINER_HINDEXED_BLOCK);
}
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_create_hindexed_block);

/* ---- struct ------------------------------------------------------------ */

static int type_struct(const char *call, int count, const int blocklens[],
                       const MPI_Aint disps[], const MPI_Datatype types[],
                       MPI_Datatype *newtype)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_count(call, count)) || (err = check_ptr(call, newtype, "newtype")))
        return err;
    if (count > 0 && ((err = check_ptr(call, blocklens, "array_of_blocklengths")) ||
                      (err = check_ptr(call, disps, "array_of_displacements")) ||
                      (err = check_ptr(call, types, "array_of_types"))))
        return err;
    for (int i = 0; i < count; i++) {
        if (blocklens[i] < 0)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "invalid array_of_blocklengths[%d] %d (must be >= 0)",
                                 i, blocklens[i]);
        if (!myr_datatype_valid(types[i]))
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                                 "invalid array_of_types[%d] %s", i,
                                 types[i] ? "handle" : "MPI_DATATYPE_NULL");
    }
    myr_dt_entry *e = scratch(call, (size_t)count, sizeof *e, &err);
    if (!e)
        return err;
    int *ints = scratch(call, (size_t)count + 1, sizeof *ints, &err);
    if (!ints) {
        free(e);
        return err;
    }
    ints[0] = count;
    for (int i = 0; i < count; i++) {
        ints[i + 1] = blocklens[i];
        e[i] = (myr_dt_entry){disps[i], blocklens[i], types[i]};
    }
    err = finish(call, count, e, 1, 0, MYR_DT_ALIGN_EXTENT, MPI_COMBINER_STRUCT,
                 count + 1, ints, count, disps, count, types, newtype);
    free(ints);
    free(e);
    return err;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return type_struct("MPI_Type_create_struct", count, array_of_blocklengths,
                       array_of_displacements, array_of_types, newtype);
}
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
    MYR_PMPI(Type_create_struct);

int PMPI_Type_struct(int count, int array_of_blocklengths[],
                     MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                     MPI_Datatype *newtype)
{
    return type_struct("MPI_Type_struct", count, array_of_blocklengths,
                       array_of_displacements, array_of_types, newtype);
}
int MPI_Type_struct(int count, int array_of_blocklengths[],
                    MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                    MPI_Datatype *newtype) MYR_PMPI(Type_struct);

/* ---- subarray, resized, dup -------------------------------------------- */

/* The subarray as nested repetitions, fastest dimension first, then moved
 * to its start and resized to the whole array (lb 0). */
static int build_subarray(int ndims, const int sizes[], const int subsizes[],
                          const int starts[], int order, MPI_Datatype old,
                          MPI_Datatype *out)
{
    MPI_Datatype cur = old;
    MPI_Aint stride = old->extent, disp = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; k < ndims && !err; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        myr_dt_entry e = {0, 1, cur};
        MPI_Datatype next;
        err = myr_datatype_create(&next, 1, &e, subsizes[d], stride, 0);
        if (cur != old)
            myr_datatype_release(cur);
        cur = err ? old : next;
        disp += (MPI_Aint)starts[d] * stride;
        stride *= sizes[d];
    }
    if (err)
        return err;
    myr_dt_entry e = {disp, 1, cur};
    MPI_Datatype moved;
    err = myr_datatype_create(&moved, 1, &e, 1, 0, 0);
    if (cur != old)
        myr_datatype_release(cur);
    if (err)
        return err;
    err = myr_datatype_resized(out, moved, 0, stride);
    myr_datatype_release(moved);
    return err;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    int err = prologue(call, ndims, oldtype, newtype);
    if (err)
        return err;
    if (ndims < 1)
        return fail(call, MPI_ERR_ARG, "invalid %s %lld (must be >= 1)", "ndims", ndims);
    if ((err = check_ptr(call, array_of_sizes, "array_of_sizes")) ||
        (err = check_ptr(call, array_of_subsizes, "array_of_subsizes")) ||
        (err = check_ptr(call, array_of_starts, "array_of_starts")))
        return err;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fail(call, MPI_ERR_ARG, "invalid %s %lld (MPI_ORDER_C or MPI_ORDER_FORTRAN)",
                    "order", order);
    for (int i = 0; i < ndims; i++) {
        int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
        if (size < 1 || sub < 1 || sub > size || start < 0 || start > size - sub)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: size %d, subsize %d, start %d (need "
                                 "size >= 1, 1 <= subsize <= size, "
                                 "0 <= start <= size - subsize)", i, size, sub, start);
    }
    MPI_Datatype t;
    if ((err = build_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                              order, oldtype, &t)))
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    int ni = 3 * ndims + 2;
    int *ints = scratch(call, (size_t)ni, sizeof *ints, &err);
    if (!ints) {
        myr_datatype_release(t);
        return err;
    }
    ints[0] = ndims;
    memcpy(ints + 1, array_of_sizes, (size_t)ndims * sizeof(int));
    memcpy(ints + 1 + ndims, array_of_subsizes, (size_t)ndims * sizeof(int));
    memcpy(ints + 1 + 2 * ndims, array_of_starts, (size_t)ndims * sizeof(int));
    ints[ni - 1] = order;
    err = myr_datatype_set_contents(t, MPI_COMBINER_SUBARRAY, ni, ints, 0, NULL, 1, &oldtype);
    free(ints);
    if (err) {
        myr_datatype_release(t);
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    }
    *newtype = t;
    return MPI_SUCCESS;
}
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                             const int array_of_subsizes[], const int array_of_starts[],
                             int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
    MYR_PMPI(Type_create_subarray);

/* One dimension of a darray: this process's share of `gsize` indices,
 * `stride` bytes apart, each an `inner`, laid out from the dimension's
 * first index (MPI 3.1, 4.1.4); *disp is where the share starts. */
static int darray_dim(MPI_Datatype inner, MPI_Aint stride, int gsize, int distrib,
                      int darg, int psize, int coord, MPI_Datatype *out, MPI_Aint *disp)
{
    myr_dt_entry e = {0, 1, inner};
    *disp = 0;
    if (distrib != MPI_DISTRIBUTE_CYCLIC) {   /* BLOCK, or NONE (psize 1) */
        long long blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        long long start = coord * blk, n = gsize - start;
        n = n < 0 ? 0 : n > blk ? blk : n;
        if (n > 0)
            *disp = (MPI_Aint)start * stride;
        return myr_datatype_create(out, 1, &e, n, stride, 0);
    }
    long long blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    long long start = coord * blk, period = (long long)psize * blk;
    if (start >= gsize)
        return myr_datatype_create(out, 0, NULL, 1, 0, 0);
    long long nb = (gsize - start + period - 1) / period;   /* blocks of mine */
    long long last = gsize - (start + (nb - 1) * period);  /* the last one's length */
    if (last > blk)
        last = blk;
    long long full = last == blk ? nb : nb - 1;
    *disp = (MPI_Aint)start * stride;
    MPI_Datatype block = NULL, fulls = NULL, tail = NULL;
    myr_dt_entry parts[2];
    int np = 0;
    int err = myr_datatype_create(&block, 1, &e, blk, stride, 0);
    if (!err && full > 0) {
        myr_dt_entry f = {0, 1, block};
        if (!(err = myr_datatype_create(&fulls, 1, &f, full, (MPI_Aint)period * stride, 0)))
            parts[np++] = (myr_dt_entry){0, 1, fulls};
    }
    if (!err && last < blk &&
        !(err = myr_datatype_create(&tail, 1, &e, last, stride, 0)))
        parts[np++] = (myr_dt_entry){(MPI_Aint)(full * period) * stride, 1, tail};
    if (!err)
        err = myr_datatype_create(out, np, parts, 1, 0, 0);
    MPI_Datatype temps[] = {block, fulls, tail};
    for (int i = 0; i < 3; i++)
        if (temps[i])
            myr_datatype_release(temps[i]);
    return err;
}

static int build_darray(int rank, int ndims, const int gsizes[], const int distribs[],
                        const int dargs[], const int psizes[], int order,
                        MPI_Datatype old, MPI_Datatype *out)
{
    int *coords = malloc((size_t)ndims * sizeof *coords);
    if (!coords)
        return MPI_ERR_NO_MEM;
    for (int d = ndims - 1, r = rank; d >= 0; d--) {   /* the process grid is row-major */
        coords[d] = r % psizes[d];
        r /= psizes[d];
    }
    MPI_Datatype cur = old;
    MPI_Aint stride = old->extent, disp = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; k < ndims && !err; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        MPI_Datatype next;
        MPI_Aint at;
        err = darray_dim(cur, stride, gsizes[d], distribs[d], dargs[d], psizes[d], coords[d],
                         &next, &at);
        if (cur != old)
            myr_datatype_release(cur);
        cur = err ? old : next;
        disp += at;
        stride *= gsizes[d];
    }
    free(coords);
    if (err)
        return err;
    myr_dt_entry e = {disp, 1, cur};
    MPI_Datatype moved;
    err = myr_datatype_create(&moved, 1, &e, 1, 0, 0);
    if (cur != old)
        myr_datatype_release(cur);
    if (err)
        return err;
    err = myr_datatype_resized(out, moved, 0, stride);
    myr_datatype_release(moved);
    return err;
}

static int check_darray(const char *call, int size, int rank, int ndims, const int gsizes[],
                        const int distribs[], const int dargs[], const int psizes[],
                        int order)
{
    int err;
    if (size < 1 || rank < 0 || rank >= size)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid size %d and rank %d (need size >= 1, 0 <= rank < size)",
                             size, rank);
    if (ndims < 1)
        return fail(call, MPI_ERR_ARG, "invalid %s %lld (must be >= 1)", "ndims", ndims);
    if ((err = check_ptr(call, gsizes, "array_of_gsizes")) ||
        (err = check_ptr(call, distribs, "array_of_distribs")) ||
        (err = check_ptr(call, dargs, "array_of_dargs")) ||
        (err = check_ptr(call, psizes, "array_of_psizes")))
        return err;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fail(call, MPI_ERR_ARG, "invalid %s %lld (MPI_ORDER_C or MPI_ORDER_FORTRAN)",
                    "order", order);
    long long procs = 1;
    for (int d = 0; d < ndims; d++) {
        int g = gsizes[d], p = psizes[d], dist = distribs[d], a = dargs[d];
        bool dflt = a == MPI_DISTRIBUTE_DFLT_DARG;
        if (g < 1 || p < 1)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: gsize %d, psize %d (both must be >= 1)",
                                 d, g, p);
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
            dist != MPI_DISTRIBUTE_NONE)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: invalid distribution %d", d, dist);
        if (!dflt && a < 1)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: invalid darg %d (>= 1 or "
                                 "MPI_DISTRIBUTE_DFLT_DARG)", d, a);
        if (dist == MPI_DISTRIBUTE_NONE && p != 1)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1, not %d",
                                 d, p);
        if (dist == MPI_DISTRIBUTE_BLOCK && !dflt && (long long)a * p < g)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: blocks of %d on %d processes do not cover "
                                 "%d indices", d, a, p, g);
        procs *= p;
        if (procs > size)
            break;
    }
    if (procs != size)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "the process grid (array_of_psizes) does not have size %d "
                             "processes", size);
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_darray";
    int err = prologue(call, 0, oldtype, newtype);
    if (err || (err = check_darray(call, size, rank, ndims, array_of_gsizes,
                                   array_of_distribs, array_of_dargs, array_of_psizes,
                                   order)))
        return err;
    MPI_Datatype t;
    if ((err = build_darray(rank, ndims, array_of_gsizes, array_of_distribs,
                            array_of_dargs, array_of_psizes, order, oldtype, &t)))
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    int ni = 4 * ndims + 4;
    int *ints = scratch(call, (size_t)ni, sizeof *ints, &err);
    if (!ints) {
        myr_datatype_release(t);
        return err;
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    const int *arrays[] = {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes};
    for (int k = 0; k < 4; k++)
        memcpy(ints + 3 + k * ndims, arrays[k], (size_t)ndims * sizeof(int));
    ints[ni - 1] = order;
    err = myr_datatype_set_contents(t, MPI_COMBINER_DARRAY, ni, ints, 0, NULL, 1, &oldtype);
    free(ints);
    if (err) {
        myr_datatype_release(t);
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    }
    *newtype = t;
    return MPI_SUCCESS;
}
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype) MYR_PMPI(Type_create_darray);

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    int err = prologue(call, 0, oldtype, newtype);
    if (err)
        return err;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Aint aints[2] = {lb, extent};
    if ((err = myr_datatype_resized(&t, oldtype, lb, extent)) ||
        (err = myr_datatype_set_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1,
                                         &oldtype))) {
        if (t)
            myr_datatype_release(t);
        return myr_mpi_error(MPI_COMM_NULL, err, call, "out of memory for the new datatype");
    }
    *newtype = t;
    return MPI_SUCCESS;
}
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype) MYR_PMPI(Type_create_resized);

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    int err = prologue(call, 0, oldtype, newtype);
    if (err)
        return err;
    myr_dt_entry e = {0, 1, oldtype};
    err = finish(call, 1, &e, 1, 0, 0, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype,
                 newtype);
    if (err)
        return err;
    (*newtype)->committed = oldtype->committed;  /* MPI: dup keeps the commit */
    if ((err = myr_attr_type_copy_all(oldtype, *newtype, call))) {
        myr_datatype_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
    }
    return err;
}
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) MYR_PMPI(Type_dup);

/* ---- commit and free --------------------------------------------------- */

static int check_type_arg(const char *call, MPI_Datatype *datatype)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_ptr(call, datatype, "datatype")))
        return err;
    return check_handle(call, *datatype, "datatype");
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    int err = check_type_arg("MPI_Type_commit", datatype);
    if (err)
        return err;
    if (!(*datatype)->committed)
        (*datatype)->committed = true;  /* the layout was built by the constructor */
    return MPI_SUCCESS;
}
int MPI_Type_commit(MPI_Datatype *datatype) MYR_PMPI(Type_commit);

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    int err = check_type_arg(call, datatype);
    if (err)
        return err;
    if ((*datatype)->predefined)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "cannot free the predefined datatype %s", (*datatype)->name);
    if ((err = myr_attr_type_delete_all(*datatype, call)))
        return err;
    myr_datatype_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
int MPI_Type_free(MPI_Datatype *datatype) MYR_PMPI(Type_free);

/* ---- queries ----------------------------------------------------------- */

static int query(const char *call, MPI_Datatype t, const void *a, const char *an,
                 const void *b, const char *bn)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_handle(call, t, "datatype")) || (err = check_ptr(call, a, an)))
        return err;
    return bn ? check_ptr(call, b, bn) : MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    int err = query("MPI_Type_size_x", datatype, size, "size", NULL, NULL);
    if (err)
        return err;
    *size = (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) MYR_PMPI(Type_size_x);

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    int err = query("MPI_Type_get_extent", datatype, lb, "lb", extent, "extent");
    if (err)
        return err;
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
    MYR_PMPI(Type_get_extent);

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    int err = query("MPI_Type_get_extent_x", datatype, lb, "lb", extent, "extent");
    if (err)
        return err;
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
    MYR_PMPI(Type_get_extent_x);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    int err = query("MPI_Type_get_true_extent", datatype, true_lb, "true_lb",
                    true_extent, "true_extent");
    if (err)
        return err;
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                             MPI_Aint *true_extent) MYR_PMPI(Type_get_true_extent);

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    int err = query("MPI_Type_get_true_extent_x", datatype, true_lb, "true_lb",
                    true_extent, "true_extent");
    if (err)
        return err;
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                               MPI_Count *true_extent) MYR_PMPI(Type_get_true_extent_x);

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    int err = query("MPI_Type_extent", datatype, extent, "extent", NULL, NULL);
    if (err)
        return err;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) MYR_PMPI(Type_extent);

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    int err = query("MPI_Type_lb", datatype, displacement, "displacement", NULL, NULL);
    if (err)
        return err;
    *displacement = datatype->lb;
    return MPI_SUCCESS;
}
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) MYR_PMPI(Type_lb);

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    int err = query("MPI_Type_ub", datatype, displacement, "displacement", NULL, NULL);
    if (err)
        return err;
    *displacement = datatype->lb + datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) MYR_PMPI(Type_ub);

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    int err = query(call, datatype, num_integers, "num_integers", num_addresses,
                    "num_addresses");
    if (err || (err = check_ptr(call, num_datatypes, "num_datatypes")) ||
        (err = check_ptr(call, combiner, "combiner")))
        return err;
    const myr_dt_contents *c = datatype->contents;
    *num_integers = c ? c->ni : 0;
    *num_addresses = c ? c->na : 0;
    *num_datatypes = c ? c->nt : 0;
    *combiner = c ? c->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner) MYR_PMPI(Type_get_envelope);

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    static const char call[] = "MPI_Type_get_contents";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_handle(call, datatype, "datatype")))
        return err;
    const myr_dt_contents *c = datatype->contents;
    if (!c)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "datatype %s is predefined (MPI_COMBINER_NAMED): it has "
                             "no contents", datatype->name);
    if (max_integers < c->ni || max_addresses < c->na || max_datatypes < c->nt)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "arrays too small: max_integers %d, max_addresses %d, "
                             "max_datatypes %d for %d, %d, %d (see MPI_Type_get_envelope)",
                             max_integers, max_addresses, max_datatypes, c->ni, c->na,
                             c->nt);
    if ((c->ni && (err = check_ptr(call, array_of_integers, "array_of_integers"))) ||
        (c->na && (err = check_ptr(call, array_of_addresses, "array_of_addresses"))) ||
        (c->nt && (err = check_ptr(call, array_of_datatypes, "array_of_datatypes"))))
        return err;
    if (c->ni)
        memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof(int));
    if (c->na)
        memcpy(array_of_addresses, c->aints, (size_t)c->na * sizeof(MPI_Aint));
    for (int i = 0; i < c->nt; i++) {
        /* A derived type comes back as a new reference: the caller frees it. */
        myr_datatype_retain(c->types[i]);
        array_of_datatypes[i] = c->types[i];
    }
    return MPI_SUCCESS;
}
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
    MYR_PMPI(Type_get_contents);

/* ---- names ------------------------------------------------------------- */

/* Names that ranks gave to predefined datatypes. MPI lets a process
 * rename MPI_INT for itself; here the object is shared by every rank of
 * the OS process, so each rank's name for it is kept aside: one entry per
 * rank and predefined type renamed (renaming them is rare: a lock, and
 * entries that live as long as the process). */
typedef struct type_rename {
    struct type_rename *next;
    const myr_rank *rank;
    MPI_Datatype type;
    char name[MPI_MAX_OBJECT_NAME];
} type_rename;

static _Atomic(type_rename *) renames;
static myr_spinlock renames_lock;

/* The entry of (rank, type), or NULL; with `make`, a new one if none. */
static type_rename *find_rename(const myr_rank *rank, MPI_Datatype type, bool make)
{
    for (type_rename *e = atomic_load_explicit(&renames, memory_order_acquire); e; e = e->next)
        if (e->rank == rank && e->type == type)
            return e;
    if (!make)
        return NULL;
    type_rename *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->rank = rank;
    e->type = type;
    e->next = atomic_load_explicit(&renames, memory_order_relaxed);
    /* Published whole: MPI_Type_get_name reads the head without the lock
     * to learn whether any type was renamed at all. */
    atomic_store_explicit(&renames, e, memory_order_release);
    return e;
}

static void copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n > MPI_MAX_OBJECT_NAME - 1)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char call[] = "MPI_Type_set_name";
    int err = query(call, datatype, type_name, "type_name", NULL, NULL);
    if (err)
        return err;
    if (!datatype->predefined) {
        copy_name(datatype->namebuf, type_name);
        return MPI_SUCCESS;
    }
    myr_spin_lock(&renames_lock);
    type_rename *e = find_rename(myr_rank_self(), datatype, true);
    if (e)
        copy_name(e->name, type_name);
    myr_spin_unlock(&renames_lock);
    if (!e)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for the name of %s", datatype->name);
    return MPI_SUCCESS;
}
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name) MYR_PMPI(Type_set_name);

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    int err = query("MPI_Type_get_name", datatype, type_name, "type_name", resultlen,
                    "resultlen");
    if (err)
        return err;
    const char *name = datatype->name;
    if (datatype->predefined && atomic_load_explicit(&renames, memory_order_relaxed)) {
        /* A rank renames only for itself; another ULT of it may be
         * renaming (MPI_THREAD_MULTIPLE): the name is read under the lock. */
        myr_spin_lock(&renames_lock);
        type_rename *e = find_rename(myr_rank_self(), datatype, false);
        copy_name(type_name, e ? e->name : name);
        myr_spin_unlock(&renames_lock);
    } else {
        copy_name(type_name, name);
    }
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
    MYR_PMPI(Type_get_name);

/* ---- addresses --------------------------------------------------------- */

static int address(const char *call, const void *location, MPI_Aint *out)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_ptr(call, out, "address")))
        return err;
    *out = (MPI_Aint)location;  /* absolute: usable with MPI_BOTTOM */
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address_out)
{
    return address("MPI_Get_address", location, address_out);
}
int MPI_Get_address(const void *location, MPI_Aint *address) MYR_PMPI(Get_address);

int PMPI_Address(void *location, MPI_Aint *address_out)
{
    return address("MPI_Address", location, address_out);
}
int MPI_Address(void *location, MPI_Aint *address) MYR_PMPI(Address);

/* Unsigned arithmetic: addresses may wrap past the sign bit. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) MYR_PMPI(Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) MYR_PMPI(Aint_diff);
