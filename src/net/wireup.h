/*
 * wireup.h — the PMIx client of the engine (wireup.c): the entry points
 * behind net.h's place functions. Internal to libmyriad-net.so.
 */
#ifndef MYR_NET_WIREUP_H
#define MYR_NET_WIREUP_H

#include "net/net.h"

#include "net/engine.h"

int myr_wireup_place_init(long local, const myr_net_settings *settings,
                          myr_net_place *place);
int myr_wireup_publish(const char *key, const void *data, size_t len);
void *myr_wireup_lookup(int proc, const char *key, size_t *len);
int myr_wireup_fence(void);
void myr_wireup_abort(int status, const char *why);
void myr_wireup_place_fini(void);
const char *myr_wireup_version(void);
/* The place myr_wireup_place_init filled (NULL before): the engine (ucx.c)
 * learns the job's processes from it. */
const myr_net_place *myr_wireup_place(void);

#endif
