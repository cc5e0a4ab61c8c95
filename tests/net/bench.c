/*
 * bench.c — one-way latency and bandwidth of the network engine (net.h)
 * between two processes, without MPI; run under a PMIx launcher:
 *   mpirun.openmpi -n 2 net_bench [--quick]
 * with UCX_TLS set (self,sm or self,tcp + UCX_NET_DEVICES=lo). The
 * transport's own floor is ucx_perftest -t ucp_am_lat / ucp_am_bw with
 * the same UCX_TLS (two processes on 127.0.0.1).
 *
 * Latency is half a round trip, two ways:
 *   comm    both comm threads answer from the receiver callback: the
 *           engine's floor (command queue, ordering, AM, no hand-off);
 *   thread  the main threads post the answers, waiting for arrivals as
 *           an idle worker does (spin 20 us, then a futex the receiver
 *           wakes): adds the hand-off a rank on a worker pays.
 * Bandwidth: process 0 keeps 64 sends in flight, process 1 copies eager
 * data out (as the core would) and fetches rendezvous data into its
 * buffer, then answers once with 0 bytes.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "net/net.h"

#define WINDOW 64

static int me;
static unsigned char *inbuf, *outbuf;
static int mode;                 /* 0 comm, 1 thread, 2 bandwidth */
static long iterations;
static size_t msg_size;
static atomic_long arrived;      /* messages fully received (data in inbuf) */
static atomic_long sent_done;
static myr_net_send *sends;      /* one per message: no reuse before done */
static long next_send;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The main thread waits as an idle worker does: spins a little, then
 * sleeps on a futex the comm thread wakes (spinning on would take the
 * comm threads' cores: two processes of two threads on this 2-core
 * machine). */
#define SPIN_S 20e-6
static atomic_int events, sleepers;

static void notify(void)
{
    atomic_fetch_add(&events, 1);
    if (atomic_load(&sleepers))
        syscall(SYS_futex, &events, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wait_until(bool (*cond)(long), long n)
{
    double spin_end = now_s() + SPIN_S;
    while (!cond(n)) {
        if (now_s() < spin_end)
            continue;
        int seen = atomic_load(&events);
        atomic_fetch_add(&sleepers, 1);
        if (!cond(n))
            syscall(SYS_futex, &events, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
        atomic_fetch_sub(&sleepers, 1);
    }
}

static void send_done(myr_net_send *s, int err)
{
    (void)s;
    if (err) {
        fprintf(stderr, "net_bench: a send failed\n");
        exit(1);
    }
    atomic_fetch_add_explicit(&sent_done, 1, memory_order_release);
    notify();
}

static void post(size_t len)
{
    myr_net_send *s = &sends[next_send++];
    *s = (myr_net_send){.proc = me ^ 1, .hdr_len = 8, .data = outbuf, .len = len,
                        .done = send_done};
    myr_net_send_post(s);
}

/* A message is in: answer it (comm mode, below the last round) or tell
 * the main thread. */
static void complete(void)
{
    /* Answer before counting: a main thread that sees the count may start
     * the next round, and must find this answer among its sends. */
    long n = atomic_load_explicit(&arrived, memory_order_relaxed) + 1;
    if (mode == 0 && (me == 1 || n < iterations))
        post(msg_size);
    if (mode == 2 && me == 1 && n == iterations)
        post(0);
    atomic_store_explicit(&arrived, n, memory_order_release);
    notify();
}

static void fetch_done(myr_net_fetch *f, int err)
{
    if (err) {
        fprintf(stderr, "net_bench: a fetch failed\n");
        exit(1);
    }
    free(f);
    complete();
}

static void receiver(const myr_net_arrival *m)
{
    if (m->rndv) {
        myr_net_fetch *f = malloc(sizeof *f);
        *f = (myr_net_fetch){.rndv = m->rndv, .buf = inbuf, .len = m->len,
                             .done = fetch_done};
        myr_net_fetch_post(f);
        return;
    }
    if (m->len)
        memcpy(inbuf, m->data, m->len);
    complete();
}

static bool arrived_at_least(long n)
{
    return atomic_load_explicit(&arrived, memory_order_acquire) >= n;
}

static bool window_open(long n)
{
    (void)n;
    return next_send - atomic_load_explicit(&sent_done, memory_order_acquire) < WINDOW;
}

static bool all_sends_done(long n)
{
    (void)n;
    return atomic_load_explicit(&sent_done, memory_order_acquire) >= next_send;
}

static void wait_arrived(long n)
{
    /* Comm mode: the comm threads do everything; stay out of their way
     * without asking them for wake-ups. */
    if (mode == 0)
        while (!arrived_at_least(n))
            nanosleep(&(struct timespec){0, 200000}, NULL);
    wait_until(arrived_at_least, n);
}

/* One measurement; both processes call it with the same arguments. */
static double run(int what, size_t size, long iters)
{
    myr_net_fence();
    mode = what;
    msg_size = size;
    iterations = iters;
    atomic_store(&arrived, 0);
    atomic_store(&sent_done, 0);
    next_send = 0;
    myr_net_fence();
    double t0 = now_s();
    if (what == 0) {
        if (me == 0)
            post(size);
        wait_arrived(iters);
    } else if (what == 1) {
        for (long i = 0; i < iters; i++) {
            if (me == 0) {
                post(size);
                wait_arrived(i + 1);
            } else {
                wait_arrived(i + 1);
                post(size);
            }
        }
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            wait_until(window_open, 0);
            post(size);
        }
        wait_arrived(1);
    } else {
        wait_arrived(iters);
    }
    double t = now_s() - t0;
    /* Sends end before the next round reuses their objects. */
    wait_until(all_sends_done, 0);
    return t;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    if (myr_net_place_init(1) != 0)
        return 1;
    me = myr_net_the_place.proc;
    if (myr_net_the_place.nprocs != 2) {
        fprintf(stderr, "net_bench: run with 2 processes under a PMIx launcher\n");
        return 2;
    }
    if (myr_net_start(receiver) != 0)
        return 1;
    size_t max = 4 << 20;
    inbuf = malloc(max);
    outbuf = malloc(max);
    memset(outbuf, 1, max);
    memset(inbuf, 0, max);
    sends = calloc(200000, sizeof *sends);
    static const size_t sizes[] = {0, 8, 64, 1024, 8192, 16384, 16385, 65536,
                                   1 << 20, 4 << 20};
    if (me == 0) {
        char v[512];
        printf("# %s; eager up to %zu B\n", myr_net_versions(v, sizeof v),
               myr_net_eager_limit());
        printf("# %10s %14s %14s %14s\n", "bytes", "lat comm us", "lat thread us",
               "bw MB/s");
    }
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t size = sizes[k];
        long iters = size <= 65536 ? 20000 : (long)(2000000000 / 1000 / size) + 20;
        if (quick)
            iters = 50;
        if (iters > 100000)
            iters = 100000;
        run(0, size, iters / 10 + 1);  /* warm-up */
        double comm = run(0, size, iters) / iters / 2 * 1e6;
        double thread = run(1, size, iters) / iters / 2 * 1e6;
        long bw_iters = size <= 1024 ? 100000 : size <= 65536 ? 20000 : iters * 2;
        if (quick)
            bw_iters = 100;
        if (bw_iters > 100000)
            bw_iters = 100000;
        double bw = size ? size * (double)bw_iters / run(2, size, bw_iters) / 1e6 : 0;
        if (me == 0)
            printf("  %10zu %14.2f %14.2f %14.1f\n", size, comm, thread, bw);
        fflush(stdout);
    }
    myr_net_stop();
    myr_net_place_fini();
    return 0;
}
