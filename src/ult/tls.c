/*
 * tls.c — the program's thread-local variables follow its ULTs.
 *
 * A program's `__thread` variables (C11 `_Thread_local`, C++
 * `thread_local`, OpenMP `threadprivate`, which gcc makes thread-local)
 * live in each kernel thread's instance of the program's TLS segment, at a
 * fixed offset from the thread pointer that the compiler bakes into the
 * code. Ranks and OpenMP threads are ULTs: several run on one worker
 * thread, and a ULT moves between workers. So, as errno is (sched.c), the
 * segment is saved when a ULT leaves a worker and restored into the
 * worker's instance when a ULT comes on: each ULT sees its own variables,
 * wherever it runs, and the code keeps its thread-pointer-relative
 * accesses. Only the program's own segment moves (the executable's; what
 * libc and the libraries keep per thread stays the worker's), only when it
 * has one, and its size is what a switch copies twice (usually some bytes).
 *
 * Not when the ULT layer itself is linked into the program (Myriad's own
 * ULT tests and benchmarks): the segment then holds the layer's
 * thread-local variables, which belong to the kernel thread.
 *
 * A ULT starts with the segment's initial image, as a new thread does; its
 * copy is allocated the first time it leaves a worker. The main ULT keeps
 * what the process's first thread had.
 *
 * Limits: an address of a thread-local variable is the worker's instance,
 * so a pointer to one kept across a blocking call may point into another
 * worker's when the ULT moved (as `&errno` would); libraries' own
 * thread-local variables (not the program's) stay per worker.
 *
 * C++ thread-local objects with destructors register them, on first use,
 * with __cxa_thread_atexit_impl, to run when the thread ends, with the
 * object's address. Here the object is the ULT's: the registration is
 * kept with the ULT (as an offset into the segment) and run when the ULT
 * ends, on its stack, with its segment in place. Registrations from
 * outside a ULT, from the main ULT (the process's first thread), or for
 * other libraries' objects go to glibc's.
 */
#include "ult/core_api.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The program's PT_TLS: the first object dl_iterate_phdr reports is the
 * executable. */
static int find_program_tls(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_TLS || ph->p_memsz == 0)
            continue;
        myr_rt.tls_bytes = ph->p_memsz;
        myr_rt.tls_image = (const void *)(info->dlpi_addr + ph->p_vaddr);
        myr_rt.tls_image_bytes = ph->p_filesz;
    }
    return 1;   /* the executable only */
}

/* This thread's instance of the program's segment. */
static int find_thread_block(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(void **)data = info->dlpi_tls_data;
    return 1;
}

void myr_tls_init(void)
{
    myr_rt.tls_bytes = 0;
    dl_iterate_phdr(find_program_tls, NULL);
    if (!myr_rt.tls_bytes)
        return;
    /* The ULT layer linked into the program itself (a static link: the
     * segment holds our own thread-local variables, which must stay the
     * thread's): leave the segment to the threads. */
    void *block = NULL;
    dl_iterate_phdr(find_thread_block, &block);
    uintptr_t ours = (uintptr_t)&myr_tls_worker;
    if (!block || ours - (uintptr_t)block < myr_rt.tls_bytes)
        myr_rt.tls_bytes = 0;
}

void myr_tls_thread_init(myr_worker *w)
{
    w->tls_block = NULL;
    if (!myr_rt.tls_bytes)
        return;
    dl_iterate_phdr(find_thread_block, &w->tls_block);
    if (!w->tls_block)
        myr_fatal("thread-local variables",
                  "the program's thread-local segment has no instance in a worker thread");
}

void myr_tls_save_new(myr_worker *w, myr_ult *u)
{
    u->tls = malloc(myr_rt.tls_bytes);
    if (!u->tls)
        myr_fatal("out of memory", "cannot keep a ULT's thread-local variables");
    memcpy(u->tls, w->tls_block, myr_rt.tls_bytes);
}

void myr_tls_restore_initial(myr_worker *w)
{
    memcpy(w->tls_block, myr_rt.tls_image, myr_rt.tls_image_bytes);
    memset((char *)w->tls_block + myr_rt.tls_image_bytes, 0,
           myr_rt.tls_bytes - myr_rt.tls_image_bytes);
}

/* ---- destructors of C++ thread-local objects ------------------------------ */

typedef struct tls_dtor {
    void (*fn)(void *);
    size_t offset;            /* of the object in the program's segment */
    struct tls_dtor *next;    /* registered before this one */
} tls_dtor;

typedef int (*cxa_thread_atexit_fn)(void (*)(void *), void *, void *);

/* Run in the ending ULT, on its own stack, its segment in place: the last
 * registered first, as glibc does; a destructor may register more. */
void myr_tls_run_destructors(myr_ult *u)
{
    while (u->tls_dtors) {
        tls_dtor *d = u->tls_dtors;
        u->tls_dtors = d->next;
        myr_worker *w = myr_worker_current();
        d->fn((char *)w->tls_block + d->offset);
        free(d);
    }
}

void myr_tls_free(myr_ult *u)
{
    free(u->tls);
    u->tls = NULL;
    while (u->tls_dtors) {   /* a ULT that never ended normally */
        tls_dtor *d = u->tls_dtors;
        u->tls_dtors = d->next;
        free(d);
    }
}

__attribute__((visibility("default"))) int __cxa_thread_atexit_impl(void (*fn)(void *),
                                                                   void *obj, void *dso);
int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso)
{
    myr_worker *w = myr_rt.initialized ? myr_worker_current() : NULL;
    myr_ult *u = w ? w->current : NULL;
    if (u && !u->is_main && !u->external && myr_rt.tls_bytes &&
        (uintptr_t)obj - (uintptr_t)w->tls_block < myr_rt.tls_bytes) {
        tls_dtor *d = malloc(sizeof *d);
        if (!d)
            return -1;
        *d = (tls_dtor){.fn = fn, .offset = (size_t)((char *)obj - (char *)w->tls_block),
                        .next = u->tls_dtors};
        u->tls_dtors = d;
        return 0;
    }
    static _Atomic(cxa_thread_atexit_fn) next;
    cxa_thread_atexit_fn glibc = atomic_load_explicit(&next, memory_order_relaxed);
    if (!glibc) {
        glibc = (cxa_thread_atexit_fn)dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl");
        atomic_store_explicit(&next, glibc, memory_order_relaxed);
    }
    return glibc ? glibc(fn, obj, dso) : -1;
}
