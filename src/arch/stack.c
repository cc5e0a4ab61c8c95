/* stack.c — guarded ULT stacks and the per-worker stack pool. */
#include "stack.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

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
    myr_stack *s = (myr_stack *)(map + page + usable - 64);
    s->lo = map + page;
    s->size = usable;
    s->guard = page;
    s->next = NULL;
    return s;
}

void myr_stack_destroy(myr_stack *s)
{
    if (!s)
        return;
    char *map = (char *)s->lo - s->guard;
    munmap(map, s->guard + s->size);
}

void myr_stack_depot_init(myr_stack_depot *d)
{
    pthread_mutex_init(&d->lock, NULL);
    d->head = NULL;
    d->count = 0;
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
    pthread_mutex_unlock(&d->lock);
}

void myr_stack_pool_init(myr_stack_pool *p, size_t usable, unsigned max,
                         myr_stack_depot *depot)
{
    p->head = NULL;
    p->count = 0;
    p->max = max < 2 ? 2 : max;
    p->size = myr_stack_round(usable);
    p->depot = depot;
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
    if (!p->head && p->depot)  /* empty: a batch from the depot, or mmap */
        refill(p, p->max / 2);
    myr_stack *s = p->head;
    if (s) {
        p->head = s->next;
        p->count--;
        return s;
    }
    return myr_stack_create(p->size);
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
