/*
 * wireup.c — this process's place in a job of several OS processes, from
 * the PMIx server of whichever launcher started it (Myriad's mpiexec, Open
 * MPI's mpirun, PRRTE's prterun, Slurm's srun --mpi=pmix): its rank among
 * the job's processes, their number, its peers on this node, and every
 * process's count of ranks, exchanged with PMIx_Put/Commit/Fence/Get so
 * that ranks are numbered process by process. The same exchange carries
 * the engine's addresses (ucx.c). Part of libmyriad-net.so.
 */
#include "net/wireup.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pmix_proc_t self;          /* namespace and rank among the processes */
static pmix_proc_t everyone;      /* the namespace, PMIX_RANK_WILDCARD */
static long *proc_first;
static bool connected;
static const myr_net_place *filled;

static int fail(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "myriad: process %u of job %s: %s failed: %s\n", self.rank,
            self.nspace[0] ? self.nspace : "(unknown)", what, PMIx_Error_string(rc));
    return -1;
}

/* A job-level number (job size, local size) as a long; -1 if absent. */
static long job_number(const pmix_proc_t *who, const char *key)
{
    pmix_value_t *v = NULL;
    if (PMIx_Get(who, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    long n = -1;
    switch (v->type) {
    case PMIX_UINT32: n = v->data.uint32; break;
    case PMIX_UINT16: n = v->data.uint16; break;
    case PMIX_INT: n = v->data.integer; break;
    case PMIX_UINT64: n = (long)v->data.uint64; break;
    default: break;
    }
    PMIX_VALUE_RELEASE(v);
    return n;
}

int myr_wireup_place_init(long local, const myr_net_settings *settings,
                          myr_net_place *place)
{
    pmix_status_t rc = PMIx_Init(&self, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return fail("connecting to the launcher's PMIx server (PMIx_Init)", rc);
    connected = true;
    PMIX_PROC_LOAD(&everyone, self.nspace, PMIX_RANK_WILDCARD);
    long nprocs = job_number(&everyone, PMIX_JOB_SIZE);
    if (nprocs < 1 || nprocs > 1 << 24) {
        fprintf(stderr, "myriad: the PMIx server gives no job size (%s)\n", PMIX_JOB_SIZE);
        return -1;
    }
    long node_procs = job_number(&everyone, PMIX_LOCAL_SIZE);
    long node_index = job_number(&self, PMIX_LOCAL_RANK);
    long node = job_number(&self, PMIX_NODEID);
    proc_first = calloc((size_t)nprocs + 1, sizeof *proc_first);
    if (!proc_first) {
        fprintf(stderr, "myriad: out of memory for %ld processes\n", nprocs);
        return -1;
    }
    /* Every process's rank count, so that each numbers the ranks the same
     * way, and its clock, so that all take process 0's time zero. One
     * process needs no exchange. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t mine[2] = {local, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec};
    long long clock_zero = mine[1];
    if (nprocs == 1) {
        proc_first[1] = local;
    } else {
        if (myr_wireup_publish("myr.start", mine, sizeof mine) != 0)
            return -1;
        for (long p = 0; p < nprocs; p++) {
            size_t len;
            int64_t *theirs = myr_wireup_lookup((int)p, "myr.start", &len);
            if (!theirs)
                return -1;
            if (len != sizeof mine || theirs[0] < 1) {
                fprintf(stderr, "myriad: process %ld of the job published no count "
                        "of ranks: is it a Myriad program of this version?\n", p);
                free(theirs);
                return -1;
            }
            proc_first[p + 1] = proc_first[p] + theirs[0];
            if (p == 0)
                clock_zero = theirs[1];
            free(theirs);
        }
    }
    *place = (myr_net_place){
        .nprocs = (int)nprocs,
        .proc = (int)self.rank,
        .job_size = proc_first[nprocs],
        .first = proc_first[self.rank],
        .local = local,
        .proc_first = proc_first,
        .node_procs = node_procs > 0 ? (int)node_procs : 1,
        .node_index = node_index >= 0 ? (int)node_index : 0,
        .node = node >= 0 ? (int)node : 0,
        .clock_zero_ns = clock_zero,
        .launcher = settings->by_mpiexec ? "mpiexec" : "PMIx",
    };
    filled = place;
    return 0;
}

int myr_wireup_publish(const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS)
        return fail("publishing (PMIx_Put)", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return fail("publishing (PMIx_Commit)", rc);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(&everyone, 1, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS)
        return fail("exchanging with the other processes (PMIx_Fence)", rc);
    return 0;
}

void *myr_wireup_lookup(int proc, const char *key, size_t *len)
{
    pmix_proc_t who;
    PMIX_PROC_LOAD(&who, self.nspace, (pmix_rank_t)proc);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&who, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        char what[96];
        snprintf(what, sizeof what, "reading what process %d published (PMIx_Get %s)",
                 proc, key);
        fail(what, rc);
        return NULL;
    }
    void *copy = NULL;
    if (v->type == PMIX_BYTE_OBJECT) {
        *len = v->data.bo.size;
        copy = malloc(*len ? *len : 1);
        if (copy)
            memcpy(copy, v->data.bo.bytes, *len);
    } else {
        fprintf(stderr, "myriad: process %d published %s as PMIx type %d, not bytes\n",
                proc, key, (int)v->type);
    }
    PMIX_VALUE_RELEASE(v);
    return copy;
}

int myr_wireup_fence(void)
{
    pmix_status_t rc = PMIx_Fence(&everyone, 1, NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : fail("waiting for the other processes (PMIx_Fence)", rc);
}

void myr_wireup_abort(int status, const char *why)
{
    if (connected)
        PMIx_Abort(status, why, NULL, 0);
}

void myr_wireup_place_fini(void)
{
    if (connected)
        PMIx_Finalize(NULL, 0);
    connected = false;
}

const myr_net_place *myr_wireup_place(void)
{
    return filled;
}

const char *myr_wireup_version(void)
{
    return PMIx_Get_version();
}
