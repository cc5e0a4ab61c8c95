/* task_demo.c — dataflow tasks in a rank, in one minute (docs/tasks.md).
 *
 * Rank 0 sends a vector. Rank 1 posts the receive and lets the request
 * stand for the data it will write; then it makes three tasks: one that
 * doubles the vector (after the receive, found by the region) and two
 * that sum its halves (after the doubling, at the same time). Nothing
 * waits for the message but the tasks' dependences. */
#include <mpi.h>
#include <myr_task.h>
#include <stdio.h>

enum { N = 1000 };

static void twice(void *arg)
{
    double *v = arg;
    for (int i = 0; i < N; i++)
        v[i] *= 2;
}

typedef struct half {
    const double *v;
    double sum;
} half;

static void sum(void *arg)
{
    half *h = arg;
    h->sum = 0;
    for (int i = 0; i < N / 2; i++)
        h->sum += h->v[i];
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double v[N];
    int status = 0;
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            v[i] = i;
        MPI_Send(v, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request req;
        MPI_Irecv(v, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &req);
        myr_task_depend_request(&req, v, sizeof v);      /* req writes v */

        myr_task_dep_t all = {v, sizeof v, MYR_TASK_INOUT};
        myr_task_create(twice, v, &all, 1, 0);            /* after the receive */

        half h[2] = {{v, 0}, {v + N / 2, 0}};
        for (int i = 0; i < 2; i++) {
            myr_task_dep_t in = {h[i].v, N / 2 * sizeof(double), MYR_TASK_IN};
            myr_task_create(sum, &h[i], &in, 1, 0);       /* after twice, together */
        }
        myr_taskwait();
        double total = h[0].sum + h[1].sum, want = (double)N * (N - 1);
        printf("task_demo: sum %.0f, expected %.0f\n", total, want);
        status = total != want;
    }
    MPI_Finalize();
    return status;
}
