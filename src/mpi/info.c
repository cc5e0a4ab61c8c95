/*
 * info.c — MPI info objects (MPI 3.1, chapter 9) and communicator hints
 * (6.4.4).
 *
 * An info object is an array of (key, value) strings in insertion order:
 * MPI_Info_get_nthkey(i) is the i-th key set, and setting a key again
 * replaces its value in place. Info objects are per rank (what MPI makes
 * per process): a rank and the tasks it spawns use its own objects, as
 * threads of one MPI process would, and MPI leaves concurrent updates of one
 * object to the program.
 *
 * MPI_INFO_ENV is one read-only object for the whole OS process, filled on
 * first use with what the job was started with (8.7.2): "command" and "argv"
 * (the program's command line), "maxprocs" (the job size), "host", "arch"
 * and "wdir" (the working directory when the library was loaded). mpiexec
 * takes no "soft", "file" or "thread_level" argument, so those keys are
 * absent.
 *
 * Hints. A communicator keeps, per rank, every hint the program set
 * (MPI_Comm_set_info merges them; keys not given keep their value):
 * Myriad acts on none of them, which MPI allows, and MPI_Comm_get_info
 * returns them all, so a program reads back what it set. MPI_Comm_dup
 * copies the parent's hints; MPI_Comm_dup_with_info takes the given ones.
 */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct info_entry {
    char *key;
    char *value;
} info_entry;

struct myr_mpi_info {
    unsigned magic;
    bool read_only;        /* MPI_INFO_ENV */
    int n, cap;
    info_entry *entries;
};

struct myr_mpi_info myr_mpi_info_env = {.magic = MYR_MAGIC_INFO, .read_only = true};

static bool valid_info(MPI_Info info)
{
    return info && myr_handle_magic(info) == MYR_MAGIC_INFO;
}

int myr_check_info(const char *call, MPI_Comm comm, MPI_Info info, bool allow_null)
{
    if (info == MPI_INFO_NULL && allow_null)
        return MPI_SUCCESS;
    if (info == MPI_INFO_NULL)
        return myr_mpi_error(comm, MPI_ERR_INFO, call, "invalid info MPI_INFO_NULL");
    if (!valid_info(info))
        return myr_mpi_error(comm, MPI_ERR_INFO, call,
                             "invalid info handle %p (%s)", (void *)info,
                             myr_handle_problem(info));
    return MPI_SUCCESS;
}

/* ---- the object ----------------------------------------------------------- */

static MPI_Info info_new(void)
{
    MPI_Info info = calloc(1, sizeof *info);
    if (info)
        info->magic = MYR_MAGIC_INFO;
    return info;
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->entries[i].key, key) == 0)
            return i;
    return -1;
}

/* Set key to value (copies of both). MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int put(MPI_Info info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int i = find(info, key);
    if (i >= 0) {
        free(info->entries[i].value);
        info->entries[i].value = v;
        return MPI_SUCCESS;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        info_entry *e = realloc(info->entries, (size_t)cap * sizeof *e);
        if (!e) {
            free(k);
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->entries = e;
        info->cap = cap;
    }
    info->entries[info->n++] = (info_entry){k, v};
    return MPI_SUCCESS;
}

static void info_destroy(MPI_Info info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    info->magic = MYR_MAGIC_DEAD;
    free(info);
}

/* Every entry of `from` set in `to`, in order. */
static int put_all(MPI_Info to, MPI_Info from)
{
    for (int i = 0; i < from->n; i++) {
        int err = put(to, from->entries[i].key, from->entries[i].value);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

static MPI_Info info_copy(MPI_Info from)
{
    MPI_Info info = info_new();
    if (info && put_all(info, from) != MPI_SUCCESS) {
        info_destroy(info);
        info = NULL;
    }
    return info;
}

/* ---- MPI_INFO_ENV ---------------------------------------------------------- */

#if defined(__x86_64__)
#define MYR_INFO_ARCH "x86_64"
#elif defined(__aarch64__)
#define MYR_INFO_ARCH "aarch64"
#else
#define MYR_INFO_ARCH "unknown"
#endif

/* The working directory the job started in (a rank may chdir later). */
static char start_wdir[MPI_MAX_INFO_VAL + 1];

__attribute__((constructor)) static void record_start_wdir(void)
{
    if (!getcwd(start_wdir, sizeof start_wdir))
        start_wdir[0] = '\0';
}

static myr_spinlock env_lock;
static _Atomic bool env_filled;

/* The program's arguments after the command, separated by spaces and cut
 * to MPI_MAX_INFO_VAL characters. */
static void join_arguments(char *out)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 1; i < myr_the_job.argc && myr_the_job.argv[i]; i++) {
        int n = snprintf(out + len, MPI_MAX_INFO_VAL + 1 - len, "%s%s", i > 1 ? " " : "",
                         myr_the_job.argv[i]);
        if (n < 0 || (size_t)n >= MPI_MAX_INFO_VAL + 1 - len)
            break;   /* cut (snprintf ended the string) */
        len += (size_t)n;
    }
}

/* Fill MPI_INFO_ENV once; MPI_SUCCESS or MPI_ERR_NO_MEM (then the next
 * call tries again). */
static int fill_env(void)
{
    if (atomic_load_explicit(&env_filled, memory_order_acquire))
        return MPI_SUCCESS;
    static char buf[MPI_MAX_INFO_VAL + 1];   /* under env_lock */
    MPI_Info env = &myr_mpi_info_env;
    int err = MPI_SUCCESS;
    myr_spin_lock(&env_lock);
    if (!atomic_load_explicit(&env_filled, memory_order_relaxed)) {
        if (myr_the_job.argc > 0 && myr_the_job.argv && myr_the_job.argv[0]) {
            snprintf(buf, sizeof buf, "%s", myr_the_job.argv[0]);
            err = put(env, "command", buf);
            join_arguments(buf);
            if (!err)
                err = put(env, "argv", buf);
        }
        snprintf(buf, sizeof buf, "%d", myr_the_job.size);
        if (!err)
            err = put(env, "maxprocs", buf);
        if (gethostname(buf, sizeof buf) != 0)
            snprintf(buf, sizeof buf, "localhost");
        buf[sizeof buf - 1] = '\0';
        if (!err)
            err = put(env, "host", buf);
        if (!err)
            err = put(env, "arch", MYR_INFO_ARCH);
        if (!err && start_wdir[0])
            err = put(env, "wdir", start_wdir);
        if (err) {
            for (int i = 0; i < env->n; i++) {
                free(env->entries[i].key);
                free(env->entries[i].value);
            }
            env->n = 0;
        } else {
            atomic_store_explicit(&env_filled, true, memory_order_release);
        }
    }
    myr_spin_unlock(&env_lock);
    return err;
}

/* ---- argument checks -------------------------------------------------- */

/* A valid info object to read (MPI_INFO_ENV filled). */
static int check_readable(const char *call, MPI_Info info)
{
    int err = myr_check_info(call, MPI_COMM_NULL, info, false);
    if (!err && info == &myr_mpi_info_env && fill_env() != MPI_SUCCESS)
        err = myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
                            "out of memory for MPI_INFO_ENV");
    return err;
}

static int check_writable(const char *call, MPI_Info info)
{
    int err = myr_check_info(call, MPI_COMM_NULL, info, false);
    if (!err && info->read_only)
        err = myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call,
                            "MPI_INFO_ENV is predefined and cannot be changed");
    return err;
}

static int check_key(const char *call, const char *key)
{
    if (!key)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call, "key is NULL");
    size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
    if (n == 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call, "key is empty");
    if (n > MPI_MAX_INFO_KEY)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call,
                             "key is longer than MPI_MAX_INFO_KEY (%d characters)",
                             MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static int check_arg(const char *call, const void *p, const char *what)
{
    return myr_check_pointer(call, MPI_COMM_NULL, p, what);
}

static int no_memory(const char *call)
{
    return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory for an info object");
}

/* ---- MPI entry points ------------------------------------------------- */

int PMPI_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_arg(call, info, "info")))
        return err;
    MPI_Info made = info_new();
    if (!made)
        return no_memory(call);
    *info = made;
    return MPI_SUCCESS;
}
int MPI_Info_create(MPI_Info *info) MYR_PMPI(Info_create);

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char call[] = "MPI_Info_set";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_writable(call, info)) || (err = check_key(call, key)))
        return err;
    if (!value)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, call, "value is NULL");
    if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, call,
                             "value is longer than MPI_MAX_INFO_VAL (%d characters)",
                             MPI_MAX_INFO_VAL);
    if (put(info, key, value) != MPI_SUCCESS)
        return no_memory(call);
    return MPI_SUCCESS;
}
int MPI_Info_set(MPI_Info info, const char *key, const char *value) MYR_PMPI(Info_set);

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char call[] = "MPI_Info_delete";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_writable(call, info)) || (err = check_key(call, key)))
        return err;
    int i = find(info, key);
    if (i < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_NOKEY, call,
                             "key \"%s\" is not in the info object", key);
    free(info->entries[i].key);
    free(info->entries[i].value);
    memmove(&info->entries[i], &info->entries[i + 1],
            (size_t)(info->n - i - 1) * sizeof info->entries[0]);
    info->n--;
    return MPI_SUCCESS;
}
int MPI_Info_delete(MPI_Info info, const char *key) MYR_PMPI(Info_delete);

/* value gets at most valuelen characters and a terminating NUL (MPI: the
 * buffer holds valuelen + 1 characters). */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_key(call, key)) ||
        (err = check_arg(call, value, "value")) || (err = check_arg(call, flag, "flag")))
        return err;
    if (valuelen < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid valuelen %d (must be >= 0)", valuelen);
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        size_t n = strlen(info->entries[i].value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, info->entries[i].value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
    MYR_PMPI(Info_get);

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char call[] = "MPI_Info_get_valuelen";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_key(call, key)) ||
        (err = check_arg(call, valuelen, "valuelen")) || (err = check_arg(call, flag, "flag")))
        return err;
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(info->entries[i].value);
    return MPI_SUCCESS;
}
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
    MYR_PMPI(Info_get_valuelen);

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char call[] = "MPI_Info_get_nkeys";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_arg(call, nkeys, "nkeys")))
        return err;
    *nkeys = info->n;
    return MPI_SUCCESS;
}
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) MYR_PMPI(Info_get_nkeys);

/* key must hold MPI_MAX_INFO_KEY + 1 characters. */
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char call[] = "MPI_Info_get_nthkey";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_arg(call, key, "key")))
        return err;
    if (n < 0 || n >= info->n) {
        if (info->n == 0)
            return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "invalid n %d (the info object holds no key)", n);
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid n %d (the info object holds %d key%s: 0..%d)", n,
                             info->n, info->n == 1 ? "" : "s", info->n - 1);
    }
    strcpy(key, info->entries[n].key);
    return MPI_SUCCESS;
}
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) MYR_PMPI(Info_get_nthkey);

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char call[] = "MPI_Info_dup";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_arg(call, newinfo, "newinfo")))
        return err;
    MPI_Info made = info_copy(info);
    if (!made)
        return no_memory(call);
    *newinfo = made;
    return MPI_SUCCESS;
}
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) MYR_PMPI(Info_dup);

int PMPI_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_arg(call, info, "info")) ||
        (err = myr_check_info(call, MPI_COMM_NULL, *info, false)))
        return err;
    if ((*info)->read_only)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call,
                             "MPI_INFO_ENV is predefined and cannot be freed");
    info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
int MPI_Info_free(MPI_Info *info) MYR_PMPI(Info_free);

/* ---- MPI 4.0 additions -------------------------------------------------- */

/* *buflen in: the buffer's size (0: only ask); out: the value's length
 * plus its NUL. The value is cut to *buflen - 1 characters (MPI 4.0 10.4). */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get_string";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_readable(call, info)) || (err = check_key(call, key)) ||
        (err = check_arg(call, buflen, "buflen")) || (err = check_arg(call, flag, "flag")))
        return err;
    if (*buflen < 0)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid *buflen %d (must be >= 0)", *buflen);
    if (*buflen > 0 && (err = check_arg(call, value, "value")))
        return err;
    int i = find(info, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t len = strlen(info->entries[i].value);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, info->entries[i].value, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
    MYR_PMPI(Info_get_string);

/* A new info object holding what MPI_INFO_ENV holds (MPI 4.0 11.2.2); the
 * job's command line is the one the runtime was started with, whatever
 * argc/argv are given. */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char call[] = "MPI_Info_create_env";
    int err;
    (void)argc;
    (void)argv;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_arg(call, info, "info")))
        return err;
    if (fill_env() != MPI_SUCCESS)
        return no_memory(call);
    MPI_Info made = info_copy(&myr_mpi_info_env);
    if (!made)
        return no_memory(call);
    *info = made;
    return MPI_SUCCESS;
}
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info) MYR_PMPI(Info_create_env);

/* For sessions (session.c): a new info object with one key set. */
MPI_Info myr_info_with(const char *key, const char *value)
{
    MPI_Info info = info_new();
    if (info && put(info, key, value) != MPI_SUCCESS) {
        info_destroy(info);
        info = NULL;
    }
    return info;
}

/* ---- communicator hints ------------------------------------------------ */

int myr_comm_hints_copy(const char *call, MPI_Comm comm, MPI_Info hints)
{
    myr_comm_local *local = myr_comm_local_of(comm, myr_rank_self());
    MPI_Info copy = MPI_INFO_NULL;
    if (hints != MPI_INFO_NULL) {
        if (hints == &myr_mpi_info_env && fill_env() != MPI_SUCCESS)
            return no_memory(call);
        if (!(copy = info_copy(hints)))
            return no_memory(call);
    }
    myr_comm_hints_drop(comm);
    local->hints = copy;
    return MPI_SUCCESS;
}

void myr_comm_hints_drop(MPI_Comm comm)
{
    myr_comm_local *local = myr_comm_local_of(comm, myr_rank_self());
    if (local->hints != MPI_INFO_NULL)
        info_destroy(local->hints);
    local->hints = MPI_INFO_NULL;
}

/* MPI_INFO_NULL sets nothing. */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char call[] = "MPI_Comm_set_info";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) || (err = myr_check_info(call, comm, info, true)))
        return err;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (info == &myr_mpi_info_env && fill_env() != MPI_SUCCESS)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for hints");
    myr_comm_local *local = myr_comm_local_of(comm, self);
    /* Merge into a copy, so that running out of memory changes nothing. */
    MPI_Info merged = local->hints ? info_copy(local->hints) : info_new();
    if (!merged || put_all(merged, info) != MPI_SUCCESS) {
        if (merged)
            info_destroy(merged);
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for hints");
    }
    myr_comm_hints_drop(comm);
    local->hints = merged;
    return MPI_SUCCESS;
}
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) MYR_PMPI(Comm_set_info);

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char call[] = "MPI_Comm_get_info";
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_pointer(call, comm, info_used, "info_used")))
        return err;
    MPI_Info hints = myr_comm_local_of(comm, self)->hints;
    MPI_Info made = hints ? info_copy(hints) : info_new();
    if (!made)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for an info object");
    *info_used = made;
    return MPI_SUCCESS;
}
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) MYR_PMPI(Comm_get_info);
