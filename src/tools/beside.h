/* beside.h — files an installed tool finds from its own location. */
#ifndef MYR_TOOLS_BESIDE_H
#define MYR_TOOLS_BESIDE_H

#include <limits.h>

/* The file at `from_bin`, a path relative to the directory of the running
 * program (installed: the bin directory), resolved (no bin/../ in it)
 * into `found`, when it exists and allows `mode` (access(2): R_OK,
 * X_OK); else NULL. So a moved installed tree still finds its files. */
const char *myr_tools_beside_bin(const char *from_bin, int mode, char found[PATH_MAX]);

#endif
