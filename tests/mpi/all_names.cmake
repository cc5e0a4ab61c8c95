# ---- every MPI 3.1 name compiles and links, in C and C++ (all_names.txt) ---
# The list comes from the standard, not from mpi.h: a name missing from the
# header (or a function missing from the library) breaks this build.
# Included by CMakeLists.txt.
set(all_names_list ${CMAKE_CURRENT_SOURCE_DIR}/all_names.txt)
set(all_names_gen ${CMAKE_CURRENT_SOURCE_DIR}/all_names_gen.cmake)
foreach(ext c cc)
  add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/all_names.${ext}
    COMMAND ${CMAKE_COMMAND} -DLIST=${all_names_list}
      -DOUT=${CMAKE_CURRENT_BINARY_DIR}/all_names.${ext} -P ${all_names_gen}
    DEPENDS ${all_names_list} ${all_names_gen}
    COMMENT "Generating all_names.${ext} from the MPI 3.1 name list" VERBATIM)
endforeach()
myr_add_mpi_program(mpi_all_names ${CMAKE_CURRENT_BINARY_DIR}/all_names.c)
add_test(NAME mpi.all_names.c COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:mpi_all_names>)
set_tests_properties(mpi.all_names.c PROPERTIES
  ENVIRONMENT "MYR_NRANKS=1;MYR_WORKERS=1"
  PASS_REGULAR_EXPRESSION ": 0 functions missing" TIMEOUT 60)
# C++, built by mpicxx as a user would (with its own -Wall -Wextra -Werror).
if(MYR_MPICXX_COMPILER)
  set(all_names_cxx ${CMAKE_CURRENT_BINARY_DIR}/mpi_all_names_cxx)
  add_custom_command(OUTPUT ${all_names_cxx}
    COMMAND ${PROJECT_BINARY_DIR}/bin/mpicxx -O2 -Wall -Wextra -Werror
      -o ${all_names_cxx} ${CMAKE_CURRENT_BINARY_DIR}/all_names.cc
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/all_names.cc ${PROJECT_BINARY_DIR}/bin/mpicxx
      ${PROJECT_SOURCE_DIR}/include/mpi.h myriad myriad_main
    COMMENT "Building mpi_all_names_cxx with mpicxx" VERBATIM)
  add_custom_target(build_mpi_all_names_cxx ALL DEPENDS ${all_names_cxx})
  add_test(NAME mpi.all_names.cxx COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} ${all_names_cxx})
  set_tests_properties(mpi.all_names.cxx PROPERTIES
    ENVIRONMENT "MYR_NRANKS=1;MYR_WORKERS=1"
    PASS_REGULAR_EXPRESSION ": 0 functions missing" TIMEOUT 60)
endif()
