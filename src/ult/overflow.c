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
 * with 128 + the signal number, as a shell reports a death by that signal.
 * backtrace() is not formally async-signal-safe: it is called once at
 * install time so that its one-time loading of libgcc_s is done.
 */
#include "ult/internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <spawn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/diag.h"

static struct sigaction previous_segv, previous_bus, previous_fpe, previous_ill, previous_abrt;
static int installed;

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

_Noreturn void myr_overflow_canary(const myr_ult *u)
{
    report_canary(u);
    signal(SIGABRT, SIG_DFL);
    abort();
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
    default: return "aborted (abort(), or a failed assert)";
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
    myr_diag_str(&b, "myriad: ending the job (exit status ");
    myr_diag_ulong(&b, 128u + (unsigned)sig);
    myr_diag_str(&b, ")\n");
    myr_diag_flush(&b);
    _exit(128 + sig);
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

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    myr_worker *w = myr_worker_current();
    const myr_ult *u = w ? w->current : NULL;
    if (u && u->stack) {
        const myr_stack *s = u->stack;
        uintptr_t lo = (uintptr_t)s->lo, floor = (uintptr_t)s->floor;
        uintptr_t sp = fault_sp(uctx), addr = (uintptr_t)si->si_addr;
        if (myr_stack_in_guard(s, si->si_addr) ||
            (sp < lo && (lo - sp < ((uintptr_t)64 << 20) || sp >= floor)) ||
            (!s->guard && addr < lo && addr >= floor)) {
            report_overflow(u, si->si_addr);
            signal(SIGABRT, SIG_DFL);
            abort();
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
