/*
 * engine.c — the network engine (net.h) used directly, without MPI: one
 * process of a job started by a PMIx launcher (Open MPI's mpirun in
 * tests/net/CMakeLists.txt). Subcommands, one behaviour each:
 *
 *   traffic [-n messages] [-t threads] [-m max bytes] [-s seed]
 *       This process sends `messages` (split over its threads and the
 *       other processes) of random sizes 0 B .. max, mostly small; every
 *       message is checked on arrival: its sender and sequence (in the
 *       order each sending thread posted to this process: nothing lost,
 *       duplicated or overtaken), header and every data byte. Rendezvous
 *       messages are fetched by the receiver callback or by another
 *       thread, and some are dropped by fetching into scratch.
 *   order [-n messages] [-m max bytes]
 *       One thread per process posts mixed eager and rendezvous sizes;
 *       each pair of processes sees exactly the posting order.
 *   idle
 *       After traffic the comm thread sleeps: the process uses well under
 *       a fifth of a CPU over an idle second; then a message still wakes
 *       it and arrives.
 *   pingpong [-n round trips]
 *       Pairs of processes bounce messages posted by the main thread as
 *       soon as it learns of an arrival (with MYR_NET_SPIN_US=0 every post
 *       races with the comm thread going to sleep): a lost wake-up hangs,
 *       caught by a time limit.
 *
 * Exit status 0 and a line "process P: ok ..." when everything checked.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"

#define MAX_THREADS 16
#define WINDOW 24                /* sends in flight per thread */
#define TIME_LIMIT_S 50

static int me, nprocs;
static atomic_int failures;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "process %d: FAILED: ", me);                           \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        atomic_fetch_add(&failures, 1);                                        \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* ---- payloads --------------------------------------------------------- */

/* The core's header as this test writes it; padded with a pattern up to
 * a length that varies with the message. */
typedef struct head {
    uint32_t src, thread;
    uint64_t seq;                /* per (thread, destination) */
    uint64_t len;
} head;

static uint64_t key_of(const head *h)
{
    return mix(((uint64_t)h->src << 40) ^ ((uint64_t)h->thread << 32) ^ h->seq ^
               (h->len << 7));
}

static void fill(unsigned char *buf, size_t len, uint64_t key)
{
    size_t words = len / 8;
    for (size_t j = 0; j < words; j++) {
        uint64_t w = key ^ (j * 0x9E3779B97F4A7C15ULL);
        memcpy(buf + 8 * j, &w, 8);
    }
    for (size_t i = words * 8; i < len; i++)
        buf[i] = (unsigned char)(key >> (8 * (i % 8))) ^ (unsigned char)i;
}

/* Offset of the first wrong byte, or len. */
static size_t check(const unsigned char *buf, size_t len, uint64_t key)
{
    size_t words = len / 8;
    for (size_t j = 0; j < words; j++) {
        uint64_t w, want = key ^ (j * 0x9E3779B97F4A7C15ULL);
        memcpy(&w, buf + 8 * j, 8);
        if (w != want)
            for (size_t i = 8 * j;; i++)
                if (buf[i] != ((unsigned char *)&want)[i - 8 * j])
                    return i;
    }
    for (size_t i = words * 8; i < len; i++)
        if (buf[i] != ((unsigned char)(key >> (8 * (i % 8))) ^ (unsigned char)i))
            return i;
    return len;
}

static unsigned header_len(const head *h)
{
    return sizeof(head) + (unsigned)(key_of(h) % (MYR_NET_HEADER_MAX - sizeof(head) + 1));
}

/* Random sizes: most small, some around the eager limit, a few large,
 * now and then exactly the maximum. */
static size_t pick_size(uint64_t *rng, size_t max)
{
    *rng = mix(*rng + 0x9E3779B97F4A7C15ULL);
    unsigned r = (unsigned)(*rng % 1000);
    uint64_t x = *rng >> 16;
    size_t eager = myr_net_eager_limit(), n;
    if (r < 550)
        n = x % 65;
    else if (r < 800)
        n = 65 + x % 960;
    else if (r < 930)
        n = 1025 + x % (eager > 1025 ? eager - 1024 : 1);
    else if (r < 950)
        n = eager + (x % 3) - 1;            /* eager-1, eager, eager+1 */
    else if (r < 993)
        n = eager + 1 + x % (256 * 1024);
    else if (r < 999)
        n = 256 * 1024 + x % (max - 256 * 1024 + 1);
    else
        n = max;
    return n > max ? max : n;
}

/* ---- receiving -------------------------------------------------------- */

static myr_net_receiver app_receiver;   /* per subcommand */

static uint64_t *expect_seq;            /* [src * MAX_THREADS + thread] */
static atomic_long received, fetched_bytes;
static atomic_long rndv_count, dropped_count, eager_count;
static long expect_total;
static unsigned char *scratch;          /* dropped messages land here */
static size_t max_size;

typedef struct fetch_job {
    myr_net_fetch f;             /* first: the job is found from it */
    head h;
    bool drop;
    struct fetch_job *next;
} fetch_job;

/* Rendezvous messages handed to the fetcher thread. */
static pthread_mutex_t jobs_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static fetch_job *jobs;
static bool jobs_end;

/* The main thread waits for the totals. */
static pthread_mutex_t all_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_cond = PTHREAD_COND_INITIALIZER;

static void poke_main(void)
{
    pthread_mutex_lock(&all_mutex);
    pthread_cond_broadcast(&all_cond);
    pthread_mutex_unlock(&all_mutex);
}

static void message_complete(void)
{
    if (atomic_fetch_add(&received, 1) + 1 == expect_total)
        poke_main();
}

/* A done runs on the thread that drives the network: the comm thread,
 * or a poster that found it free, within its own post (net.h). */
static __thread bool posting;

static bool on_a_driver(void)
{
    return myr_net_on_comm_thread() || posting;
}

static void fetch_done(myr_net_fetch *f, int err)
{
    fetch_job *j = (fetch_job *)f;
    if (!on_a_driver())
        FAIL("a fetch's done ran off the threads driving the network");
    if (err)
        FAIL("fetch of %zu bytes from process %u ended with error %d", f->len, j->h.src, err);
    else if (!j->drop) {
        size_t bad = check(f->buf, f->len, key_of(&j->h));
        if (bad != f->len)
            FAIL("message %lu of thread %u of process %u (%zu bytes, rendezvous): "
                 "byte %zu wrong", (unsigned long)j->h.seq, j->h.thread, j->h.src,
                 f->len, bad);
    }
    atomic_fetch_add(&fetched_bytes, (long)f->len);
    if (!j->drop)
        free(f->buf);
    free(j);
    message_complete();
}

static void post_fetch(fetch_job *j)
{
    posting = true;
    myr_net_fetch_post(&j->f);
    posting = false;
}

static void *fetcher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&jobs_mutex);
    for (;;) {
        while (!jobs && !jobs_end)
            pthread_cond_wait(&jobs_cond, &jobs_mutex);
        if (!jobs)
            break;
        fetch_job *list = jobs;
        jobs = NULL;
        pthread_mutex_unlock(&jobs_mutex);
        /* Reverse: fetch in arrival order (any order would do). */
        fetch_job *fifo = NULL;
        while (list) {
            fetch_job *next = list->next;
            list->next = fifo;
            fifo = list;
            list = next;
        }
        while (fifo) {
            fetch_job *next = fifo->next;
            post_fetch(fifo);
            fifo = next;
        }
        pthread_mutex_lock(&jobs_mutex);
    }
    pthread_mutex_unlock(&jobs_mutex);
    return NULL;
}

static void traffic_receiver(const myr_net_arrival *m)
{
    if (!myr_net_on_comm_thread())
        FAIL("the receiver ran off the comm thread");
    head h;
    if (m->hdr_len < sizeof h) {
        FAIL("header of %u bytes from process %d", m->hdr_len, m->proc);
        return;
    }
    memcpy(&h, m->hdr, sizeof h);
    if (h.src != (uint32_t)m->proc || h.thread >= MAX_THREADS || h.len != m->len) {
        FAIL("header says process %u thread %u %lu bytes; the engine says process %d, "
             "%zu bytes", h.src, h.thread, (unsigned long)h.len, m->proc, m->len);
        return;
    }
    unsigned want_len = header_len(&h);
    unsigned char pad[MYR_NET_HEADER_MAX];
    fill(pad, want_len - sizeof h, key_of(&h));
    if (m->hdr_len != want_len || memcmp(pad, (const char *)m->hdr + sizeof h,
                                         want_len - sizeof h) != 0)
        FAIL("header of message %lu of process %u: %u bytes, or its padding, wrong",
             (unsigned long)h.seq, h.src, m->hdr_len);
    uint64_t *next = &expect_seq[h.src * MAX_THREADS + h.thread];
    if (h.seq != *next)
        FAIL("from process %u thread %u: message %lu arrived where %lu was due (%s)",
             h.src, h.thread, (unsigned long)h.seq, (unsigned long)*next,
             h.seq < *next ? "duplicate" : "lost or overtaken");
    *next = h.seq + 1;
    if (m->data || !m->rndv) {
        if (m->rndv)
            FAIL("an arrival with both data and a rendezvous descriptor");
        if (m->len > myr_net_eager_limit())
            FAIL("%zu bytes came eagerly (limit %zu)", m->len, myr_net_eager_limit());
        size_t bad = check(m->data, m->len, key_of(&h));
        if (bad != m->len)
            FAIL("message %lu of thread %u of process %u (%zu bytes, eager): byte %zu "
                 "wrong", (unsigned long)h.seq, h.thread, h.src, m->len, bad);
        atomic_fetch_add(&eager_count, 1);
        message_complete();
        return;
    }
    if (m->len <= myr_net_eager_limit())
        FAIL("%zu bytes came by rendezvous (limit %zu)", m->len, myr_net_eager_limit());
    atomic_fetch_add(&rndv_count, 1);
    fetch_job *j = calloc(1, sizeof *j);
    uint64_t r = mix(key_of(&h) + 1);
    j->h = h;
    j->drop = r % 10 == 0;
    j->f = (myr_net_fetch){.rndv = m->rndv, .len = m->len, .done = fetch_done};
    j->f.buf = j->drop ? scratch : malloc(m->len);
    if (j->drop)
        atomic_fetch_add(&dropped_count, 1);
    if (!j->f.buf) {
        FAIL("out of memory for %zu bytes", m->len);
        abort();
    }
    /* Half fetched at once from here, half later by another thread. */
    if ((r >> 8) % 2 == 0) {
        post_fetch(j);
        return;
    }
    pthread_mutex_lock(&jobs_mutex);
    j->next = jobs;
    jobs = j;
    pthread_cond_signal(&jobs_cond);
    pthread_mutex_unlock(&jobs_mutex);
}

static void receiver(const myr_net_arrival *m)
{
    app_receiver(m);
}

/* ---- sending ---------------------------------------------------------- */

typedef struct sender sender;

/* net.h leaves qnext and priv to the engine: a send finds its slot and
 * thread from its address. */
typedef struct slot {
    myr_net_send s;              /* first */
    sender *owner;
    atomic_bool busy;
    unsigned char *buf;
    size_t cap;
} slot;

struct sender {
    pthread_t thread;
    int index, nthreads;
    long count;                  /* messages to each other process */
    uint64_t rng;
    sem_t free_slots;
    slot slots[WINDOW];
    long sent, bytes;
};

static atomic_long sends_done;
static long sends_total;

static void send_done(myr_net_send *s, int err)
{
    sender *t = ((slot *)s)->owner;
    if (!on_a_driver())
        FAIL("a send's done ran off the threads driving the network");
    if (err)
        FAIL("send of %zu bytes to process %d ended with error %d", s->len, s->proc, err);
    slot *sl = (slot *)s;
    atomic_store_explicit(&sl->busy, false, memory_order_release);
    sem_post(&t->free_slots);
    if (atomic_fetch_add(&sends_done, 1) + 1 == sends_total)
        poke_main();
}

static slot *take_slot(sender *t)
{
    while (sem_wait(&t->free_slots) != 0 && errno == EINTR)
        ;
    for (;;)
        for (int i = 0; i < WINDOW; i++)
            if (!atomic_load_explicit(&t->slots[i].busy, memory_order_acquire))
                return &t->slots[i];
}

static void *sender_main(void *arg)
{
    sender *t = arg;
    long *left = calloc((size_t)nprocs, sizeof *left);
    uint64_t *seq = calloc((size_t)nprocs, sizeof *seq);
    long remaining = 0;
    for (int p = 0; p < nprocs; p++)
        if (p != me) {
            left[p] = t->count;
            remaining += t->count;
        }
    while (remaining > 0) {
        /* A random destination among those still owed messages. */
        t->rng = mix(t->rng + 1);
        int dst = (int)(t->rng % (uint64_t)nprocs);
        while (left[dst] == 0)
            dst = (dst + 1) % nprocs;
        left[dst]--;
        remaining--;
        slot *sl = take_slot(t);
        size_t len = pick_size(&t->rng, max_size);
        if (sl->cap < len) {
            free(sl->buf);
            sl->buf = malloc(len);
            sl->cap = len;
        }
        head h = {.src = (uint32_t)me, .thread = (uint32_t)t->index, .seq = seq[dst]++,
                  .len = len};
        fill(sl->buf, len, key_of(&h));
        myr_net_send *s = &sl->s;
        s->proc = dst;
        s->hdr_len = header_len(&h);
        memcpy(s->hdr, &h, sizeof h);
        fill(s->hdr + sizeof h, s->hdr_len - sizeof h, key_of(&h));
        s->data = len ? sl->buf : NULL;
        s->len = len;
        s->done = send_done;
        sl->owner = t;
        atomic_store_explicit(&sl->busy, true, memory_order_relaxed);
        posting = true;
        myr_net_send_post(s);
        posting = false;
        t->sent++;
        t->bytes += (long)len;
        /* Large buffers are not kept: memory stays bounded. */
    }
    free(left);
    free(seq);
    return NULL;
}

/* Wait until cond() or the time limit. What we wait for comes from the
 * network: say so (net.h), or the comm thread would leave arrivals in
 * UCX for a nap at a time. */
static bool wait_for(bool (*cond)(void), double limit_s)
{
    double end = now_s() + limit_s;
    bool met = true;
    myr_net_expect_begin(false);
    pthread_mutex_lock(&all_mutex);
    while (!cond()) {
        if (now_s() > end) {
            met = false;
            break;
        }
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += 1;
        pthread_cond_timedwait(&all_cond, &all_mutex, &t);
    }
    pthread_mutex_unlock(&all_mutex);
    myr_net_expect_end();
    return met;
}

static bool all_sent(void) { return atomic_load(&sends_done) == sends_total; }
static bool all_received(void) { return atomic_load(&received) == expect_total; }

static int run_traffic(long messages, int nthreads, uint64_t seed)
{
    if (nthreads < 1 || nthreads > MAX_THREADS || nprocs < 2) {
        fprintf(stderr, "traffic: 1..%d threads, 2 or more processes\n", MAX_THREADS);
        return 2;
    }
    long streams = (long)nthreads * (nprocs - 1);
    long per_pair = (messages + streams - 1) / streams;
    if (per_pair < 1)
        per_pair = 1;
    /* Every process uses the same parameters: what it sends is what each
     * other process expects from it. */
    expect_total = per_pair * nthreads * (nprocs - 1);
    sends_total = expect_total;
    pthread_t fetcher;
    pthread_create(&fetcher, NULL, fetcher_main, NULL);

    double t0 = now_s();
    sender *threads = calloc((size_t)nthreads, sizeof *threads);
    for (int i = 0; i < nthreads; i++) {
        sender *t = &threads[i];
        t->index = i;
        t->nthreads = nthreads;
        t->count = per_pair;
        t->rng = mix(seed ^ ((uint64_t)me << 20) ^ (uint64_t)i);
        sem_init(&t->free_slots, 0, WINDOW);
        pthread_create(&t->thread, NULL, sender_main, t);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i].thread, NULL);
    bool ok = wait_for(all_sent, TIME_LIMIT_S) && wait_for(all_received, TIME_LIMIT_S);
    double t1 = now_s();
    if (!ok)
        FAIL("time limit: %ld of %ld sends done, %ld of %ld messages received "
             "(%ld in flight in the engine)", atomic_load(&sends_done), sends_total,
             atomic_load(&received), expect_total, myr_net_in_flight());
    pthread_mutex_lock(&jobs_mutex);
    jobs_end = true;
    pthread_cond_signal(&jobs_cond);
    pthread_mutex_unlock(&jobs_mutex);
    if (ok)
        pthread_join(fetcher, NULL);
    for (int p = 0; ok && p < nprocs; p++)
        for (int i = 0; p != me && i < nthreads; i++)
            if (expect_seq[p * MAX_THREADS + i] != (uint64_t)per_pair)
                FAIL("from process %d thread %d: %lu messages, expected %ld", p, i,
                     (unsigned long)expect_seq[p * MAX_THREADS + i], per_pair);
    long bytes = 0;
    for (int i = 0; i < nthreads; i++) {
        bytes += threads[i].bytes;
        for (int k = 0; k < WINDOW; k++)
            free(threads[i].slots[k].buf);
    }
    if (!ok)
        return 1;
    /* An operation counts until its done has returned, a moment after it
     * told us. */
    for (int i = 0; i < 1000 && myr_net_in_flight() != 0; i++)
        usleep(1000);
    if (myr_net_in_flight() != 0)
        FAIL("%ld operations in flight a second after everything completed",
             myr_net_in_flight());
    printf("process %d: sent %ld messages (%.1f MB) and received %ld (%ld eager, %ld "
           "rendezvous of which %ld dropped) in %.2f s\n", me, sends_total, bytes / 1e6,
           atomic_load(&received), atomic_load(&eager_count), atomic_load(&rndv_count),
           atomic_load(&dropped_count), t1 - t0);
    free(threads);
    return 0;
}

/* ---- idle and ping-pong ------------------------------------------------ */

/* One message the main thread posts and waits for. */
typedef struct note {
    myr_net_send s;
    atomic_bool done;
} note;

static atomic_long arrivals;
static atomic_long last_len;
static void *pending_rndv;            /* a rendezvous arrival to fetch */

static void note_done(myr_net_send *s, int err)
{
    if (err)
        FAIL("send to process %d ended with error %d", s->proc, err);
    atomic_store(&((note *)s)->done, true);
    poke_main();
}

static void counting_receiver(const myr_net_arrival *m)
{
    if (m->rndv) {
        pending_rndv = m->rndv;
    } else if (m->len && check(m->data, m->len, (uint64_t)m->len) != m->len) {
        FAIL("eager message of %zu bytes from %d: wrong data", m->len, m->proc);
    }
    atomic_store(&last_len, (long)m->len);
    atomic_fetch_add(&arrivals, 1);
    poke_main();
}

static long arrivals_goal;
static bool arrived_enough(void) { return atomic_load(&arrivals) >= arrivals_goal; }
static note *waited_note;
static bool note_sent(void) { return atomic_load(&waited_note->done); }

static atomic_bool fetch_ok;
static void plain_fetch_done(myr_net_fetch *f, int err)
{
    if (err)
        FAIL("fetch ended with error %d", err);
    atomic_store(&fetch_ok, true);
    (void)f;
    poke_main();
}
static bool fetched(void) { return atomic_load(&fetch_ok); }

/* Send len bytes to dst from the main thread; wait_note waits for done. */
static void post_note(note *n, int dst, size_t len, unsigned char *buf)
{
    fill(buf, len, (uint64_t)len);
    *n = (note){.s = {.proc = dst, .hdr_len = 8, .data = buf, .len = len,
                      .done = note_done}};
    myr_net_send_post(&n->s);
}

static bool wait_note(note *n)
{
    waited_note = n;
    return wait_for(note_sent, 10);
}

static bool send_and_wait(int dst, size_t len, unsigned char *buf)
{
    note n;
    post_note(&n, dst, len, buf);
    return wait_note(&n);
}

/* Wait for the next arrival and fetch it if it came by rendezvous. */
static bool receive_one(long goal, unsigned char *buf)
{
    arrivals_goal = goal;
    if (!wait_for(arrived_enough, 10))
        return false;
    if (!pending_rndv)
        return true;
    size_t len = (size_t)atomic_load(&last_len);
    myr_net_fetch f = {.rndv = pending_rndv, .buf = buf, .len = len,
                       .done = plain_fetch_done};
    pending_rndv = NULL;
    atomic_store(&fetch_ok, false);
    myr_net_fetch_post(&f);
    if (!wait_for(fetched, 10))
        return false;
    if (check(buf, len, (uint64_t)len) != len)
        FAIL("rendezvous message of %zu bytes: wrong data", len);
    return true;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Every process sends one eager and one rendezvous message to each other,
 * then all stay idle a second. */
static int run_idle(void)
{
    size_t big = myr_net_eager_limit() + 4096;
    unsigned char *buf = malloc(big), *in = malloc(big);
    /* A ring, so that each process receives exactly one message at a
     * time: to the next process, from the previous one. */
    int next = (me + 1) % nprocs;
    long goal = 0;
    size_t sizes[] = {100, big, 0};
    for (int k = 0; k < 3; k++) {
        /* Receive before waiting for our send: a rendezvous send is done
         * only once its receiver has fetched it. */
        note n;
        post_note(&n, next, sizes[k], buf);
        if (!receive_one(++goal, in) || !wait_note(&n)) {
            FAIL("warm-up message %d did not go round", k);
            return 1;
        }
    }
    if (myr_net_fence() != 0)
        return 1;
    /* Past the spin (50 us by default), the comm thread sleeps. */
    usleep(200 * 1000);
    double c0 = cpu_s(), w0 = now_s();
    usleep(1000 * 1000);
    double cpu = cpu_s() - c0, wall = now_s() - w0;
    if (myr_net_in_flight() != 0)
        FAIL("%ld operations in flight while idle", myr_net_in_flight());
    if (cpu > 0.2 * wall)
        FAIL("the process used %.3f s of CPU in %.3f s idle: the comm thread does not "
             "sleep", cpu, wall);
    /* From sleep, a post wakes our comm thread and the arrival the other's. */
    note n;
    post_note(&n, next, 64, buf);
    if (!receive_one(++goal, in) || !wait_note(&n)) {
        FAIL("a message after the idle second did not go round");
        return 1;
    }
    char versions[512];
    printf("process %d: idle %.3f s used %.4f s CPU; %s\n", me, wall, cpu,
           myr_net_versions(versions, sizeof versions));
    free(buf);
    free(in);
    return 0;
}

/* Pairs (0,1), (2,3), ...: the even process starts; each answers every
 * arrival with the next size from the main thread. */
static int run_pingpong(long rounds)
{
    if (nprocs % 2) {
        fprintf(stderr, "pingpong: an even number of processes\n");
        return 2;
    }
    size_t max = 4 * myr_net_eager_limit() + 100;
    unsigned char *buf = malloc(max);
    int peer = me ^ 1;
    uint64_t rng = 12345;
    long goal = 0;
    double t0 = now_s();
    for (long i = 0; i < rounds; i++) {
        rng = mix(rng + 1);
        /* Mostly small, one in eight by rendezvous (both sides agree on
         * the sequence of sizes). */
        size_t len = rng % 8 == 0 ? myr_net_eager_limit() + 1 + (rng >> 8) % (max - myr_net_eager_limit() - 1)
                                  : (rng >> 8) % 256;
        /* The size is read before answering: the answer lets the peer
         * send the next round's message. */
        long got = -1;
        bool ok = me % 2 == 0 ? send_and_wait(peer, len, buf) && receive_one(++goal, buf)
                              : receive_one(++goal, buf);
        if (ok)
            got = atomic_load(&last_len);
        if (ok && me % 2)
            ok = send_and_wait(peer, len, buf);
        if (!ok) {
            FAIL("round %ld of %ld (%zu bytes) did not complete within 10 s: a lost "
                 "wake-up?", i, rounds, len);
            return 1;
        }
        if ((size_t)got != len)
            FAIL("round %ld: %ld bytes arrived, %zu sent", i, got, len);
    }
    printf("process %d: %ld round trips in %.2f s\n", me, rounds, now_s() - t0);
    free(buf);
    return 0;
}

/* Process 1 dies (SIGKILL) while process 0 has rendezvous sends to it in
 * flight: they end with an error (TCP tells UCX; the handler names the
 * process), none hangs. */
static atomic_long failed_sends, ended_sends;
static void victim_send_done(myr_net_send *s, int err)
{
    if (err)
        atomic_fetch_add(&failed_sends, 1);
    atomic_fetch_add(&ended_sends, 1);
    (void)s;
    poke_main();
}
static long sends_goal;
static bool victim_sends_ended(void) { return atomic_load(&ended_sends) >= sends_goal; }

static int run_peer_dies(void)
{
    enum { N = 8 };
    size_t len = myr_net_eager_limit() * 4;
    static myr_net_send sends[N];
    unsigned char *buf = calloc(1, len);
    if (me == 1) {
        arrivals_goal = N;
        wait_for(arrived_enough, 10);
        raise(SIGKILL);
    }
    if (me != 0)
        return 0;
    for (int i = 0; i < N; i++) {
        sends[i] = (myr_net_send){.proc = 1, .hdr_len = 8, .data = buf, .len = len,
                                  .done = victim_send_done};
        myr_net_send_post(&sends[i]);
    }
    sends_goal = N;
    if (!wait_for(victim_sends_ended, 20)) {
        FAIL("%ld of %d sends to a dead process ended within 20 s", atomic_load(&ended_sends), N);
        return 1;
    }
    if (atomic_load(&failed_sends) == 0) {
        FAIL("no send to the dead process ended with an error");
        return 1;
    }
    printf("process 0: %ld of %d sends to the dead process failed: ok\n",
           atomic_load(&failed_sends), N);
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s traffic|order|idle|pingpong [-n N] [-t threads] "
                "[-m max bytes] [-s seed]\n", argv[0]);
        return 2;
    }
    const char *what = argv[1];
    long n = 0;
    int threads = 3;
    uint64_t seed = 1;
    max_size = 4 << 20;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-t"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-m"))
            max_size = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            seed = (uint64_t)atol(argv[i + 1]);
    }
    if (myr_net_place_init(1) != 0)
        return 1;
    me = myr_net_the_place.proc;
    nprocs = myr_net_the_place.nprocs;
    if (nprocs < 2) {
        fprintf(stderr, "run under a PMIx launcher with 2 or more processes\n");
        return 2;
    }
    /* Others may send as soon as they have started: be ready first. */
    expect_seq = calloc((size_t)nprocs * MAX_THREADS, sizeof *expect_seq);
    scratch = malloc(max_size ? max_size : 1);
    app_receiver = !strcmp(what, "traffic") || !strcmp(what, "order") ? traffic_receiver
                                                                      : counting_receiver;
    if (myr_net_start(receiver) != 0)
        return 1;
    if (myr_net_on_comm_thread())
        FAIL("the main thread says it is the comm thread");
    int rc;
    if (!strcmp(what, "traffic"))
        rc = run_traffic(n ? n : 50000, threads, seed);
    else if (!strcmp(what, "order"))
        rc = run_traffic(n ? n : 20000, 1, seed);
    else if (!strcmp(what, "idle"))
        rc = run_idle();
    else if (!strcmp(what, "peer_dies"))
        rc = run_peer_dies();
    else if (!strcmp(what, "pingpong"))
        rc = run_pingpong(n ? n : 10000);
    else
        rc = 2;
    if (rc == 1) {
        /* Do not wait in stop for what will never complete. */
        fflush(stdout);
        _exit(1);
    }
    myr_net_stop();
    myr_net_place_fini();
    if (rc || atomic_load(&failures)) {
        printf("process %d: FAILED\n", me);
        return 1;
    }
    printf("process %d: ok\n", me);
    return 0;
}
