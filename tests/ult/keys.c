/* keys.c — ULT-local storage: one slot per key in every ULT, destructors
 * at ULT exit. Usage: keys CASE. */
#include <stdatomic.h>

#include "../check.h"
#include "myr_ult.h"

static myr_key_t key;
static _Atomic long destroyed_sum, destroyed_count;

static void destroy(void *v)
{
    atomic_fetch_add(&destroyed_sum, (long)v);
    atomic_fetch_add(&destroyed_count, 1);
}

static void *keeps_own_value(void *arg)
{
    void *v = (void *)1;
    CHECK_OK(myr_key_get(key, &v));
    CHECK(v == NULL);  /* a fresh ULT starts with NULL */
    CHECK_OK(myr_key_set(key, arg));
    for (int i = 0; i < 100; i++) {
        myr_ult_yield();
        CHECK_OK(myr_key_get(key, &v));
        CHECK(v == arg);
    }
    return NULL;
}

/* 200 ULTs on two workers each keep their own value under one key, and the
 * destructor sees each value once when its ULT ends. */
static void each_ult_has_its_own_value(void)
{
    myr_config_t cfg = {.workers = 2};
    CHECK_OK(myr_init_config(&cfg));
    CHECK_OK(myr_key_create(&key, destroy));
    enum { N = 200 };
    myr_ult_t *h[N];
    long expect = 0;
    for (long i = 0; i < N; i++) {
        CHECK_OK(myr_ult_spawn(&h[i], keeps_own_value, (void *)(i + 1)));
        expect += i + 1;
    }
    for (int i = 0; i < N; i++)
        CHECK_OK(myr_ult_join(h[i], NULL));
    CHECK(atomic_load(&destroyed_count) == N);
    CHECK(atomic_load(&destroyed_sum) == expect);
    CHECK_OK(myr_finalize());
}

/* A deleted key is refused; its destructor no longer runs. */
static void deleted_key_is_refused(void)
{
    CHECK_OK(myr_init());
    myr_key_t k;
    CHECK_OK(myr_key_create(&k, destroy));
    CHECK_OK(myr_key_set(k, (void *)7));
    CHECK_OK(myr_key_delete(k));
    void *v;
    CHECK(myr_key_set(k, (void *)8) == MYR_ERR_ARG);
    CHECK(myr_key_get(k, &v) == MYR_ERR_ARG);
    CHECK(myr_key_delete(k) == MYR_ERR_ARG);
    CHECK(myr_key_get(123456, &v) == MYR_ERR_ARG);
    CHECK(myr_key_create(NULL, NULL) == MYR_ERR_ARG);
    CHECK_OK(myr_finalize());
    CHECK(atomic_load(&destroyed_count) == 0);
}

/* Many keys in one ULT (the per-ULT array grows). */
static void many_keys_in_one_ult(void)
{
    CHECK_OK(myr_init());
    enum { K = 100 };
    myr_key_t keys[K];
    for (int i = 0; i < K; i++) {
        CHECK_OK(myr_key_create(&keys[i], NULL));
        CHECK_OK(myr_key_set(keys[i], (void *)(long)(i * 3)));
    }
    for (int i = 0; i < K; i++) {
        void *v;
        CHECK_OK(myr_key_get(keys[i], &v));
        CHECK((long)v == i * 3);
    }
    CHECK_OK(myr_finalize());
}

static const test_case cases[] = {
    {"each_ult_has_its_own_value", each_ult_has_its_own_value},
    {"deleted_key_is_refused", deleted_key_is_refused},
    {"many_keys_in_one_ult", many_keys_in_one_ult},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
