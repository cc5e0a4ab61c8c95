// crash_output_cxx.cc — an uncaught C++ exception in rank 2 (std::terminate,
// then abort) after every rank wrote a line to std::cout, which writes
// through stdio (sync_with_stdio): the lines still reach a file or a pipe.
// Usage: crash_output_cxx uncaught_exception [FILE] (FILE is not used).
#include <mpi.h>

#include <iostream>
#include <sstream>
#include <stdexcept>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    // One << per line: each << is a stdio call of its own, and ranks share
    // stdout, so a line made of several could interleave with another's.
    std::ostringstream line;
    line << "rank " << me << " of " << n << ": before the crash\n";
    std::cout << line.str();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1)
        std::cout << "rank 1 unfinished";
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 2)
        throw std::runtime_error("rank 2 gives up");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return argc > 5;
}
