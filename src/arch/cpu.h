/* cpu.h — processor hints shared by the layers above. */
#ifndef MYR_ARCH_CPU_H
#define MYR_ARCH_CPU_H

/* Size that keeps hot shared fields on their own line (128 on both targets:
 * x86 prefetches pairs of 64-byte lines, many aarch64 cores use 128). */
#define MYR_CACHE_LINE 128
/* The unit caches move (64 bytes on both targets' common cores): what a
 * structure touched per operation should fit in, to cost one miss. */
#define MYR_FETCH_LINE 64

static inline void myr_cpu_relax(void)
{
#if defined(__x86_64__)
    __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
