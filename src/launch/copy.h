/*
 * copy.h — loading a private copy of an executable into the process: for
 * the ranks of the program itself (privatize.c) and for the other programs
 * of an MPMD job (mpmd.c).
 *
 * A copy is the executable's file in a memfd, marked loadable by dlopen
 * (glibc refuses objects flagged as PIE executables), loaded with its own
 * data, bss and GOT. Then its code and read-only data are mapped from the
 * executable's file again (shared with every other mapping of it), its
 * writable pages made its own and the memfd emptied, so a copy costs about
 * its writable data. getopt's variables become the rank's own, and the
 * copy's instances of library objects that COPY relocations brought in
 * (code built -fPIE: stdout, std::cout, optind) are filled before its
 * initializers run.
 */
#ifndef MYR_LAUNCH_COPY_H
#define MYR_LAUNCH_COPY_H

#include <link.h>
#include <stdbool.h>

#include "launch/image.h"
#include "launch/privatize.h"

typedef struct myr_copy {
    void *handle;            /* dlopen's */
    struct link_map *map;    /* glibc's; l_addr is the copy's bias */
    int fd;                  /* the memfd, kept open: glibc would hand back
                              * an object already loaded from the same file */
} myr_copy;

/* Load a copy of `img` (inspected from the file open as `file_fd`) for the
 * rank(s) whose image is `ri`. per_rank: its getopt variables are ri's own
 * (ri->own); otherwise the ranks that share the copy read libc's, as the
 * program does. argc, argv: what its initializers get. `what` names it in
 * messages ("the program for rank 3"). Returns 0, or -1 after printing
 * why. */
int myr_copy_load(const myr_image *img, int file_fd, const char *what,
                  myr_rank_image *ri, bool per_rank, int argc, char **argv,
                  myr_copy *copy);

/* The program itself (loaded at `bias`) as rank `ri`'s image: its getopt
 * variables become ri's own, as in a copy. Returns 0, or -1 (errno). */
int myr_copy_adopt_program(const myr_image *img, myr_rank_image *ri,
                           unsigned long bias);

#endif
