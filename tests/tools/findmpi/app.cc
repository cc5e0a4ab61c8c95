// A C++ program with a global container, a static object whose constructor
// uses std::cout, and exceptions: built -fPIE by CMake (std::cout then lives
// in the program, by a COPY relocation), each rank sees its own globals.
#include <mpi.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

std::vector<int> seen;

struct Announcer {
    bool ready = false;
    Announcer() { std::cout.flush(); ready = std::cout.good(); }
} announcer;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i <= rank % 5; i++) {
        seen.push_back(rank);
        MPIX_Yield();
    }
    int caught = 0;
    try {
        throw std::runtime_error(std::to_string(rank));
    } catch (const std::runtime_error &e) {
        caught = std::stoi(e.what()) == rank;
    }
    std::cout << std::hex;   // each rank's stream state is its own
    std::ostringstream text;
    text << rank;
    int own = announcer.ready && caught && seen.size() == size_t(rank % 5 + 1) &&
              text.str() == std::to_string(rank);
    for (int v : seen)
        own = own && v == rank;
    int all_own = 0;
    MPI_Allreduce(&own, &all_own, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << std::dec << "app_cxx: " << size << " ranks, "
                  << (all_own ? "each had its own vector, stream and exceptions"
                              : "SHARED STATE")
                  << std::endl;
    MPI_Finalize();
    return all_own ? 0 : 1;
}
