// linking_main.cc — a C++ program's main, linked in each way of
// linking.cmake (an object, a static archive, a shared library, -flto).
// A static object constructed before main, std::cout, and a global counter:
// rank 0 says whether the ranks had their own (private copies of the
// program) or one shared counter (main in a shared library, loaded once).
#include <mpi.h>

#include <atomic>
#include <iostream>
#include <string>
#include <vector>

std::atomic<int> counter{0};

namespace {
struct Names {
    std::vector<std::string> v{"zero", "one"};
} names;  // constructed before main, in every copy
}  // namespace

int main(int argc, char **argv)
{
    int rank, size, sum = 0, most = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter++;
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = counter.load();
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&seen, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bool ok = sum == size * (size - 1) / 2 && names.v.size() == 2 && names.v[1] == "one";
    if (rank == 0)
        std::cout << "linking: " << size << " ranks, sum of ranks " << sum << ": "
                  << (ok ? "correct" : "WRONG") << ", globals "
                  << (most == 1 ? "private" : "shared") << std::endl;
    MPI_Finalize();
    return ok ? 0 : 1;
}
