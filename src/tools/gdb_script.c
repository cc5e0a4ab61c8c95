/* gdb_script.c — where mpiexec -gdb finds Myriad's gdb commands. An
 * installed mpiexec looks beside itself (MYR_GDB_SCRIPT_FROM_BIN is the
 * script's path relative to the installed bin directory), not at a path
 * fixed at build time, so that the installed tree can be moved. The build
 * tree's mpiexec has no such file near it and uses the source tree's
 * (MYR_GDB_SCRIPT). */
#include "tools/gdb_script.h"

#include <unistd.h>

#include "tools/beside.h"

char *myr_gdb_script(void)
{
    static char found[PATH_MAX];
    /* realpath: gdb shows the path, so without bin/../ in it. */
    if (myr_tools_beside_bin(MYR_GDB_SCRIPT_FROM_BIN, R_OK, found))
        return found;
    return MYR_GDB_SCRIPT;
}
