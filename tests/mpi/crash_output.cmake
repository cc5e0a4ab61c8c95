# ---- output that survives a fatal end of the job (crash_output.c) ----------
# Each test runs the job twice, stdout to a file and to a pipe (stdio
# buffers it fully then), and checks that every rank's line arrived, the
# exit status and the "myriad: job ended because ..." line
# (check_crash_output.sh). Included by CMakeLists.txt.
myr_add_mpi_program(mpi_crash_output crash_output.c)
set(crash_output_check sh ${CMAKE_CURRENT_SOURCE_DIR}/check_crash_output.sh)
set(crash_output_prog ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:mpi_crash_output>)
set(crash_output_mpiexec ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:mpiexec>)
set(crash_output_who "^myriad: MPI rank 2 \\(ULT [0-9]+\\) on worker [0-9]+ received")

# crash_output_test(name status [ENV var=value...] PATTERNS regex... COMMAND ...)
function(crash_output_test name status)
  cmake_parse_arguments(T "" "" "ENV;PATTERNS;COMMAND" ${ARGN})
  add_test(NAME mpi.crash_output.${name}
    COMMAND ${crash_output_check} ${status} 4 ${T_PATTERNS} -- ${T_COMMAND})
  set_tests_properties(mpi.crash_output.${name} PROPERTIES
    ENVIRONMENT "MYR_NRANKS=4;MYR_WORKERS=2;MYR_SPIN_US=20;${T_ENV}" TIMEOUT 120)
endfunction()

# The sanitizers keep SIGSEGV, SIGBUS and SIGFPE (and so stack overflows)
# for their own reports, which end the process without flushing stdio:
# those cases run in the other builds only.
if(NOT MYR_SANITIZE)
  crash_output_test(segfault 139 PATTERNS "${crash_output_who} SIGSEGV"
    "^myriad: job ended because MPI rank 2 received SIGSEGV \\(exit status 139\\)$"
    COMMAND ${crash_output_prog} segfault)
  crash_output_test(stack_overflow 139 ENV MYR_STACK_SIZE=64k PATTERNS
    "^myriad: stack overflow in MPI rank 2 \\(ULT [0-9]+\\)"
    "^myriad: job ended because of a stack overflow in MPI rank 2 \\(exit status 139\\)$"
    COMMAND ${crash_output_prog} stack_overflow)
  crash_output_test(sigbus 135 PATTERNS "${crash_output_who} SIGBUS"
    "^myriad: job ended because MPI rank 2 received SIGBUS \\(exit status 135\\)$"
    COMMAND ${crash_output_prog} sigbus)
  crash_output_test(sigfpe 136 PATTERNS "${crash_output_who} SIGFPE"
    "^myriad: job ended because MPI rank 2 received SIGFPE \\(exit status 136\\)$"
    COMMAND ${crash_output_prog} sigfpe)
  crash_output_test(segfault_under_mpiexec 139 PATTERNS
    "^myriad: job ended because MPI rank 2 received SIGSEGV \\(exit status 139\\)$"
    COMMAND ${crash_output_mpiexec} -n 4 ${crash_output_prog} segfault)
  # mpiexec -l: the tagged lines, and rank 1's unfinished one, which the
  # tagging holds until its newline or the end.
  crash_output_test(segfault_tagged 139 PATTERNS
    "^myriad: job ended because MPI rank 2 received SIGSEGV \\(exit status 139\\)$"
    COMMAND ${crash_output_mpiexec} -l -n 4 ${crash_output_prog} segfault)
endif()
crash_output_test(abort 134 PATTERNS "${crash_output_who} SIGABRT"
  "^myriad: job ended because MPI rank 2 received SIGABRT \\(exit status 134\\)$"
  COMMAND ${crash_output_prog} abort)
crash_output_test(abort_tagged 134 PATTERNS
  "^myriad: job ended because MPI rank 2 received SIGABRT \\(exit status 134\\)$"
  COMMAND ${crash_output_mpiexec} -l -n 4 ${crash_output_prog} abort)
# MPI_Abort and MPI_ERRORS_ARE_FATAL flush too; their own line says why.
crash_output_test(mpi_abort 3 PATTERNS "^rank 2: MPI_Abort called with error code 3$"
  COMMAND ${crash_output_prog} mpi_abort)
crash_output_test(errors_are_fatal 6 PATTERNS
  "^rank 2: MPI_Send: invalid destination rank 99"
  COMMAND ${crash_output_prog} errors_are_fatal)

# The deadlock and the time-limit reports: the same detail for a blocked
# rank (its call, the communicator, the peer, the tag).
set(crash_output_blocked
  "^myriad:   rank 0: MPI_Recv: waits for a message from rank 1 with tag 9 on halo \\(1 x MPI_INT\\)$"
  "^myriad:   rank 1: MPI_Barrier: waits on MPI_COMM_WORLD for ranks 0, 2 \\(2 of 4 arrived\\)$"
  "^myriad:   rank 3: MPI_Barrier: waits on MPI_COMM_WORLD for ranks 0, 2 \\(2 of 4 arrived\\)$")
crash_output_test(deadlock 85 PATTERNS ${crash_output_blocked}
  "^myriad:   rank 2: MPI_Recv: waits for a message from rank 0 with tag 7 on halo \\(1 x MPI_INT\\)$"
  "^myriad: job ended because of a deadlock \\(exit status 85\\)$"
  COMMAND ${crash_output_prog} deadlock)
crash_output_test(deadlock_tagged 85 PATTERNS
  "^myriad: job ended because of a deadlock \\(exit status 85\\)$"
  COMMAND ${crash_output_mpiexec} -l -n 4 ${crash_output_prog} deadlock)
# Rank 2 computes, so the workers never all sleep: the report stops them.
crash_output_test(time_limit 124 PATTERNS ${crash_output_blocked}
  "^myriad:   rank 2: running outside MPI \\(its last MPI call: MPI_Barrier\\)$"
  "^myriad: job ended because it reached its time limit of 2 s \\(exit status 124\\)$"
  COMMAND ${crash_output_mpiexec} -timeout 2 -n 4 ${crash_output_prog} time_limit)
crash_output_test(time_limit_tagged 124 PATTERNS
  "^myriad: job ended because it reached its time limit of 2 s \\(exit status 124\\)$"
  COMMAND ${crash_output_mpiexec} -l -timeout 2 -n 4 ${crash_output_prog} time_limit)

# An uncaught C++ exception: std::terminate, then abort. Built by mpicxx,
# as a user would.
if(MYR_MPICXX_COMPILER)
  set(crash_output_cxx ${CMAKE_CURRENT_BINARY_DIR}/mpi_crash_output_cxx)
  add_custom_command(OUTPUT ${crash_output_cxx}
    COMMAND ${PROJECT_BINARY_DIR}/bin/mpicxx -O2 -g -Wall -Wextra -Werror
      -o ${crash_output_cxx} ${CMAKE_CURRENT_SOURCE_DIR}/crash_output_cxx.cc
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/crash_output_cxx.cc ${PROJECT_BINARY_DIR}/bin/mpicxx
      myriad myriad_main
    COMMENT "Building mpi_crash_output_cxx with mpicxx" VERBATIM)
  add_custom_target(build_mpi_crash_output_cxx ALL DEPENDS ${crash_output_cxx})
  crash_output_test(uncaught_exception 134 PATTERNS
    "terminate called after throwing an instance of 'std::runtime_error'"
    "^myriad: job ended because MPI rank 2 received SIGABRT \\(exit status 134\\)$"
    COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} ${crash_output_cxx} uncaught_exception)
endif()
