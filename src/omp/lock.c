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

static _Atomic uint32_t default_critical, atomic_lock;

void GOMP_critical_start(void) { myr_omp_mutex_lock(&default_critical); }
void GOMP_critical_end(void) { myr_omp_mutex_unlock(&default_critical); }

void GOMP_critical_name_start(void **pptr)
{
    myr_omp_mutex_lock((_Atomic uint32_t *)pptr);
}

void GOMP_critical_name_end(void **pptr)
{
    myr_omp_mutex_unlock((_Atomic uint32_t *)pptr);
}

void GOMP_atomic_start(void) { myr_omp_mutex_lock(&atomic_lock); }
void GOMP_atomic_end(void) { myr_omp_mutex_unlock(&atomic_lock); }

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
