/* nbc_calls.c — nonblocking collectives (MPI_Ibarrier, MPI_Ibcast,
 * MPI_Iallreduce) and MPI_Comm_idup: results, call order, overlap with
 * other work, the Wait/Test families over them, and the error class of
 * each bad argument. Usage: nbc_calls CASE. Any number of ranks. */
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>

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

/* An Ibarrier is not complete before every rank has called it: rank 0
 * tests it while the last rank has not arrived (that rank waits for rank
 * 0's word first), and meanwhile exchanges messages. */
static void ibarrier_completes_only_when_all_arrive(void)
{
    int n = world_size(), me = world_rank(), last = n - 1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (n == 1) {
        CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL);
        return;
    }
    if (me == last) {
        int word;
        CHECK_OK(MPI_Recv(&word, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(word == 12345);
    }
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    CHECK(req != MPI_REQUEST_NULL);
    if (me == 0) {
        for (int i = 0; i < 50; i++) {
            int flag = 1;
            CHECK_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag);
            CHECK(req != MPI_REQUEST_NULL);
            CHECK_OK(MPIX_Yield());
        }
        int word = 12345;
        CHECK_OK(MPI_Send(&word, 1, MPI_INT, last, 7, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL);
}

/* One Ibcast per root, all outstanding at once (they complete in call
 * order), with derived and predefined types; payloads checked exactly. */
static void ibcast_from_every_root(void)
{
    int n = world_size(), me = world_rank();
    enum { COUNT = 5 };
    int roots = n < 64 ? n : 64;
    int (*bufs)[COUNT] = malloc((size_t)roots * sizeof *bufs);
    MPI_Request *reqs = malloc((size_t)roots * sizeof *reqs);
    CHECK(bufs && reqs);
    MPI_Datatype pairs;   /* 2 ints, gap of 1: the root sends a0 a2, ... */
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &pairs));
    CHECK_OK(MPI_Type_commit(&pairs));
    for (int root = 0; root < roots; root++) {
        for (int i = 0; i < COUNT; i++)
            bufs[root][i] = me == root ? root * 100 + i : -1;
        if (root % 2 == 0) {
            CHECK_OK(MPI_Ibcast(bufs[root], COUNT, MPI_INT, root, MPI_COMM_WORLD,
                                &reqs[root]));
        } else {
            /* Root: elements 0 and 2; the others receive 2 contiguous ints
             * into elements 0 and 1 (same type signature). */
            if (me == root)
                CHECK_OK(MPI_Ibcast(bufs[root], 1, pairs, root, MPI_COMM_WORLD,
                                    &reqs[root]));
            else
                CHECK_OK(MPI_Ibcast(bufs[root], 2, MPI_INT, root, MPI_COMM_WORLD,
                                    &reqs[root]));
        }
    }
    /* MPI_Type_free before completion: the operations keep it alive. */
    CHECK_OK(MPI_Type_free(&pairs));
    CHECK_OK(MPI_Waitall(roots, reqs, MPI_STATUSES_IGNORE));
    for (int root = 0; root < roots; root++) {
        CHECK(reqs[root] == MPI_REQUEST_NULL);
        for (int i = 0; i < COUNT; i++) {
            int want;
            if (root % 2 == 0 || me == root)
                want = root * 100 + i;
            else
                want = i == 0 ? root * 100 : i == 1 ? root * 100 + 2 : -1;
            CHECK(bufs[root][i] == want);
        }
    }
    free(bufs);
    free(reqs);
}

/* Sums, maxima and MPI_IN_PLACE, several outstanding. */
static void iallreduce_sums_and_in_place(void)
{
    int n = world_size(), me = world_rank();
    enum { COUNT = 3 };
    int in[COUNT], sum[COUNT], inplace[COUNT];
    double dmax = -1, dme = me * 0.5;
    long long big[5000], bigsum[5000];   /* beyond the small-reduction path */
    for (int i = 0; i < COUNT; i++) {
        in[i] = me + i;
        inplace[i] = me * (i + 1);
    }
    for (int i = 0; i < 5000; i++)
        big[i] = (long long)me * i;
    MPI_Request reqs[4];
    CHECK_OK(MPI_Iallreduce(in, sum, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Iallreduce(&dme, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, inplace, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            &reqs[2]));
    CHECK_OK(MPI_Iallreduce(big, bigsum, 5000, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                            &reqs[3]));
    CHECK_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    long long ranks = (long long)n * (n - 1) / 2;
    for (int i = 0; i < COUNT; i++) {
        CHECK(sum[i] == ranks + (long long)n * i);
        CHECK(inplace[i] == ranks * (i + 1));
        CHECK(in[i] == me + i);
    }
    CHECK(dmax == (n - 1) * 0.5);
    for (int i = 0; i < 5000; i++)
        CHECK(bigsum[i] == ranks * i);
}

/* Many operations outstanding on one communicator: at every moment the
 * completed ones are a prefix of the started ones (call order), and every
 * result is right. */
static void outstanding_operations_complete_in_call_order(void)
{
    int n = world_size(), me = world_rank();
    int k = n > 100 ? 12 : 48;
    MPI_Request *reqs = malloc((size_t)k * sizeof *reqs);
    int *vals = malloc((size_t)k * sizeof *vals);
    CHECK(reqs && vals);
    for (int i = 0; i < k; i++) {
        switch (i % 3) {
        case 0:
            CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[i]));
            break;
        case 1:
            vals[i] = me == i % n ? i : -1;
            CHECK_OK(MPI_Ibcast(&vals[i], 1, MPI_INT, i % n, MPI_COMM_WORLD, &reqs[i]));
            break;
        default:
            vals[i] = i + me;
            CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &vals[i], 1, MPI_INT, MPI_SUM,
                                    MPI_COMM_WORLD, &reqs[i]));
        }
    }
    int *done = calloc((size_t)k, sizeof *done);
    CHECK(done);
    /* Scanned from the last: once one is seen complete, every earlier one
     * (looked at later) must be complete too. */
    for (bool all = false; !all;) {
        bool later_done = false;
        all = true;
        for (int i = k - 1; i >= 0; i--) {
            int flag;
            CHECK_OK(MPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE));
            if (done[i])
                CHECK(flag);   /* completion is permanent */
            if (later_done)
                CHECK(flag);
            done[i] = flag;
            later_done |= flag;
            all &= flag;
        }
        CHECK_OK(MPIX_Yield());
    }
    CHECK_OK(MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE));
    long long ranks = (long long)n * (n - 1) / 2;
    for (int i = 0; i < k; i++) {
        if (i % 3 == 1)
            CHECK(vals[i] == i);
        else if (i % 3 == 2)
            CHECK(vals[i] == (long long)i * n + ranks);
    }
    free(reqs);
    free(vals);
    free(done);
}

/* Blocking collectives issued after nonblocking ones on the same
 * communicator run after them (and their results are all right). */
static void blocking_collectives_follow_pending_ones(void)
{
    int n = world_size(), me = world_rank();
    int a = me == 0 ? 11 : 0, b = me, c = me == n - 1 ? 33 : 0, d = 1;
    MPI_Request reqs[3];
    CHECK_OK(MPI_Ibcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(d == n);
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[2]));
    CHECK_OK(MPI_Bcast(&c, 1, MPI_INT, n - 1, MPI_COMM_WORLD));
    CHECK(c == 33);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* The blocking calls drained the queue: everything is complete. */
    int flag;
    CHECK_OK(MPI_Testall(3, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag);
    CHECK(a == 11 && b == n - 1);
}

/* Waitall, Waitany, Waitsome, Testany and Testall over a mix of
 * point-to-point and collective requests. */
static void wait_families_mix_point_to_point_and_collectives(void)
{
    int n = world_size(), me = world_rank();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int got = -1, sent = me, sum = me, bval = me == 0 ? 5 : 0;
    MPI_Request reqs[4];
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            &reqs[1]));
    CHECK_OK(MPI_Isend(&sent, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &reqs[2]));
    CHECK_OK(MPI_Ibcast(&bval, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[3]));
    int seen[4] = {0};
    for (int left_to_go = 4; left_to_go > 0; left_to_go--) {
        int index;
        MPI_Status st;
        st.MPI_ERROR = -5;
        CHECK_OK(MPI_Waitany(4, reqs, &index, &st));
        CHECK(index >= 0 && index < 4 && !seen[index]);
        CHECK(st.MPI_ERROR == -5);   /* single completion: left alone */
        seen[index] = 1;
        CHECK(reqs[index] == MPI_REQUEST_NULL);
    }
    CHECK(got == left && sum == n * (n - 1) / 2 && bval == 5);

    /* Testany/Testall: poll until done. */
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Isend(&sent, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &reqs[2]));
    int flag = 0, index;
    for (int spins = 0; !flag; spins++) {
        CHECK_OK(MPI_Testany(3, reqs, &index, &flag, MPI_STATUS_IGNORE));
        CHECK(spins < 10000000);
    }
    CHECK(index >= 0 && index < 3 && reqs[index] == MPI_REQUEST_NULL);
    for (flag = 0; !flag;)
        CHECK_OK(MPI_Testall(3, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL &&
          reqs[2] == MPI_REQUEST_NULL);

    /* Waitsome until all done. */
    sum = 1;
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            &reqs[0]));
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]));
    int total = 0;
    while (total < 2) {
        int outcount, indices[2];
        CHECK_OK(MPI_Waitsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
        CHECK(outcount >= 1 && outcount <= 2);
        total += outcount;
    }
    CHECK(sum == n);
}

/* A collective request's status: nothing received, not cancelled, MPI_ERROR
 * left alone; MPI_Request_get_status leaves the request to be completed. */
static void status_of_a_collective_request(void)
{
    int x = 1;
    MPI_Request req;
    MPI_Status st;
    st.MPI_ERROR = -5;
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    int flag = 0;
    while (!flag)
        CHECK_OK(MPI_Request_get_status(req, &flag, &st));
    CHECK(req != MPI_REQUEST_NULL);
    CHECK(st.MPI_ERROR == -5);
    st.MPI_ERROR = -1;
    CHECK_OK(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(st.MPI_ERROR == -1);
    int count = -1, cancelled = -1;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0);
    CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled);
    CHECK(x == world_size());
}

/* MPI_Request_free and MPI_Cancel on a collective request are errors
 * (MPI 3.1, 5.12) that leave the request as it was; MPI_Start too. */
static void free_cancel_and_start_of_a_collective_are_errors(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Request req, copy;
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    copy = req;
    CHECK(MPI_Request_free(&req) == MPI_ERR_REQUEST);
    CHECK(req == copy);
    CHECK(MPI_Cancel(&req) == MPI_ERR_REQUEST);
    CHECK(MPI_Start(&req) == MPI_ERR_REQUEST);
    CHECK(req == copy);
    MPI_Status st;
    CHECK_OK(MPI_Wait(&req, &st));
    int cancelled = 1;
    CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled && req == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* The communicator and datatype of a pending operation may be freed; it
 * still completes correctly. */
static void freed_communicator_and_type_finish_their_operations(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Datatype two;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
    CHECK_OK(MPI_Type_commit(&two));
    int v[2] = {me, 2 * me}, w[2] = {me == n - 1 ? 7 : 0, me == n - 1 ? 8 : 0};
    MPI_Request reqs[2];
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, dup, &reqs[0]));
    CHECK_OK(MPI_Ibcast(w, 1, two, n - 1, dup, &reqs[1]));
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK_OK(MPI_Type_free(&two));
    CHECK(dup == MPI_COMM_NULL);
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK(v[0] == n * (n - 1) / 2 && v[1] == n * (n - 1));
    CHECK(w[0] == 7 && w[1] == 8);
}

/* Collectives on different communicators proceed independently: a rank
 * may start them in different orders on different communicators. */
static void communicators_progress_independently(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm a, b;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    int x = 1, y = 2;
    MPI_Request reqs[2];
    if (me % 2 == 0) {
        CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, a, &reqs[0]));
        CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, b, &reqs[1]));
    } else {
        CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, b, &reqs[1]));
        CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, a, &reqs[0]));
    }
    /* Wait for b's first: the even ranks' a-operation must not hold it. */
    CHECK_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    CHECK(y == 2 * n);
    CHECK_OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    CHECK(x == n);
    CHECK_OK(MPI_Comm_free(&a));
    CHECK_OK(MPI_Comm_free(&b));
}

/* MPI_Comm_idup: the new communicator (set at completion) is congruent,
 * has its own context, and works for collectives and point-to-point;
 * several may be pending with other collectives. */
static void comm_idup_gives_a_working_duplicate(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm d1 = MPI_COMM_NULL, d2 = MPI_COMM_NULL, half, d3 = MPI_COMM_NULL,
             selfdup = MPI_COMM_NULL;
    MPI_Request reqs[4];
    int x = me;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half));
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &reqs[0]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d2, &reqs[2]));
    CHECK_OK(MPI_Comm_idup(half, &d3, &reqs[3]));
    CHECK_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    MPI_Request r;
    CHECK_OK(MPI_Comm_idup(MPI_COMM_SELF, &selfdup, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(x == n * (n - 1) / 2);
    int result;
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, d1, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(d1, d2, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(half, d3, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(MPI_COMM_SELF, selfdup, &result));
    CHECK(result == MPI_CONGRUENT);
    /* Separate contexts: a message on d1 is not received on d2. */
    int right = (me + 1) % n, left = (me + n - 1) % n, a = -1, b = -1;
    MPI_Request rr[4];
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, left, 0, d2, &rr[0]));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, left, 0, d1, &rr[1]));
    int one = 100 + me, two = 200 + me;
    CHECK_OK(MPI_Isend(&one, 1, MPI_INT, right, 0, d1, &rr[2]));
    CHECK_OK(MPI_Isend(&two, 1, MPI_INT, right, 0, d2, &rr[3]));
    CHECK_OK(MPI_Waitall(4, rr, MPI_STATUSES_IGNORE));
    CHECK(b == 100 + left && a == 200 + left);
    int y = 1;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, d3));
    int hsize;
    CHECK_OK(MPI_Comm_size(half, &hsize));
    CHECK(y == hsize);
    /* The duplicate inherits the error handler. */
    MPI_Comm d4;
    CHECK_OK(MPI_Comm_set_errhandler(d1, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_idup(d1, &d4, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(MPI_Send(&y, 1, MPI_INT, n, 0, d4) == MPI_ERR_RANK);
    MPI_Comm all[] = {d1, d2, d3, d4, half, selfdup};
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Comm_free(&all[i]));
}

/* A mismatch only the ranks together see (different roots) is the
 * operation's error, raised by MPI_Wait on every rank. */
static void mismatch_is_raised_by_wait(void)
{
    int n = world_size(), me = world_rank();
    CHECK(n >= 2);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0;
    MPI_Request req;
    CHECK_OK(MPI_Ibcast(&x, 1, MPI_INT, me == 1 ? 1 : 0, MPI_COMM_WORLD, &req));
    MPI_Status st;
    st.MPI_ERROR = -5;
    CHECK(MPI_Wait(&req, &st) == MPI_ERR_ROOT);
    CHECK(req == MPI_REQUEST_NULL && st.MPI_ERROR == -5);
    /* The communicator still works afterwards. */
    int y = 1;
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(y == n);
    /* In a Waitall: MPI_ERR_IN_STATUS, the class in the status. */
    MPI_Request reqs[2];
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, me == 0 ? MPI_MAX : MPI_MIN,
                            MPI_COMM_WORLD, &reqs[1]));
    MPI_Status sts[2];
    CHECK(MPI_Waitall(2, reqs, sts) == MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_OP);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* The default handler ends the job with one line naming the collective. */
static void mismatch_at_wait_is_fatal(void)
{
    int x = 0, me = world_rank();
    MPI_Request req;
    CHECK_OK(MPI_Ibcast(&x, 1, MPI_INT, me == 1 ? 1 : 0, MPI_COMM_WORLD, &req));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void bad_arguments_return_error_classes(void)
{
    int n = world_size();
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Request req = MPI_REQUEST_NULL;
    int x = 0, y = 0;
    CHECK(MPI_Ibarrier(MPI_COMM_NULL, &req) == MPI_ERR_COMM);
    CHECK(MPI_Ibarrier((MPI_Comm)&x, &req) == MPI_ERR_COMM);
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Ibcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD, &req) == MPI_ERR_COUNT);
    CHECK(MPI_Ibcast(&x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &req) == MPI_ERR_TYPE);
    CHECK(MPI_Ibcast(&x, 1, MPI_INT, n, MPI_COMM_WORLD, &req) == MPI_ERR_ROOT);
    CHECK(MPI_Ibcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD, &req) == MPI_ERR_ROOT);
    CHECK(MPI_Ibcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD, &req) == MPI_ERR_BUFFER);
    CHECK(MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    MPI_Datatype uncommitted;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    CHECK(MPI_Ibcast(&x, 1, uncommitted, 0, MPI_COMM_WORLD, &req) == MPI_ERR_TYPE);
    CHECK_OK(MPI_Type_free(&uncommitted));
    CHECK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req) ==
          MPI_ERR_OP);
    CHECK(MPI_Iallreduce(&x, &y, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_ERR_OP);
    CHECK(MPI_Iallreduce(&x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Iallreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Iallreduce(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) ==
          MPI_ERR_COUNT);
    CHECK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req) == MPI_ERR_COMM);
    CHECK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    MPI_Comm newcomm = MPI_COMM_NULL;
    CHECK(MPI_Comm_idup(MPI_COMM_NULL, &newcomm, &req) == MPI_ERR_COMM);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req) == MPI_ERR_ARG);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &newcomm, NULL) == MPI_ERR_ARG);
    CHECK(req == MPI_REQUEST_NULL && newcomm == MPI_COMM_NULL);   /* untouched */
    /* Nothing was started: the next collectives pair up across ranks. */
    x = 1;
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(x == n);
    /* MPI_COMM_SELF: complete at once, as a communicator of one rank. */
    x = 3;
    CHECK_OK(MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF, &req));
    CHECK(MPI_Ibcast(&x, 1, MPI_INT, 1, MPI_COMM_SELF, &req) == MPI_ERR_ROOT);
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(x == 3);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* MPI_Comm_idup of an intercommunicator, behind a pending collective on
 * it: the same two groups, and its own messages. */
static void idup_of_an_intercommunicator(void)
{
    int n = world_size(), me = world_rank();
    CHECK(n >= 2);
    MPI_Comm half, inter;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 9, &inter));
    CHECK_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    MPI_Comm newcomm;
    /* Queued behind a collective on the same intercommunicator. */
    MPI_Request reqs[2];
    CHECK_OK(MPI_Ibarrier(inter, &reqs[0]));
    CHECK_OK(MPI_Comm_idup(inter, &newcomm, &reqs[1]));
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    int flag = 0, remote = -1, lsize = -1;
    CHECK_OK(MPI_Comm_test_inter(newcomm, &flag));
    CHECK_OK(MPI_Comm_remote_size(newcomm, &remote));
    CHECK_OK(MPI_Comm_size(newcomm, &lsize));
    CHECK(flag && lsize == (me % 2 ? n / 2 : (n + 1) / 2) && remote == n - lsize);
    /* The duplicate reaches the other group: each rank 0 sends its world rank. */
    int mine_rank;
    CHECK_OK(MPI_Comm_rank(newcomm, &mine_rank));
    if (mine_rank == 0) {
        int got = -1;
        CHECK_OK(MPI_Sendrecv(&me, 1, MPI_INT, 0, 4, &got, 1, MPI_INT, 0, 4, newcomm,
                              MPI_STATUS_IGNORE));
        CHECK(got == (me % 2 ? 0 : 1));
    }
    CHECK_OK(MPI_Comm_free(&newcomm));
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));
}

/* A rank computes while its collective waits for the others: started by
 * every rank, each then sums a range on its own, yielding now and then,
 * before it waits. */
static void rank_computes_while_the_collective_proceeds(void)
{
    int n = world_size(), me = world_rank();
    double acc = 0;
    int v = me;
    MPI_Request req;
    CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req));
    int flag = 0, tests = 0;
    for (int i = 1; i <= 20000; i++) {
        acc += 1.0 / i;
        if (i % 1000 == 0) {
            if (!flag) {
                CHECK_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                tests++;
            }
        }
    }
    if (!flag)
        CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(v == n - 1 && acc > 10 && tests > 0);
}

/* Many operations of every common kind outstanding at once on three
 * communicators (the world, a duplicate, the even and odd halves), each
 * communicator's started in the same order by all its ranks but the
 * communicators interleaved differently by even and odd ranks, with
 * blocking collectives between them; then polled with MPI_Test (and
 * waited for in reverse order). Every payload is checked exactly. */
enum { MIX_KINDS = 7 };

typedef struct mix_slot {
    MPI_Request req;
    int kind, root;
    int v[4];
    int *many;          /* allgather/alltoall: n entries each way */
    int *out;
} mix_slot;

static void mix_start(mix_slot *m, int kind, int i, MPI_Comm comm)
{
    int n, me;
    CHECK_OK(MPI_Comm_size(comm, &n));
    CHECK_OK(MPI_Comm_rank(comm, &me));
    m->kind = kind;
    m->root = i % n;
    m->many = m->out = NULL;
    switch (kind) {
    case 0:
        CHECK_OK(MPI_Ibarrier(comm, &m->req));
        break;
    case 1:
        for (int k = 0; k < 4; k++)
            m->v[k] = me == m->root ? i * 10 + k : -1;
        CHECK_OK(MPI_Ibcast(m->v, 4, MPI_INT, m->root, comm, &m->req));
        break;
    case 2:
        m->v[0] = me + i;
        m->v[1] = -me;
        CHECK_OK(MPI_Iallreduce(MPI_IN_PLACE, m->v, 2, MPI_INT, MPI_SUM, comm, &m->req));
        break;
    case 3:
        m->v[0] = me;
        m->v[1] = -1;
        CHECK_OK(MPI_Ireduce(&m->v[0], &m->v[1], 1, MPI_INT, MPI_MAX, m->root, comm,
                             &m->req));
        break;
    case 4:
        m->v[0] = me + 1;
        CHECK_OK(MPI_Iscan(&m->v[0], &m->v[1], 1, MPI_INT, MPI_SUM, comm, &m->req));
        break;
    case 5:
        m->many = malloc((size_t)n * sizeof(int));
        CHECK(m->many);
        m->v[0] = me * 3 + i;
        CHECK_OK(MPI_Iallgather(&m->v[0], 1, MPI_INT, m->many, 1, MPI_INT, comm, &m->req));
        break;
    default:
        m->many = malloc((size_t)n * sizeof(int));
        m->out = malloc((size_t)n * sizeof(int));
        CHECK(m->many && m->out);
        for (int q = 0; q < n; q++)
            m->many[q] = me * 1000 + q + i;
        CHECK_OK(MPI_Ialltoall(m->many, 1, MPI_INT, m->out, 1, MPI_INT, comm, &m->req));
    }
}

static void mix_check(mix_slot *m, int i, MPI_Comm comm)
{
    int n, me;
    CHECK_OK(MPI_Comm_size(comm, &n));
    CHECK_OK(MPI_Comm_rank(comm, &me));
    long long tri = (long long)n * (n - 1) / 2;
    switch (m->kind) {
    case 1:
        for (int k = 0; k < 4; k++)
            CHECK(m->v[k] == i * 10 + k);
        break;
    case 2:
        CHECK(m->v[0] == tri + (long long)n * i && m->v[1] == -tri);
        break;
    case 3:
        if (me == m->root)
            CHECK(m->v[1] == n - 1);
        else
            CHECK(m->v[1] == -1);
        break;
    case 4:
        CHECK(m->v[1] == (me + 1) * (me + 2) / 2);
        break;
    case 5:
        for (int q = 0; q < n; q++)
            CHECK(m->many[q] == q * 3 + i);
        break;
    case 6:
        for (int q = 0; q < n; q++)
            CHECK(m->out[q] == q * 1000 + me + i);
        break;
    }
    free(m->many);
    free(m->out);
}

static void outstanding_mix_on_several_communicators(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm comms[3];
    comms[0] = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comms[2]));
    int per = n > 100 ? 6 : 24;   /* per communicator and round */
    mix_slot *slots = malloc((size_t)(3 * per) * sizeof *slots);
    CHECK(slots);
    for (int round = 0; round < 3; round++) {
        /* Even ranks go through the communicators 0, 1, 2, odd ones 2, 1,
         * 0, one operation at a time: only the order within each is fixed. */
        for (int i = 0; i < per; i++)
            for (int c = 0; c < 3; c++) {
                int cc = me % 2 ? 2 - c : c;
                mix_start(&slots[cc * per + i], (i + round + cc) % MIX_KINDS, i + round,
                          comms[cc]);
            }
        /* A blocking collective on each, behind its pending ones (in
         * the same order everywhere: blocking calls wait for each other). */
        for (int cc = 0; cc < 3; cc++) {
            int csize, sum = 1;
            CHECK_OK(MPI_Comm_size(comms[cc], &csize));
            CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, comms[cc]));
            CHECK(sum == csize);
        }
        if (round == 1) {
            /* The blocking ones drained them: all complete. */
            for (int k = 0; k < 3 * per; k++) {
                int flag = 0;
                CHECK_OK(MPI_Test(&slots[k].req, &flag, MPI_STATUS_IGNORE));
                CHECK(flag && slots[k].req == MPI_REQUEST_NULL);
            }
        } else {
            for (int k = 3 * per - 1; k >= 0; k--)
                CHECK_OK(MPI_Wait(&slots[k].req, MPI_STATUS_IGNORE));
        }
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < per; i++)
                mix_check(&slots[c * per + i], i + round, comms[c]);
    }
    free(slots);
    CHECK_OK(MPI_Comm_free(&comms[1]));
    CHECK_OK(MPI_Comm_free(&comms[2]));
}

/* A rank blocked in a receive still lets its queued collectives go on:
 * the ranks start two barriers; rank 0 then waits for a message that
 * rank n-1 sends only once its second barrier is complete, which needs
 * rank 0's second barrier to have arrived while rank 0 sits in MPI_Recv. */
static void queued_operations_progress_while_the_rank_blocks(void)
{
    int n = world_size(), me = world_rank(), last = n - 1;
    if (n == 1)
        return;
    MPI_Request reqs[3];
    int v = me == 0 ? 5 : -1;
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]));
    CHECK_OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]));
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[2]));
    if (me == 0) {
        int word;
        CHECK_OK(MPI_Recv(&word, 1, MPI_INT, last, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(word == 77);
    } else if (me == last) {
        CHECK_OK(MPI_Wait(&reqs[2], MPI_STATUS_IGNORE));
        int word = 77;
        CHECK_OK(MPI_Send(&word, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(v == 5);
}

/* MPI_Wait on a nonblocking collective joins its round as a blocking
 * rank when the completer has not claimed it yet, and finishes the
 * operation itself. Every way a rank can reach its Wait is mixed, rank by
 * rank and iteration by iteration: at once, after computing (the round
 * may complete meanwhile), after MPI_Test, with a second operation queued
 * behind (waited for first: it cannot join before the first finishes),
 * or by MPI_Waitall. Every payload is checked. */
static unsigned mix_hash(unsigned a, unsigned b)
{
    unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    h *= 2246822519u;
    return h ^ (h >> 13);
}

static volatile double join_sink;

static void wait_joins_the_round_in_every_order(void)
{
    int n = world_size(), me = world_rank();
    int iters = n > 256 ? 40 : 400;
    for (int i = 0; i < iters; i++) {
        int kind = i % 3;
        unsigned how = mix_hash((unsigned)me, (unsigned)i) % 5;
        MPI_Request req[2];
        int root = i % n;
        int sum_in = me + i, sum = -1;
        int b = me == root ? 7 * i + root : -1;
        if (kind == 0)
            CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        else if (kind == 1)
            CHECK_OK(MPI_Iallreduce(&sum_in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
        else
            CHECK_OK(MPI_Ibcast(&b, 1, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
        /* A second operation, behind the first, every fourth iteration. */
        int second = -1;
        bool two = i % 4 == 3;
        if (two)
            CHECK_OK(MPI_Iallreduce(&me, &second, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req[1]));
        if (how == 1) {
            double acc = 0;
            for (unsigned k = 1; k < 200 + mix_hash((unsigned)i, 1) % 2000; k++)
                acc += 1.0 / k;
            join_sink = acc;
        } else if (how == 2) {
            int flag;
            CHECK_OK(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
            if (flag)
                req[0] = MPI_REQUEST_NULL;
        }
        if (how == 3) {
            CHECK_OK(MPI_Waitall(two ? 2 : 1, req, MPI_STATUSES_IGNORE));
        } else if (two && how == 4) {
            CHECK_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        } else {
            CHECK_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
            if (two)
                CHECK_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
        }
        if (kind == 1)
            CHECK(sum == n * (n - 1) / 2 + n * i);
        if (kind == 2)
            CHECK(b == 7 * i + root);
        if (two)
            CHECK(second == n - 1);
    }
}

/* The FIFO of a rank's operations on a communicator is lock-free (coll/
 * nbc.c): a start links itself behind the tail while the head's finisher,
 * often another rank's ULT on another worker, unlinks it. Here queues of
 * 1 to 6 operations of four kinds (some of 4,000 ints, whose rounds take
 * longer), started by every rank in the same order but between them
 * some ranks compute, some poll with MPI_Test, some start a blocking
 * collective (which waits for the queue) and each waits in its own order:
 * in call order, in reverse, with MPI_Waitall or MPI_Waitany. Every
 * payload is checked. With more workers than cores, a start may be
 * preempted between its exchange and its link, which the finisher waits
 * out. */
enum { FIFO_MAX = 6, FIFO_LONG = 4000 };

static void fifo_start_races_the_finish_of_the_head(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int iters = n > 64 ? 200 : 2000;
    int *in = malloc(FIFO_MAX * FIFO_LONG * sizeof *in);
    int *out = malloc(FIFO_MAX * FIFO_LONG * sizeof *out);
    int *gath = malloc((size_t)FIFO_MAX * n * sizeof *gath);
    CHECK(in && out && gath);
    for (int i = 0; i < iters; i++) {
        MPI_Comm comm = i % 3 == 2 ? dup : MPI_COMM_WORLD;
        int depth = 1 + i % FIFO_MAX;
        MPI_Request req[FIFO_MAX];
        int kind[FIFO_MAX], count[FIFO_MAX], root[FIFO_MAX];
        for (int k = 0; k < depth; k++) {
            kind[k] = (int)(mix_hash((unsigned)i, (unsigned)k) % 4);
            count[k] = mix_hash((unsigned)k, (unsigned)i) % 5 == 0 ? FIFO_LONG : 1 + k;
            root[k] = (i + k) % n;
            int *x = in + k * FIFO_LONG, *y = out + k * FIFO_LONG;
            for (int j = 0; j < count[k]; j++) {
                x[j] = me + i + j;
                y[j] = -1;
            }
            if (kind[k] == 0) {
                CHECK_OK(MPI_Ibarrier(comm, &req[k]));
            } else if (kind[k] == 1) {
                CHECK_OK(MPI_Iallreduce(x, y, count[k], MPI_INT, MPI_SUM, comm, &req[k]));
            } else if (kind[k] == 2) {
                if (me == root[k])
                    for (int j = 0; j < count[k]; j++)
                        y[j] = 3 * i + j + root[k];
                CHECK_OK(MPI_Ibcast(y, count[k], MPI_INT, root[k], comm, &req[k]));
            } else {
                CHECK_OK(MPI_Iallgather(&x[0], 1, MPI_INT, gath + k * n, 1, MPI_INT, comm,
                                        &req[k]));
            }
            /* Between the starts: this rank computes, polls, or goes on. */
            unsigned between = mix_hash((unsigned)(me + 7 * k), (unsigned)i) % 4;
            if (between == 1) {
                double acc = 0;
                for (unsigned j = 1; j < 100 + mix_hash((unsigned)i, (unsigned)me) % 3000; j++)
                    acc += 1.0 / j;
                join_sink = acc;
            } else if (between == 2) {
                int flag;
                CHECK_OK(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
            }
        }
        /* Every seventh round a blocking collective follows the queue. */
        int after = -1;
        if (i % 7 == 0)
            CHECK_OK(MPI_Allreduce(&me, &after, 1, MPI_INT, MPI_MIN, comm));
        unsigned how = mix_hash((unsigned)me, (unsigned)(i + 1000)) % 4;
        if (how == 0) {
            for (int k = 0; k < depth; k++)
                CHECK_OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
        } else if (how == 1) {
            for (int k = depth - 1; k >= 0; k--)
                CHECK_OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
        } else if (how == 2) {
            CHECK_OK(MPI_Waitall(depth, req, MPI_STATUSES_IGNORE));
        } else {
            /* (An MPI_Test between the starts may have completed req[0].) */
            for (int idx = 0, left = depth; idx != MPI_UNDEFINED; left--) {
                CHECK(left >= 0);
                CHECK_OK(MPI_Waitany(depth, req, &idx, MPI_STATUS_IGNORE));
            }
        }
        for (int k = 0; k < depth; k++) {
            CHECK(req[k] == MPI_REQUEST_NULL);
            int *y = out + k * FIFO_LONG;
            if (kind[k] == 1) {
                for (int j = 0; j < count[k]; j++)
                    CHECK(y[j] == n * (n - 1) / 2 + n * (i + j));
            } else if (kind[k] == 2) {
                for (int j = 0; j < count[k]; j++)
                    CHECK(y[j] == 3 * i + j + root[k]);
            } else if (kind[k] == 3) {
                for (int r = 0; r < n; r++)
                    CHECK(gath[k * n + r] == r + i);
            }
        }
        if (i % 7 == 0)
            CHECK(after == 0);
    }
    free(in);
    free(out);
    free(gath);
    CHECK_OK(MPI_Comm_free(&dup));
}

/* An operation and its request are one block (coll/nbc.c), taken by the
 * start on the rank's worker and given back by whichever call retires the
 * request, while the round's completer (often another rank's ULT, on
 * another worker) finishes it and a start that finds its FIFO empty
 * queues with a plain store. Here every call that can retire a
 * collective's request does, each rank choosing its own per round:
 * MPI_Wait at once or after computing, a loop of MPI_Test, of
 * MPI_Request_get_status then MPI_Wait, MPI_Testall, MPI_Waitsome,
 * MPI_Testany. Rounds of 1 to 4 operations (Ibarrier, Iallreduce,
 * Ibcast from a moving root) run on MPI_COMM_WORLD and on a duplicate
 * that is sometimes freed while they are pending (the requests keep it
 * alive) and made again; some rounds start a blocking Allreduce or Bcast
 * in the middle (it waits for the queue). Every payload is checked, and
 * every request handle is MPI_REQUEST_NULL after its retirement. */
enum { RETIRE_MAX = 4 };
static void every_completion_call_retires_a_collective_request(void)
{
    int n = world_size(), me = world_rank();
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    /* Fewer rounds when they cross OS processes (tests/net), each a
     * network exchange. */
    MPI_Comm node;
    int collocated;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_OK(MPI_Comm_size(node, &collocated));
    CHECK_OK(MPI_Comm_free(&node));
    int iters = collocated < n ? 150 : n > 64 ? 300 : n > 2 ? 500 : 3000;
    for (int i = 0; i < iters; i++) {
        MPI_Comm comm = i % 2 ? dup : MPI_COMM_WORLD;
        int depth = 1 + (int)(mix_hash((unsigned)i, 11) % RETIRE_MAX);
        MPI_Request req[RETIRE_MAX];
        int kind[RETIRE_MAX], root[RETIRE_MAX], mine[RETIRE_MAX], sum[RETIRE_MAX];
        int word[RETIRE_MAX];
        int blocking_at = i % 5 == 0 ? (int)(mix_hash((unsigned)i, 12) % (unsigned)depth) : -1;
        int blocking = -1;
        for (int k = 0; k < depth; k++) {
            kind[k] = (int)(mix_hash((unsigned)i, (unsigned)(k + 20)) % 3);
            root[k] = (i + 3 * k) % n;
            if (kind[k] == 0) {
                CHECK_OK(MPI_Ibarrier(comm, &req[k]));
            } else if (kind[k] == 1) {
                mine[k] = me + i + k;   /* read until the operation completes */
                sum[k] = -1;
                CHECK_OK(MPI_Iallreduce(&mine[k], &sum[k], 1, MPI_INT, MPI_SUM, comm, &req[k]));
            } else {
                word[k] = me == root[k] ? 7 * i + k : -1;
                CHECK_OK(MPI_Ibcast(&word[k], 1, MPI_INT, root[k], comm, &req[k]));
            }
            if (k == blocking_at) {
                if (i % 10 == 0) {
                    CHECK_OK(MPI_Allreduce(&me, &blocking, 1, MPI_INT, MPI_MAX, comm));
                } else {
                    blocking = me == 0 ? i : -1;
                    CHECK_OK(MPI_Bcast(&blocking, 1, MPI_INT, 0, comm));
                }
            }
        }
        if (i % 9 == 4 && comm == dup) {
            /* Freed with operations pending: their requests hold it. */
            CHECK_OK(MPI_Comm_free(&dup));
            CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        }
        unsigned how = mix_hash((unsigned)me, (unsigned)(i + 500)) % 7;
        int flag = 0;
        if (how == 0) {
            for (int k = 0; k < depth; k++)
                CHECK_OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
        } else if (how == 1) {
            double acc = 0;
            for (unsigned j = 1; j < 100 + mix_hash((unsigned)i, (unsigned)me) % 3000; j++)
                acc += 1.0 / j;
            join_sink = acc;
            for (int k = depth - 1; k >= 0; k--) {
                /* The status of a collective: empty, MPI_ERROR the user's. */
                MPI_Status st = {.MPI_ERROR = -3, .MPI_TAG = -3};
                int count = -1;
                CHECK_OK(MPI_Wait(&req[k], &st));
                CHECK(st.MPI_ERROR == -3 && st.MPI_TAG == MPI_ANY_TAG);
                CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
                CHECK(count == 0);
            }
        } else if (how == 2) {
            for (int k = 0; k < depth; k++)
                for (flag = 0; !flag;)
                    CHECK_OK(MPI_Test(&req[k], &flag, MPI_STATUS_IGNORE));
        } else if (how == 3) {
            for (int k = 0; k < depth; k++) {
                for (flag = 0; !flag;)
                    CHECK_OK(MPI_Request_get_status(req[k], &flag, MPI_STATUS_IGNORE));
                CHECK(req[k] != MPI_REQUEST_NULL);
                CHECK_OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
            }
        } else if (how == 4) {
            for (flag = 0; !flag;)
                CHECK_OK(MPI_Testall(depth, req, &flag, MPI_STATUSES_IGNORE));
        } else if (how == 5) {
            for (int left = depth; left > 0;) {
                int done, idx[RETIRE_MAX];
                CHECK_OK(MPI_Waitsome(depth, req, &done, idx, MPI_STATUSES_IGNORE));
                CHECK(done >= 1 && done <= left);
                left -= done;
            }
        } else {
            for (int left = depth; left > 0;) {
                int idx;
                CHECK_OK(MPI_Testany(depth, req, &idx, &flag, MPI_STATUS_IGNORE));
                if (flag && idx != MPI_UNDEFINED)
                    left--;
            }
        }
        for (int k = 0; k < depth; k++) {
            CHECK(req[k] == MPI_REQUEST_NULL);
            if (kind[k] == 1)
                CHECK(sum[k] == n * (n - 1) / 2 + n * (i + k));
            else if (kind[k] == 2)
                CHECK(word[k] == 7 * i + k);
        }
        if (blocking_at >= 0)
            CHECK(blocking == (i % 10 == 0 ? n - 1 : i));
    }
    CHECK_OK(MPI_Comm_free(&dup));
}

static const test_case cases[] = {
    {"wait_joins_the_round_in_every_order", wait_joins_the_round_in_every_order},
    {"fifo_start_races_the_finish_of_the_head", fifo_start_races_the_finish_of_the_head},
    {"every_completion_call_retires_a_collective_request",
     every_completion_call_retires_a_collective_request},
    {"ibarrier_completes_only_when_all_arrive", ibarrier_completes_only_when_all_arrive},
    {"ibcast_from_every_root", ibcast_from_every_root},
    {"iallreduce_sums_and_in_place", iallreduce_sums_and_in_place},
    {"outstanding_operations_complete_in_call_order",
     outstanding_operations_complete_in_call_order},
    {"blocking_collectives_follow_pending_ones", blocking_collectives_follow_pending_ones},
    {"wait_families_mix_point_to_point_and_collectives",
     wait_families_mix_point_to_point_and_collectives},
    {"status_of_a_collective_request", status_of_a_collective_request},
    {"free_cancel_and_start_of_a_collective_are_errors",
     free_cancel_and_start_of_a_collective_are_errors},
    {"freed_communicator_and_type_finish_their_operations",
     freed_communicator_and_type_finish_their_operations},
    {"communicators_progress_independently", communicators_progress_independently},
    {"comm_idup_gives_a_working_duplicate", comm_idup_gives_a_working_duplicate},
    {"mismatch_is_raised_by_wait", mismatch_is_raised_by_wait},
    {"mismatch_at_wait_is_fatal", mismatch_at_wait_is_fatal},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"idup_of_an_intercommunicator", idup_of_an_intercommunicator},
    {"rank_computes_while_the_collective_proceeds",
     rank_computes_while_the_collective_proceeds},
    {"outstanding_mix_on_several_communicators", outstanding_mix_on_several_communicators},
    {"queued_operations_progress_while_the_rank_blocks",
     queued_operations_progress_while_the_rank_blocks},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    CHECK_OK(MPI_Finalize());
    return rc;
}
