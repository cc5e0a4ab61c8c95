/*
 * launch.h — how an MPI program starts, and what mpiexec and the launcher
 * agree on.
 *
 * mpiexec hands the job's shape to the program through the environment
 * (variables of the table in base/env.c): MYR_NRANKS, MYR_WORKERS,
 * MYR_TAG_OUTPUT, MYR_PRIVATIZE and MYR_VERBOSE. Both sides refuse the same
 * values, so a bad -n is caught by mpiexec with a message about -n rather
 * than by the program.
 *
 * A program built with mpicc is linked with -Wl,--wrap=__libc_start_main
 * and a small stub (tools/program_main.c): the C runtime's start hands the
 * program's main to the stub instead of glibc, and the stub hands it to
 * myr_launch_main() below, which lets glibc start the process as usual
 * with the launcher's entry as main.
 */
#ifndef MYR_LAUNCH_LAUNCH_H
#define MYR_LAUNCH_LAUNCH_H

/* Ranks in one job: well below INT_MAX, so rank arithmetic in int (sizes,
 * sums of ranks in long) cannot overflow. */
#define MYR_MAX_RANKS 100000000L

/* The job's exit status when every rank waits and none can go on
 * (watchdog.c); 124 is a time limit's, as with timeout(1). */
#define MYR_STATUS_DEADLOCK 85

/* C calling conventions let us pass argc, argv and envp whatever the
 * program's main declares. */
typedef int (*myr_program_main)(int argc, char **argv, char **envp);

/* What the stub knows about the program it is linked into. */
typedef struct myr_program {
    myr_program_main main;   /* the program's own main */
    void *dso_handle;        /* its __dso_handle: identifies its atexit
                              * handlers and static destructors */
} myr_program;

/* glibc's __libc_start_main and the rest of what the C runtime's start
 * gave it besides main, argc and argv. */
typedef int (*myr_libc_start_main)(myr_program_main main, int argc, char **argv,
                                   void (*init)(void), void (*fini)(void),
                                   void (*rtld_fini)(void), void *stack_end);
typedef struct myr_libc_start {
    myr_libc_start_main start_main;
    void (*init)(void), (*fini)(void), (*rtld_fini)(void);
    void *stack_end;
} myr_libc_start;

/* The stub's entry (its name is how mpiexec and MPMD jobs recognise a
 * Myriad MPI program): lets glibc start the process as usual, with the
 * launcher's entry as main, which starts the runtime and the job's ranks,
 * each running `program`'s main. Does not return: glibc exits with the
 * job's status. */
int myr_launch_main(const myr_program *program, const myr_libc_start *start,
                    int argc, char **argv);

#endif
