/*
 * overflow.c — turn a stack overflow into a report: a hit on a guard page,
 * or a damaged canary.
 *
 * Each worker has an alternate signal stack (the faulting stack is by
 * definition unusable). On SIGSEGV/SIGBUS the handler asks: is the fault
 * address in the guard page of the ULT this worker runs, or is that ULT's
 * stack pointer below its stack? If so it names the ULT, its stack size
 * and MYR_STACK_SIZE, and aborts. A canary stack has no guard page of its
 * own: its runaway overflow faults on the nearest guard page below (after
 * running through the stacks in between), so for it the handler looks down
 * to that page, and it also reports a fault of a ULT whose canary is
 * damaged. Any other fault goes to the handler that was installed before
 * ours (or the default action) by re-raising it. Everything the handler
 * calls is async-signal-safe.
 *
 * The scheduler checks canaries when a ULT switches out or ends
 * (myr_canary_check, internal.h) and calls myr_overflow_canary.
 *
 * Crash reports. Any other SIGSEGV or SIGBUS, and SIGFPE, SIGILL and
 * SIGABRT, that the program had left at their default action (a sanitizer's
 * or the program's own handler keeps its signal) end the job with a report
 * instead of a bare core dump: which ULT (an MPI rank's is named "MPI rank
 * N"), the signal and its cause, and a backtrace of the ULT's own stack
 * (glibc's backtrace unwinds through the signal frame into it; the entry
 * trampoline ends the unwinding, arch/context_*.S). Then the process exits
 * with 128 + the signal number, as a shell reports a death by that signal;
 * a stack overflow with 139, the status of a process whose stack overflows
 * (SIGSEGV), whether a guard page or a canary caught it.
 * backtrace() is not formally async-signal-safe: it is called once at
 * install time so that its one-time loading of libgcc_s is done.
 *
 * Ending the job (myr_job_end_*, also used by the deadlock check, the time
 * limit and MPI_Abort): see the section below for how the output that
 * stdio still holds gets out.
 */
#include "ult/internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <spawn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/probe.h"
#include "base/diag.h"

static struct sigaction previous_segv, previous_bus, previous_fpe, previous_ill, previous_abrt;
static int installed;

/* ---- ending the job on a fatal path ----------------------------------------
 *
 * Every fatal path ends the process with _exit, which skips stdio's exit
 * flush: with stdout a file or a pipe (fully buffered) all that the ranks
 * printed would be lost. So what stdio holds is written out first. The
 * difficulty is the FILE locks. glibc's are recursive by owning kernel
 * thread, so
 *  - one held by this thread (it crashed inside printf, or another ULT of
 *    this worker was switched out inside a stdio call) is taken again at
 *    once; the stream may be half-updated, and a fault while flushing it
 *    comes back to myr_job_end_begin, which then ends the process at once;
 *  - one held by another thread is normally let go within microseconds,
 *    but never by a thread stopped for good (a second crash parked in its
 *    handler, a worker frozen for a report), and not while its holder is
 *    blocked in write(2) on a pipe that nobody reads.
 * Hence stdout, stderr and the hook's output (mpiexec -l) first, each lock
 * tried until a short deadline and the stream skipped if it stays taken;
 * then, where asked, fflush(NULL) for every other stream, which waits on
 * locks. Both run under an alarm that ends the process with its status and
 * its line if anything blocks, so a fatal end never hangs. No thread is
 * created: that is not possible from a signal handler. */

#define FLUSH_TRY_S 0.5   /* per phase: how long a stream's lock is tried */
#define END_BACKSTOP_S 3  /* below mpiexec's grace for a time limit's report */

static _Atomic long end_owner;      /* kernel thread ending the job; 0: none */
static int end_status;
static myr_diag_buf end_line;       /* "myriad: job ended because ..." or empty */
static void (*_Atomic end_flush_hook)(double deadline);

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static _Noreturn void end_now(void)
{
    myr_diag_flush(&end_line);
    _exit(end_status);
}

static void on_backstop(int sig)
{
    (void)sig;
    end_now();
}

/* Another thread ends the job: stay out of its way until it does. */
static _Noreturn void park_forever(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;)
        pause();
}

void myr_job_end_begin(int status, const char *reason)
{
    long me = (long)syscall(SYS_gettid), none = 0;
    if (!atomic_compare_exchange_strong(&end_owner, &none, me)) {
        if (none == me)
            end_now();   /* a fault while this thread ends the job */
        park_forever();
    }
    end_status = status;
    end_line.len = 0;
    if (reason) {
        myr_diag_str(&end_line, "myriad: job ended because ");
        myr_diag_str(&end_line, reason);
        myr_diag_str(&end_line, " (exit status ");
        myr_diag_ulong(&end_line, (unsigned long)status);
        myr_diag_str(&end_line, ")\n");
    }
}

void myr_job_end_set_flush_hook(void (*hook)(double deadline))
{
    atomic_store(&end_flush_hook, hook);
}

/* The alarm is process-directed: it reaches this thread (unblocked here)
 * or any other that does not block it, and either way ends the process. */
static void arm_backstop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_backstop;
    sigfillset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
    alarm(END_BACKSTOP_S);
}

static void flush_stream(FILE *f, double deadline)
{
    while (ftrylockfile(f) != 0) {
        if (mono_now() >= deadline)
            return;   /* its holder does not let go: skip it */
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    fflush_unlocked(f);
    funlockfile(f);
}

void myr_job_end_flush(bool all)
{
    arm_backstop();
    double deadline = mono_now() + FLUSH_TRY_S;
    void (*hook)(double) = atomic_load(&end_flush_hook);
    if (hook)
        hook(deadline);
    flush_stream(stdout, deadline);
    flush_stream(stderr, deadline);
    if (all)
        fflush(NULL);
    alarm(0);
}

_Noreturn void myr_job_end(bool flush_all)
{
    if (flush_all)
        myr_job_end_flush(true);
    end_now();
}

/* Freezing the workers for a report (the time limit): a signal parks each
 * one in a handler that never returns. SIGURG because its default is to
 * be ignored and programs rarely use it; the job ends right after, so
 * taking it over does no harm. */
#define FREEZE_SIGNAL SIGURG
#define FREEZE_WAIT_S 0.2

static _Atomic int frozen_workers;

static void on_freeze(int sig)
{
    (void)sig;
    atomic_fetch_add(&frozen_workers, 1);
    for (;;)
        pause();   /* every signal is blocked here (sa_mask) */
}

bool myr_sched_freeze(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_freeze;
    sa.sa_flags = SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    if (sigaction(FREEZE_SIGNAL, &sa, NULL) != 0)
        return false;
    int sent = 0;
    for (int i = 0; i < myr_rt.nworkers; i++) {
        /* Worker 0 is the thread that started the runtime. */
        pthread_t t = i == 0 ? myr_rt.main_thread : myr_rt.workers[i].thread;
        if (pthread_kill(t, FREEZE_SIGNAL) == 0)
            sent++;
    }
    double deadline = mono_now() + FREEZE_WAIT_S;
    while (atomic_load(&frozen_workers) < sent && mono_now() < deadline)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return sent == myr_rt.nworkers && atomic_load(&frozen_workers) == sent &&
           atomic_load(&myr_rt.externals_running) == 0;
}

static uintptr_t fault_sp(void *uctx)
{
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#endif
}

static void put_size(myr_diag_buf *b, size_t bytes)
{
    if (bytes % (1u << 20) == 0) {
        myr_diag_ulong(b, bytes >> 20);
        myr_diag_str(b, "M");
    } else {
        myr_diag_ulong(b, (bytes + 1023) >> 10);
        myr_diag_str(b, "k");
    }
}

/* "stack overflow in MPI rank 7 (ULT 9) on worker 1" */
static void put_who(myr_diag_buf *b, const myr_ult *u)
{
    myr_diag_str(b, "myriad: stack overflow in ");
    if (u->name[0]) {
        myr_diag_str(b, u->name);
        myr_diag_str(b, " (ULT ");
        myr_diag_ulong(b, u->id);
        myr_diag_str(b, ")");
    } else {
        myr_diag_str(b, "ULT ");
        myr_diag_ulong(b, u->id);
    }
    myr_diag_str(b, " on worker ");
    myr_diag_ulong(b, (unsigned long)u->worker->index);
}

/* "65536-byte stack (64k)" */
static void put_stack(myr_diag_buf *b, const myr_stack *s)
{
    myr_diag_ulong(b, s->size);
    myr_diag_str(b, "-byte stack (");
    put_size(b, s->size);
    myr_diag_str(b, ")");
}

static void put_advice(myr_diag_buf *b, const myr_stack *s)
{
    myr_diag_str(b, "myriad: raise the stack size with the environment "
                    "variable MYR_STACK_SIZE, e.g. MYR_STACK_SIZE=");
    put_size(b, s->size * 4);
    if (s->guard) {
        myr_diag_str(b, "\n");
        return;
    }
    if (myr_rt.stack_guard == MYR_STACK_GUARD_NEVER) {
        myr_diag_str(b, ", or unset MYR_STACK_GUARD=never so that stacks get "
                        "guard pages\n");
        return;
    }
    myr_diag_str(b, ", or raise vm.max_map_count (");
    myr_diag_ulong(b, (unsigned long)myr_rt.max_map_count);
    myr_diag_str(b, " now: guard pages for ");
    myr_diag_ulong(b, (unsigned long)myr_stack_guard_budget(myr_rt.max_map_count));
    myr_diag_str(b, " live stacks, a quarter of it) so every stack gets a "
                    "guard page\n");
}

static void report_overflow(const myr_ult *u, const void *addr)
{
    myr_diag_buf b = {.len = 0};
    put_who(&b, u);
    myr_diag_str(&b, ": access at ");
    myr_diag_hex(&b, (unsigned long)(uintptr_t)addr);
    myr_diag_str(&b, " is below its ");
    put_stack(&b, u->stack);
    if (!u->stack->guard)
        myr_diag_str(&b, ", which has no guard page: the stacks below it may "
                         "be corrupted");
    myr_diag_str(&b, ".\n");
    myr_diag_flush(&b);
    put_advice(&b, u->stack);
    myr_diag_flush(&b);
}

static void report_canary(const myr_ult *u)
{
    myr_diag_buf b = {.len = 0};
    put_who(&b, u);
    myr_diag_str(&b, ": the lowest bytes of its ");
    put_stack(&b, u->stack);
    myr_diag_str(&b, " were overwritten, detected by canary; the stack below "
                     "it may be corrupted.\n");
    myr_diag_flush(&b);
    put_advice(&b, u->stack);
    myr_diag_flush(&b);
}

/* The text of a diag buffer as a C string (cut by a byte if full). */
static const char *diag_cstr(myr_diag_buf *b)
{
    if (b->len == sizeof b->text)
        b->len--;
    b->text[b->len] = '\0';
    return b->text;
}

/* An overflow ends the job with the status of a process whose stack
 * overflowed (SIGSEGV). */
static void begin_overflow_end(const myr_ult *u)
{
    myr_diag_buf why = {.len = 0};
    myr_diag_str(&why, "of a stack overflow in ");
    if (u->name[0]) {
        myr_diag_str(&why, u->name);
    } else {
        myr_diag_str(&why, "ULT ");
        myr_diag_ulong(&why, u->id);
    }
    myr_job_end_begin(128 + SIGSEGV, diag_cstr(&why));
    myr_job_end_flush(false);
}

_Noreturn void myr_overflow_canary(const myr_ult *u)
{
    begin_overflow_end(u);
    report_canary(u);
    myr_job_end(true);
}

static struct sigaction *previous_of(int sig)
{
    switch (sig) {
    case SIGSEGV: return &previous_segv;
    case SIGBUS: return &previous_bus;
    case SIGFPE: return &previous_fpe;
    case SIGILL: return &previous_ill;
    default: return &previous_abrt;
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "SIGABRT";
    }
}

static const char *signal_cause(int sig, const siginfo_t *si)
{
    switch (sig) {
    case SIGSEGV:
        return si->si_code == SEGV_ACCERR ? "invalid permissions for mapped object"
                                          : "invalid memory reference";
    case SIGBUS: return "bus error (misaligned or beyond the end of a mapped file)";
    case SIGFPE:
        switch (si->si_code) {
        case FPE_INTDIV: return "integer divide by zero";
        case FPE_INTOVF: return "integer overflow";
        case FPE_FLTDIV: return "floating-point divide by zero";
        default: return "arithmetic exception";
        }
    case SIGILL: return "illegal instruction";
    default: return "aborted (abort(), a failed assert or an uncaught C++ exception)";
    }
}

static uintptr_t fault_pc(void *uctx)
{
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#endif
}

extern char **environ;

/* addr2line's "function at file:line" for `offset` in the object at `path`
 * (written straight to stderr); false when it could not run. */
static bool symbolize(const char *path, uintptr_t offset)
{
    myr_diag_buf hex = {.len = 0};
    myr_diag_hex(&hex, offset);
    hex.text[hex.len] = '\0';
    char *argv[] = {"addr2line", "-C", "-f", "-i", "-p", "-e", (char *)path, hex.text, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return false;
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return false;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        continue;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* "  #2 ./prog+0x963: poke at prog.c:6". Return addresses (all frames but
 * the faulting one) are moved back into the call instruction. */
static void print_frame(int i, void *addr, bool is_return)
{
    uintptr_t a = (uintptr_t)addr - (is_return ? 1 : 0);
    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "  #");
    myr_diag_ulong(&b, (unsigned long)i);
    myr_diag_str(&b, " ");
    Dl_info info;
    if (!dladdr((void *)a, &info) || !info.dli_fname || !info.dli_fbase) {
        myr_diag_hex(&b, a);
        myr_diag_str(&b, "\n");
        myr_diag_flush(&b);
        return;
    }
    /* Shared objects and PIE programs are symbolised by offset. */
    const ElfW(Ehdr) *eh = info.dli_fbase;
    uintptr_t where = eh->e_type == ET_DYN ? a - (uintptr_t)info.dli_fbase : a;
    myr_diag_str(&b, info.dli_fname);
    myr_diag_str(&b, "+");
    myr_diag_hex(&b, where);
    myr_diag_str(&b, ": ");
    myr_diag_flush(&b);
    if (!symbolize(info.dli_fname, where)) {
        myr_diag_str(&b, info.dli_sname ? info.dli_sname : "??");
        myr_diag_str(&b, "\n");
        myr_diag_flush(&b);
    }
}

/* "myriad: MPI rank 3 (ULT 9) on worker 1 received SIGSEGV (invalid memory
 * reference at 0x0)", its backtrace, and the end of the process. */
static _Noreturn void report_crash(int sig, const siginfo_t *si, void *uctx)
{
    myr_worker *w = myr_worker_current();
    const myr_ult *u = w ? w->current : myr_tls_external;
    myr_diag_buf b = {.len = 0};
    if (u && u->name[0]) {
        myr_diag_str(&b, u->name);
    } else if (u) {
        myr_diag_str(&b, "ULT ");
        myr_diag_ulong(&b, u->id);
    } else {
        myr_diag_str(&b, "a thread outside any ULT");
    }
    myr_diag_str(&b, " received ");
    myr_diag_str(&b, signal_name(sig));
    /* The output the ranks wrote before the crash first, then the report. */
    myr_job_end_begin(128 + sig, diag_cstr(&b));
    myr_job_end_flush(false);
    b.len = 0;
    myr_diag_str(&b, "myriad: ");
    if (u && u->name[0]) {
        myr_diag_str(&b, u->name);
        myr_diag_str(&b, " (ULT ");
        myr_diag_ulong(&b, u->id);
        myr_diag_str(&b, ")");
    } else if (u) {
        myr_diag_str(&b, "ULT ");
        myr_diag_ulong(&b, u->id);
    } else {
        myr_diag_str(&b, "a thread outside any ULT");
    }
    if (u && u->worker) {
        myr_diag_str(&b, " on worker ");
        myr_diag_ulong(&b, (unsigned long)u->worker->index);
    } else if (u) {
        myr_diag_str(&b, " (a kernel thread it created)");
    }
    myr_diag_str(&b, " received ");
    myr_diag_str(&b, signal_name(sig));
    myr_diag_str(&b, " (");
    myr_diag_str(&b, signal_cause(sig, si));
    if (sig == SIGSEGV || sig == SIGBUS) {
        myr_diag_str(&b, " at ");
        myr_diag_hex(&b, (unsigned long)(uintptr_t)si->si_addr);
    }
    myr_diag_str(&b, ")\nmyriad: backtrace");
    if (u && u->name[0]) {
        myr_diag_str(&b, " of ");
        myr_diag_str(&b, u->name);
    }
    myr_diag_str(&b, " (innermost first):\n");
    myr_diag_flush(&b);
    void *frames[64];
    int n = backtrace(frames, 64);
    /* The handler's own frames and the signal trampoline come first: start
     * at the interrupted instruction. */
    int first = 0;
    uintptr_t pc = fault_pc(uctx);
    for (int i = 0; i < n; i++)
        if ((uintptr_t)frames[i] == pc) {
            first = i;
            break;
        }
    for (int i = first; i < n; i++)
        print_frame(i - first, frames[i], i > first);
    myr_job_end(true);
}

/* A signal we watch that is not a stack overflow: the program's (or a
 * sanitizer's) handler if one was there before us, else the report. */
static void not_an_overflow(int sig, siginfo_t *si, void *uctx)
{
    struct sigaction *prev = previous_of(sig);
    if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_DFL)
        report_crash(sig, si, uctx);
    /* Let the previous disposition handle it when the faulting
     * instruction runs again (for SIGABRT: when abort() raises it again). */
    sigaction(sig, prev, NULL);
}

/* A fault of a handle check's probe (arch/probe.h) is no crash: resume at
 * the probe's fixup, which reports an invalid handle. */
static bool probe_fixed_up(void *uctx)
{
    uintptr_t fixup = myr_probe_fixup(fault_pc(uctx));
    if (!fixup)
        return false;
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)fixup;
#elif defined(__aarch64__)
    uc->uc_mcontext.pc = fixup;
#endif
    return true;
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    if (probe_fixed_up(uctx))
        return;
    myr_worker *w = myr_worker_current();
    const myr_ult *u = w ? w->current : NULL;
    if (u && u->stack) {
        const myr_stack *s = u->stack;
        uintptr_t lo = (uintptr_t)s->lo, floor = (uintptr_t)s->floor;
        uintptr_t sp = fault_sp(uctx), addr = (uintptr_t)si->si_addr;
        if (myr_stack_in_guard(s, si->si_addr) ||
            (sp < lo && (lo - sp < ((uintptr_t)64 << 20) || sp >= floor)) ||
            (!s->guard && addr < lo && addr >= floor)) {
            begin_overflow_end(u);
            report_overflow(u, si->si_addr);
            myr_job_end(true);
        }
        if (!myr_stack_canary_intact(s))
            myr_overflow_canary(u);
    }
    not_an_overflow(sig, si, uctx);
}

static void on_crash(int sig, siginfo_t *si, void *uctx)
{
    not_an_overflow(sig, si, uctx);
}

int myr_overflow_install(void)
{
    if (installed)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous_segv) != 0 ||
        sigaction(SIGBUS, &sa, &previous_bus) != 0)
        return -1;
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    if (sigaction(SIGFPE, &sa, &previous_fpe) != 0 ||
        sigaction(SIGILL, &sa, &previous_ill) != 0 ||
        sigaction(SIGABRT, &sa, &previous_abrt) != 0)
        return -1;
    void *warm[1];
    backtrace(warm, 1);   /* loads libgcc_s now, not in a handler */
    installed = 1;
    return 0;
}

void myr_overflow_uninstall(void)
{
    if (!installed)
        return;
    sigaction(SIGSEGV, &previous_segv, NULL);
    sigaction(SIGBUS, &previous_bus, NULL);
    sigaction(SIGFPE, &previous_fpe, NULL);
    sigaction(SIGILL, &previous_ill, NULL);
    sigaction(SIGABRT, &previous_abrt, NULL);
    installed = 0;
}

/* Per-thread: an alternate stack for the handler. The previous one (the
 * sanitizers install their own) is restored by _fini. */
static __thread stack_t previous_altstack;

int myr_overflow_thread_init(myr_worker *w)
{
    size_t size = 64 * 1024;
    if (size < (size_t)SIGSTKSZ * 4)
        size = (size_t)SIGSTKSZ * 4;
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return -1;
    stack_t ss = {.ss_sp = mem, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, &previous_altstack) != 0) {
        munmap(mem, size);
        return -1;
    }
    w->altstack = mem;
    w->altstack_size = size;
    return 0;
}

void myr_overflow_thread_fini(myr_worker *w)
{
    if (!w->altstack)
        return;
    stack_t restore = previous_altstack;
    if (restore.ss_sp == NULL)
        restore.ss_flags = SS_DISABLE;
    sigaltstack(&restore, NULL);
    munmap(w->altstack, w->altstack_size);
    w->altstack = NULL;
}
