/*
 * net.h — the inter-process engine as the layers above see it: where the
 * job's ranks live (the place, from PMIx), and messages between OS
 * processes (UCX, driven by the communication thread).
 *
 * The engine knows processes, not ranks: it carries a small header the
 * core writes (who, which communicator, which tag) and the data, in order
 * per pair of processes, and hands every arriving message to the one
 * receiver the core registered. Matching, MPI semantics and the ranks'
 * queues stay in the core (core/p2p.c), so that MPI_ANY_SOURCE matches a
 * collocated and a remote sender under one lock and one order.
 *
 * Threads. UCX is driven by one thread at a time: the communication
 * thread, a worker whose ULT waits for a message (myr_net_idle_poll), or
 * a poster that finds it free and issues its own command within the
 * post. Any thread (a rank on a worker, the comm thread itself) posts
 * sends and fetches; what the poster cannot issue at once is queued to
 * the comm thread, which wakes for it. Completions (`done`) and arrivals
 * (the receiver) run on the driving thread, a send's or fetch's `done`
 * possibly within its own post: they must be short and must not block
 * (no ULT switch, no lock held long); completing an MPI request
 * (myr_request_complete) is fine. A poster must not hold a lock that a
 * `done` takes, and must not touch the operation after the post.
 *
 * One process (no PMIx server in the environment, or a launcher that
 * started one process) needs none of this: myr_net_place_init decides
 * that without loading anything, and nothing else of net/ runs. The
 * engine itself (PMIx client, UCX, comm thread: wireup.c, ucx.c) is a
 * library of its own, libmyriad-net.so, which net.c loads only for jobs
 * of several processes, so that a job of one process neither loads UCX
 * and PMIx nor pays their start-up (3 ms a process here).
 */
#ifndef MYR_NET_NET_H
#define MYR_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the place: which ranks live in which OS process (wireup.c) ------ */

typedef struct myr_net_place {
    int nprocs;              /* OS processes in the job; 1: no network */
    int proc;                /* this process, 0 .. nprocs-1 */
    long job_size;           /* ranks in the whole job */
    long first;              /* this process's ranks: first .. first+local-1 */
    long local;
    /* nprocs + 1 entries: process p holds job ranks
     * proc_first[p] .. proc_first[p+1]-1 (ranks are numbered process by
     * process). */
    const long *proc_first;
    /* Processes of this node, and this process's index among them; the
     * node's number in the job (PMIX_NODEID; 0 when not given). */
    int node_procs, node_index;
    int node;
    /* Process 0's CLOCK_MONOTONIC when the places were exchanged, in ns: a
     * time zero the job's processes share (comparable across the
     * processes of one node, whose monotonic clock is the same). */
    long long clock_zero_ns;
    const char *launcher;    /* "singleton", "mpiexec" or "PMIx" (another launcher) */
} myr_net_place;

extern myr_net_place myr_net_the_place;

/* Find this process's place. `local` is the number of ranks this process
 * runs (MYR_NRANKS, or MYR_RANKS_PER_PROCESS under another launcher).
 * Without a PMIx server in the environment: one process of `local` ranks,
 * and nothing is initialized. With one: connect to it (PMIx_Init), learn
 * this process's rank among the job's processes, and exchange every
 * process's rank count so that ranks are numbered process by process.
 * 0, or -1 with a message on stderr. */
int myr_net_place_init(long local);

/* The process holding job rank `rank` (binary search; O(1) with one). */
int myr_net_proc_of(long rank);

/* Publish `len` bytes under `key` for the other processes, then wait for
 * every process to have done the same (PMIx_Put, PMIx_Commit, PMIx_Fence
 * collecting data). 0 or -1 (message printed). */
int myr_net_publish(const char *key, const void *data, size_t len);
/* What process `proc` published under `key` (after myr_net_publish):
 * malloc'd, *len set; NULL on failure (message printed). */
void *myr_net_lookup(int proc, const char *key, size_t *len);
/* Wait until every process of the job has called it (PMIx_Fence, no data). */
int myr_net_fence(void);
/* End the whole job: every process of it, with `status` (PMIx_Abort).
 * Returns only if the launcher did not act (the caller then exits). */
void myr_net_abort(int status, const char *why);
/* Leave the job (PMIx_Finalize). After myr_net_stop. */
void myr_net_place_fini(void);

/* ---- messages between processes (engine: ucx.c) --------------------- */

/* The header a message carries, written and read by the layer above. */
#define MYR_NET_HEADER_MAX 40

/* A send: the caller fills the public fields and keeps the object (and
 * the data) alive until `done` has run. */
typedef struct myr_net_send {
    int proc;                          /* destination process */
    unsigned hdr_len;                  /* <= MYR_NET_HEADER_MAX */
    _Alignas(8) unsigned char hdr[MYR_NET_HEADER_MAX];
    const void *data;                  /* contiguous; may be NULL when len is 0 */
    size_t len;
    /* On the driving thread, once `data` may be reused (eager: copied
     * out; rendezvous: transferred). err: 0, or an error the engine
     * printed. */
    void (*done)(struct myr_net_send *s, int err);
    /* The engine's. */
    struct myr_net_send *_Atomic qnext;
    void *priv;
} myr_net_send;

/* Issue a send, or queue it to the comm thread (any thread; it is woken
 * if asleep). */
void myr_net_send_post(myr_net_send *s);

/* An arriving message, as the receiver sees it (valid during the call). */
typedef struct myr_net_arrival {
    int proc;                          /* source process */
    const void *hdr;
    unsigned hdr_len;
    size_t len;                        /* data bytes */
    /* rndv NULL: the data came with the message (eager; data may be NULL
     * when len is 0): copy it before returning. Else it stays at the
     * sender until fetched (rendezvous): keep `rndv` and fetch it with
     * myr_net_fetch_post (data is NULL). */
    const void *data;
    void *rndv;
} myr_net_arrival;

/* Called on the driving thread for every message, in the order its
 * sender's process posted them (per pair of processes). */
typedef void (*myr_net_receiver)(const myr_net_arrival *m);

/* A fetch of a rendezvous message's data into `buf` (len bytes: the
 * whole message). Same ownership as a send. A rendezvous message must be
 * fetched exactly once (to drop one, fetch it into scratch). */
typedef struct myr_net_fetch {
    void *rndv;
    void *buf;
    size_t len;
    void (*done)(struct myr_net_fetch *f, int err);
    struct myr_net_fetch *_Atomic qnext;
    void *priv;
} myr_net_fetch;

void myr_net_fetch_post(myr_net_fetch *f);

/* Start the engine (nprocs > 1): UCX context and worker, addresses
 * exchanged through the place (myr_net_publish), the comm thread. Every
 * arriving message goes to `receiver`. 0, or -1 with a message. */
int myr_net_start(myr_net_receiver receiver);
/* Stop it once this process sends and expects nothing more (every rank
 * has left MPI_Finalize's barrier): waits for its own sends to finish,
 * fences with the other processes so that none closes while another
 * still sends, then closes the endpoints and joins the comm thread. */
void myr_net_stop(void);
/* True on the comm thread. */
bool myr_net_on_comm_thread(void);
/* A worker with nothing to run but a ULT waiting for a message may drive
 * the network itself (issue queued commands, progress UCX, run arrivals
 * and completions on its own thread), so that a blocking exchange pays no
 * hand-off to the comm thread and back. begin/end bracket such a wait:
 * while any worker waits so, the comm thread sleeps instead of spinning
 * and leaves UCX to it; the last one to stop hands UCX back. poll: one
 * pass, if UCX is free; MYR_NET_POLL_MOVED: something happened;
 * MYR_NET_POLL_TRANSFER: a rendezvous transfer issued here may still be
 * moving data (the thread moving it may need this CPU). Any thread. */
enum { MYR_NET_POLL_MOVED = 1, MYR_NET_POLL_TRANSFER = 2 };
void myr_net_idle_begin(void);
int myr_net_idle_poll(void);
void myr_net_idle_end(void);
/* The network is watched (by a worker waiting idle for it, else by the
 * comm thread, armed to wake on network events) only while this process
 * awaits something from it: operations in flight, or what begin/end
 * bracket: a posted receive that a message of another process may
 * match, a blocked probe of such a communicator, a synchronous send's
 * acknowledgement. Unawaited arrivals stay in the network until a
 * receive or probe asks (a nonblocking probe polls: myr_net_idle_poll).
 * waiting: the caller is about to wait for it itself (it then spins as
 * an idle worker, or blocks: myr_net_blocked), so nobody is woken now. */
void myr_net_expect_begin(bool waiting);
void myr_net_expect_end(void);
/* A ULT blocked, or something became awaited that nobody waits for now
 * (a nonblocking receive): if no worker helps, the comm thread watches. */
void myr_net_blocked(void);
/* A ULT blocked while its worker has other ULTs to run: that worker
 * drives the network once it runs out of them (an idle worker helps), so
 * the comm thread watches now only what needs a watcher at once, and the
 * receives of eager messages within MYR_NET_WATCH_SOON_NS. Woken at each
 * such block, it was woken for nothing in most collectives of several
 * ranks per process: a leader waiting for the other processes while its
 * members had still to arrive (MPI_Allgather of 3 or more ranks per
 * process over 4 processes on 2 CPUs 40 us instead of 12). */
void myr_net_blocked_busy(void);
/* What needs no prompt watcher: a posted receive whose buffer only an
 * eager message fits (its data comes with its arrival; there is no
 * transfer to drive), counted by expect_soon_begin/end instead. The comm
 * thread watches it within MYR_NET_WATCH_SOON_NS, without being woken for
 * it when it naps no longer than that: when such a receive is posted and
 * nobody waits for it (myr_net_watch_soon, after the count), or when the
 * last idle worker stops helping; a ULT that blocks (myr_net_blocked)
 * still makes it watch at once. Waking it for every MPI_Irecv of an
 * Irecv/Send/Wait exchange, and at every completion inside an
 * MPI_Waitall, cost two context switches each: with 4 processes on 2
 * CPUs 26 us instead of 5 per exchange. */
#define MYR_NET_WATCH_SOON_NS 1000000LL
void myr_net_expect_soon_begin(void);
void myr_net_expect_soon_end(void);
void myr_net_watch_soon(void);
/* Messages sent or fetched and not done yet, plus commands queued: for
 * the reports (something is in flight). */
long myr_net_in_flight(void);

/* Sends of at most this many bytes go eagerly (the data travels with the
 * message); larger ones by rendezvous (fetched into the receive buffer,
 * zero-copy where the transport allows). MYR_NET_EAGER_BYTES; set by
 * myr_net_start. */
size_t myr_net_eager_limit(void);

/* What myriad-info prints: UCX's and PMIx's versions and, once started,
 * the transports in use. Static strings or into buf. */
const char *myr_net_versions(char *buf, size_t size);

#endif
