/*
 * nb_mismatch.c — across OS processes, some ranks call the nonblocking
 * form of a collective where the others call the blocking one (MPI says a
 * nonblocking call never matches a blocking one): under MPI_ERRORS_RETURN
 * every rank gets MPI_ERR_OTHER, nobody waits forever, nothing crashes,
 * and the communicator stays in step (an Allreduce afterwards is right).
 * Odd ranks, then even ranks (so that the process's leader is on either
 * side), for MPI_Barrier/MPI_Ibarrier and MPI_Allreduce/MPI_Iallreduce.
 * Prints "nb mismatch: N ranks, C calls, E errors: ok".
 */
#include <mpi.h>
#include <stdio.h>

static int rank, size, errors, calls;

static void expect_other(int err, const char *what, int side)
{
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    calls++;
    if (cls != MPI_ERR_OTHER) {
        errors++;
        printf("rank %d: %s (nonblocking at %s ranks): error class %d, not MPI_ERR_OTHER\n",
               rank, what, side ? "odd" : "even", cls);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int side = 0; side < 2; side++) {
        int nonblocking = rank % 2 == side;
        for (int it = 0; it < 3; it++) {
            MPI_Request r;
            int err;
            if (nonblocking) {
                err = MPI_Ibarrier(MPI_COMM_WORLD, &r);
                if (err == MPI_SUCCESS)
                    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                err = MPI_Barrier(MPI_COMM_WORLD);
            }
            expect_other(err, "Barrier", side);
            long in = rank, out = -1;
            if (nonblocking) {
                err = MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
                if (err == MPI_SUCCESS)
                    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                err = MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            }
            expect_other(err, "Allreduce", side);
        }
        long in = rank + 1, out = -1;
        int err = MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        calls++;
        if (err != MPI_SUCCESS || out != (long)size * (size + 1) / 2) {
            errors++;
            printf("rank %d: the Allreduce after the mismatches: error %d, sum %ld\n", rank,
                   err, out);
        }
    }
    int all[2] = {errors, calls}, totals[2];
    MPI_Reduce(all, totals, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nb mismatch: %d ranks, %d calls, %d errors: %s\n", size, totals[1], totals[0],
               totals[0] ? "FAILED" : "ok");
    MPI_Finalize();
    return 0;
}
