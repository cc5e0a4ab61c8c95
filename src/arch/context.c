/* context.c — building the first frame of a new context (see context.h). */
#include "context.h"

#include <stdint.h>
#include <string.h>

#ifdef MYR_SANITIZE
#include <sanitizer/asan_interface.h>
#endif

void myr_context_trampoline(void);

void myr_context_make(myr_context *ctx, void *stack_lo, size_t size,
                      myr_context_fn entry, void *arg)
{
#ifdef MYR_SANITIZE
    /* The memory may have been a stack whose frames were abandoned (a
     * context never resumed keeps its redzones poisoned, even across
     * munmap/mmap). Its old contents are dead. */
    ASAN_UNPOISON_MEMORY_REGION(stack_lo, size);
#endif
    uintptr_t top = ((uintptr_t)stack_lo + size) & ~(uintptr_t)15;
#if defined(__x86_64__)
    /* 64-byte frame as pushed by myr_context_switch, plus 16 bytes so that
     * the trampoline's call happens with a 16-byte aligned stack. */
    uint64_t *frame = (uint64_t *)(top - 80);
    memset(frame, 0, 80);
    uint32_t fp_control[2] = {0x1F80u /* MXCSR: all exceptions masked */,
                              0x037Fu /* x87: extended precision, masked */};
    memcpy(&frame[0], fp_control, sizeof fp_control);
    frame[3] = (uint64_t)(uintptr_t)arg;    /* r13 */
    frame[4] = (uint64_t)(uintptr_t)entry;  /* r12 */
    frame[7] = (uint64_t)(uintptr_t)myr_context_trampoline;
#elif defined(__aarch64__)
    uint64_t *frame = (uint64_t *)(top - 176);
    memset(frame, 0, 176);
    frame[0] = (uint64_t)(uintptr_t)entry;  /* x19 */
    frame[1] = (uint64_t)(uintptr_t)arg;    /* x20 */
    frame[11] = (uint64_t)(uintptr_t)myr_context_trampoline;  /* x30 */
    /* FPCR 0: round to nearest, no traps, no flush-to-zero. */
#else
#error "Myriad supports x86_64 and aarch64"
#endif
    ctx->sp = frame;
}
