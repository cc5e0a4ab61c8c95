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
 */
#include "ult/internal.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "base/diag.h"

static struct sigaction previous_segv, previous_bus;
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
    /* Not ours: let the previous disposition handle it when the faulting
     * instruction runs again. */
    sigaction(sig, sig == SIGSEGV ? &previous_segv : &previous_bus, NULL);
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
    installed = 1;
    return 0;
}

void myr_overflow_uninstall(void)
{
    if (!installed)
        return;
    sigaction(SIGSEGV, &previous_segv, NULL);
    sigaction(SIGBUS, &previous_bus, NULL);
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
