/*
 * coll_errors.c — collectives whose ranks pass arguments that disagree,
 * in jobs of several OS processes: the error found in one process reaches
 * the ranks of the others that MPI (and MPICH's errors/coll tests) expect
 * to see it, nobody waits forever, and the communicator is in step
 * afterwards (no message of the failed collective is left for the next).
 *
 * Each case puts the wrong argument at one rank (`bad`: the first or the
 * last of the communicator, so that it sits in the first or the last
 * process), runs blocking and nonblocking forms, checks which ranks got an
 * error, then runs collectives with verified results. Communicators:
 * MPI_COMM_WORLD (each process's ranks consecutive: the hierarchical
 * algorithms) and a split whose ranks interleave the processes (the plain
 * ones). Prints "coll_errors: N ranks, C cases, E errors: ok".
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, errors, cases;

#define EXPECT(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond)) {                                                             \
            printf("rank %d: %s:%d: ", wrank, __FILE__, __LINE__);                 \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
            errors++;                                                              \
        }                                                                          \
    } while (0)

enum { N = 10, BIG = 20000 };   /* BIG doubles: the leaders' ring (>= 64 KiB) */

typedef struct ctx {
    MPI_Comm comm;
    const char *name;
    int rank, size, bad;
    int *in, *out;        /* room for BIG doubles per rank */
    double *din, *dout;
} ctx;

/* Called by a rank that must (must = true) or may get an error. */
static void outcome(const ctx *x, const char *what, int err, bool must)
{
    cases += x->rank == 0;
    if (must)
        EXPECT(err != MPI_SUCCESS, "%s on %s (bad rank %d): no error", what, x->name, x->bad);
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0, cls = -1;
        EXPECT(MPI_Error_string(err, msg, &len) == MPI_SUCCESS && len > 0,
               "%s: no error string", what);
        EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS && cls != MPI_SUCCESS,
               "%s: no error class", what);
    }
}

static int finish(int err, MPI_Request *req)
{
    return err != MPI_SUCCESS ? err : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* The communicator still works, and no message of a failed collective
 * is taken by these (their sizes differ from every failed one's). */
static void in_step(const ctx *x, const char *after)
{
    int r = x->rank, n = x->size, sum = -1;
    EXPECT(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, x->comm) == MPI_SUCCESS &&
               sum == n * (n - 1) / 2, "after %s on %s: Allreduce gives %d", after, x->name, sum);
    int v[3] = {r, r, r};
    EXPECT(MPI_Bcast(v, 3, MPI_INT, n - 1, x->comm) == MPI_SUCCESS && v[0] == n - 1 &&
               v[2] == n - 1, "after %s on %s: Bcast gives %d", after, x->name, v[0]);
    int *all = malloc((size_t)n * 2 * sizeof *all), mine[2] = {r, -r};
    EXPECT(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, x->comm) == MPI_SUCCESS,
           "after %s on %s: Allgather failed", after, x->name);
    for (int i = 0; i < n; i++)
        EXPECT(all[2 * i] == i && all[2 * i + 1] == -i, "after %s on %s: Allgather block %d",
               after, x->name, i);
    free(all);
    EXPECT(MPI_Barrier(x->comm) == MPI_SUCCESS, "after %s: Barrier failed", after);
}

static void bcast_cases(const ctx *x)
{
    bool bad = x->rank == x->bad;
    MPI_Request q;
    /* The root's count differs: every other rank must see it. */
    int root = x->bad;
    int cnt = bad ? 1 : N;
    outcome(x, "Bcast (root's count)", MPI_Bcast(x->in, cnt, MPI_INT, root, x->comm), !bad);
    in_step(x, "Bcast");
    outcome(x, "Ibcast (root's count)",
            finish(MPI_Ibcast(x->in, cnt, MPI_INT, root, x->comm, &q), &q), !bad);
    in_step(x, "Ibcast");
    /* A receiver's count differs: that receiver must see it. */
    root = x->bad == 0 ? x->size - 1 : 0;
    outcome(x, "Bcast (a receiver's count)",
            MPI_Bcast(x->in, bad ? N + 1 : N, MPI_INT, root, x->comm), bad);
    in_step(x, "Bcast");
}

static void reduce_cases(const ctx *x)
{
    bool bad = x->rank == x->bad;
    MPI_Request q;
    int small = bad ? 1 : N, big = bad ? BIG - 1 : BIG;
    outcome(x, "Allreduce (count)",
            MPI_Allreduce(x->in, x->out, small, MPI_INT, MPI_SUM, x->comm), true);
    in_step(x, "Allreduce");
    outcome(x, "Iallreduce (count)",
            finish(MPI_Iallreduce(x->in, x->out, small, MPI_INT, MPI_SUM, x->comm, &q), &q),
            true);
    in_step(x, "Iallreduce");
    outcome(x, "Allreduce (long, count)",
            MPI_Allreduce(x->din, x->dout, big, MPI_DOUBLE, MPI_SUM, x->comm), true);
    in_step(x, "Allreduce (long)");
    outcome(x, "Allreduce (op)",
            MPI_Allreduce(x->in, x->out, N, MPI_INT, bad ? MPI_MAX : MPI_SUM, x->comm), true);
    in_step(x, "Allreduce (op)");
    /* Reduce: the root must see a mismatched op or count (a rank that
     * only sends may not). */
    int root = x->bad == 0 ? x->size - 1 : 0;
    outcome(x, "Reduce (op)",
            MPI_Reduce(x->in, x->out, N, MPI_INT, bad ? MPI_PROD : MPI_SUM, root, x->comm),
            x->rank == root);
    in_step(x, "Reduce");
    outcome(x, "Ireduce (count)",
            finish(MPI_Ireduce(x->in, x->out, small, MPI_INT, MPI_SUM, root, x->comm, &q), &q),
            x->rank == root);
    in_step(x, "Ireduce");
    outcome(x, "Reduce_scatter_block (count)",
            MPI_Reduce_scatter_block(x->in, x->out, bad ? 2 : 1, MPI_INT, MPI_SUM, x->comm),
            true);
    in_step(x, "Reduce_scatter_block");
    /* Scan along the ranks: every rank after the bad one, and the bad one
     * unless it is first (it only sends). */
    outcome(x, "Scan (count)", MPI_Scan(x->in, x->out, small, MPI_INT, MPI_SUM, x->comm),
            x->rank > x->bad || (bad && x->bad > 0));
    in_step(x, "Scan");
}

static void gather_cases(const ctx *x)
{
    bool bad = x->rank == x->bad;
    MPI_Request q;
    int root = x->bad == 0 ? x->size - 1 : 0;
    /* A sender's count differs: the root must see it. */
    outcome(x, "Gather (a sender's count)",
            MPI_Gather(x->in, bad ? 2 : 1, MPI_INT, x->out, 1, MPI_INT, root, x->comm),
            x->rank == root);
    in_step(x, "Gather");
    /* The root's count differs: every receiver must see it. */
    root = x->bad;
    outcome(x, "Scatter (root's count)",
            MPI_Scatter(x->in, bad ? 1 : N, MPI_INT, x->out, N, MPI_INT, root, x->comm), !bad);
    in_step(x, "Scatter");
    outcome(x, "Iscatter (root's count)",
            finish(MPI_Iscatter(x->in, bad ? 1 : N, MPI_INT, x->out, N, MPI_INT, root, x->comm,
                                &q), &q), !bad);
    in_step(x, "Iscatter");
    /* One rank's block differs: everyone must see it. */
    outcome(x, "Allgather (a block)",
            MPI_Allgather(x->in, bad ? 1 : N, MPI_INT, x->out, N, MPI_INT, x->comm), true);
    in_step(x, "Allgather");
    outcome(x, "Iallgather (a block)",
            finish(MPI_Iallgather(x->in, bad ? 1 : N, MPI_INT, x->out, N, MPI_INT, x->comm, &q),
                   &q), true);
    in_step(x, "Iallgather");
    /* One rank sends blocks larger than everyone receives: that rank and
     * every receiver must see it. */
    outcome(x, "Alltoall (a rank's blocks)",
            MPI_Alltoall(x->in, bad ? 2 * N : N, MPI_INT, x->out, N, MPI_INT, x->comm), true);
    in_step(x, "Alltoall");
}

static void run(MPI_Comm comm, const char *name, int bad_rank)
{
    ctx x = {.comm = comm, .name = name};
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    x.bad = bad_rank < 0 ? x.size - 1 : bad_rank;
    size_t ints = (size_t)x.size * 2 * N + 2 * N;
    x.in = calloc(ints, sizeof(int));
    x.out = calloc(ints, sizeof(int));
    x.din = calloc(BIG + 1, sizeof(double));
    x.dout = calloc(BIG + 1, sizeof(double));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    bcast_cases(&x);
    reduce_cases(&x);
    gather_cases(&x);
    free(x.in);
    free(x.out);
    free(x.din);
    free(x.dout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run(MPI_COMM_WORLD, "MPI_COMM_WORLD", 0);
    run(MPI_COMM_WORLD, "MPI_COMM_WORLD", -1);
    /* Even ranks first, then odd ones: every process's ranks interleave
     * with others' (with two or more ranks per process). */
    MPI_Comm mixed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % 2) * size + wrank, &mixed);
    run(mixed, "an interleaved split", 0);
    run(mixed, "an interleaved split", -1);
    MPI_Comm_free(&mixed);
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_errors: %d ranks, %d cases, %d errors: %s\n", size, cases, total,
               total ? "FAILED" : "ok");
    return total != 0;
}
