// cxx_main_args.cc — a C++ program with main(int, char **), built with
// mpicxx: every rank checks its arguments; the last one prints them.
#include <mpi.h>

#include <atomic>
#include <iostream>
#include <string>

static std::atomic<int> arrived{0};
static std::atomic<int> bad_args{0};

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || std::string(argv[1]) != "first" || std::string(argv[2]) != "second two")
        ++bad_args;
    if (++arrived == size)
        std::cout << "C++ main(argc, argv): " << size << " ranks, "
                  << (bad_args == 0 ? "all got [first] [second two]" : "WRONG ARGUMENTS")
                  << std::endl;
    MPI_Finalize();
    return bad_args != 0;
}
