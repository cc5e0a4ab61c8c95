/*
 * ucx.c — the UCX engine and its communication thread.
 *
 * Model. One UCP context and one worker per OS process, created and
 * destroyed by one kernel thread, the comm thread. The worker is
 * UCS_THREAD_MODE_SERIALIZED: one driver at a time (`owner`), which is
 * the comm thread while it is awake, else whichever thread takes it: a
 * worker whose ULT waits for a message (myr_ucx_idle_poll), or a poster
 * issuing its own command. Commands (sends and fetches) go through two
 * intrusive multi-producer stacks: a poster pushes with one CAS; the
 * driver takes a whole stack with one exchange and reverses it, so
 * commands are issued in the order their pushes took effect. A poster
 * that finds UCX free drives it for that moment and issues the stack
 * itself: a send then costs no hand-off to another thread.
 *
 * Messages are UCP active messages (one id). The AM header is our wire
 * header (source process, sequence number) followed by the core's header;
 * the data is the AM payload, eager (UCP_AM_SEND_FLAG_EAGER) up to the
 * eager limit, else rendezvous (UCP_AM_SEND_FLAG_RNDV: the receiver is
 * given a descriptor and pulls the data, zero-copy where a transport
 * allows, when the core fetches it).
 *
 * Order. UCP does not promise that active messages of one endpoint are
 * handed over in the order they were sent: eager fragments of a large
 * message are reassembled before the callback, a rendezvous request
 * goes through its own protocol, messages of different sizes may take
 * different lanes, and the UCX developers say AM has no ordering
 * guarantee. The core needs the order of posting (MPI's non-overtaking
 * rule), so every message carries a per-(source, destination) sequence
 * number given when the comm thread issues it (= posting order), and the
 * receiving comm thread holds an early arrival (its header, its data or
 * rendezvous descriptor) until all before it have been handed to the
 * receiver.
 *
 * Watching. The network needs a watcher only while this process waits
 * for it: something is in flight (a command, a send or fetch UCX has not
 * finished) or expected (myr_ucx_expect_begin: a posted receive of a
 * communicator spanning processes, a blocked probe, a synchronous send's
 * acknowledgement). Then a worker spinning for its ULT's message, or
 * idle and looking for work, watches (helpers), or else the comm thread,
 * armed to wake on network events.
 * With nothing awaited, an arriving message stays in UCX until a receive
 * or probe asks for it (which watches or polls), or the comm thread's
 * next nap ends: so in a ping-pong that the waiting workers drive, the
 * comm thread mostly sleeps and no message makes the peer signal it.
 * Whoever makes the network awaited while no worker helps (a nonblocking
 * receive, the last helper leaving, a ULT blocking, a send left in
 * flight) wakes an unarmed comm thread (watch()); a ULT that blocks while
 * its worker has others to run only for what cannot wait for that
 * worker's idle spin (myr_ucx_blocked_busy). A nonblocking receive
 * that only an eager message fits does not, unless the comm thread's
 * sleep would last longer than MYR_NET_WATCH_SOON_NS (watch_soon): its
 * data comes with its arrival, there is nothing to drive, and its rank
 * usually waits for it right after (becoming a helper, or blocking,
 * which watches at once). Posters that do so ask for the next unarmed
 * sleep to last no longer (watch_soon_asked), so in a loop of such
 * exchanges the comm thread looks every millisecond instead of being
 * woken for each receive.
 *
 * Comm thread states: RUNNING (drain commands, progress while it makes
 * progress), SPINNING (nothing happened for less than MYR_NET_SPIN_US
 * and something is awaited: keep polling, since the next event is likely
 * close, but after the first 5 us yield the core at each turn: the
 * workers share the cores with this thread, and a worker woken by a
 * completion would otherwise wait for the spin to end, 50 us a hand-off
 * on 2 cores), ASLEEP | ARMED (in ppoll on the worker's event fd and our
 * eventfd), ASLEEP (on our eventfd alone: unwatched, or workers watch).
 * A sleep is bounded (a nap of 100 us, doubled while nothing happens, up
 * to 50 ms) unless it is armed with nothing in flight: UCX announces no
 * event when a send it queued for lack of room can go, and unawaited
 * arrivals should not hold senders up for long. Going to sleep:
 *   1. sleep_state = ASLEEP              (seq_cst)
 *   2. look at both command stacks       (seq_cst): not empty -> run
 *   3. no helper and something awaited: ucp_worker_arm (UCS_ERR_BUSY:
 *      events came after the last progress -> run); then CAS ASLEEP ->
 *      ASLEEP | ARMED / UNBOUNDED as it sleeps (failing: woken -> run)
 *   4. ppoll
 * A poster pushes (seq_cst CAS), then reads sleep_state (seq_cst) and, if
 * asleep, sets it AWAKE and writes the eventfd. Either the comm thread's
 * step 2 sees the push, or the poster sees it asleep and wakes it (Dekker
 * with sequentially consistent operations); the same between a watcher's
 * count (expected, helpers, in_flight) and step 3. sleep_state is AWAKE
 * whenever the comm thread runs, so posts cost no system call while it
 * is awake. Network events arriving after the last progress are UCX's
 * side of the same race, closed by ucp_worker_arm.
 *
 * Sends and fetches are done when UCX completes them (their callback, or
 * at once when UCX finishes in the call); `done` then runs on the comm
 * thread, and in_flight (counted from the post) drops after it, so that
 * "nothing in flight" never precedes the completion it waits for.
 *
 * Failures. Endpoints use error mode NONE with our handler (peer_ep says
 * why); when UCX reports a broken connection the handler names the
 * process, and the comm thread force-closes the endpoint and fails the
 * sends and fetches UCX left pending (kept per peer), and every later one.
 */
#include "net/transport.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include "net/wireup.h"

#define AM_ID 17
#define ADDRESS_KEY "myr.ucx"
#define YIELD_AFTER_NS 5000
/* The comm thread's bounded sleeps (comm_main): from 100 us, doubled
 * while nothing happens, up to 50 ms. */
#define NAP_MIN_NS 100000LL
#define NAP_MAX_NS 50000000LL
/* How long stop waits for endpoints to flush before leaving them to
 * ucp_worker_destroy (a peer that is already gone never answers). */
#define CLOSE_DEADLINE_NS (5LL * 1000000000)
/* The slowest rate at which a rendezvous transfer is expected to move
 * (1 GB/s: TCP on loopback moves 1-3; shared memory and RDMA more), and
 * the longest spin one transfer may ask for (transfer_until). */
#define TRANSFER_NS_PER_BYTE 1
#define TRANSFER_SPIN_MAX_NS (50LL * 1000000)

/* What precedes the core's header in every AM header. */
typedef struct wire {
    uint32_t src;                 /* sending process */
    uint32_t seq;                 /* per (src, dst), from 0 */
} wire;

/* A send being transferred: UCX needs the AM header until completion. */
typedef struct send_op {
    struct send_op *next, *prev;  /* free list; the peer's live sends */
    myr_net_send *s;              /* NULL: failed by us, UCX may still end it */
    _Alignas(8) unsigned char header[sizeof(wire) + MYR_NET_HEADER_MAX];
} send_op;

/* A rendezvous message until its data is fetched: what the core holds as
 * myr_net_arrival.rndv (UCX's descriptor does not say whose it is). */
typedef struct rndv_msg {
    struct rndv_msg *next, *prev; /* the source's live fetches */
    void *desc;                   /* UCX's data descriptor */
    int src;
    myr_net_fetch *f;             /* once fetched; NULL: failed by us */
} rndv_msg;

/* An arrival that came before its turn. */
typedef struct held {
    struct held *next;            /* by seq */
    uint32_t seq;
    unsigned hdr_len;
    _Alignas(8) unsigned char hdr[MYR_NET_HEADER_MAX];
    size_t len;
    const void *data;             /* eager: UCX's (ucx_data) or a copy */
    rndv_msg *rndv;
    bool ucx_data;
} held;

typedef struct peer {
    ucp_ep_h ep;                  /* NULL until the first send */
    uint32_t send_seq;            /* next sequence number to send */
    uint32_t recv_seq;            /* next one the receiver gets */
    held *early;                  /* arrivals before recv_seq's, sorted */
    /* Operations UCX has not completed yet, failed by us if the peer
     * becomes unreachable (UCX does not, in error mode NONE). */
    send_op *live_sends;
    rndv_msg *live_fetches;
    bool failed;                  /* unreachable: operations fail at once */
} peer;

/* The comm thread's own state (only it touches this after start). */
static struct {
    ucp_context_h context;
    ucp_worker_h worker;
    int nprocs, self;
    const myr_net_place *place;
    peer *peers;
    myr_net_receiver receiver;
    send_op *free_ops;
    bool close_failed;            /* some failed peer's endpoint to close */
    bool first_ep_described;
    /* For MYR_VERBOSE=1's line at stop. */
    long sent_eager, sent_rndv, arrived, held_early, sleeps, poster_wakes;
    int wfd;
    void *address;                /* our worker address, for start to publish */
    size_t address_len;
    int init_status;              /* 0 or -1, for start */
} E;

/* Set at start, read by any thread. */
static size_t eager_limit;       /* myr_net_settings (net.c reads them) */
static long long spin_ns;
static bool verbose;
static bool posters_drive;
static int wake_fd = -1;
static pthread_t comm_thread;
static bool started;
static sem_t init_done;
/* initial-exec: read on every poll of a waiting worker; two bytes of the
 * static TLS surplus that a dlopen'ed library may use. */
static __thread bool on_comm __attribute__((tls_model("initial-exec")));
static __thread bool driving    /* this thread owns UCX in a pass */
    __attribute__((tls_model("initial-exec")));

/* Shared between posters and the comm thread; each on its own line. */
static _Alignas(64) myr_net_send *_Atomic send_head;
static _Alignas(64) myr_net_fetch *_Atomic fetch_head;
/* AWAKE, or ASLEEP with: ARMED (UCX's events wake it), UNBOUNDED (no nap
 * limit). */
enum { AWAKE = 0, ASLEEP = 1, ARMED = 2, UNBOUNDED = 4 };
static _Alignas(64) atomic_int sleep_state;
/* Who drives UCX (1: taken): the comm thread while it is awake, or, while
 * it sleeps, a worker whose ULT waits for a message (myr_ucx_idle_poll).
 * UCX's worker is SERIALIZED: one driver at a time, any thread. */
static _Alignas(64) atomic_int owner;
/* Workers waiting so (idle_begin..idle_end): the comm thread leaves UCX
 * to them instead of spinning, and sleeps unarmed until the last leaves. */
static _Alignas(64) atomic_int helpers;
static _Alignas(64) atomic_long in_flight;
/* Until when (CLOCK_MONOTONIC ns, 0: none) a rendezvous transfer issued
 * here may still be moving data: its issue time plus its size at
 * TRANSFER_NS_PER_BYTE. A worker whose ULT waits keeps spinning until
 * then (myr_ucx_idle_poll), giving its CPU away at each turn once its
 * usual spin is over (the thread moving the data, a comm thread, may
 * need that CPU): the sender of a rendezvous message sees nothing move
 * until the receiver's acknowledgement, which comes after the whole
 * transfer (70 us for 1 MiB over shared memory here), longer than the
 * idle spin; blocking then meant a wake-up through the comm thread and a
 * futex, and a 1 MiB ping-pong half round trip of 210 us instead of 75.
 * Bounded by the size: a receiver that is late costs at most that much
 * spinning, and a worker that has other ULTs stops at once. */
static _Alignas(64) _Atomic long long transfer_until;
/* What the core waits for that no operation of ours tracks (see the
 * top comment): `expected` must be watched at once when no worker
 * helps; `expected_soon` (receives only an eager message fits) within
 * MYR_NET_WATCH_SOON_NS, and at once when a ULT blocks. */
static _Alignas(64) atomic_long expected;
static _Alignas(64) atomic_long expected_soon;
static _Alignas(64) atomic_int closing;      /* stop: close and leave */
/* myr_ucx_watch_soon: a poster asks that the next unarmed sleep end
 * within MYR_NET_WATCH_SOON_NS; and when the current unarmed one ends
 * (CLOCK_MONOTONIC ns, LLONG_MAX: unbounded), which the comm thread
 * publishes before it takes the request (see sleep_until_event). */
static _Alignas(64) atomic_bool watch_soon_asked;
static _Alignas(64) _Atomic long long sleep_ends;
static atomic_bool leaving;      /* past our last operation: peers may close */

/* Stop waits here for in_flight to reach 0. */
static pthread_mutex_t stop_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static atomic_bool stop_waiting;

/* For myr_ucx_describe: written once by the comm thread, then published. */
static char available[256];        /* before start returns */
static char transports[320];       /* once transports_known */
static atomic_bool transports_known;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A rendezvous transfer of len bytes was handed to UCX (by the driver:
 * one writer at a time, read by the waiting workers). */
static void transfer_started(size_t len)
{
    long long span = (long long)len * TRANSFER_NS_PER_BYTE;
    long long until = now_ns() + (span < TRANSFER_SPIN_MAX_NS ? span : TRANSFER_SPIN_MAX_NS);
    if (until > atomic_load_explicit(&transfer_until, memory_order_relaxed))
        atomic_store_explicit(&transfer_until, until, memory_order_relaxed);
}

/* Whether a transfer may still be moving data (transfer_started). */
static bool transfer_moving(void)
{
    long long until = atomic_load_explicit(&transfer_until, memory_order_relaxed);
    if (until == 0)
        return false;
    if (now_ns() < until)
        return true;
    long long seen = until;
    atomic_compare_exchange_strong(&transfer_until, &seen, 0);
    return false;
}

/* ---- commands: posting and waking ----------------------------------- */

static void write_wake_fd(void)
{
    uint64_t one = 1;
    ssize_t n = write(wake_fd, &one, sizeof one);
    (void)n;  /* the eventfd cannot overflow: read after every wake */
}

static void wake(void)
{
    /* Only the poster that sets it awake writes: one syscall per sleep. */
    if (atomic_load(&sleep_state) != AWAKE && atomic_exchange(&sleep_state, AWAKE) != AWAKE)
        write_wake_fd();
}

/* What needs a watcher now (when no worker helps). */
static bool awaited_now(void)
{
    return atomic_load(&expected) > 0 || atomic_load(&in_flight) > 0 ||
           atomic_load(&closing);
}

/* And what needs one soon: what the comm thread arms for as it sleeps,
 * and a blocking ULT wakes it for. */
static bool awaited(void)
{
    return awaited_now() || atomic_load(&expected_soon) > 0;
}

/* Wake the comm thread if it sleeps in a way that no longer fits: unarmed
 * while something is awaited and no worker helps (armed, it watches), or
 * without a limit while something is in flight (see comm_main's nap). */
static void watch(void)
{
    int s = atomic_load(&sleep_state);
    if (s == AWAKE)
        return;
    bool unwatched = !(s & ARMED) && atomic_load(&helpers) == 0 && awaited();
    bool unbounded = (s & UNBOUNDED) && atomic_load(&in_flight) > 0;
    if ((unwatched || unbounded) && atomic_compare_exchange_strong(&sleep_state, &s, AWAKE))
        write_wake_fd();
}

/* watch() for what a poster that drove UCX left behind: a send UCX did not
 * finish at once. Only what is in flight: a receive asked for its
 * watcher when it was posted (myr_ucx_blocked, myr_ucx_watch_soon), and
 * waking the comm thread here for it undid watch_soon's saving. */
static void watch_sends(void)
{
    int s = atomic_load(&sleep_state);
    if (s == AWAKE || atomic_load(&in_flight) == 0)
        return;
    bool unwatched = !(s & ARMED) && atomic_load(&helpers) == 0;
    if ((unwatched || (s & UNBOUNDED)) && atomic_compare_exchange_strong(&sleep_state, &s, AWAKE))
        write_wake_fd();
}

static bool take_ucx(void);
static void give_ucx(void);
static bool drain_commands(void);
static void issue_send(myr_net_send *s);

/* A driver other than the comm thread is done with UCX. What was posted
 * while it drove (an acknowledgement sent from an arrival, say) and is
 * still queued goes to the comm thread, armed or not: no network event
 * would wake it for a command. */
static void hand_back_ucx(void)
{
    driving = false;
    give_ucx();
    if (atomic_load(&send_head) || atomic_load(&fetch_head))
        wake();
}

/* A poster that took UCX: issue what is queued, give UCX back. */
static void drive_posted(void)
{
    drain_commands();
    hand_back_ucx();
    watch_sends();
}

/* Whether this poster may drive UCX itself now (it then owns it). */
static bool poster_takes_ucx(void)
{
    if (!posters_drive || !started || atomic_load_explicit(&closing, memory_order_relaxed) ||
        !take_ucx())
        return false;
    driving = true;
    return true;
}

/* After a push: the driver of the moment issues it; else this thread,
 * if UCX is free; else wake the comm thread. */
static void after_post(void)
{
    if (on_comm || driving)
        return;   /* our own pass takes it */
    if (poster_takes_ucx()) {
        drive_posted();
        return;
    }
    wake();
}

static void push_send(myr_net_send *s)
{
    myr_net_send *h = atomic_load_explicit(&send_head, memory_order_relaxed);
    do
        atomic_store_explicit(&s->qnext, h, memory_order_relaxed);
    while (!atomic_compare_exchange_weak(&send_head, &h, s));
}

void myr_ucx_send_post(myr_net_send *s)
{
    atomic_fetch_add_explicit(&in_flight, 1, memory_order_relaxed);
    /* Issued at once, not through the queue (two locked instructions
     * fewer, its push and its drain's exchange), when nothing is queued
     * and UCX is free: with UCX ours and the queue empty, every send
     * posted before this one, by any thread, has been issued, so the
     * order of the messages (their sequence numbers, issue_send) holds. */
    if (!on_comm && !driving && !atomic_load_explicit(&send_head, memory_order_relaxed) &&
        poster_takes_ucx()) {
        if (atomic_load_explicit(&send_head, memory_order_acquire))
            push_send(s);   /* queued meanwhile, by a poster that found UCX taken */
        else
            issue_send(s);
        drive_posted();
        return;
    }
    push_send(s);
    after_post();
}

void myr_ucx_fetch_post(myr_net_fetch *f)
{
    atomic_fetch_add_explicit(&in_flight, 1, memory_order_relaxed);
    myr_net_fetch *h = atomic_load_explicit(&fetch_head, memory_order_relaxed);
    do
        atomic_store_explicit(&f->qnext, h, memory_order_relaxed);
    while (!atomic_compare_exchange_weak(&fetch_head, &h, f));
    after_post();
}

void myr_ucx_expect_begin(bool waiting)
{
    atomic_fetch_add(&expected, 1);
    if (!waiting)
        watch();
}

void myr_ucx_expect_end(void)
{
    atomic_fetch_sub_explicit(&expected, 1, memory_order_relaxed);
}

void myr_ucx_expect_soon_begin(void)
{
    atomic_fetch_add(&expected_soon, 1);
}

void myr_ucx_expect_soon_end(void)
{
    atomic_fetch_sub_explicit(&expected_soon, 1, memory_order_relaxed);
}

void myr_ucx_blocked(void)
{
    watch();
}

/* As a helper leaves (myr_ucx_idle_end): the worker will help again. */
void myr_ucx_blocked_busy(void)
{
    if (awaited_now())
        watch();
    else if (atomic_load(&expected_soon) > 0)
        myr_ucx_watch_soon();
}

/* Sequentially consistent against sleep_until_event: either the comm
 * thread's exchange of watch_soon_asked sees this request (and caps its
 * nap), or this poster reads the sleep's published end (stored before
 * that exchange) and wakes a sleep that would last too long. */
void myr_ucx_watch_soon(void)
{
    atomic_store(&watch_soon_asked, true);
    int s = atomic_load(&sleep_state);
    if (s == AWAKE || (s & ARMED) || atomic_load(&helpers) > 0)
        return;   /* it will arm, it watches, or a leaving helper wakes it (idle_end) */
    if (atomic_load(&sleep_ends) <= now_ns() + MYR_NET_WATCH_SOON_NS)
        return;
    if (atomic_compare_exchange_strong(&sleep_state, &s, AWAKE))
        write_wake_fd();
}

static void operation_ended(void)
{
    if (atomic_fetch_sub_explicit(&in_flight, 1, memory_order_release) == 1 &&
        atomic_load_explicit(&stop_waiting, memory_order_relaxed)) {
        pthread_mutex_lock(&stop_mutex);
        pthread_cond_signal(&stop_cond);
        pthread_mutex_unlock(&stop_mutex);
    }
}

static void send_finished(myr_net_send *s, int err)
{
    s->done(s, err);
    operation_ended();
}

static void fetch_finished(myr_net_fetch *f, int err)
{
    f->done(f, err);
    operation_ended();
}

/* ---- describing the transports --------------------------------------- */

/* Append what one line of UCX's info text says about a transport:
 * "resource 3  :  md 3  dev 1  flags -- cma/memory" gives "cma/memory";
 * "lane[1]:  3:cma/memory.0 md[3]  -> md[3]/cma/sysdev[255] rma_bw#0"
 * gives "cma/memory rma_bw" (the lane's roles). */
static void describe_line(char *line, bool lane, char *out, size_t size)
{
    char *save = NULL, *last = NULL, *tl = NULL;
    bool roles = false;
    size_t used = strlen(out);
    for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        last = t;
        if (!lane)
            continue;
        if (!tl && strchr(t, '/') && strchr(t, ':')) {
            tl = strchr(t, ':') + 1;
            char *dot = strrchr(tl, '.');
            if (dot && dot > strchr(tl, '/'))
                *dot = 0;
            snprintf(out + used, size - used, "%s%s", used ? ", " : "", tl);
        } else if (tl && strstr(t, "sysdev[")) {
            roles = true;
        } else if (roles) {
            t[strcspn(t, "#")] = 0;
            used = strlen(out);
            snprintf(out + used, size - used, " %s", t);
        }
    }
    if (!lane && last)
        snprintf(out + used, size - used, "%s%s", used ? ", " : "", last);
}

/* UCX writes its configuration to a FILE; read it back from memory. */
static void describe_from(void (*print)(void *, FILE *), void *obj, const char *mark,
                          char *out, size_t size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    print(obj, f);
    fclose(f);
    out[0] = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *at = strstr(line, mark);
        if (at)
            describe_line(at + strlen(mark), mark[0] == 'l', out, size);
    }
    free(text);
}

static void print_context(void *c, FILE *f) { ucp_context_print_info(c, f); }
static void print_ep(void *e, FILE *f) { ucp_ep_print_info(e, f); }

/* ---- endpoints -------------------------------------------------------- */

static void ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    (void)ep;
    int proc = (int)(intptr_t)arg;
    peer *p = &E.peers[proc];
    /* At stop, peers close and leave: not a failure. */
    if (!p->failed && !atomic_load(&leaving)) {
        long first = E.place ? E.place->proc_first[proc] : -1;
        long last = E.place ? E.place->proc_first[proc + 1] - 1 : -1;
        fprintf(stderr, "myriad: process %d: process %d (ranks %ld..%ld) became "
                "unreachable (%s); messages to and from it fail\n",
                E.self, proc, first, last, ucs_status_string(status));
    }
    p->failed = true;
    E.close_failed = true;
}

/* The peer's endpoint, created on the first send to it. NULL: unreachable
 * (said once).
 *
 * Error handling mode NONE, with our handler installed: UCX still calls
 * it when a transport reports a broken connection (TCP: reset by a peer
 * that died), and the mode lets UCX choose shared memory, which in UCX
 * 1.13 cannot detect a dead peer: mode PEER would send messages between
 * processes of a node over TCP, or find no transport at all. The mode
 * must also be the same on both sides of a pair (UCX refuses an
 * endpoint whose peer connected with the other mode). A process that
 * dies silently is the launcher's to notice (it ends the job). */
static ucp_ep_h peer_ep(int proc)
{
    peer *p = &E.peers[proc];
    if (p->ep || p->failed)
        return p->failed ? NULL : p->ep;
    size_t len = 0;
    void *address = myr_wireup_lookup(proc, ADDRESS_KEY, &len);
    if (!address) {
        p->failed = true;
        return NULL;
    }
    ucp_ep_params_t params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = address,
        .err_mode = UCP_ERR_HANDLING_MODE_NONE,
        .err_handler = {.cb = ep_failed, .arg = (void *)(intptr_t)proc},
    };
    ucs_status_t st = ucp_ep_create(E.worker, &params, &p->ep);
    free(address);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: process %d: no UCX endpoint to process %d (%s)\n",
                E.self, proc, ucs_status_string(st));
        p->ep = NULL;
        p->failed = true;
        return NULL;
    }
    if (!E.first_ep_described) {
        E.first_ep_described = true;
        char lanes[256] = "";
        describe_from(print_ep, p->ep, "lane[", lanes, sizeof lanes);
        snprintf(transports, sizeof transports, "to process %d: %s", proc, lanes);
        atomic_store_explicit(&transports_known, true, memory_order_release);
    }
    return p->ep;
}

/* After ep_failed: close the endpoint (UCX cancels what it can), then end
 * what it left with an error; UCX may still call back for those, which
 * then finds them orphaned. */
static void close_failed_endpoints(void)
{
    E.close_failed = false;
    for (int i = 0; i < E.nprocs; i++) {
        peer *p = &E.peers[i];
        if (!p->failed)
            continue;
        if (p->ep) {
            ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                         .flags = UCP_EP_CLOSE_FLAG_FORCE};
            void *req = ucp_ep_close_nbx(p->ep, &param);
            if (UCS_PTR_IS_PTR(req))
                ucp_request_free(req);  /* UCX finishes it on its own */
            p->ep = NULL;
        }
        while (p->live_sends) {
            send_op *op = p->live_sends;
            p->live_sends = op->next;
            myr_net_send *s = op->s;
            op->s = NULL;
            send_finished(s, -1);
        }
        while (p->live_fetches) {
            rndv_msg *r = p->live_fetches;
            p->live_fetches = r->next;
            myr_net_fetch *f = r->f;
            r->f = NULL;
            fetch_finished(f, -1);
        }
    }
}

/* ---- sends ------------------------------------------------------------ */

static send_op *op_get(void)
{
    send_op *op = E.free_ops;
    if (op) {
        E.free_ops = op->next;
        return op;
    }
    return malloc(sizeof *op);
}

static void op_put(send_op *op)
{
    op->next = E.free_ops;
    E.free_ops = op;
}

static void send_completed(void *request, ucs_status_t status, void *user_data)
{
    send_op *op = user_data;
    myr_net_send *s = op->s;
    ucp_request_free(request);
    if (s) {
        peer *p = &E.peers[s->proc];
        if (op->prev)
            op->prev->next = op->next;
        else
            p->live_sends = op->next;
        if (op->next)
            op->next->prev = op->prev;
    }
    op_put(op);
    if (!s)
        return;  /* already failed (close_failed_endpoints) */
    if (status != UCS_OK && !E.peers[s->proc].failed)
        fprintf(stderr, "myriad: process %d: a send of %zu bytes to process %d "
                "failed (%s)\n", E.self, s->len, s->proc, ucs_status_string(status));
    send_finished(s, status == UCS_OK ? 0 : -1);
}

/* Hand a prepared send to UCX. */
static void transmit(ucp_ep_h ep, send_op *op)
{
    myr_net_send *s = op->s;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_MEMORY_TYPE,
        .cb.send = send_completed,
        .user_data = op,
        .flags = s->len <= eager_limit ? UCP_AM_SEND_FLAG_EAGER : UCP_AM_SEND_FLAG_RNDV,
        .memory_type = UCS_MEMORY_TYPE_HOST,  /* no detection per send */
    };
    void *req = ucp_am_send_nbx(ep, AM_ID, op->header, sizeof(wire) + s->hdr_len,
                                s->data, s->len, &param);
    if (UCS_PTR_IS_PTR(req)) {
        /* send_completed ends it */
        if (s->len > eager_limit)
            transfer_started(s->len);
        peer *p = &E.peers[s->proc];
        op->prev = NULL;
        op->next = p->live_sends;
        if (op->next)
            op->next->prev = op;
        p->live_sends = op;
        return;
    }
    op_put(op);
    ucs_status_t st = UCS_PTR_STATUS(req);
    if (st != UCS_OK) {
        /* Its sequence number is spent: the peer cannot get later ones in
         * order any more, so it is unreachable from now on. */
        fprintf(stderr, "myriad: process %d: cannot send to process %d (%s)\n",
                E.self, s->proc, ucs_status_string(st));
        E.peers[s->proc].failed = true;
        E.close_failed = true;
    }
    send_finished(s, st == UCS_OK ? 0 : -1);
}

#ifdef MYR_NET_TEST_SHUFFLE
/* Test build only (tests/net): UCX here keeps the order of one endpoint,
 * so the receiver's holding of early arrivals would go untested. This
 * build puts one send in five on the wire after the next send to the same
 * process (or at the end of the batch of commands). */
static send_op **shuffled;        /* per process */

static bool shuffle_hold(int proc, send_op *op)
{
    static uint64_t rng = 88172645463325252ULL;
    if (!shuffled && !(shuffled = calloc((size_t)E.nprocs, sizeof *shuffled)))
        return false;
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    if (shuffled[proc] || rng % 5)
        return false;
    shuffled[proc] = op;
    return true;
}

static void shuffle_release(int proc)
{
    send_op *op = shuffled ? shuffled[proc] : NULL;
    if (op) {
        shuffled[proc] = NULL;
        transmit(E.peers[proc].ep, op);
    }
}

static void shuffle_release_all(void)
{
    for (int i = 0; shuffled && i < E.nprocs; i++)
        shuffle_release(i);
}
#else
static inline bool shuffle_hold(int proc, send_op *op) { (void)proc, (void)op; return false; }
static inline void shuffle_release(int proc) { (void)proc; }
static inline void shuffle_release_all(void) {}
#endif

static void issue_send(myr_net_send *s)
{
    if (s->proc < 0 || s->proc >= E.nprocs || s->hdr_len > MYR_NET_HEADER_MAX) {
        fprintf(stderr, "myriad: process %d: bad send (process %d of %d, header of "
                "%u bytes)\n", E.self, s->proc, E.nprocs, s->hdr_len);
        send_finished(s, -1);
        return;
    }
    ucp_ep_h ep = peer_ep(s->proc);
    send_op *op = ep ? op_get() : NULL;
    if (!op) {
        send_finished(s, -1);
        return;
    }
    if (s->len <= eager_limit)
        E.sent_eager++;
    else
        E.sent_rndv++;
    wire w = {.src = (uint32_t)E.self, .seq = E.peers[s->proc].send_seq++};
    memcpy(op->header, &w, sizeof w);
    memcpy(op->header + sizeof w, s->hdr, s->hdr_len);
    op->s = s;
    int proc = s->proc;   /* s may be freed by transmit (completed at once) */
    if (shuffle_hold(proc, op))
        return;
    transmit(ep, op);
    shuffle_release(proc);
}

/* ---- fetches ---------------------------------------------------------- */

static void fetch_completed(void *request, ucs_status_t status, size_t length,
                            void *user_data)
{
    (void)length;
    rndv_msg *r = user_data;
    myr_net_fetch *f = r->f;
    ucp_request_free(request);
    if (f) {
        peer *p = &E.peers[r->src];
        if (r->prev)
            r->prev->next = r->next;
        else
            p->live_fetches = r->next;
        if (r->next)
            r->next->prev = r->prev;
    }
    free(r);
    if (!f)
        return;  /* already failed (close_failed_endpoints) */
    if (status != UCS_OK)
        fprintf(stderr, "myriad: process %d: fetching a message of %zu bytes failed "
                "(%s)\n", E.self, f->len, ucs_status_string(status));
    fetch_finished(f, status == UCS_OK ? 0 : -1);
}

static void issue_fetch(myr_net_fetch *f)
{
    rndv_msg *r = f->rndv;
    /* Our endpoint to the source carries the error handler that fails
     * this fetch should the source die. */
    if (!peer_ep(r->src)) {
        free(r);
        fetch_finished(f, -1);
        return;
    }
    r->f = f;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_MEMORY_TYPE,
        .cb.recv_am = fetch_completed,
        .user_data = r,
        .memory_type = UCS_MEMORY_TYPE_HOST,
    };
    void *req = ucp_am_recv_data_nbx(E.worker, r->desc, f->buf, f->len, &param);
    if (UCS_PTR_IS_PTR(req)) {
        transfer_started(f->len);
        peer *p = &E.peers[r->src];
        r->prev = NULL;
        r->next = p->live_fetches;
        if (r->next)
            r->next->prev = r;
        p->live_fetches = r;
        return;
    }
    free(r);
    ucs_status_t st = UCS_PTR_STATUS(req);
    if (st != UCS_OK)
        fprintf(stderr, "myriad: process %d: cannot fetch a message of %zu bytes (%s)\n",
                E.self, f->len, ucs_status_string(st));
    fetch_finished(f, st == UCS_OK ? 0 : -1);
}

/* Take every queued command, oldest first. */
static bool drain_commands(void)
{
    bool any = false;
    /* Look before taking: an exchange on an empty stack would pull the
     * line away from the posters on every spin. */
    myr_net_send *s = NULL;
    if (atomic_load_explicit(&send_head, memory_order_relaxed))
        s = atomic_exchange_explicit(&send_head, NULL, memory_order_acquire);
    if (s) {
        myr_net_send *fifo = NULL;
        while (s) {
            myr_net_send *next = atomic_load_explicit(&s->qnext, memory_order_relaxed);
            atomic_store_explicit(&s->qnext, fifo, memory_order_relaxed);
            fifo = s;
            s = next;
        }
        while (fifo) {
            /* `done` may free it: read the link first. */
            myr_net_send *next = atomic_load_explicit(&fifo->qnext, memory_order_relaxed);
            issue_send(fifo);
            fifo = next;
        }
        shuffle_release_all();
        any = true;
    }
    myr_net_fetch *f = NULL;
    if (atomic_load_explicit(&fetch_head, memory_order_relaxed))
        f = atomic_exchange_explicit(&fetch_head, NULL, memory_order_acquire);
    if (f) {
        myr_net_fetch *fifo = NULL;
        while (f) {
            myr_net_fetch *next = atomic_load_explicit(&f->qnext, memory_order_relaxed);
            atomic_store_explicit(&f->qnext, fifo, memory_order_relaxed);
            fifo = f;
            f = next;
        }
        while (fifo) {
            myr_net_fetch *next = atomic_load_explicit(&fifo->qnext, memory_order_relaxed);
            issue_fetch(fifo);
            fifo = next;
        }
        any = true;
    }
    return any;
}

/* ---- arrivals --------------------------------------------------------- */

static void deliver(int src, const void *hdr, unsigned hdr_len, size_t len,
                    const void *data, rndv_msg *rndv)
{
    /* The core reads its header as a struct: give it aligned. */
    _Alignas(8) unsigned char aligned[MYR_NET_HEADER_MAX];
    memcpy(aligned, hdr, hdr_len);
    myr_net_arrival m = {.proc = src, .hdr = aligned, .hdr_len = hdr_len, .len = len,
                         .data = rndv ? NULL : data, .rndv = rndv};
    E.receiver(&m);
}

/* Hand over the held arrivals whose turn has come. */
static void deliver_early(int src, peer *p)
{
    while (p->early && p->early->seq == p->recv_seq) {
        held *h = p->early;
        p->early = h->next;
        deliver(src, h->hdr, h->hdr_len, h->len, h->data, h->rndv);
        p->recv_seq++;
        if (h->ucx_data)
            ucp_am_data_release(E.worker, (void *)h->data);
        else if (!h->rndv)
            free((void *)h->data);
        free(h);
    }
}

static ucs_status_t am_arrived(void *arg, const void *header, size_t header_length,
                               void *data, size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    bool rndv = param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV;
    wire w = {.src = UINT32_MAX};
    if (header_length >= sizeof w)
        memcpy(&w, header, sizeof w);
    if (header_length > sizeof w + MYR_NET_HEADER_MAX || w.src >= (uint32_t)E.nprocs) {
        fprintf(stderr, "myriad: process %d: dropped a message with a malformed "
                "header (%zu bytes)\n", E.self, header_length);
        return UCS_OK;
    }
    peer *p = &E.peers[w.src];
    E.arrived++;
    const unsigned char *hdr = (const unsigned char *)header + sizeof w;
    unsigned hdr_len = (unsigned)(header_length - sizeof w);
    int32_t ahead = (int32_t)(w.seq - p->recv_seq);
    rndv_msg *r = NULL;
    if (rndv && ahead >= 0) {
        if (!(r = malloc(sizeof *r))) {
            fprintf(stderr, "myriad: process %d: out of memory for a message from "
                    "process %" PRIu32 "\n", E.self, w.src);
            abort();
        }
        *r = (rndv_msg){.desc = data, .src = (int)w.src};
    }
    if (ahead == 0) {
        deliver((int)w.src, hdr, hdr_len, length, data, r);
        p->recv_seq++;
        deliver_early((int)w.src, p);
        /* A rendezvous descriptor stays valid until the core fetches it. */
        return rndv ? UCS_INPROGRESS : UCS_OK;
    }
    if (ahead < 0) {
        fprintf(stderr, "myriad: process %d: message %" PRIu32 " from process %" PRIu32
                " came twice; dropped\n", E.self, w.seq, w.src);
        return UCS_OK;
    }
    /* Early: keep what the callback gives only for its duration. */
    E.held_early++;
    held *h = malloc(sizeof *h);
    void *copy = NULL;
    bool keep_ucx = !rndv && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA);
    if (h && !rndv && !keep_ucx && length && !(copy = malloc(length))) {
        free(h);
        h = NULL;
    }
    if (!h) {
        fprintf(stderr, "myriad: process %d: out of memory holding a message from "
                "process %" PRIu32 "\n", E.self, w.src);
        abort();
    }
    *h = (held){.seq = w.seq, .hdr_len = hdr_len, .len = length, .ucx_data = keep_ucx};
    memcpy(h->hdr, hdr, hdr_len);
    if (rndv) {
        h->rndv = r;
    } else if (keep_ucx) {
        h->data = data;
    } else {
        if (length)
            memcpy(copy, data, length);
        h->data = copy;
    }
    held **at = &p->early;
    while (*at && (int32_t)((*at)->seq - w.seq) < 0)
        at = &(*at)->next;
    h->next = *at;
    *at = h;
    return rndv || keep_ucx ? UCS_INPROGRESS : UCS_OK;
}

/* ---- the comm thread -------------------------------------------------- */

static int ucx_init(void)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: reading UCX's configuration failed (%s)\n",
                ucs_status_string(st));
        return -1;
    }
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 0,
    };
    st = ucp_init(&params, config, &E.context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: UCX initialization failed (%s): check UCX_TLS\n",
                ucs_status_string(st));
        return -1;
    }
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    st = ucp_worker_create(E.context, &wp, &E.worker);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: creating the UCX worker failed (%s)\n",
                ucs_status_string(st));
        return -1;
    }
    ucp_am_handler_param_t am = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                      UCP_AM_HANDLER_PARAM_FIELD_CB,
        .id = AM_ID,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
        .cb = am_arrived,
    };
    st = ucp_worker_set_am_recv_handler(E.worker, &am);
    if (st == UCS_OK)
        st = ucp_worker_get_efd(E.worker, &E.wfd);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: setting up the UCX worker failed (%s)\n",
                ucs_status_string(st));
        return -1;
    }
    ucp_address_t *address;
    st = ucp_worker_get_address(E.worker, &address, &E.address_len);
    if (st != UCS_OK) {
        fprintf(stderr, "myriad: no UCX worker address (%s)\n", ucs_status_string(st));
        return -1;
    }
    E.address = malloc(E.address_len);
    if (E.address)
        memcpy(E.address, address, E.address_len);
    ucp_worker_release_address(E.worker, address);
    if (!E.address)
        return -1;
    describe_from(print_context, E.context, "resource", available, sizeof available);
    return 0;
}

static void ucx_fini(void)
{
    if (E.worker)
        ucp_worker_destroy(E.worker);
    if (E.context)
        ucp_cleanup(E.context);
    E.worker = NULL;
    E.context = NULL;
}

static bool take_ucx(void)
{
    int free_ = 0;
    return atomic_load_explicit(&owner, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong(&owner, &free_, 1);
}

static void give_ucx(void)
{
    atomic_store_explicit(&owner, 0, memory_order_release);
}

/* One pass of the engine's work, by whoever drives UCX. */
static bool engine_pass(void)
{
    bool busy = drain_commands();
    while (ucp_worker_progress(E.worker))
        busy = true;
    if (E.close_failed)
        close_failed_endpoints();
    return busy;
}

void myr_ucx_idle_begin(void)
{
    atomic_fetch_add(&helpers, 1);
}

void myr_ucx_idle_end(void)
{
    /* The last helper leaves: the comm thread watches, at once for what
     * needs it now; receives it watches soon: their ULT goes on waiting
     * (spins again, or blocks, which wakes it) or has what it waited for.
     * Woken for them, the comm thread was woken at every completion of an
     * MPI_Waitall's receives (4 processes on 2 CPUs: an exchange with 3
     * others 31 us instead of 6). */
    if (atomic_fetch_sub(&helpers, 1) != 1)
        return;
    if (awaited_now())
        watch();
    else if (atomic_load(&expected_soon) > 0)
        myr_ucx_watch_soon();
}

int myr_ucx_idle_poll(void)
{
    if (!started || atomic_load_explicit(&closing, memory_order_relaxed))
        return 0;
    if (!take_ucx())   /* the comm thread drives */
        return transfer_moving() ? MYR_NET_POLL_TRANSFER : 0;
    driving = true;
    /* One progress: the waiting ULT looks at its request right after
     * (the comm thread's passes loop until nothing moves instead). What
     * the arrivals posted (acknowledgements) goes out before we leave. */
    bool busy = drain_commands();
    if (ucp_worker_progress(E.worker)) {
        busy = true;
        drain_commands();
    }
    if (E.close_failed)
        close_failed_endpoints();
    hand_back_ucx();
    return (busy ? MYR_NET_POLL_MOVED : 0) | (transfer_moving() ? MYR_NET_POLL_TRANSFER : 0);
}

/* Sleep until a command or a network event (see the top comment), or
 * for at most nap_ns while something is in flight or nothing is expected
 * (comm_main says why). Armed only when a watcher is needed (no helper,
 * something awaited). True when the nap ran out. */
static bool sleep_until_event(long long nap_ns)
{
    atomic_store(&sleep_state, ASLEEP);
    if (atomic_load(&send_head) || atomic_load(&fetch_head) || atomic_load(&closing)) {
        atomic_store(&sleep_state, AWAKE);
        return false;
    }
    if (atomic_load(&in_flight) == 0 && atomic_load(&expected) > 0)
        nap_ns = -1;
    bool armed = atomic_load(&helpers) == 0 && awaited();
    if (armed) {
        ucs_status_t st = ucp_worker_arm(E.worker);
        if (st == UCS_ERR_BUSY) {
            atomic_store(&sleep_state, AWAKE);
            return false;
        }
        if (st != UCS_OK && (nap_ns < 0 || nap_ns > NAP_MIN_NS))
            nap_ns = NAP_MIN_NS;  /* UCX cannot wake us: poll gently, never hang */
    } else {
        /* The end first, then the request (myr_ucx_watch_soon). */
        long long now = now_ns();
        atomic_store(&sleep_ends, nap_ns < 0 ? LLONG_MAX : now + nap_ns);
        if (atomic_exchange(&watch_soon_asked, false) &&
            (nap_ns < 0 || nap_ns > MYR_NET_WATCH_SOON_NS)) {
            nap_ns = MYR_NET_WATCH_SOON_NS;
            atomic_store(&sleep_ends, now + nap_ns);
        }
    }
    /* After the counts were read (watch() reads them after its own change). */
    int s = ASLEEP;
    if (!atomic_compare_exchange_strong(&sleep_state, &s,
                                        ASLEEP | (armed ? ARMED : 0) |
                                            (nap_ns < 0 ? UNBOUNDED : 0))) {
        atomic_store(&sleep_state, AWAKE);  /* a watcher's write is read later */
        return false;
    }
    E.sleeps++;
    give_ucx();
    /* Unarmed, UCX's descriptor may stay readable from an earlier event
     * (only arming drains it): watch our eventfd alone then, or this would
     * be a busy loop on a CPU the workers need. */
    struct pollfd fds[2] = {{.fd = wake_fd, .events = POLLIN},
                            {.fd = E.wfd, .events = POLLIN}};
    struct timespec t = {nap_ns / 1000000000LL, nap_ns % 1000000000LL};
    int n = ppoll(fds, armed ? 2 : 1, nap_ns < 0 ? NULL : &t, NULL);
    atomic_store(&sleep_state, AWAKE);
    while (!take_ucx())
        sched_yield();   /* a helper is in a pass: short */
    if (n > 0 && (fds[0].revents & POLLIN)) {
        E.poster_wakes++;
        uint64_t count;
        ssize_t r = read(wake_fd, &count, sizeof count);
        (void)r;  /* EAGAIN: a poster's write already consumed */
    }
    return n == 0;
}

/* Stop: flush and close every endpoint, then let UCX go. */
static void close_endpoints(void)
{
    int n = 0;
    void **reqs = calloc((size_t)E.nprocs, sizeof *reqs);
    for (int i = 0; i < E.nprocs; i++) {
        peer *p = &E.peers[i];
        if (!p->ep)
            continue;
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                     .flags = p->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        void *req = ucp_ep_close_nbx(p->ep, &param);
        p->ep = NULL;
        if (UCS_PTR_IS_PTR(req)) {
            if (reqs)
                reqs[n++] = req;
            else
                ucp_request_free(req);
        }
    }
    long long deadline = now_ns() + CLOSE_DEADLINE_NS;
    for (int i = 0; i < n;) {
        ucp_worker_progress(E.worker);
        if (ucp_request_check_status(reqs[i]) != UCS_INPROGRESS) {
            ucp_request_free(reqs[i]);
            reqs[i] = reqs[--n];
            continue;
        }
        if (++i == n)
            i = 0;
        if (now_ns() > deadline)
            break;
    }
    for (int i = 0; i < n; i++)
        ucp_request_free(reqs[i]);
    free(reqs);
    /* Arrivals still held (a peer failed): give UCX its buffers back. */
    for (int i = 0; i < E.nprocs; i++) {
        for (held *h = E.peers[i].early, *next; h; h = next) {
            next = h->next;
            if (h->ucx_data)
                ucp_am_data_release(E.worker, (void *)h->data);
            else if (!h->rndv)
                free((void *)h->data);
            free(h->rndv);
            free(h);
        }
        E.peers[i].early = NULL;
    }
}

/* The comm thread runs on the CPUs net.c chose (settings.comm_cpus: the
 * node's CPUs other than its own workers', where it can run beside them
 * while they compute; it moves data then, which only overlaps if it is
 * not queued behind one of them). */
static cpu_set_t comm_cpus;

static void *comm_main(void *arg)
{
    (void)arg;
    on_comm = true;
    (void)pthread_setaffinity_np(pthread_self(), sizeof comm_cpus, &comm_cpus);  /* best effort */
    E.init_status = ucx_init();
    sem_post(&init_done);
    if (E.init_status != 0) {
        ucx_fini();
        return NULL;
    }
    while (!take_ucx())
        sched_yield();
    long long last = now_ns(), nap = NAP_MIN_NS;
    for (;;) {
        bool busy = engine_pass();
        if (busy) {
            last = now_ns();
            nap = NAP_MIN_NS;
            continue;
        }
        if (atomic_load(&closing))
            break;
        long long idle = now_ns() - last;
        if (idle < spin_ns && atomic_load_explicit(&helpers, memory_order_relaxed) == 0 &&
            awaited()) {
            /* Spinning is a bet, not a claim: past the first microseconds
             * (an answer that comes at once), a worker woken by our last
             * completion (or computing) on this core runs first. */
            if (idle > YIELD_AFTER_NS)
                sched_yield();
            continue;
        }
        /* A bounded nap while anything is unfinished: UCX holds a send it
         * had no room for (the receiver's queue was full) until a local
         * progress, which no event announces; and unawaited arrivals are
         * taken into the core's queues now and then, so that senders are
         * not held up by them for long. Doubled while nothing happens. */
        if (sleep_until_event(nap))
            nap = nap < NAP_MAX_NS / 2 ? 2 * nap : NAP_MAX_NS;
        last = now_ns();
    }
    close_endpoints();
    while (E.free_ops) {
        send_op *op = E.free_ops;
        E.free_ops = op->next;
        free(op);
    }
    ucx_fini();
    return NULL;
}

/* ---- entry points ------------------------------------------------------ */

int myr_ucx_start(myr_net_receiver receiver, const myr_net_settings *settings)
{
    if (started)
        return 0;
    const myr_net_place *place = myr_wireup_place();
    if (!place || place->nprocs < 1)
        return -1;
    eager_limit = settings->eager_bytes;
    spin_ns = settings->spin_us * 1000LL;
    comm_cpus = settings->comm_cpus;
    verbose = settings->verbose;
    posters_drive = settings->others_drive;
    E = (typeof(E)){.nprocs = place->nprocs, .self = place->proc, .place = place,
                    .receiver = receiver, .wfd = -1};
    E.peers = calloc((size_t)E.nprocs, sizeof *E.peers);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!E.peers || wake_fd < 0) {
        fprintf(stderr, "myriad: cannot set up the comm thread: %s\n", strerror(errno));
        return -1;
    }
    atomic_store(&closing, 0);
    atomic_store(&leaving, false);
    atomic_store(&in_flight, 0);
    atomic_store(&transports_known, false);
    sem_init(&init_done, 0, 0);
    int rc = pthread_create(&comm_thread, NULL, comm_main, NULL);
    if (rc != 0) {
        fprintf(stderr, "myriad: cannot start the comm thread: %s\n", strerror(rc));
        return -1;
    }
    while (sem_wait(&init_done) != 0 && errno == EINTR)
        ;
    if (E.init_status != 0) {
        pthread_join(comm_thread, NULL);
        return -1;
    }
    started = true;
    /* Every process's address is readable once this returns (fence). */
    rc = myr_wireup_publish(ADDRESS_KEY, E.address, E.address_len);
    free(E.address);
    E.address = NULL;
    return rc;
}

void myr_ucx_stop(void)
{
    if (!started)
        return;
    /* 1. Our own sends (and fetches) are done. */
    atomic_store(&stop_waiting, true);
    pthread_mutex_lock(&stop_mutex);
    while (atomic_load_explicit(&in_flight, memory_order_acquire) > 0) {
        /* The comm thread signals at 0; the timeout covers a missed one. */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 100 * 1000000;
        if (t.tv_nsec >= 1000000000) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&stop_cond, &stop_mutex, &t);
    }
    pthread_mutex_unlock(&stop_mutex);
    atomic_store(&stop_waiting, false);
    /* 2. No process closes while another still sends to it (the comm
     * thread keeps serving the others meanwhile). A peer that passes the
     * fence first may close before we return from it. */
    atomic_store(&leaving, true);
    if (myr_wireup_fence() != 0)
        fprintf(stderr, "myriad: process %d: leaving without the others\n", E.self);
    /* 3. The comm thread closes the endpoints, destroys UCX and leaves. */
    atomic_store(&closing, 1);
    wake();
    pthread_join(comm_thread, NULL);
    close(wake_fd);
    wake_fd = -1;
    if (verbose)
        fprintf(stderr, "myriad: process %d: network: sent %ld eager + %ld rendezvous, "
                "%ld arrived (%ld early, held for order), comm thread slept %ld times "
                "(%ld woken by posts)\n", E.self, E.sent_eager, E.sent_rndv, E.arrived,
                E.held_early, E.sleeps, E.poster_wakes);
    free(E.peers);
    E.peers = NULL;
    sem_destroy(&init_done);
    started = false;
}

bool myr_ucx_on_comm_thread(void)
{
    return on_comm;
}

long myr_ucx_in_flight(void)
{
    return atomic_load_explicit(&in_flight, memory_order_relaxed);
}

size_t myr_ucx_eager_limit(void)
{
    return eager_limit;
}

const char *myr_ucx_describe(char *buf, size_t size)
{
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    if (atomic_load_explicit(&transports_known, memory_order_acquire))
        snprintf(buf, size, "UCX %u.%u.%u (transports %s)", major, minor, release,
                 transports);
    else if (started)
        snprintf(buf, size, "UCX %u.%u.%u (transports available: %s)", major, minor,
                 release, available);
    else
        snprintf(buf, size, "UCX %u.%u.%u", major, minor, release);
    return buf;
}
