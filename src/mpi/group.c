/*
 * group.c — MPI groups: ordered sets of job ranks (core.h, myr_mpi_group).
 *
 * A group is a per-rank object; its rank map is shared by reference with
 * the communicator or group it came from (MPI_Comm_group copies nothing).
 * Set operations that must find a job rank in another group use a
 * temporary job-sized table (job rank -> group rank), so they cost
 * O(job size + group sizes) rather than a product of group sizes.
 *
 * Errors belong to no communicator: they go to the rank's MPI_COMM_WORLD
 * handler (MPI 3.1, 8.3).
 */
#include "mpi/mpi_impl.h"

#include <stdlib.h>
#include <string.h>

int myr_check_group(const char *call, MPI_Group g, const char *what)
{
    if (g == MPI_GROUP_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_GROUP, call,
                             "invalid %s MPI_GROUP_NULL", what);
    if (!myr_group_valid(g))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_GROUP, call,
                             "invalid %s handle %p (%s)", what, (void *)g,
                             myr_handle_problem(g));
    return MPI_SUCCESS;
}

static int no_memory(const char *call)
{
    return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory for a group");
}

/* pos[job rank] = rank in g, or -1. NULL when out of memory. */
static int *positions(MPI_Group g)
{
    int *pos = malloc((size_t)myr_the_job.size * sizeof *pos);
    if (!pos)
        return NULL;
    memset(pos, 0xff, (size_t)myr_the_job.size * sizeof *pos);
    for (int i = 0; i < g->size; i++)
        pos[myr_group_world(g, i)] = i;
    return pos;
}

/* *newgroup = the ranks in `map` (first `size` entries; the map is taken). */
static int give_group(const char *call, myr_rankmap *map, int size, MPI_Group *newgroup)
{
    if (map)
        map->size = size;
    MPI_Group g = myr_group_new(map, size);
    if (!g)
        return no_memory(call);
    *newgroup = g;
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char call[] = "MPI_Group_size";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group, "group")))
        return err;
    if (!size)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size is NULL");
    *size = group->size;
    return MPI_SUCCESS;
}
int MPI_Group_size(MPI_Group group, int *size) MYR_PMPI(Group_size);

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char call[] = "MPI_Group_rank";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_group(call, group, "group")))
        return err;
    if (!rank)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "rank is NULL");
    *rank = myr_group_rank_of(group, self->world_rank);
    return MPI_SUCCESS;
}
int MPI_Group_rank(MPI_Group group, int *rank) MYR_PMPI(Group_rank);

static int check_rank_list(const char *call, MPI_Group g, int n, const int ranks[],
                           const char *what, bool allow_proc_null)
{
    if (n < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid n %d (must be >= 0)", n);
    if (n > 0 && !ranks)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if ((ranks[i] < 0 || ranks[i] >= g->size) &&
            !(allow_proc_null && ranks[i] == MPI_PROC_NULL))
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "invalid %s[%d] = %d (group size %d)", what, i,
                                 ranks[i], g->size);
    return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    static const char call[] = "MPI_Group_translate_ranks";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group1, "group1")) ||
        (err = myr_check_group(call, group2, "group2")) ||
        (err = check_rank_list(call, group1, n, ranks1, "ranks1", true)))
        return err;
    if (n > 0 && !ranks2)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranks2 is NULL");
    if (n == 0)
        return MPI_SUCCESS;
    int *pos = positions(group2);
    if (!pos)
        return no_memory(call);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int p = pos[myr_group_world(group1, ranks1[i])];
        ranks2[i] = p < 0 ? MPI_UNDEFINED : p;
    }
    free(pos);
    return MPI_SUCCESS;
}
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                              MPI_Group group2, int ranks2[]) MYR_PMPI(Group_translate_ranks);

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char call[] = "MPI_Group_compare";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group1, "group1")) ||
        (err = myr_check_group(call, group2, "group2")))
        return err;
    if (!result)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "result is NULL");
    if (group1->size != group2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    bool same_order = true;
    for (int i = 0; i < group1->size && same_order; i++)
        same_order = myr_group_world(group1, i) == myr_group_world(group2, i);
    if (same_order) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *pos = positions(group2);
    if (!pos)
        return no_memory(call);
    *result = MPI_SIMILAR;
    for (int i = 0; i < group1->size; i++)
        if (pos[myr_group_world(group1, i)] < 0) {
            *result = MPI_UNEQUAL;
            break;
        }
    free(pos);
    return MPI_SUCCESS;
}
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
    MYR_PMPI(Group_compare);

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* Union: group1's ranks, then group2's not in group1. Intersection and
 * difference: group1's ranks in (not in) group2, in group1's order. */
static int set_op(const char *call, MPI_Group group1, MPI_Group group2,
                  MPI_Group *newgroup, enum set_op op)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group1, "group1")) ||
        (err = myr_check_group(call, group2, "group2")))
        return err;
    if (!newgroup)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    int cap = op == SET_UNION ? group1->size + group2->size : group1->size;
    myr_rankmap *map = myr_rankmap_new(cap);
    int *pos = positions(op == SET_UNION ? group1 : group2);
    if (!map || !pos) {
        myr_rankmap_release(map);
        free(pos);
        return no_memory(call);
    }
    int n = 0;
    for (int i = 0; i < group1->size; i++) {
        int w = myr_group_world(group1, i);
        if (op == SET_UNION || (pos[w] >= 0) == (op == SET_INTERSECTION))
            map->world[n++] = w;
    }
    for (int i = 0; op == SET_UNION && i < group2->size; i++) {
        int w = myr_group_world(group2, i);
        if (pos[w] < 0)
            map->world[n++] = w;
    }
    free(pos);
    return give_group(call, map, n, newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", group1, group2, newgroup, SET_UNION);
}
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    MYR_PMPI(Group_union);

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", group1, group2, newgroup, SET_INTERSECTION);
}
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    MYR_PMPI(Group_intersection);

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", group1, group2, newgroup, SET_DIFFERENCE);
}
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    MYR_PMPI(Group_difference);

/* Include (or exclude) ranks[0..n) of `group`: valid and distinct (checked
 * here), in the order given (in group order, for exclusion). */
static int incl_excl(const char *call, MPI_Group group, int n, const int ranks[],
                     MPI_Group *newgroup, bool include)
{
    unsigned char *seen = calloc((size_t)group->size + 1, 1);
    if (!seen)
        return no_memory(call);
    for (int i = 0; i < n; i++) {
        if (seen[ranks[i]]) {
            free(seen);
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "rank %d appears twice (ranks must be distinct)",
                                 ranks[i]);
        }
        seen[ranks[i]] = 1;
    }
    int size = include ? n : group->size - n;
    myr_rankmap *map = myr_rankmap_new(size);
    if (!map) {
        free(seen);
        return no_memory(call);
    }
    if (include) {
        for (int i = 0; i < n; i++)
            map->world[i] = myr_group_world(group, ranks[i]);
    } else {
        int k = 0;
        for (int i = 0; i < group->size; i++)
            if (!seen[i])
                map->world[k++] = myr_group_world(group, i);
    }
    free(seen);
    return give_group(call, map, size, newgroup);
}

static int incl_excl_call(const char *call, MPI_Group group, int n, const int ranks[],
                          MPI_Group *newgroup, bool include)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group, "group")) ||
        (err = check_rank_list(call, group, n, ranks, "ranks", false)))
        return err;
    if (!newgroup)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    return incl_excl(call, group, n, ranks, newgroup, include);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl_call("MPI_Group_incl", group, n, ranks, newgroup, true);
}
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
    MYR_PMPI(Group_incl);

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl_call("MPI_Group_excl", group, n, ranks, newgroup, false);
}
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
    MYR_PMPI(Group_excl);

/* Expand ranges (first, last, stride) into a list of ranks. More ranks
 * than the group holds means one repeats: incl_excl reports it. */
static int range_call(const char *call, MPI_Group group, int n, int ranges[][3],
                      MPI_Group *newgroup, bool include)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group, "group")))
        return err;
    if (n < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid n %d (must be >= 0)", n);
    if (n > 0 && !ranges)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranges is NULL");
    if (!newgroup)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "ranges[%d] has stride 0", i);
        if (first < 0 || first >= group->size || last < 0 || last >= group->size)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "ranges[%d] = (%d, %d, %d) leaves the group "
                                 "(ranks 0..%d)", i, first, last, stride, group->size - 1);
        if ((stride > 0 && first <= last) || (stride < 0 && first >= last))
            total += ((long long)last - first) / stride + 1;
    }
    if (total > group->size)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                             "the ranges name %lld ranks of a group of %d: "
                             "some rank appears twice", total, group->size);
    int *list = malloc((size_t)(total ? total : 1) * sizeof *list);
    if (!list)
        return no_memory(call);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            list[k++] = (int)r;
    }
    err = incl_excl(call, group, k, list, newgroup, include);
    free(list);
    return err;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_call("MPI_Group_range_incl", group, n, ranges, newgroup, true);
}
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
    MYR_PMPI(Group_range_incl);

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_call("MPI_Group_range_excl", group, n, ranges, newgroup, false);
}
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
    MYR_PMPI(Group_range_excl);

int PMPI_Group_free(MPI_Group *group)
{
    static const char call[] = "MPI_Group_free";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!group)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "group is NULL");
    if ((err = myr_check_group(call, *group, "*group")))
        return err;
    /* MPI_GROUP_EMPTY (as returned for an empty result) only clears the
     * handle. */
    myr_group_free(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
int MPI_Group_free(MPI_Group *group) MYR_PMPI(Group_free);

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_group";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    if (!group)
        return myr_mpi_error(comm, MPI_ERR_ARG, call, "group is NULL");
    bool ok;
    myr_rankmap *map = myr_comm_rankmap(comm, self, &ok);
    MPI_Group g = ok ? myr_group_new(map, myr_comm_size(comm)) : NULL;
    if (!g)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a group");
    *group = g;
    return MPI_SUCCESS;
}
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) MYR_PMPI(Comm_group);
