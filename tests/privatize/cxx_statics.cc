// cxx_statics.cc — a C++ program with a static std::vector, exceptions and
// a static object with a destructor.
//
// Each rank appends its rank to the static vector 1 + rank % 5 times with
// the other ranks running in between and finds only its own entries; it
// throws and catches exceptions that carry its rank across a yield; and
// its static Farewell object's destructor prints "farewell R" when the
// rank ends (private mode: once per rank, on the rank's ULT).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::vector<int> values;

struct Farewell {
    int rank = -1;
    ~Farewell()
    {
        if (rank >= 0)
            std::printf("farewell %d\n", rank);
    }
};
Farewell farewell;

struct RankError : std::runtime_error {
    int rank;
    explicit RankError(int r) : std::runtime_error("rank " + std::to_string(r)), rank(r) {}
};

void throw_after_yield(int rank)
{
    MPIX_Yield();
    if (rank >= 0)
        throw RankError(rank);
}

bool exceptions_carry_the_rank(int rank)
{
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        try {
            throw_after_yield(rank);
            ok = false;
        } catch (const RankError &e) {
            ok = ok && e.rank == rank && e.what() == "rank " + std::to_string(rank);
        }
        MPIX_Yield();
    }
    try {  // one from the library
        values.at(values.size());
        ok = false;
    } catch (const std::out_of_range &) {
    }
    return ok;
}

bool all_ranks(bool ok)
{
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

// Rank 0 learns whether the ranks' values of `v` all differ.
bool all_distinct(std::uintptr_t v, int rank, int size)
{
    unsigned long mine = v;
    if (rank != 0) {
        MPI_Send(&mine, 1, MPI_UNSIGNED_LONG, 0, 7, MPI_COMM_WORLD);
        return true;
    }
    std::vector<unsigned long> all(size);
    all[0] = mine;
    for (int r = 1; r < size; r++)
        MPI_Recv(&all[r], 1, MPI_UNSIGNED_LONG, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::sort(all.begin(), all.end());
    return std::adjacent_find(all.begin(), all.end()) == all.end();
}

}  // namespace

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    farewell.rank = rank;
    bool ok = values.empty();
    const int mine = 1 + rank % 5;
    for (int i = 0; i < mine; i++) {
        values.push_back(rank);
        MPIX_Yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ok = ok && values.size() == static_cast<size_t>(mine);
    for (int v : values)
        ok = ok && v == rank;
    ok = exceptions_carry_the_rank(rank) && ok;
    ok = all_ranks(ok);
    bool distinct = all_distinct(reinterpret_cast<std::uintptr_t>(values.data()), rank, size);
    MPI_Finalize();
    if (rank != 0)
        return 0;
    if (ok && distinct)
        std::printf("cxx_statics: %d ranks, each had its own vector and exceptions\n", size);
    else
        std::printf("cxx_statics: %d ranks, WRONG: %s\n", size,
                    !ok ? "a rank saw another rank's vector or exception"
                        : "two ranks share a vector's storage");
    return ok && distinct ? 0 : 1;
}
