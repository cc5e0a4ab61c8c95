/* gdb_script.h — where mpiexec -gdb finds Myriad's gdb commands. */
#ifndef MYR_TOOLS_GDB_SCRIPT_H
#define MYR_TOOLS_GDB_SCRIPT_H

/* The installed tools/gdb/myriad-gdb.py, found from mpiexec's own location
 * so that a moved prefix still works; else the source tree's copy. */
char *myr_gdb_script(void);

#endif
