# tests/tools/linking.cmake — every way a program's main gets linked, with
# the wrappers as a user calls them (issue 22): main in an object, in a
# static archive (libmain.a), in a shared library the program links, and
# compiled with -flto (in an object and in an archive made by gcc-ar). C
# with mpicc, C++ with mpicxx when there is a C++ compiler. The programs
# are built at build time (a link failure fails the build) and run as a
# singleton and with mpiexec -n 4 (MYR_PRIVATIZE=auto, the default): each
# says whether its ranks had their own globals.
#
# main in a shared library is loaded once per process: its ranks share the
# globals and the job warns (src/launch/privatize.c); MYR_PRIVATIZE=always
# is refused with why, never runs without a word.
set(linking_flags -O2 -g -Wall -Wextra -Werror)
# The archiver that keeps LTO objects' symbols (gcc-ar), else plain ar.
if(CMAKE_C_COMPILER_AR)
  set(linking_lto_ar ${CMAKE_C_COMPILER_AR})
else()
  set(linking_lto_ar ${CMAKE_AR})
endif()

# linking_programs(lang wrapper source): build/tests/tools/linking/<lang>/
# object, archive, shared, lto and lto_archive.
function(linking_programs lang wrapper source)
  set(d ${CMAKE_CURRENT_BINARY_DIR}/linking/${lang})
  set(cc ${bin}/${wrapper} ${linking_flags})
  set(deps ${here}/${source} ${bin}/${wrapper} myriad myriad_main)
  add_custom_command(OUTPUT ${d}/main.o ${d}/main_lto.o
    COMMAND ${CMAKE_COMMAND} -E make_directory ${d}
    COMMAND ${cc} -c -o ${d}/main.o ${here}/${source}
    COMMAND ${cc} -flto -c -o ${d}/main_lto.o ${here}/${source}
    DEPENDS ${deps} COMMENT "Compiling ${source} with ${wrapper} (and -flto)" VERBATIM)
  set(objs ${d}/main.o ${d}/main_lto.o)
  add_custom_command(OUTPUT ${d}/object
    COMMAND ${cc} -o ${d}/object ${d}/main.o
    DEPENDS ${deps} ${objs} COMMENT "Linking ${lang} main from an object" VERBATIM)
  add_custom_command(OUTPUT ${d}/archive
    COMMAND ${CMAKE_COMMAND} -E rm -f ${d}/libmain.a
    COMMAND ${CMAKE_AR} rcs ${d}/libmain.a ${d}/main.o
    COMMAND ${cc} -o ${d}/archive -L${d} -lmain
    DEPENDS ${deps} ${objs} COMMENT "Linking ${lang} main from a static archive" VERBATIM)
  add_custom_command(OUTPUT ${d}/shared
    COMMAND ${cc} -shared -o ${d}/libmainso.so ${d}/main.o
    COMMAND ${cc} -o ${d}/shared -L${d} -lmainso -Wl,-rpath,${d}
    DEPENDS ${deps} ${objs} COMMENT "Linking ${lang} main from a shared library" VERBATIM)
  add_custom_command(OUTPUT ${d}/lto
    COMMAND ${cc} -flto -o ${d}/lto ${d}/main_lto.o
    DEPENDS ${deps} ${objs} COMMENT "Linking ${lang} main with -flto" VERBATIM)
  add_custom_command(OUTPUT ${d}/lto_archive
    COMMAND ${CMAKE_COMMAND} -E rm -f ${d}/libmain_lto.a
    COMMAND ${linking_lto_ar} rcs ${d}/libmain_lto.a ${d}/main_lto.o
    COMMAND ${cc} -flto -o ${d}/lto_archive -L${d} -lmain_lto
    DEPENDS ${deps} ${objs} COMMENT "Linking ${lang} main with -flto from an archive" VERBATIM)
  add_custom_target(build_linking_${lang} ALL DEPENDS
    ${d}/object ${d}/archive ${d}/shared ${d}/lto ${d}/lto_archive)

  set(one "^linking: 1 ranks, sum of ranks 0: correct, globals private$")
  set(four "^linking: 4 ranks, sum of ranks 6: correct, globals")
  foreach(how object archive lto lto_archive)
    tools_test(linking.${lang}.${how}.singleton ${expect_output} 0 ${one}
      -- ${emu} ${d}/${how})
    tools_test(linking.${lang}.${how}.n4 ${expect_output} 0 "${four} private$"
      "!warning" -- ${mpiexec} -n 4 ${emu} ${d}/${how})
  endforeach()
  tools_test(linking.${lang}.shared.singleton ${expect_output} 0 ${one} "!warning"
    -- ${emu} ${d}/shared)
  tools_test(linking.${lang}.shared.n4 ${expect_output} 0 "${four} shared$"
    "^myriad: warning: the program's main is in libmainso\\.so, loaded once per process"
    -- ${mpiexec} -n 4 ${emu} ${d}/shared)
  tools_test(linking.${lang}.shared.n4_never ${expect_output} 0 "${four} shared$"
    "!warning" -- ${mpiexec} -n 4 -privatize never ${emu} ${d}/shared)
  tools_test(linking.${lang}.shared.n4_always_is_refused ${expect_crash} 1
    "^myriad: cannot give each rank its own copy of the program's globals \\(MYR_PRIVATIZE=always\\): its main is in .*libmainso\\.so"
    -- ${mpiexec} -n 4 -privatize always ${emu} ${d}/shared)
endfunction()

linking_programs(c mpicc linking_main.c)
if(MYR_MPICXX_COMPILER)
  linking_programs(cxx mpicxx linking_main.cc)
endif()
