/*
 * lock.c — critical, atomic, and the omp_*_lock API.
 *
 * gcc's omp.h gives omp_lock_t 4 bytes and omp_nest_lock_t 16 (x86_64):
 * a lock is one lock word (park.c), so a waiting ULT leaves its worker to
 * other ULTs. A named critical section's lock is the pointer-sized common
 * symbol gcc makes for its name (zero at start): its first 4 bytes serve
 * as the lock word. A nest lock's owner is the task (its omp_thr) holding
 * it, as OpenMP says.
 */
#include <stddef.h>
#include <stdlib.h>

#include "omp/omp_impl.h"

typedef struct { _Atomic uint32_t word; } omp_lock_t;
typedef struct {
    _Atomic uint32_t word;
    int count;
    void *owner;
} omp_nest_lock_t;
_Static_assert(sizeof(omp_lock_t) == 4, "gcc's omp_lock_t is 4 bytes");
_Static_assert(sizeof(omp_nest_lock_t) == 8 + sizeof(void *),
               "gcc's omp_nest_lock_t is 8 + sizeof(void *) bytes");

typedef struct named {
    void **name;
    _Atomic uint32_t word;
    struct named *next;
} named;

#define NAMED_BUCKETS 32
struct omp_rank {
    _Atomic uint32_t critical, atomic;
    void *owner;                  /* the inherited value, NULL for non-ranks */
    omp_rank *next;
    _Atomic(named *) names[NAMED_BUCKETS];
};

#define RANK_BUCKETS 1024
static _Atomic(omp_rank *) ranks[RANK_BUCKETS];
static _Atomic uint32_t ranks_lock;

/* Entries are only added (at a bucket's head, under ranks_lock), never
 * removed, so readers walk the chains without the lock. */
omp_rank *myr_omp_rank_of(void *inherited)
{
    uintptr_t a = (uintptr_t)inherited;
    _Atomic(omp_rank *) *head = &ranks[((a >> 4) ^ (a >> 14)) % RANK_BUCKETS];
    for (int pass = 0;; pass++) {
        for (omp_rank *r = atomic_load_explicit(head, memory_order_acquire); r;
             r = r->next)
            if (r->owner == inherited)
                return r;
        if (pass) {
            omp_rank *r = calloc(1, sizeof *r);
            if (!r)
                myr_omp_unsupported("OpenMP without memory for a rank's locks");
            r->owner = inherited;
            r->next = atomic_load_explicit(head, memory_order_relaxed);
            atomic_store_explicit(head, r, memory_order_release);
            myr_omp_mutex_unlock(&ranks_lock);
            return r;
        }
        myr_omp_mutex_lock(&ranks_lock);  /* look again, then add */
    }
}

static _Atomic uint32_t *named_word(void **name)
{
    omp_rank *r = myr_omp_thr()->rank;
    uintptr_t a = (uintptr_t)name;
    _Atomic(named *) *head = &r->names[((a >> 3) ^ (a >> 9)) % NAMED_BUCKETS];
    named *first = atomic_load_explicit(head, memory_order_acquire);
    for (named *n = first; n; n = n->next)
        if (n->name == name)
            return &n->word;
    named *n = calloc(1, sizeof *n);
    if (!n)
        myr_omp_unsupported("OpenMP without memory for a critical section");
    n->name = name;
    /* Another thread of the rank may add the same name meanwhile: the CAS
     * fails, and the loop looks again from the new head. */
    for (;;) {
        n->next = first;
        if (atomic_compare_exchange_weak_explicit(head, &first, n,
                memory_order_acq_rel, memory_order_acquire))
            return &n->word;
        for (named *m = first; m; m = m->next)
            if (m->name == name) {
                free(n);
                return &m->word;
            }
    }
}

void GOMP_critical_start(void) { myr_omp_mutex_lock(&myr_omp_thr()->rank->critical); }
void GOMP_critical_end(void) { myr_omp_mutex_unlock(&myr_omp_thr()->rank->critical); }

void GOMP_critical_name_start(void **pptr)
{
    myr_omp_mutex_lock(named_word(pptr));
}

void GOMP_critical_name_end(void **pptr)
{
    myr_omp_mutex_unlock(named_word(pptr));
}

void GOMP_atomic_start(void) { myr_omp_mutex_lock(&myr_omp_thr()->rank->atomic); }
void GOMP_atomic_end(void) { myr_omp_mutex_unlock(&myr_omp_thr()->rank->atomic); }

void omp_init_lock(omp_lock_t *l) { atomic_init(&l->word, 0); }
void omp_init_lock_with_hint(omp_lock_t *l, int hint)
{
    (void)hint;
    atomic_init(&l->word, 0);
}
void omp_destroy_lock(omp_lock_t *l) { (void)l; }
void omp_set_lock(omp_lock_t *l) { myr_omp_mutex_lock(&l->word); }
void omp_unset_lock(omp_lock_t *l) { myr_omp_mutex_unlock(&l->word); }
int omp_test_lock(omp_lock_t *l) { return myr_omp_mutex_trylock(&l->word); }

void omp_init_nest_lock(omp_nest_lock_t *l)
{
    atomic_init(&l->word, 0);
    l->count = 0;
    l->owner = NULL;
}
void omp_init_nest_lock_with_hint(omp_nest_lock_t *l, int hint)
{
    (void)hint;
    omp_init_nest_lock(l);
}
void omp_destroy_nest_lock(omp_nest_lock_t *l) { (void)l; }

/* owner and count change only while the word is held, by the holder; a
 * task reading owner == itself can only have written it itself. */
void omp_set_nest_lock(omp_nest_lock_t *l)
{
    omp_thr *t = myr_omp_thr();
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
        l->count++;
        return;
    }
    myr_omp_mutex_lock(&l->word);
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    l->count = 1;
}

void omp_unset_nest_lock(omp_nest_lock_t *l)
{
    if (--l->count == 0) {
        __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
        myr_omp_mutex_unlock(&l->word);
    }
}

int omp_test_nest_lock(omp_nest_lock_t *l)
{
    omp_thr *t = myr_omp_thr();
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t)
        return ++l->count;
    if (!myr_omp_mutex_trylock(&l->word))
        return 0;
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    l->count = 1;
    return 1;
}
