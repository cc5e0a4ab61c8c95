# tests/tools/install.cmake — Myriad installed with `cmake --install` into a
# temporary prefix, used from there (mpicc, mpicxx, pkg-config, mpiexec and
# its gdb commands), then moved and used again (install_cases.sh). Included
# by tests/tools/CMakeLists.txt.
#
# Left out of cross builds: there every program runs under qemu, which the
# installed mpiexec (and a program it starts) would need as well, and the
# host's pkg-config would describe the host; the install rules are the same.
if(NOT CMAKE_CROSSCOMPILING)
  foreach(case installs_every_part no_path_into_the_source_or_build_tree
      mpicc_builds_and_runs_then_moved mpicxx_builds_and_runs_then_moved
      pkg_config_builds_and_runs_then_moved mpiexec_gdb_uses_the_installed_commands)
    tools_test(install.${case} sh ${here}/install_cases.sh ${case} ${CMAKE_COMMAND}
      ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
    # 77: the case cannot run here (no C++ compiler, no pkg-config).
    set_property(TEST tools.install.${case} APPEND PROPERTY ENVIRONMENT
      EXPECT_CXX=${MYR_MPICXX_COMPILER})
    set_property(TEST tools.install.${case} PROPERTY SKIP_RETURN_CODE 77)
  endforeach()
endif()
