// cxx_main_args.cc — a C++ program with main(int, char **), built with
// mpicxx: every rank checks its arguments; rank 0 prints what all saw.
#include <mpi.h>

#include <iostream>
#include <string>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = argc != 3 || std::string(argv[1]) != "first" ||
              std::string(argv[2]) != "second two";
    int bad_args = 0;
    MPI_Allreduce(&bad, &bad_args, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "C++ main(argc, argv): " << size << " ranks, "
                  << (bad_args == 0 ? "all got [first] [second two]" : "WRONG ARGUMENTS")
                  << std::endl;
    MPI_Finalize();
    return bad_args != 0;
}
