/* comm_calls.c — intracommunicators: the constructors, point-to-point and
 * the collectives over what they make, freeing, comparing and naming, and
 * the error class of each bad argument. Usage: comm_calls CASE. */
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

/* The world rank of rank r of c. */
static int world_of(MPI_Comm c, int r)
{
    MPI_Group g, w;
    int out;
    CHECK_OK(MPI_Comm_group(c, &g));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CHECK_OK(MPI_Group_translate_ranks(g, 1, &r, w, &out));
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&w));
    return out;
}

/* Every rank of c sends its world rank to every other over c; each checks
 * what came from whom (source and data follow c's ranks). */
static void check_all_to_all(MPI_Comm c)
{
    int n = size_of(c), me = rank_of(c), wme = world_of(c, me);
    for (int step = 1; step < n; step++) {
        int to = (me + step) % n, from = (me - step + n) % n, got = -1;
        MPI_Status st;
        CHECK_OK(MPI_Sendrecv(&wme, 1, MPI_INT, to, 5, &got, 1, MPI_INT,
                              MPI_ANY_SOURCE, 5 + 0 * from, c, &st));
        /* Each step one message from each peer at distance `step`. */
        CHECK(st.MPI_SOURCE == from);
        CHECK(got == world_of(c, from));
        CHECK_OK(MPI_Barrier(c));
    }
}

static void dup_is_congruent_with_its_own_context(void)
{
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK(size_of(d) == size_of(MPI_COMM_WORLD));
    CHECK(rank_of(d) == rank_of(MPI_COMM_WORLD));
    int result;
    CHECK_OK(MPI_Comm_compare(d, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(d, d, &result));
    CHECK(result == MPI_IDENT);
    check_all_to_all(d);
    /* A dup of a dup. */
    MPI_Comm dd;
    CHECK_OK(MPI_Comm_dup(d, &dd));
    CHECK_OK(MPI_Comm_compare(d, dd, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_free(&dd));
    CHECK_OK(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL);
}

/* Messages on different communicators never match, whatever the order of
 * sends and receives: a world message and a dup message with the same
 * source and tag each reach the receive on their own communicator. */
static void messages_on_different_communicators_never_match(void)
{
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    int to = (me + 1) % n, from = (me - 1 + n) % n;
    int on_world = 100 + me, on_dup = 200 + me, a = -1, b = -1;
    MPI_Request r[2];
    CHECK_OK(MPI_Isend(&on_dup, 1, MPI_INT, to, 0, d, &r[0]));
    CHECK_OK(MPI_Isend(&on_world, 1, MPI_INT, to, 0, MPI_COMM_WORLD, &r[1]));
    /* The dup message was sent first; the world receive must skip it. */
    CHECK_OK(MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv(&b, 1, MPI_INT, from, 0, d, MPI_STATUS_IGNORE));
    CHECK(a == 100 + from && b == 200 + from);
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    /* Probing one communicator does not see the other's message. */
    CHECK_OK(MPI_Send(&on_dup, 1, MPI_INT, to, 1, d));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int flag;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                        MPI_STATUS_IGNORE));
    CHECK(!flag);
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d, &flag, MPI_STATUS_IGNORE));
    CHECK(flag);
    CHECK_OK(MPI_Recv(&a, 1, MPI_INT, from, 1, d, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_free(&d));
}

/* Color world rank % 3, key minus the world rank: each part holds its
 * ranks in reverse world order. */
static void split_orders_by_key_then_rank(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 3, -me, &c));
    int members = (n - me % 3 + 2) / 3;
    CHECK(size_of(c) == members);
    /* Ranks above me with my color come first. */
    int above = 0;
    for (int r = me + 3; r < n; r += 3)
        above++;
    CHECK(rank_of(c) == above);
    for (int i = 0; i < members; i++)
        CHECK(world_of(c, i) == me % 3 + 3 * (members - 1 - i));
    check_all_to_all(c);
    CHECK_OK(MPI_Comm_free(&c));
    /* Equal keys: the parent's order decides. */
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, 7, &c));
    CHECK(rank_of(c) == me);
    CHECK_OK(MPI_Comm_free(&c));
}

static void split_undefined_gives_comm_null(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : 1, me, &c));
    if (me % 2) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        CHECK(size_of(c) == (n + 1) / 2 && rank_of(c) == me / 2);
        CHECK_OK(MPI_Comm_free(&c));
    }
}

/* Splitting a split: ranks of the grandchild follow the child's. */
static void split_of_a_split(void)
{
    int me = rank_of(MPI_COMM_WORLD);
    MPI_Comm half, quarter;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    int hme = rank_of(half);
    CHECK_OK(MPI_Comm_split(half, hme % 2, -hme, &quarter));
    CHECK(world_of(quarter, rank_of(quarter)) == me);
    check_all_to_all(quarter);
    CHECK_OK(MPI_Comm_free(&quarter));
    CHECK_OK(MPI_Comm_free(&half));
}

static void split_type_gives_all_collocated_ranks(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm shared, process, none;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                 &shared));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_PROCESS, n - me,
                                 MPI_INFO_NULL, &process));
    CHECK(size_of(shared) == n && rank_of(shared) == me);
    CHECK(size_of(process) == n && rank_of(process) == n - 1 - me);
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
    CHECK(none == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_free(&shared));
    CHECK_OK(MPI_Comm_free(&process));
}

/* Comm_create with the evens (odd ranks get MPI_COMM_NULL), then with two
 * disjoint groups at once (each rank passes its own). */
static void create_makes_the_groups_communicator(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Group w, evens, odds;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int range[1][3] = {{0, n - 1, 2}};
    CHECK_OK(MPI_Group_range_incl(w, 1, range, &evens));
    CHECK_OK(MPI_Group_difference(w, evens, &odds));
    MPI_Comm c;
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (me % 2) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        CHECK(rank_of(c) == me / 2);
        MPI_Group cg;
        int result;
        CHECK_OK(MPI_Comm_group(c, &cg));
        CHECK_OK(MPI_Group_compare(cg, evens, &result));
        CHECK(result == MPI_IDENT);
        CHECK_OK(MPI_Group_free(&cg));
        check_all_to_all(c);
        CHECK_OK(MPI_Comm_free(&c));
    }
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, me % 2 ? odds : evens, &c));
    CHECK(c != MPI_COMM_NULL && rank_of(c) == me / 2);
    check_all_to_all(c);
    CHECK_OK(MPI_Comm_free(&c));
    /* The group's order, not the parent's. */
    MPI_Group rev;
    int order[1][3] = {{n - 1, 0, -1}};
    CHECK_OK(MPI_Group_range_incl(w, 1, order, &rev));
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    CHECK(rank_of(c) == n - 1 - me);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL);
    MPI_Group gs[] = {w, evens, odds, rev};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

/* Only the members call Comm_create_group: here the first three ranks,
 * twice with the same group and tag (the calls pair up in order), while
 * the others create their own from the rest. */
static void create_group_involves_only_the_members(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Group w, g;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int first3[1][3] = {{0, 2, 1}};
    if (me < 3)
        CHECK_OK(MPI_Group_range_incl(w, 1, first3, &g));
    else
        CHECK_OK(MPI_Group_range_excl(w, 1, first3, &g));
    MPI_Comm a, b;
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 9, &a));
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 9, &b));
    int result;
    CHECK_OK(MPI_Comm_compare(a, b, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK(size_of(a) == (me < 3 ? 3 : n - 3));
    /* Distinct communicators: a message on b does not match a's receive. */
    int sa = 1, sb = 2, ra = 0, rb = 0, to = (rank_of(a) + 1) % size_of(a);
    MPI_Request r[2];
    CHECK_OK(MPI_Isend(&sb, 1, MPI_INT, to, 0, b, &r[0]));
    CHECK_OK(MPI_Isend(&sa, 1, MPI_INT, to, 0, a, &r[1]));
    CHECK_OK(MPI_Recv(&ra, 1, MPI_INT, MPI_ANY_SOURCE, 0, a, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, 0, b, MPI_STATUS_IGNORE));
    CHECK(ra == 1 && rb == 2);
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    check_all_to_all(a);
    CHECK_OK(MPI_Comm_free(&a));
    CHECK_OK(MPI_Comm_free(&b));
    /* A rank outside the group gets MPI_COMM_NULL. */
    MPI_Group other;
    int peer = (me + 1) % n;
    CHECK_OK(MPI_Group_incl(w, 1, &peer, &other));
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, other, 0, &a));
    CHECK(a == MPI_COMM_NULL);
    MPI_Group gs[] = {w, g, other};
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_Group_free(&gs[i]));
}

/* Barrier, Bcast and Allreduce on parts of the world at once. */
static void collectives_on_created_communicators(void)
{
    int me = rank_of(MPI_COMM_WORLD);
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 3, -me, &c));
    int n = size_of(c), cme = rank_of(c);
    for (int round = 0; round < 50; round++) {
        CHECK_OK(MPI_Barrier(c));
        int root = round % n, v = cme == root ? 1000 * round + me % 3 : -1;
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, root, c));
        CHECK(v == 1000 * round + me % 3);
        long mine = world_of(c, cme), sum = 0, want = 0;
        CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
        for (int i = 0; i < n; i++)
            want += world_of(c, i);
        CHECK(sum == want);
    }
    CHECK_OK(MPI_Comm_free(&c));
}

/* MPI_COMM_SELF's constructors give a communicator of the caller alone. */
static void constructors_of_comm_self(void)
{
    MPI_Comm d, s, g;
    MPI_Group self;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
    CHECK_OK(MPI_Comm_split(MPI_COMM_SELF, 4, 0, &s));
    CHECK_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_SELF, self, 0, &g));
    MPI_Comm all[] = {d, s, g};
    for (int i = 0; i < 3; i++) {
        int result;
        CHECK(size_of(all[i]) == 1 && rank_of(all[i]) == 0);
        CHECK_OK(MPI_Comm_compare(all[i], MPI_COMM_SELF, &result));
        CHECK(result == MPI_CONGRUENT);
        int x = i, y = -1;
        CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, all[i],
                              MPI_STATUS_IGNORE));
        CHECK(y == i);
        CHECK_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, all[i]));
        CHECK(y == i);
        CHECK_OK(MPI_Comm_free(&all[i]));
    }
    CHECK_OK(MPI_Comm_split(MPI_COMM_SELF, MPI_UNDEFINED, 0, &s));
    CHECK(s == MPI_COMM_NULL);
    CHECK_OK(MPI_Group_free(&self));
}

/* A member frees its handle while the others go on using theirs, and a
 * receive pending on a freed handle still completes. */
static void free_is_safe_while_others_use_it(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int x = -1;
    MPI_Request r = MPI_REQUEST_NULL;
    if (me == 0) {
        CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, n - 1, 3, d, &r));
        CHECK_OK(MPI_Comm_free(&d));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));   /* rank 0 has freed its handle */
    if (me != 0) {
        /* The others talk among themselves on theirs. */
        int to = me % (n - 1) + 1, from = (me - 2 + n - 1) % (n - 1) + 1, y = -1;
        CHECK_OK(MPI_Sendrecv(&me, 1, MPI_INT, to, 1, &y, 1, MPI_INT, from, 1, d,
                              MPI_STATUS_IGNORE));
        CHECK(y == from);
        if (me == n - 1)
            CHECK_OK(MPI_Send(&me, 1, MPI_INT, 0, 3, d));
        CHECK_OK(MPI_Comm_free(&d));
    } else {
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(x == n - 1);
    }
}

/* The error of a receive pending on a freed handle is still raised
 * (through that handle's handler) when the receive completes. */
static void freed_communicators_pending_receive_reports_truncation(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    int small = -1, big[2] = {me, me};
    MPI_Request r;
    CHECK_OK(MPI_Irecv(&small, 1, MPI_INT, (me - 1 + n) % n, 0, d, &r));
    CHECK_OK(MPI_Send(big, 2, MPI_INT, (me + 1) % n, 0, d));
    CHECK_OK(MPI_Comm_free(&d));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every handle is freed */
    MPI_Status st;
    st.MPI_ERROR = -5;   /* the return value carries the error, not the status */
    CHECK(MPI_Wait(&r, &st) == MPI_ERR_TRUNCATE);
    CHECK(st.MPI_ERROR == -5 && st.MPI_SOURCE == (me - 1 + n) % n);
    CHECK(small == (me - 1 + n) % n);
}

static void compare_gives_similar_and_unequal(void)
{
    int me = rank_of(MPI_COMM_WORLD);
    MPI_Comm rev, part;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &rev));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me == 0, 0, &part));
    int result;
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &result));
    CHECK(result == MPI_SIMILAR);
    CHECK_OK(MPI_Comm_compare(part, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_UNEQUAL);
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result));
    CHECK(result == MPI_UNEQUAL);
    CHECK_OK(MPI_Comm_free(&rev));
    CHECK_OK(MPI_Comm_free(&part));
}

static void names_belong_to_each_handle(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0);
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_OK(MPI_Comm_get_name(d, name, &len));
    CHECK(len == 0 && name[0] == '\0');
    char mine[32];
    snprintf(mine, sizeof mine, "dup of rank %d", rank_of(MPI_COMM_WORLD));
    CHECK_OK(MPI_Comm_set_name(d, mine));
    CHECK_OK(MPI_Comm_set_name(MPI_COMM_WORLD, "the world"));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every rank has named its own */
    CHECK_OK(MPI_Comm_get_name(d, name, &len));
    CHECK(strcmp(name, mine) == 0 && len == (int)strlen(mine));
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "the world") == 0);
    /* A long name is cut to MPI_MAX_OBJECT_NAME - 1 characters. */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_OK(MPI_Comm_set_name(d, longname));
    CHECK_OK(MPI_Comm_get_name(d, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && name[len] == '\0');
    CHECK_OK(MPI_Comm_free(&d));
    int flag = 1;
    CHECK_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0);
}

static int handler_calls;   /* per rank: globals are private to each rank */

static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

/* A dup or split starts with its parent's error handler. */
static void new_communicators_inherit_the_error_handler(void)
{
    MPI_Errhandler h;
    CHECK_OK(MPI_Comm_create_errhandler(count_error, &h));
    MPI_Comm d0;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d0));
    CHECK_OK(MPI_Comm_set_errhandler(d0, h));
    CHECK_OK(MPI_Errhandler_free(&h));
    MPI_Comm d, s;
    CHECK_OK(MPI_Comm_dup(d0, &d));
    CHECK_OK(MPI_Comm_split(d0, 0, 0, &s));
    int x = 0;
    CHECK(MPI_Send(&x, 1, MPI_INT, size_of(d), 0, d) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, -4, 0, s) == MPI_ERR_RANK);
    CHECK(handler_calls == 2);
    CHECK_OK(MPI_Comm_free(&d0));   /* the others keep the handler alive */
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, -1, d) == MPI_ERR_TAG);
    CHECK(handler_calls == 3);
    CHECK_OK(MPI_Comm_free(&d));
    CHECK_OK(MPI_Comm_free(&s));
}

/* Create and free 10^4 communicators (dups, splits and create_groups in
 * turn), using some of them, then keep 1000 alive at once. */
static void create_free_storm(void)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    MPI_Group w, pair;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int mates[2] = {me & ~1, (me | 1) < n ? me | 1 : me & ~1};
    CHECK_OK(MPI_Group_incl(w, mates[0] == mates[1] ? 1 : 2, mates, &pair));
    for (int i = 0; i < 10000; i++) {
        MPI_Comm c;
        switch (i % 3) {
        case 0: CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c)); break;
        case 1: CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, (me + i) % 4, me, &c)); break;
        default: CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, pair, i, &c)); break;
        }
        if (i % 97 == 0) {
            int one = 1, sum = 0;
            CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == size_of(c));
        }
        CHECK_OK(MPI_Comm_free(&c));
    }
    enum { LIVE = 1000 };
    MPI_Comm *live = malloc(LIVE * sizeof *live);
    CHECK(live != NULL);
    for (int i = 0; i < LIVE; i++)
        CHECK_OK(MPI_Comm_dup(i ? live[i - 1] : MPI_COMM_WORLD, &live[i]));
    int token = me, got = -1;
    CHECK_OK(MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % n, 0, &got, 1, MPI_INT,
                          MPI_ANY_SOURCE, 0, live[LIVE / 2], MPI_STATUS_IGNORE));
    CHECK(got == (me - 1 + n) % n);
    for (int i = LIVE - 1; i >= 0; i--)
        CHECK_OK(MPI_Comm_free(&live[i]));
    free(live);
    CHECK_OK(MPI_Group_free(&pair));
    CHECK_OK(MPI_Group_free(&w));
}

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm w = MPI_COMM_WORLD, c = MPI_COMM_NULL;
    MPI_Group g;
    CHECK_OK(MPI_Comm_group(w, &g));
    int x;
    char name[MPI_MAX_OBJECT_NAME];
    CHECK(MPI_Comm_dup(MPI_COMM_NULL, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_dup(w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_split(w, -5, 0, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_split_type(w, 77, 0, MPI_INFO_NULL, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_split_type(w, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)&x, &c) ==
          MPI_ERR_INFO);
    CHECK(MPI_Comm_create(w, MPI_GROUP_NULL, &c) == MPI_ERR_GROUP);
    CHECK(MPI_Comm_create(w, g, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_group(w, g, -1, &c) == MPI_ERR_TAG);
    CHECK(MPI_Comm_create_group(w, MPI_GROUP_NULL, 0, &c) == MPI_ERR_GROUP);
    /* A group with ranks outside the parent (raised on the parent). */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_create_group(MPI_COMM_SELF, g, 0, &c) == MPI_ERR_GROUP);
    CHECK(c == MPI_COMM_NULL);
    CHECK(MPI_Comm_free(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    CHECK(MPI_Comm_free(&world) == MPI_ERR_COMM);
    CHECK(MPI_Comm_free(&self) == MPI_ERR_COMM);
    CHECK(world == MPI_COMM_WORLD);
    CHECK(MPI_Comm_compare(w, MPI_COMM_NULL, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_compare(w, w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_test_inter(MPI_COMM_NULL, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_test_inter(w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_name(w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_name(w, NULL, &x) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_name(w, name, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_rank(MPI_COMM_NULL, &x) == MPI_ERR_COMM);
    /* Point-to-point checks ranks against the communicator's size. */
    MPI_Comm half;
    int me = rank_of(w);
    CHECK_OK(MPI_Comm_split(w, me % 2, 0, &half));
    CHECK(MPI_Send(&x, 1, MPI_INT, size_of(half), 0, half) == MPI_ERR_RANK);
    CHECK(MPI_Bcast(&x, 1, MPI_INT, size_of(half), half) == MPI_ERR_ROOT);
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Group_free(&g));
}

/* The default handler ends the job with one line. */
static void freeing_comm_world_is_fatal(void)
{
    MPI_Comm world = MPI_COMM_WORLD;
    if (rank_of(MPI_COMM_WORLD) == 1)
        MPI_Comm_free(&world);
}

static const test_case cases[] = {
    {"dup_is_congruent_with_its_own_context", dup_is_congruent_with_its_own_context},
    {"messages_on_different_communicators_never_match",
     messages_on_different_communicators_never_match},
    {"split_orders_by_key_then_rank", split_orders_by_key_then_rank},
    {"split_undefined_gives_comm_null", split_undefined_gives_comm_null},
    {"split_of_a_split", split_of_a_split},
    {"split_type_gives_all_collocated_ranks", split_type_gives_all_collocated_ranks},
    {"create_makes_the_groups_communicator", create_makes_the_groups_communicator},
    {"create_group_involves_only_the_members", create_group_involves_only_the_members},
    {"collectives_on_created_communicators", collectives_on_created_communicators},
    {"constructors_of_comm_self", constructors_of_comm_self},
    {"free_is_safe_while_others_use_it", free_is_safe_while_others_use_it},
    {"freed_communicators_pending_receive_reports_truncation",
     freed_communicators_pending_receive_reports_truncation},
    {"compare_gives_similar_and_unequal", compare_gives_similar_and_unequal},
    {"names_belong_to_each_handle", names_belong_to_each_handle},
    {"new_communicators_inherit_the_error_handler",
     new_communicators_inherit_the_error_handler},
    {"create_free_storm", create_free_storm},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"freeing_comm_world_is_fatal", freeing_comm_world_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
