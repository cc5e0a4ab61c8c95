/*
 * alloc.c — OpenMP memory allocators: the predefined ones (all host
 * memory, a ULT's worker has no memory of its own) and allocators with
 * traits: alignment, pool_size (bytes handed out at once, counted by
 * size asked) with its fallback (default memory, null, abort, another
 * allocator). Hints (sync_hint, access, partition) are accepted; pinned
 * memory is refused (omp_init_allocator returns omp_null_allocator).
 *
 * Every block carries a header: the allocator it came from (omp_free and
 * omp_realloc with omp_null_allocator find it there) and its size (the
 * pool gets it back).
 */
#include <omp.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/omp_impl.h"

typedef struct allocator {
    size_t align;
    size_t pool;                 /* 0: no limit */
    _Atomic size_t used;
    uintptr_t fallback;          /* omp_atv_*_fb */
    omp_allocator_handle_t fb_data;
} allocator;

typedef struct header {
    void *base;
    size_t size;
    omp_allocator_handle_t from;
} header;

static bool predefined(omp_allocator_handle_t a)
{
    return (uintptr_t)a >= omp_default_mem_alloc && (uintptr_t)a <= omp_thread_mem_alloc;
}

static void *raw_alloc(size_t align, size_t size, omp_allocator_handle_t from)
{
    if (align < alignof(max_align_t))
        align = alignof(max_align_t);
    size_t total = size + align + sizeof(header);
    if (total < size)
        return NULL;
    char *base = malloc(total);
    if (!base)
        return NULL;
    uintptr_t p = ((uintptr_t)base + sizeof(header) + align - 1)
                  & ~(uintptr_t)(align - 1);
    header *h = (header *)p - 1;
    h->base = base;
    h->size = size;
    h->from = from;
    return (void *)p;
}

static omp_allocator_handle_t resolve(omp_allocator_handle_t a)
{
    return a == omp_null_allocator
         ? (omp_allocator_handle_t)myr_omp_thr()->icv.def_allocator : a;
}

static void *alloc_from(size_t align, size_t size, omp_allocator_handle_t a)
{
    if (align & (align - 1))
        return NULL;  /* not a power of two: the call fails */
    a = resolve(a);
    if (predefined(a) || a == omp_null_allocator)
        return raw_alloc(align, size, a ? a : omp_default_mem_alloc);
    allocator *al = (allocator *)a;
    if (al->align > align)
        align = al->align;
    if (al->pool) {
        size_t used = atomic_load(&al->used);
        do {
            if (size > al->pool || used > al->pool - size)
                goto fallback;
        } while (!atomic_compare_exchange_weak(&al->used, &used, used + size));
    }
    void *p = raw_alloc(align, size, a);
    if (p)
        return p;
    if (al->pool)
        atomic_fetch_sub(&al->used, size);
fallback:
    switch (al->fallback) {
    case omp_atv_null_fb:
        return NULL;
    case omp_atv_abort_fb:
        fprintf(stderr, "omp_alloc: allocator %p cannot give %zu bytes "
                "(fallback abort_fb)\n", (void *)al, size);
        abort();
    case omp_atv_allocator_fb:
        return alloc_from(align, size, al->fb_data);
    default:
        return raw_alloc(align, size, omp_default_mem_alloc);
    }
}

void *myr_omp_alloc(size_t align, size_t size);
void myr_omp_free(void *p);

void *myr_omp_alloc(size_t align, size_t size)
{
    return alloc_from(align, size, omp_null_allocator);
}

void myr_omp_free(void *p)
{
    if (!p)
        return;
    header *h = (header *)p - 1;
    if (!predefined(h->from)) {
        allocator *al = (allocator *)h->from;
        if (al->pool)
            atomic_fetch_sub(&al->used, h->size);
    }
    free(h->base);
}

omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t space,
                                          int ntraits,
                                          const omp_alloctrait_t traits[])
{
    if ((uintptr_t)space > omp_low_lat_mem_space || ntraits < 0)
        return omp_null_allocator;
    allocator a = { .align = 1, .fallback = omp_atv_default_mem_fb };
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        switch (traits[i].key) {
        case omp_atk_sync_hint:
            if (v != omp_atv_default && (v < omp_atv_contended || v > omp_atv_private))
                return omp_null_allocator;
            break;
        case omp_atk_alignment:
            if (v == omp_atv_default)
                break;
            if (v == 0 || (v & (v - 1)))
                return omp_null_allocator;
            a.align = v;
            break;
        case omp_atk_access:
            if (v != omp_atv_default && (v < omp_atv_all || v > omp_atv_cgroup))
                return omp_null_allocator;
            break;
        case omp_atk_pool_size:
            a.pool = v == omp_atv_default ? 0 : v;
            break;
        case omp_atk_fallback:
            if (v == omp_atv_default)
                break;
            if (v < omp_atv_default_mem_fb || v > omp_atv_allocator_fb)
                return omp_null_allocator;
            a.fallback = v;
            break;
        case omp_atk_fb_data:
            a.fb_data = (omp_allocator_handle_t)v;
            break;
        case omp_atk_pinned:
            if (v == omp_atv_true)
                return omp_null_allocator;  /* no pinned memory */
            if (v != omp_atv_default && v != omp_atv_false)
                return omp_null_allocator;
            break;
        case omp_atk_partition:
            if (v != omp_atv_default && (v < omp_atv_environment || v > omp_atv_interleaved))
                return omp_null_allocator;
            break;
        default:
            return omp_null_allocator;
        }
    }
    if (a.fallback == omp_atv_allocator_fb && a.fb_data == omp_null_allocator)
        return omp_null_allocator;
    allocator *p = malloc(sizeof *p);
    if (!p)
        return omp_null_allocator;
    *p = a;
    return (omp_allocator_handle_t)p;
}

void omp_destroy_allocator(omp_allocator_handle_t a)
{
    if (a != omp_null_allocator && !predefined(a))
        free((allocator *)a);
}

void omp_set_default_allocator(omp_allocator_handle_t a)
{
    myr_omp_thr()->icv.def_allocator = (uintptr_t)a;
}

omp_allocator_handle_t omp_get_default_allocator(void)
{
    return (omp_allocator_handle_t)myr_omp_thr()->icv.def_allocator;
}

void *omp_alloc(size_t size, omp_allocator_handle_t a)
{
    return size ? alloc_from(0, size, a) : NULL;
}

void *omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a)
{
    return size ? alloc_from(align, size, a) : NULL;
}

void *omp_aligned_calloc(size_t align, size_t n, size_t size,
                         omp_allocator_handle_t a)
{
    if (!n || !size || n > SIZE_MAX / size)
        return NULL;
    void *p = alloc_from(align, n * size, a);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *omp_calloc(size_t n, size_t size, omp_allocator_handle_t a)
{
    return omp_aligned_calloc(0, n, size, a);
}

/* Within one pool the block's new size replaces its old one in the
 * count (a block may grow into the pool's last bytes); across allocators
 * it is a new block, then a free. */
void *omp_realloc(void *p, size_t size, omp_allocator_handle_t a,
                  omp_allocator_handle_t free_a)
{
    (void)free_a;  /* the header says where p came from */
    if (!p)
        return size ? alloc_from(0, size, a) : NULL;
    header *h = (header *)p - 1;
    if (!size) {
        myr_omp_free(p);
        return NULL;
    }
    omp_allocator_handle_t to = a == omp_null_allocator ? h->from : a;
    size_t old = h->size;
    if (to == h->from && !predefined(to) && ((allocator *)to)->pool) {
        allocator *al = (allocator *)to;
        size_t used = atomic_load(&al->used);
        bool fits = true;
        if (size > old)
            do {
                if (size - old > al->pool || used > al->pool - (size - old)) {
                    fits = false;
                    break;
                }
            } while (!atomic_compare_exchange_weak(&al->used, &used,
                                                   used + (size - old)));
        if (fits) {
            void *q = raw_alloc(al->align, size, to);
            if (!q) {
                if (size > old)
                    atomic_fetch_sub(&al->used, size - old);
                return NULL;
            }
            memcpy(q, p, old < size ? old : size);
            if (size < old)
                atomic_fetch_sub(&al->used, old - size);
            free(h->base);
            return q;
        }
    }
    void *q = alloc_from(0, size, to);
    if (q) {
        memcpy(q, p, old < size ? old : size);
        myr_omp_free(p);
    }
    return q;
}

void omp_free(void *p, omp_allocator_handle_t a)
{
    (void)a;  /* the header says where p came from */
    myr_omp_free(p);
}

/* The allocate clause. */
void *GOMP_alloc(size_t align, size_t size, uintptr_t allocator)
{
    void *p = alloc_from(align, size, (omp_allocator_handle_t)allocator);
    if (!p && size)
        myr_omp_unsupported("GOMP_alloc beyond the memory available");
    return p;
}

void GOMP_free(void *p, uintptr_t allocator)
{
    (void)allocator;
    myr_omp_free(p);
}
