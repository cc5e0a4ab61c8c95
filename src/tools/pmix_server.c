/*
 * pmix_server.c — the PMIx server of myriad-launch, on Debian's libpmix:
 * the job's processes connect to it (PMIx_Init in net/wireup.c) to learn
 * their place and to exchange what they publish (PMIx_Put, PMIx_Commit,
 * PMIx_Fence, PMIx_Get). The library does the work; this file gives it the
 * job's description (namespace and per-process information, as Open MPI's
 * and Slurm's servers do) and the host upcalls it needs:
 *
 *   client_connected  a process called PMIx_Init
 *   client_finalized  it called PMIx_Finalize, or its connection closed
 *   abort             it called PMIx_Abort (MPI_Abort)
 *   fence_nb          every process reached a fence: with one server on one
 *                     node the library already holds all the data, so the
 *                     upcall hands back what it was given
 *
 * direct_modex is not needed: every process is local, so the library
 * answers every PMIx_Get itself. The upcalls run on the library's progress
 * thread; they only report to launcher.c (which locks) and answer at once.
 *
 * Connections: PMIx 4.2's clients reach the server over TCP, which is kept
 * to loopback (no remote connections, no tool support, interface lo, IPv4:
 * it listens on 127.0.0.1 only); whatever files it makes go to a private
 * directory made here (mode 0700), removed at the end.
 */
#include "tools/launcher.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef MYR_HAVE_HWLOC
#include <hwloc.h>
#endif

static pmix_nspace_t nspace;
static char tmpdir[PATH_MAX];
#ifdef MYR_HAVE_HWLOC
static hwloc_topology_t topology;   /* the library's until the process ends */
#endif

/* ---- upcalls (PMIx's progress thread) ------------------------------------ */

/* Each upcall answers by returning PMIX_OPERATION_SUCCEEDED (done
 * atomically, no callback): calling the library's callback from inside
 * its own upcall is not safe in every PMIx 4 release. */

static pmix_status_t on_connected(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object, (void)cbfunc, (void)cbdata;
    myr_launcher_connected((int)proc->rank);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_connected2(const pmix_proc_t *proc, void *server_object,
                                   pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo;
    return on_connected(proc, server_object, cbfunc, cbdata);
}

static pmix_status_t on_finalized(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object, (void)cbfunc, (void)cbdata;
    myr_launcher_finalized((int)proc->rank);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_abort(const pmix_proc_t *proc, void *server_object, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    /* MPI_Abort ends the whole job whatever communicator it names (MPI
     * allows that), so `procs` is not looked at. The caller is released:
     * it exits by itself with its status while the others are ended. */
    (void)server_object, (void)procs, (void)nprocs, (void)cbfunc, (void)cbdata;
    myr_launcher_aborted((int)proc->rank, status, msg);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo, char *data,
                              size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    /* One server holds every participant: the collected data is the
     * whole job's. The library's callback moves to its own thread before
     * it works, so calling it here is safe; `data` stays the library's
     * (no release function). */
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, data, ndata, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = on_connected,
    .client_finalized = on_finalized,
    .abort = on_abort,
    .fence_nb = on_fence,
    .client_connected2 = on_connected2,
};

/* ---- registration (main thread) ---------------------------------------- */

/* The registrations are non-blocking; the main thread waits for each. */
typedef struct op_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} op_wait;

static void op_done(pmix_status_t status, void *cbdata)
{
    op_wait *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* `rc` is what the call returned: the callback comes only on success. */
static pmix_status_t op_wait_for(op_wait *w, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

#define OP_WAIT_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0}

static int fail(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "mpiexec: the PMIx server (libpmix %s): %s failed: %s\n",
            PMIx_Get_version(), what, PMIx_Error_string(rc));
    return -1;
}

/* Add a key to an info list; false (message printed) on failure. */
static bool add(void *list, const char *key, const void *value, pmix_data_type_t type)
{
    pmix_status_t rc = PMIx_Info_list_add(list, key, value, type);
    if (rc != PMIX_SUCCESS) {
        fail(key, rc);
        return false;
    }
    return true;
}

/* What a process's PMIx client reads about the job and about each process
 * (the keys Open MPI's and Slurm's servers give): sizes, this node's
 * processes, the node and process maps, and per process its rank, local
 * and node rank, node and host name. One node, one application. */
static int register_nspace(const myr_launcher_job *job, const char *host)
{
    uint32_t n = (uint32_t)job->nprocs, zero = 0, one = 1;
    pmix_rank_t leader = 0;
    size_t peers_len = (size_t)job->nprocs * 12 + 1;
    char *peers = malloc(peers_len), *ranks = malloc(peers_len);
    if (!peers || !ranks) {
        free(peers);
        free(ranks);
        fputs("mpiexec: out of memory\n", stderr);
        return -1;
    }
    size_t at = 0;
    for (int p = 0; p < job->nprocs; p++)
        at += (size_t)snprintf(peers + at, peers_len - at, "%s%d", p ? "," : "", p);
    /* The process map lists them one by one: given as a range ("0-2"),
     * PMIx 4.2 counts one local process. */
    memcpy(ranks, peers, at + 1);
    char *node_map = NULL, *proc_map = NULL;
    pmix_status_t rc = PMIx_generate_regex(host, &node_map);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(ranks, &proc_map);
    free(ranks);
    if (rc != PMIX_SUCCESS) {
        free(peers);
        free(node_map);
        return fail("making the node and process maps", rc);
    }

    void *list = PMIx_Info_list_start();
    bool ok = add(list, PMIX_UNIV_SIZE, &n, PMIX_UINT32) &&
              add(list, PMIX_JOB_SIZE, &n, PMIX_UINT32) &&
              add(list, PMIX_MAX_PROCS, &n, PMIX_UINT32) &&
              add(list, PMIX_JOBID, nspace, PMIX_STRING) &&
              add(list, PMIX_NUM_NODES, &one, PMIX_UINT32) &&
              add(list, PMIX_NODE_MAP, node_map, PMIX_REGEX) &&
              add(list, PMIX_PROC_MAP, proc_map, PMIX_REGEX) &&
              add(list, PMIX_APPNUM, &zero, PMIX_UINT32) &&
              add(list, PMIX_APP_SIZE, &n, PMIX_UINT32) &&
              add(list, PMIX_APPLDR, &leader, PMIX_PROC_RANK);
    /* This node's processes: node-level keys go in a node's array, where
     * PMIx 4 looks for them (given flat, PMIX_LOCAL_SIZE read back 1). */
    void *node = PMIx_Info_list_start();
    pmix_data_array_t node_array;
    ok = ok && add(node, PMIX_NODEID, &zero, PMIX_UINT32) &&
         add(node, PMIX_HOSTNAME, host, PMIX_STRING) &&
         add(node, PMIX_LOCAL_SIZE, &n, PMIX_UINT32) &&
         add(node, PMIX_NODE_SIZE, &n, PMIX_UINT32) &&
         add(node, PMIX_LOCAL_PEERS, peers, PMIX_STRING) &&
         add(node, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    if (ok) {
        rc = PMIx_Info_list_convert(node, &node_array);
        ok = rc == PMIX_SUCCESS ? add(list, PMIX_NODE_INFO_ARRAY, &node_array, PMIX_DATA_ARRAY)
                                : fail("describing the node", rc) == 0;
        if (rc == PMIX_SUCCESS)
            PMIX_DATA_ARRAY_DESTRUCT(&node_array);
    }
    PMIx_Info_list_release(node);
    free(peers);
    free(node_map);
    free(proc_map);
    for (int p = 0; ok && p < job->nprocs; p++) {
        pmix_rank_t rank = (pmix_rank_t)p;
        uint16_t local = (uint16_t)p;
        void *proc = PMIx_Info_list_start();
        pmix_data_array_t array;
        /* PMIX_RANK first: the library files the rest under it. */
        ok = add(proc, PMIX_RANK, &rank, PMIX_PROC_RANK) &&
             add(proc, PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK) &&
             add(proc, PMIX_APP_RANK, &rank, PMIX_PROC_RANK) &&
             add(proc, PMIX_LOCAL_RANK, &local, PMIX_UINT16) &&
             add(proc, PMIX_NODE_RANK, &local, PMIX_UINT16) &&
             add(proc, PMIX_NODEID, &zero, PMIX_UINT32) &&
             add(proc, PMIX_APPNUM, &zero, PMIX_UINT32) &&
             add(proc, PMIX_HOSTNAME, host, PMIX_STRING);
        if (ok) {
            rc = PMIx_Info_list_convert(proc, &array);
            ok = rc == PMIX_SUCCESS ? add(list, PMIX_PROC_INFO_ARRAY, &array, PMIX_DATA_ARRAY)
                                    : fail("describing a process", rc) == 0;
            if (rc == PMIX_SUCCESS)
                PMIX_DATA_ARRAY_DESTRUCT(&array);
        }
        PMIx_Info_list_release(proc);
    }
    pmix_data_array_t all;
    if (ok) {
        rc = PMIx_Info_list_convert(list, &all);
        ok = rc == PMIX_SUCCESS || fail("describing the job", rc) == 0;
    }
    PMIx_Info_list_release(list);
    if (!ok)
        return -1;
    op_wait w = OP_WAIT_INIT;
    rc = op_wait_for(&w, PMIx_server_register_nspace(nspace, job->nprocs, all.array,
                                                     all.size, op_done, &w));
    PMIX_DATA_ARRAY_DESTRUCT(&all);
    if (rc != PMIX_SUCCESS)
        return fail("registering the job (PMIx_server_register_nspace)", rc);
    for (int p = 0; p < job->nprocs; p++) {
        pmix_proc_t proc;
        PMIX_PROC_LOAD(&proc, nspace, (pmix_rank_t)p);
        op_wait c = OP_WAIT_INIT;
        rc = op_wait_for(&c, PMIx_server_register_client(&proc, getuid(), getgid(), NULL,
                                                         op_done, &c));
        if (rc != PMIX_SUCCESS)
            return fail("registering a process (PMIx_server_register_client)", rc);
    }
    return 0;
}

/* The server's files go into a directory of its own, removed at the end. */
static int make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int n = snprintf(tmpdir, sizeof tmpdir, "%s/myriad-pmix.XXXXXX", base);
    if (n < 0 || (size_t)n >= sizeof tmpdir || !mkdtemp(tmpdir)) {
        fprintf(stderr, "mpiexec: cannot make a directory for the PMIx server in %s: %s\n",
                base, strerror(errno));
        tmpdir[0] = '\0';
        return -1;
    }
    return 0;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[PATH_MAX];
            if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub)
                continue;
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

int myr_pmix_server_start(const myr_launcher_job *job)
{
    if (make_tmpdir() != 0)
        return -1;
    /* The job's data in the library's hash tables, sent to the clients
     * over their connection, rather than its shared-memory stores: for the
     * few processes of one node those only cost time (4 MiB segments to
     * map and unmap; the server's finalize took 18 ms instead of 1). The
     * processes inherit the setting; PMIX_MCA_gds, when set, wins. */
    setenv("PMIX_MCA_gds", "hash", 0);
    /* The namespace names the job for PMIx: unique on this node. */
    snprintf(nspace, sizeof nspace, "myriad.%ld", (long)getpid());
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';

    bool no = false;
    pmix_rank_t server_rank = 0;
    pmix_info_t info[9];
    bool yes = true;
    PMIX_INFO_LOAD(&info[6], PMIX_TCP_IF_INCLUDE, "lo", PMIX_STRING);
    PMIX_INFO_LOAD(&info[7], PMIX_TCP_DISABLE_IPV6, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_REMOTE_CONNECTIONS, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_NSPACE, "myriad-launch", PMIX_STRING);
    PMIX_INFO_LOAD(&info[5], PMIX_SERVER_RANK, &server_rank, PMIX_PROC_RANK);
    size_t ninfo = 8;
#ifdef MYR_HAVE_HWLOC
    /* The node's topology, without I/O devices: left to itself, the
     * library discovers one with them (PCI, block devices), which was half
     * of its start-up here (~15 ms). */
    pmix_topology_t topo = {.source = "hwloc"};
    /* Nor are hwloc's I/O plugins loaded (PCI, OpenCL, GL, libxml: 4 ms
     * and more here); only for this process, not the job's. */
    bool blacklist = !getenv("HWLOC_PLUGINS_BLACKLIST");
    if (blacklist)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml", 1);
    int loaded = hwloc_topology_init(&topology) == 0 && hwloc_topology_load(topology) == 0;
    if (blacklist)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (loaded) {
        topo.topology = topology;
        PMIX_INFO_LOAD(&info[ninfo], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
        ninfo++;
    }
#endif
    pmix_status_t rc = PMIx_server_init(&module, info, ninfo);
    for (size_t i = 0; i < ninfo; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        fail("starting (PMIx_server_init)", rc);
        remove_tree(tmpdir);
        return -1;
    }
    if (register_nspace(job, host) != 0)
        return -1;
    /* With the hash store the library keeps no file there: remove the
     * directory now (rmdir fails if it is not empty), so that even a
     * SIGKILL'd mpiexec leaves nothing behind in $TMPDIR. */
    if (rmdir(tmpdir) == 0)
        tmpdir[0] = '\0';
    return 0;
}

int myr_pmix_server_child_env(int proc, char ***env)
{
    pmix_proc_t who;
    PMIX_PROC_LOAD(&who, nspace, (pmix_rank_t)proc);
    pmix_status_t rc = PMIx_server_setup_fork(&who, env);
    return rc == PMIX_SUCCESS ? 0 : fail("preparing a process (PMIx_server_setup_fork)", rc);
}

void myr_pmix_server_stop(void)
{
    /* No PMIx_server_finalize: it waits for the library's progress thread,
     * which a wedged store can hold forever (seen with PMIX_MCA_gds=ds21
     * after a client died), and mpiexec must not hang once its processes
     * are gone. The caller exits at once (_exit: no library destructor
     * runs beside that thread), which closes the server's sockets; what
     * the library wrote is in the directory, removed here. */
    if (tmpdir[0])
        remove_tree(tmpdir);
    tmpdir[0] = '\0';
}

const char *myr_pmix_server_version(void)
{
    return PMIx_Get_version();
}
