/*
 * env.h — every environment variable Myriad reads, from one table.
 *
 * The table in env.c is the single source for reading the variables, for
 * `myriad-envvars` (which prints docs/envvars.md), and for later info tools.
 * Add a variable there, never with a bare getenv() elsewhere.
 */
#ifndef MYR_BASE_ENV_H
#define MYR_BASE_ENV_H

#include <stddef.h>
#include <stdio.h>

typedef enum myr_env_id {
    MYR_ENV_WORKERS,
    MYR_ENV_STACK_SIZE,
    MYR_ENV_STACK_GUARD,
    MYR_ENV_BIND,
    MYR_ENV_SPIN_US,
    MYR_ENV_SPIN_YIELD,
    MYR_ENV_STEAL_DELAY_US,
    MYR_ENV_PLACE,
    MYR_ENV_NRANKS,
    MYR_ENV_TAG_OUTPUT,
    MYR_ENV_MPIEXEC_TIMEOUT,
    MYR_ENV_DEADLOCK,
    MYR_ENV_PRIVATIZE,
    MYR_ENV_VERBOSE,
    MYR_ENV_MPMD,
    MYR_ENV_RANKS_PER_PROCESS,
    MYR_ENV_NET_EAGER_BYTES,
    MYR_ENV_NET_SPIN_US,
    MYR_ENV_NET_LIBRARY,
    MYR_ENV_WIREUP_TIMEOUT,
    MYR_ENV_MPIEXEC_PMIX,
    MYR_ENV_NET_IDLE_DRIVE,
    MYR_ENV_WAIT_POLICY,
    MYR_ENV_COUNT_
} myr_env_id;

typedef struct myr_env_var {
    const char *name;
    const char *default_text;  /* as the user would write it */
    const char *meaning;
} myr_env_var;

extern const myr_env_var myr_env_table[MYR_ENV_COUNT_];

/* The raw value, or NULL when unset or empty. */
const char *myr_env_get(myr_env_id id);

/* Parse a size such as "65536", "64k", "1M", "2g" (powers of 1024).
 * Returns 0 on success, -1 if the text is not a size. */
int myr_env_parse_size(const char *text, size_t *out);

/* Parse a non-negative decimal integer; returns 0 on success, -1 otherwise. */
int myr_env_parse_long(const char *text, long *out);

/* Write the table as the Markdown page docs/envvars.md. */
void myr_env_print_markdown(FILE *out);

#endif
