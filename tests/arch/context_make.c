/* context_make.c — what a context made by myr_context_make looks like when
 * it first runs: its argument, its stack, the ABI's stack alignment, and an
 * outermost frame that debuggers and unwinders can recognise.
 * Usage: context_make CASE. */
#include <execinfo.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch_test.h"

static myr_context origin, peer;

/* What the new context saw at entry. */
static void *entry_arg;
static void *entry_sp;
static int entry_runs;

static void observing_entry(void *arg)
{
    entry_sp = myr_test_stack_pointer();
    entry_arg = arg;
    entry_runs++;
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* The entry function is called once, with the argument given to make. */
static void new_context_receives_its_argument(void)
{
    int token;
    myr_stack *s = test_context_start(&peer, observing_entry, &token);
    CHECK(entry_runs == 0);
    myr_context_switch(&origin, &peer);
    CHECK(entry_runs == 1);
    CHECK(entry_arg == &token);
    myr_stack_destroy(s);
}

/* The entry function runs near the top of the given stack. */
static void new_context_runs_on_its_stack(void)
{
    myr_stack *s = test_context_start(&peer, observing_entry, NULL);
    myr_context_switch(&origin, &peer);
    CHECK(test_on_stack(s, entry_sp));
    CHECK((char *)myr_stack_top(s) - (char *)entry_sp < 1024);
    myr_stack_destroy(s);
}

/* ---- alignment -------------------------------------------------------- */

typedef float vec4 __attribute__((vector_size(16)));
static int aligned_runs;

static void aligned_entry(void *arg)
{
    (void)arg;
    /* The stack pointer at a call is 16-byte aligned... */
    void *sp = myr_test_stack_pointer();
    if ((uintptr_t)sp % 16 != 0) {
        /* stdio itself may need the alignment: say it with write(2). */
        static const char msg[] = "misaligned stack pointer in new context\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        CHECK((uintptr_t)sp % 16 == 0);
    }
    /* ...so instructions that need it work (x86_64: movaps), and so do
     * 16-byte aligned locals and vector temporaries. */
    myr_test_aligned_stack_store();
    volatile vec4 v = {1, 2, 3, 4};
    v = v * v;
    CHECK(v[3] == 16);
    char local __attribute__((aligned(16)));
    CHECK((uintptr_t)&local % 16 == 0);
    aligned_runs++;
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* A new context starts with the ABI's 16-byte stack alignment, whatever
 * the alignment of the end of the area it was given. */
static void new_context_stack_is_16_byte_aligned(void)
{
    /* A fresh stack each time, all unmapped only at the end: under
     * AddressSanitizer the abandoned frames of a run leave redzones
     * poisoned in the shadow of their stack, even after munmap. */
    myr_stack *s[16];
    for (size_t cut = 0; cut < 16; cut++) {
        s[cut] = myr_stack_create(TEST_STACK_SIZE);
        CHECK(s[cut] != NULL);
        size_t size = (size_t)((char *)myr_stack_top(s[cut]) - (char *)s[cut]->lo);
        myr_context_make(&peer, s[cut]->lo, size - cut, aligned_entry, NULL);
        myr_context_switch(&origin, &peer);
    }
    for (size_t cut = 0; cut < 16; cut++)
        myr_stack_destroy(s[cut]);
    CHECK(aligned_runs == 16);
}

/* ---- the outermost frame ---------------------------------------------- */

static void returning_entry(void *arg)
{
    (void)arg;
}

/* An entry function must not return; if it does, the context traps at
 * once (x86_64: ud2, SIGILL; aarch64: brk, SIGTRAP) instead of running
 * whatever lies above the stack. */
static void entry_that_returns_traps(void)
{
#if defined(__x86_64__)
    const int expected = SIGILL;
#else
    const int expected = SIGTRAP;
#endif
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(expected, SIG_DFL);
        myr_stack *s = test_context_start(&peer, returning_entry, NULL);
        myr_context_switch(&origin, &peer);
        (void)s;
        _exit(0);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != expected)
        fprintf(stderr, "child: %s %d, expected signal %d\n",
                WIFSIGNALED(status) ? "signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                expected);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == expected);
}

void myr_context_trampoline(void);  /* in src/arch/context_*.S */

static int frames;
static void *outermost;

static void backtrace_entry(void *arg)
{
    (void)arg;
    void *pcs[64];
    frames = backtrace(pcs, 64);
    outermost = frames > 0 ? pcs[frames - 1] : NULL;
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* A backtrace taken in a context ends cleanly in myr_context_trampoline,
 * the first code every context runs, instead of wandering off the top of
 * the stack. */
static void backtrace_ends_at_trampoline(void)
{
    myr_stack *s = test_context_start(&peer, backtrace_entry, NULL);
    myr_context_switch(&origin, &peer);
    uintptr_t tramp = (uintptr_t)myr_context_trampoline;
    if (!((uintptr_t)outermost > tramp && (uintptr_t)outermost < tramp + 32))
        fprintf(stderr, "%d frames, outermost pc %p, trampoline at %p\n",
                frames, outermost, (void *)tramp);
    CHECK(frames >= 2 && frames < 8);
    CHECK((uintptr_t)outermost > tramp && (uintptr_t)outermost < tramp + 32);
    myr_stack_destroy(s);
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"new_context_receives_its_argument", new_context_receives_its_argument},
        {"new_context_runs_on_its_stack", new_context_runs_on_its_stack},
        {"new_context_stack_is_16_byte_aligned",
         new_context_stack_is_16_byte_aligned},
        {"entry_that_returns_traps", entry_that_returns_traps},
        {"backtrace_ends_at_trampoline", backtrace_ends_at_trampoline},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
