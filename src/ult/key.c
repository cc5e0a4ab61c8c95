/*
 * key.c — ULT-local storage.
 *
 * Keys are indexes into a global table of destructors; each ULT holds a
 * lazily grown array of values. Deleted keys are never reused, so a stale
 * value can never be read through a new key (MYR_KEYS_MAX keys per run).
 */
#include "ult/internal.h"

#include <stdlib.h>

#define MYR_KEYS_MAX 1024

static _Atomic unsigned nkeys_created;
static _Atomic(void (*)(void *)) key_destructor[MYR_KEYS_MAX];
static _Atomic unsigned char key_live[MYR_KEYS_MAX];

int myr_key_create(myr_key_t *key, void (*destructor)(void *))
{
    if (!key)
        return MYR_ERR_ARG;
    unsigned k = atomic_fetch_add(&nkeys_created, 1);
    if (k >= MYR_KEYS_MAX) {
        atomic_fetch_sub(&nkeys_created, 1);
        return MYR_ERR_NOMEM;
    }
    atomic_store(&key_destructor[k], destructor);
    atomic_store(&key_live[k], 1);
    *key = k;
    return MYR_OK;
}

static int key_valid(myr_key_t key)
{
    return key < MYR_KEYS_MAX && atomic_load(&key_live[key]);
}

int myr_key_delete(myr_key_t key)
{
    if (!key_valid(key))
        return MYR_ERR_ARG;
    atomic_store(&key_live[key], 0);
    return MYR_OK;
}

int myr_key_set(myr_key_t key, void *value)
{
    if (!key_valid(key))
        return MYR_ERR_ARG;
    myr_ult *u = myr_ult_self();
    if (!u)
        return MYR_ERR_STATE;
    if (key >= u->nkeys) {
        unsigned n = u->nkeys ? u->nkeys : 8;
        while (n <= key)
            n *= 2;
        void **grown = realloc(u->keys, n * sizeof *grown);
        if (!grown)
            return MYR_ERR_NOMEM;
        for (unsigned i = u->nkeys; i < n; i++)
            grown[i] = NULL;
        u->keys = grown;
        u->nkeys = n;
    }
    u->keys[key] = value;
    return MYR_OK;
}

int myr_key_get(myr_key_t key, void **value)
{
    if (!value)
        return MYR_ERR_ARG;
    *value = NULL;
    if (!key_valid(key))
        return MYR_ERR_ARG;
    myr_ult *u = myr_ult_self();
    if (!u)
        return MYR_ERR_STATE;
    if (key < u->nkeys)
        *value = u->keys[key];
    return MYR_OK;
}

/* Run in the ending ULT, on its own stack. As POSIX does for thread keys,
 * repeat while destructors store new values (a bounded number of times). */
void myr_key_run_destructors(myr_ult *u)
{
    for (int pass = 0; pass < 4; pass++) {
        int again = 0;
        for (unsigned k = 0; k < u->nkeys; k++) {
            void *v = u->keys[k];
            void (*d)(void *) = atomic_load(&key_destructor[k]);
            if (!v || !atomic_load(&key_live[k]))
                continue;
            u->keys[k] = NULL;
            if (d) {
                d(v);
                again = 1;
            }
        }
        if (!again)
            break;
    }
}
