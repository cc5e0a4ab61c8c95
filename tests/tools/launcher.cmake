# mpiexec -n N -nfg P: ceil(N/P) OS processes started by myriad-launch
# (src/tools/launcher.c), which hosts their PMIx server. Needs PMIx (the
# launcher) and the network engine (libmyriad-net.so: the processes' PMIx
# client). The programs are not MPI programs: tests/net/place.c prints its
# place, launch_fail.c fails as told.
if(NOT TARGET myriad-launch OR NOT MYR_HAVE_NET)
  return()
endif()
add_executable(tools_launch_fail launch_fail.c)
target_link_libraries(tools_launch_fail PRIVATE myriad)
set(place ${emu} $<TARGET_FILE:net_place>)
set(fail_prog ${emu} $<TARGET_FILE:tools_launch_fail>)
set(failure sh ${here}/launcher_failure.sh)
set(signal_test sh ${here}/launcher_signal.sh)

function(launch_test name)
  add_test(NAME tools.launch.${name} COMMAND ${ARGN})
  set_tests_properties(tools.launch.${name} PROPERTIES TIMEOUT 60)
endfunction()

# (No ";" in the patterns: CMake would split them there; "." stands in.)

# ---- the place: processes, ranks numbered process by process ------------
launch_test(n12_nfg4_is_three_processes_of_four_ranks ${expect_output} 0
  "^process 0 of 3 \\(mpiexec\\): ranks 0\\.\\.3 of 12, 0 of 3 on this node$"
  "^process 1 of 3 \\(mpiexec\\): ranks 4\\.\\.7 of 12, 1 of 3 on this node$"
  "^process 2 of 3 \\(mpiexec\\): ranks 8\\.\\.11 of 12, 2 of 3 on this node$"
  "^process 0: ok$" "^process 1: ok$" "^process 2: ok$"
  -- ${mpiexec} -n 12 -nfg 4 ${place})
launch_test(n10_nfg4_last_process_has_the_rest ${expect_output} 0
  "^process 0 of 3 \\(mpiexec\\): ranks 0\\.\\.3 of 10, 0 of 3 on this node$"
  "^process 1 of 3 \\(mpiexec\\): ranks 4\\.\\.7 of 10, 1 of 3 on this node$"
  "^process 2 of 3 \\(mpiexec\\): ranks 8\\.\\.9 of 10, 2 of 3 on this node$"
  "^process 2: ok$"
  -- ${mpiexec} -n 10 -nfg 4 ${place})
# One process needs no PMIx: the program runs with no server to find
# (launcher "mpiexec", not PMIx's), as mpiexec -n 8 alone.
launch_test(n8_nfg8_is_one_process_without_pmix ${expect_output} 0
  "^process 0 of 1 \\(mpiexec\\): ranks 0\\.\\.7 of 8, 0 of 1 on this node$"
  -- ${mpiexec} -n 8 -nfg 8 ${place})
launch_test(nfg_above_n_is_one_process ${expect_output} 0
  "^process 0 of 1 \\(mpiexec\\): ranks 0\\.\\.3 of 4, 0 of 1 on this node$"
  -- ${mpiexec} -n 4 -nfg 6 ${place})
launch_test(nfg1_is_a_process_per_rank ${expect_output} 0
  "^process 4 of 5 \\(mpiexec\\): ranks 4\\.\\.4 of 5, 4 of 5 on this node$"
  -- ${mpiexec} -n 5 -nfg 1 ${place})

# ---- what every process gets ----------------------------------------------
# Workers: the CPUs shared out (at least one each) unless -workers says;
# -x and -wdir reach every process.
launch_test(processes_share_the_cpus_and_get_the_options ${expect_output} 0
  "^process 0: workers [0-9]+, cpus [0-9]+, LAUNCH_TEST_VAR yes, directory /tmp$"
  "^process 1: workers [0-9]+, cpus [0-9]+, LAUNCH_TEST_VAR yes, directory /tmp$"
  -- ${mpiexec} -n 4 -nfg 2 -x LAUNCH_TEST_VAR=yes -wdir /tmp ${fail_prog} show)
launch_test(workers_option_is_per_process ${expect_output} 0
  "^process 0: workers 3, " "^process 1: workers 3, "
  -- ${mpiexec} -n 4 -nfg 2 -workers 3 ${fail_prog} show)
# MYR_WORKERS = CPUs of the process's share = CPUs / processes (>= 1).
add_test(NAME tools.launch.default_workers_are_the_process_share_of_the_cpus
  COMMAND sh -c "out=$(\"$@\") || exit 1; echo \"$out\"; \
    echo \"$out\" | grep '^process' | grep -v ready | while read -r _ p _ w _ c _; do \
      [ \"\${w%,}\" = \"\${c%,}\" ] || { echo \"process $p: workers $w for cpus $c\"; exit 1; }; \
    done" sh ${mpiexec} -n 4 -nfg 2 ${fail_prog} show)

launch_test(verbose_says_how_the_processes_are_set_up ${expect_output} 0
  "^mpiexec: 10 ranks in 3 OS processes of 4, PMIx server of "
  "^mpiexec: process 2 \\(ranks 8-9\\): process id [0-9]+, CPUs ([0-9,-]+|any CPU), [0-9]+ workers?$"
  -- ${mpiexec} -v -n 10 -nfg 4 ${place})

# ---- the job's status ----------------------------------------------------
launch_test(all_processes_exiting_0_is_status_0 ${expect_output} 0
  "^process 2 ready$" "!mpiexec:"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} ok)
# After PMIx_Finalize a process may exit when it likes: the others finish,
# and the job's status is its status.
launch_test(exit_status_after_finalize_is_the_job_status ${expect_output} 3
  "^process 2 ready$" "!ending the job"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} late_exit3)

# ---- failures end the job within the bound, no process left ---------------
launch_test(failure.sigkill_of_a_process_ends_the_job ${failure} 137
  "^mpiexec: process 1 \\(ranks 4-7\\) was killed by signal 9 \\(Killed\\). ending the job$"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} kill)
# (UBSan stops a store through NULL itself: the crash tests run without it.)
if(NOT MYR_SANITIZE)
  launch_test(failure.segfault_in_a_process_ends_the_job ${failure} 139
    "^mpiexec: process 1 \\(ranks 4-7\\) was killed by signal 11 \\(Segmentation fault\\). ending the job$"
    -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} segv)
endif()
launch_test(failure.abort_ends_the_job_with_its_status ${failure} 7
  "^mpiexec: process 2 \\(ranks 8-11\\) called MPI_Abort \\(PMIx_Abort\\) with status 7: launch_fail: process 2 gives up. ending the job$"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} abort)
launch_test(failure.exit_before_finalize_ends_the_job ${failure} 3
  "^mpiexec: process 1 \\(ranks 4-7\\) exited with status 3 before MPI_Finalize. ending the job$"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} exit3)
launch_test(failure.exit_before_connecting_ends_the_job ${failure} 1
  "^mpiexec: process 1 \\(ranks 4-7\\) exited with status 0 before connecting to mpiexec \\(before MPI_Init\\). ending the job$"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} early)
launch_test(failure.no_connection_within_the_wireup_timeout_ends_the_job ${failure} 1
  "^mpiexec: process 1 \\(ranks 4-7\\) did not connect to mpiexec within 2 s \\(MYR_WIREUP_TIMEOUT\\)"
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} never)
set_property(TEST tools.launch.failure.no_connection_within_the_wireup_timeout_ends_the_job
  APPEND PROPERTY ENVIRONMENT MYR_WIREUP_TIMEOUT=2)
# The limit, then the runtimes' grace for their reports (5 s), then mpiexec.
launch_test(failure.time_limit_ends_the_whole_job ${failure} 124
  "^mpiexec: job timed out after 1 s$"
  -- ${mpiexec} -n 12 -nfg 4 -timeout 1 ${fail_prog} sleep)

# ---- signals for mpiexec reach every process --------------------------------
launch_test(signal.ctrl_c_ends_every_process ${signal_test} INT 130
  "^mpiexec: got signal 2 \\(Interrupt\\). ending the job$" 3
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} sleep)
launch_test(signal.sigterm_ends_every_process ${signal_test} TERM 143
  "^mpiexec: got signal 15 \\(Terminated\\). ending the job$" 3
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} sleep)
launch_test(signal.sighup_ends_every_process ${signal_test} HUP 129
  "^mpiexec: got signal 1 \\(Hangup\\). ending the job$" 3
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} sleep)
launch_test(signal.sigkill_of_mpiexec_takes_every_process ${signal_test} KILL 137 " ready$" 3
  -- ${mpiexec} -n 12 -nfg 4 ${fail_prog} sleep)

# ---- what -nfg does not do (yet), said in one line -------------------------
launch_test(refused.nfg_with_mpmd ${expect_crash} 2
  "^mpiexec: -nfg 2 with an MPMD command line: the programs of an MPMD job run in one OS process for now"
  -- ${mpiexec} -n 2 -nfg 2 ${hello} : -n 2 ${hello})
launch_test(refused.nfg_with_gdb ${expect_crash} 2
  "^mpiexec: -gdb runs one OS process under gdb. with -nfg 2 the job would have 2"
  -- ${mpiexec} -n 4 -nfg 2 -gdb ${hello})
launch_test(refused.nfg_for_a_program_not_built_with_myriad ${expect_crash} 2
  "^mpiexec: -nfg 2 starts OS processes of 2 ranks of a Myriad program. 'sh' is not built with Myriad's mpicc"
  -- ${mpiexec} -n 4 -nfg 2 sh -c true)
launch_test(refused.nfg_for_a_program_that_is_not_there ${expect_crash} 127
  "^mpiexec: cannot run 'no-such-program-here': No such file or directory$"
  -- ${mpiexec} -n 4 -nfg 2 no-such-program-here)
