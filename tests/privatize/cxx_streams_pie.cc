// cxx_streams_pie.cc — built with mpicxx -fPIE, as CMake's FindMPI builds:
// on x86_64 std::cout then lives in the program (a COPY relocation), and a
// static object's constructor uses it. Each private copy's constructor
// runs after its std::cout is filled (launch/privatize.c); before that, a
// copy's constructor wrote through a stream that was never constructed.
#include <mpi.h>

#include <iostream>
#include <vector>

static std::vector<int> mine;

struct UsesCout {
    bool good;
    UsesCout() { std::cout << std::flush; good = std::cout.good(); }
} uses_cout;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i <= rank % 3; i++) {
        mine.push_back(rank);
        MPIX_Yield();
    }
    int ok = uses_cout.good && mine.size() == size_t(rank % 3 + 1), all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "cxx_streams_pie: " << size << " ranks, "
                  << (all ? "constructors used std::cout, each had its own vector"
                          : "WRONG")
                  << std::endl;
    MPI_Finalize();
    return all ? 0 : 1;
}
