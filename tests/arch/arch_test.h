/* arch_test.h — what the arch tests share: probes written in assembly
 * (helpers_x86_64.S, helpers_aarch64.S) and contexts on guarded stacks. */
#ifndef MYR_TEST_ARCH_TEST_H
#define MYR_TEST_ARCH_TEST_H

#include <stdint.h>

#include "../check.h"
#include "arch/context.h"
#include "arch/stack.h"

/* The callee-saved registers myr_context_switch must preserve, in the order
 * of the bits of myr_test_call_keeping_regs's result. */
#if defined(__x86_64__)
#define TEST_CALLEE_SAVED_COUNT 6
#define TEST_CALLEE_SAVED_NAMES "rbx", "rbp", "r12", "r13", "r14", "r15"
#elif defined(__aarch64__)
#define TEST_CALLEE_SAVED_COUNT 19
#define TEST_CALLEE_SAVED_NAMES                                              \
    "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",    \
    "x29", "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"
#endif

/* Load values[i] into callee-saved register i, call fn(a0, a1, a2, a3),
 * and return a mask with bit i set if register i no longer holds values[i]
 * when fn returns. The caller's own registers are preserved, as the ABI
 * requires. fn is called with the ABI's stack alignment. */
uint64_t myr_test_call_keeping_regs(const uint64_t *values, void (*fn)(void),
                                    void *a0, void *a1, void *a2, void *a3);

/* The caller's stack pointer at the call. */
void *myr_test_stack_pointer(void);

/* Store to the stack with an instruction that needs the ABI's alignment
 * (x86_64: movaps, which faults on a misaligned address). */
void myr_test_aligned_stack_store(void);

/* The floating-point control state as one number. x86_64: MXCSR in bits
 * 0-31, the x87 control word in bits 32-47; aarch64: FPCR. */
uint64_t myr_test_fp_control_get(void);
void myr_test_fp_control_set(uint64_t control);

/* Per-test stack size: enough for stdio and the sanitizers. */
#define TEST_STACK_SIZE (256 * 1024)

/* Make `ctx` start entry(arg) on a new guarded stack; returns the stack. */
static inline myr_stack *test_context_start(myr_context *ctx,
                                            myr_context_fn entry, void *arg)
{
    myr_stack *s = myr_stack_create(TEST_STACK_SIZE);
    if (!s) {
        perror("myr_stack_create");
        exit(1);
    }
    myr_context_make(ctx, s->lo, (size_t)((char *)myr_stack_top(s) - (char *)s->lo),
                     entry, arg);
    return s;
}

/* Does addr lie in the usable part of s? */
static inline int test_on_stack(const myr_stack *s, const void *addr)
{
    return (const char *)addr >= (const char *)s->lo &&
           (const char *)addr < (const char *)myr_stack_top(s);
}

#endif
