/*
 * myriad-info — what this Myriad is and what it would do on this machine:
 * version and build, the topology it sees, the worker count, stack size and
 * other settings a job would get in the current environment, and every
 * environment variable Myriad reads (from the one table in base/env.c,
 * which also generates docs/envvars.md), with its value here.
 *
 *   myriad-info [-h]
 */
#include <mpi.h>
#include <myr_ult.h>

#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MYR_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "base/env.h"
#include "launch/rank_stack.h"
#include "net/net.h"

static void heading(const char *title)
{
    printf("\n%s\n", title);
}

static void item(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void item(const char *name, const char *fmt, ...)
{
    printf("  %-18s ", name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* The value a job started here would see: the environment's, or the
 * default, marked. */
static const char *setting(myr_env_id id, char *buf, size_t n)
{
    const char *v = myr_env_get(id);
    if (v)
        snprintf(buf, n, "%s (set: %s)", v, myr_env_table[id].name);
    else
        snprintf(buf, n, "%s (default)", myr_env_table[id].default_text);
    return buf;
}

static void print_cpus(const cpu_set_t *set)
{
    int first = -1, printed = 0;
    for (int c = 0; c <= CPU_SETSIZE; c++) {
        bool in = c < CPU_SETSIZE && CPU_ISSET(c, set);
        if (in && first < 0)
            first = c;
        if (!in && first >= 0) {
            printf("%s%d", printed++ ? "," : "", first);
            if (c - 1 > first)
                printf("-%d", c - 1);
            first = -1;
        }
    }
}

static void machine(void)
{
    heading("Machine");
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        printf("  %-18s %d (", "usable CPUs", CPU_COUNT(&set));
        print_cpus(&set);
        printf(")\n");
    }
#ifdef MYR_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        unsigned v = hwloc_get_api_version();
        item("topology from", "hwloc %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
        item("packages", "%d", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
        item("NUMA nodes", "%d", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
        item("cores", "%d", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
        item("hardware threads", "%d", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
        const hwloc_obj_type_t caches[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                           HWLOC_OBJ_L3CACHE};
        const char *names[] = {"L1d cache", "L2 cache", "L3 cache"};
        for (int i = 0; i < 3; i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, caches[i], 0);
            if (c && c->attr)
                item(names[i], "%llu KiB x %d",
                     (unsigned long long)c->attr->cache.size / 1024,
                     hwloc_get_nbobjs_by_type(topo, caches[i]));
        }
        hwloc_topology_destroy(topo);
    } else {
        item("topology from", "hwloc failed to load the topology");
    }
#else
    item("topology from", "sched_getaffinity only (built without hwloc)");
#endif
}

static void runtime(void)
{
    char buf[160];
    heading("A job started here (mpiexec and the environment can change these)");
    myr_config_t config = {.default_stack_size = myr_rank_stack_default(1)};
    if (myr_init_config(&config) == MYR_OK) {
        item("workers", "%d (%s)", myr_worker_count(),
             myr_env_get(MYR_ENV_WORKERS) ? "MYR_WORKERS" : "one per usable CPU");
        size_t s = myr_stack_size();
        item("stack per rank", "%zu KiB (%s)", s / 1024,
             myr_env_get(MYR_ENV_STACK_SIZE) ? "MYR_STACK_SIZE"
                                             : "the thread default, ulimit -s");
        myr_finalize();
    } else {
        item("workers", "the runtime did not start with these settings");
    }
    item("worker binding", "%s", setting(MYR_ENV_BIND, buf, sizeof buf));
    item("stack guard", "%s", setting(MYR_ENV_STACK_GUARD, buf, sizeof buf));
    item("privatization", "%s", setting(MYR_ENV_PRIVATIZE, buf, sizeof buf));
    item("idle spin (us)", "%s", setting(MYR_ENV_SPIN_US, buf, sizeof buf));
    item("steal delay (us)", "%s", setting(MYR_ENV_STEAL_DELAY_US, buf, sizeof buf));
    item("deadlock check", "%s", setting(MYR_ENV_DEADLOCK, buf, sizeof buf));
    item("time limit", "%s", setting(MYR_ENV_MPIEXEC_TIMEOUT, buf, sizeof buf));
}

static void build(void)
{
    heading("Build");
    item("MPI standard", "%d.%d (mpi.h)", MPI_VERSION, MPI_SUBVERSION);
    item("architecture", "%s", MYR_INFO_ARCH);
    item("build type", "%s", MYR_INFO_BUILD_TYPE);
    item("compiler", "%s", MYR_INFO_COMPILER);
    item("sanitizers", "%s", MYR_INFO_SANITIZE ? "AddressSanitizer + UndefinedBehaviorSanitizer"
                                               : "none");
#ifdef MYR_HAVE_HWLOC
    item("hwloc", "yes (topology and binding)");
#else
    item("hwloc", "no (CPU count from the affinity mask, no per-core binding)");
#endif
    /* Loads libmyriad-net.so to ask it (UCX's and PMIx's versions), as a
     * job of several processes would; a job of one never does. */
    char net[512];
    item("network engine", "%s", myr_net_versions(net, sizeof net));
#ifdef MYR_HAVE_LAUNCHER
    item("mpiexec -nfg", "several OS processes per node (myriad-launch, a PMIx server)");
#else
    item("mpiexec -nfg", "one OS process only (built without PMIx)");
#endif
}

/* The variables, wrapped to the terminal's usual width. */
static void variables(void)
{
    heading("Environment variables Myriad reads (docs/envvars.md)");
    for (int i = 0; i < MYR_ENV_COUNT_; i++) {
        const myr_env_var *v = &myr_env_table[i];
        const char *now = myr_env_get((myr_env_id)i);
        printf("  %s  default %s%s%s\n", v->name, v->default_text, now ? "; here: " : "",
               now ? now : "");
        /* The meaning, without Markdown's backquotes, wrapped at ~76. */
        int col = 0;
        printf("      ");
        for (const char *p = v->meaning; *p;) {
            const char *end = p;
            while (*end && *end != ' ')
                end++;
            int word = 0;
            for (const char *q = p; q < end; q++)
                word += *q != '`';
            if (col > 0 && col + 1 + word > 70) {
                printf("\n      ");
                col = 0;
            } else if (col > 0) {
                putchar(' ');
                col++;
            }
            for (const char *q = p; q < end; q++)
                if (*q != '`')
                    putchar(*q);
            col += word;
            p = *end ? end + 1 : end;
        }
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        bool help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
        fprintf(help ? stdout : stderr,
                "usage: myriad-info\n"
                "Prints Myriad's version and build, the machine as Myriad sees it, the\n"
                "settings a job started here would get, and every environment variable\n"
                "Myriad reads.\n");
        return help ? 0 : 2;
    }
    printf("Myriad %s: MPI ranks as user-level threads\n", MYR_VERSION);
    build();
    machine();
    runtime();
    variables();
    return 0;
}
