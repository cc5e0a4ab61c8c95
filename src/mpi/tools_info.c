/*
 * tools_info.c — the MPI tool information interface (MPI 3.1, 14.3).
 * Myriad exposes no control variables, performance variables or
 * categories yet, which the interface allows: a tool initializes it,
 * finds zero of each and carries on. The calls return their MPI_T codes
 * and never call an error handler (14.3.10). The interface is process
 * wide (counted initializations), usable before MPI_Init and after
 * MPI_Finalize, from any thread.
 */
#include "mpi/mpi_impl.h"

#include <stdatomic.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"   /* indices of nothing */

static atomic_int inits;   /* MPI_T_init_thread calls not yet finalized */

struct myr_mpi_t_pvar_session {
    unsigned magic;
};
enum { SESSION_MAGIC = 0x54534553 };

static int ready(void)
{
    return atomic_load(&inits) > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    atomic_fetch_add(&inits, 1);
    *provided = required;   /* any level: there is no state to protect */
    return MPI_SUCCESS;
}
int MPI_T_init_thread(int required, int *provided) MYR_PMPI(T_init_thread);

int PMPI_T_finalize(void)
{
    int n = atomic_load(&inits);
    while (n > 0 && !atomic_compare_exchange_weak(&inits, &n, n - 1)) {
    }
    return n > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}
int MPI_T_finalize(void) MYR_PMPI(T_finalize);

/* A count of zero things. */
static int none(int *num)
{
    int err = ready();
    if (err)
        return err;
    if (!num)
        return MPI_T_ERR_INVALID;
    *num = 0;
    return MPI_SUCCESS;
}

/* Every index is out of range, every name unknown, every handle invalid
 * (none can have been handed out). */
static int fail(int code)
{
    int err = ready();
    return err ? err : code;
}

static bool valid_session(MPI_T_pvar_session s)
{
    return s && s->magic == SESSION_MAGIC;
}

int PMPI_T_cvar_get_num(int *num_cvar) { return none(num_cvar); }
int MPI_T_cvar_get_num(int *num_cvar) MYR_PMPI(T_cvar_get_num);
int PMPI_T_pvar_get_num(int *num_pvar) { return none(num_pvar); }
int MPI_T_pvar_get_num(int *num_pvar) MYR_PMPI(T_pvar_get_num);
int PMPI_T_category_get_num(int *num_cat) { return none(num_cat); }
int MPI_T_category_get_num(int *num_cat) MYR_PMPI(T_category_get_num);
/* The set of categories never changes: its stamp stays 0. */
int PMPI_T_category_changed(int *stamp) { return none(stamp); }
int MPI_T_category_changed(int *stamp) MYR_PMPI(T_category_changed);

#define FAILS(code, name, params)                   \
    int PMPI_##name params { return fail(code); }   \
    int MPI_##name params MYR_PMPI(name);

FAILS(MPI_T_ERR_INVALID_HANDLE, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
FAILS(MPI_T_ERR_INVALID_HANDLE, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
FAILS(MPI_T_ERR_INVALID_INDEX, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
FAILS(MPI_T_ERR_INVALID_NAME, T_cvar_get_index, (const char *name, int *cvar_index))
FAILS(MPI_T_ERR_INVALID_INDEX, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
FAILS(MPI_T_ERR_INVALID_HANDLE, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
FAILS(MPI_T_ERR_INVALID_HANDLE, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
FAILS(MPI_T_ERR_INVALID_HANDLE, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
FAILS(MPI_T_ERR_INVALID_INDEX, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic))
FAILS(MPI_T_ERR_INVALID_NAME, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
FAILS(MPI_T_ERR_INVALID_INDEX, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories))
FAILS(MPI_T_ERR_INVALID_NAME, T_category_get_index, (const char *name, int *cat_index))
FAILS(MPI_T_ERR_INVALID_INDEX, T_category_get_cvars, (int cat_index, int len, int indices[]))
FAILS(MPI_T_ERR_INVALID_INDEX, T_category_get_pvars, (int cat_index, int len, int indices[]))
FAILS(MPI_T_ERR_INVALID_INDEX, T_category_get_categories, (int cat_index, int len, int indices[]))

/* Sessions are real (a tool opens one before it looks for variables). */
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int err = ready();
    if (err)
        return err;
    if (!session)
        return MPI_T_ERR_INVALID;
    MPI_T_pvar_session s = malloc(sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->magic = SESSION_MAGIC;
    *session = s;
    return MPI_SUCCESS;
}
int MPI_T_pvar_session_create(MPI_T_pvar_session *session) MYR_PMPI(T_pvar_session_create);

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int err = ready();
    if (err)
        return err;
    if (!session || !valid_session(*session))
        return MPI_T_ERR_INVALID_SESSION;
    (*session)->magic = 0;
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
int MPI_T_pvar_session_free(MPI_T_pvar_session *session) MYR_PMPI(T_pvar_session_free);

/* A call on a handle of a session: the session first, then the handle
 * (MPI_T_PVAR_ALL_HANDLES, where allowed, stands for none at all). */
static int on_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_ok)
{
    int err = ready();
    if (err)
        return err;
    if (!valid_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    return all_ok && handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    int err = ready();
    if (err)
        return err;
    return valid_session(session) ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_INVALID_SESSION;
}
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count)
    MYR_PMPI(T_pvar_handle_alloc);

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    return on_handle(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, false);
}
int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
    MYR_PMPI(T_pvar_handle_free);

#define ON_HANDLE(all_ok, name, params)                                  \
    int PMPI_##name params { return on_handle(session, handle, all_ok); } \
    int MPI_##name params MYR_PMPI(name);

ON_HANDLE(true, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ON_HANDLE(true, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ON_HANDLE(true, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
ON_HANDLE(false, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
ON_HANDLE(false, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
ON_HANDLE(false, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
