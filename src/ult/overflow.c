/*
 * overflow.c — turn a hit on a ULT's guard page into a report.
 *
 * Each worker has an alternate signal stack (the faulting stack is by
 * definition unusable). On SIGSEGV/SIGBUS the handler asks: is the fault
 * address in the guard page of the ULT this worker runs, or is that ULT's
 * stack pointer below its stack? If so it names the ULT, its stack size
 * and MYR_STACK_SIZE, and aborts. Any other fault goes to the handler that
 * was installed before ours (or the default action) by re-raising it.
 * Everything the handler calls is async-signal-safe.
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

static void report_overflow(const myr_ult *u, const void *addr)
{
    myr_diag_buf b = {.len = 0};
    myr_diag_str(&b, "myriad: stack overflow in ");
    if (u->name[0]) {
        myr_diag_str(&b, u->name);
        myr_diag_str(&b, " (ULT ");
        myr_diag_ulong(&b, u->id);
        myr_diag_str(&b, ")");
    } else {
        myr_diag_str(&b, "ULT ");
        myr_diag_ulong(&b, u->id);
    }
    myr_diag_str(&b, " on worker ");
    myr_diag_ulong(&b, (unsigned long)u->worker->index);
    myr_diag_str(&b, ": access at ");
    myr_diag_hex(&b, (unsigned long)(uintptr_t)addr);
    myr_diag_str(&b, " is below its ");
    myr_diag_ulong(&b, u->stack->size);
    myr_diag_str(&b, "-byte stack (");
    put_size(&b, u->stack->size);
    myr_diag_str(&b, ").\nmyriad: raise the stack size with the environment "
                     "variable MYR_STACK_SIZE, e.g. MYR_STACK_SIZE=");
    put_size(&b, u->stack->size * 4);
    myr_diag_str(&b, "\n");
    myr_diag_flush(&b);
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    myr_worker *w = myr_worker_current();
    const myr_ult *u = w ? w->current : NULL;
    if (u && u->stack) {
        uintptr_t lo = (uintptr_t)u->stack->lo;
        uintptr_t sp = fault_sp(uctx);
        if (myr_stack_in_guard(u->stack, si->si_addr) ||
            (sp < lo && lo - sp < ((uintptr_t)64 << 20))) {
            report_overflow(u, si->si_addr);
            signal(SIGABRT, SIG_DFL);
            abort();
        }
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
