/*
 * transport.h — the UCX engine and its communication thread (ucx.c): the
 * entry points behind net.h's message functions. Internal to
 * libmyriad-net.so.
 */
#ifndef MYR_NET_TRANSPORT_H
#define MYR_NET_TRANSPORT_H

#include "net/net.h"

#include "net/engine.h"

int myr_ucx_start(myr_net_receiver receiver, const myr_net_settings *settings);
void myr_ucx_stop(void);
void myr_ucx_send_post(myr_net_send *s);
void myr_ucx_fetch_post(myr_net_fetch *f);
bool myr_ucx_on_comm_thread(void);
void myr_ucx_idle_begin(void);
int myr_ucx_idle_poll(void);
void myr_ucx_idle_end(void);
void myr_ucx_expect_begin(bool waiting);
void myr_ucx_expect_end(void);
void myr_ucx_blocked(void);
void myr_ucx_blocked_busy(void);
void myr_ucx_expect_soon_begin(void);
void myr_ucx_expect_soon_end(void);
void myr_ucx_watch_soon(void);
long myr_ucx_in_flight(void);
size_t myr_ucx_eager_limit(void);
/* UCX's version and, once started, the transports in use. */
const char *myr_ucx_describe(char *buf, size_t size);

#endif
