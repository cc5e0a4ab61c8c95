/*
 * deadlock_across.c — the deadlock check of a job of several OS processes
 * (launch/quiescence.c). Run under mpiexec -nfg with at least two
 * processes; the first argument names the case:
 *
 * Deadlocks, reported with every rank's pending call (status 85):
 *   receive_from_the_other_process  every rank waits in MPI_Recv for a rank
 *                                   of another process, which never sends
 *   rendezvous_send_with_wrong_tag  rank 0 sends 1 MiB (rendezvous) that
 *                                   the first rank of process 1 does not
 *                                   receive (another tag); the others wait
 *                                   in a barrier
 *   waits_within_process_1          process 1's ranks wait for each other
 *                                   on a communicator of their own (that
 *                                   process awaits nothing from the
 *                                   network), the others for rank 4
 *   ranks_of_process_0_ended        process 0's ranks return; the others
 *                                   wait for a message from rank 0
 *
 * Jobs that are merely slow, never reported (status 0, "ok" from rank 0):
 *   computing_process               the first rank of process 1 computes
 *                                   for 3 s while every other rank waits
 *                                   for it
 *   sleeping_process                the same, asleep in sleep(3)
 *   slow_transfers                  rank 0 sends 1 GiB messages to the
 *                                   first rank of process 1 for about 3 s
 *                                   while every other rank waits for them
 *   late_receive_of_a_rendezvous    rank 0's 64 MiB send waits 3 s for its
 *                                   receiver, which sleeps first
 *
 * Further arguments are ignored (the failure tests add a token).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, per_process;

/* The first rank of process p. */
static int first_of(int p)
{
    return p * per_process;
}

static int process_of(int r)
{
    return r / per_process;
}

static void receive_from_the_other_process(void)
{
    int x;
    /* The same rank of the next process, which waits too. */
    int from = (rank + per_process) % size;
    MPI_Recv(&x, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void rendezvous_send_with_wrong_tag(void)
{
    size_t bytes = 1 << 20;
    char *buf = calloc(bytes, 1);
    if (rank == 0)
        MPI_Send(buf, (int)bytes, MPI_CHAR, first_of(1), 1, MPI_COMM_WORLD);
    else if (rank == first_of(1))
        MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
}

/* Process 1's ranks wait for each other on a communicator of their own
 * (so that process awaits nothing from the network), the others for
 * rank 4. */
static void waits_within_process_1(void)
{
    int x, mine;
    MPI_Comm here;
    MPI_Comm_split(MPI_COMM_WORLD, process_of(rank), rank, &here);
    MPI_Comm_rank(here, &mine);
    MPI_Comm_set_name(here, "here");
    if (process_of(rank) == 1)
        MPI_Recv(&x, 1, MPI_INT, (mine + 1) % per_process, 8, here, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&x, 1, MPI_INT, first_of(1), 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void ranks_of_process_0_ended(void)
{
    int x;
    if (process_of(rank) != 0)
        MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The first rank of process 1 is busy for 3 s (computing or asleep),
 * then sends to every other rank, which waits for it meanwhile. */
static void busy_process(int asleep)
{
    int x = 7, busy = first_of(1);
    if (rank == busy) {
        if (asleep) {
            sleep(3);
        } else {
            double until = MPI_Wtime() + 3;
            volatile double sum = 0;
            while (MPI_Wtime() < until)
                sum += 1;
        }
        for (int r = 0; r < size; r++)
            if (r != busy)
                MPI_Send(&x, 1, MPI_INT, r, 4, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, busy, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 sends 1 GiB messages to the first rank of process 1 for about
 * 3 s; every other rank waits in a barrier. During a transfer, process 0
 * is quiescent (its sender waits for the receiver to take the data) and
 * process 1's receiver waits for the data to arrive. */
static void slow_transfers(void)
{
    int bytes = 1 << 30, to = first_of(1), rounds = 0, more = 1;
    char *buf = rank == 0 || rank == to ? malloc((size_t)bytes) : NULL;
    double until = MPI_Wtime() + 3;
    if (rank == 0) {
        memset(buf, 1, (size_t)bytes);
        while (more) {
            more = MPI_Wtime() < until;
            MPI_Send(&more, 1, MPI_INT, to, 5, MPI_COMM_WORLD);
            MPI_Send(buf, bytes, MPI_CHAR, to, 6, MPI_COMM_WORLD);
            rounds++;
        }
    } else if (rank == to) {
        while (more) {
            MPI_Recv(&more, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(buf, bytes, MPI_CHAR, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rounds++;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d transfers of 1 GiB\n", rounds);
    free(buf);
}

static void late_receive_of_a_rendezvous(void)
{
    size_t bytes = (size_t)64 << 20;
    char *buf = calloc(bytes, 1);
    if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_CHAR, first_of(1), 7, MPI_COMM_WORLD);
    } else if (rank == first_of(1)) {
        sleep(3);
        MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
}

static void computing_process(void) { busy_process(0); }
static void sleeping_process(void) { busy_process(1); }

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"receive_from_the_other_process", receive_from_the_other_process},
    {"rendezvous_send_with_wrong_tag", rendezvous_send_with_wrong_tag},
    {"waits_within_process_1", waits_within_process_1},
    {"ranks_of_process_0_ended", ranks_of_process_0_ended},
    {"computing_process", computing_process},
    {"sleeping_process", sleeping_process},
    {"slow_transfers", slow_transfers},
    {"late_receive_of_a_rendezvous", late_receive_of_a_rendezvous},
};

int main(int argc, char **argv)
{
    const char *local = getenv("MYR_NRANKS");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Every process but the last holds MYR_NRANKS ranks (mpiexec -nfg). */
    per_process = local ? atoi(local) : size;
    MPI_Allreduce(MPI_IN_PLACE, &per_process, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (argc < 2 || per_process >= size) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n N -nfg P deadlock_across CASE (P < N)\n");
        MPI_Finalize();
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        cases[i].run();
        if (rank == 0)
            printf("%s: ok\n", cases[i].name);
        MPI_Finalize();
        return 0;
    }
    if (rank == 0)
        fprintf(stderr, "deadlock_across: no case %s\n", argv[1]);
    MPI_Finalize();
    return 2;
}
