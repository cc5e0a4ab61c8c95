/* tests/task — dataflow tasks inside MPI ranks (myr_task.h). */
#include <mpi.h>
#include <myr_task.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"

/* ---- random graphs against a serial run -------------------------------- */

enum { SLOTS = 24, MAXDEPS = 3 };

typedef struct rtask {
    int id;
    int ndeps;
    int lo[MAXDEPS], hi[MAXDEPS], mode[MAXDEPS];   /* slot ranges */
    uint64_t *slots;
    int yields;
} rtask;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* Reads every slot it reads, then writes every slot it writes: the result
 * depends on the order of conflicting tasks, not on that of readers. */
static void rtask_body(rtask *t)
{
    uint64_t v = (uint64_t)t->id;
    for (int d = 0; d < t->ndeps; d++)
        if (t->mode[d] & MYR_TASK_IN)
            for (int s = t->lo[d]; s < t->hi[d]; s++)
                v = mix(v, t->slots[s]);
    for (int d = 0; d < t->ndeps; d++)
        if (t->mode[d] & MYR_TASK_OUT)
            for (int s = t->lo[d]; s < t->hi[d]; s++)
                t->slots[s] = mix(v, (uint64_t)s);
}

static void rtask_run(void *arg)
{
    rtask *t = arg;
    for (int i = 0; i < t->yields; i++)
        myr_ult_yield();   /* shuffles the order of ready tasks */
    rtask_body(t);
}

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

static void random_graphs_match_serial_order(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { NT = 600 };
    rtask *ts = calloc(NT, sizeof *ts);
    CHECK(ts);
    for (int round = 0; round < 4; round++) {
        unsigned seed = (unsigned)(rank * 7919 + round * 104729 + 1);
        uint64_t par[SLOTS], ser[SLOTS];
        for (int s = 0; s < SLOTS; s++)
            par[s] = ser[s] = (uint64_t)s * 31;
        for (int i = 0; i < NT; i++) {
            rtask *t = &ts[i];
            t->id = i;
            t->ndeps = 1 + (int)(rnd(&seed) % MAXDEPS);
            t->yields = (int)(rnd(&seed) % 3);
            myr_task_dep_t deps[MAXDEPS];
            for (int d = 0; d < t->ndeps; d++) {
                int a = (int)(rnd(&seed) % SLOTS), len = 1 + (int)(rnd(&seed) % 4);
                t->lo[d] = a;
                t->hi[d] = a + len > SLOTS ? SLOTS : a + len;
                t->mode[d] = 1 + (int)(rnd(&seed) % 3);
                /* Byte ranges that may start or end inside a slot's
                 * neighbour: overlaps of every shape. */
                deps[d].addr = (char *)&par[t->lo[d]];
                deps[d].size = (long)((t->hi[d] - t->lo[d]) * sizeof(uint64_t));
                deps[d].mode = t->mode[d];
            }
            t->slots = par;
            CHECK_OK(myr_task_create(rtask_run, t, deps, t->ndeps,
                                     rnd(&seed) % 8 == 0 ? MYR_TASK_HIGH_PRIORITY : 0));
        }
        CHECK_OK(myr_taskwait());
        for (int i = 0; i < NT; i++) {
            rtask t = ts[i];
            t.slots = ser;
            rtask_body(&t);
        }
        for (int s = 0; s < SLOTS; s++)
            CHECK(par[s] == ser[s]);
    }
    free(ts);
    CHECK_OK(MPI_Finalize());
}

/* ---- priorities --------------------------------------------------------- */

typedef struct order_log {
    int n;
    int who[64];
} order_log;

typedef struct logged {
    order_log *log;
    int id;
} logged;

static void log_run(void *arg)
{
    logged *l = arg;
    l->log->who[l->log->n++] = l->id;   /* one worker: no race */
}

/* One rank on one worker: the ready tasks run when the rank waits, the
 * high-priority ones first, also one that became ready after the others. */
static void high_priority_tasks_run_before_normal_ones(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    order_log log = {0};
    logged l[16];
    for (int i = 0; i < 16; i++)
        l[i] = (logged){&log, i};
    int x = 0;
    myr_task_dep_t out_x = {&x, sizeof x, MYR_TASK_OUT};
    myr_task_dep_t in_x = {&x, sizeof x, MYR_TASK_IN};
    CHECK_OK(myr_task_create(log_run, &l[0], &out_x, 1, 0));
    for (int i = 1; i <= 5; i++)
        CHECK_OK(myr_task_create(log_run, &l[i], NULL, 0, 0));
    CHECK_OK(myr_task_create(log_run, &l[6], &in_x, 1, MYR_TASK_HIGH_PRIORITY));
    CHECK_OK(myr_task_create(log_run, &l[7], NULL, 0, MYR_TASK_HIGH_PRIORITY));
    CHECK_OK(myr_taskwait());
    static const int want[] = {7, 0, 6, 1, 2, 3, 4, 5};
    CHECK(log.n == 8);
    for (int i = 0; i < 8; i++)
        CHECK(log.who[i] == want[i]);
    CHECK_OK(MPI_Finalize());
}

/* ---- wait_on and taskwait ---------------------------------------------- */

typedef struct slow_write {
    long *target;
    long value;
    _Atomic int *done;
} slow_write;

static void slow_write_run(void *arg)
{
    slow_write *w = arg;
    for (int i = 0; i < 100; i++)
        myr_ult_yield();
    *w->target = w->value;
    atomic_fetch_add(w->done, 1);
}

static void wait_on_waits_for_the_last_writer_only(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    long a[8] = {0};
    long other = 0;
    _Atomic int done = 0;
    slow_write w1 = {&a[3], 1, &done}, w2 = {&a[3], 2, &done};
    slow_write blocker = {&other, 5, &done};
    myr_task_dep_t whole = {a, sizeof a, MYR_TASK_OUT};
    myr_task_dep_t in_other = {&other, sizeof other, MYR_TASK_INOUT};
    CHECK_OK(myr_task_create(slow_write_run, &w1, &whole, 1, 0));
    CHECK_OK(myr_task_create(slow_write_run, &w2, &whole, 1, 0));
    /* A byte inside the region, not its start. */
    CHECK_OK(myr_task_wait_on((char *)&a[5] + 3));
    CHECK(a[3] == 2);
    /* Nothing writes it: returns at once. */
    long untouched = 0;
    CHECK_OK(myr_task_wait_on(&untouched));
    CHECK_OK(myr_task_create(slow_write_run, &blocker, &in_other, 1, 0));
    CHECK_OK(myr_task_wait_on(&other));
    CHECK(other == 5);
    CHECK_OK(myr_taskwait());
    CHECK(atomic_load(&done) == 3);
    CHECK_OK(MPI_Finalize());
}

typedef struct nest {
    _Atomic int *count;
    int depth;
    struct nest *pool;         /* where children are made */
    _Atomic int *used;
} nest;

static void nest_run(void *arg)
{
    nest *n = arg;
    atomic_fetch_add(n->count, 1);
    if (n->depth == 0)
        return;
    for (int i = 0; i < 3; i++) {
        nest *c = &n->pool[atomic_fetch_add(n->used, 1)];
        *c = (nest){n->count, n->depth - 1, n->pool, n->used};
        /* The parent's own region: children are not ordered after it. */
        myr_task_dep_t dep = {n, sizeof *n, MYR_TASK_INOUT};
        CHECK_OK(myr_task_create(nest_run, c, &dep, 1, 0));
    }
    /* No taskwait: the task ends only after its children all the same. */
}

static void taskwait_waits_for_nested_tasks(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    _Atomic int count = 0, used = 0;
    nest pool[121];
    nest root = {&count, 4, pool, &used};
    myr_task_dep_t dep = {&root, sizeof root, MYR_TASK_INOUT};
    CHECK_OK(myr_task_create(nest_run, &root, &dep, 1, 0));
    CHECK_OK(myr_taskwait());
    CHECK(atomic_load(&count) == 1 + 3 + 9 + 27 + 81);
    CHECK_OK(MPI_Finalize());
}

typedef struct selfwait {
    long x;
    _Atomic int ok;
} selfwait;

static void set_x(void *arg)
{
    selfwait *w = arg;
    for (int i = 0; i < 50; i++)
        myr_ult_yield();
    w->x = 7;
}

/* A task that writes x waits on x: for the child it made, not itself. */
static void waits_on_its_own_region(void *arg)
{
    selfwait *w = arg;
    myr_task_dep_t dep = {&w->x, sizeof w->x, MYR_TASK_OUT};
    CHECK_OK(myr_task_create(set_x, w, &dep, 1, 0));
    CHECK_OK(myr_task_wait_on(&w->x));
    atomic_store(&w->ok, w->x == 7);
}

static void wait_on_in_a_task_skips_the_task_itself(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    selfwait w = {0, 0};
    myr_task_dep_t dep = {&w.x, sizeof w.x, MYR_TASK_INOUT};
    CHECK_OK(myr_task_create(waits_on_its_own_region, &w, &dep, 1, 0));
    CHECK_OK(myr_task_wait_on(&w.x));
    CHECK(atomic_load(&w.ok) == 1);
    CHECK_OK(MPI_Finalize());
}

/* ---- MPI requests as dependences ----------------------------------------- */

enum { BIG = 1 << 16 };

typedef struct consumer {
    const int *buf;
    int n;
    int first;
    _Atomic int ran, ok;
} consumer;

static void consume(void *arg)
{
    consumer *c = arg;
    int ok = 1;
    for (int i = 0; i < c->n; i++)
        ok &= c->buf[i] == c->first + i;
    atomic_store(&c->ok, ok);
    atomic_store(&c->ran, 1);
}

static void overwrite(void *arg)
{
    int *buf = arg;
    for (int i = 0; i < BIG; i++)
        buf[i] = -1;
}

/* Rank 1's consumer depends on its Irecv; rank 0 sends only after the
 * barrier, which rank 1 reaches after creating the consumer: a consumer
 * run early would see the zeroed buffer. Rank 0's overwrite depends on its
 * Isend of a large message: run early, rank 1 would receive -1s. */
static void irecv_releases_its_consumer_task(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = calloc(BIG, sizeof *buf);
    CHECK(buf);
    if (rank == 0) {
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < BIG; i++)
            buf[i] = 1000 + i;
        MPI_Request s;
        CHECK_OK(MPI_Isend(buf, BIG, MPI_INT, 1, 7, MPI_COMM_WORLD, &s));
        CHECK_OK(myr_task_depend_request(&s, buf, BIG * (long)sizeof *buf));
        CHECK(s == MPI_REQUEST_NULL);
        myr_task_dep_t dep = {buf, BIG * (long)sizeof *buf, MYR_TASK_OUT};
        CHECK_OK(myr_task_create(overwrite, buf, &dep, 1, 0));
        CHECK_OK(myr_taskwait());
        CHECK(buf[0] == -1);
        /* A message that arrives before its receive is posted. */
        int small = 42;
        CHECK_OK(MPI_Send(&small, 1, MPI_INT, 1, 8, MPI_COMM_WORLD));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Request r;
        CHECK_OK(MPI_Irecv(buf, BIG, MPI_INT, 0, 7, MPI_COMM_WORLD, &r));
        CHECK_OK(myr_task_depend_request(&r, buf, BIG * (long)sizeof *buf));
        CHECK(r == MPI_REQUEST_NULL);
        consumer c = {.buf = buf, .n = BIG, .first = 1000};
        myr_task_dep_t dep = {buf, BIG * (long)sizeof *buf, MYR_TASK_IN};
        CHECK_OK(myr_task_create(consume, &c, &dep, 1, 0));
        CHECK(atomic_load(&c.ran) == 0);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(myr_task_wait_on(buf));
        CHECK_OK(myr_taskwait());
        CHECK(atomic_load(&c.ran) == 1 && atomic_load(&c.ok) == 1);
        /* Already complete when it becomes a dependence. */
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        int small = 0;
        CHECK_OK(MPI_Irecv(&small, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &r));
        consumer c2 = {.buf = &small, .n = 1, .first = 42};
        CHECK_OK(myr_task_depend_request(&r, &small, sizeof small));
        myr_task_dep_t dep2 = {&small, sizeof small, MYR_TASK_IN};
        CHECK_OK(myr_task_create(consume, &c2, &dep2, 1, 0));
        CHECK_OK(myr_taskwait());
        CHECK(atomic_load(&c2.ran) == 1 && atomic_load(&c2.ok) == 1);
    } else {
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(buf);
    CHECK_OK(MPI_Finalize());
}

/* Every rank receives from its left neighbour through request
 * dependences and sends to its right one from tasks, for many rounds at
 * once: completions come from the other ranks' ULTs, on any worker. */
enum { ROUNDS = 24, WORDS = 8192 };   /* above the eager size */

typedef struct ring_round {
    int *in, *out;
    int round, left, right;
    long *acc;
} ring_round;

static void ring_send(void *arg)
{
    ring_round *r = arg;
    CHECK_OK(MPI_Send(r->out, WORDS, MPI_INT, r->right, r->round, MPI_COMM_WORLD));
}

static void ring_consume(void *arg)
{
    ring_round *r = arg;
    for (int i = 0; i < WORDS; i++)
        CHECK(r->in[i] == r->left * 100000 + r->round * 10 + i % 7);
    *r->acc += r->in[0];
}

static void request_dependences_around_a_ring(void)
{
    int provided, rank, size;
    CHECK_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *in = malloc(ROUNDS * WORDS * sizeof *in), *out = malloc(ROUNDS * WORDS * sizeof *out);
    ring_round *rr = malloc(ROUNDS * sizeof *rr);
    CHECK(in && out && rr);
    long acc = 0, want = 0;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int k = 0; k < ROUNDS; k++) {
        rr[k] = (ring_round){in + k * WORDS, out + k * WORDS, k, left, right, &acc};
        for (int i = 0; i < WORDS; i++)
            rr[k].out[i] = rank * 100000 + k * 10 + i % 7;
        want += left * 100000 + k * 10;
        MPI_Request req;
        CHECK_OK(MPI_Irecv(rr[k].in, WORDS, MPI_INT, left, k, MPI_COMM_WORLD, &req));
        CHECK_OK(myr_task_depend_request(&req, rr[k].in, WORDS * (long)sizeof(int)));
        myr_task_dep_t d[] = {{rr[k].in, WORDS * (long)sizeof(int), MYR_TASK_IN},
                              {&acc, sizeof acc, MYR_TASK_INOUT}};
        CHECK_OK(myr_task_create(ring_consume, &rr[k], d, 2, 0));
        myr_task_dep_t o = {rr[k].out, WORDS * (long)sizeof(int), MYR_TASK_IN};
        CHECK_OK(myr_task_create(ring_send, &rr[k], &o, 1, MYR_TASK_HIGH_PRIORITY));
    }
    CHECK_OK(myr_taskwait());
    CHECK(acc == want);
    free(in);
    free(out);
    free(rr);
    CHECK_OK(MPI_Finalize());
}

/* ---- scale ------------------------------------------------------------------ */

typedef struct adder {
    long *slot;
    long v;
} adder;

static void add_run(void *arg)
{
    adder *a = arg;
    *a->slot += a->v;
}

/* Chains of inout tasks over a few slots, plus readers: thousands of
 * tasks per rank, on every rank at once. */
static void thousands_of_tasks_per_rank(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    enum { NT = 2000, NS = 16 };
    long slots[NS] = {0};
    adder *a = malloc(NT * sizeof *a);
    CHECK(a);
    for (int i = 0; i < NT; i++) {
        a[i] = (adder){&slots[i % NS], i};
        myr_task_dep_t dep = {&slots[i % NS], sizeof(long), MYR_TASK_INOUT};
        CHECK_OK(myr_task_create(add_run, &a[i], &dep, 1, i % 50 == 0));
    }
    CHECK_OK(myr_taskwait());
    for (int s = 0; s < NS; s++) {
        long want = 0;
        for (int i = s; i < NT; i += NS)
            want += i;
        CHECK(slots[s] == want);
    }
    free(a);
    int ok = 1, all = 0;
    CHECK_OK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(all == size);
    CHECK_OK(MPI_Finalize());
}

/* ---- errors ----------------------------------------------------------------- */

static void noop(void *arg)
{
    (void)arg;
}

static void bad_arguments_return_errors(void)
{
    CHECK_OK(MPI_Init(NULL, NULL));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x;
    myr_task_dep_t ok = {&x, sizeof x, MYR_TASK_IN};
    CHECK(myr_task_create(NULL, NULL, &ok, 1, 0) == MYR_ERR_ARG);
    CHECK(myr_task_create(noop, NULL, &ok, -1, 0) == MYR_ERR_ARG);
    CHECK(myr_task_create(noop, NULL, NULL, 1, 0) == MYR_ERR_ARG);
    CHECK(myr_task_create(noop, NULL, &ok, 1, 4) == MYR_ERR_ARG);
    myr_task_dep_t neg = {&x, -4, MYR_TASK_IN};
    CHECK(myr_task_create(noop, NULL, &neg, 1, 0) == MYR_ERR_ARG);
    myr_task_dep_t wrap = {(void *)(UINTPTR_MAX - 2), 16, MYR_TASK_OUT};
    CHECK(myr_task_create(noop, NULL, &wrap, 1, 0) == MYR_ERR_ARG);
    myr_task_dep_t null_addr = {NULL, 8, MYR_TASK_OUT};
    CHECK(myr_task_create(noop, NULL, &null_addr, 1, 0) == MYR_ERR_ARG);
    myr_task_dep_t modes[] = {{&x, 4, 0}, {&x, 4, 4}, {&x, 4, -1}};
    for (int i = 0; i < 3; i++)
        CHECK(myr_task_create(noop, NULL, &modes[i], 1, 0) == MYR_ERR_ARG);
    myr_task_dep_t empty = {NULL, 0, MYR_TASK_OUT};   /* orders nothing */
    CHECK_OK(myr_task_create(noop, NULL, &empty, 1, 0));
    CHECK(myr_task_wait_on(NULL) == MYR_ERR_ARG);
    CHECK(myr_task_depend_request(NULL, &x, 4) == MYR_ERR_ARG);
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK(myr_task_depend_request(&r, &x, 4) == MYR_ERR_ARG);
    r = (MPI_Request)&x;   /* not a request */
    CHECK(myr_task_depend_request(&r, &x, 4) == MYR_ERR_ARG);
    CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK(myr_task_depend_request(&r, &x, -1) == MYR_ERR_ARG);
    CHECK(r != MPI_REQUEST_NULL);   /* left to the caller */
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Start(&r));
    CHECK(myr_task_depend_request(&r, &x, 4) == MYR_ERR_ARG);   /* persistent */
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&r));
    CHECK_OK(myr_taskwait());
    CHECK_OK(MPI_Finalize());
}

static const test_case cases[] = {
    {"random_graphs_match_serial_order", random_graphs_match_serial_order},
    {"high_priority_tasks_run_before_normal_ones", high_priority_tasks_run_before_normal_ones},
    {"wait_on_waits_for_the_last_writer_only", wait_on_waits_for_the_last_writer_only},
    {"taskwait_waits_for_nested_tasks", taskwait_waits_for_nested_tasks},
    {"wait_on_in_a_task_skips_the_task_itself", wait_on_in_a_task_skips_the_task_itself},
    {"irecv_releases_its_consumer_task", irecv_releases_its_consumer_task},
    {"request_dependences_around_a_ring", request_dependences_around_a_ring},
    {"thousands_of_tasks_per_rank", thousands_of_tasks_per_rank},
    {"bad_arguments_return_errors", bad_arguments_return_errors},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
