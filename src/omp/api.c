/*
 * api.c — the omp_* user API (OpenMP 4.5) over the calling ULT's state.
 * Setters change the calling task's ICVs only, as OpenMP says.
 */
#include <omp.h>   /* gcc's own: the prototypes programs compile against */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omp/omp_impl.h"

int omp_get_num_threads(void) { return (int)myr_omp_thr()->team->nthreads; }
int omp_get_thread_num(void) { return (int)myr_omp_thr()->num; }

int omp_get_max_threads(void)
{
    omp_thr *t = myr_omp_thr();
    int n = t->icv.nthreads ? t->icv.nthreads : myr_omp_default_threads();
    return n > t->icv.thread_limit ? t->icv.thread_limit : n;
}

void omp_set_num_threads(int n)
{
    /* OpenMP leaves n < 1 undefined; libgomp and LLVM take it as 1. */
    myr_omp_thr()->icv.nthreads = n < 1 ? 1 : n;
}

int omp_in_parallel(void) { return myr_omp_thr()->active_level > 0; }
int omp_get_level(void) { return myr_omp_thr()->level; }
int omp_get_active_level(void) { return myr_omp_thr()->active_level; }

static omp_thr *ancestor(int level)
{
    omp_thr *t = myr_omp_thr();
    if (level < 0 || level > t->level)
        return NULL;
    while (t->level > level)
        t = t->up;
    return t;
}

int omp_get_ancestor_thread_num(int level)
{
    omp_thr *t = ancestor(level);
    return t ? (int)t->num : -1;
}

int omp_get_team_size(int level)
{
    omp_thr *t = ancestor(level);
    return t ? (int)t->team->nthreads : -1;
}

int omp_get_num_procs(void) { return myr_worker_count(); }

void omp_set_dynamic(int d) { myr_omp_thr()->icv.dynamic = d != 0; }
int omp_get_dynamic(void) { return myr_omp_thr()->icv.dynamic; }

/* Deprecated in OpenMP 5.0: nested is max-active-levels > 1. */
void omp_set_nested(int nested)
{
    omp_thr *t = myr_omp_thr();
    if (nested && t->icv.max_active_levels <= 1)
        t->icv.max_active_levels = 255;
    else if (!nested)
        t->icv.max_active_levels = 1;
}
int omp_get_nested(void) { return myr_omp_thr()->icv.max_active_levels > 1; }

void omp_set_max_active_levels(int levels)
{
    if (levels >= 0)  /* negative: ignored, as OpenMP says */
        myr_omp_thr()->icv.max_active_levels = levels;
}
int omp_get_max_active_levels(void) { return myr_omp_thr()->icv.max_active_levels; }
int omp_get_supported_active_levels(void) { return 255; }

void omp_set_schedule(omp_sched_t kind, int chunk)
{
    omp_thr *t = myr_omp_thr();
    int k = (int)((unsigned)kind & ~OMP_SCHED_MONOTONIC);
    if (k < OMP_SCHED_STATIC || k > OMP_SCHED_AUTO)
        return;  /* not a schedule kind: ignored */
    t->icv.sched = k;
    t->icv.chunk = chunk < 1 ? (k == OMP_SCHED_STATIC ? 0 : 1) : chunk;
}

void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    omp_thr *t = myr_omp_thr();
    *kind = (omp_sched_t)t->icv.sched;
    *chunk = t->icv.chunk;
}

int omp_get_thread_limit(void) { return myr_omp_thr()->icv.thread_limit; }
int omp_in_final(void) { return myr_omp_thr()->final; }

double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double omp_get_wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int omp_get_cancellation(void) { myr_omp_thr(); return myr_omp_cancellation; }
omp_proc_bind_t omp_get_proc_bind(void) { return omp_proc_bind_false; }
int omp_get_num_places(void) { return 0; }
int omp_get_place_num(void) { return -1; }
int omp_get_partition_num_places(void) { return 0; }
int omp_get_default_device(void) { return 0; }
void omp_set_default_device(int d) { (void)d; }
int omp_get_num_devices(void) { return 0; }
int omp_get_num_teams(void) { return (int)myr_omp_thr()->num_teams; }
int omp_get_team_num(void) { return (int)myr_omp_thr()->team_num; }
int omp_is_initial_device(void) { return 1; }
int omp_get_initial_device(void) { return 0; }
int omp_get_max_task_priority(void) { return 0; }  /* priorities are not used */

/* ---- OpenMP 5 additions gcc 12's omp.h declares ---------------------- */

int omp_get_device_num(void) { return omp_get_initial_device(); }
int omp_get_place_num_procs(int place) { (void)place; return 0; }
void omp_get_place_proc_ids(int place, int *ids) { (void)place; (void)ids; }
void omp_get_partition_place_nums(int *nums) { (void)nums; }

/* teams ICVs (0: not set; GOMP_teams_reg then uses the default team
 * size and no limit). Kept with the task's ICVs, not per device. */
void omp_set_num_teams(int n)
{
    if (n > 0)
        myr_omp_thr()->icv.nteams = n;
}
int omp_get_max_teams(void) { return myr_omp_thr()->icv.nteams; }
void omp_set_teams_thread_limit(int n)
{
    if (n > 0)
        myr_omp_thr()->icv.teams_thread_limit = n;
}
int omp_get_teams_thread_limit(void) { return myr_omp_thr()->icv.teams_thread_limit; }

/* Nothing held between regions but parked ULTs, released with the rank. */
int omp_pause_resource(omp_pause_resource_t kind, int device)
{
    (void)kind;
    (void)device;
    return 0;
}
int omp_pause_resource_all(omp_pause_resource_t kind) { (void)kind; return 0; }

void omp_set_affinity_format(const char *format)
{
    (void)format;
    myr_omp_unsupported("omp_set_affinity_format (affinity: ULTs are not bound)");
}
size_t omp_get_affinity_format(char *buf, size_t size)
{
    (void)buf; (void)size;
    myr_omp_unsupported("omp_get_affinity_format (affinity: ULTs are not bound)");
}
void omp_display_affinity(const char *format)
{
    (void)format;
    myr_omp_unsupported("omp_display_affinity (affinity: ULTs are not bound)");
}
size_t omp_capture_affinity(char *buf, size_t size, const char *format)
{
    (void)buf; (void)size; (void)format;
    myr_omp_unsupported("omp_capture_affinity (affinity: ULTs are not bound)");
}

void omp_display_env(int verbose)
{
    (void)verbose;
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    static const char *kinds[] = { "?", "STATIC", "DYNAMIC", "GUIDED", "AUTO" };
    fprintf(stderr,
            "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n"
            "  _OPENMP = '201511'\n"
            "  [host] OMP_DYNAMIC = '%s'\n"
            "  [host] OMP_NESTED = '%s'\n"
            "  [host] OMP_NUM_THREADS = '%d'\n"
            "  [host] OMP_SCHEDULE = '%s,%d'\n"
            "  [host] OMP_MAX_ACTIVE_LEVELS = '%d'\n"
            "  [host] OMP_THREAD_LIMIT = '%d'\n"
            "  [host] OMP_PROC_BIND = 'FALSE'\n"
            "  MYRIAD: OpenMP threads are ULTs; default team = workers / ranks\n"
            "OPENMP DISPLAY ENVIRONMENT END\n",
            omp_get_dynamic() ? "TRUE" : "FALSE",
            omp_get_nested() ? "TRUE" : "FALSE", omp_get_max_threads(),
            (unsigned)kind <= 4 ? kinds[kind] : "?", chunk,
            omp_get_max_active_levels(), omp_get_thread_limit());
}
