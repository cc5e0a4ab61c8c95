/*
 * quiescence.c — whether the job is quiescent, for the deadlock check
 * (watchdog.c): every rank blocked or ended, and nothing on its way that
 * could wake one.
 *
 * One process: the scheduler tells (myr_sched_quiescent: every worker
 * asleep for want of work, no kernel thread of the program running).
 *
 * Several processes: none can tell by itself. Its ranks may all wait for
 * a message that a rank of another process is about to send, or that is
 * on its way. So the processes count (Mattern's counting method for
 * termination detection, with two waves): core/remote.c counts the
 * messages this process sent to others and those it received from them
 * (a rendezvous message's data, taken by the receiver, counts as one
 * more message back), and what of it is still in the engine's hands and
 * could wake a rank (busy: an eager send UCX has not finished, a fetch).
 * A process is locally quiescent when every rank is suspended (or all
 * have ended) and nothing is busy.
 *
 * Process 0's check thread, once its own process has been quiescent for
 * a few samples, sends a wave of questions (control messages,
 * core/remote.h) to every other process; each answers from whichever
 * thread drives its network (the comm thread, when the workers sleep),
 * at once and without a worker, so answering leaves a quiescent process
 * quiescent. The answer: locally quiescent or not, the scheduler's
 * wake-up epoch, sent, received, whether a rank waits. The job is deadlocked when two
 * waves in a row find
 *   - every process quiescent and some rank waiting;
 *   - each process's epoch, sent and received the same in both;
 *   - the sum of sent equal to the sum of received.
 * Why that is never a job that is merely slow. Take a moment T between
 * the last answer of the first wave and the first answer of the second.
 * Each process was quiescent at both its answers with the same epoch,
 * so no worker ran between them (a worker woken in between is still
 * awake at the second answer, or went back to sleep and moved the
 * epoch), its counts did not move, and nothing of it was busy at either
 * answer (a busy operation starts only from a rank or from a counted
 * arrival): at T none of its ranks runs, none of its operations that
 * could wake one is under way, and only a message could wake one. Each
 * message is counted sent before it can arrive, and received once; so
 * at T the messages in flight number sum(sent) - sum(received) = 0.
 * Nothing runs and nothing is on its way: nothing can ever happen. A
 * rank computing or sleeping keeps its worker awake; a message in flight
 * keeps the sums apart; a transfer under way is busy on its receiver's
 * side.
 *
 * A process whose ranks all ended waits for the others' (rank_start.c)
 * and counts as quiescent with nothing waiting meanwhile: a rank of
 * another process may wait for one of its ranks forever.
 *
 * Answers need the network watched: process 0 awaits them
 * (myr_remote_control_await_begin), so its comm thread watches; a process
 * whose ranks await nothing from the network sees the question when its
 * comm thread's nap ends (at most 50 ms, net.h), or when its check thread
 * next polls the network (myr_quiescence_listen, every sample while the
 * process is quiescent: the bound then holds whatever the comm thread's
 * sleeping). A wave not answered by every process within
 * WAVE_TIMEOUT_MS finds the job active.
 *
 * The report of a deadlock (watchdog.c): process 0 prints the first line
 * and its ranks, then asks each other process in turn to print its own
 * (its check thread does, then answers), so the lines come in rank order.
 */
#include "launch/quiescence.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/p2p.h"
#include "core/remote.h"
#include "net/net.h"

#define WAVE_TIMEOUT_MS 2000
#define REPORT_TIMEOUT_MS 5000

/* The control messages (core/remote.h): their first byte. */
enum { ASK = 1, STATE, REPORT, REPORTED };

typedef struct question {
    uint8_t what;            /* ASK, REPORT, REPORTED */
    uint8_t unused[3];
    uint32_t wave;
} question;

typedef struct state {
    uint8_t what;            /* STATE; 0 in a wave's table: no answer yet */
    uint8_t quiescent;
    uint8_t waiting;         /* some rank of the process waits */
    uint8_t unused;
    uint32_t wave;
    uint64_t epoch, sent, received;
} state;
_Static_assert(sizeof(state) <= MYR_REMOTE_CONTROL_MAX, "a state fits a control message");

static struct {
    bool started, checking;
    int nprocs;
    void (*asked_to_report)(void);
    atomic_bool ranks_ended;
    atomic_bool report_asked;
    /* Process 0's: the waves, under `lock` (the answers come in on the
     * driving thread). */
    pthread_mutex_t lock;
    pthread_cond_t answered;
    bool stopping;
    uint32_t wave;
    int answers;
    state *now, *before;     /* per process: this wave's answers, the last one's */
    bool before_quiescent;   /* the last wave found the job quiescent */
    int reported;            /* the last process that said its report is out */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .answered = PTHREAD_COND_INITIALIZER,
       .reported = -1};

static bool some_rank_waits(void)
{
    for (int i = 0; i < myr_the_job.local; i++)
        if (atomic_load(&myr_the_job.ranks[i].waiting_kind) != MYR_WAIT_NONE)
            return true;
    return false;
}

/* This process's answer. The counts first: whatever moves after them
 * moves the epoch or the counts by the next wave. */
static void local_state(state *s)
{
    myr_remote_traffic t;
    myr_remote_traffic_read(&t);
    unsigned long epoch;
    bool idle = myr_sched_quiescent(&epoch);
    bool ended = atomic_load(&q.ranks_ended);
    *s = (state){.what = STATE,
                 .quiescent = q.checking && t.busy <= 0 && (idle || ended),
                 .waiting = !ended && some_rank_waits(),
                 .epoch = epoch, .sent = t.sent, .received = t.received};
}

bool myr_quiescence_local(unsigned long *epoch)
{
    if (!myr_the_job.multiprocess)
        return myr_sched_quiescent(epoch) && some_rank_waits();
    state s;
    local_state(&s);
    *epoch = s.epoch;
    return s.quiescent;
}

void myr_quiescence_listen(void)
{
    unsigned long epoch;
    if (q.checking && myr_quiescence_local(&epoch))
        myr_remote_poll();
}

/* On the driving thread: short, never blocking for long. */
static void on_control(int proc, const void *msg, size_t len)
{
    question m = {0};
    memcpy(&m, msg, len < sizeof m ? len : sizeof m);
    switch (m.what) {
    case ASK: {
        state s;
        local_state(&s);
        s.wave = m.wave;
        if (myr_remote_control_send(proc, &s, sizeof s) != 0)
            fprintf(stderr, "myriad: process %d: out of memory answering the deadlock "
                    "check\n", myr_net_the_place.proc);
        break;
    }
    case STATE: {
        state s;
        if (len < sizeof s || proc <= 0 || proc >= q.nprocs)
            break;
        memcpy(&s, msg, sizeof s);
        pthread_mutex_lock(&q.lock);
        /* A late answer to an earlier wave is dropped. */
        if (q.now && s.wave == q.wave && q.now[proc].what == 0) {
            q.now[proc] = s;
            if (++q.answers == q.nprocs)
                pthread_cond_signal(&q.answered);
        }
        pthread_mutex_unlock(&q.lock);
        break;
    }
    case REPORT:
        atomic_store(&q.report_asked, true);
        if (q.asked_to_report)
            q.asked_to_report();
        break;
    case REPORTED:
        pthread_mutex_lock(&q.lock);
        q.reported = proc;
        pthread_cond_signal(&q.answered);
        pthread_mutex_unlock(&q.lock);
        break;
    default:
        break;
    }
}

int myr_quiescence_start(bool checking, void (*asked_to_report)(void))
{
    if (!myr_the_job.multiprocess || q.started)
        return 0;
    q.checking = checking;
    q.asked_to_report = asked_to_report;
    q.nprocs = myr_net_the_place.nprocs;
    if (myr_net_the_place.proc == 0) {
        q.now = calloc((size_t)q.nprocs, sizeof *q.now);
        q.before = calloc((size_t)q.nprocs, sizeof *q.before);
        if (!q.now || !q.before) {
            fprintf(stderr, "myriad: out of memory for the deadlock check\n");
            return -1;
        }
    }
    q.started = true;
    myr_remote_control_handle(on_control);
    return 0;
}

void myr_quiescence_stop(void)
{
    pthread_mutex_lock(&q.lock);
    q.stopping = true;
    pthread_cond_broadcast(&q.answered);
    pthread_mutex_unlock(&q.lock);
}

void myr_quiescence_ranks_ended(void)
{
    atomic_store(&q.ranks_ended, true);
}

static struct timespec deadline_in(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Under q.lock, every answer in: is the job quiescent by this wave, and
 * did nothing move since the last? */
static myr_job_quiescence judge_wave(void)
{
    bool quiescent = true, waiting = false;
    unsigned long long sent = 0, received = 0;
    for (int p = 0; p < q.nprocs; p++) {
        quiescent = quiescent && q.now[p].quiescent;
        waiting = waiting || q.now[p].waiting;
        sent += q.now[p].sent;
        received += q.now[p].received;
    }
    if (!quiescent || !waiting || sent != received) {
        q.before_quiescent = false;
        return MYR_JOB_ACTIVE;
    }
    bool unchanged = q.before_quiescent;
    for (int p = 0; p < q.nprocs && unchanged; p++)
        unchanged = q.now[p].epoch == q.before[p].epoch &&
                    q.now[p].sent == q.before[p].sent &&
                    q.now[p].received == q.before[p].received;
    state *swap = q.before;
    q.before = q.now;
    q.now = swap;
    q.before_quiescent = true;
    return unchanged ? MYR_JOB_DEADLOCKED : MYR_JOB_QUIET_ONCE;
}

myr_job_quiescence myr_quiescence_wave(void)
{
    /* Our own state before the questions go: this thread's sends are
     * then not under way while it reads. */
    state own;
    local_state(&own);
    pthread_mutex_lock(&q.lock);
    uint32_t wave = ++q.wave;
    memset(q.now, 0, (size_t)q.nprocs * sizeof *q.now);
    own.wave = wave;
    q.now[0] = own;
    q.answers = 1;
    pthread_mutex_unlock(&q.lock);

    myr_remote_control_await_begin();
    question ask = {.what = ASK, .wave = wave};
    bool asked = true;
    for (int p = 1; p < q.nprocs; p++)
        asked = asked && myr_remote_control_send(p, &ask, sizeof ask) == 0;
    struct timespec until = deadline_in(WAVE_TIMEOUT_MS);
    pthread_mutex_lock(&q.lock);
    while (asked && !q.stopping && q.answers < q.nprocs &&
           pthread_cond_timedwait(&q.answered, &q.lock, &until) != ETIMEDOUT)
        ;
    myr_job_quiescence verdict = MYR_JOB_ACTIVE;
    if (asked && !q.stopping && q.answers == q.nprocs)
        verdict = judge_wave();
    else
        q.before_quiescent = false;
    q.wave++;   /* answers still on their way are dropped */
    pthread_mutex_unlock(&q.lock);
    myr_remote_control_await_end();
    return verdict;
}

bool myr_quiescence_ask_report(int proc)
{
    pthread_mutex_lock(&q.lock);
    q.reported = -1;
    pthread_mutex_unlock(&q.lock);
    myr_remote_control_await_begin();
    question ask = {.what = REPORT};
    bool asked = myr_remote_control_send(proc, &ask, sizeof ask) == 0;
    struct timespec until = deadline_in(REPORT_TIMEOUT_MS);
    pthread_mutex_lock(&q.lock);
    while (asked && q.reported != proc &&
           pthread_cond_timedwait(&q.answered, &q.lock, &until) != ETIMEDOUT)
        ;
    bool reported = q.reported == proc;
    pthread_mutex_unlock(&q.lock);
    myr_remote_control_await_end();
    return reported;
}

bool myr_quiescence_report_asked(void)
{
    return atomic_load(&q.report_asked);
}

void myr_quiescence_report_done(void)
{
    question done = {.what = REPORTED};
    (void)myr_remote_control_send(0, &done, sizeof done);
}
