/*
 * net.c — the part of the network engine that is always in libmyriad:
 * deciding whether the job has several OS processes, loading the engine
 * (libmyriad-net.so: PMIx, UCX, the comm thread) only then, and calling
 * it through its table (engine.h).
 */
#include "net/engine.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <myr_ult.h>

#include "base/env.h"
#include "ult/core_api.h"

myr_net_place myr_net_the_place;

static const myr_net_engine *engine;
static long one_process_first[2];

/* Where libmyriad-net.so is: MYR_NET_LIBRARY, else beside the libmyriad
 * this code was loaded from, else (libmyriad linked statically) the
 * install and build directories CMake gave. */
static void *load_library(char *tried, size_t size)
{
    const char *name = "libmyriad-net.so";
    const char *forced = myr_env_get(MYR_ENV_NET_LIBRARY);
    if (forced) {
        snprintf(tried, size, "%s", forced);
        return dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    }
    char path[4096];
    tried[0] = 0;
    Dl_info info;
    if (dladdr((void *)&myr_net_place_init, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash && strstr(slash, "libmyriad")) {
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname),
                     info.dli_fname, name);
            snprintf(tried, size, "%s", path);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h)
                return h;
        }
    }
#ifdef MYR_NET_INSTALL_DIR
    snprintf(path, sizeof path, "%s/%s", MYR_NET_INSTALL_DIR, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        return h;
    size_t used = strlen(tried);
    snprintf(tried + used, size - used, "%s%s", used ? ", " : "", path);
#endif
#ifdef MYR_NET_BUILD_DIR
    snprintf(path, sizeof path, "%s/%s", MYR_NET_BUILD_DIR, name);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        return h;
    used = strlen(tried);
    snprintf(tried + used, size - used, "%s%s", used ? ", " : "", path);
#endif
    return NULL;
}

static int load_engine(void)
{
    /* UCX would take SIGSEGV, SIGBUS... for backtraces of its own (libucs
     * reads this when it is loaded), and the runtime's report of which
     * rank crashed, and where (ult/overflow.c), would never be printed. A
     * user's UCX_ERROR_SIGNALS still wins. No other thread runs yet. */
    setenv("UCX_ERROR_SIGNALS", "", 0);
    char tried[8192];
    void *lib = load_library(tried, sizeof tried);
    if (!lib) {
        fprintf(stderr, "myriad: this process was started by a PMIx launcher as part of "
                "a job of several OS processes, but the network engine "
                "(libmyriad-net.so) cannot be loaded (tried %s): %s\n"
                "myriad: Myriad was built without UCX and PMIx, or the library "
                "was moved; MYR_NET_LIBRARY names it\n",
                tried[0] ? tried : "nothing", dlerror());
        return -1;
    }
    engine = dlsym(lib, MYR_NET_ENGINE_SYMBOL);
    if (!engine || engine->abi != MYR_NET_ENGINE_ABI) {
        fprintf(stderr, "myriad: %s is not the network engine of this libmyriad "
                "(no %s of version %d)\n", tried, MYR_NET_ENGINE_SYMBOL,
                MYR_NET_ENGINE_ABI);
        engine = NULL;
        return -1;
    }
    return 0;
}

static myr_net_settings settings;

/* MYR_NET_* and the rest the engine is told (engine.h): read here, where
 * the environment table is. */
static int read_settings(void)
{
    settings.eager_bytes = 16 * 1024;
    const char *v = myr_env_get(MYR_ENV_NET_EAGER_BYTES);
    if (v && (myr_env_parse_size(v, &settings.eager_bytes) != 0 ||
              settings.eager_bytes > ((size_t)1 << 30))) {
        fprintf(stderr, "myriad: MYR_NET_EAGER_BYTES=%s is not a size in bytes "
                "(expected 0..1G, e.g. 16k)\n", v);
        return -1;
    }
    settings.spin_us = -1;   /* decided at start (myr_net_start) */
    v = myr_env_get(MYR_ENV_NET_SPIN_US);
    if (v && (myr_env_parse_long(v, &settings.spin_us) != 0 || settings.spin_us > 1000000)) {
        fprintf(stderr, "myriad: MYR_NET_SPIN_US=%s is not a number of "
                "microseconds (0..1000000)\n", v);
        return -1;
    }
    v = myr_env_get(MYR_ENV_VERBOSE);
    settings.verbose = v && strcmp(v, "0") != 0;
    settings.by_mpiexec = myr_env_get(MYR_ENV_MPIEXEC_PMIX) != NULL;
    v = myr_env_get(MYR_ENV_NET_IDLE_DRIVE);
    settings.others_drive = !v || strcmp(v, "0") != 0;
    return 0;
}

int myr_net_place_init(long local)
{
    /* Every PMIx server gives its clients PMIX_NAMESPACE and PMIX_RANK. */
    if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK")) {
        one_process_first[1] = local;
        myr_net_the_place = (myr_net_place){
            .nprocs = 1, .proc = 0, .job_size = local, .first = 0, .local = local,
            .proc_first = one_process_first, .node_procs = 1, .node_index = 0,
            .launcher = myr_env_get(MYR_ENV_NRANKS) ? "mpiexec" : "singleton"};
        return 0;
    }
    if (read_settings() != 0 || load_engine() != 0)
        return -1;
    return engine->place_init(local, &settings, &myr_net_the_place);
}

int myr_net_proc_of(long rank)
{
    const myr_net_place *p = &myr_net_the_place;
    if (p->nprocs <= 1)
        return 0;
    int lo = 0, hi = p->nprocs - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (p->proc_first[mid] <= rank)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int myr_net_publish(const char *key, const void *data, size_t len)
{
    return engine ? engine->publish(key, data, len) : 0;
}

void *myr_net_lookup(int proc, const char *key, size_t *len)
{
    return engine ? engine->lookup(proc, key, len) : NULL;
}

int myr_net_fence(void)
{
    return engine ? engine->fence() : 0;
}

void myr_net_abort(int status, const char *why)
{
    if (engine)
        engine->abort(status, why);
}

void myr_net_place_fini(void)
{
    if (engine)
        engine->place_fini();
}

/* Where the comm thread runs: the node's CPUs that this process's workers
 * are not pinned to, when there are any (else all of them). Woken on a
 * CPU where one of its own workers computes, it waits for that worker's
 * time slice (the kernel does not preempt for it: perf sched measured
 * 0.6-1.6 ms), and a transfer it should drive meanwhile does not move: the
 * receiving side's overlap (bench/net.c) came out at 0-40 % in one run
 * and 95 % in the next, as the kernel happened to place the thread. */
static void comm_thread_cpus(cpu_set_t *set)
{
    cpu_set_t workers, others;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(set);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++)
        CPU_SET(c, set);
    if (!myr_topology_worker_cpus(&workers))
        return;   /* workers not pinned: anywhere */
    CPU_AND(&workers, &workers, set);
    CPU_XOR(&others, set, &workers);   /* the node's CPUs but the workers' */
    if (CPU_COUNT(&others) > 0)        /* else every CPU has a worker of ours */
        *set = others;
}

int myr_net_start(myr_net_receiver receiver)
{
    if (!engine)
        return 0;
    if (settings.spin_us < 0) {
        /* Poll only on a CPU no worker of the node's processes uses. */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        long workers = (long)myr_worker_count() * myr_net_the_place.node_procs;
        settings.spin_us = cpus > workers ? 50 : 0;
    }
    comm_thread_cpus(&settings.comm_cpus);
    return engine->start(receiver, &settings);
}

void myr_net_stop(void)
{
    if (engine)
        engine->stop();
}

void myr_net_send_post(myr_net_send *s)
{
    engine->send_post(s);
}

void myr_net_fetch_post(myr_net_fetch *f)
{
    engine->fetch_post(f);
}

void myr_net_idle_begin(void)
{
    engine->idle_begin();
}

int myr_net_idle_poll(void)
{
    return engine->idle_poll();
}

void myr_net_idle_end(void)
{
    engine->idle_end();
}

void myr_net_expect_begin(bool waiting)
{
    engine->expect_begin(waiting);
}

void myr_net_expect_end(void)
{
    engine->expect_end();
}

void myr_net_blocked(void)
{
    engine->blocked();
}

void myr_net_blocked_busy(void)
{
    engine->blocked_busy();
}

void myr_net_expect_soon_begin(void)
{
    engine->expect_soon_begin();
}

void myr_net_expect_soon_end(void)
{
    engine->expect_soon_end();
}

void myr_net_watch_soon(void)
{
    engine->watch_soon();
}

bool myr_net_on_comm_thread(void)
{
    return engine && engine->on_comm_thread();
}

long myr_net_in_flight(void)
{
    return engine ? engine->in_flight() : 0;
}

size_t myr_net_eager_limit(void)
{
    return engine ? engine->eager_limit() : 0;
}

const char *myr_net_versions(char *buf, size_t size)
{
    if (engine)
        return engine->versions(buf, size);
    char tried[8192];
    void *lib = load_library(tried, sizeof tried);
    const myr_net_engine *e = lib ? dlsym(lib, MYR_NET_ENGINE_SYMBOL) : NULL;
    if (!e || e->abi != MYR_NET_ENGINE_ABI) {
        snprintf(buf, size, "not available (%s)",
                 lib ? "libmyriad-net.so of another version" :
                       "built without UCX and PMIx, or libmyriad-net.so missing");
        return buf;
    }
    return e->versions(buf, size);
}
