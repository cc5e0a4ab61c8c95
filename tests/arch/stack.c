/* stack.c — guarded and canary ULT stacks, the chunks a depot carves them
 * from, the per-worker stack pools and the depot they share.
 * Usage: stack CASE. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch_test.h"

/* Is the page holding addr mapped (with any protection, PROT_NONE too)?
 * msync fails with ENOMEM on unmapped memory. (Not mincore: qemu-user
 * refuses it on PROT_NONE pages.) */
static int page_is_mapped(const void *addr)
{
    size_t page = myr_page_size();
    void *start = (void *)((uintptr_t)addr & ~(uintptr_t)(page - 1));
    if (msync(start, page, MS_ASYNC) == 0)
        return 1;
    CHECK(errno == ENOMEM);
    return 0;
}

/* Both ends of the mapping behind s: the guard page and the descriptor. */
static int stack_is_mapped(const void *lo, size_t guard, const void *top)
{
    return page_is_mapped((const char *)lo - guard) && page_is_mapped(top);
}

/* ---- sizes ------------------------------------------------------------ */

/* Sizes round up to whole pages, and nothing is smaller than four pages. */
static void round_gives_whole_pages_with_a_minimum(void)
{
    size_t page = myr_page_size();
    CHECK(page >= 4096 && (page & (page - 1)) == 0);
    CHECK(myr_stack_round(0) == 4 * page);
    CHECK(myr_stack_round(1) == 4 * page);
    CHECK(myr_stack_round(4 * page) == 4 * page);
    CHECK(myr_stack_round(4 * page + 1) == 5 * page);
    CHECK(myr_stack_round(10 * page - 1) == 10 * page);
    CHECK(myr_stack_round(10 * page) == 10 * page);
    CHECK(myr_stack_round(1 << 20) == 1 << 20);
}

/* A new stack is a writable, page-aligned area [lo, lo + size) of the
 * rounded size; the descriptor occupies its top 64 bytes, so the stack
 * grows down from a 64-byte aligned top just below it. */
static void create_gives_writable_area_of_rounded_size(void)
{
    size_t page = myr_page_size();
    size_t asked = 100 * 1000;
    myr_stack *s = myr_stack_create(asked);
    CHECK(s != NULL);
    CHECK(s->size == myr_stack_round(asked));
    CHECK(s->guard == page);
    CHECK((uintptr_t)s->lo % page == 0);
    char *top = myr_stack_top(s);
    CHECK(top == (char *)s->lo + s->size - 64);
    CHECK((uintptr_t)top % 64 == 0);
    memset(s->lo, 0xa5, (size_t)(top - (char *)s->lo));
    CHECK(((unsigned char *)s->lo)[0] == 0xa5);
    CHECK((unsigned char)top[-1] == 0xa5);
    CHECK(s->size == myr_stack_round(asked));  /* descriptor untouched */
    myr_stack_destroy(s);
}

/* myr_stack_in_guard is true exactly for the guard page below lo. */
static void in_guard_covers_exactly_the_guard_page(void)
{
    myr_stack *s = myr_stack_create(0);
    CHECK(s != NULL);
    char *lo = s->lo;
    CHECK(myr_stack_in_guard(s, lo - 1));
    CHECK(myr_stack_in_guard(s, lo - s->guard));
    CHECK(!myr_stack_in_guard(s, lo));
    CHECK(!myr_stack_in_guard(s, lo - s->guard - 1));
    CHECK(!myr_stack_in_guard(s, myr_stack_top(s)));
    myr_stack_destroy(s);
}

/* Writing just below lo, as a stack overflow would, kills the program with
 * SIGSEGV instead of corrupting whatever lies below. */
static void guard_page_below_lo_faults(void)
{
    myr_stack *s = myr_stack_create(0);
    CHECK(s != NULL);
    fflush(NULL);
    for (size_t offset = 1; offset <= s->guard; offset += s->guard - 1) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            struct rlimit no_core = {0, 0};
            setrlimit(RLIMIT_CORE, &no_core);
            signal(SIGSEGV, SIG_DFL);  /* a sanitizer's handler would exit */
            *(volatile char *)((char *)s->lo - offset) = 1;
            _exit(0);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
            fprintf(stderr, "write at lo - %zu: child %s %d\n", offset,
                    WIFSIGNALED(status) ? "got signal" : "exited with",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    }
    myr_stack_destroy(s);
}

/* Destroying a stack unmaps all of it, guard page included. */
static void destroy_unmaps_the_whole_mapping(void)
{
    myr_stack *s = myr_stack_create(0);
    CHECK(s != NULL);
    char *lo = s->lo;
    size_t guard = s->guard;
    char *top = myr_stack_top(s);
    CHECK(stack_is_mapped(lo, guard, top));
    myr_stack_destroy(s);
    CHECK(!page_is_mapped(lo - guard));
    CHECK(!page_is_mapped(lo));
    CHECK(!page_is_mapped(top));
}

/* A size no address space can hold is refused with ENOMEM. */
static void create_refuses_impossible_size_with_enomem(void)
{
    errno = 0;
    CHECK(myr_stack_create((size_t)1 << 62) == NULL);
    CHECK(errno == ENOMEM);
}

/* Sizes so large that rounding them, or adding the guard page, would wrap
 * around are refused with ENOMEM too (not turned into a tiny mapping). */
static void create_refuses_sizes_that_overflow(void)
{
    size_t page = myr_page_size();
    errno = 0;
    CHECK(myr_stack_create((size_t)-1) == NULL);
    CHECK(errno == ENOMEM);
    errno = 0;
    CHECK(myr_stack_create((size_t)0 - page) == NULL);
    CHECK(errno == ENOMEM);
    errno = 0;
    CHECK(myr_stack_create((size_t)0 - 2 * page) == NULL);
    CHECK(errno == ENOMEM);
}

/* ---- the pool and the depot ------------------------------------------ */

/* How many of the n stacks whose lowest usable bytes are los[] are still
 * mapped. */
static int count_mapped(char *const *los, int n)
{
    int mapped = 0;
    for (int i = 0; i < n; i++)
        mapped += page_is_mapped(los[i]);
    return mapped;
}

/* An empty pool without a depot maps stacks of its (rounded) size. */
static void pool_creates_stacks_when_empty(void)
{
    myr_stack_pool p;
    myr_stack_pool_init(&p, 5000, 4, NULL);
    CHECK(p.size == myr_stack_round(5000));
    myr_stack *s = myr_stack_pool_get(&p);
    CHECK(s != NULL);
    CHECK(s->size == p.size);
    CHECK(p.count == 0);
    myr_stack_destroy(s);
}

/* The pool hands back the most recently freed stack first (its pages are
 * the warmest), without unmapping or remapping it. */
static void pool_reuses_last_freed_stack_first(void)
{
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 4, NULL);
    myr_stack *a = myr_stack_pool_get(&p), *b = myr_stack_pool_get(&p);
    CHECK(a && b && a != b);
    memset(a->lo, 'a', 16);
    myr_stack_pool_put(&p, a);
    myr_stack_pool_put(&p, b);
    CHECK(p.count == 2);
    CHECK(myr_stack_pool_get(&p) == b);
    CHECK(myr_stack_pool_get(&p) == a);
    CHECK(p.count == 0);
    CHECK(((char *)a->lo)[15] == 'a');  /* the same memory, not a new map */
    myr_stack_destroy(a);
    myr_stack_destroy(b);
}

enum { MANY = 9 };

/* Without a depot, a pool keeps at most `max` stacks and unmaps the others
 * it is given; the ones it keeps are the ones it hands out again. */
static void pool_without_depot_unmaps_stacks_beyond_its_max(void)
{
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 4, NULL);
    myr_stack *s[MANY];
    char *los[MANY];
    for (int i = 0; i < MANY; i++) {
        CHECK((s[i] = myr_stack_pool_get(&p)) != NULL);
        los[i] = s[i]->lo;
    }
    for (int i = 0; i < MANY; i++)
        myr_stack_pool_put(&p, s[i]);
    CHECK(p.count >= 1 && p.count <= 4);
    CHECK(count_mapped(los, MANY) == (int)p.count);
    unsigned kept = p.count;
    for (unsigned i = 0; i < kept; i++) {
        myr_stack *again = myr_stack_pool_get(&p);
        CHECK(page_is_mapped(again->lo));
        int known = 0;
        for (int j = 0; j < MANY; j++)
            known |= again == s[j];
        CHECK(known);
        myr_stack_destroy(again);
    }
    CHECK(p.count == 0);
}

/* A stack of another size is not cached (a later get would hand it out as
 * if it had the pool's size): the pool unmaps it. */
static void pool_unmaps_stacks_of_another_size(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_ALWAYS, 0);
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 2, &d);
    myr_stack *big = myr_stack_create(p.size * 2);
    CHECK(big != NULL);
    char *lo = big->lo;
    myr_stack_pool_put(&p, big);
    CHECK(p.count == 0 && p.head == NULL);
    CHECK(d.count == 0);
    CHECK(!page_is_mapped(lo));
}

/* Without a depot, draining a pool unmaps every stack it holds. */
static void pool_drain_without_depot_unmaps_every_stack(void)
{
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 8, NULL);
    char *los[3];
    myr_stack *s[3];
    for (int i = 0; i < 3; i++) {
        CHECK((s[i] = myr_stack_pool_get(&p)) != NULL);
        los[i] = s[i]->lo;
    }
    for (int i = 0; i < 3; i++)
        myr_stack_pool_put(&p, s[i]);
    myr_stack_pool_drain(&p);
    CHECK(p.count == 0 && p.head == NULL);
    CHECK(count_mapped(los, 3) == 0);
}

/* With a depot, a pool beyond its max hands stacks to the depot instead of
 * unmapping them; pool and depot together hold every stack put. */
static void pool_beyond_max_moves_stacks_to_depot(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_ALWAYS, 0);
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 4, &d);
    myr_stack *s[MANY];
    char *los[MANY];
    for (int i = 0; i < MANY; i++) {
        CHECK((s[i] = myr_stack_pool_get(&p)) != NULL);
        los[i] = s[i]->lo;
    }
    for (int i = 0; i < MANY; i++)
        myr_stack_pool_put(&p, s[i]);
    CHECK(p.count <= 4);
    CHECK(d.count > 0);
    CHECK(p.count + d.count == MANY);
    CHECK(count_mapped(los, MANY) == MANY);
    myr_stack_pool_drain(&p);
    CHECK(p.count == 0 && d.count == MANY);
    myr_stack_depot_drain(&d);
    CHECK(d.count == 0 && d.head == NULL);
    CHECK(count_mapped(los, MANY) == 0);
}

/* An empty pool takes stacks from its depot before it maps new ones: the
 * stacks one worker frees, another reuses. */
static void empty_pool_refills_from_depot(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_ALWAYS, 0);
    myr_stack_pool freeing, allocating;
    myr_stack_pool_init(&freeing, 0, 4, &d);
    myr_stack_pool_init(&allocating, 0, 4, &d);
    myr_stack *s[MANY];
    for (int i = 0; i < MANY; i++)
        CHECK((s[i] = myr_stack_pool_get(&freeing)) != NULL);
    for (int i = 0; i < MANY; i++)
        myr_stack_pool_put(&freeing, s[i]);
    myr_stack_pool_drain(&freeing);
    CHECK(d.count == MANY);
    for (int n = 0; n < MANY; n++) {
        myr_stack *again = myr_stack_pool_get(&allocating);
        int known = 0;
        for (int j = 0; j < MANY; j++)
            known |= again == s[j];
        CHECK(known);
    }
    CHECK(d.count == 0 && allocating.count == 0);
    for (int i = 0; i < MANY; i++)
        myr_stack_pool_put(&allocating, s[i]);
    myr_stack_pool_drain(&allocating);
    myr_stack_depot_drain(&d);
}

/* ---- chunks: guarded and canary stacks carved by a depot -------------- */

/* In a child process: write one byte at addr. Did that kill it with
 * SIGSEGV? */
static int write_faults(void *addr)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(SIGSEGV, SIG_DFL);  /* a sanitizer's handler would exit */
        *(volatile char *)addr = 1;
        _exit(0);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

enum { CARVED = 5 };

/* NEVER: stacks come back to back from one chunk, without guard pages, each
 * with its canary in its lowest 64 bytes; a stack's canary sits in the page
 * that holds the descriptor of the stack below it, so it costs no page of
 * its own. */
static void never_carves_canary_stacks_back_to_back(void)
{
    size_t page = myr_page_size();
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    myr_stack *s[CARVED];
    for (int i = 0; i < CARVED; i++) {
        CHECK((s[i] = myr_stack_depot_carve(&d, 5 * page)) != NULL);
        CHECK(s[i]->size == 5 * page);
        CHECK(s[i]->guard == 0 && s[i]->chunked);
        CHECK((uintptr_t)s[i]->lo % page == page - MYR_STACK_CANARY_BYTES);
        CHECK((char *)myr_stack_top(s[i]) == (char *)s[i]->lo + s[i]->size - 64);
        CHECK(myr_stack_canary_intact(s[i]));
        CHECK(myr_stack_canary_word(s[i]) ==
              (const uint64_t *)((char *)s[i]->lo + MYR_STACK_CANARY_BYTES) - 1);
        CHECK(*myr_stack_canary_word(s[i]) == MYR_STACK_CANARY);
        if (i > 0) {
            CHECK(s[i]->lo == (char *)s[i - 1]->lo + s[i - 1]->size);
            CHECK((uintptr_t)s[i]->lo / page ==
                  (uintptr_t)myr_stack_top(s[i - 1]) / page);
            CHECK(s[i]->floor == s[0]->floor);
        }
    }
    CHECK(d.canaried == CARVED && d.guarded == 0);
    /* Using a whole stack, descriptor excepted, leaves the neighbours'
     * canaries and descriptors alone. */
    memset(s[2]->lo, 0x5a, s[2]->size - 64);
    CHECK(myr_stack_canary_intact(s[3]));
    CHECK(s[1]->size == 5 * page && s[3]->size == 5 * page);
    myr_stack_depot_drain(&d);
}

/* Any write into the canary is seen by the full check; the word the switch
 * path checks is the canary's highest, the first a descending overflow
 * reaches. */
static void canary_detects_writes_into_it(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    for (int at = 0; at < MYR_STACK_CANARY_BYTES; at += 7) {
        myr_stack *s = myr_stack_depot_carve(&d, 0);
        CHECK(s != NULL && myr_stack_canary_intact(s));
        ((volatile char *)s->lo)[at] ^= 1;
        CHECK(!myr_stack_canary_intact(s));
    }
    myr_stack *s = myr_stack_depot_carve(&d, 0);
    CHECK(s != NULL);
    ((volatile char *)s->lo)[MYR_STACK_CANARY_BYTES - 1] = 0;
    CHECK(*myr_stack_canary_word(s) != MYR_STACK_CANARY);
    myr_stack_depot_drain(&d);
}

/* A guarded stack has no canary: the switch path reads a word that always
 * holds the pattern. */
static void guarded_stack_checks_a_constant_canary(void)
{
    myr_stack *s = myr_stack_create(0);
    CHECK(s != NULL && s->guard > 0 && !s->chunked);
    CHECK(myr_stack_canary_word(s) == &myr_stack_no_canary);
    CHECK(myr_stack_no_canary == MYR_STACK_CANARY);
    CHECK(myr_stack_canary_intact(s));
    myr_stack_destroy(s);
}

/* A runaway overflow of a canary stack runs through the stacks below it
 * and faults on the chunk's first page: its floor. */
static void canary_stack_floor_faults(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    myr_stack *a = myr_stack_depot_carve(&d, 0);
    myr_stack *b = myr_stack_depot_carve(&d, 0);
    CHECK(a && b);
    CHECK((char *)b->floor < (char *)a->lo);
    CHECK((uintptr_t)b->floor % myr_page_size() == 0);
    CHECK(write_faults(b->floor));
    CHECK(!write_faults((char *)a->lo - 1));  /* a canary stack, no guard */
    myr_stack_depot_drain(&d);
}

/* ALWAYS: every carved stack has a guard page right below it, set with one
 * mprotect in the chunk (the first reuses the chunk's first page). */
static void always_carves_guarded_stacks(void)
{
    size_t page = myr_page_size();
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_ALWAYS, 0);
    myr_stack *s[CARVED];
    for (int i = 0; i < CARVED; i++) {
        CHECK((s[i] = myr_stack_depot_carve(&d, 0)) != NULL);
        CHECK(s[i]->guard == page && s[i]->chunked);
        CHECK((uintptr_t)s[i]->lo % page == 0);
        CHECK(s[i]->floor == (char *)s[i]->lo - page);
        CHECK(myr_stack_canary_word(s[i]) == &myr_stack_no_canary);
        CHECK(write_faults((char *)s[i]->lo - 1));
        CHECK(write_faults((char *)s[i]->lo - page));
        memset(s[i]->lo, 1, s[i]->size - 64);
    }
    CHECK(d.guarded == CARVED && d.canaried == 0);
    myr_stack_depot_drain(&d);
}

/* AUTO: guard pages for the first guarded_max stacks, canaries after. */
static void auto_switches_to_canaries_beyond_its_budget(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_AUTO, 2);
    for (int i = 0; i < CARVED; i++) {
        myr_stack *s = myr_stack_depot_carve(&d, 0);
        CHECK(s != NULL);
        CHECK((s->guard > 0) == (i < 2));
        CHECK(myr_stack_canary_intact(s));
        if (i == 2)  /* the first canary stack sits above a guarded one */
            CHECK(write_faults(s->floor));
    }
    CHECK(d.guarded == 2 && d.canaried == CARVED - 2);
    myr_stack_depot_drain(&d);
}

/* A guarded stack costs two mappings (its guard splits the chunk); a
 * canary stack costs none: 2,000 of them fit in a few chunks. */
static void canary_stacks_cost_no_mapping_each(void)
{
    enum { N = 2000 };
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    long before = check_mapping_count();
    for (int i = 0; i < N; i++)
        CHECK(myr_stack_depot_carve(&d, 64 * 1024) != NULL);
    CHECK(check_mapping_count() - before <= 8);
    myr_stack_depot_drain(&d);
    CHECK(check_mapping_count() <= before);

    myr_stack_depot_init(&d, MYR_STACK_GUARD_ALWAYS, 0);
    before = check_mapping_count();
    for (int i = 0; i < 100; i++)
        CHECK(myr_stack_depot_carve(&d, 64 * 1024) != NULL);
    long added = check_mapping_count() - before;
    CHECK(added >= 2 * 100 - 2 && added <= 2 * 100 + 8);
    myr_stack_depot_drain(&d);
}

/* Chunks grow, so few are mapped for many stacks; a stack larger than the
 * next chunk gets a chunk of its own size. Draining unmaps them all. */
static void depot_drain_unmaps_every_chunk(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    enum { N = 300 };
    static char *los[N];
    for (int i = 0; i < N; i++) {
        myr_stack *s = myr_stack_depot_carve(&d, 1 << 20);
        CHECK(s != NULL);
        los[i] = s->lo;
        ((volatile char *)s->lo)[MYR_STACK_CANARY_BYTES] = 1;
    }
    myr_stack *huge = myr_stack_depot_carve(&d, (size_t)3 << 30);
    CHECK(huge != NULL && huge->size == (size_t)3 << 30);
    CHECK(myr_stack_canary_intact(huge));
    CHECK(count_mapped(los, N) == N);
    myr_stack_depot_drain(&d);
    CHECK(count_mapped(los, N) == 0);
    CHECK(d.chunks == NULL && d.region.carve == NULL);
}

/* A depot's pools hand out carved stacks, which destroy leaves alone (they
 * go with their chunk). */
static void pool_with_depot_carves_new_stacks(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 4, &d);
    myr_stack *s = myr_stack_pool_get(&p);
    CHECK(s != NULL && s->chunked && s->guard == 0);
    CHECK(d.canaried == 1);
    myr_stack_destroy(s);
    CHECK(page_is_mapped(s->lo) && myr_stack_canary_intact(s));
    myr_stack_pool_put(&p, s);
    CHECK(myr_stack_pool_get(&p) == s);
    myr_stack_pool_put(&p, s);
    myr_stack_pool_drain(&p);
    myr_stack_depot_drain(&d);
}

/* Two pools that take new stacks in turn each carve from a region of their
 * own: a pool's stacks follow one another in the address space (each right
 * above its guard, right above the previous one), and no stack of one lies
 * between two stacks of the other. Both modes; the depot counts them all. */
static void pools_carve_from_regions_of_their_own(void)
{
    enum { N = 40 };
    size_t page = myr_page_size();
    const myr_stack_guard modes[] = {MYR_STACK_GUARD_ALWAYS, MYR_STACK_GUARD_NEVER};
    for (int m = 0; m < 2; m++) {
        myr_stack_depot d;
        myr_stack_depot_init(&d, modes[m], 0);
        myr_stack_pool a, b;
        myr_stack_pool_init(&a, 64 * 1024, N, &d);
        myr_stack_pool_init(&b, 64 * 1024, N, &d);
        myr_stack *sa[N], *sb[N];
        for (int i = 0; i < N; i++) {
            CHECK((sa[i] = myr_stack_pool_get(&a)) != NULL);
            CHECK((sb[i] = myr_stack_pool_get(&b)) != NULL);
        }
        char *a_lo = sa[0]->lo, *a_hi = (char *)myr_stack_top(sa[N - 1]);
        char *b_lo = sb[0]->lo, *b_hi = (char *)myr_stack_top(sb[N - 1]);
        for (int i = 1; i < N; i++) {
            CHECK(sa[i]->lo == (char *)sa[i - 1]->lo + sa[i - 1]->size + sa[i]->guard);
            CHECK(sb[i]->lo == (char *)sb[i - 1]->lo + sb[i - 1]->size + sb[i]->guard);
        }
        CHECK(a_hi < b_lo || b_hi < a_lo);
        CHECK(d.guarded + d.canaried == 2 * N);
        /* Every stack is whole: filling each between its canary (if any)
         * and its descriptor leaves every canary and descriptor intact. */
        size_t skip = m == 0 ? 0 : MYR_STACK_CANARY_BYTES;
        for (int i = 0; i < N; i++) {
            memset((char *)sa[i]->lo + skip, 0x5a, sa[i]->size - 64 - skip);
            memset((char *)sb[i]->lo + skip, 0xa5, sb[i]->size - 64 - skip);
        }
        for (int i = 0; i < N; i++) {
            CHECK(sa[i]->size == 64 * 1024 && sb[i]->size == 64 * 1024);
            CHECK(myr_stack_canary_intact(sa[i]) && myr_stack_canary_intact(sb[i]));
            CHECK(sa[i]->guard == (m == 0 ? page : 0));
        }
        for (int i = 0; i < N; i++) {
            myr_stack_pool_put(&a, sa[i]);
            myr_stack_pool_put(&b, sb[i]);
        }
        myr_stack_pool_drain(&a);
        myr_stack_pool_drain(&b);
        myr_stack_depot_drain(&d);
    }
}

/* A drain unmaps the chunks of every region; a pool that carves again
 * afterwards maps a new chunk instead of cutting into the unmapped one. */
static void pool_carves_afresh_after_its_depot_drains(void)
{
    myr_stack_depot d;
    myr_stack_depot_init(&d, MYR_STACK_GUARD_NEVER, 0);
    myr_stack_pool p;
    myr_stack_pool_init(&p, 0, 4, &d);
    myr_stack *s = myr_stack_pool_get(&p);
    CHECK(s != NULL);
    char *old_lo = s->lo;
    myr_stack_depot_drain(&d);   /* s goes with its chunk */
    CHECK(!page_is_mapped(old_lo));
    s = myr_stack_pool_get(&p);
    CHECK(s != NULL && page_is_mapped(s->lo) && myr_stack_canary_intact(s));
    memset(s->lo, 1, s->size - 64);
    CHECK(d.canaried == 1);
    myr_stack_pool_put(&p, s);
    myr_stack_pool_drain(&p);
    myr_stack_depot_drain(&d);
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"round_gives_whole_pages_with_a_minimum",
         round_gives_whole_pages_with_a_minimum},
        {"create_gives_writable_area_of_rounded_size",
         create_gives_writable_area_of_rounded_size},
        {"in_guard_covers_exactly_the_guard_page",
         in_guard_covers_exactly_the_guard_page},
        {"guard_page_below_lo_faults", guard_page_below_lo_faults},
        {"destroy_unmaps_the_whole_mapping", destroy_unmaps_the_whole_mapping},
        {"create_refuses_impossible_size_with_enomem",
         create_refuses_impossible_size_with_enomem},
        {"create_refuses_sizes_that_overflow", create_refuses_sizes_that_overflow},
        {"pool_creates_stacks_when_empty", pool_creates_stacks_when_empty},
        {"pool_reuses_last_freed_stack_first", pool_reuses_last_freed_stack_first},
        {"pool_without_depot_unmaps_stacks_beyond_its_max",
         pool_without_depot_unmaps_stacks_beyond_its_max},
        {"pool_unmaps_stacks_of_another_size",
         pool_unmaps_stacks_of_another_size},
        {"pool_drain_without_depot_unmaps_every_stack",
         pool_drain_without_depot_unmaps_every_stack},
        {"pool_beyond_max_moves_stacks_to_depot",
         pool_beyond_max_moves_stacks_to_depot},
        {"empty_pool_refills_from_depot", empty_pool_refills_from_depot},
        {"never_carves_canary_stacks_back_to_back",
         never_carves_canary_stacks_back_to_back},
        {"canary_detects_writes_into_it", canary_detects_writes_into_it},
        {"guarded_stack_checks_a_constant_canary",
         guarded_stack_checks_a_constant_canary},
        {"canary_stack_floor_faults", canary_stack_floor_faults},
        {"always_carves_guarded_stacks", always_carves_guarded_stacks},
        {"auto_switches_to_canaries_beyond_its_budget",
         auto_switches_to_canaries_beyond_its_budget},
        {"canary_stacks_cost_no_mapping_each",
         canary_stacks_cost_no_mapping_each},
        {"depot_drain_unmaps_every_chunk", depot_drain_unmaps_every_chunk},
        {"pool_with_depot_carves_new_stacks", pool_with_depot_carves_new_stacks},
        {"pools_carve_from_regions_of_their_own", pools_carve_from_regions_of_their_own},
        {"pool_carves_afresh_after_its_depot_drains",
         pool_carves_afresh_after_its_depot_drains},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
