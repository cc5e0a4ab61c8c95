/*
 * coll_reference.c — every collective, on random communicators, checked
 * against a reference each rank computes serially.
 *
 * Each round, all ranks draw the same random choices from (seed, round):
 * sometimes a new communicator replaces one of three kept beside
 * MPI_COMM_WORLD (a dup; a split with random colors, some ranks
 * MPI_UNDEFINED, keys ascending, reversed, random or tied, so that its
 * ranks are not in process order; or a split by MPI_COMM_TYPE_SHARED),
 * its members checked against what the colors and keys say. Then one
 * collective, or a batch of up to three of which the nonblocking ones are
 * waited together, runs on one of the four communicators, with random
 * counts (0 included; a few large enough for the rendezvous protocol),
 * roots, types (MPI_INT, MPI_LONG, MPI_DOUBLE; a contiguous pair; a
 * strided vector with gaps; send and receive types that differ with the
 * same signature; per-pair types in Alltoallw), ops (MPI_SUM and MPI_MAX,
 * whose results stay exact, and a non-commutative user op: composition
 * of affine maps modulo 2^31, which MPI folds in rank order) and
 * MPI_IN_PLACE where the standard allows it.
 *
 * What comm rank r contributes is a pure function of (seed, round, r,
 * block, element), so every rank computes what it must receive without
 * communication: each receive buffer is compared whole (gaps and unused
 * parts must keep their fill) and each send buffer must be unchanged. The
 * predefined reductions have closed forms (cheap at 256 ranks, checked
 * against brute force at start); the user op is folded serially, with
 * counts kept small enough for that.
 *
 * Usage: coll_reference [rounds [seed [collectives]]]
 * collectives: "Bcast,Scan" for only those, "-Alltoallw" for all but
 * those (names without MPI_; the nonblocking forms come with them).
 * A mismatch prints "rank R: round K: <collective> on <comm> (...):
 * <buffer> element i is X, want Y" and the run goes on; rank 0 ends with
 * "coll_reference: N ranks, K rounds, C collectives checked, E errors: ok"
 * (or FAILED, and status 1).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    DEFAULT_ROUNDS = 30,  /* a few seconds at 256 ranks on 2 cores */
    FILL = 0xa5,          /* every byte of a buffer before a call */
    NSLOT = 4,            /* communicators in use: WORLD and three made */
    MAX_BATCH = 3,        /* collectives started before any is waited */
    MAX_PRINTED = 40,     /* mismatch lines per rank */
    AFFINE_BUDGET = 1 << 16, /* user-op folds per rank and collective */
    MAX_RANKS = 1024,     /* the closed-form sums stay within an int */
};
#define M31 0x7fffffffu

/* ---- deterministic randomness ------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(mix64(mix64(a) ^ b) ^ c);
}

/* xorshift64*: every rank that draws the same sequence from the same
 * state makes the same choices. */
typedef struct rng {
    uint64_t s;
} rng;

static rng rng_of(uint64_t a, uint64_t b)
{
    return (rng){hash3(a, b, 0x5eed) | 1};
}

static uint64_t next(rng *g)
{
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return g->s * 2685821657736338717ull;
}

static int pick(rng *g, int n)
{
    return n <= 1 ? 0 : (int)(next(g) % (uint64_t)n);
}

static bool chance(rng *g, int percent)
{
    return pick(g, 100) < percent;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "coll_reference: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- types ----------------------------------------------------------------
 *
 * A buffer is an array of slots of its basic type. An element of a type
 * holds w basic elements in ext slots: the basic type (1 in 1), a
 * contiguous pair (2 in 2), a vector of 2 blocks of 1 at stride 2 resized
 * to 4 slots (2 in 4: slots 1 and 3 are gaps). */
enum { B_INT, B_LONG, B_DOUBLE, NBASE };
enum { K_BASIC, K_PAIR, K_VEC, NKIND };
static const char *const base_name[NBASE] = {"MPI_INT", "MPI_LONG", "MPI_DOUBLE"};
static const size_t base_size[NBASE] = {sizeof(int), sizeof(long), sizeof(double)};

typedef struct tdesc {
    MPI_Datatype dt;
    int base, kind;
    int w, ext;
    char name[32];
} tdesc;

static size_t slot_of(const tdesc *t, size_t k)
{
    size_t e = k / (size_t)t->w, j = k % (size_t)t->w;
    return e * (size_t)t->ext + (t->kind == K_VEC ? 2 * j : j);
}

static void put(int base, void *buf, size_t slot, long long v)
{
    switch (base) {
    case B_INT: ((int *)buf)[slot] = (int)v; break;
    case B_LONG: ((long *)buf)[slot] = (long)v; break;
    default: ((double *)buf)[slot] = (double)v; break;
    }
}

/* Every buffer has TAIL slots more than it needs, checked like gaps:
 * nothing may be written past the end. */
enum { TAIL = 16 };

static void *alloc_slots(int base, size_t slots)
{
    size_t bytes = (slots + TAIL) * base_size[base];
    void *p = xmalloc(bytes);
    memset(p, FILL, bytes);
    return p;
}

/* ---- the collectives ----------------------------------------------------- */

enum {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
    C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN, NCOLL
};
static const char *const coll_name[NCOLL] = {
    "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
    "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan"};
/* How often each is drawn. */
static const int coll_weight[NCOLL] = {1, 3, 3, 3, 2, 2, 2, 2, 2, 2, 3, 2, 2, 2, 2, 2, 2};

/* ---- the run's state ----------------------------------------------------- */

typedef struct env {
    tdesc T[NBASE][NKIND];
    MPI_Op affine;
    int wrank, wsize;
    uint64_t seed;
    long round;
    size_t budget;   /* bytes per buffer a rank allocates */
    int weight[NCOLL];   /* how often each collective is drawn */
    long checked;    /* collectives, counted at their comm rank 0 */
    long errors;     /* failed checks of this rank */
    int printed;
} env;

static void say(env *e, const char *fmt, ...)
{
    if (e->printed++ >= MAX_PRINTED) {
        if (e->printed == MAX_PRINTED + 1)
            printf("rank %d: further mismatches not printed\n", e->wrank);
        return;
    }
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("rank %d: round %ld: %s\n", e->wrank, e->round, line);
    fflush(stdout);
}

/* ---- the non-commutative op: x -> a*x + b modulo 2^31, composed ---------- */

typedef struct aff {
    uint32_t a, b;
} aff;

/* (x o y)(t) = x(y(t)) */
static aff aff_then(aff x, aff y)
{
    return (aff){(uint32_t)(((uint64_t)x.a * y.a) & M31),
                 (uint32_t)(((uint64_t)x.a * y.b + x.b) & M31)};
}

/* MPI's order: inout = in op inout, in holding the lower ranks. */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *x = in;
    int *y = inout;
    for (int i = 0; i < *len; i++) {
        aff r = aff_then((aff){(uint32_t)x[2 * i], (uint32_t)x[2 * i + 1]},
                         (aff){(uint32_t)y[2 * i], (uint32_t)y[2 * i + 1]});
        y[2 * i] = (int)r.a;
        y[2 * i + 1] = (int)r.b;
    }
}

static aff aff_of(uint64_t salt, int r, size_t i)
{
    uint64_t h = hash3(salt, (uint64_t)r, (uint64_t)i);
    return (aff){(uint32_t)h & M31, (uint32_t)(h >> 32) & M31};
}

/* ---- one collective ------------------------------------------------------ */


enum { R_SUM, R_MAX, R_AFFINE };
static const char *const rop_name[] = {"MPI_SUM", "MPI_MAX", "affine composition"};

/* A block of a buffer: count elements of t from slot off, whose basic
 * element k holds mv(salt, peer, id, k). */
typedef struct blk {
    int peer, id;
    const tdesc *t;
    int count;
    size_t off;
} blk;

typedef struct blist {
    blk *b;
    int n, cap;
} blist;

static void badd(blist *l, int peer, int id, const tdesc *t, int count, size_t off)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        blk *b = realloc(l->b, (size_t)l->cap * sizeof *b);
        if (!b) {
            fprintf(stderr, "coll_reference: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        l->b = b;
    }
    l->b[l->n++] = (blk){peer, id, t, count, off};
}

typedef struct opcase {
    int coll;
    bool nb, in_place;
    MPI_Comm comm;
    int n, me, root;
    uint64_t salt;
    char desc[640];
    int base;
    /* What is passed: sarg is sbuf, MPI_IN_PLACE or NULL; rarg likewise. */
    void *sbuf, *rbuf;
    const void *sarg;
    void *rarg;
    size_t sslots, rslots;
    const tdesc *st, *rt;
    int scount, rcount;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes;
    bool check_rbuf;
    /* Data movement: what the send buffer holds, what the receive buffer
     * held before (in place) and must hold after. */
    blist sfill, rfill, rexp;
    /* Reductions: elements [first, first + count) of the result. */
    int rop;
    MPI_Op op;
    const tdesc *t;
    int count, total, first;
    int off, K;
    uint32_t sa, sb;
    long long *SB;   /* [n] prefix sums of B(r) */
    MPI_Request req;
    bool failed;
} opcase;

/* ---- the values ---------------------------------------------------------- */

/* Data movement: block (peer, id)'s basic element k, in [0, 2^31). */
static void fill_block(void *buf, int base, const blk *b, uint64_t salt)
{
    uint64_t h = hash3(salt, (uint64_t)b->peer, (uint64_t)b->id);
    uint32_t x = (uint32_t)h, step = (uint32_t)(h >> 32) | 1u;
    size_t n = (size_t)b->count * (size_t)b->t->w;
    for (size_t k = 0; k < n; k++, x += step)
        put(base, buf, b->off + slot_of(b->t, k), x >> 1);
}

/* Predefined reductions: element i of comm rank r is
 *   A(i) + 2048 * ((r + K*i + off) mod n) + B(r) - 2^18,
 * with A and B below 1024: the middle term takes each value 0..n-1 once
 * over the ranks, so sums and maxima over a prefix of ranks have closed
 * forms, while a missing, doubled or misplaced contribution changes them.
 * All sums stay exact in an int for n <= MAX_RANKS. */
enum { SHIFT = 1 << 18 };

static long long A_of(const opcase *o, size_t i)
{
    return (uint32_t)((uint32_t)i * 2654435761u + o->sa) >> 22;
}

static long long B_of(const opcase *o, int r)
{
    return (uint32_t)((uint32_t)r * 2246822519u + o->sb) >> 22;
}

static long long t_of(const opcase *o, int r, size_t i)
{
    return ((long long)r + (long long)o->K * (long long)(i % (size_t)o->n) + o->off) % o->n;
}

static long long rv(const opcase *o, int r, size_t i)
{
    return A_of(o, i) + 2048 * t_of(o, r, i) + B_of(o, r) - SHIFT;
}

/* The reduction of element i over comm ranks 0..m. */
static long long red_expect(const opcase *o, int m, size_t i)
{
    long long n = o->n, c = t_of(o, 0, i), a = A_of(o, i) - SHIFT;
    if (o->rop == R_SUM) {
        long long T;
        if (c + m <= n - 1) {
            T = (m + 1) * c + (long long)m * (m + 1) / 2;
        } else {
            long long first = n - c, L = m + 1 - first;
            T = first * (c + n - 1) / 2 + L * (L - 1) / 2;
        }
        return (m + 1) * a + 2048 * T + o->SB[m];
    }
    /* The middle terms differ by 2048 > any B: the largest wins. */
    if (c + m <= n - 1)
        return a + 2048 * (c + m) + B_of(o, m);
    return a + 2048 * (n - 1) + B_of(o, (int)(n - 1 - c));
}

static aff aff_expect(const opcase *o, int m, size_t i)
{
    aff acc = aff_of(o->salt, 0, i);
    for (int r = 1; r <= m; r++)
        acc = aff_then(acc, aff_of(o->salt, r, i));
    return acc;
}

/* Rank r's input, elements [first, first + count), from slot 0 of buf. */
static void fill_input(const opcase *o, void *buf, int r, size_t first, size_t count)
{
    for (size_t j = 0; j < count; j++) {
        if (o->rop == R_AFFINE) {
            aff x = aff_of(o->salt, r, first + j);
            ((int *)buf)[2 * j] = (int)x.a;
            ((int *)buf)[2 * j + 1] = (int)x.b;
        } else {
            put(o->base, buf, j, rv(o, r, first + j));
        }
    }
}

static void put_expect(const opcase *o, void *buf, size_t j, int m, size_t i)
{
    if (o->rop == R_AFFINE) {
        aff x = aff_expect(o, m, i);
        ((int *)buf)[2 * j] = (int)x.a;
        ((int *)buf)[2 * j + 1] = (int)x.b;
    } else {
        put(o->base, buf, j, red_expect(o, m, i));
    }
}

/* ---- comparing ----------------------------------------------------------- */

static void slot_str(char *out, size_t len, int base, const void *buf, size_t slot)
{
    const unsigned char *p = (const unsigned char *)buf + slot * base_size[base];
    bool fill = true;
    for (size_t k = 0; k < base_size[base]; k++)
        fill = fill && p[k] == FILL;
    if (fill)
        snprintf(out, len, "the fill (unwritten)");
    else if (base == B_INT)
        snprintf(out, len, "%d", *(const int *)p);
    else if (base == B_LONG)
        snprintf(out, len, "%ld", *(const long *)p);
    else
        snprintf(out, len, "%.17g", *(const double *)p);
}

static void compare(env *e, opcase *o, const char *what, const void *got, const void *want,
                    size_t slots)
{
    size_t bs = base_size[o->base];
    if (memcmp(got, want, slots * bs) == 0)
        return;
    e->errors++;
    size_t bad = 0;
    for (size_t s = 0; s < slots; s++) {
        if (memcmp((const char *)got + s * bs, (const char *)want + s * bs, bs) == 0)
            continue;
        if (bad++ < 3) {
            char x[40], y[40];
            slot_str(x, sizeof x, o->base, got, s);
            slot_str(y, sizeof y, o->base, want, s);
            say(e, "%s: %s element %zu is %s, want %s", o->desc, what, s, x, y);
        }
    }
    if (bad > 3)
        say(e, "%s: %s: %zu more elements differ (of %zu)", o->desc, what, bad - 3, slots);
}

/* ---- drawing sizes --------------------------------------------------------- */

/* A length in basic elements: 0 sometimes, mostly a few, some up to 1024,
 * about one in eight of big_lo..big_hi bytes; at most max; a multiple of
 * unit. */
static int draw_len(rng *g, int base, long big_lo, long big_hi, long max, int unit)
{
    long L;
    int c = pick(g, 100);
    if (c < 6)
        L = 0;
    else if (c < 64)
        L = 1 + pick(g, 16);
    else if (c < 88)
        L = 17 + pick(g, 1008);
    else
        L = (big_lo + (long)(next(g) % (uint64_t)(big_hi - big_lo + 1))) / (long)base_size[base];
    if (L > max)
        L = max;
    return (int)(L / unit * unit);
}

/* Elements of `slots_per` slots each that n blocks of may hold. */
static long max_elems(const env *e, int base, int n, int slots_per)
{
    return (long)(e->budget / ((size_t)(n ? n : 1) * (size_t)slots_per * base_size[base]));
}

/* Block (a, b)'s length: 1 in 8 empty, else up to max, a multiple of unit. */
static int len_of(uint64_t salt, int a, int b, int max, int unit)
{
    uint64_t h = hash3(salt, (uint64_t)a + 1, (uint64_t)b + 1);
    if (h % 8 == 0 || max <= 0)
        return 0;
    return (int)((h >> 16) % (uint64_t)(max + 1)) / unit * unit;
}

/* Where this rank puts n blocks of size[p] slots (multiples of gran):
 * in peer order, reversed or shuffled, 0-2 granules apart; returns the
 * slots spanned. A local choice: drawn from the rank's own generator. */
static size_t layout(rng *g, int n, const size_t *size, size_t gran, size_t *off)
{
    int *order = xmalloc((size_t)n * sizeof *order);
    int mode = pick(g, 3);
    for (int i = 0; i < n; i++)
        order[i] = mode == 1 ? n - 1 - i : i;
    for (int i = n - 1; mode == 2 && i > 0; i--) {
        int j = pick(g, i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        at += (size_t)pick(g, 3) * gran;
        off[order[i]] = at;
        at += size[order[i]];
    }
    free(order);
    return at + (size_t)pick(g, 2) * gran;
}

static int *ints(int n)
{
    return xmalloc((size_t)(n ? n : 1) * sizeof(int));
}

/* ---- preparing each kind ------------------------------------------------- */

static const char *yn_in_place(const opcase *o)
{
    return o->in_place ? "in place" : "not in place";
}

/* "MPI_Ibcast on c3 (a dup of WORLD) [5 ranks]": the call and where. */
static void desc_head(const opcase *o, const char *comm_name, char *head, size_t len)
{
    char name[32];
    snprintf(name, sizeof name, "%s", coll_name[o->coll]);
    if (o->nb)
        name[0] = (char)(name[0] - 'A' + 'a');   /* MPI_Ibcast */
    snprintf(head, len, "MPI_%s%s on %s [%d ranks]", o->nb ? "I" : "", name, comm_name, o->n);
}

static void prep_bcast(env *e, opcase *o, rng *g, const char *head)
{
    o->base = pick(g, NBASE);
    const tdesc *t = &e->T[o->base][pick(g, NKIND)];
    int L = draw_len(g, o->base, 64 << 10, 1 << 20, max_elems(e, o->base, 1, 2), t->w);
    o->root = pick(g, o->n);
    o->rt = t;
    o->rcount = L / t->w;
    o->rslots = (size_t)o->rcount * (size_t)t->ext;
    o->rbuf = o->rarg = alloc_slots(o->base, o->rslots);
    if (o->me == o->root)
        badd(&o->rfill, o->root, 0, t, o->rcount, 0);
    badd(&o->rexp, o->root, 0, t, o->rcount, 0);
    o->check_rbuf = true;
    snprintf(o->desc, sizeof o->desc, "%s (count %d, root %d, type %s)", head, o->rcount,
             o->root, t->name);
}

/* Send and receive types of the same basic type, maybe of different
 * kinds: a length is a multiple of both their widths. In place, the
 * receive type describes both sides (but Scatter's root keeps its send
 * type). */
static int draw_types(env *e, opcase *o, rng *g)
{
    o->base = pick(g, NBASE);
    o->st = &e->T[o->base][pick(g, NKIND)];
    o->rt = &e->T[o->base][pick(g, NKIND)];
    if (o->in_place && o->coll != C_SCATTER && o->coll != C_SCATTERV)
        o->st = o->rt;
    return o->st->w > o->rt->w ? o->st->w : o->rt->w;
}

static void types_str(const opcase *o, char *out, size_t len)
{
    if (o->in_place || o->st == o->rt)
        snprintf(out, len, "%s", o->rt->name);
    else
        snprintf(out, len, "%s -> %s", o->st->name, o->rt->name);
}

/* Gather(v) and Allgather(v): each rank's one block (id 0) to the root or
 * to all. */
static void prep_gather(env *e, opcase *o, rng *g, rng *local, const char *head)
{
    bool v = o->coll == C_GATHERV || o->coll == C_ALLGATHERV;
    bool all = o->coll == C_ALLGATHER || o->coll == C_ALLGATHERV;
    o->in_place = chance(g, 30);
    o->root = all ? -1 : pick(g, o->n);
    int unit = draw_types(e, o, g);
    int n = o->n, me = o->me;
    int Lmax = draw_len(g, o->base, all ? 64 << 10 : 4 << 10, all ? 1 << 20 : 64 << 10,
                        max_elems(e, o->base, n, 2), unit);
    int *Ls = ints(n);
    for (int s = 0; s < n; s++)
        Ls[s] = v ? len_of(o->salt, s, -1, Lmax, unit) : Lmax;
    bool receiver = all || me == o->root;
    bool my_in_place = o->in_place && receiver;
    if (!my_in_place) {
        o->scount = Ls[me] / o->st->w;
        o->sslots = (size_t)o->scount * (size_t)o->st->ext;
        o->sbuf = alloc_slots(o->base, o->sslots);
        o->sarg = o->sbuf;
        badd(&o->sfill, me, 0, o->st, o->scount, 0);
    } else {
        o->sarg = MPI_IN_PLACE;
    }
    o->rcounts = ints(n);
    o->rdispls = ints(n);
    size_t *size = xmalloc((size_t)n * sizeof *size), *off = xmalloc((size_t)n * sizeof *off);
    for (int s = 0; s < n; s++) {
        o->rcounts[s] = Ls[s] / o->rt->w;
        size[s] = (size_t)o->rcounts[s] * (size_t)o->rt->ext;
        off[s] = (size_t)s * (size_t)(Lmax / o->rt->w) * (size_t)o->rt->ext;
    }
    if (receiver) {
        o->rslots = v ? layout(local, n, size, (size_t)o->rt->ext, off)
                      : (size_t)n * (size_t)(Lmax / o->rt->w) * (size_t)o->rt->ext;
        o->rbuf = o->rarg = alloc_slots(o->base, o->rslots);
        o->check_rbuf = true;
        for (int s = 0; s < n; s++) {
            o->rdispls[s] = (int)(off[s] / (size_t)o->rt->ext);
            badd(&o->rexp, s, 0, o->rt, o->rcounts[s], off[s]);
        }
        if (my_in_place)
            badd(&o->rfill, me, 0, o->rt, o->rcounts[me], off[me]);
    } else if (pick(local, 2)) {
        /* Significant only at the root: NULL is allowed elsewhere. */
        free(o->rcounts);
        free(o->rdispls);
        o->rcounts = o->rdispls = NULL;
    }
    o->rcount = Lmax / o->rt->w;
    char ty[80];
    types_str(o, ty, sizeof ty);
    if (v)
        snprintf(o->desc, sizeof o->desc, "%s (counts 0..%d basic, root %d, type %s, %s)", head,
                 Lmax, o->root, ty, yn_in_place(o));
    else
        snprintf(o->desc, sizeof o->desc, "%s (count %d -> %d, root %d, type %s, %s)", head,
                 Lmax / o->st->w, o->rcount, o->root, ty, yn_in_place(o));
    free(size);
    free(off);
    free(Ls);
}

/* Scatter(v): the root's block d (id d) to rank d. */
static void prep_scatter(env *e, opcase *o, rng *g, rng *local, const char *head)
{
    bool v = o->coll == C_SCATTERV;
    o->in_place = chance(g, 30);
    o->root = pick(g, o->n);
    int unit = draw_types(e, o, g);
    int n = o->n, me = o->me;
    int Lmax = draw_len(g, o->base, 4 << 10, 64 << 10, max_elems(e, o->base, n, 2), unit);
    int *Ls = ints(n);
    for (int d = 0; d < n; d++)
        Ls[d] = v ? len_of(o->salt, d, -2, Lmax, unit) : Lmax;
    o->scount = Lmax / o->st->w;
    if (me == o->root) {
        o->scounts = ints(n);
        o->sdispls = ints(n);
        size_t *size = xmalloc((size_t)n * sizeof *size), *off = xmalloc((size_t)n * sizeof *off);
        for (int d = 0; d < n; d++) {
            o->scounts[d] = Ls[d] / o->st->w;
            size[d] = (size_t)o->scounts[d] * (size_t)o->st->ext;
            off[d] = (size_t)d * (size_t)o->scount * (size_t)o->st->ext;
        }
        o->sslots = v ? layout(local, n, size, (size_t)o->st->ext, off)
                      : (size_t)n * (size_t)o->scount * (size_t)o->st->ext;
        o->sbuf = alloc_slots(o->base, o->sslots);
        o->sarg = o->sbuf;
        for (int d = 0; d < n; d++) {
            o->sdispls[d] = (int)(off[d] / (size_t)o->st->ext);
            badd(&o->sfill, me, d, o->st, o->scounts[d], off[d]);
        }
        free(size);
        free(off);
    }
    if (me == o->root && o->in_place) {
        o->rarg = MPI_IN_PLACE;
    } else {
        o->rcount = Ls[me] / o->rt->w;
        o->rslots = (size_t)o->rcount * (size_t)o->rt->ext;
        o->rbuf = o->rarg = alloc_slots(o->base, o->rslots);
        o->check_rbuf = true;
        badd(&o->rexp, o->root, me, o->rt, o->rcount, 0);
    }
    char ty[80];
    snprintf(ty, sizeof ty, "%s -> %s", o->st->name, o->rt->name);
    if (v)
        snprintf(o->desc, sizeof o->desc, "%s (counts 0..%d basic, root %d, type %s, %s)", head,
                 Lmax, o->root, ty, yn_in_place(o));
    else
        snprintf(o->desc, sizeof o->desc, "%s (count %d -> %d, root %d, type %s, %s)", head,
                 o->scount, Lmax / o->rt->w, o->root, ty, yn_in_place(o));
    free(Ls);
}

/* Alltoall(v/w)'s lengths, in basic elements, from s to d: the same
 * both ways in place (the standard's condition). */
static int pair_len(const opcase *o, int s, int d, int Lmax, int unit)
{
    if (o->coll == C_ALLTOALL)
        return Lmax;
    if (o->in_place && s > d)
        return len_of(o->salt, d, s, Lmax, unit);
    return len_of(o->salt, s, d, Lmax, unit);
}

/* Alltoallw's types: the kinds of s's send type for d and of d's receive
 * type for s, drawn apart (the same signature either way). */
enum { SEND = 1, RECV = 2 };

static const tdesc *pair_type(env *e, const opcase *o, int s, int d, int side)
{
    return &e->T[o->base][hash3(o->salt + (uint64_t)side, (uint64_t)s, (uint64_t)d) % NKIND];
}

/* Alltoall(v/w): rank s's block for d has id d. In place, a pair's
 * lengths are the same both ways (the standard's condition). */
static void prep_alltoall(env *e, opcase *o, rng *g, rng *local, const char *head)
{
    int n = o->n, me = o->me;
    bool v = o->coll == C_ALLTOALLV, w = o->coll == C_ALLTOALLW;
    o->in_place = chance(g, 30);
    o->root = -1;
    int unit = draw_types(e, o, g);
    if (w)
        unit = 2;   /* any kind per pair */
    /* Blocks of more than 16 KiB take another path in Myriad. */
    int Lmax = draw_len(g, o->base, (16 << 10) + 8, 48 << 10, max_elems(e, o->base, n, 2), unit);
    size_t *size = xmalloc((size_t)n * sizeof *size), *off = xmalloc((size_t)n * sizeof *off);
    const tdesc *st = o->st, *rt = o->rt;
    if (w) {
        o->stypes = xmalloc((size_t)n * sizeof *o->stypes);
        o->rtypes = xmalloc((size_t)n * sizeof *o->rtypes);
    }
    o->scount = Lmax / st->w;
    o->rcount = Lmax / rt->w;
    /* The receive side (in place, also what is sent). */
    o->rcounts = ints(n);
    o->rdispls = ints(n);
    const tdesc **rts = xmalloc((size_t)n * sizeof *rts);
    for (int s = 0; s < n; s++) {
        rts[s] = w ? pair_type(e, o, s, me, RECV) : rt;
        o->rcounts[s] = pair_len(o, s, me, Lmax, unit) / rts[s]->w;
        size[s] = (size_t)o->rcounts[s] * (size_t)rts[s]->ext;
        off[s] = (size_t)s * (size_t)o->rcount * (size_t)rt->ext;
        if (w)
            o->rtypes[s] = rts[s]->dt;
    }
    if (v || w)
        o->rslots = layout(local, n, size, w ? 1 : (size_t)rt->ext, off);
    else
        o->rslots = (size_t)n * (size_t)o->rcount * (size_t)rt->ext;
    o->rbuf = o->rarg = alloc_slots(o->base, o->rslots);
    o->check_rbuf = true;
    for (int s = 0; s < n; s++) {
        o->rdispls[s] = w ? (int)(off[s] * base_size[o->base])
                          : (int)(off[s] / (size_t)rt->ext);
        badd(&o->rexp, s, me, rts[s], o->rcounts[s], off[s]);
        if (o->in_place)
            badd(&o->rfill, me, s, rts[s], o->rcounts[s], off[s]);
    }
    if (o->in_place) {
        o->sarg = MPI_IN_PLACE;
    } else {
        o->scounts = ints(n);
        o->sdispls = ints(n);
        const tdesc **sts = xmalloc((size_t)n * sizeof *sts);
        for (int d = 0; d < n; d++) {
            sts[d] = w ? pair_type(e, o, me, d, SEND) : st;
            o->scounts[d] = pair_len(o, me, d, Lmax, unit) / sts[d]->w;
            size[d] = (size_t)o->scounts[d] * (size_t)sts[d]->ext;
            off[d] = (size_t)d * (size_t)o->scount * (size_t)st->ext;
            if (w)
                o->stypes[d] = sts[d]->dt;
        }
        if (v || w)
            o->sslots = layout(local, n, size, w ? 1 : (size_t)st->ext, off);
        else
            o->sslots = (size_t)n * (size_t)o->scount * (size_t)st->ext;
        o->sbuf = alloc_slots(o->base, o->sslots);
        o->sarg = o->sbuf;
        for (int d = 0; d < n; d++) {
            o->sdispls[d] = w ? (int)(off[d] * base_size[o->base])
                              : (int)(off[d] / (size_t)st->ext);
            badd(&o->sfill, me, d, sts[d], o->scounts[d], off[d]);
        }
        free(sts);
    }
    free(rts);
    free(size);
    free(off);
    char ty[80];
    if (w)
        snprintf(ty, sizeof ty, "per pair, of %s", base_name[o->base]);
    else
        types_str(o, ty, sizeof ty);
    if (v || w)
        snprintf(o->desc, sizeof o->desc, "%s (counts 0..%d basic, type %s, %s)", head, Lmax, ty,
                 yn_in_place(o));
    else
        snprintf(o->desc, sizeof o->desc, "%s (count %d -> %d, %ld bytes a block, type %s, %s)",
                 head, o->scount, o->rcount, (long)Lmax * (long)base_size[o->base], ty,
                 yn_in_place(o));
}

/* Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan. */
static void prep_reduction(env *e, opcase *o, rng *g, rng *local, const char *head)
{
    int n = o->n, me = o->me;
    o->rop = pick(g, 100) < 25 ? R_AFFINE : pick(g, 2);
    o->base = o->rop == R_AFFINE ? B_INT : pick(g, NBASE);
    o->t = o->rop == R_AFFINE ? &e->T[B_INT][K_PAIR] : &e->T[o->base][K_BASIC];
    o->op = o->rop == R_SUM ? MPI_SUM : o->rop == R_MAX ? MPI_MAX : e->affine;
    o->off = pick(g, n);
    o->K = pick(g, n);
    o->sa = (uint32_t)next(g);
    o->sb = (uint32_t)next(g);
    bool rs = o->coll == C_REDUCE_SCATTER || o->coll == C_REDUCE_SCATTER_BLOCK;
    o->root = o->coll == C_REDUCE ? pick(g, n) : -1;
    /* In place: at the root for Reduce, at every rank for the others. */
    o->in_place = chance(g, 30);
    bool my_in_place = o->in_place && (o->coll != C_REDUCE || me == o->root);
    int ext = o->t->ext;
    long max = max_elems(e, o->base, rs ? n : 1, ext);
    if (o->rop == R_AFFINE && max > AFFINE_BUDGET / n)
        max = AFFINE_BUDGET / n;   /* folded serially, n per element */
    int count = draw_len(g, o->base, 64 << 10, 1 << 20, max, 1);
    o->count = count;
    o->total = count;
    o->first = 0;
    if (o->coll == C_REDUCE_SCATTER_BLOCK) {
        o->total = count * n;
        o->first = count * me;
    } else if (o->coll == C_REDUCE_SCATTER) {
        o->rcounts = ints(n);
        o->total = 0;
        for (int r = 0; r < n; r++) {
            o->rcounts[r] = len_of(o->salt, r, -3, count, 1);
            if (r < me)
                o->first += o->rcounts[r];
            o->total += o->rcounts[r];
        }
        o->count = o->rcounts[me];
    }
    o->SB = xmalloc((size_t)n * sizeof *o->SB);
    for (int r = 0; r < n; r++)
        o->SB[r] = (r ? o->SB[r - 1] : 0) + B_of(o, r);
    bool receiver = o->coll != C_REDUCE || me == o->root;
    /* The receive buffer: the whole input when in place for a scatter. */
    int rcount = rs && my_in_place ? o->total : o->count;
    if (receiver) {
        o->rslots = (size_t)rcount * (size_t)ext;
        o->rbuf = o->rarg = alloc_slots(o->base, o->rslots);
        o->check_rbuf = true;
    } else if (pick(local, 2)) {
        /* Significant only at the root: NULL, or a buffer not looked at. */
        o->rbuf = o->rarg = alloc_slots(o->base, (size_t)o->count * (size_t)ext);
    }
    if (my_in_place) {
        o->sarg = MPI_IN_PLACE;
        fill_input(o, o->rbuf, me, 0, (size_t)o->total);
    } else {
        o->sslots = (size_t)o->total * (size_t)ext;
        o->sbuf = alloc_slots(o->base, o->sslots);
        o->sarg = o->sbuf;
        fill_input(o, o->sbuf, me, 0, (size_t)o->total);
    }
    char cnt[64], rootstr[24];
    if (o->coll == C_REDUCE_SCATTER)
        snprintf(cnt, sizeof cnt, "counts 0..%d, total %d", count, o->total);
    else
        snprintf(cnt, sizeof cnt, "count %d", count);
    snprintf(rootstr, sizeof rootstr, "%d", o->root);
    snprintf(o->desc, sizeof o->desc, "%s (%s, root %s, type %s, op %s, %s)", head, cnt,
             o->root >= 0 ? rootstr : "-", o->t->name, rop_name[o->rop], yn_in_place(o));
}

/* ---- running and checking ------------------------------------------------ */

static int start(opcase *o)
{
    MPI_Comm c = o->comm;
    MPI_Request *q = &o->req;
    const void *sb = o->sarg;
    void *rb = o->rarg;
    MPI_Datatype sdt = o->st ? o->st->dt : MPI_DATATYPE_NULL;
    MPI_Datatype rdt = o->rt ? o->rt->dt : MPI_DATATYPE_NULL;
    if (sb == MPI_IN_PLACE && o->coll != C_SCATTER && o->coll != C_SCATTERV)
        sdt = MPI_DATATYPE_NULL;   /* ignored: not even a valid one */
    int sc = sb == MPI_IN_PLACE ? 0 : o->scount;
    bool nb = o->nb;
    switch (o->coll) {
    case C_BARRIER: return nb ? MPI_Ibarrier(c, q) : MPI_Barrier(c);
    case C_BCAST:
        return nb ? MPI_Ibcast(rb, o->rcount, rdt, o->root, c, q)
                  : MPI_Bcast(rb, o->rcount, rdt, o->root, c);
    case C_GATHER:
        return nb ? MPI_Igather(sb, sc, sdt, rb, o->rcount, rdt, o->root, c, q)
                  : MPI_Gather(sb, sc, sdt, rb, o->rcount, rdt, o->root, c);
    case C_GATHERV:
        return nb ? MPI_Igatherv(sb, sc, sdt, rb, o->rcounts, o->rdispls, rdt, o->root, c, q)
                  : MPI_Gatherv(sb, sc, sdt, rb, o->rcounts, o->rdispls, rdt, o->root, c);
    case C_ALLGATHER:
        return nb ? MPI_Iallgather(sb, sc, sdt, rb, o->rcount, rdt, c, q)
                  : MPI_Allgather(sb, sc, sdt, rb, o->rcount, rdt, c);
    case C_ALLGATHERV:
        return nb ? MPI_Iallgatherv(sb, sc, sdt, rb, o->rcounts, o->rdispls, rdt, c, q)
                  : MPI_Allgatherv(sb, sc, sdt, rb, o->rcounts, o->rdispls, rdt, c);
    case C_SCATTER: {
        int rc = rb == MPI_IN_PLACE ? 0 : o->rcount;
        return nb ? MPI_Iscatter(sb, o->scount, sdt, rb, rc, rdt, o->root, c, q)
                  : MPI_Scatter(sb, o->scount, sdt, rb, rc, rdt, o->root, c);
    }
    case C_SCATTERV: {
        int rc = rb == MPI_IN_PLACE ? 0 : o->rcount;
        return nb ? MPI_Iscatterv(sb, o->scounts, o->sdispls, sdt, rb, rc, rdt, o->root, c, q)
                  : MPI_Scatterv(sb, o->scounts, o->sdispls, sdt, rb, rc, rdt, o->root, c);
    }
    case C_ALLTOALL:
        return nb ? MPI_Ialltoall(sb, sc, sdt, rb, o->rcount, rdt, c, q)
                  : MPI_Alltoall(sb, sc, sdt, rb, o->rcount, rdt, c);
    case C_ALLTOALLV:
        return nb ? MPI_Ialltoallv(sb, o->scounts, o->sdispls, sdt, rb, o->rcounts, o->rdispls,
                                   rdt, c, q)
                  : MPI_Alltoallv(sb, o->scounts, o->sdispls, sdt, rb, o->rcounts, o->rdispls,
                                  rdt, c);
    case C_ALLTOALLW:
        return nb ? MPI_Ialltoallw(sb, o->scounts, o->sdispls, o->stypes, rb, o->rcounts,
                                   o->rdispls, o->rtypes, c, q)
                  : MPI_Alltoallw(sb, o->scounts, o->sdispls, o->stypes, rb, o->rcounts,
                                  o->rdispls, o->rtypes, c);
    case C_REDUCE:
        return nb ? MPI_Ireduce(sb, rb, o->count, o->t->dt, o->op, o->root, c, q)
                  : MPI_Reduce(sb, rb, o->count, o->t->dt, o->op, o->root, c);
    case C_ALLREDUCE:
        return nb ? MPI_Iallreduce(sb, rb, o->count, o->t->dt, o->op, c, q)
                  : MPI_Allreduce(sb, rb, o->count, o->t->dt, o->op, c);
    case C_REDUCE_SCATTER:
        return nb ? MPI_Ireduce_scatter(sb, rb, o->rcounts, o->t->dt, o->op, c, q)
                  : MPI_Reduce_scatter(sb, rb, o->rcounts, o->t->dt, o->op, c);
    case C_REDUCE_SCATTER_BLOCK:
        return nb ? MPI_Ireduce_scatter_block(sb, rb, o->count, o->t->dt, o->op, c, q)
                  : MPI_Reduce_scatter_block(sb, rb, o->count, o->t->dt, o->op, c);
    case C_SCAN:
        return nb ? MPI_Iscan(sb, rb, o->count, o->t->dt, o->op, c, q)
                  : MPI_Scan(sb, rb, o->count, o->t->dt, o->op, c);
    case C_EXSCAN:
        return nb ? MPI_Iexscan(sb, rb, o->count, o->t->dt, o->op, c, q)
                  : MPI_Exscan(sb, rb, o->count, o->t->dt, o->op, c);
    }
    return MPI_ERR_OTHER;
}

static bool is_reduction(int coll)
{
    return coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_REDUCE_SCATTER ||
           coll == C_REDUCE_SCATTER_BLOCK || coll == C_SCAN || coll == C_EXSCAN;
}

static void check(env *e, opcase *o)
{
    if (o->failed || o->coll == C_BARRIER)
        return;
    size_t bs = base_size[o->base];
    if (is_reduction(o->coll)) {
        if (o->sbuf) {
            void *want = alloc_slots(o->base, o->sslots);
            fill_input(o, want, o->me, 0, (size_t)o->total);
            compare(e, o, "sendbuf", o->sbuf, want, o->sslots + TAIL);
            free(want);
        }
        if (!o->check_rbuf)
            return;
        void *want = alloc_slots(o->base, o->rslots);
        int ext = o->t->ext;
        if (o->coll == C_EXSCAN && o->me == 0) {
            memcpy(want, o->rbuf, o->rslots * bs);   /* undefined at rank 0 */
        } else {
            int m = o->coll == C_SCAN ? o->me : o->coll == C_EXSCAN ? o->me - 1 : o->n - 1;
            for (int j = 0; j < o->count; j++)
                put_expect(o, want, (size_t)j, m, (size_t)(o->first + j));
            /* In place, the rest of the input is left undefined. */
            size_t done = (size_t)o->count * (size_t)ext;
            memcpy((char *)want + done * bs, (char *)o->rbuf + done * bs,
                   (o->rslots - done) * bs);
        }
        compare(e, o, "recvbuf", o->rbuf, want, o->rslots + TAIL);
        free(want);
        return;
    }
    if (o->sbuf) {
        void *want = alloc_slots(o->base, o->sslots);
        for (int i = 0; i < o->sfill.n; i++)
            fill_block(want, o->base, &o->sfill.b[i], o->salt);
        compare(e, o, "sendbuf", o->sbuf, want, o->sslots + TAIL);
        free(want);
    }
    if (o->check_rbuf) {
        void *want = alloc_slots(o->base, o->rslots);
        for (int i = 0; i < o->rexp.n; i++)
            fill_block(want, o->base, &o->rexp.b[i], o->salt);
        compare(e, o, "recvbuf", o->rbuf, want, o->rslots + TAIL);
        free(want);
    }
}

static void op_free(opcase *o)
{
    free(o->sbuf);
    free(o->rbuf);
    free(o->scounts);
    free(o->sdispls);
    free(o->rcounts);
    free(o->rdispls);
    free(o->stypes);
    free(o->rtypes);
    free(o->sfill.b);
    free(o->rfill.b);
    free(o->rexp.b);
    free(o->SB);
}

static void mpi_failed(env *e, opcase *o, const char *call, int err)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, s, &len);
    e->errors++;
    o->failed = true;
    say(e, "%s: %s returned %d (%s)", o->desc, call, err, s);
}

/* ---- communicators ------------------------------------------------------- */

typedef struct cslot {
    MPI_Comm comm;   /* MPI_COMM_NULL: this rank is not a member */
    int n, me;
    int *world;      /* [n] each member's world rank */
    char tag[16];    /* "WORLD", "c7" */
    char name[200];
} cslot;

enum { MK_DUP, MK_SPLIT, MK_SHARED };
enum { CM_ONE, CM_BLOCKS, CM_INTERLEAVED, CM_RANDOM, NCM };
enum { KM_ASC, KM_REV, KM_RANDOM, KM_ZERO, KM_FEW, NKM };
static const char *const cm_name[NCM] = {"one color", "colors by block", "colors interleaved",
                                         "random colors"};
static const char *const km_name[NKM] = {"keys ascending", "keys reversed", "random keys",
                                         "keys all 0", "keys of 3 values"};

typedef struct cspec {
    int kind, cmode, ncol, kmode;
    bool undef;
    uint64_t salt;
} cspec;

static int color_of(const cspec *c, int j, int pn)
{
    if (c->undef && hash3(c->salt, (uint64_t)j, 1) % 5 == 0)
        return MPI_UNDEFINED;
    switch (c->cmode) {
    case CM_BLOCKS: return (int)((long)j * c->ncol / pn);
    case CM_INTERLEAVED: return j % c->ncol;
    case CM_RANDOM: return (int)(hash3(c->salt, (uint64_t)j, 2) % (uint64_t)c->ncol);
    default: return 0;
    }
}

static int key_of(const cspec *c, int j, int pn)
{
    switch (c->kmode) {
    case KM_REV: return -j;
    case KM_RANDOM: return (int)(hash3(c->salt, (uint64_t)j, 3) % (uint64_t)(4 * pn));
    case KM_ZERO: return 0;
    case KM_FEW: return (int)(hash3(c->salt, (uint64_t)j, 4) % 3);
    default: return j;
    }
}

typedef struct keyed {
    int key, j;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

static void slot_free(cslot *s)
{
    if (s->comm != MPI_COMM_NULL && s->comm != MPI_COMM_WORLD)
        MPI_Comm_free(&s->comm);
    s->comm = MPI_COMM_NULL;
    free(s->world);
    s->world = NULL;
}

/* A new communicator from slots[p] into slots[j]: every world rank draws
 * the same spec; the parent's members make it and check its members
 * against the spec (for MPI_COMM_TYPE_SHARED, which ranks share memory is
 * the library's answer: only the order by key and that the members come
 * from the parent are checked). */
static void make_comm(env *e, cslot *slots, int j, int p, rng *g, int id)
{
    cspec c;
    int k = pick(g, 100);
    c.kind = k < 15 ? MK_DUP : k < 30 ? MK_SHARED : MK_SPLIT;
    c.cmode = pick(g, NCM);
    c.ncol = 1 + pick(g, 3);
    c.kmode = pick(g, NKM);
    c.undef = chance(g, 40);
    c.salt = next(g);
    cslot *par = &slots[p], fresh = {.comm = MPI_COMM_NULL};
    snprintf(fresh.tag, sizeof fresh.tag, "c%d", id);
    if (c.kind == MK_DUP)
        snprintf(fresh.name, sizeof fresh.name, "c%d (a dup of %s)", id, par->tag);
    else if (c.kind == MK_SHARED)
        snprintf(fresh.name, sizeof fresh.name, "c%d (%s split by MPI_COMM_TYPE_SHARED, %s%s)",
                 id, par->tag, km_name[c.kmode], c.undef ? ", some MPI_UNDEFINED" : "");
    else
        snprintf(fresh.name, sizeof fresh.name, "c%d (%s split: %d %s, %s%s)", id, par->tag,
                 c.cmode == CM_ONE ? 1 : c.ncol,
                 c.cmode == CM_ONE || c.ncol == 1 ? "color" : cm_name[c.cmode],
                 km_name[c.kmode], c.undef ? ", some MPI_UNDEFINED" : "");
    if (par->comm != MPI_COMM_NULL) {
        int pn = par->n, pj = par->me, key = key_of(&c, pj, pn);
        int color = c.kind == MK_DUP ? 0 : color_of(&c, pj, pn);
        MPI_Comm nc = MPI_COMM_NULL;
        int err;
        const char *call;
        if (c.kind == MK_DUP) {
            call = "MPI_Comm_dup";
            err = MPI_Comm_dup(par->comm, &nc);
        } else if (c.kind == MK_SHARED) {
            call = "MPI_Comm_split_type";
            err = MPI_Comm_split_type(par->comm,
                                      color == MPI_UNDEFINED ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                      key, MPI_INFO_NULL, &nc);
        } else {
            call = "MPI_Comm_split";
            err = MPI_Comm_split(par->comm, color, key, &nc);
        }
        /* The expected members, as parent ranks (NULL for shared). */
        int want_n = 0, *want = NULL;
        if (c.kind == MK_DUP) {
            want_n = pn;
            want = ints(pn);
            for (int i = 0; i < pn; i++)
                want[i] = i;
        } else if (c.kind == MK_SPLIT && color != MPI_UNDEFINED) {
            keyed *ks = xmalloc((size_t)pn * sizeof *ks);
            for (int i = 0; i < pn; i++)
                if (color_of(&c, i, pn) == color)
                    ks[want_n++] = (keyed){key_of(&c, i, pn), i};
            qsort(ks, (size_t)want_n, sizeof *ks, keyed_cmp);
            want = ints(want_n);
            for (int i = 0; i < want_n; i++)
                want[i] = ks[i].j;
            free(ks);
        }
        if (err != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(err, s, &len);
            e->errors++;
            say(e, "%s of %s for %s returned %d (%s)", call, par->name, fresh.name, err, s);
        } else if (color == MPI_UNDEFINED) {
            if (nc != MPI_COMM_NULL) {
                e->errors++;
                say(e, "%s for %s: MPI_UNDEFINED gave a communicator", call, fresh.name);
                MPI_Comm_free(&nc);
            }
        } else if (nc == MPI_COMM_NULL) {
            e->errors++;
            say(e, "%s for %s gave MPI_COMM_NULL", call, fresh.name);
        } else {
            fresh.comm = nc;
            MPI_Comm_size(nc, &fresh.n);
            MPI_Comm_rank(nc, &fresh.me);
            /* Its members' world ranks, and their parent ranks. */
            MPI_Group wg, ng;
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Comm_group(nc, &ng);
            int *idx = ints(fresh.n);
            fresh.world = ints(fresh.n);
            for (int i = 0; i < fresh.n; i++)
                idx[i] = i;
            MPI_Group_translate_ranks(ng, fresh.n, idx, wg, fresh.world);
            MPI_Group_free(&wg);
            MPI_Group_free(&ng);
            free(idx);
            int *prank = ints(fresh.n);
            for (int i = 0; i < fresh.n; i++) {
                prank[i] = -1;
                for (int q = 0; q < pn; q++)
                    if (par->world[q] == fresh.world[i])
                        prank[i] = q;
            }
            bool bad = fresh.world[fresh.me] != e->wrank;
            if (want) {
                bad = bad || fresh.n != want_n;
                for (int i = 0; !bad && i < want_n; i++)
                    bad = prank[i] != want[i];
            } else {
                /* Shared: members of the parent, ordered by (key, parent rank). */
                for (int i = 0; !bad && i < fresh.n; i++) {
                    bad = prank[i] < 0 || color_of(&c, prank[i], pn) == MPI_UNDEFINED;
                    if (!bad && i > 0) {
                        keyed x = {key_of(&c, prank[i - 1], pn), prank[i - 1]};
                        keyed y = {key_of(&c, prank[i], pn), prank[i]};
                        bad = keyed_cmp(&x, &y) >= 0;
                    }
                }
            }
            if (bad) {
                e->errors++;
                char got[160] = "", exp[160] = "";
                for (int i = 0, at = 0; i < fresh.n && at < 140; i++)
                    at += snprintf(got + at, sizeof got - (size_t)at, " %d", prank[i]);
                for (int i = 0, at = 0; want && i < want_n && at < 140; i++)
                    at += snprintf(exp + at, sizeof exp - (size_t)at, " %d", want[i]);
                say(e, "%s of %s: %s: I am rank %d of %d, members (parent ranks)%s, want%s",
                    call, par->tag, fresh.name, fresh.me, fresh.n, got,
                    want ? exp : " them ordered by key");
            }
            free(prank);
        }
        free(want);
    }
    slot_free(&slots[j]);
    slots[j] = fresh;
}

/* ---- a round ------------------------------------------------------------- */

static int draw_coll(const env *e, rng *g)
{
    int total = 0;
    for (int c = 0; c < NCOLL; c++)
        total += e->weight[c];
    int x = pick(g, total);
    for (int c = 0; c < NCOLL; c++)
        if ((x -= e->weight[c]) < 0)
            return c;
    return C_BARRIER;
}

/* "Bcast,Scan": only those; "-Alltoallw": all but those. False: a name
 * is unknown. */
static bool choose_colls(env *e, const char *list)
{
    bool except = list[0] == '-';
    for (int c = 0; c < NCOLL; c++)
        e->weight[c] = except ? coll_weight[c] : 0;
    for (const char *p = list + except; *p;) {
        size_t len = strcspn(p, ",");
        int c = 0;
        while (c < NCOLL && (strlen(coll_name[c]) != len || strncmp(coll_name[c], p, len) != 0))
            c++;
        if (c == NCOLL)
            return false;
        e->weight[c] = except ? 0 : coll_weight[c];
        p += len + (p[len] == ',');
    }
    int total = 0;
    for (int c = 0; c < NCOLL; c++)
        total += e->weight[c];
    return total > 0;
}

static void run_round(env *e, cslot *slots, int *next_id)
{
    rng g = rng_of(e->seed, (uint64_t)e->round);
    /* Every world rank draws these, member or not. */
    if (pick(&g, 4) == 0) {
        /* Mostly from WORLD: splits of splits soon leave single ranks. */
        int j = 1 + pick(&g, NSLOT - 1), p = chance(&g, 60) ? 0 : pick(&g, NSLOT);
        make_comm(e, slots, j, p, &g, (*next_id)++);
    }
    cslot *s = &slots[pick(&g, NSLOT)];
    int nops = chance(&g, 30) ? 1 + pick(&g, MAX_BATCH) : 1;
    bool batch_nb = nops > 1 || chance(&g, 20);
    if (s->comm == MPI_COMM_NULL)
        return;
    /* From here the draws may depend on the communicator's size. */
    opcase ops[MAX_BATCH];
    memset(ops, 0, sizeof ops);
    rng local = rng_of(g.s, (uint64_t)s->me + 1000003u * (uint64_t)e->round);
    for (int i = 0; i < nops; i++) {
        opcase *o = &ops[i];
        o->coll = draw_coll(e, &g);
        o->nb = batch_nb && (i == 0 || chance(&g, 75));
        o->comm = s->comm;
        o->n = s->n;
        o->me = s->me;
        o->root = -1;
        o->salt = next(&g);
        o->req = MPI_REQUEST_NULL;
        char head[300];
        desc_head(o, s->name, head, sizeof head);
        switch (o->coll) {
        case C_BARRIER: snprintf(o->desc, sizeof o->desc, "%s", head); break;
        case C_BCAST: prep_bcast(e, o, &g, head); break;
        case C_GATHER:
        case C_GATHERV:
        case C_ALLGATHER:
        case C_ALLGATHERV: prep_gather(e, o, &g, &local, head); break;
        case C_SCATTER:
        case C_SCATTERV: prep_scatter(e, o, &g, &local, head); break;
        case C_ALLTOALL:
        case C_ALLTOALLV:
        case C_ALLTOALLW: prep_alltoall(e, o, &g, &local, head); break;
        default: prep_reduction(e, o, &g, &local, head); break;
        }
        for (int k = 0; k < o->sfill.n; k++)
            fill_block(o->sbuf, o->base, &o->sfill.b[k], o->salt);
        for (int k = 0; k < o->rfill.n; k++)
            fill_block(o->rbuf, o->base, &o->rfill.b[k], o->salt);
    }
    for (int i = 0; i < nops; i++) {
        int err = start(&ops[i]);
        if (err != MPI_SUCCESS)
            mpi_failed(e, &ops[i], "the call", err);
    }
    if (batch_nb) {
        /* Together, or one by one from the last started. */
        if (pick(&local, 2)) {
            MPI_Request reqs[MAX_BATCH];
            for (int i = 0; i < nops; i++)
                reqs[i] = ops[i].req;
            int err = MPI_Waitall(nops, reqs, MPI_STATUSES_IGNORE);
            if (err != MPI_SUCCESS)
                mpi_failed(e, &ops[0], "MPI_Waitall", err);
        } else {
            for (int i = nops - 1; i >= 0; i--) {
                int err = MPI_Wait(&ops[i].req, MPI_STATUS_IGNORE);
                if (err != MPI_SUCCESS)
                    mpi_failed(e, &ops[i], "MPI_Wait", err);
            }
        }
    }
    for (int i = 0; i < nops; i++) {
        check(e, &ops[i]);
        if (s->me == 0)
            e->checked++;
        op_free(&ops[i]);
    }
}

/* ---- the closed forms against brute force -------------------------------- */

static long self_check(void)
{
    long bad = 0;
    rng g = rng_of(12345, 678);
    for (int trial = 0; trial < 200; trial++) {
        opcase o;
        memset(&o, 0, sizeof o);
        o.n = 1 + pick(&g, 40);
        o.off = pick(&g, o.n);
        o.K = pick(&g, o.n);
        o.sa = (uint32_t)next(&g);
        o.sb = (uint32_t)next(&g);
        o.rop = pick(&g, 2);
        long long SB[40];
        o.SB = SB;
        for (int r = 0; r < o.n; r++)
            SB[r] = (r ? SB[r - 1] : 0) + B_of(&o, r);
        for (size_t i = 0; i < 50; i++)
            for (int m = 0; m < o.n; m++) {
                long long acc = rv(&o, 0, i);
                for (int r = 1; r <= m; r++) {
                    long long x = rv(&o, r, i);
                    acc = o.rop == R_SUM ? acc + x : acc > x ? acc : x;
                }
                bad += acc != red_expect(&o, m, i);
            }
    }
    return bad;
}

/* ---- main ---------------------------------------------------------------- */

static void make_types(env *e)
{
    const MPI_Datatype basic[NBASE] = {MPI_INT, MPI_LONG, MPI_DOUBLE};
    for (int b = 0; b < NBASE; b++) {
        MPI_Datatype v;
        tdesc *t = e->T[b];
        t[K_BASIC] = (tdesc){basic[b], b, K_BASIC, 1, 1, ""};
        snprintf(t[K_BASIC].name, sizeof t[K_BASIC].name, "%s", base_name[b]);
        t[K_PAIR] = (tdesc){MPI_DATATYPE_NULL, b, K_PAIR, 2, 2, ""};
        MPI_Type_contiguous(2, basic[b], &t[K_PAIR].dt);
        MPI_Type_commit(&t[K_PAIR].dt);
        snprintf(t[K_PAIR].name, sizeof t[K_PAIR].name, "pair of %s", base_name[b]);
        t[K_VEC] = (tdesc){MPI_DATATYPE_NULL, b, K_VEC, 2, 4, ""};
        MPI_Type_vector(2, 1, 2, basic[b], &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)(4 * base_size[b]), &t[K_VEC].dt);
        MPI_Type_free(&v);
        MPI_Type_commit(&t[K_VEC].dt);
        snprintf(t[K_VEC].name, sizeof t[K_VEC].name, "strided %s", base_name[b]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    env e;
    memset(&e, 0, sizeof e);
    MPI_Comm_rank(MPI_COMM_WORLD, &e.wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &e.wsize);
    long rounds = argc > 1 ? atol(argv[1]) : DEFAULT_ROUNDS;
    e.seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20240518u;
    if (!choose_colls(&e, argc > 3 ? argv[3] : "-")) {
        if (e.wrank == 0)
            printf("coll_reference: %s: not a list of collectives (Bcast,Scan or -Alltoallw)\n",
                   argv[3]);
        MPI_Finalize();
        return 2;
    }
    if (e.wsize > MAX_RANKS) {
        if (e.wrank == 0)
            printf("coll_reference: at most %d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    /* The job's buffers together stay around 256 MiB at most. */
    e.budget = ((size_t)256 << 20) / (size_t)e.wsize;
    if (e.budget > ((size_t)4 << 20))
        e.budget = (size_t)4 << 20;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_types(&e);
    MPI_Op_create(affine_op, 0, &e.affine);
    if (e.wrank == 0) {
        long bad = self_check();
        if (bad) {
            printf("coll_reference: the closed forms disagree with brute force %ld times\n", bad);
            e.errors += bad;
        }
    }

    cslot slots[NSLOT];
    memset(slots, 0, sizeof slots);
    slots[0].comm = MPI_COMM_WORLD;
    slots[0].n = e.wsize;
    slots[0].me = e.wrank;
    slots[0].world = ints(e.wsize);
    for (int i = 0; i < e.wsize; i++)
        slots[0].world[i] = i;
    snprintf(slots[0].tag, sizeof slots[0].tag, "WORLD");
    snprintf(slots[0].name, sizeof slots[0].name, "MPI_COMM_WORLD");
    int next_id = 1;
    for (int j = 1; j < NSLOT; j++) {
        slots[j].comm = MPI_COMM_NULL;
        e.round = -j;
        rng g = rng_of(e.seed, (uint64_t)-j);
        make_comm(&e, slots, j, 0, &g, next_id++);
    }

    for (e.round = 0; e.round < rounds; e.round++)
        run_round(&e, slots, &next_id);

    for (int j = 0; j < NSLOT; j++)
        slot_free(&slots[j]);
    long tally[2] = {e.checked, e.errors}, sum[2] = {0, 0};
    MPI_Reduce(tally, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (e.wrank == 0)
        printf("coll_reference: %d ranks, %ld rounds, %ld collectives checked, %ld errors: %s\n",
               e.wsize, rounds, sum[0], sum[1], sum[1] == 0 ? "ok" : "FAILED");
    MPI_Op_free(&e.affine);
    for (int b = 0; b < NBASE; b++) {
        MPI_Type_free(&e.T[b][K_PAIR].dt);
        MPI_Type_free(&e.T[b][K_VEC].dt);
    }
    int failed = sum[1] != 0;
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed;
}
