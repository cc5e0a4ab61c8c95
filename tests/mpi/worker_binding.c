/*
 * worker_binding.c — where the workers running the ranks are pinned
 * (MYR_BIND): each rank reads the affinity of the thread it runs on, rank
 * 0 prints "binding: pinned" when every rank's worker may use one CPU
 * only, "binding: unpinned" when every one may use several (all the CPUs
 * its process was given: the tests give 2 with taskset or find 2), else
 * "binding: mixed". With MYR_BIND=auto (the default) a process runs its
 * workers pinned only when it has at least as many ranks as workers: a
 * job of one rank on a node of two CPUs is left to the kernel, so that
 * two such jobs do not share the first CPU; and in a job of more OS
 * processes than CPUs nothing is pinned (tests/net). On a machine of one
 * CPU both look alike: "binding: one CPU".
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cpu_set_t mask;
    int mine = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : -1;
    int fewest, most;
    MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        printf("%d ranks, %ld CPUs online; a rank's worker may use %d to %d of them\n", size,
               cpus, fewest, most);
        if (cpus < 2)
            printf("binding: one CPU\n");
        else if (most == 1)
            printf("binding: pinned\n");
        else if (fewest > 1)
            printf("binding: unpinned\n");
        else
            printf("binding: mixed\n");
    }
    MPI_Finalize();
    return 0;
}
