# cmake -DLIST=all_names.txt -DOUT=file.c -P all_names_gen.cmake
# Writes a program that mentions every name of LIST (see all_names.txt):
# valid C and C++, so it is built as both. Regenerated when the list
# changes (all_names.cmake).
file(STRINGS ${LIST} lines)
set(fns "")
set(consts "")
set(types "")
set(fields "")
set(nfn 0)
set(nconst 0)
set(ntype 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^([a-z]+) +(MPI_[A-Za-z0-9_]+)$")
    set(kind ${CMAKE_MATCH_1})
    set(name ${CMAKE_MATCH_2})
    string(REGEX REPLACE "^MPI_" "PMPI_" pname ${name})
    if(kind STREQUAL "function")
      string(APPEND fns "    (myr_any_fn)${name}, (myr_any_fn)${pname},\n")
      math(EXPR nfn "${nfn} + 2")
    elseif(kind STREQUAL "callback")
      string(APPEND fns "    (myr_any_fn)${name},\n")
      math(EXPR nfn "${nfn} + 1")
    elseif(kind STREQUAL "constant")
      string(APPEND consts "    (void)(${name});\n")
      math(EXPR nconst "${nconst} + 1")
    elseif(kind STREQUAL "type")
      string(APPEND types "    { ${name} *p = 0; (void)p; }\n")
      math(EXPR ntype "${ntype} + 1")
    elseif(kind STREQUAL "field")
      string(APPEND fields "    s.${name} = 0;\n")
    else()
      message(FATAL_ERROR "${LIST}: unknown kind '${kind}' in: ${line}")
    endif()
  elseif(NOT line MATCHES "^(#.*)?$")
    message(FATAL_ERROR "${LIST}: cannot read the line: ${line}")
  endif()
endforeach()
file(WRITE ${OUT}.tmp "/* Generated from tests/mpi/all_names.txt by all_names_gen.cmake. */
#include <mpi.h>
#include <stdio.h>

/* Every function, by address: each must be declared and must link. */
typedef void (*myr_any_fn)(void);
static const myr_any_fn functions[] = {
${fns}};

static void types(void)
{
${types}}

static void constants(void)
{
${consts}}

int main(int argc, char **argv)
{
    MPI_Status s;
${fields}    (void)s;
    MPI_Init(&argc, &argv);
    types();
    constants();
    int missing = 0;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        missing += !functions[i];
    printf(\"${nfn} functions, ${nconst} constants, ${ntype} types: %d functions missing\\n\", missing);
    MPI_Finalize();
    return missing != 0;
}
")
# Only a changed program is rewritten (no rebuild otherwise).
configure_file(${OUT}.tmp ${OUT} COPYONLY)
