/* group_calls.c — MPI groups: what each constructor and query gives, and
 * the error class of each bad argument. Usage: group_calls CASE. Needs at
 * least 4 ranks except where said. */
#include <mpi.h>

#include "../check.h"

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int world_size(void)
{
    int s;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    return s;
}

static MPI_Group world_group(void)
{
    MPI_Group g;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    return g;
}

/* The job ranks of g, in order (through translate_ranks to world). */
static void members(MPI_Group g, int *out)
{
    int n;
    CHECK_OK(MPI_Group_size(g, &n));
    MPI_Group w = world_group();
    for (int i = 0; i < n; i++)
        CHECK_OK(MPI_Group_translate_ranks(g, 1, &i, w, &out[i]));
    CHECK_OK(MPI_Group_free(&w));
}

static void check_members(MPI_Group g, int n, const int *want)
{
    int size;
    CHECK_OK(MPI_Group_size(g, &size));
    CHECK(size == n);
    int got[64];
    members(g, got);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i]);
}

static void comm_group_of_world_and_self(void)
{
    int n = world_size(), me = world_rank();
    MPI_Group w = world_group(), s;
    int size, rank;
    CHECK_OK(MPI_Group_size(w, &size));
    CHECK_OK(MPI_Group_rank(w, &rank));
    CHECK(size == n && rank == me);
    CHECK_OK(MPI_Comm_group(MPI_COMM_SELF, &s));
    CHECK_OK(MPI_Group_size(s, &size));
    CHECK_OK(MPI_Group_rank(s, &rank));
    CHECK(size == 1 && rank == 0);
    int zero = 0, in_world;
    CHECK_OK(MPI_Group_translate_ranks(s, 1, &zero, w, &in_world));
    CHECK(in_world == me);
    CHECK_OK(MPI_Group_free(&w));
    CHECK_OK(MPI_Group_free(&s));
    CHECK(w == MPI_GROUP_NULL && s == MPI_GROUP_NULL);
}

/* A rank outside a group has rank MPI_UNDEFINED in it. */
static void group_rank_outside_is_undefined(void)
{
    MPI_Group w = world_group(), g;
    int me = world_rank(), other = (me + 1) % world_size(), rank;
    CHECK_OK(MPI_Group_incl(w, 1, &other, &g));
    CHECK_OK(MPI_Group_rank(g, &rank));
    CHECK(rank == MPI_UNDEFINED);
    CHECK_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
    CHECK(rank == MPI_UNDEFINED);
    CHECK_OK(MPI_Group_size(MPI_GROUP_EMPTY, &rank));
    CHECK(rank == 0);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&w));
}

static void translate_ranks_maps_between_groups(void)
{
    MPI_Group w = world_group(), rev;
    int n = world_size();
    int order[64];
    for (int i = 0; i < n; i++)
        order[i] = n - 1 - i;
    CHECK_OK(MPI_Group_incl(w, n, order, &rev));
    int in[3] = {0, n - 1, MPI_PROC_NULL}, out[3];
    CHECK_OK(MPI_Group_translate_ranks(rev, 3, in, w, out));
    CHECK(out[0] == n - 1 && out[1] == 0 && out[2] == MPI_PROC_NULL);
    /* Ranks missing from the target group translate to MPI_UNDEFINED. */
    MPI_Group first;
    int zero = 0;
    CHECK_OK(MPI_Group_incl(w, 1, &zero, &first));
    int one = 1;
    CHECK_OK(MPI_Group_translate_ranks(w, 1, &one, first, out));
    CHECK(out[0] == MPI_UNDEFINED);
    CHECK_OK(MPI_Group_translate_ranks(w, 0, NULL, first, NULL));
    CHECK_OK(MPI_Group_free(&rev));
    CHECK_OK(MPI_Group_free(&first));
    CHECK_OK(MPI_Group_free(&w));
}

static void compare_gives_ident_similar_unequal(void)
{
    MPI_Group w = world_group(), w2 = world_group(), rev, part;
    int n = world_size(), result;
    int order[64];
    for (int i = 0; i < n; i++)
        order[i] = n - 1 - i;
    CHECK_OK(MPI_Group_incl(w, n, order, &rev));
    CHECK_OK(MPI_Group_incl(w, n - 1, order, &part));
    CHECK_OK(MPI_Group_compare(w, w2, &result));
    CHECK(result == MPI_IDENT);
    CHECK_OK(MPI_Group_compare(w, rev, &result));
    CHECK(result == MPI_SIMILAR);
    CHECK_OK(MPI_Group_compare(w, part, &result));
    CHECK(result == MPI_UNEQUAL);
    /* Same size, different members. */
    int a = 0, b = 1;
    MPI_Group ga, gb;
    CHECK_OK(MPI_Group_incl(w, 1, &a, &ga));
    CHECK_OK(MPI_Group_incl(w, 1, &b, &gb));
    CHECK_OK(MPI_Group_compare(ga, gb, &result));
    CHECK(result == MPI_UNEQUAL);
    CHECK_OK(MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &result));
    CHECK(result == MPI_IDENT);
    MPI_Group gs[] = {w, w2, rev, part, ga, gb};
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

/* Union: the first group's order, then the second's new ranks; the
 * intersection and the difference keep the first group's order. */
static void set_operations_keep_the_first_groups_order(void)
{
    MPI_Group w = world_group(), a, b, u, x, d;
    int ar[] = {3, 1, 2}, br[] = {2, 0, 3};
    CHECK_OK(MPI_Group_incl(w, 3, ar, &a));
    CHECK_OK(MPI_Group_incl(w, 3, br, &b));
    CHECK_OK(MPI_Group_union(a, b, &u));
    check_members(u, 4, (int[]){3, 1, 2, 0});
    CHECK_OK(MPI_Group_intersection(a, b, &x));
    check_members(x, 2, (int[]){3, 2});
    CHECK_OK(MPI_Group_difference(a, b, &d));
    check_members(d, 1, (int[]){1});
    MPI_Group gs[] = {w, a, b, u, x, d};
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

static void empty_results_are_group_empty(void)
{
    MPI_Group w = world_group(), e;
    CHECK_OK(MPI_Group_difference(w, w, &e));
    CHECK(e == MPI_GROUP_EMPTY);
    CHECK_OK(MPI_Group_incl(w, 0, NULL, &e));
    CHECK(e == MPI_GROUP_EMPTY);
    CHECK_OK(MPI_Group_intersection(w, MPI_GROUP_EMPTY, &e));
    CHECK(e == MPI_GROUP_EMPTY);
    CHECK_OK(MPI_Group_union(MPI_GROUP_EMPTY, w, &e));
    int result;
    CHECK_OK(MPI_Group_compare(e, w, &result));
    CHECK(result == MPI_IDENT);
    CHECK_OK(MPI_Group_free(&e));
    CHECK_OK(MPI_Group_free(&w));
}

static void incl_and_excl_pick_ranks(void)
{
    MPI_Group w = world_group(), in, ex;
    int n = world_size();
    int pick[] = {2, 0};
    CHECK_OK(MPI_Group_incl(w, 2, pick, &in));
    check_members(in, 2, (int[]){2, 0});
    CHECK_OK(MPI_Group_excl(w, 2, pick, &ex));
    int rest[64], k = 0;
    for (int i = 0; i < n; i++)
        if (i != 0 && i != 2)
            rest[k++] = i;
    check_members(ex, k, rest);
    /* Of a group that is not the world's: ranks are the group's own. */
    MPI_Group in2;
    int second = 1;
    CHECK_OK(MPI_Group_incl(in, 1, &second, &in2));
    check_members(in2, 1, (int[]){0});
    MPI_Group gs[] = {w, in, ex, in2};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

static void ranges_follow_their_strides(void)
{
    MPI_Group w = world_group(), g, h;
    int n = world_size();   /* 8 ranks */
    CHECK(n >= 8);
    int ranges[2][3] = {{0, 6, 3}, {7, 4, -2}};   /* 0 3 6, 7 5 */
    CHECK_OK(MPI_Group_range_incl(w, 2, ranges, &g));
    check_members(g, 5, (int[]){0, 3, 6, 7, 5});
    CHECK_OK(MPI_Group_range_excl(w, 2, ranges, &h));
    int rest[64], k = 0;
    for (int i = 0; i < n; i++)
        if (i != 0 && i != 3 && i != 6 && i != 7 && i != 5)
            rest[k++] = i;
    check_members(h, k, rest);
    /* A range from first to last with a stride the wrong way is empty. */
    MPI_Group e;
    int none[1][3] = {{5, 2, 1}};
    CHECK_OK(MPI_Group_range_incl(w, 1, none, &e));
    CHECK(e == MPI_GROUP_EMPTY);
    MPI_Group gs[] = {w, g, h};
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Group w = world_group(), g = MPI_GROUP_NULL;
    int n = world_size(), x, out;
    CHECK(MPI_Group_size(MPI_GROUP_NULL, &x) == MPI_ERR_GROUP);
    CHECK(MPI_Group_size(w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Group_rank(MPI_GROUP_NULL, &x) == MPI_ERR_GROUP);
    CHECK(MPI_Group_rank((MPI_Group)&x, &x) == MPI_ERR_GROUP);
    int bad = n;
    CHECK(MPI_Group_translate_ranks(w, 1, &bad, w, &out) == MPI_ERR_RANK);
    CHECK(MPI_Group_translate_ranks(w, -1, &bad, w, &out) == MPI_ERR_ARG);
    CHECK(MPI_Group_translate_ranks(w, 1, NULL, w, &out) == MPI_ERR_ARG);
    CHECK(MPI_Group_translate_ranks(w, 1, &x, MPI_GROUP_NULL, &out) == MPI_ERR_GROUP);
    CHECK(MPI_Group_compare(w, MPI_GROUP_NULL, &x) == MPI_ERR_GROUP);
    CHECK(MPI_Group_compare(w, w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Group_union(MPI_GROUP_NULL, w, &g) == MPI_ERR_GROUP);
    CHECK(MPI_Group_intersection(w, w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Group_incl(w, 1, &bad, &g) == MPI_ERR_RANK);
    int twice[] = {1, 1};
    CHECK(MPI_Group_incl(w, 2, twice, &g) == MPI_ERR_RANK);
    CHECK(MPI_Group_excl(w, 2, twice, &g) == MPI_ERR_RANK);
    CHECK(MPI_Group_excl(w, -1, twice, &g) == MPI_ERR_ARG);
    int zero_stride[1][3] = {{0, 1, 0}}, outside[1][3] = {{0, n, 1}},
        overlap[2][3] = {{0, 2, 1}, {2, 3, 1}};
    CHECK(MPI_Group_range_incl(w, 1, zero_stride, &g) == MPI_ERR_ARG);
    CHECK(MPI_Group_range_incl(w, 1, outside, &g) == MPI_ERR_RANK);
    CHECK(MPI_Group_range_excl(w, 2, overlap, &g) == MPI_ERR_RANK);
    CHECK(g == MPI_GROUP_NULL);   /* untouched by the failed calls */
    CHECK(MPI_Group_free(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Group_free(&g) == MPI_ERR_GROUP);
    CHECK(MPI_Comm_group(MPI_COMM_NULL, &g) == MPI_ERR_COMM);
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK_OK(MPI_Group_free(&w));
}

/* The default handler ends the job with one line naming the argument. */
static void bad_group_is_fatal(void)
{
    int size;
    if (world_rank() == 0)
        MPI_Group_size(MPI_GROUP_NULL, &size);
}

static const test_case cases[] = {
    {"comm_group_of_world_and_self", comm_group_of_world_and_self},
    {"group_rank_outside_is_undefined", group_rank_outside_is_undefined},
    {"translate_ranks_maps_between_groups", translate_ranks_maps_between_groups},
    {"compare_gives_ident_similar_unequal", compare_gives_ident_similar_unequal},
    {"set_operations_keep_the_first_groups_order",
     set_operations_keep_the_first_groups_order},
    {"empty_results_are_group_empty", empty_results_are_group_empty},
    {"incl_and_excl_pick_ranks", incl_and_excl_pick_ranks},
    {"ranges_follow_their_strides", ranges_follow_their_strides},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"bad_group_is_fatal", bad_group_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
