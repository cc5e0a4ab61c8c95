/*
 * engine.c — the table libmyriad-net.so exports (engine.h): the PMIx
 * client (wireup.c) and the UCX engine (ucx.c).
 */
#include "net/engine.h"

#include <stdio.h>

#include "net/transport.h"
#include "net/wireup.h"

static const char *versions(char *buf, size_t size)
{
    char ucx[256];
    snprintf(buf, size, "PMIx %s; %s", myr_wireup_version(),
             myr_ucx_describe(ucx, sizeof ucx));
    return buf;
}

__attribute__((visibility("default")))
const myr_net_engine myr_net_engine_v7 = {
    .abi = MYR_NET_ENGINE_ABI,
    .place_init = myr_wireup_place_init,
    .publish = myr_wireup_publish,
    .lookup = myr_wireup_lookup,
    .fence = myr_wireup_fence,
    .abort = myr_wireup_abort,
    .place_fini = myr_wireup_place_fini,
    .start = myr_ucx_start,
    .stop = myr_ucx_stop,
    .send_post = myr_ucx_send_post,
    .fetch_post = myr_ucx_fetch_post,
    .on_comm_thread = myr_ucx_on_comm_thread,
    .idle_begin = myr_ucx_idle_begin,
    .idle_poll = myr_ucx_idle_poll,
    .idle_end = myr_ucx_idle_end,
    .expect_begin = myr_ucx_expect_begin,
    .expect_end = myr_ucx_expect_end,
    .blocked = myr_ucx_blocked,
    .blocked_busy = myr_ucx_blocked_busy,
    .expect_soon_begin = myr_ucx_expect_soon_begin,
    .expect_soon_end = myr_ucx_expect_soon_end,
    .watch_soon = myr_ucx_watch_soon,
    .in_flight = myr_ucx_in_flight,
    .eager_limit = myr_ucx_eager_limit,
    .versions = versions,
};
