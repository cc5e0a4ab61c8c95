/*
 * probe.h — read a word at an address that may not be readable, at the
 * cost of a plain load.
 *
 * MPI handles are pointers, and a program may pass anything as one (an
 * uninitialised variable, a freed handle, an integer). Checking a handle
 * means reading its object's magic word, and that read must not fault. A
 * range check before every read would cost the hot path; instead the read
 * is one ordinary load whose address is listed in a table (the section
 * myr_probe_table, as the Linux kernel lists its user-memory accesses).
 * When that load faults, the SIGSEGV/SIGBUS handler (ult/overflow.c) finds
 * the faulting instruction in the table and resumes at its fixup, which
 * yields 0: what a valid handle never holds. So valid handles pay nothing
 * more than before, and only a bad one pays for a signal.
 *
 * This relies on the runtime's fault handler being the one installed: a
 * program that installs its own SIGSEGV handler after MPI_Init gets the
 * fault in its handler instead.
 */
#ifndef MYR_ARCH_PROBE_H
#define MYR_ARCH_PROBE_H

#include <stdint.h>

/* One table entry: the load and its fixup, each as an offset from the
 * field (position-independent, so the table needs no relocation). */
typedef struct myr_probe_entry {
    int32_t load;
    int32_t fixup;
} myr_probe_entry;

/* The 32-bit word at p (any alignment), or 0 when p cannot be read. */
static inline uint32_t myr_probe_u32(const void *p)
{
    uint32_t v;
#if defined(__x86_64__)
    __asm__("1:\tmovl %1, %0\n"
            "2:\n"
            "\t.pushsection .text.myr_probe_fixup,\"ax\",@progbits\n"
            "3:\txorl %0, %0\n"
            "\tjmp 2b\n"
            "\t.popsection\n"
            "\t.pushsection myr_probe_table,\"a\",@progbits\n"
            "\t.balign 4\n"
            "\t.long 1b - ., 3b - .\n"
            "\t.popsection"
            : "=r"(v)
            : "m"(*(const uint32_t *)p));
#elif defined(__aarch64__)
    __asm__("1:\tldr %w0, %1\n"
            "2:\n"
            "\t.pushsection .text.myr_probe_fixup,\"ax\",%%progbits\n"
            "3:\tmov %w0, #0\n"
            "\tb 2b\n"
            "\t.popsection\n"
            "\t.pushsection myr_probe_table,\"a\",%%progbits\n"
            "\t.balign 4\n"
            "\t.long 1b - ., 3b - .\n"
            "\t.popsection"
            : "=r"(v)
            : "m"(*(const uint32_t *)p));
#else
#error "myr_probe_u32: no fault-safe load for this architecture"
#endif
    return v;
}

/* The linker's bounds of the table (weak: a program built from the lower
 * layers alone has no probe). */
extern const myr_probe_entry __start_myr_probe_table[]
    __attribute__((weak, visibility("hidden")));
extern const myr_probe_entry __stop_myr_probe_table[]
    __attribute__((weak, visibility("hidden")));

/* For the fault handler: where to resume when the instruction at `pc`
 * faulted, or 0 if it is not a probe. Async-signal-safe. */
static inline uintptr_t myr_probe_fixup(uintptr_t pc)
{
    for (const myr_probe_entry *e = __start_myr_probe_table; e < __stop_myr_probe_table; e++)
        if ((uintptr_t)&e->load + (intptr_t)e->load == pc)
            return (uintptr_t)&e->fixup + (intptr_t)e->fixup;
    return 0;
}

#endif
