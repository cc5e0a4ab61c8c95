/*
 * watchdog.c — the job's deadlock check and time limit, and the report of
 * what every rank is doing that both print.
 *
 * When all ranks live in this process under one scheduler, the runtime
 * can tell when nothing can ever happen again: every worker asleep for
 * want of work (a rank computing, sleeping or blocked in a system call
 * keeps its worker awake) and no kernel thread of the program running
 * (myr_sched_quiescent). Then every rank is suspended, and only a rank's
 * own progress could wake another: the job is deadlocked. A check thread
 * samples that state every CHECK_MS; it decides only after QUIET_SAMPLES
 * agreeing samples in a row whose wake-up epoch did not move (no worker
 * ran anything between them), so a transient idle moment never counts.
 * Off with MYR_DEADLOCK=0.
 *
 * In a job of several processes, a process whose ranks all wait may wait
 * for another process. There process 0's check thread, once its own
 * process has been quiescent for the same samples, asks every process
 * for its state and counts the messages between them (quiescence.c); two
 * waves that agree mean a deadlock. Then each process prints its own
 * ranks' lines, in process order, and process 0 ends the job; the others
 * wait to be ended with it (myriad-launch ends every process when one
 * ends with a failure; so does any PMIx launcher), or end themselves
 * after REPORTED_WAIT_S should that not come.
 *
 * The time limit (MPIEXEC_TIMEOUT seconds, which mpiexec -timeout sets)
 * is kept by the same thread: the report, then exit status 124.
 *
 * The report reads what each rank noted before it blocked (myr_wait_note,
 * core.h), and the requests, communicators and collectives the notes point
 * at. In a deadlock nothing moves while it reads. At a time limit ranks
 * may still run and free those objects, so the workers are first stopped
 * for good (myr_sched_freeze): then the report is as detailed as a
 * deadlock's (call, communicator, peer, tag). Only when that fails (a
 * kernel thread of the program still runs) do blocked ranks show just
 * their call.
 *
 * Either way the job ends through myr_job_end_* (ult/overflow.c): what
 * stdio holds is written out first, and the last line says why the job
 * ended. The report goes straight to file descriptor 2, not through
 * stderr's FILE, whose lock a stopped worker may hold.
 */
#include "launch/watchdog.h"

#include "launch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "core/p2p.h"
#include "launch/quiescence.h"
#include "net/net.h"

#define CHECK_MS 100
#define QUIET_SAMPLES 3
/* Across processes, waves that find the job active come less and less
 * often, up to one a second (a rank computing for hours costs the other
 * processes one question a second). */
#define WAVE_GAP_MAX_MS 1000
/* A process that printed its report waits this long for process 0 to end
 * the job. */
#define REPORTED_WAIT_S 10
#define LINE 512

static struct {
    pthread_t thread;
    bool running;
    pthread_mutex_t lock;
    pthread_cond_t stop_cond;
    bool stop;
    bool deadlock_check;
    long timeout_s;           /* 0: none */
} dog = {.lock = PTHREAD_MUTEX_INITIALIZER, .stop_cond = PTHREAD_COND_INITIALIZER};

/* ---- describing a rank ------------------------------------------------------ */

typedef struct text {
    char *buf;
    size_t cap, len;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    if (t->len >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
    if (t->len >= t->cap)
        t->len = t->cap - 1;
}

/* The communicator's name, or "communicator <context id> (N ranks)". */
static const char *comm_name(MPI_Comm comm, myr_rank *r)
{
    static _Thread_local char unnamed[64];
    if (comm == MPI_COMM_NULL || !comm)
        return "(no communicator)";
    if (comm->kind == MYR_COMM_INTRA || comm->kind == MYR_COMM_INTER) {
        myr_comm_local *l = myr_comm_local_of(comm, r);
        if (l && l->name && l->name[0])
            return l->name;
    }
    if (comm->name && comm->name[0])
        return comm->name;
    snprintf(unnamed, sizeof unnamed, "communicator %u (%d ranks)", comm->context_id,
             myr_comm_size(comm));
    return unnamed;
}

static void put_peer(text *t, int peer, const char *any)
{
    if (peer == MPI_ANY_SOURCE)
        put(t, "%s", any);
    else if (peer == MPI_PROC_NULL)
        put(t, "MPI_PROC_NULL");
    else
        put(t, "rank %d", peer);
}

static void put_tag(text *t, int tag)
{
    if (tag == MPI_ANY_TAG)
        put(t, "any tag");
    else
        put(t, "tag %d", tag);
}

/* Messages that arrived for r on q's communicator but match no receive:
 * the usual sign of a wrong tag or source. */
static void put_unexpected(text *t, const struct myr_mpi_request *q, myr_rank *r)
{
    if (!q->comm)
        return;
    int shown = 0, more = 0;
    for (const myr_envelope *e = r->match.unexpected_head; e; e = e->next) {
        if (e->context_id != q->comm->context_id)
            continue;
        if (shown == 3) {
            more++;
            continue;
        }
        put(t, "%s from rank %d with tag %d", shown ? "," : "; unreceived here: a message",
            e->source, e->tag);
        shown++;
    }
    if (more)
        put(t, " and %d more", more);
}

static void put_request(text *t, const struct myr_mpi_request *q, myr_rank *r)
{
    switch (q->kind) {
    case MYR_REQ_RECV:
        put(t, "waits for a message from ");
        put_peer(t, q->peer, "any rank");
        put(t, " with ");
        put_tag(t, q->tag);
        put(t, " on %s (%d x %s)", comm_name(q->comm, r), q->count,
            q->type ? myr_datatype_label(q->type) : "?");
        put_unexpected(t, q, r);
        break;
    case MYR_REQ_SEND:
        put(t, "waits for ");
        put_peer(t, q->peer, "?");
        put(t, " to receive its %smessage with ", q->mode == MYR_MODE_SYNC ? "synchronous " : "");
        put_tag(t, q->tag);
        put(t, " on %s (%d x %s)", comm_name(q->comm, r), q->count,
            q->type ? myr_datatype_label(q->type) : "?");
        break;
    case MYR_REQ_COLL:
        put(t, "waits for a nonblocking collective on %s", comm_name(q->comm, r));
        break;
    default:
        put(t, "waits for a generalized request (completed by the program)");
        break;
    }
}

/* Who has arrived at a collective, computed once per collective (its
 * members' lines would otherwise cost N^2 for N ranks): a few recent ones. */
#define ARRIVALS_CACHED 8
static struct arrivals {
    const void *what;
    char text[LINE];
} arrivals[ARRIVALS_CACHED];
static int arrivals_next;

/* A collective: which members of its communicator have not arrived. */
static void put_collective(text *t, myr_rank *r)
{
    MPI_Comm comm = r->waiting.comm;
    put(t, "waits on %s", comm_name(comm, r));
    if (!comm || comm->kind == MYR_COMM_INTER)
        return;
    for (int c = 0; c < ARRIVALS_CACHED; c++)
        if (arrivals[c].what == r->waiting.what) {
            put(t, "%s", arrivals[c].text);
            return;
        }
    struct arrivals *slot = &arrivals[arrivals_next++ % ARRIVALS_CACHED];
    slot->what = r->waiting.what;
    text summary = {.buf = slot->text, .cap = LINE};
    slot->text[0] = '\0';
    int size = myr_comm_size(comm), arrived = 0, shown = 0, here = 0;
    text missing = {.buf = (char[LINE]){0}, .cap = LINE};
    for (int i = 0; i < size; i++) {
        myr_rank *p = myr_comm_peer(comm, r, i);
        if (!p)
            continue;   /* in another process: its own report says */
        here++;
        if (atomic_load(&p->waiting_kind) == MYR_WAIT_COLLECTIVE &&
            p->waiting.what == r->waiting.what) {
            arrived++;
            continue;
        }
        /* Not waiting here: it has not arrived (the rank that arrives
         * last never waits, it completes the round). */
        if (shown < 8)
            put(&missing, "%s%d", shown ? ", " : "", p->world_rank);
        else if (shown == 8)
            put(&missing, ", ...");
        shown++;
    }
    if (shown)
        put(&summary, " for %s %s (%d of %d arrived%s)", shown == 1 ? "rank" : "ranks",
            missing.buf, arrived, here, here < size ? " in this process" : "");
    put(t, "%s", slot->text);
}

/* frozen: nothing runs (a deadlock, or a time limit reached in one), so
 * the objects a note points at can be read; otherwise a rank may free
 * them meanwhile, and only the note itself is used. */
static void describe(text *t, myr_rank *r, bool frozen)
{
    if (r->returned) {
        put(t, "finished (main returned %d)", r->exit_code);
        return;
    }
    const char *call = atomic_load_explicit(&r->last_call, memory_order_relaxed);
    int kind = atomic_load_explicit(&r->waiting_kind, memory_order_acquire);
    if (kind == MYR_WAIT_NONE) {
        if (r->init_state == 0)
            put(t, "running, before MPI_Init");
        else if (r->init_state == 2)
            put(t, "running, after MPI_Finalize");
        else if (call)
            put(t, "running outside MPI (its last MPI call: %s)", call);
        else
            put(t, "running");
        return;
    }
    if (kind == MYR_WAIT_FINALIZE) {
        put(t, "MPI_Finalize: waits for the other ranks to call MPI_Finalize");
        return;
    }
    put(t, "%s: ", call ? call : "MPI");
    if (!frozen && kind != MYR_WAIT_BSEND && kind != MYR_WAIT_NB_COLLECTIVES) {
        static const char *const what[] = {
            [MYR_WAIT_REQUEST] = "a request", [MYR_WAIT_REQUESTS] = "requests",
            [MYR_WAIT_PROBE] = "a message to probe", [MYR_WAIT_COLLECTIVE] = "a collective"};
        put(t, "waits for %s", what[kind]);
        return;
    }
    switch (kind) {
    case MYR_WAIT_REQUEST:
        put_request(t, r->waiting.what, r);
        break;
    case MYR_WAIT_REQUESTS: {
        const MPI_Request *reqs = r->waiting.what;
        const struct myr_mpi_request *first = NULL;
        int pending = 0;
        for (int i = 0; i < r->waiting.n; i++) {
            const struct myr_mpi_request *q = reqs[i];
            if (q == MPI_REQUEST_NULL || !q->active ||
                myr_request_done((struct myr_mpi_request *)q))
                continue;
            if (!first)
                first = q;
            pending++;
        }
        if (!first) {
            put(t, "waits for requests");
            break;
        }
        put_request(t, first, r);
        if (pending > 1)
            put(t, "; and %d more request%s", pending - 1, pending > 2 ? "s" : "");
        break;
    }
    case MYR_WAIT_PROBE:
        put(t, "waits for a message to probe from ");
        put_peer(t, r->waiting.peer, "any rank");
        put(t, " with ");
        put_tag(t, r->waiting.tag);
        put(t, " on %s", comm_name(r->waiting.comm, r));
        break;
    case MYR_WAIT_COLLECTIVE:
        put_collective(t, r);
        break;
    case MYR_WAIT_NB_COLLECTIVES:
        put(t, "waits for its nonblocking collectives on %s to finish first",
            comm_name(r->waiting.comm, r));
        break;
    case MYR_WAIT_BSEND:
        put(t, "waits for its buffered messages to be received");
        break;
    default:
        put(t, "blocked");
        break;
    }
}

/* One line of the report, written to fd 2 in one write(2). */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[LINE + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(STDERR_FILENO, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* One line per rank, consecutive ranks in the same state on one line
 * ("ranks 4-1023: ..."), so that a job of 10^5 ranks gives a short report. */
static void report_ranks(bool frozen)
{
    char a[LINE], b[LINE];
    char *prev = a, *cur = b;
    int first = 0, n = myr_the_job.local, base = myr_the_job.first;
    for (int i = 0; i <= n; i++) {
        text t = {.buf = cur, .cap = LINE};
        cur[0] = '\0';
        if (i < n)
            describe(&t, &myr_the_job.ranks[i], frozen);
        if (i > 0 && (i == n || strcmp(cur, prev) != 0)) {
            if (first == i - 1)
                say("myriad:   rank %d: %s\n", base + first, prev);
            else
                say("myriad:   ranks %d-%d: %s\n", base + first, base + i - 1, prev);
            first = i;
        }
        char *swap = prev;
        prev = cur;
        cur = swap;
    }
}


/* ---- the check thread --------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static _Noreturn void end_in_deadlock(void)
{
    myr_job_end_begin(MYR_STATUS_DEADLOCK, "of a deadlock");
    myr_job_end_flush(true);
    const myr_net_place *place = &myr_net_the_place;
    if (!myr_the_job.multiprocess) {
        say("myriad: deadlock: every rank waits and none can go on "
            "(MYR_DEADLOCK=0 turns this check off):\n");
        report_ranks(true);
        myr_job_end(false);
    }
    say("myriad: deadlock: every rank waits and none can go on, in all %d processes "
        "of the job, and no message is on its way between them (MYR_DEADLOCK=0 turns "
        "this check off):\n", place->nprocs);
    report_ranks(true);
    for (int p = 1; p < place->nprocs; p++)
        if (!myr_quiescence_ask_report(p))
            say("myriad:   ranks %ld-%ld: not reported (process %d did not answer)\n",
                place->proc_first[p], place->proc_first[p + 1] - 1, p);
    myr_job_end(false);
}

/* A process other than 0, asked for its part of a deadlock's report. */
static _Noreturn void report_to_process_0(void)
{
    myr_job_end_begin(MYR_STATUS_DEADLOCK, NULL);
    myr_job_end_flush(true);
    report_ranks(true);
    /* This process has said its part. What its threads might still print
     * as the job ends (UCX over TCP noticing that process 0 is gone, say)
     * would come after the job's last line, process 0's. */
    int quiet = open("/dev/null", O_WRONLY);
    if (quiet >= 0)
        dup2(quiet, STDERR_FILENO);
    myr_quiescence_report_done();
    /* Process 0 prints the last line and ends the job, and this process
     * with it; on our own only if that does not come. */
    sleep(REPORTED_WAIT_S);
    myr_job_end(false);
}

static void wake_check_thread(void)
{
    pthread_mutex_lock(&dog.lock);
    pthread_cond_signal(&dog.stop_cond);
    pthread_mutex_unlock(&dog.lock);
}

static void *watch(void *arg)
{
    (void)arg;
    double deadline = dog.timeout_s ? now_s() + (double)dog.timeout_s : 0;
    int quiet = 0;
    unsigned long last_epoch = 0;
    bool coordinator = myr_the_job.multiprocess && myr_net_the_place.proc == 0;
    double next_wave = 0;
    long wave_gap_ms = CHECK_MS;
    /* dog.lock only while waiting: a control message's handler takes it
     * to wake this thread, and must not wait for a wave. */
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += CHECK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&dog.lock);
        if (!dog.stop)
            pthread_cond_timedwait(&dog.stop_cond, &dog.lock, &until);
        bool stop = dog.stop;
        pthread_mutex_unlock(&dog.lock);
        if (stop)
            break;
        if (deadline && now_s() >= deadline) {
            char why[96];
            snprintf(why, sizeof why, "it reached its time limit of %ld s", dog.timeout_s);
            myr_job_end_begin(124, why);
            /* The output written before the limit, while nothing is
             * stopped yet (a stopped worker may hold a stream's lock). */
            myr_job_end_flush(true);
            say("myriad: time limit of %ld s reached (mpiexec -timeout, "
                "MPIEXEC_TIMEOUT); what the ranks are doing:\n", dog.timeout_s);
            report_ranks(myr_sched_freeze());
            myr_job_end(false);
        }
        if (!dog.deadlock_check)
            continue;
        if (myr_the_job.multiprocess && !coordinator) {
            /* The waves are process 0's; this process answers them from
             * its driving thread (quiescence.c). */
            if (myr_quiescence_report_asked())
                report_to_process_0();
            myr_quiescence_listen();
            continue;
        }
        unsigned long epoch;
        if (!myr_quiescence_local(&epoch)) {
            quiet = 0;
            wave_gap_ms = CHECK_MS;
            next_wave = 0;
            continue;
        }
        quiet = quiet && epoch == last_epoch ? quiet + 1 : 1;
        last_epoch = epoch;
        if (quiet < QUIET_SAMPLES)
            continue;
        if (!myr_the_job.multiprocess)
            end_in_deadlock();
        if (now_s() < next_wave)
            continue;
        switch (myr_quiescence_wave()) {
        case MYR_JOB_DEADLOCKED:
            end_in_deadlock();
        case MYR_JOB_QUIET_ONCE:
            wave_gap_ms = CHECK_MS;
            break;
        case MYR_JOB_ACTIVE:
            wave_gap_ms = wave_gap_ms * 2 < WAVE_GAP_MAX_MS ? wave_gap_ms * 2 : WAVE_GAP_MAX_MS;
            break;
        }
        next_wave = now_s() + (double)wave_gap_ms / 1e3;
    }
    return NULL;
}

int myr_watchdog_start(void)
{
    const char *v = myr_env_get(MYR_ENV_DEADLOCK);
    dog.deadlock_check = !(v && strcmp(v, "0") == 0);
    if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
        fprintf(stderr, "myriad: MYR_DEADLOCK=%s is not 0 or 1\n", v);
        return -1;
    }
    /* Every process answers the check's questions, even with the check
     * off here (its answers then keep the job from being found
     * deadlocked). */
    if (myr_quiescence_start(dog.deadlock_check, wake_check_thread) != 0)
        return -1;
    dog.timeout_s = 0;
    if ((v = myr_env_get(MYR_ENV_MPIEXEC_TIMEOUT)) &&
        (myr_env_parse_long(v, &dog.timeout_s) != 0 || dog.timeout_s < 0)) {
        fprintf(stderr, "myriad: MPIEXEC_TIMEOUT=%s is not a number of seconds\n", v);
        return -1;
    }
    if (!dog.deadlock_check && dog.timeout_s == 0)
        return 0;
    dog.stop = false;
    if (pthread_create(&dog.thread, NULL, watch, NULL) != 0) {
        fprintf(stderr, "myriad: cannot start the deadlock and time-limit check thread\n");
        return -1;
    }
    dog.running = true;
    return 0;
}

void myr_watchdog_ranks_ended(void)
{
    myr_quiescence_ranks_ended();
}

void myr_watchdog_stop(void)
{
    if (!dog.running)
        return;
    myr_quiescence_stop();
    pthread_mutex_lock(&dog.lock);
    dog.stop = true;
    pthread_cond_signal(&dog.stop_cond);
    pthread_mutex_unlock(&dog.lock);
    pthread_join(dog.thread, NULL);
    dog.running = false;
}
