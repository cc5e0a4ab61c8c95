/*
 * context.h — machine contexts and the switch between them.
 *
 * A context is just a saved stack pointer: switching pushes the registers
 * the ABI requires a callee to preserve (x86_64 System V: rbx, rbp, r12-r15,
 * MXCSR control bits and the x87 control word; aarch64 AAPCS64: x19-x30,
 * d8-d15 and FPCR) onto the current stack, stores the stack pointer into
 * `from`, loads `to`'s stack pointer and pops the same frame. Caller-saved
 * registers are the compiler's business, so nothing else is saved.
 *
 * myr_context_switch_cb additionally calls cb(arg) on the *new* stack after
 * the old context is completely saved and before the new one is restored.
 * That is the one safe moment to publish the old context (push it on a
 * ready queue, release a lock): before it, another worker could resume a
 * context whose registers are still being saved; after it, we would be
 * running the new context already.
 */
#ifndef MYR_ARCH_CONTEXT_H
#define MYR_ARCH_CONTEXT_H

#include <stddef.h>

typedef struct myr_context {
    void *sp;  /* saved stack pointer; the frame below it holds registers */
} myr_context;

typedef void (*myr_context_fn)(void *arg);

/* Used only inside libmyriad (and by programs linking its objects
 * statically): hidden, so the ULT layer calls them directly, not through
 * the PLT. */
#pragma GCC visibility push(hidden)

void myr_context_switch(myr_context *from, const myr_context *to);
void myr_context_switch_cb(myr_context *from, const myr_context *to,
                           myr_context_fn cb, void *arg);

/* Prepare `ctx` so that the first switch to it calls entry(arg) on the stack
 * [stack_lo, stack_lo + size), with the default FP control state. `entry`
 * must never return (it switches away for good instead). */
void myr_context_make(myr_context *ctx, void *stack_lo, size_t size,
                      myr_context_fn entry, void *arg);

#pragma GCC visibility pop

#endif
