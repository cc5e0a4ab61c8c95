/*
 * engine.h — what libmyriad-net.so exports to libmyriad: one table of the
 * engine's entry points (net.h says what each does). net.c loads the
 * library and calls through the table; nothing else crosses.
 */
#ifndef MYR_NET_ENGINE_H
#define MYR_NET_ENGINE_H

#include "net/net.h"

#define MYR_NET_ENGINE_ABI 1
#define MYR_NET_ENGINE_SYMBOL "myr_net_engine_v1"

typedef struct myr_net_engine {
    int abi;                       /* MYR_NET_ENGINE_ABI */
    /* wireup.c (PMIx): fills *place; proc_first stays the engine's. */
    int (*place_init)(long local, myr_net_place *place);
    int (*publish)(const char *key, const void *data, size_t len);
    void *(*lookup)(int proc, const char *key, size_t *len);
    int (*fence)(void);
    void (*abort)(int status, const char *why);
    void (*place_fini)(void);
    /* ucx.c: transport and comm thread. */
    int (*start)(myr_net_receiver receiver);
    void (*stop)(void);
    void (*send_post)(myr_net_send *s);
    void (*fetch_post)(myr_net_fetch *f);
    bool (*on_comm_thread)(void);
    long (*in_flight)(void);
    size_t (*eager_limit)(void);
    const char *(*versions)(char *buf, size_t size);
} myr_net_engine;

#endif
