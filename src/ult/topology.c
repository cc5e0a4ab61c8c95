/*
 * topology.c — how many workers by default, and pinning one per core.
 *
 * The default worker count is the number of CPUs in the process's affinity
 * mask. With hwloc, worker i is bound to the i-th allowed core (first its
 * own core, so hyperthread siblings are used last); without it, to the i-th
 * allowed CPU. When there are more workers than allowed CPUs nobody is
 * pinned: two pinned workers on one CPU would only fight.
 */
#include "ult/internal.h"

#include <sched.h>
#include <string.h>

#ifdef MYR_HAVE_HWLOC
#include <hwloc.h>
#endif

static cpu_set_t original_mask;
static int have_original_mask;

int myr_topology_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* The allowed CPUs in the order workers should take them. */
static int ordered_cpus(int *cpus, int max)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    int n = 0;
#ifdef MYR_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        /* One PU per core first, then the remaining siblings. */
        for (int pass = 0; pass < 2; pass++) {
            int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            for (int c = 0; c < ncores; c++) {
                hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, c);
                int seen = 0, idx;
                hwloc_bitmap_foreach_begin(idx, core->cpuset)
                    if (idx < CPU_SETSIZE && CPU_ISSET(idx, &set)) {
                        if ((pass == 0 && seen == 0) || (pass == 1 && seen > 0))
                            if (n < max)
                                cpus[n++] = idx;
                        seen++;
                    }
                hwloc_bitmap_foreach_end();
            }
        }
        hwloc_topology_destroy(topo);
        if (n > 0)
            return n;
    }
#endif
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

static int plan_cpu[CPU_SETSIZE];
static int plan_n;

/* Decide, before anybody is pinned (threads inherit their creator's mask),
 * which CPU each worker gets; 0 workers pinned when they outnumber CPUs. */
void myr_topology_plan(int nworkers, int first_cpu)
{
    plan_n = ordered_cpus(plan_cpu, CPU_SETSIZE);
    /* Start at the first_cpu-th: another process of the node has the
     * ones before (launch/rank_start.c). */
    if (plan_n > 0 && first_cpu % plan_n) {
        int tmp[CPU_SETSIZE], k = first_cpu % plan_n;
        for (int i = 0; i < plan_n; i++)
            tmp[i] = plan_cpu[(i + k) % plan_n];
        memcpy(plan_cpu, tmp, (size_t)plan_n * sizeof *tmp);
    }
    if (nworkers > plan_n)
        plan_n = 0;
    have_original_mask =
        sched_getaffinity(0, sizeof original_mask, &original_mask) == 0;
}

bool myr_topology_worker_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!myr_rt.bind || plan_n == 0)
        return false;   /* workers not pinned: they may run anywhere */
    for (int i = 0; i < myr_rt.nworkers && i < plan_n; i++)
        CPU_SET(plan_cpu[i], set);
    return true;
}

void myr_topology_bind(int worker_index)
{
    if (worker_index >= plan_n)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(plan_cpu[worker_index], &one);
    sched_setaffinity(0, sizeof one, &one);  /* best effort */
}

void myr_topology_restore_main(void)
{
    if (have_original_mask)
        sched_setaffinity(0, sizeof original_mask, &original_mask);
    have_original_mask = 0;
}
