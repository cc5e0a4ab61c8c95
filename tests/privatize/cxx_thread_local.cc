// cxx_thread_local.cc — a C++ thread_local object with a constructor and a
// destructor is each rank's (src/ult/tls.c): constructed on the rank's
// first use, kept across barriers while the ranks share and change
// workers, and destroyed once, when the rank ends, on the rank (its
// destructor prints "goodbye R", which mpiexec -l tags with the rank).
#include <mpi.h>

#include <cstdio>
#include <string>

namespace {

struct Tracker {
    int rank = -1;
    std::string label = "constructed";   // on the heap once assigned longer
    ~Tracker()
    {
        if (rank >= 0)
            std::printf("goodbye %d\n", rank);
    }
};
thread_local Tracker tracker;

std::string label_of(int rank)
{
    return "rank " + std::to_string(rank) + ", long enough not to fit inline";
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = tracker.rank == -1 && tracker.label == "constructed";
    tracker.rank = rank;
    tracker.label = label_of(rank);
    for (int round = 0; round < 50; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        ok = ok && tracker.rank == rank && tracker.label == label_of(rank);
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("cxx_thread_local: %d ranks, %s\n", size,
                    all ? "each had its own thread_local object" : "WRONG");
    MPI_Finalize();
    return all ? 0 : 1;
}
