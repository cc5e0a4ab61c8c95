/*
 * image.h — what the running program's ELF file says about privatization.
 *
 * Read once at start-up from the executable itself (/proc/self/exe): can a
 * private copy of it be loaded with dlopen (position-independent, no text
 * relocations, no COPY relocation of Myriad's own objects), does it define
 * writable globals of its own (what `MYR_PRIVATIZE=auto` decides on), how many memory mappings a
 * copy costs, and where the things a copy must have patched are.
 */
#ifndef MYR_LAUNCH_IMAGE_H
#define MYR_LAUNCH_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MYR_IMAGE_MAX_LOADS 16
#define MYR_IMAGE_NAMED_GLOBALS 4   /* names kept for messages */

typedef struct myr_image_load {
    uint64_t vaddr, memsz;   /* in the image */
    uint64_t offset, filesz; /* in the file */
    bool writable, executable;
} myr_image_load;

/* libc variables a program reads directly (through its GOT), which a
 * private copy gets its own of: getopt's. */
typedef enum myr_image_libc_var {
    MYR_LIBC_OPTIND,
    MYR_LIBC_OPTERR,
    MYR_LIBC_OPTOPT,
    MYR_LIBC_OPTARG,
    MYR_LIBC_VAR_COUNT_
} myr_image_libc_var;

#define MYR_IMAGE_MAX_GOT_SLOTS 4   /* per variable */

/* One object that a COPY relocation put in the program's .bss. */
typedef struct myr_image_copied {
    const char *name;        /* the symbol (points into the mapped file) */
    uint64_t vaddr, size;
    int libc_var;            /* a myr_image_libc_var, or -1 */
    /* Never written after start-up (libc's FILE pointers, C++ streams,
     * vtables, type_info): a copy may hold a snapshot of it. */
    bool constant;
} myr_image_copied;

typedef struct myr_image {
    char path[4096];
    size_t file_size;
    bool symbols;            /* has a symbol table (not stripped) */

    /* Why a copy cannot be loaded (NULL: it can). */
    const char *unloadable;
    char unloadable_detail[160];

    /* The program's own writable globals (toolchain objects excluded). */
    size_t globals;          /* how many */
    size_t globals_bytes;
    const char *global_names[MYR_IMAGE_NAMED_GLOBALS];
    size_t tls_bytes;        /* __thread data (PT_TLS) */

    /* Layout. */
    myr_image_load loads[MYR_IMAGE_MAX_LOADS];
    int nloads;
    uint64_t relro_start, relro_end;  /* vaddr range, empty if none */
    int mappings_per_copy;   /* VMAs one copy adds (estimate) */
    uint64_t flags1_offset;  /* file offset of DT_FLAGS_1's value, 0: none */
    uint64_t flags1_value;
    /* Initializers: DT_INIT's entry (file offset of its tag; 0: none) and
     * target, DT_INIT_ARRAY's vaddr and DT_INIT_ARRAYSZ's value and its
     * file offset (0: none). */
    uint64_t init_tag_offset, init_vaddr;
    uint64_t init_array_vaddr, init_array_bytes, init_arraysz_offset;

    /* COPY relocations: objects of shared libraries (libc's stdout, a
     * libstdc++ stream, getopt's optind) that code built -fPIE (gcc's
     * default) reaches PC-relative in the program's own .bss. A private
     * copy of the program holds its own instance of each (privatize.c). */
    struct myr_image_copied *copied;   /* ncopied of them (malloc'd) */
    int ncopied;

    /* GOT slots (vaddrs) that hold the address of a libc variable. */
    uint64_t got_slots[MYR_LIBC_VAR_COUNT_][MYR_IMAGE_MAX_GOT_SLOTS];
    int ngot_slots[MYR_LIBC_VAR_COUNT_];

    void *map;               /* the file, mapped read-only; global_names
                              * point into it */
} myr_image;

/* Inspect the ELF file at `path`. Returns 0, or -1 with a message in
 * `err` (the file cannot be read or is not an ELF file of this machine). */
int myr_image_inspect(myr_image *img, const char *path, char *err, size_t errlen);
void myr_image_release(myr_image *img);

#endif
