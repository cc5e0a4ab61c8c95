/* beside.c — files an installed tool finds from its own location (beside.h). */
#include "tools/beside.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *myr_tools_beside_bin(const char *from_bin, int mode, char found[PATH_MAX])
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    char path[2 * PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", exe, from_bin);
    if (len > 0 && (size_t)len < sizeof path && realpath(path, found) &&
        access(found, mode) == 0)
        return found;
    return NULL;
}
