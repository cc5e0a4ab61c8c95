/*
 * program_main.c — linked into every MPI program (libmyriad_main.a, with
 * -Wl,--wrap=main): the C runtime's call of main lands here, and the
 * launcher in libmyriad runs the program's own main once per rank.
 *
 * Kept to this one function and no data, so that the program's writable
 * globals are all the program's own (MYR_PRIVATIZE=auto looks at them) and
 * private copies of the program carry nothing of the runtime.
 */
#include "launch/launch.h"

/* The program's main, under its own name (--wrap=main renames references,
 * not the definition). */
extern int __real_main(int argc, char **argv, char **envp);

/* Defined by the C runtime's crtbegin in every executable and shared
 * object: the identity atexit and C++ static destructors register with. */
extern void *__dso_handle __attribute__((visibility("hidden")));

int __wrap_main(int argc, char **argv)
{
    const myr_program program = {__real_main, __dso_handle};
    return myr_launch_main(argc, argv, &program);
}
