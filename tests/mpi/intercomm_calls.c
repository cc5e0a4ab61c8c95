/* intercomm_calls.c — intercommunicators between the even and the odd
 * world ranks: creation, point-to-point to the remote group, merging, and
 * the error class of each bad argument. Usage: intercomm_calls CASE
 * (at least 2 ranks). */
#include <mpi.h>

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
    MPI_Request req;   /* blocking collectives take intercommunicators now */
    CHECK(MPI_Ibarrier(inter, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_dup(inter, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_remote_size(inter, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Intercomm_merge(inter, 0, NULL) == MPI_ERR_ARG);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

static const test_case cases[] = {
    {"create_gives_both_groups", create_gives_both_groups},
    {"point_to_point_reaches_the_remote_group", point_to_point_reaches_the_remote_group},
    {"merge_puts_the_low_group_first", merge_puts_the_low_group_first},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
