# CMake's FindMPI on Myriad's wrappers, as a user's project uses it
# (tests/tools/findmpi, run by findmpi_cases.sh): configured with the
# wrappers on PATH and with MPI_C_COMPILER given, built -fPIE as CMake
# builds, run at 1 and 1000 ranks with private globals, C and C++. Left out
# of cross builds: the project would be configured for the host. FindMPI
# keeps only -Wl, link flags, so a sanitized build's -fsanitize is given
# to the project's link as a user of such a build must.
if(NOT CMAKE_CROSSCOMPILING AND MYR_MPICXX_COMPILER)
  foreach(way path compiler)
    tools_test(findmpi.${way} sh ${here}/findmpi_cases.sh ${way} ${bin}
      ${here}/findmpi ${CMAKE_CURRENT_BINARY_DIR}/findmpi-${way})
    if(MYR_SANITIZE)
      set_property(TEST tools.findmpi.${way} APPEND PROPERTY ENVIRONMENT
        FINDMPI_LINK_FLAGS=-fsanitize=address,undefined)
    endif()
  endforeach()
endif()
