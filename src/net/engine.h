/*
 * engine.h — what libmyriad-net.so exports to libmyriad: one table of the
 * engine's entry points (net.h says what each does). net.c loads the
 * library and calls through the table; nothing else crosses.
 */
#ifndef MYR_NET_ENGINE_H
#define MYR_NET_ENGINE_H

#include <sched.h>

#include "net/net.h"

#define MYR_NET_ENGINE_ABI 7
#define MYR_NET_ENGINE_SYMBOL "myr_net_engine_v7"

/* What the engine is told, read by net.c from the environment (base/env.h
 * is libmyriad's: the engine links none of it, so that no object is in
 * both libraries). */
typedef struct myr_net_settings {
    size_t eager_bytes;        /* MYR_NET_EAGER_BYTES */
    long spin_us;              /* MYR_NET_SPIN_US */
    bool verbose;              /* MYR_VERBOSE: statistics at stop */
    bool by_mpiexec;           /* MYR_MPIEXEC_PMIX: the server is mpiexec's */
    bool others_drive;         /* MYR_NET_IDLE_DRIVE: posters may issue */
    cpu_set_t comm_cpus;       /* where the comm thread may run (net.c) */
} myr_net_settings;

typedef struct myr_net_engine {
    int abi;                       /* MYR_NET_ENGINE_ABI */
    /* wireup.c (PMIx): fills *place; proc_first stays the engine's. */
    int (*place_init)(long local, const myr_net_settings *settings, myr_net_place *place);
    int (*publish)(const char *key, const void *data, size_t len);
    void *(*lookup)(int proc, const char *key, size_t *len);
    int (*fence)(void);
    void (*abort)(int status, const char *why);
    void (*place_fini)(void);
    /* ucx.c: transport and comm thread. */
    int (*start)(myr_net_receiver receiver, const myr_net_settings *settings);
    void (*stop)(void);
    void (*send_post)(myr_net_send *s);
    void (*fetch_post)(myr_net_fetch *f);
    bool (*on_comm_thread)(void);
    void (*idle_begin)(void);
    int (*idle_poll)(void);
    void (*idle_end)(void);
    void (*expect_begin)(bool waiting);
    void (*expect_end)(void);
    void (*blocked)(void);
    void (*blocked_busy)(void);
    void (*expect_soon_begin)(void);
    void (*expect_soon_end)(void);
    void (*watch_soon)(void);
    long (*in_flight)(void);
    size_t (*eager_limit)(void);
    const char *(*versions)(char *buf, size_t size);
} myr_net_engine;

#endif
