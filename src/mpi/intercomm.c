/*
 * intercomm.c — intercommunicators: creation, merging, the remote group,
 * and (through p2p.c, which reads myr_comm_peer) point-to-point to the
 * remote group.
 *
 * An intercommunicator handle (core.h, MYR_COMM_INTER) holds a private
 * duplicate of the local group's communicator, the remote group's rank
 * table and two context ids: `ctx` for the user's messages (a sender's
 * source is its local rank, which is the receiver's remote rank, so one id
 * serves both directions) and `ctx + 1` for the library's own messages
 * between the two leaders.
 *
 * MPI_Intercomm_create: every member duplicates its local communicator;
 * the two leaders exchange their groups over the peer communicator (the
 * leader with the lower job rank supplies the context ids: in a job of
 * several OS processes from its process's range, unique in the job);
 * each leader builds the remote rank table once and broadcasts a pointer
 * to it in its local group, so the table is not copied per member; when
 * the local group lives in several processes, the table's contents
 * instead, and each member keeps its own copy. MPI_Intercomm_merge: the leaders exchange `high`
 * over ctx + 1 and broadcast it locally; then every member knows the
 * merged order and the members meet as in MPI_Comm_create_group.
 *
 * MPI_Comm_dup/split/create on an intercommunicator (comm.c makes the new
 * local communicators, myr_intercomm_connect pairs them): every member
 * learns each remote member's color and new local rank (an intercommunicator
 * allgather) and the colors of its own group; the colors present in both
 * groups, sorted, number the new intercommunicators, whose context ids come
 * from one block that the low group's first rank takes and broadcasts.
 */
#include "mpi/mpi_impl.h"

#include "coll/coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What a leader tells the other leader. */
typedef struct leader_hello {
    int size;          /* its group's size */
    int world;         /* its job rank */
    unsigned ctx;      /* the context ids it offers */
    int err;           /* MPI_SUCCESS, or why it gives up */
} leader_hello;

/* What a leader broadcasts in its group. */
typedef struct leader_news {
    int err;
    unsigned ctx;
    int remote_size;
    myr_rankmap *remote;   /* one reference per member (by pointer) */
} leader_news;

/* Context ids for a new intercommunicator: from this process's range in a
 * job of several processes (the groups may live anywhere). 0: none left. */
static unsigned intercomm_context_ids(unsigned n)
{
    return myr_the_job.multiprocess ? myr_context_ids_spanning(n) : myr_context_ids_next(n);
}

static int leader_exchange(const char *call, MPI_Comm peer, int remote_leader, int tag,
                           MPI_Comm local, myr_rank *self, bool by_value, leader_news *news)
{
    int err;
    if ((err = myr_check_intra(call, peer)) ||
        (err = myr_check_peer(call, peer, self, "remote_leader", remote_leader, 0)))
        return err;
    leader_hello mine = {.size = myr_comm_size(local), .world = self->world_rank,
                         .ctx = intercomm_context_ids(2), .err = MPI_SUCCESS};
    leader_hello theirs;
    if ((err = PMPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, remote_leader, tag, &theirs,
                             sizeof theirs, MPI_BYTE, remote_leader, tag, peer,
                             MPI_STATUS_IGNORE)))
        return err;
    myr_rankmap *remote = myr_rankmap_new(theirs.size);
    int *ours = malloc((size_t)mine.size * sizeof *ours);
    if (!remote || !ours) {
        myr_rankmap_release(remote);
        free(ours);
        return myr_mpi_error(local, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < mine.size; i++)
        ours[i] = myr_comm_world(local, self, i);
    err = PMPI_Sendrecv(ours, mine.size, MPI_INT, remote_leader, tag, remote->world,
                        theirs.size, MPI_INT, remote_leader, tag, peer, MPI_STATUS_IGNORE);
    if (!err) {
        /* The groups must be disjoint; both leaders see the same answer. */
        unsigned char *in = calloc((size_t)myr_the_job.size, 1);
        if (!in) {
            err = myr_mpi_error(local, MPI_ERR_NO_MEM, call, "out of memory");
        } else {
            for (int i = 0; i < mine.size; i++)
                in[ours[i]] = 1;
            for (int i = 0; i < theirs.size && !err; i++)
                if (in[remote->world[i]])
                    err = myr_mpi_error(local, MPI_ERR_COMM, call,
                                        "job rank %d is in both groups (they must be "
                                        "disjoint)", remote->world[i]);
            free(in);
        }
    }
    free(ours);
    if (err) {
        myr_rankmap_release(remote);
        return err;
    }
    atomic_store_explicit(&remote->refs, by_value ? 1 : mine.size, memory_order_relaxed);
    news->ctx = mine.world < theirs.world ? mine.ctx : theirs.ctx;
    news->remote_size = theirs.size;
    news->remote = remote;
    if (news->ctx == 0) {
        myr_rankmap_release(remote);
        return myr_mpi_error(local, MPI_ERR_INTERN, call,
                             "no context ids left for intercommunicators");
    }
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char call[] = "MPI_Intercomm_create";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_intra(call, local_comm)))
        return err;
    if (local_leader < 0 || local_leader >= myr_comm_size(local_comm))
        return myr_mpi_error(local_comm, MPI_ERR_RANK, call,
                             "invalid local_leader %d (communicator size %d)",
                             local_leader, myr_comm_size(local_comm));
    if ((err = myr_check_tag(call, local_comm, tag, false)))
        return err;
    if (!newintercomm)
        return myr_mpi_error(local_comm, MPI_ERR_ARG, call, "newintercomm is NULL");
    MPI_Comm local;
    if ((err = PMPI_Comm_dup(local_comm, &local)))
        return err;
    /* A group in several processes cannot share the table by address. */
    bool by_value = myr_comm_spans_processes(local);
    bool leader = myr_comm_rank(local, self) == local_leader;
    leader_news news = {.err = MPI_SUCCESS};
    if (leader)
        news.err = leader_exchange(call, peer_comm, remote_leader, tag, local, self, by_value,
                                   &news);
    /* The leader's verdict reaches every member, so none waits forever. */
    if ((err = PMPI_Bcast(&news, sizeof news, MPI_BYTE, local_leader, local))) {
        myr_comm_release(local);
        return err;
    }
    if (news.err) {
        myr_comm_release(local);
        return myr_mpi_error(local_comm, news.err, call,
                             "the local leader (rank %d) failed to reach the remote group",
                             local_leader);
    }
    if (by_value) {
        if (!leader && !(news.remote = myr_rankmap_new(news.remote_size)))
            err = myr_mpi_error(local_comm, MPI_ERR_NO_MEM, call, "out of memory");
        /* Every member takes part, whatever happened (none waits forever). */
        int *table = news.remote ? news.remote->world : NULL;
        int *scratch = table ? NULL : malloc((size_t)news.remote_size * sizeof *scratch);
        int e = PMPI_Bcast(table ? table : scratch, news.remote_size, MPI_INT, local_leader,
                           local);
        free(scratch);
        err = err ? err : e;
        if (err) {
            myr_rankmap_release(news.remote);
            myr_comm_release(local);
            return err;
        }
    }
    MPI_Comm inter = myr_comm_inter_new(local, news.remote, news.ctx);
    if (!inter)
        return myr_mpi_error(local_comm, MPI_ERR_NO_MEM, call,
                             "out of memory for an intercommunicator");
    myr_errhandler_inherit(local_comm, inter, self);
    *newintercomm = inter;
    return MPI_SUCCESS;
}
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
    MYR_PMPI(Intercomm_create);

static int check_inter(const char *call, MPI_Comm comm)
{
    int err = myr_check_comm(call, comm);
    if (err == MPI_SUCCESS && comm->kind != MYR_COMM_INTER)
        return myr_mpi_error(comm, MPI_ERR_COMM, call,
                             "%s is not an intercommunicator",
                             comm->kind == MYR_COMM_INTRA ? "the communicator" : comm->name);
    return err;
}

/* The low group first; with equal `high`, the group whose leader has the
 * lower job rank. */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char call[] = "MPI_Intercomm_merge";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = check_inter(call, intercomm)))
        return err;
    if (!newintracomm)
        return myr_mpi_error(intercomm, MPI_ERR_ARG, call, "newintracomm is NULL");
    int mine[2] = {high != 0, intercomm->members[0]}, theirs[2];
    if (intercomm->rank == 0) {
        /* The library's own context (ctx + 1): no user message matches. */
        struct myr_mpi_comm internal = *intercomm;
        internal.context_id = intercomm->context_id + 1;
        if ((err = PMPI_Sendrecv(mine, 2, MPI_INT, 0, 0, theirs, 2, MPI_INT, 0, 0,
                                 &internal, MPI_STATUS_IGNORE)))
            return err;
    }
    if ((err = PMPI_Bcast(theirs, 2, MPI_INT, 0, intercomm->local_comm)))
        return err;
    bool local_first = mine[0] != theirs[0] ? mine[0] < theirs[0] : mine[1] < theirs[1];
    int nl = intercomm->size, nr = intercomm->remote_size;
    myr_rankmap *map = myr_rankmap_new(nl + nr);
    if (!map)
        return myr_mpi_error(intercomm, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(map->world + (local_first ? 0 : nr), intercomm->members, (size_t)nl * sizeof(int));
    memcpy(map->world + (local_first ? nl : 0), intercomm->remote_members,
           (size_t)nr * sizeof(int));
    struct myr_mpi_group merged = {.magic = MYR_MAGIC_GROUP, .size = nl + nr, .map = map};
    struct myr_mpi_comm internal = *intercomm;
    internal.context_id = intercomm->context_id + 1;
    MPI_Comm made = MPI_COMM_NULL;
    const char *why = "";
    err = myr_coll_comm_create_group(&internal, self, &merged, 0, &made, &why);
    myr_rankmap_release(map);
    if (err)
        return myr_mpi_error(intercomm, err, call, "%s", why);
    myr_errhandler_inherit(intercomm, made, self);
    *newintracomm = made;
    return MPI_SUCCESS;
}
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
    MYR_PMPI(Intercomm_merge);

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_remote_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_inter(call, comm)))
        return err;
    if (!size)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "size is NULL");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}
int MPI_Comm_remote_size(MPI_Comm comm, int *size) MYR_PMPI(Comm_remote_size);

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_remote_group";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = check_inter(call, comm)))
        return err;
    if (!group)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "group is NULL");
    myr_rankmap_retain(comm->remote);
    MPI_Group g = myr_group_new(comm->remote, comm->remote_size);
    if (!g)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a group");
    *group = g;
    return MPI_SUCCESS;
}
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) MYR_PMPI(Comm_remote_group);

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct defined colors of `colors` (n entries) also present in the
 * remote table (nr pairs of color, rank), sorted, into `out`; their count. */
static int common_colors(const int *colors, int n, const int *remote, int nr, int *out)
{
    int *theirs = malloc(((size_t)nr + 1) * sizeof *theirs);
    int k = 0;
    if (!theirs)
        return -1;
    for (int i = 0; i < nr; i++)
        theirs[i] = remote[2 * i];
    qsort(theirs, (size_t)nr, sizeof *theirs, compare_ints);
    for (int i = 0; i < n; i++)
        out[i] = colors[i];
    qsort(out, (size_t)n, sizeof *out, compare_ints);
    for (int i = 0; i < n; i++) {
        if (out[i] == MPI_UNDEFINED || (k > 0 && out[k - 1] == out[i]))
            continue;
        if (bsearch(&out[i], theirs, (size_t)nr, sizeof *theirs, compare_ints))
            out[k++] = out[i];
    }
    free(theirs);
    return k;
}

int myr_intercomm_connect(const char *call, MPI_Comm ic, myr_rank *self, MPI_Comm local,
                          int color, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    int nl = ic->size, nr = ic->remote_size;
    if (!local)
        color = MPI_UNDEFINED;
    int mine[2] = {color, local ? myr_comm_rank(local, self) : -1};
    int *remote = malloc((size_t)nr * 2 * sizeof *remote);
    int *colors = malloc((size_t)nl * sizeof *colors);
    int *common = malloc((size_t)nl * sizeof *common);
    int err = MPI_SUCCESS;
    if (!remote || !colors || !common) {
        err = myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    if ((err = PMPI_Allgather(mine, 2, MPI_INT, remote, 2, MPI_INT, ic)) ||
        (err = PMPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, ic->local_comm)))
        goto out;
    int k = common_colors(colors, nl, remote, nr, common);
    if (k < 0) {
        err = myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    if (k == 0)
        goto out;   /* no part meets a remote part: MPI_COMM_NULL everywhere */
    /* Both groups computed the same k; the low group's first rank takes the
     * block of context ids and sends it over. */
    bool low = ic->members[0] < ic->remote_members[0];
    unsigned base = 0;
    if (low && ic->rank == 0)
        base = intercomm_context_ids(2 * (unsigned)k);
    int root = low ? (ic->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if ((err = PMPI_Bcast(&base, 1, MPI_UNSIGNED, root, ic)) ||
        (low && (err = PMPI_Bcast(&base, 1, MPI_UNSIGNED, 0, ic->local_comm))))
        goto out;
    if (base == 0) {
        err = myr_mpi_error(ic, MPI_ERR_INTERN, call,
                            "no context ids left for intercommunicators");
        goto out;
    }
    const int *at = color == MPI_UNDEFINED
                        ? NULL
                        : bsearch(&color, common, (size_t)k, sizeof *common, compare_ints);
    if (!at)
        goto out;   /* no remote rank gave this color */
    int count = 0;
    for (int i = 0; i < nr; i++)
        count += remote[2 * i] == color;
    myr_rankmap *map = myr_rankmap_new(count);
    if (!map) {
        err = myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < nr; i++)
        if (remote[2 * i] == color)
            map->world[remote[2 * i + 1]] = ic->remote_members[i];
    MPI_Comm made = myr_comm_inter_new(local, map, base + 2 * (unsigned)(at - common));
    local = MPI_COMM_NULL;   /* taken */
    if (!made) {
        err = myr_mpi_error(ic, MPI_ERR_NO_MEM, call, "out of memory for an intercommunicator");
        goto out;
    }
    *newcomm = made;
out:
    if (local)
        myr_comm_release(local);
    free(remote);
    free(colors);
    free(common);
    return err;
}
