/*
 * stack.h — ULT stacks, with the stack's own descriptor in its top 64 bytes
 * (no malloc). Two kinds:
 *
 *   guarded   | guard (PROT_NONE) | usable: grows down from here <--- | desc |
 *   canary    | canary | usable: grows down from here <-------------- | desc |
 *
 * A hit on a guard page is a SIGSEGV the runtime reports. But each guard
 * splits its mapping, so a guarded stack costs two kernel mappings (VMAs),
 * and vm.max_map_count (65,530 by default) would cap live ULTs at ~32,000.
 * A canary stack costs no mapping of its own: its lowest 64 bytes hold a
 * known pattern (MYR_STACK_CANARY), which the scheduler checks when the ULT
 * switches out and when it ends. A damaged canary means the ULT ran below
 * its stack, into the one below it.
 *
 * Pages are reserved, not committed: a ULT that touches 8 KiB of a 1 MiB
 * stack costs 8 KiB of RAM.
 *
 * Chunks. A depot (below) makes new stacks by carving them, one at a time,
 * from large mappings ("chunks", 64 MiB growing to 1 GiB), each starting with
 * a PROT_NONE page. A guarded stack carved from a chunk gets its guard page
 * with one mprotect (no mmap of its own; the split costs the same two
 * VMAs). Canary stacks sit back to back, placed so that a stack's canary
 * shares the page of the stack below it that holds that stack's descriptor
 * and outermost frames: a canary costs no page of its own. A runaway
 * recursion on a canary stack runs through the stacks below it and faults
 * on the chunk's first page (or the nearest guard page below it), which is
 * still reported.
 *
 * Regions. Each pool carves from chunks of its own (a myr_stack_region;
 * the depot keeps the list of every chunk and the guard budget), so the
 * stacks of one worker's ULTs are contiguous in the address space and
 * share no page-table page with another worker's. Measured on a 2-core
 * VM (bench/README.md): with one carving point for all pools, the two
 * workers' stacks interleaved at start-up, and a switch among 2,048 ULTs
 * per worker cost 1.6-4x what the same switch costs in a process of its
 * own; with a region per pool it costs the same.
 *
 * Which kind a depot carves is its myr_stack_guard mode: guard pages while
 * its budget of guarded stacks lasts (the runtime derives it from
 * vm.max_map_count), then canaries.
 *
 * A myr_stack_pool is a LIFO cache owned by one worker (no synchronisation):
 * a freed stack is reused while its pages are still warm. Pools trade
 * freed stacks in batches with one shared myr_stack_depot (a mutex, taken
 * once per batch), so a worker that frees many stacks another worker allocates does
 * not unmap and re-map them: mmap/munmap cost microseconds each and munmap
 * shoots down TLBs on every core. Stacks and chunks are unmapped only when
 * the depot is drained (at finalize), so the resident memory of a run is
 * that of its peak number of live ULTs.
 */
#ifndef MYR_ARCH_STACK_H
#define MYR_ARCH_STACK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct myr_stack {
    void *lo;                /* lowest usable byte (just above the guard, or
                                the first byte of the canary) */
    size_t size;             /* bytes from lo to the end of the stack;
                                this descriptor takes the top 64 of them */
    size_t guard;            /* guard bytes below lo; 0: a canary stack */
    struct myr_stack *next;  /* pool link */
    void *floor;             /* the guard page an overflow of this stack
                                faults on: lo - guard, or for a canary stack
                                the nearest PROT_NONE page below it */
    unsigned char chunked;   /* carved from a depot's chunk: unmapped with
                                the chunk, never alone */
} myr_stack;

/* The canary pattern: zero, newline, carriage-return and 0xff bytes stop
 * string copies, the rest is unlikely as data or as an address. */
#define MYR_STACK_CANARY UINT64_C(0x4d5952ff0d0a00a5)
#define MYR_STACK_CANARY_BYTES 64

/* What a stack without a canary (guarded, or a thread's own) checks
 * against: a word that always holds MYR_STACK_CANARY. */
extern const uint64_t myr_stack_no_canary;

size_t myr_page_size(void);

/* Where the stack starts (it grows down from here): just below this
 * descriptor, 64-byte aligned. */
static inline void *myr_stack_top(const myr_stack *s)
{
    return (void *)s;
}

/* The canary word a descending overflow reaches first (the highest word of
 * the canary), or &myr_stack_no_canary for a guarded stack: so the switch
 * path checks every ULT with one load and one compare, no branch on the
 * kind. */
static inline const uint64_t *myr_stack_canary_word(const myr_stack *s)
{
    if (s->guard)
        return &myr_stack_no_canary;
    return (const uint64_t *)((const char *)s->lo + MYR_STACK_CANARY_BYTES) - 1;
}

/* Read a canary word. The sanitizer build must not instrument this read:
 * the ULT's own (abandoned or overflowing) frames may have left the canary
 * poisoned, and reporting that is our job. */
#ifdef MYR_SANITIZE
__attribute__((no_sanitize_address, noinline, unused))
static uint64_t myr_stack_canary_load(const uint64_t *word)
{
    return *(const volatile uint64_t *)word;
}
#else
static inline uint64_t myr_stack_canary_load(const uint64_t *word)
{
    return *word;
}
#endif

/* Is the whole canary of `s` intact? (1 for a guarded stack.) */
int myr_stack_canary_intact(const myr_stack *s);

/* Round a requested stack size to what myr_stack_create will give. */
size_t myr_stack_round(size_t usable);

/* A guarded stack in a mapping of its own (not counted by any depot).
 * NULL with errno set (ENOMEM when out of memory or mappings). */
myr_stack *myr_stack_create(size_t usable);
/* Unmap a stack made by myr_stack_create. A stack carved from a chunk is
 * left alone: it goes when its depot is drained. */
void myr_stack_destroy(myr_stack *s);

typedef enum myr_stack_guard {
    MYR_STACK_GUARD_AUTO,    /* guard pages while the budget lasts, then
                                canaries */
    MYR_STACK_GUARD_ALWAYS,  /* guard pages only; no mapping left = NULL */
    MYR_STACK_GUARD_NEVER,   /* canaries only */
} myr_stack_guard;

/* vm.max_map_count (65530 if it cannot be read). */
long myr_stack_max_map_count(void);
/* Memory mappings the process has now (lines of /proc/self/maps; 0 if it
 * cannot be read). */
long myr_stack_mappings_in_use(void);
/* How many guarded stacks a process may have: their two mappings each may
 * use half of max_map_count; the other half is left to the rest of the
 * process (libraries, heap, chunks, the network layer). */
size_t myr_stack_guard_budget(long max_map_count);

typedef struct myr_stack_chunk myr_stack_chunk;

/* Where one carver (a pool, or the depot itself) cuts its next stack: the
 * unused end of its newest chunk. Used under the depot's lock. */
typedef struct myr_stack_region {
    char *carve;             /* the unused end [carve, carve_end) */
    char *carve_end;         /*   of the region's newest chunk */
    char *last_guard;        /* the highest PROT_NONE page below carve */
    size_t next_chunk;       /* bytes of the region's next chunk (grows) */
    unsigned long epoch;     /* the depot's epoch the chunk belongs to */
} myr_stack_region;

typedef struct myr_stack_depot {
    pthread_mutex_t lock;
    myr_stack *head;         /* free stacks */
    size_t count;
    /* Carving new stacks (under lock). */
    myr_stack_guard mode;
    size_t guarded_max;      /* AUTO: guarded stacks allowed */
    size_t guarded;          /* stacks carved, by kind */
    size_t canaried;
    myr_stack_region region; /* myr_stack_depot_carve's own */
    myr_stack_chunk *chunks; /* every chunk of every region, for drain */
    unsigned long epoch;     /* +1 at each drain: older regions are empty */
} myr_stack_depot;

/* guarded_max: for MYR_STACK_GUARD_AUTO, how many stacks get guard pages
 * before canaries (myr_stack_guard_budget()). */
void myr_stack_depot_init(myr_stack_depot *d, myr_stack_guard mode,
                          size_t guarded_max);
/* A new stack of `usable` (rounded) bytes, carved from a chunk of region
 * `r` (mapping a new chunk for it when it is full), guarded or with a
 * canary as the depot's mode says. NULL with errno set when no chunk can
 * be mapped (or, ALWAYS, no guard page set). `r` must have been set up by
 * myr_stack_region_init and be used by one carver at a time. */
myr_stack *myr_stack_depot_carve_in(myr_stack_depot *d, myr_stack_region *r,
                                    size_t usable);
/* The same from the depot's own region. */
myr_stack *myr_stack_depot_carve(myr_stack_depot *d, size_t usable);
void myr_stack_region_init(myr_stack_region *r);
/* Unmap every stack in the depot, and every chunk (all stacks carved from
 * them must be back in the depot). */
void myr_stack_depot_drain(myr_stack_depot *d);

typedef struct myr_stack_pool {
    myr_stack *head;
    unsigned count;
    unsigned max;      /* beyond this, half the pool goes to the depot */
    size_t size;       /* usable size of the stacks this pool hands out */
    myr_stack_depot *depot;  /* may be NULL: then the pool maps stacks with
                                myr_stack_create and unmaps its excess */
    myr_stack_region region; /* where the pool carves new stacks */
} myr_stack_pool;

void myr_stack_pool_init(myr_stack_pool *p, size_t usable, unsigned max,
                         myr_stack_depot *depot);
myr_stack *myr_stack_pool_get(myr_stack_pool *p);
void myr_stack_pool_put(myr_stack_pool *p, myr_stack *s);
/* Hand every stack of the pool to its depot (or unmap it without one). */
void myr_stack_pool_drain(myr_stack_pool *p);

/* Is `addr` inside the guard region of `s`? (Never for a canary stack.) */
static inline int myr_stack_in_guard(const myr_stack *s, const void *addr)
{
    const char *a = (const char *)addr, *lo = (const char *)s->lo;
    return a < lo && a >= lo - s->guard;
}

#endif
