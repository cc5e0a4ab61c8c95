/* gdb_script.c — where mpiexec -gdb finds Myriad's gdb commands. An
 * installed mpiexec looks beside itself (MYR_GDB_SCRIPT_FROM_BIN is the
 * script's path relative to the installed bin directory), not at a path
 * fixed at build time, so that the installed tree can be moved. The build
 * tree's mpiexec has no such file near it and uses the source tree's
 * (MYR_GDB_SCRIPT). */
#include "tools/gdb_script.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *myr_gdb_script(void)
{
    static char found[PATH_MAX];
    char exe[PATH_MAX];
    char path[PATH_MAX + sizeof MYR_GDB_SCRIPT_FROM_BIN + 1];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int len = snprintf(path, sizeof path, "%s/%s", exe, MYR_GDB_SCRIPT_FROM_BIN);
            /* realpath: gdb shows the path, so without bin/../ in it. */
            if (len > 0 && (size_t)len < sizeof path && realpath(path, found) &&
                access(found, R_OK) == 0)
                return found;
        }
    }
    return MYR_GDB_SCRIPT;
}
