/* intercomm_calls.c — intercommunicators between the even and the odd
 * world ranks: creation, point-to-point to the remote group, merging, dup,
 * split and create of an intercommunicator, and the error class of each
 * bad argument. Usage: intercomm_calls CASE
 * (at least 2 ranks). */
#include <mpi.h>

#include <stdbool.h>

#include "../check.h"

static int rank_of(MPI_Comm c)
{
    int r;
    CHECK_OK(MPI_Comm_rank(c, &r));
    return r;
}

static int size_of(MPI_Comm c)
{
    int s;
    CHECK_OK(MPI_Comm_size(c, &s));
    return s;
}

/* The intercommunicator between the evens and the odds (local leaders:
 * world ranks 0 and 1); *half gets the local group's communicator. */
static MPI_Comm evens_and_odds(MPI_Comm *half)
{
    int me = rank_of(MPI_COMM_WORLD);
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, half));
    MPI_Comm inter;
    CHECK_OK(MPI_Intercomm_create(*half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7, &inter));
    return inter;
}

static void create_gives_both_groups(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm half, inter = evens_and_odds(&half);
    int flag, remote;
    CHECK_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag);
    CHECK_OK(MPI_Comm_test_inter(half, &flag));
    CHECK(!flag);
    int evens = (n + 1) / 2, odds = n / 2;
    CHECK(size_of(inter) == (me % 2 ? odds : evens));
    CHECK(rank_of(inter) == me / 2);
    CHECK_OK(MPI_Comm_remote_size(inter, &remote));
    CHECK(remote == (me % 2 ? evens : odds));
    /* The remote group holds the other parity, in world order. */
    MPI_Group rg, wg, lg;
    CHECK_OK(MPI_Comm_remote_group(inter, &rg));
    CHECK_OK(MPI_Comm_group(inter, &lg));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < remote; i++) {
        int w;
        CHECK_OK(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
        CHECK(w == 2 * i + (me % 2 ? 0 : 1));
    }
    int result;
    MPI_Group hg;
    CHECK_OK(MPI_Comm_group(half, &hg));
    CHECK_OK(MPI_Group_compare(lg, hg, &result));
    CHECK(result == MPI_IDENT);
    MPI_Group gs[] = {rg, lg, wg, hg};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
    CHECK_OK(MPI_Comm_compare(inter, half, &result));
    CHECK(result == MPI_UNEQUAL);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK(inter == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_free(&half));
}

/* Ranks name the remote group; MPI_SOURCE is the sender's rank in its own
 * group; messages on the intercommunicator never match the local ones. */
static void point_to_point_reaches_the_remote_group(void)
{
    int me = rank_of(MPI_COMM_WORLD);
    MPI_Comm half, inter = evens_and_odds(&half);
    int remote, r = rank_of(inter);
    CHECK_OK(MPI_Comm_remote_size(inter, &remote));
    /* Everyone sends to every remote rank; everyone receives from every
     * remote rank with MPI_ANY_SOURCE. */
    MPI_Request *reqs = malloc((size_t)remote * sizeof *reqs);
    CHECK(reqs != NULL);
    for (int i = 0; i < remote; i++)
        CHECK_OK(MPI_Isend(&me, 1, MPI_INT, i, r, inter, &reqs[i]));
    /* A local message with the same tags first: it must not be taken. */
    int local_peer = (rank_of(half) + 1) % size_of(half), got_local = -1;
    MPI_Request lreq;
    CHECK_OK(MPI_Isend(&me, 1, MPI_INT, local_peer, 0, half, &lreq));
    int seen = 0;
    for (int i = 0; i < remote; i++) {
        int v;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < remote);
        CHECK(st.MPI_TAG == st.MPI_SOURCE);
        CHECK(v == 2 * st.MPI_SOURCE + (me % 2 ? 0 : 1));
        seen++;
    }
    CHECK(seen == remote);
    CHECK_OK(MPI_Recv(&got_local, 1, MPI_INT, MPI_ANY_SOURCE, 0, half, MPI_STATUS_IGNORE));
    CHECK(got_local % 2 == me % 2);
    CHECK_OK(MPI_Waitall(remote, reqs, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Wait(&lreq, MPI_STATUS_IGNORE));
    free(reqs);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

/* The group passing high = 0 comes first; with equal values, the group
 * whose leader has the lower world rank (the evens). */
static void merge_puts_the_low_group_first(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int evens = (n + 1) / 2, odds = n / 2;
    MPI_Comm half, inter = evens_and_odds(&half), odds_first, evens_first;
    CHECK_OK(MPI_Intercomm_merge(inter, me % 2 == 0, &odds_first));
    CHECK(size_of(odds_first) == n);
    CHECK(rank_of(odds_first) == (me % 2 ? me / 2 : odds + me / 2));
    CHECK_OK(MPI_Intercomm_merge(inter, 1, &evens_first));
    CHECK(rank_of(evens_first) == (me % 2 ? evens + me / 2 : me / 2));
    int flag;
    CHECK_OK(MPI_Comm_test_inter(odds_first, &flag));
    CHECK(!flag);
    /* Intracommunicators like any other. */
    long one = 1, sum = 0;
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, odds_first));
    CHECK(sum == n);
    int v = rank_of(evens_first) == 0 ? 42 : -1;
    CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, evens_first));
    CHECK(v == 42);
    int result;
    CHECK_OK(MPI_Comm_compare(evens_first, odds_first, &result));
    CHECK(result == (n > 1 ? MPI_SIMILAR : MPI_CONGRUENT));
    MPI_Comm all[] = {odds_first, evens_first, inter, half};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Comm_free(&all[i]));
}

/* The world rank of each rank of the remote group of c, in order. */
static void remote_worlds(MPI_Comm c, int *out)
{
    MPI_Group rg, wg;
    CHECK_OK(MPI_Comm_remote_group(c, &rg));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int n;
    CHECK_OK(MPI_Group_size(rg, &n));
    for (int i = 0; i < n; i++)
        CHECK_OK(MPI_Group_translate_ranks(rg, 1, &i, wg, &out[i]));
    CHECK_OK(MPI_Group_free(&rg));
    CHECK_OK(MPI_Group_free(&wg));
}

/* Both groups of c reach each other: an allreduce of the world ranks gives
 * each rank the sum over the remote group, and rank 0 of each side sends
 * its world rank to rank 0 of the other on tag 3. */
static void check_connected(MPI_Comm c, long remote_sum, int remote_first)
{
    long mine = rank_of(MPI_COMM_WORLD), sum = -1;
    CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == remote_sum);
    if (rank_of(c) == 0) {
        int w = rank_of(MPI_COMM_WORLD), got = -1;
        CHECK_OK(MPI_Sendrecv(&w, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, c,
                              MPI_STATUS_IGNORE));
        CHECK(got == remote_first);
    }
}

static int copies_made;

static int count_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies_made++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Dup: same groups, its own messages, the parent's attributes (as their
 * copy callback says) and error handler. */
static void dup_of_an_intercommunicator(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm half, inter = evens_and_odds(&half), dup;
    int key, value = 42;
    CHECK_OK(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_OK(MPI_Comm_set_attr(inter, key, &value));
    CHECK_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_dup(inter, &dup));
    int flag = 0;
    CHECK_OK(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag);
    CHECK(size_of(dup) == size_of(inter) && rank_of(dup) == rank_of(inter));
    int remote, result;
    CHECK_OK(MPI_Comm_remote_size(dup, &remote));
    int worlds[remote > 0 ? remote : 1];
    remote_worlds(dup, worlds);
    for (int i = 0; i < remote; i++)
        CHECK(worlds[i] == 2 * i + (me % 2 ? 0 : 1));
    CHECK_OK(MPI_Comm_compare(inter, dup, &result));
    CHECK(result == MPI_CONGRUENT);
    void *got = NULL;
    CHECK_OK(MPI_Comm_get_attr(dup, key, &got, &flag));
    CHECK(flag && got == &value && copies_made == 1);
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Errhandler_free(&eh));
    /* A message on the parent is not one on the duplicate. */
    if (rank_of(inter) == 0) {
        int a = 1, b = 2, x = 0, y = 0;
        CHECK_OK(MPI_Send(&a, 1, MPI_INT, 0, 5, inter));
        CHECK_OK(MPI_Send(&b, 1, MPI_INT, 0, 5, dup));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE));
        CHECK(x == 1 && y == 2);
    }
    long sum = 0;
    for (int w = me % 2 ? 0 : 1; w < n; w += 2)
        sum += w;
    check_connected(dup, sum, me % 2 ? 0 : 1);
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Comm_free_keyval(&key));
}

/* Split: each local part faces the remote part of the same color, ranks
 * ordered by key on both sides; a color only one side gave, or
 * MPI_UNDEFINED, gives MPI_COMM_NULL. */
static void split_of_an_intercommunicator(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int side = me % 2, lr = me / 2;
    MPI_Comm half, inter = evens_and_odds(&half), part;
    /* Colors: local rank parity, reversed order; the odds' rank 1 alone
     * asks for color 7, which no even rank gives. */
    int color = side == 1 && lr == 1 ? 7 : lr % 2;
    CHECK_OK(MPI_Comm_split(inter, color, -lr, &part));
    int remote_n = side ? (n + 1) / 2 : n / 2;
    if (color == 7) {
        CHECK(part == MPI_COMM_NULL);
    } else {
        /* Remote members: remote local ranks r with r % 2 == color (the
         * odds' rank 1 left out), in descending order. */
        int want[n], k = 0;
        long sum = 0;
        for (int r = remote_n - 1; r >= 0; r--) {
            bool out = side == 0 && r == 1;   /* it asked for color 7 */
            if (r % 2 == color && !out) {
                want[k++] = 2 * r + (1 - side);
                sum += 2 * r + (1 - side);
            }
        }
        if (k == 0) {
            CHECK(part == MPI_COMM_NULL);
        } else {
            CHECK(part != MPI_COMM_NULL);
            int remote;
            CHECK_OK(MPI_Comm_remote_size(part, &remote));
            CHECK(remote == k);
            int got[k];
            remote_worlds(part, got);
            for (int i = 0; i < k; i++)
                CHECK(got[i] == want[i]);
            /* Local order: descending local rank among the same color. */
            int mine = 0, local_n = side ? n / 2 : (n + 1) / 2;
            for (int r = local_n - 1; r > lr; r--)
                mine += r % 2 == color && !(side == 1 && r == 1);
            CHECK(rank_of(part) == mine);
            check_connected(part, sum, want[0]);
            CHECK_OK(MPI_Comm_free(&part));
        }
    }
    /* Every rank undefined: nobody gets one. */
    CHECK_OK(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &part));
    CHECK(part == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

/* Create: each group passes a part of itself (here its first half,
 * rounded up); the parts face each other; an empty part on either side
 * gives MPI_COMM_NULL everywhere. */
static void create_of_an_intercommunicator(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int side = me % 2, lr = me / 2;
    MPI_Comm half, inter = evens_and_odds(&half), part;
    MPI_Group local, first, none;
    CHECK_OK(MPI_Comm_group(inter, &local));
    int local_n = size_of(inter), keep = (local_n + 1) / 2;
    int range[1][3] = {{0, keep - 1, 1}};
    CHECK_OK(MPI_Group_range_incl(local, 1, range, &first));
    CHECK_OK(MPI_Comm_create(inter, first, &part));
    int remote_n = side ? (n + 1) / 2 : n / 2, remote_keep = (remote_n + 1) / 2;
    if (lr >= keep) {
        CHECK(part == MPI_COMM_NULL);
    } else {
        CHECK(part != MPI_COMM_NULL);
        CHECK(size_of(part) == keep && rank_of(part) == lr);
        int remote;
        CHECK_OK(MPI_Comm_remote_size(part, &remote));
        CHECK(remote == remote_keep);
        long sum = 0;
        for (int r = 0; r < remote_keep; r++)
            sum += 2 * r + (1 - side);
        check_connected(part, sum, 1 - side);
        CHECK_OK(MPI_Comm_free(&part));
    }
    /* The evens pass their first half, the odds nobody. */
    CHECK_OK(MPI_Group_incl(local, 0, NULL, &none));
    CHECK_OK(MPI_Comm_create(inter, side ? none : first, &part));
    CHECK(part == MPI_COMM_NULL);
    MPI_Group gs[] = {local, first, none};
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int x = 0;
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_remote_group(MPI_COMM_SELF, &g) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 0, &c) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 0, &c) == MPI_ERR_RANK);
    CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, -3, &c) == MPI_ERR_TAG);
    CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 0, NULL) == MPI_ERR_ARG);
    /* The local leader checks the peer arguments. */
    CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, size_of(MPI_COMM_WORLD),
                               0, &c) == MPI_ERR_RANK);
    /* A group facing itself: the groups overlap. */
    CHECK(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, rank_of(MPI_COMM_WORLD),
                               0, &c) == MPI_ERR_COMM);
    CHECK(c == MPI_COMM_NULL);
    MPI_Comm half, inter = evens_and_odds(&half);
    CHECK_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int remote;
    CHECK_OK(MPI_Comm_remote_size(inter, &remote));
    CHECK(MPI_Send(&x, 1, MPI_INT, remote, 0, inter) == MPI_ERR_RANK);
    MPI_Request req;   /* no scans on intercommunicators (MPI 3.1, 5.11) */
    CHECK(MPI_Iscan(&x, &remote, 1, MPI_INT, MPI_SUM, inter, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_idup(inter, NULL, &req) == MPI_ERR_ARG);
    CHECK(MPI_Comm_split(inter, -2, 0, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_dup(inter, NULL) == MPI_ERR_ARG);
    /* The group must be part of the local group. */
    MPI_Group wg;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK(MPI_Comm_create(inter, wg, &c) == MPI_ERR_GROUP);
    CHECK_OK(MPI_Group_free(&wg));
    CHECK(MPI_Comm_remote_size(inter, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Intercomm_merge(inter, 0, NULL) == MPI_ERR_ARG);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

static const test_case cases[] = {
    {"create_gives_both_groups", create_gives_both_groups},
    {"point_to_point_reaches_the_remote_group", point_to_point_reaches_the_remote_group},
    {"merge_puts_the_low_group_first", merge_puts_the_low_group_first},
    {"dup_of_an_intercommunicator", dup_of_an_intercommunicator},
    {"split_of_an_intercommunicator", split_of_an_intercommunicator},
    {"create_of_an_intercommunicator", create_of_an_intercommunicator},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
