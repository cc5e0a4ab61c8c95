# tests/tools/mpiexec_options.cmake — mpiexec as scripts call it
# (docs/mpiexec.md): MPMD jobs, programs not built with Myriad, -wdir, the
# environment options, and the options accepted and ignored on one node.
# Included by tests/tools/CMakeLists.txt, whose helpers it uses.
set(expect_lines sh ${here}/expect_lines.sh)
set(rank_script ${here}/rank_script.sh)

# Two programs of one MPMD job, and one that cannot be loaded into it.
myr_add_mpi_program(tools_mpmd_a mpmd_prog.c)
myr_add_mpi_program(tools_mpmd_b mpmd_prog.c)
target_compile_definitions(tools_mpmd_a PRIVATE PROGRAM="a")
target_compile_definitions(tools_mpmd_b PRIVATE PROGRAM="b")
myr_add_mpi_program(tools_mpmd_no_pie mpmd_prog.c)
target_link_options(tools_mpmd_no_pie PRIVATE -no-pie)
# The first program runs under the emulator in cross builds; the others
# are loaded into its process by its runtime, so they are named as they are.
set(mpmd_a ${emu} $<TARGET_FILE:tools_mpmd_a>)
set(mpmd_b $<TARGET_FILE:tools_mpmd_b>)

# ---- MPMD: one MPI_COMM_WORLD over several programs ----------------------
tools_test(mpmd.two_programs_make_one_world
  ${expect_output} 0
  "^a: rank 0 of 5, appnum 0, sum 10, mains 1, args: \\[x\\]$"
  "^a: rank 1 of 5, appnum 0, sum 10, mains 1, args: \\[x\\]$"
  "^b: rank 2 of 5, appnum 1, sum 10, mains 1, args: \\[y\\] \\[z w\\]$"
  "^b: rank 3 of 5, appnum 1, sum 10, mains 1, args: \\[y\\] \\[z w\\]$"
  "^b: rank 4 of 5, appnum 1, sum 10, mains 1, args: \\[y\\] \\[z w\\]$"
  -- ${mpiexec} -n 2 ${mpmd_a} x : -np 3 ${mpmd_b} y "z w")
tools_test(mpmd.three_programs_and_many_ranks
  ${expect_lines} 0 150 "^b: rank [0-9]+ of 250, appnum [12], sum 31125, mains 1, args:$"
  -- ${mpiexec} -n 100 ${mpmd_a} : -n 50 ${mpmd_b} : -n 100 ${mpmd_b})
# Globals shared (-privatize never): b's ranks run one loaded copy.
tools_test(mpmd.shared_globals_run_one_copy_per_program
  ${expect_lines} 0 3 "^b: rank [1-3] of 4, appnum 1, sum 6, mains [1-3], args:$"
  -- ${mpiexec} -privatize never -n 1 ${mpmd_a} : -n 3 ${mpmd_b})
tools_test(mpmd.verbose_says_which_ranks_run_what ${expect_output} 0
  "^myriad: ranks 1-2 run .*tools_mpmd_b \\(MPI_APPNUM 1\\), globals private to each rank$"
  -- ${mpiexec} -v -n 1 ${mpmd_a} : -n 2 ${mpmd_b})
tools_test(mpmd.wdir_and_env_hold_for_every_program ${expect_output} 0
  "^a: rank 0 of 2, .* cwd=/ MPMD_VAR=one$" "^b: rank 1 of 2, .* cwd=/ MPMD_VAR=one$"
  -- ${mpiexec} -wdir / -n 1 -env MPMD_VAR one ${mpmd_a} cwd env=MPMD_VAR
     : -n 1 -env MPMD_VAR one ${mpmd_b} cwd env=MPMD_VAR)
tools_test(mpmd.different_env_is_refused ${expect_crash} 2
  "^mpiexec: '.*' and '.*' would get different -env settings, .* use -genv$"
  -- ${mpiexec} -n 1 -env V 1 ${mpmd_a} : -n 1 -env V 2 ${mpmd_b})
tools_test(mpmd.different_wdir_is_refused ${expect_crash} 2
  "^mpiexec: '.*' and '.*' would run in different directories \\(-wdir\\)"
  -- ${mpiexec} -n 1 ${mpmd_a} : -wdir / -n 1 ${mpmd_b})
tools_test(mpmd.program_not_position_independent_is_refused ${expect_crash} 1
  "^myriad: cannot load .*tools_mpmd_no_pie into the job's OS process \\(MPMD\\): it is not position-independent"
  -- ${mpiexec} -n 1 ${mpmd_a} : -n 1 $<TARGET_FILE:tools_mpmd_no_pie>)
tools_test(mpmd.mixing_with_a_program_not_built_with_myriad_is_refused ${expect_crash} 2
  "^mpiexec: '.*tools_mpmd_b' is an MPI program built with Myriad and '.*rank_script.sh' is not \\(a script\\)"
  -- ${mpiexec} -n 1 ${rank_script} print : -n 1 ${mpmd_b})
tools_test(mpmd.missing_program_is_reported ${expect_crash} 127
  "^mpiexec: cannot run '/nonexistent/b': No such file or directory$"
  -- ${mpiexec} -n 1 ${mpmd_a} : -n 1 /nonexistent/b)
tools_test(mpmd.colon_without_a_program_is_refused ${expect_crash} 2
  "^mpiexec: no program after ':'" -- ${mpiexec} -n 1 ${mpmd_a} :)

# ---- programs not built with Myriad: one process per rank ---------------
tools_test(other.script_runs_once_per_rank_with_pmi_variables
  ${expect_output} 0 "^rank 0 of 3, ompi 0 of 3, local 0$"
  "^rank 1 of 3, ompi 1 of 3, local 1$" "^rank 2 of 3, ompi 2 of 3, local 2$"
  -- ${mpiexec} -n 3 ${rank_script} print)
tools_test(other.lowest_failing_rank_gives_the_status
  ${expect_output} 3 -- ${mpiexec} -n 4 ${rank_script} exit 3)
tools_test(other.tag_output_tags_each_processs_lines
  ${expect_output} 0 "^\\[0\\] rank 0 of 2," "^\\[1\\] rank 1 of 2,"
  -- ${mpiexec} -l -n 2 ${rank_script} print)
tools_test(other.mpmd_sections_number_ranks_on
  ${expect_output} 0 "^rank 0 of 3," "^rank 1 of 3," "^RS_VAR=two$"
  -- ${mpiexec} -n 1 ${rank_script} print : -n 1 ${rank_script} print
     : -n 1 -env RS_VAR two ${rank_script} env RS_VAR)
tools_test(other.time_limit_ends_them ${expect_crash} 124
  "^mpiexec: job timed out after 1 s$" -- ${mpiexec} -timeout 1 -n 2 ${rank_script} sleep 100)
# The host's own programs: in cross builds they are ELF files of another
# machine than mpiexec's, which mpiexec cannot inspect and runs once (that
# is how it runs `qemu prog`), so these run natively only.
if(NOT CMAKE_CROSSCOMPILING)
  cmake_host_system_information(RESULT this_host QUERY HOSTNAME)
  tools_test(other.hostname_runs_once_per_rank
    ${expect_lines} 0 2 "^${this_host}$" -- ${mpiexec} -n 2 hostname)
  tools_test(other.sh_c_runs_once_per_rank
    ${expect_lines} 0 3 "^hi$" -- ${mpiexec} -n 3 sh -c "echo hi")
endif()

# ---- -wdir ---------------------------------------------------------------
tools_test(wdir.myriad_program_runs_there ${expect_output} 0
  "^a: rank 1 of 2, .* cwd=/$" -- ${mpiexec} -wdir / -n 2 ${mpmd_a} cwd)
tools_test(wdir.wd_and_double_dash_spellings ${expect_output} 0
  "^/$" -- ${mpiexec} -wd / -n 1 ${rank_script} pwd)
tools_test(wdir.wdir_equals_spelling ${expect_output} 0
  "^/$" -- ${mpiexec} --wdir=/ -n 1 ${rank_script} pwd)
tools_test(wdir.missing_directory_is_refused ${expect_crash} 2
  "^mpiexec: -wdir /nonexistent/dir: No such file or directory$"
  -- ${mpiexec} -wdir /nonexistent/dir -n 1 ${mpmd_a})

# ---- the environment -------------------------------------------------------
tools_test(env.x_genv_and_env_set_variables ${expect_output} 0
  "^a: rank 0 of 1, .* X1=one X2=\\(unset\\) G1=g E1=e KEPT=kept$"
  -- ${CMAKE_COMMAND} -E env KEPT=kept
     ${mpiexec} -x X1=one -x KEPT -genv G1 g -env E1 e -genvlist KEPT ${mpmd_a}
     env=X1 env=X2 env=G1 env=E1 env=KEPT)
tools_test(env.env_holds_for_its_own_program_only ${expect_output} 0
  "^E=first$" "^E=second$"
  -- ${mpiexec} -env E first ${rank_script} env E : -env E second ${rank_script} env E)
tools_test(env.genv_needs_a_value ${expect_crash} 2
  "^mpiexec: -genv needs VAR VALUE" -- ${mpiexec} -genv ONLY_NAME)

# ---- accepted and ignored on one node ----------------------------------------
set(hostfile ${CMAKE_CURRENT_BINARY_DIR}/mpiexec_hostfile)
file(WRITE ${hostfile} "# this node only\nlocalhost slots=4\n127.0.0.1:2\n\n")
set(other_hostfile ${CMAKE_CURRENT_BINARY_DIR}/mpiexec_other_hostfile)
file(WRITE ${other_hostfile} "localhost\nfar-away.invalid slots=8\n")
tools_test(ignored.options_that_mean_nothing_for_one_process ${expect_output} 0
  "^mpiexec: note: --oversubscribe means nothing for one OS process; ignored$"
  "^mpiexec: note: --allow-run-as-root means nothing for one OS process; ignored$"
  "^mpiexec: note: --bind-to core means nothing .*; ignored$"
  "^mpiexec: note: --map-by slot means nothing .*; ignored$"
  "^mpiexec: note: -ppn 4 means nothing on one node; ignored$"
  "^mpiexec: note: -host localhost names only this node, .*; ignored$"
  "^mpiexec: note: --host localhost,127.0.0.1:2 names only this node"
  "^mpiexec: note: -hostfile .*mpiexec_hostfile names only this node"
  "^mpiexec: note: -machinefile .*mpiexec_hostfile names only this node"
  "^mpiexec: note: -f .*mpiexec_hostfile names only this node"
  "^a: rank 1 of 2, "
  -- ${mpiexec} --oversubscribe --allow-run-as-root --bind-to core --map-by slot
     -ppn 4 -host localhost --host localhost,127.0.0.1:2 -hostfile ${hostfile}
     -machinefile ${hostfile} -f ${hostfile} -n 2 ${mpmd_a})
if(NOT CMAKE_CROSSCOMPILING)
  tools_test(ignored.this_hosts_own_name ${expect_output} 0
    "^mpiexec: note: -host ${this_host} names only this node" "^a: rank 0 of 1, "
    -- ${mpiexec} -host ${this_host} ${mpmd_a})
endif()
tools_test(ignored.another_host_is_refused ${expect_crash} 2
  "^mpiexec: -host localhost,far-away.invalid names host 'far-away.invalid': mpiexec runs every rank on this node. start jobs across nodes with a PMIx launcher"
  -- ${mpiexec} -host localhost,far-away.invalid -n 2 ${mpmd_a})
tools_test(ignored.hostfile_naming_another_host_is_refused ${expect_crash} 2
  "^mpiexec: -hostfile .*mpiexec_other_hostfile names host 'far-away.invalid'"
  -- ${mpiexec} -hostfile ${other_hostfile} -n 2 ${mpmd_a})
tools_test(ignored.missing_hostfile_is_refused ${expect_crash} 2
  "^mpiexec: -hostfile /nonexistent/hosts: cannot read it: No such file or directory$"
  -- ${mpiexec} -hostfile /nonexistent/hosts -n 2 ${mpmd_a})

# ---- --help ---------------------------------------------------------------------
tools_test(mpiexec.help_lists_supported_ignored_and_unsupported ${expect_output} 0
  "-n N, -np N" "-wdir DIR" "-x VAR\\[=VALUE\\]" "-genv VAR VALUE" "-env VAR VALUE"
  "^MPMD: " "^A program not built with Myriad" "^Accepted and ignored"
  "--oversubscribe" "^Not supported"
  -- ${mpiexec} --help)
