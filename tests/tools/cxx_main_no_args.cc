// cxx_main_no_args.cc — a C++ program whose main takes no arguments, built
// with mpicxx: every rank adds its rank to a sum; the last one checks it.
#include <mpi.h>

#include <atomic>
#include <cstdio>

static std::atomic<long> rank_sum{0};
static std::atomic<int> arrived{0};

int main()
{
    int rank, size, status = 0;
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_sum += rank;
    if (++arrived == size) {
        long expected = static_cast<long>(size) * (size - 1) / 2;
        std::printf("C++ main(): %d ranks, sum of ranks %ld: %s\n", size,
                    rank_sum.load(), rank_sum == expected ? "correct" : "WRONG");
        status = rank_sum != expected;
    }
    MPI_Finalize();
    return status;
}
