/*
 * program_main.c — linked into every MPI program (libmyriad_main.a, with
 * -Wl,--wrap=__libc_start_main): the C runtime's start (crt1's _start)
 * hands the program's main to glibc's __libc_start_main; it lands here
 * instead, and the launcher in libmyriad runs that main once per rank.
 *
 * Why the start and not main itself (--wrap=main, as before): _start's
 * reference to main then stays a reference to main, the first one the
 * linker sees, so main is found wherever it is: in an object, in a static
 * archive (its member is pulled), in a shared library (kept under
 * --as-needed), in LTO code. With --wrap=main nothing asked for main until
 * the stub's __real_main, after the program's archives and libraries.
 *
 * Kept to this one function and no data, so that the program's writable
 * globals are all the program's own (MYR_PRIVATIZE=auto looks at them) and
 * private copies of the program carry nothing of the runtime.
 */
#include "launch/launch.h"

/* glibc's, under its own name (--wrap renames references). */
extern int __real___libc_start_main(myr_program_main main, int argc, char **argv,
                                    void (*init)(void), void (*fini)(void),
                                    void (*rtld_fini)(void), void *stack_end);

/* Defined by the C runtime's crtbegin in every executable and shared
 * object: the identity atexit and C++ static destructors register with. */
extern void *__dso_handle __attribute__((visibility("hidden")));

int __wrap___libc_start_main(myr_program_main main, int argc, char **argv,
                             void (*init)(void), void (*fini)(void),
                             void (*rtld_fini)(void), void *stack_end)
{
    const myr_program program = {main, __dso_handle};
    const myr_libc_start start = {__real___libc_start_main, init, fini, rtld_fini,
                                  stack_end};
    return myr_launch_main(&program, &start, argc, argv);
}
