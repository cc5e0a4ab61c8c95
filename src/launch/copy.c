/* copy.c — private copies of an executable (see copy.h). */
#include "launch/copy.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096u
#define PAGE_DOWN(x) ((x) & ~(uint64_t)(PAGE - 1))
#define PAGE_UP(x) PAGE_DOWN((x) + PAGE - 1)

/* The rank's getopt variables and their first values, by variable. */
static void getopt_fields(myr_rank_image *ri, void **vars[MYR_LIBC_VAR_COUNT_],
                          void *own[MYR_LIBC_VAR_COUNT_])
{
    vars[MYR_LIBC_OPTIND] = (void **)&ri->vars.optind;
    vars[MYR_LIBC_OPTERR] = (void **)&ri->vars.opterr;
    vars[MYR_LIBC_OPTOPT] = (void **)&ri->vars.optopt;
    vars[MYR_LIBC_OPTARG] = (void **)&ri->vars.optarg;
    own[MYR_LIBC_OPTIND] = &ri->own.optind;
    own[MYR_LIBC_OPTERR] = &ri->own.opterr;
    own[MYR_LIBC_OPTOPT] = &ri->own.optopt;
    own[MYR_LIBC_OPTARG] = &ri->own.optarg;
}

/* Point the image's GOT slots for getopt's variables at the rank's own. */
static int redirect_libc_vars(const myr_image *img, myr_rank_image *ri,
                              unsigned long bias)
{
    void **vars[MYR_LIBC_VAR_COUNT_], *own[MYR_LIBC_VAR_COUNT_];
    getopt_fields(ri, vars, own);
    for (int v = 0; v < MYR_LIBC_VAR_COUNT_; v++) {
        *vars[v] = own[v];
        for (int s = 0; s < img->ngot_slots[v]; s++) {
            uint64_t vaddr = img->got_slots[v][s];
            void **slot = (void **)(bias + vaddr);
            bool relro = vaddr >= img->relro_start && vaddr < img->relro_end;
            char *page = (char *)PAGE_DOWN((uintptr_t)slot);
            size_t len = PAGE_UP((uintptr_t)(slot + 1)) - (uintptr_t)page;
            if (relro && mprotect(page, len, PROT_READ | PROT_WRITE) != 0)
                return -1;
            *slot = own[v];
            if (relro && mprotect(page, len, PROT_READ) != 0)
                return -1;
        }
    }
    return 0;
}

/* The image's instances of objects that COPY relocations brought in (see
 * image.h). getopt's variables become the ones the rank reads; in a fresh
 * copy they start as a process's do, and the others start as the live
 * object is now: the one the global scope names (the program's instance
 * when it has one, else the library's own), which libc and libstdc++ use.
 * Not instrumented: the copy's .bss holds ASan's redzones. */
__attribute__((no_sanitize_address))
static int fill_copied_objects(const myr_image *img, myr_rank_image *ri,
                               unsigned long bias, bool fresh)
{
    void **vars[MYR_LIBC_VAR_COUNT_], *own[MYR_LIBC_VAR_COUNT_];
    getopt_fields(ri, vars, own);
    bool opened = false;
    uintptr_t relro_lo = bias + PAGE_DOWN(img->relro_start);
    uintptr_t relro_hi = bias + PAGE_UP(img->relro_end);
    for (int i = 0; i < img->ncopied; i++) {
        const myr_image_copied *c = &img->copied[i];
        char *to = (char *)(bias + c->vaddr);
        if (c->libc_var >= 0) {
            const char *initial = own[c->libc_var];
            for (uint64_t b = 0; fresh && b < c->size; b++)
                to[b] = initial[b];
            *vars[c->libc_var] = to;
            continue;
        }
        const volatile char *from = fresh ? dlsym(RTLD_DEFAULT, c->name) : NULL;
        if (!from || from == to)
            continue;
        if (!opened && (uintptr_t)to + c->size > relro_lo && (uintptr_t)to < relro_hi) {
            /* A copied vtable or type_info may sit in RELRO. */
            if (mprotect((void *)relro_lo, relro_hi - relro_lo,
                         PROT_READ | PROT_WRITE) != 0)
                return -1;
            opened = true;
        }
        for (uint64_t b = 0; b < c->size; b++)
            to[b] = from[b];
    }
    if (opened && mprotect((void *)relro_lo, relro_hi - relro_lo, PROT_READ) != 0)
        return -1;
    return 0;
}

/* Write each page of [lo, hi) with its own contents: a private mapping
 * then holds its own copy of the page, no longer the file's. RELRO pages
 * are read-only by now and opened for the moment. Not instrumented: the
 * pages hold ASan's redzones between globals. */
__attribute__((no_sanitize_address))
static int own_pages(const myr_image *img, uintptr_t lo, uintptr_t hi,
                     unsigned long bias)
{
    uintptr_t relro_lo = bias + PAGE_DOWN(img->relro_start);
    uintptr_t relro_hi = bias + PAGE_DOWN(img->relro_end);
    bool opened = false;
    if (img->relro_end > img->relro_start && relro_lo < hi && relro_hi > lo) {
        if (mprotect((void *)relro_lo, relro_hi - relro_lo, PROT_READ | PROT_WRITE) != 0)
            return -1;
        opened = true;
    }
    for (uintptr_t page = lo; page < hi; page += PAGE) {
        volatile char *c = (volatile char *)page;
        *c = *c;
    }
    if (opened && mprotect((void *)relro_lo, relro_hi - relro_lo, PROT_READ) != 0)
        return -1;
    return 0;
}

/* The copy's code and read-only data become mappings of the executable's
 * file (the pages the program itself runs from), its writable data its
 * own pages, and the memfd gives its pages back. */
static int slim_copy(const myr_image *img, int file_fd, int fd, unsigned long bias)
{
    for (int i = 0; i < img->nloads; i++) {
        const myr_image_load *l = &img->loads[i];
        if (l->writable)
            continue;
        uint64_t start = PAGE_DOWN(l->vaddr), end = PAGE_UP(l->vaddr + l->filesz);
        bool overlaps = false;
        for (int k = 0; k < img->nloads; k++) {
            const myr_image_load *w = &img->loads[k];
            if (w->writable && PAGE_DOWN(w->vaddr) < end &&
                PAGE_UP(w->vaddr + w->memsz) > start)
                overlaps = true;
        }
        if (overlaps || PAGE_DOWN(l->offset) != l->offset - (l->vaddr - start))
            continue;
        /* Readable and executable, all of them: the kernel then merges
         * the headers, code and constants of a program linked with
         * separate code segments (binutils' default since 2.31, and what
         * CMake's FindMPI links, dropping mpicc's -z noseparate-code) into
         * one mapping, so a copy costs 3 mappings instead of 5
         * (vm.max_map_count bounds the copies). The price: constants are
         * executable in copies, as they were everywhere before 2.31. */
        int prot = PROT_READ | PROT_EXEC;
        if (mmap((void *)(bias + start), end - start, prot, MAP_PRIVATE | MAP_FIXED,
                 file_fd, (off_t)PAGE_DOWN(l->offset)) == MAP_FAILED)
            return -1;
    }
    /* Give the copy's writable segments their own pages now (most are
     * written by relocation anyway), so that nothing maps the memfd any
     * more and its pages can go: a copy then costs its data once, not
     * twice. */
    for (int i = 0; i < img->nloads; i++) {
        const myr_image_load *w = &img->loads[i];
        if (w->writable && own_pages(img, bias + PAGE_DOWN(w->vaddr),
                                     bias + PAGE_UP(w->vaddr + w->filesz), bias) != 0)
            return -1;
    }
    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
              (off_t)PAGE_UP(img->file_size));
    return 0;
}

/* A copy's instances of objects that COPY relocations brought in must be
 * filled (fill_copied_objects) before its initializers use them; glibc
 * fills them from the library's own definition, which for a C++ stream is
 * storage that was never constructed (libstdc++ constructed the
 * program's). */
static bool defers_initializers(const myr_image *img)
{
    return img->ncopied > 0;
}

/* Fill the memfd with the executable, marked loadable by dlopen. */
static int write_copy(const myr_image *img, int fd)
{
    const char *data = img->map;
    size_t done = 0;
    while (done < img->file_size) {
        ssize_t n = write(fd, data + done, img->file_size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    if (img->flags1_offset) {
        uint64_t flags = img->flags1_value & ~(uint64_t)DF_1_PIE;
        if (pwrite(fd, &flags, sizeof flags, (off_t)img->flags1_offset) != sizeof flags)
            return -1;
    }
    if (defers_initializers(img)) {
        /* dlopen runs no initializer of the copy: DT_INIT becomes a tag
         * glibc ignores and DT_INIT_ARRAY is emptied (run_initializers). */
        int64_t ignored = DT_LOOS;
        uint64_t none = 0;
        if ((img->init_tag_offset &&
             pwrite(fd, &ignored, sizeof ignored, (off_t)img->init_tag_offset) !=
                 sizeof ignored) ||
            (img->init_arraysz_offset &&
             pwrite(fd, &none, sizeof none, (off_t)img->init_arraysz_offset) !=
                 sizeof none))
            return -1;
    }
    return 0;
}

/* Run the copy's initializers (C constructors, C++ dynamic initialization)
 * in the order glibc would have in dlopen. */
static void run_initializers(const myr_image *img, unsigned long bias, int argc,
                             char **argv)
{
    typedef void (*initializer)(int, char **, char **);
    if (img->init_tag_offset && img->init_vaddr)
        ((initializer)(bias + img->init_vaddr))(argc, argv, environ);
    const uintptr_t *array = (const uintptr_t *)(bias + img->init_array_vaddr);
    size_t n = img->init_array_vaddr ? img->init_array_bytes / sizeof *array : 0;
    for (size_t i = 0; i < n; i++)
        if (array[i] != 0 && array[i] != (uintptr_t)-1)
            ((initializer)array[i])(argc, argv, environ);
}

int myr_copy_load(const myr_image *img, int file_fd, const char *what,
                  myr_rank_image *ri, bool per_rank, int argc, char **argv,
                  myr_copy *copy)
{
    int fd = memfd_create("myriad-copy", MFD_CLOEXEC);
    if (fd < 0 || write_copy(img, fd) != 0) {
        fprintf(stderr, "myriad: cannot copy %s: %s\n", what, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) {
        fprintf(stderr, "myriad: cannot load a copy of %s: %s\n", what, dlerror());
        close(fd);
        return -1;
    }
    unsigned long bias = map->l_addr;
    if (slim_copy(img, file_fd, fd, bias) != 0 ||
        (per_rank && redirect_libc_vars(img, ri, bias) != 0) ||
        fill_copied_objects(img, ri, bias, true) != 0) {
        fprintf(stderr, "myriad: cannot set up the copy of %s: %s\n", what,
                strerror(errno));
        return -1;
    }
    if (defers_initializers(img))
        run_initializers(img, bias, argc, argv);
    *copy = (myr_copy){.handle = handle, .map = map, .fd = fd};
    return 0;
}

int myr_copy_adopt_program(const myr_image *img, myr_rank_image *ri,
                           unsigned long bias)
{
    return redirect_libc_vars(img, ri, bias) == 0 &&
                   fill_copied_objects(img, ri, bias, false) == 0
               ? 0 : -1;
}
