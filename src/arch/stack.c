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
    return (usable + page - 1) / page * page;
}

myr_stack *myr_stack_create(size_t usable)
{
    size_t page = myr_page_size();
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

void myr_stack_pool_init(myr_stack_pool *p, size_t usable, unsigned max)
{
    p->head = NULL;
    p->count = 0;
    p->max = max;
    p->size = myr_stack_round(usable);
}

myr_stack *myr_stack_pool_get(myr_stack_pool *p)
{
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
    if (p->count >= p->max || s->size != p->size) {
        myr_stack_destroy(s);
        return;
    }
    s->next = p->head;
    p->head = s;
    p->count++;
}

void myr_stack_pool_drain(myr_stack_pool *p)
{
    while (p->head) {
        myr_stack *s = p->head;
        p->head = s->next;
        myr_stack_destroy(s);
    }
    p->count = 0;
}
