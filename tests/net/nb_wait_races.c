/*
 * nb_wait_races.c — nonblocking collectives of a communicator spanning
 * OS processes, waited for in every way at random moments, so that the
 * rank's own MPI_Wait and the operation's runner race to run it
 * (coll/nbc.c: whichever takes it first runs it, the other lets go).
 * (MPI_Ibarrier, MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce.)
 * Every rank calls the same collectives in the same order; only how and
 * when it waits differs, drawn per rank: MPI_Wait at once, after some
 * computing, after MPI_Test polls, MPI_Waitall of two operations, or
 * MPI_Wait of the later one first. Every result is checked.
 *   nb_wait_races ITERATIONS SEED
 * prints "nb wait races: N ranks, M operations checked, E errors: ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static long errors, checked;

static unsigned draw(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 16;
}

/* Work the compiler cannot drop: about `n` hundred instructions. */
static volatile double sink;
static void compute(unsigned n)
{
    double x = 1.0;
    for (unsigned i = 0; i < n * 100; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void wait_one(MPI_Request *r, unsigned how, unsigned *state)
{
    switch (how) {
    case 0:
        MPI_Wait(r, MPI_STATUS_IGNORE);
        break;
    case 1:
        compute(draw(state) % 64);
        MPI_Wait(r, MPI_STATUS_IGNORE);
        break;
    default: {
        int done = 0;
        for (unsigned polls = draw(state) % 8; !done && polls > 0; polls--)
            MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (!done)
            MPI_Wait(r, MPI_STATUS_IGNORE);
    }
    }
}

static void check(int ok, const char *what, long it)
{
    checked++;
    if (!ok) {
        errors++;
        if (errors <= 10)
            printf("rank %d: iteration %ld: wrong %s\n", rank, it, what);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 1 ? atol(argv[1]) : 2000;
    unsigned state = (unsigned)(argc > 2 ? atoi(argv[2]) : 1) * 7919u + (unsigned)rank;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    const long sum = (long)size * (size - 1) / 2;
    for (long it = 0; it < iterations; it++) {
        MPI_Comm comm = it % 3 == 2 ? dup : MPI_COMM_WORLD;
        int root = (int)(it % size);
        MPI_Request r[2];
        long mine = rank + it, total = -1;
        int value = rank == root ? (int)it : -1;
        switch (it % 5) {
        case 0:
            MPI_Ibarrier(comm, &r[0]);
            wait_one(&r[0], draw(&state) % 3, &state);
            break;
        case 1:
            MPI_Iallreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, comm, &r[0]);
            wait_one(&r[0], draw(&state) % 3, &state);
            check(total == sum + (long)size * it, "Iallreduce", it);
            break;
        case 2:
            MPI_Ibcast(&value, 1, MPI_INT, root, comm, &r[0]);
            wait_one(&r[0], draw(&state) % 3, &state);
            check(value == (int)it, "Ibcast", it);
            break;
        case 3:
            MPI_Ireduce(&mine, &total, 1, MPI_LONG, MPI_SUM, root, comm, &r[0]);
            wait_one(&r[0], draw(&state) % 3, &state);
            if (rank == root)
                check(total == sum + (long)size * it, "Ireduce", it);
            else
                check(total == -1, "Ireduce (a non-root's buffer)", it);
            break;
        default:
            /* Two at once: the second waits behind the first. */
            MPI_Iallreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, comm, &r[0]);
            MPI_Ibcast(&value, 1, MPI_INT, root, comm, &r[1]);
            switch (draw(&state) % 3) {
            case 0:
                MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
                break;
            case 1:
                wait_one(&r[1], 0, &state);
                wait_one(&r[0], 0, &state);
                break;
            default:
                wait_one(&r[0], draw(&state) % 3, &state);
                wait_one(&r[1], draw(&state) % 3, &state);
            }
            check(total == sum + (long)size * it, "Iallreduce beside Ibcast", it);
            check(value == (int)it, "Ibcast beside Iallreduce", it);
        }
    }
    MPI_Comm_free(&dup);
    long all[2] = {errors, checked}, totals[2];
    MPI_Reduce(all, totals, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nb wait races: %d ranks, %ld operations checked, %ld errors: %s\n", size,
               totals[1], totals[0], totals[0] ? "FAILED" : "ok");
    MPI_Finalize();
    return 0;
}
