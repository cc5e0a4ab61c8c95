// cxx_main_no_args.cc — a C++ program whose main takes no arguments, built
// with mpicxx: the ranks add up their ranks; rank 0 checks the sum.
#include <mpi.h>

#include <cstdio>

int main()
{
    int rank, size;
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long expected = static_cast<long>(size) * (size - 1) / 2;
    if (rank == 0)
        std::printf("C++ main(): %d ranks, sum of ranks %ld: %s\n", size, sum,
                    sum == expected ? "correct" : "WRONG");
    MPI_Finalize();
    return sum != expected;
}
