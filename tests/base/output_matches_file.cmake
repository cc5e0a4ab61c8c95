# output_matches_file.cmake — run a program and compare what it prints with
# a file, byte for byte. On a difference, show it and say how to regenerate.
#   cmake -DPROGRAM=prog -DEXPECTED=file -DACTUAL=out-file
#         [-DEMULATOR=cmd|arg|...] -P output_matches_file.cmake
# EMULATOR separates its words with | (a ; would split the add_test command).
string(REPLACE "|" ";" emulator "${EMULATOR}")
execute_process(COMMAND ${emulator} ${PROGRAM}
                OUTPUT_FILE ${ACTUAL} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed: ${status}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL}
                RESULT_VARIABLE different)
if(different)
  find_program(DIFF diff)
  if(DIFF)
    execute_process(COMMAND ${DIFF} -u ${EXPECTED} ${ACTUAL})
  endif()
  message(FATAL_ERROR "${EXPECTED} is not what ${PROGRAM} prints; "
                      "regenerate it with: ${PROGRAM} > ${EXPECTED}")
endif()
