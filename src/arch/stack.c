/* stack.c — guarded and canary ULT stacks, chunks, the per-worker stack
 * pool and the depot the pools share (see stack.h). */
#include "stack.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef MYR_SANITIZE
#include <sanitizer/asan_interface.h>
#define UNPOISON(addr, size) ASAN_UNPOISON_MEMORY_REGION(addr, size)
#else
#define UNPOISON(addr, size) ((void)(addr), (void)(size))
#endif

/* The first chunk of a depot, and the largest: reserving address space
 * costs nothing but the 64 MiB reserved, and doubling keeps the number of
 * chunks (two mappings each) small even for 10^6 stacks of 1 MiB. */
#define CHUNK_FIRST ((size_t)64 << 20)
#define CHUNK_MAX ((size_t)1 << 30)

const uint64_t myr_stack_no_canary = MYR_STACK_CANARY;

struct myr_stack_chunk {
    char *base;
    size_t bytes;
    myr_stack_chunk *next;
};

size_t myr_page_size(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

_Static_assert(sizeof(myr_stack) <= 64, "stack descriptor must fit in 64 bytes");

size_t myr_stack_round(size_t usable)
{
    size_t page = myr_page_size();
    size_t min = 4 * page;
    if (usable < min)
        usable = min;
    size_t largest = SIZE_MAX / page * page;
    if (usable > largest)  /* do not wrap around to 0 */
        return largest;
    return (usable + page - 1) / page * page;
}

/* Write the descriptor of the stack [lo, lo + size) (and, without a guard,
 * its canary). The memory may have been a stack of an earlier runtime whose
 * frames the sanitizer still has poisoned. */
static myr_stack *stack_init(char *lo, size_t size, size_t guard, void *floor,
                             bool chunked)
{
    myr_stack *s = (myr_stack *)(lo + size - 64);
    UNPOISON(s, 64);
    s->lo = lo;
    s->size = size;
    s->guard = guard;
    s->next = NULL;
    s->floor = floor;
    s->chunked = chunked;
    if (!guard) {
        UNPOISON(lo, MYR_STACK_CANARY_BYTES);
        uint64_t *canary = (uint64_t *)lo;
        for (size_t i = 0; i < MYR_STACK_CANARY_BYTES / sizeof *canary; i++)
            canary[i] = MYR_STACK_CANARY;
    }
    return s;
}

int myr_stack_canary_intact(const myr_stack *s)
{
    if (s->guard)
        return 1;
    const uint64_t *canary = s->lo;
    for (size_t i = 0; i < MYR_STACK_CANARY_BYTES / sizeof *canary; i++)
        if (myr_stack_canary_load(&canary[i]) != MYR_STACK_CANARY)
            return 0;
    return 1;
}

myr_stack *myr_stack_create(size_t usable)
{
    size_t page = myr_page_size();
    if (usable > SIZE_MAX / 2) {  /* no address space is that large */
        errno = ENOMEM;
        return NULL;
    }
    usable = myr_stack_round(usable);
    size_t total = page + usable;
    char *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    if (mprotect(map, page, PROT_NONE) != 0) {
        int saved = errno;
        munmap(map, total);
        errno = saved;
        return NULL;
    }
    return stack_init(map + page, usable, page, map, false);
}

void myr_stack_destroy(myr_stack *s)
{
    if (!s || s->chunked)
        return;
    char *map = (char *)s->lo - s->guard;
    munmap(map, s->guard + s->size);
}

/* ---- the depot: chunks and carving ----------------------------------- */

long myr_stack_max_map_count(void)
{
    long n = 65530;  /* the kernel's default */
    char buf[32];
    int fd = open("/proc/sys/vm/max_map_count", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return n;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len > 0) {
        buf[len] = '\0';
        char *end;
        long v = strtol(buf, &end, 10);
        if (end != buf && v > 0)
            n = v;
    }
    return n;
}

long myr_stack_mappings_in_use(void)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return 0;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

size_t myr_stack_guard_budget(long max_map_count)
{
    return max_map_count > 0 ? (size_t)max_map_count / 4 : 0;
}

void myr_stack_depot_init(myr_stack_depot *d, myr_stack_guard mode,
                          size_t guarded_max)
{
    pthread_mutex_init(&d->lock, NULL);
    d->head = NULL;
    d->count = 0;
    d->mode = mode;
    d->guarded_max = guarded_max;
    d->guarded = d->canaried = 0;
    d->chunks = NULL;
    d->epoch = 0;
    myr_stack_region_init(&d->region);
}

void myr_stack_region_init(myr_stack_region *r)
{
    r->carve = r->carve_end = r->last_guard = NULL;
    r->next_chunk = CHUNK_FIRST;
    r->epoch = 0;
}

/* Map a chunk with room for at least one stack of `stride` bytes and make
 * it the one region r carves from. Its first page is PROT_NONE: a runaway
 * overflow of the stacks above faults there instead of running into
 * whatever is mapped below. Under the lock. */
static int new_chunk(myr_stack_depot *d, myr_stack_region *r, size_t stride)
{
    size_t page = myr_page_size();
    myr_stack_chunk *rec = malloc(sizeof *rec);  /* rare: once per chunk */
    if (!rec)
        return -1;
    /* Guard page, the canary offset of the first stack, the stacks. */
    size_t least = 2 * page + stride;
    size_t bytes = r->next_chunk;
    if (bytes / 4 < least)
        bytes = least <= SIZE_MAX / 4 ? 4 * least : least;
    char *map = MAP_FAILED;
    for (;;) {
        map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
        if (map != MAP_FAILED || bytes == least)
            break;
        bytes = least;  /* short of address space: one stack's worth */
    }
    /* With transparent huge pages set to "always", the first touch of a
     * stack's top page could commit 2 MiB (kernels before 6.7 do not infer
     * this from MAP_STACK). Failure only means there are no huge pages. */
    if (map != MAP_FAILED)
        madvise(map, bytes, MADV_NOHUGEPAGE);
    if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) != 0) {
        int saved = errno;
        if (map != MAP_FAILED)
            munmap(map, bytes);
        free(rec);
        errno = saved;
        return -1;
    }
    rec->base = map;
    rec->bytes = bytes;
    rec->next = d->chunks;
    d->chunks = rec;
    r->last_guard = map;
    r->carve = map + page;
    r->carve_end = map + bytes;
    r->epoch = d->epoch;
    if (r->next_chunk < CHUNK_MAX)
        r->next_chunk *= 2;
    return 0;
}

static char *round_up(char *p, size_t align)
{
    uintptr_t a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
    return (char *)a;
}

myr_stack *myr_stack_depot_carve_in(myr_stack_depot *d, myr_stack_region *r,
                                    size_t usable)
{
    size_t page = myr_page_size();
    if (usable > SIZE_MAX / 8) {  /* no address space is that large */
        errno = ENOMEM;
        return NULL;
    }
    usable = myr_stack_round(usable);
    pthread_mutex_lock(&d->lock);
    if (r->epoch != d->epoch) {
        /* Its chunks went with a drain: start afresh. */
        myr_stack_region_init(r);
        r->epoch = d->epoch;
    }
    for (;;) {
        bool guarded = d->mode == MYR_STACK_GUARD_ALWAYS ||
                       (d->mode == MYR_STACK_GUARD_AUTO &&
                        d->guarded < d->guarded_max);
        char *lo = NULL;
        if (r->carve && guarded) {
            /* [guard][stack], page aligned; right above the chunk's first
             * page (or another guard) no new guard is needed. */
            char *g = round_up(r->carve, page);
            lo = g == r->last_guard + page ? g : g + page;
        } else if (r->carve) {
            /* The canary ends 64 bytes before a page boundary: in the page
             * that holds the descriptor and outermost frames of the stack
             * carved before this one. */
            lo = round_up(r->carve + MYR_STACK_CANARY_BYTES, page) -
                 MYR_STACK_CANARY_BYTES;
        }
        if (!lo || lo > r->carve_end || usable > (size_t)(r->carve_end - lo)) {
            if (new_chunk(d, r, usable + page) != 0) {
                pthread_mutex_unlock(&d->lock);
                return NULL;
            }
            continue;
        }
        if (guarded && lo - page != r->last_guard &&
            mprotect(lo - page, page, PROT_NONE) != 0) {
            /* Out of mappings sooner than the budget said (the rest of the
             * process took more): AUTO goes on with canaries. */
            int saved = errno;
            if (d->mode == MYR_STACK_GUARD_AUTO && saved == ENOMEM) {
                d->guarded_max = d->guarded;
                continue;
            }
            pthread_mutex_unlock(&d->lock);
            errno = saved;
            return NULL;
        }
        void *floor = r->last_guard;
        if (guarded) {
            floor = lo - page;
            r->last_guard = floor;
            d->guarded++;
        } else {
            d->canaried++;
        }
        r->carve = lo + usable;
        pthread_mutex_unlock(&d->lock);
        /* The first touch of the stack's pages happens outside the lock:
         * page faults of several workers proceed in parallel. */
        return stack_init(lo, usable, guarded ? page : 0, floor, true);
    }
}

myr_stack *myr_stack_depot_carve(myr_stack_depot *d, size_t usable)
{
    return myr_stack_depot_carve_in(d, &d->region, usable);
}

void myr_stack_depot_drain(myr_stack_depot *d)
{
    pthread_mutex_lock(&d->lock);
    while (d->head) {
        myr_stack *s = d->head;
        d->head = s->next;
        myr_stack_destroy(s);
    }
    d->count = 0;
    while (d->chunks) {
        myr_stack_chunk *c = d->chunks;
        d->chunks = c->next;
        munmap(c->base, c->bytes);
        free(c);
    }
    d->guarded = d->canaried = 0;
    d->epoch++;
    myr_stack_region_init(&d->region);
    d->region.epoch = d->epoch;
    pthread_mutex_unlock(&d->lock);
}

/* ---- the per-worker pool --------------------------------------------- */

void myr_stack_pool_init(myr_stack_pool *p, size_t usable, unsigned max,
                         myr_stack_depot *depot)
{
    p->head = NULL;
    p->count = 0;
    p->max = max < 2 ? 2 : max;
    p->size = myr_stack_round(usable);
    p->depot = depot;
    myr_stack_region_init(&p->region);
    if (depot) {
        pthread_mutex_lock(&depot->lock);
        p->region.epoch = depot->epoch;
        pthread_mutex_unlock(&depot->lock);
    }
}

/* Move up to n stacks from the depot into the pool. */
static void refill(myr_stack_pool *p, unsigned n)
{
    myr_stack_depot *d = p->depot;
    pthread_mutex_lock(&d->lock);
    while (n-- > 0 && d->head) {
        myr_stack *s = d->head;
        d->head = s->next;
        d->count--;
        s->next = p->head;
        p->head = s;
        p->count++;
    }
    pthread_mutex_unlock(&d->lock);
}

/* Move n stacks from the pool to the depot (one lock for the batch). */
static void spill(myr_stack_pool *p, unsigned n)
{
    if (n == 0 || !p->head)
        return;
    myr_stack *first = p->head, *last = first;
    unsigned moved = 1;
    while (moved < n && last->next) {
        last = last->next;
        moved++;
    }
    p->head = last->next;
    p->count -= moved;
    if (!p->depot) {
        last->next = NULL;
        while (first) {
            myr_stack *next = first->next;
            myr_stack_destroy(first);
            first = next;
        }
        return;
    }
    myr_stack_depot *d = p->depot;
    pthread_mutex_lock(&d->lock);
    last->next = d->head;
    d->head = first;
    d->count += moved;
    pthread_mutex_unlock(&d->lock);
}

myr_stack *myr_stack_pool_get(myr_stack_pool *p)
{
    if (!p->head && p->depot)  /* empty: a batch from the depot */
        refill(p, p->max / 2);
    myr_stack *s = p->head;
    if (s) {
        p->head = s->next;
        p->count--;
        return s;
    }
    /* New stacks one at a time: a batch would commit the pages of stacks
     * nobody may need. From the pool's own region: see stack.h. */
    return p->depot ? myr_stack_depot_carve_in(p->depot, &p->region, p->size)
                    : myr_stack_create(p->size);
}

void myr_stack_pool_put(myr_stack_pool *p, myr_stack *s)
{
    if (s->size != p->size) {
        myr_stack_destroy(s);
        return;
    }
    if (p->count >= p->max)
        spill(p, p->max / 2);
    s->next = p->head;
    p->head = s;
    p->count++;
}

void myr_stack_pool_drain(myr_stack_pool *p)
{
    spill(p, p->count);
}
