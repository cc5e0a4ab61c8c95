/* inbox.c — the MPSC ready inbox (see inbox.h). */
#include "inbox.h"

#include <stddef.h>

void myr_inbox_init(myr_inbox *q)
{
    atomic_init(&q->stub.next, NULL);
    atomic_init(&q->tail, &q->stub);
    atomic_init(&q->pending, 0);
    atomic_flag_clear(&q->consumer);
    q->head = &q->stub;
}

static void link_node(myr_inbox *q, myr_qnode *n)
{
    atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
    myr_qnode *prev = atomic_exchange(&q->tail, n);
    atomic_store_explicit(&prev->next, n, memory_order_release);
}

void myr_inbox_push(myr_inbox *q, myr_qnode *n)
{
    atomic_fetch_add(&q->pending, 1);
    link_node(q, n);
}

static myr_qnode *taken(myr_inbox *q, myr_qnode *n)
{
    atomic_fetch_sub_explicit(&q->pending, 1, memory_order_relaxed);
    return n;
}

myr_qnode *myr_inbox_pop(myr_inbox *q, myr_inbox_status *status)
{
    myr_qnode *head = q->head;
    myr_qnode *next = atomic_load_explicit(&head->next, memory_order_acquire);
    if (head == &q->stub) {
        if (!next) {
            *status = myr_inbox_nonempty(q) ? MYR_INBOX_BUSY : MYR_INBOX_EMPTY;
            return NULL;
        }
        q->head = next;
        head = next;
        next = atomic_load_explicit(&next->next, memory_order_acquire);
    }
    if (next) {
        q->head = next;
        return taken(q, head);
    }
    if (head != atomic_load(&q->tail)) {
        *status = MYR_INBOX_BUSY;  /* a producer is between its two steps */
        return NULL;
    }
    /* `head` is the last node: put the stub behind it so it can be taken. */
    link_node(q, &q->stub);
    next = atomic_load_explicit(&head->next, memory_order_acquire);
    if (next) {
        q->head = next;
        return taken(q, head);
    }
    *status = MYR_INBOX_BUSY;
    return NULL;
}
