/* coll.c — MPI_Barrier, MPI_Bcast and MPI_Allreduce between collocated
 * ranks. Usage: coll CASE (every rank runs the case; MYR_NRANKS and
 * MYR_WORKERS come from CTest, as mpiexec would set them). Rank 0 prints
 * "CASE: ok" when every rank got through.
 *
 * Ranks share this program's globals (Myriad's default mode), which lets a
 * test look at what the other ranks did. */
#include <mpi.h>
#include <complex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../check.h"

/* The same for every rank, so it may be shared; each rank's own number is
 * passed to every case (a global would be shared by all ranks). */
static int size;

typedef struct coll_case {
    const char *name;
    void (*run)(int rank);
} coll_case;

/* ---- barrier ------------------------------------------------------------ */

enum { PHASES = 300 };
static _Atomic int phase_arrivals[PHASES];

/* No rank leaves barrier i before every rank has reached it, round after
 * round (the rounds reuse the same counters). */
static void barrier_separates_phases(int rank)
{
    (void)rank;
    for (int i = 0; i < PHASES; i++) {
        atomic_fetch_add(&phase_arrivals[i], 1);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(atomic_load(&phase_arrivals[i]) == size);
    }
}

/* Ranks waiting in a barrier are suspended, not spinning: while rank 0
 * sleeps in the kernel, the process uses (almost) no CPU. Run with 2
 * workers, so that the waiting ranks have a worker of their own. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Atomic int waiting_arrivals;

static void waiting_ranks_use_no_cpu(int rank)
{
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        struct timespec tick = {0, 1000 * 1000}, nap = {0, 400 * 1000 * 1000};
        /* Wait until the others are in the barrier (in the kernel: this
         * worker is blocked, the other one runs them), then some more so
         * that the last ones have suspended and the workers gone idle. */
        while (atomic_load(&waiting_arrivals) < size - 1)
            nanosleep(&tick, NULL);
        for (int i = 0; i < 20; i++)
            nanosleep(&tick, NULL);
        double before = cpu_seconds();
        nanosleep(&nap, NULL);
        double used = cpu_seconds() - before;
        printf("CPU time while %d ranks wait 0.4 s: %.4f s\n", size - 1, used);
        CHECK(used < 0.1);
    } else {
        atomic_fetch_add(&waiting_arrivals, 1);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- bcast -------------------------------------------------------------- */

static int some_roots(int *roots)
{
    int n = 0;
    if (size <= 16) {
        for (int r = 0; r < size; r++)
            roots[n++] = r;
        return n;
    }
    int picks[] = {0, 1, size / 2, size - 2, size - 1};
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++)
        roots[n++] = picks[i];
    return n;
}

/* Every root, several sizes (from nothing to 400 KB): each rank ends with
 * the root's data. */
static void bcast_from_each_root(int rank)
{
    /* 400 KB to each of up to 64 ranks; less to 1000 (memory bandwidth) */
    const int counts[] = {0, 1, 13, size <= 64 ? 100000 : 5000};
    int roots[16], nroots = some_roots(roots);
    int *buf = malloc(100000 * sizeof(int));
    for (int k = 0; k < nroots; k++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            int root = roots[k], n = counts[c];
            for (int i = 0; i < n; i++)
                buf[i] = rank == root ? root * 1000003 + i : -1;
            CHECK_OK(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == root * 1000003 + i);
        }
    free(buf);
}

/* Types with padding travel as their data: the padding of the receivers'
 * buffers is left alone. */
static void bcast_of_pair_types(int rank)
{
    enum { N = 5 };
    struct { short value; int index; } si[N];
    struct { double value; int index; } di[N];
    int root = size - 1;
    memset(si, 0x5a, sizeof si);
    memset(di, 0x5a, sizeof di);
    for (int i = 0; i < N; i++)
        if (rank == root) {
            si[i].value = (short)(i - 2);
            si[i].index = 100 + i;
            di[i].value = 0.5 * i;
            di[i].index = 200 + i;
        }
    CHECK_OK(MPI_Bcast(si, N, MPI_SHORT_INT, root, MPI_COMM_WORLD));
    CHECK_OK(MPI_Bcast(di, N, MPI_DOUBLE_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        CHECK(si[i].value == i - 2 && si[i].index == 100 + i);
        CHECK(di[i].value == 0.5 * i && di[i].index == 200 + i);
        if (rank != root)   /* the 4 bytes after the double_int's int */
            CHECK(((unsigned char *)&di[i])[12] == 0x5a);
    }
}

/* ---- allreduce ---------------------------------------------------------- */

/* Contributions: small values that exercise sign and wrap-around; for
 * products mostly ones, with some -1 (signed) or 3 (unsigned). The
 * expected result folds the same values in rank order, in 64-bit
 * arithmetic, then narrows: the same as wrapping arithmetic in the type. */
static long long value(int r, int i, int is_signed)
{
    long long v = (r * 31 + i * 17) % 11;
    return is_signed ? v - 5 : v;
}

static long long factor(int r, int i, int is_signed)
{
    return (r + i) % 4 == 1 ? (is_signed ? -1 : 3) : 1;
}

#define INT_TYPE_CASE(T, MPITYPE, IS_SIGNED)                                      \
    do {                                                                          \
        enum { N = 4 };                                                           \
        MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};                     \
        for (int o = 0; o < 4; o++) {                                             \
            T in[N], out[N];                                                      \
            for (int i = 0; i < N; i++)                                           \
                in[i] = (T)(o == 1 ? factor(rank, i, IS_SIGNED)                   \
                                   : value(rank, i, IS_SIGNED));                  \
            CHECK_OK(MPI_Allreduce(in, out, N, MPITYPE, ops[o], MPI_COMM_WORLD)); \
            for (int i = 0; i < N; i++) {                                         \
                unsigned long long sum = 0, prod = 1;                             \
                long long lo = value(0, i, IS_SIGNED), hi = lo;                   \
                for (int r = 0; r < size; r++) {                                  \
                    long long v = value(r, i, IS_SIGNED);                         \
                    sum += (unsigned long long)v;                                 \
                    prod *= (unsigned long long)factor(r, i, IS_SIGNED);          \
                    lo = v < lo ? v : lo;                                         \
                    hi = v > hi ? v : hi;                                         \
                }                                                                 \
                T want = o == 0 ? (T)sum : o == 1 ? (T)prod : o == 2 ? (T)lo : (T)hi; \
                if (out[i] != want)                                               \
                    fprintf(stderr, "%s op %d element %d: got %lld want %lld\n",  \
                            #MPITYPE, o, i, (long long)out[i], (long long)want);  \
                CHECK(out[i] == want);                                            \
            }                                                                     \
        }                                                                         \
    } while (0)

static void allreduce_integer_types(int rank)
{
    INT_TYPE_CASE(signed char, MPI_SIGNED_CHAR, 1);
    INT_TYPE_CASE(unsigned char, MPI_UNSIGNED_CHAR, 0);
    INT_TYPE_CASE(short, MPI_SHORT, 1);
    INT_TYPE_CASE(unsigned short, MPI_UNSIGNED_SHORT, 0);
    INT_TYPE_CASE(int, MPI_INT, 1);
    INT_TYPE_CASE(unsigned, MPI_UNSIGNED, 0);
    INT_TYPE_CASE(long, MPI_LONG, 1);
    INT_TYPE_CASE(unsigned long, MPI_UNSIGNED_LONG, 0);
    INT_TYPE_CASE(long long, MPI_LONG_LONG, 1);
    INT_TYPE_CASE(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0);
    INT_TYPE_CASE(int8_t, MPI_INT8_T, 1);
    INT_TYPE_CASE(int16_t, MPI_INT16_T, 1);
    INT_TYPE_CASE(int32_t, MPI_INT32_T, 1);
    INT_TYPE_CASE(int64_t, MPI_INT64_T, 1);
    INT_TYPE_CASE(uint8_t, MPI_UINT8_T, 0);
    INT_TYPE_CASE(uint16_t, MPI_UINT16_T, 0);
    INT_TYPE_CASE(uint32_t, MPI_UINT32_T, 0);
    INT_TYPE_CASE(uint64_t, MPI_UINT64_T, 0);
    INT_TYPE_CASE(MPI_Aint, MPI_AINT, 1);
    INT_TYPE_CASE(MPI_Count, MPI_COUNT, 1);
    INT_TYPE_CASE(MPI_Offset, MPI_OFFSET, 1);
}

/* Floating-point values whose sum depends on the order of addition (large
 * and small magnitudes mixed): the result equals the serial fold in rank
 * order, x0 op (x1 op (... op x[N-1])), bit for bit. */
static double fvalue(int r, int i)
{
    double big = (r % 3 == 0) ? 1e16 : 1.0;
    return big * ((r * 7 + i * 3) % 5 - 2) + 0.1 * r + 0.01 * i;
}

#define FLOAT_TYPE_CASE(T, MPITYPE, N, INPLACE)                                     \
    do {                                                                            \
        MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};                       \
        T *in = malloc((N) * sizeof(T)), *out = malloc((N) * sizeof(T));            \
        for (int o = 0; o < 4; o++) {                                               \
            for (int i = 0; i < (N); i++)                                           \
                in[i] = out[i] = (T)(o == 1 ? 1.0 + fvalue(rank, i) * 1e-18         \
                                            : fvalue(rank, i));                     \
            CHECK_OK(MPI_Allreduce(INPLACE ? MPI_IN_PLACE : (void *)in, out, (N),   \
                                   MPITYPE, ops[o], MPI_COMM_WORLD));               \
            /* each rank checks every size-th element (the check is serial) */ \
            for (int i = rank % size; i < (N); i += size) {                         \
                T acc = 0;                                                          \
                for (int r = size - 1; r >= 0; r--) {                               \
                    T v = (T)(o == 1 ? 1.0 + fvalue(r, i) * 1e-18 : fvalue(r, i));  \
                    if (r == size - 1)                                              \
                        acc = v;                                                    \
                    else if (o == 0)                                                \
                        acc = v + acc;                                              \
                    else if (o == 1)                                                \
                        acc = v * acc;                                              \
                    else if (o == 2)                                                \
                        acc = v < acc ? v : acc;                                    \
                    else                                                            \
                        acc = v > acc ? v : acc;                                    \
                }                                                                   \
                CHECK(memcmp(&out[i], &acc, sizeof(T) < 10 ? sizeof(T) : 10) == 0); \
            }                                                                       \
        }                                                                           \
        free(in);                                                                   \
        free(out);                                                                  \
    } while (0)

static void allreduce_floating_types_in_rank_order(int rank)
{
    FLOAT_TYPE_CASE(float, MPI_FLOAT, 3, 0);
    FLOAT_TYPE_CASE(double, MPI_DOUBLE, 3, 0);
    FLOAT_TYPE_CASE(long double, MPI_LONG_DOUBLE, 3, 0);
}

/* Large reductions are folded in parallel, range by range: still in rank
 * order, bit for bit. 5000 doubles and 9000 floats exceed the parallel
 * threshold (32 KB); in place as well as not. */
static void allreduce_large_in_rank_order(int rank)
{
    FLOAT_TYPE_CASE(double, MPI_DOUBLE, 5000, 0);
    FLOAT_TYPE_CASE(double, MPI_DOUBLE, 5003, 1);
    FLOAT_TYPE_CASE(float, MPI_FLOAT, 9000, 0);
}

/* MPI_IN_PLACE: the contribution is taken from recvbuf. */
static void allreduce_in_place(int rank)
{
    int v[3] = {rank, -rank, 1};
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(v[0] == size * (size - 1) / 2 && v[1] == -v[0] && v[2] == size);
    double d = rank;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(d == size - 1);
}

/* SUM and PROD on complex numbers. */
static void allreduce_complex(int rank)
{
    double _Complex z = (rank % 2 ? 1.0 : -1.0) * I, s;
    CHECK_OK(MPI_Allreduce(&z, &s, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(s) == 0 && cimag(s) == (size % 2 ? -1 : 0));
    float _Complex w = I, p;
    CHECK_OK(MPI_Allreduce(&w, &p, 1, MPI_C_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    /* i^size cycles through 1, i, -1, -i */
    static const float re[] = {1, 0, -1, 0}, im[] = {0, 1, 0, -1};
    CHECK(crealf(p) == re[size % 4] && cimagf(p) == im[size % 4]);
}

/* ---- all together --------------------------------------------------------- */

/* Barriers, broadcasts and reductions of both sizes, back to back, many
 * rounds: nothing leaks from one round into the next. */
static void collectives_back_to_back(int rank)
{
    int rounds = size >= 1000 ? 200 : 2000;
    enum { BIG = 5000 };
    double *big = malloc(BIG * sizeof(double));
    for (int it = 0; it < rounds; it++) {
        int root = it % size;
        long v = rank == root ? 1000L * it + 7 : -1;
        CHECK_OK(MPI_Bcast(&v, 1, MPI_LONG, root, MPI_COMM_WORLD));
        CHECK(v == 1000L * it + 7);
        long s = rank + it, total;
        CHECK_OK(MPI_Allreduce(&s, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(total == (long)size * (size - 1) / 2 + (long)size * it);
        if (it % 3 == 0)
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (it % 50 == 0) {
            for (int i = 0; i < BIG; i++)
                big[i] = rank + i + it;
            CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, big, BIG, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            for (int i = 0; i < BIG; i++)
                CHECK(big[i] == size - 1 + i + it);
        }
    }
    free(big);
}

/* MPI_COMM_SELF: each rank alone; mixed with MPI_COMM_WORLD rounds. */
static void comm_self_is_each_rank_alone(int rank)
{
    for (int it = 0; it < 100; it++) {
        CHECK_OK(MPI_Barrier(MPI_COMM_SELF));
        int v = rank + it;
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_SELF));
        CHECK(v == rank + it);
        int out = -1;
        CHECK_OK(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
        CHECK(out == rank + it);
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_PROD, MPI_COMM_SELF));
        CHECK(v == rank + it);
        int all;
        CHECK_OK(MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        CHECK(all == size - 1 + it);
    }
}

/* A collective of one rank is done at once, without a round (coll.c,
 * run_alone), and wakes no worker: on MPI_COMM_SELF and on one-rank
 * splits, with strided types (a reduction's copy walks the layout) and
 * Reduce at its only root, interleaved with collectives of the whole job
 * (whose wake-ups must still reach every waiting rank), every payload
 * checked, the strided buffers' gaps untouched. */
static void one_rank_groups_interleaved_with_world(int rank)
{
    MPI_Comm alone;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone));
    int n;
    CHECK_OK(MPI_Comm_size(alone, &n));
    CHECK(n == 1);
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    MPI_Comm comms[2] = {MPI_COMM_SELF, alone};
    for (int it = 0; it < 300; it++) {
        MPI_Comm c = comms[it & 1];
        int in[16], out[16];
        for (int i = 0; i < 16; i++) {
            in[i] = rank * 1000 + it * 16 + i;
            out[i] = -1;
        }
        CHECK_OK(MPI_Allreduce(in, out, 1, every_other, MPI_SUM, c));
        for (int i = 0; i < 16; i++)
            CHECK(out[i] == (i % 2 ? -1 : in[i]));
        for (int i = 0; i < 16; i++)
            out[i] = -1;
        CHECK_OK(MPI_Reduce(in, out, 16, MPI_INT, MPI_MAX, 0, c));
        for (int i = 0; i < 16; i++)
            CHECK(out[i] == in[i]);
        CHECK_OK(MPI_Reduce(MPI_IN_PLACE, out, 16, MPI_INT, MPI_MIN, 0, c));
        CHECK(out[3] == in[3]);
        double d = rank + 0.5 * it;
        CHECK_OK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, c));
        CHECK(d == rank + 0.5 * it);
        CHECK_OK(MPI_Barrier(c));
        /* The whole job: every rank's contribution arrives. */
        long mine = rank + it, all = -1;
        CHECK_OK(MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(all == (long)size * (size - 1) / 2 + (long)size * it);
        if (it % 3 == 0)
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Type_free(&every_other));
    CHECK_OK(MPI_Comm_free(&alone));
}

/* ---- errors --------------------------------------------------------------- */

static void expect_class(int rank, int rc, int want)
{
    int cls = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != want)
        fprintf(stderr, "rank %d: got error class %d, expected %d\n", rank, cls, want);
    CHECK(cls == want);
}

/* Under MPI_ERRORS_RETURN each bad argument gives its error class, every
 * rank making the same mistake; the collectives still work afterwards. */
static void bad_arguments_return_errors(int rank)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int v = 1, w = 0;
    expect_class(rank, MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    expect_class(rank, MPI_Barrier((MPI_Comm)&v), MPI_ERR_COMM);
    expect_class(rank, MPI_Bcast(&v, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect_class(rank, MPI_Bcast(&v, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect_class(rank, MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_SELF), MPI_ERR_ROOT);
    expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_INT, (MPI_Op)&v, MPI_COMM_WORLD), MPI_ERR_OP);
    expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_C_BOOL, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_2INT, MPI_MIN, MPI_COMM_WORLD), MPI_ERR_OP);
    double _Complex z = 0, zz;
    expect_class(rank, MPI_Allreduce(&z, &zz, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_SELF),
                 MPI_ERR_OP);
    expect_class(rank, MPI_Allreduce(&v, &w, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    expect_class(rank, MPI_Allreduce(&v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER);
    expect_class(rank, MPI_Allreduce(&v, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect_class(rank, MPI_Allreduce(NULL, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect_class(rank, MPI_Allreduce(&v, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* Nothing was started: the next collectives match up as usual. */
    CHECK_OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(w == size);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A call of a rank alone in its communicator returns without a round
 * when its arguments are the usual ones (mpi/coll.c, alone_in): what it
 * must still do. Wrong arguments give their error classes on every
 * one-rank communicator, a nonblocking collective pending on it is
 * finished first (the order of the rank's collectives), and a reduction
 * whose arguments the short path declines (MPI_IN_PLACE, a derived type,
 * a user op) gives the same result as one it takes. */
static void one_rank_calls_check_and_keep_order(int rank)
{
    MPI_Comm split;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &split));
    MPI_Comm comms[3] = {MPI_COMM_SELF, split, size == 1 ? MPI_COMM_WORLD : split};
    MPI_Datatype loose;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &loose));   /* never committed */
    for (int k = 0; k < 3; k++) {
        MPI_Comm c = comms[k];
        CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
        int v[4] = {rank, 1, 2, 3}, w[4] = {-1, -1, -1, -1};
        double d = 1.5, e = 0;
        expect_class(rank, MPI_Bcast(v, 1, MPI_INT, 1, c), MPI_ERR_ROOT);
        expect_class(rank, MPI_Bcast(v, 1, loose, 0, c), MPI_ERR_TYPE);
        expect_class(rank, MPI_Bcast(NULL, 2, MPI_INT, 0, c), MPI_ERR_BUFFER);
        expect_class(rank, MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, 1, c), MPI_ERR_ROOT);
        expect_class(rank, MPI_Reduce(v, w, -1, MPI_INT, MPI_SUM, 0, c), MPI_ERR_COUNT);
        expect_class(rank, MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, c), MPI_ERR_OP);
        expect_class(rank, MPI_Allreduce(v, v, 4, MPI_INT, MPI_SUM, c), MPI_ERR_BUFFER);
        expect_class(rank, MPI_Allreduce(v, w, 1, loose, MPI_SUM, c), MPI_ERR_TYPE);
        expect_class(rank, MPI_Allreduce(v, w, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP);
        CHECK(w[0] == -1 && e == 0);   /* nothing written by a failed call */

        /* Taken and declined short paths agree. */
        CHECK_OK(MPI_Allreduce(v, w, 4, MPI_INT, MPI_MAX, c));
        CHECK(w[0] == rank && w[1] == 1 && w[2] == 2 && w[3] == 3);
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, c));
        CHECK(v[0] == rank && v[3] == 3);
        MPI_Datatype pair;
        CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
        CHECK_OK(MPI_Type_commit(&pair));
        w[0] = w[1] = w[2] = w[3] = -1;
        CHECK_OK(MPI_Reduce(v, w, 2, pair, MPI_SUM, 0, c));
        CHECK(w[0] == rank && w[1] == 1 && w[2] == 2 && w[3] == 3);
        CHECK_OK(MPI_Type_free(&pair));

        /* A nonblocking collective started before the blocking ones
         * completes first, with its own payload. */
        int early = 100 + rank, late = 200 + rank, sum = -1;
        MPI_Request r[2];
        CHECK_OK(MPI_Ibcast(&early, 1, MPI_INT, 0, c, &r[0]));
        CHECK_OK(MPI_Iallreduce(&late, &sum, 1, MPI_INT, MPI_SUM, c, &r[1]));
        CHECK_OK(MPI_Barrier(c));
        CHECK_OK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, c));
        CHECK_OK(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_SUM, c));
        CHECK(e == 1.5);
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(early == 100 + rank && sum == 200 + rank);
        CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL));
    }
    CHECK_OK(MPI_Type_free(&loose));
    CHECK_OK(MPI_Comm_free(&split));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* What only the ranks together can see: each rank gets the error. */
static void mismatches_are_reported_to_every_rank(int rank)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int v = 0, w;
    if (size > 1) {
        if (rank == size - 1)
            expect_class(rank, MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
        else
            expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
        expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, rank == 1 ? 1 : 0, MPI_COMM_WORLD),
                     MPI_ERR_ROOT);
        expect_class(rank, MPI_Bcast(&v, rank == 1 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD),
                     MPI_ERR_COUNT);
        expect_class(rank, MPI_Allreduce(&v, &w, 1, MPI_INT, rank == 1 ? MPI_MIN : MPI_MAX,
                                   MPI_COMM_WORLD), MPI_ERR_OP);
        expect_class(rank, MPI_Allreduce(&v, &w, 1, rank == 1 ? MPI_UNSIGNED : MPI_INT,
                                   MPI_MAX, MPI_COMM_WORLD), MPI_ERR_TYPE);
        /* The ranks of a worker check each other as they arrive and the
         * completer compares one rank per worker: one half against the
         * other (each half agreeing within itself), and a rank in the
         * middle of a group. */
        expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, rank < size / 2 ? 0 : 1, MPI_COMM_WORLD),
                     MPI_ERR_ROOT);
        expect_class(rank, MPI_Bcast(&v, rank == size / 2 + size / 4 ? 2 : 1, MPI_INT, 0,
                                     MPI_COMM_WORLD), MPI_ERR_COUNT);
        if (rank < size / 2)
            expect_class(rank, MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
        else
            expect_class(rank, MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
    }
    v = 1;
    CHECK_OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(w == size);
}

/* For the fatal paths (tests/expect_crash.sh checks the message). */
static void bad_root_is_fatal(int rank)
{
    (void)rank;
    int v = 0;
    MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD);
}

static void bad_op_is_fatal(int rank)
{
    (void)rank;
    int v = 0, w;
    MPI_Allreduce(&v, &w, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD);
}

static void mismatch_is_fatal(int rank)
{
    int v = 0;
    /* A matching Bcast first: the barrier rank's slot (which a barrier
     * leaves alone) still describes it when the mismatch comes. */
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == size - 1)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static const coll_case cases[] = {
    {"barrier_separates_phases", barrier_separates_phases},
    {"waiting_ranks_use_no_cpu", waiting_ranks_use_no_cpu},
    {"bcast_from_each_root", bcast_from_each_root},
    {"bcast_of_pair_types", bcast_of_pair_types},
    {"allreduce_integer_types", allreduce_integer_types},
    {"allreduce_floating_types_in_rank_order", allreduce_floating_types_in_rank_order},
    {"allreduce_large_in_rank_order", allreduce_large_in_rank_order},
    {"allreduce_in_place", allreduce_in_place},
    {"allreduce_complex", allreduce_complex},
    {"collectives_back_to_back", collectives_back_to_back},
    {"comm_self_is_each_rank_alone", comm_self_is_each_rank_alone},
    {"one_rank_groups_interleaved_with_world", one_rank_groups_interleaved_with_world},
    {"bad_arguments_return_errors", bad_arguments_return_errors},
    {"one_rank_calls_check_and_keep_order", one_rank_calls_check_and_keep_order},
    {"mismatches_are_reported_to_every_rank", mismatches_are_reported_to_every_rank},
    {"bad_root_is_fatal", bad_root_is_fatal},
    {"bad_op_is_fatal", bad_op_is_fatal},
    {"mismatch_is_fatal", mismatch_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    const coll_case *run = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            run = &cases[i];
    if (!run) {
        if (rank == 0)
            fprintf(stderr, "usage: %s CASE\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    run->run(rank);
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("%s: ok (%d ranks)\n", run->name, size);
    return 0;
}
