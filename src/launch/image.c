/* image.c — inspect the program's ELF file (see image.h). */
#include "launch/image.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define MACHINE EM_X86_64
#define RELOC_COPY R_X86_64_COPY
#define RELOC_GLOB_DAT R_X86_64_GLOB_DAT
#define RELOC_ABS64 R_X86_64_64
#elif defined(__aarch64__)
#define MACHINE EM_AARCH64
#define RELOC_COPY R_AARCH64_COPY
#define RELOC_GLOB_DAT R_AARCH64_GLOB_DAT
#define RELOC_ABS64 R_AARCH64_ABS64
#else
#error "image.c knows x86_64 and aarch64"
#endif

#define PAGE 4096u
#define PAGE_DOWN(x) ((x) & ~(uint64_t)(PAGE - 1))
#define PAGE_UP(x) PAGE_DOWN((x) + PAGE - 1)

/* Writable objects every program has, put there by crt files, the C++
 * headers or the linker: they are not the program's own state. */
static const char *const toolchain_objects[] = {
    "completed.0",      /* crtbegin: __do_global_dtors_aux ran */
    "__dso_handle",     /* crtbegin: this object's atexit identity */
    "__TMC_END__",
    "_ZStL8__ioinit",   /* <iostream>'s std::ios_base::Init */
    "__aarch64_have_lse_atomics",  /* libgcc's outline atomics */
};

static const char *const libc_var_names[MYR_LIBC_VAR_COUNT_] = {
    [MYR_LIBC_OPTIND] = "optind",
    [MYR_LIBC_OPTERR] = "opterr",
    [MYR_LIBC_OPTOPT] = "optopt",
    [MYR_LIBC_OPTARG] = "optarg",
};

static bool is_toolchain_object(const char *name)
{
    if (strncmp(name, "DW.ref.", 7) == 0 ||  /* C++: the personality routine */
        strncmp(name, "__odr_asan", 10) == 0)  /* ASan's one-definition markers */
        return true;
    for (size_t i = 0; i < sizeof toolchain_objects / sizeof *toolchain_objects; i++)
        if (strcmp(name, toolchain_objects[i]) == 0)
            return true;
    return false;
}

static void set_unloadable(myr_image *img, const char *why, const char *detail)
{
    if (img->unloadable)
        return;  /* the first reason is the one to report */
    img->unloadable = why;
    snprintf(img->unloadable_detail, sizeof img->unloadable_detail, "%s",
             detail ? detail : "");
}

/* The file's bytes [off, off+len) if they are inside it. */
static const void *at(const myr_image *img, uint64_t off, uint64_t len)
{
    if (off > img->file_size || len > img->file_size - off)
        return NULL;
    return (const char *)img->map + off;
}

static const char *string_at(const myr_image *img, const ElfW(Shdr) *strtab,
                             uint64_t index)
{
    if (!strtab || index >= strtab->sh_size)
        return NULL;
    const char *s = at(img, strtab->sh_offset + index, 1);
    if (!s || !memchr(s, '\0', strtab->sh_size - index))
        return NULL;
    return s;
}

static bool in_relro(const myr_image *img, uint64_t addr)
{
    return addr >= img->relro_start && addr < img->relro_end;
}

/* Sections holding data the program may change after start-up. */
static bool is_program_data(const myr_image *img, const ElfW(Shdr) *sh,
                            const char *name)
{
    if ((sh->sh_flags & (SHF_ALLOC | SHF_WRITE)) != (SHF_ALLOC | SHF_WRITE))
        return false;
    if (sh->sh_flags & SHF_TLS)
        return false;  /* counted apart, as tls_bytes */
    switch (sh->sh_type) {
    case SHT_PROGBITS:
    case SHT_NOBITS:
        break;
    default:
        return false;  /* .dynamic, .init_array, ... */
    }
    if (name && (strcmp(name, ".got") == 0 || strcmp(name, ".got.plt") == 0))
        return false;
    return !in_relro(img, sh->sh_addr);
}

/* Does read-only segment `l` share a page with a writable one (then a
 * copy keeps it where dlopen put it, copy.c)? */
static bool overlaps_writable(const myr_image *img, const myr_image_load *l)
{
    uint64_t start = PAGE_DOWN(l->vaddr), end = PAGE_UP(l->vaddr + l->filesz);
    for (int k = 0; k < img->nloads; k++) {
        const myr_image_load *w = &img->loads[k];
        if (w->writable && PAGE_DOWN(w->vaddr) < end && PAGE_UP(w->vaddr + w->memsz) > start)
            return true;
    }
    return false;
}

static void scan_program_headers(myr_image *img, const ElfW(Ehdr) *eh)
{
    const ElfW(Phdr) *ph = at(img, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof *ph);
    if (!ph || eh->e_phentsize != sizeof *ph) {
        set_unloadable(img, "its program headers cannot be read", NULL);
        return;
    }
    bool dynamic = false;
    for (int i = 0; i < eh->e_phnum; i++) {
        switch (ph[i].p_type) {
        case PT_LOAD:
            if (img->nloads == MYR_IMAGE_MAX_LOADS) {
                set_unloadable(img, "it has too many loadable segments", NULL);
                break;
            }
            img->loads[img->nloads++] = (myr_image_load){
                .vaddr = ph[i].p_vaddr, .memsz = ph[i].p_memsz,
                .offset = ph[i].p_offset, .filesz = ph[i].p_filesz,
                .writable = ph[i].p_flags & PF_W,
                .executable = ph[i].p_flags & PF_X,
            };
            break;
        case PT_GNU_RELRO:
            img->relro_start = ph[i].p_vaddr;
            img->relro_end = ph[i].p_vaddr + ph[i].p_memsz;
            break;
        case PT_TLS:
            img->tls_bytes = ph[i].p_memsz;
            break;
        case PT_DYNAMIC: {
            dynamic = true;
            size_t n = ph[i].p_filesz / sizeof(ElfW(Dyn));
            const ElfW(Dyn) *dyn = at(img, ph[i].p_offset, n * sizeof *dyn);
            for (size_t k = 0; dyn && k < n && dyn[k].d_tag != DT_NULL; k++) {
                if (dyn[k].d_tag == DT_TEXTREL ||
                    (dyn[k].d_tag == DT_FLAGS && (dyn[k].d_un.d_val & DF_TEXTREL)))
                    set_unloadable(img, "its code has text relocations",
                                   "built without -fPIC");
                uint64_t entry = ph[i].p_offset + k * sizeof *dyn;
                if (dyn[k].d_tag == DT_INIT) {
                    img->init_tag_offset = entry + offsetof(ElfW(Dyn), d_tag);
                    img->init_vaddr = dyn[k].d_un.d_ptr;
                }
                if (dyn[k].d_tag == DT_INIT_ARRAY)
                    img->init_array_vaddr = dyn[k].d_un.d_ptr;
                if (dyn[k].d_tag == DT_INIT_ARRAYSZ) {
                    img->init_arraysz_offset = entry + offsetof(ElfW(Dyn), d_un);
                    img->init_array_bytes = dyn[k].d_un.d_val;
                }
                if (dyn[k].d_tag == DT_FLAGS_1) {
                    img->flags1_offset = ph[i].p_offset + k * sizeof *dyn +
                                         offsetof(ElfW(Dyn), d_un);
                    img->flags1_value = dyn[k].d_un.d_val;
                }
            }
            break;
        }
        default:
            break;
        }
    }
    if (!dynamic)
        set_unloadable(img, "it is statically linked", NULL);

    /* One VMA per segment; a writable one splits where RELRO ends, and its
     * zero-filled tail beyond the file's last page is anonymous memory.
     * Read-only segments that follow each other in the file and in memory
     * make one VMA in a copy (copy.c maps them all readable and
     * executable, so the kernel merges them). */
    int maps = 0;
    for (int i = 0; i < img->nloads; i++) {
        const myr_image_load *l = &img->loads[i];
        const myr_image_load *prev = i > 0 ? &img->loads[i - 1] : NULL;
        if (prev && !prev->writable && !l->writable &&
            PAGE_UP(prev->vaddr + prev->filesz) == PAGE_DOWN(l->vaddr) &&
            prev->vaddr - prev->offset == l->vaddr - l->offset &&
            !overlaps_writable(img, prev) && !overlaps_writable(img, l))
            continue;
        maps++;
        if (l->writable && img->relro_end > l->vaddr &&
            PAGE_DOWN(img->relro_end) < PAGE_UP(l->vaddr + l->memsz))
            maps++;
        if (PAGE_UP(l->vaddr + l->memsz) > PAGE_UP(l->vaddr + l->filesz))
            maps++;
    }
    img->mappings_per_copy = maps;
}

static void note_global(myr_image *img, const char *name, uint64_t size)
{
    if (img->globals < MYR_IMAGE_NAMED_GLOBALS)
        img->global_names[img->globals] = name;
    img->globals++;
    img->globals_bytes += size;
}

/* Objects that COPY relocations bring into the program's .bss (libc's
 * stdout, say, in code built -fPIE): not the program's own globals. */
#define MAX_COPIED 256
typedef struct copied_objects {
    uint64_t addr[MAX_COPIED];
    int count;
    uint64_t bytes;
} copied_objects;

static bool is_copied(const copied_objects *c, uint64_t addr)
{
    for (int i = 0; i < c->count; i++)
        if (c->addr[i] == addr)
            return true;
    return false;
}

/* Objects of libraries that never change after start-up, so that a
 * private copy of the program may hold a snapshot of them: libc's FILE
 * pointers and names of the program, libstdc++'s standard streams (each
 * copy then keeps its own format state, as a process would, over the same
 * stream buffer), vtables and type_info. */
static bool is_constant_object(const char *name)
{
    static const char *const constant[] = {
        "stdin", "stdout", "stderr", "program_invocation_name",
        "program_invocation_short_name", "__progname", "__progname_full",
        "_ZSt3cin", "_ZSt4cout", "_ZSt4cerr", "_ZSt4clog",
        "_ZSt4wcin", "_ZSt5wcout", "_ZSt5wcerr", "_ZSt5wclog",
    };
    if (strncmp(name, "_ZTV", 4) == 0 || strncmp(name, "_ZTI", 4) == 0 ||
        strncmp(name, "_ZTS", 4) == 0)
        return true;
    for (size_t i = 0; i < sizeof constant / sizeof *constant; i++)
        if (strcmp(name, constant[i]) == 0)
            return true;
    return false;
}

/* A COPY relocation. Myriad's own objects (the handles, when the program
 * was compiled with an mpi.h that does not reach them through the GOT)
 * cannot be copied: every rank must see one MPI_COMM_WORLD. */
static void note_copied(myr_image *img, const char *name, uint64_t vaddr,
                        uint64_t size)
{
    if (strncmp(name, "myr_", 4) == 0) {
        char detail[128];
        snprintf(detail, sizeof detail, "a COPY relocation for `%.60s`: "
                 "compiled with another mpi.h than Myriad's", name);
        set_unloadable(img, "it holds its own copies of Myriad's handles", detail);
        return;
    }
    myr_image_copied *grown =
        realloc(img->copied, (size_t)(img->ncopied + 1) * sizeof *grown);
    if (!grown) {
        set_unloadable(img, "out of memory while inspecting it", NULL);
        return;
    }
    img->copied = grown;
    int libc_var = -1;
    for (int v = 0; v < MYR_LIBC_VAR_COUNT_; v++)
        if (strcmp(name, libc_var_names[v]) == 0)
            libc_var = v;
    img->copied[img->ncopied++] = (myr_image_copied){
        .name = name, .vaddr = vaddr, .size = size, .libc_var = libc_var,
        .constant = is_constant_object(name)};
}

/* Relocations: COPY ones (their objects are noted: they are not the
 * program's own globals, and a copy must fill its instances of them), and
 * the GOT slots of getopt's variables. */
static void scan_relocations(myr_image *img, const ElfW(Ehdr) *eh,
                             const ElfW(Shdr) *sh, copied_objects *copied)
{
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_RELA || sh[i].sh_link >= eh->e_shnum)
            continue;
        const ElfW(Shdr) *symtab = &sh[sh[i].sh_link];
        const ElfW(Shdr) *strtab =
            symtab->sh_link < eh->e_shnum ? &sh[symtab->sh_link] : NULL;
        size_t nsyms = symtab->sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *syms = at(img, symtab->sh_offset, nsyms * sizeof *syms);
        size_t n = sh[i].sh_size / sizeof(ElfW(Rela));
        const ElfW(Rela) *rela = at(img, sh[i].sh_offset, n * sizeof *rela);
        for (size_t k = 0; rela && syms && k < n; k++) {
            uint64_t type = ELF64_R_TYPE(rela[k].r_info);
            uint64_t symi = ELF64_R_SYM(rela[k].r_info);
            if (symi == 0 || symi >= nsyms)
                continue;
            const char *sname = string_at(img, strtab, syms[symi].st_name);
            if (!sname)
                continue;
            if (type == RELOC_COPY) {
                if (copied->count < MAX_COPIED)
                    copied->addr[copied->count++] = rela[k].r_offset;
                copied->bytes += syms[symi].st_size;
                note_copied(img, sname, rela[k].r_offset, syms[symi].st_size);
                continue;
            }
            if ((type != RELOC_GLOB_DAT && type != RELOC_ABS64) ||
                rela[k].r_addend != 0)
                continue;
            for (int v = 0; v < MYR_LIBC_VAR_COUNT_; v++) {
                if (strcmp(sname, libc_var_names[v]) != 0 ||
                    img->ngot_slots[v] == MYR_IMAGE_MAX_GOT_SLOTS)
                    continue;
                img->got_slots[v][img->ngot_slots[v]++] = rela[k].r_offset;
            }
        }
    }
}

static void scan_symbols(myr_image *img, const ElfW(Ehdr) *eh,
                         const ElfW(Shdr) *sh, const ElfW(Shdr) *shstr,
                         const copied_objects *copied)
{
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        img->symbols = true;
        const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
        size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *sym = at(img, sh[i].sh_offset, n * sizeof *sym);
        for (size_t k = 1; sym && k < n; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_OBJECT ||
                sym[k].st_size == 0 || sym[k].st_shndx == SHN_UNDEF ||
                sym[k].st_shndx >= eh->e_shnum || is_copied(copied, sym[k].st_value))
                continue;
            const char *sname = string_at(img, strtab, sym[k].st_name);
            const ElfW(Shdr) *home = &sh[sym[k].st_shndx];
            if (!sname || is_toolchain_object(sname) ||
                !is_program_data(img, home, string_at(img, shstr, home->sh_name)))
                continue;
            note_global(img, sname, sym[k].st_size);
        }
    }
}

static void scan_sections(myr_image *img, const ElfW(Ehdr) *eh)
{
    const ElfW(Shdr) *sh = at(img, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh);
    if (!sh || eh->e_shnum == 0 || eh->e_shentsize != sizeof *sh) {
        /* No section headers: nothing is known about globals; privatizing
         * is the safe guess. */
        img->globals = 1;
        return;
    }
    const ElfW(Shdr) *shstr = eh->e_shstrndx < eh->e_shnum ? &sh[eh->e_shstrndx] : NULL;
    copied_objects copied = {.count = 0};
    scan_relocations(img, eh, sh, &copied);
    scan_symbols(img, eh, sh, shstr, &copied);
    if (img->symbols)
        return;
    /* Stripped: judge by size. crt files alone put ~17 bytes there. */
    uint64_t bytes = 0;
    for (int i = 0; i < eh->e_shnum; i++)
        if (is_program_data(img, &sh[i], string_at(img, shstr, sh[i].sh_name)))
            bytes += sh[i].sh_size;
    bytes = bytes > copied.bytes ? bytes - copied.bytes : 0;
    if (bytes > 32) {
        img->globals = 1;
        img->globals_bytes = bytes;
    }
}

int myr_image_inspect(myr_image *img, const char *path, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    snprintf(img->path, sizeof img->path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    img->file_size = (size_t)st.st_size;
    img->map = img->file_size >= sizeof(ElfW(Ehdr))
                   ? mmap(NULL, img->file_size, PROT_READ, MAP_PRIVATE, fd, 0)
                   : MAP_FAILED;
    close(fd);
    if (img->map == MAP_FAILED) {
        img->map = NULL;
        snprintf(err, errlen, "cannot map %s: %s", path,
                 img->file_size ? strerror(errno) : "empty file");
        return -1;
    }
    const ElfW(Ehdr) *eh = img->map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != MACHINE) {
        snprintf(err, errlen, "%s is not an ELF program for this machine", path);
        myr_image_release(img);
        return -1;
    }
    if (eh->e_type != ET_DYN)
        set_unloadable(img, "it is not position-independent",
                       "linked without -pie");
    scan_program_headers(img, eh);
    scan_sections(img, eh);
    return 0;
}

void myr_image_release(myr_image *img)
{
    free(img->copied);
    img->copied = NULL;
    img->ncopied = 0;
    if (img->map)
        munmap(img->map, img->file_size);
    img->map = NULL;
    img->globals = 0;
    memset(img->global_names, 0, sizeof img->global_names);
}
