/*
 * session.c — the MPI 4.0 sessions model, the part a library needs to get
 * a communicator of its own without MPI_Init (MPI 4.0, 11.3):
 * MPI_Session_init/finalize, the process sets "mpi://WORLD" and
 * "mpi://SELF" (names compared without regard to case), their groups and
 * info ("mpi_size"), the session's info ("thread_level": Myriad gives every
 * rank MPI_THREAD_MULTIPLE), and MPI_Comm_create_from_group.
 *
 * A session is per rank (what MPI makes per process). While a rank holds
 * one, MPI is usable by it without MPI_Init (myr_mpi_enter_slow); the
 * world model's MPI_Initialized/Finalized are unaffected. The groups of
 * the process sets are those of the job, so MPI_Comm_create_from_group is
 * MPI_Comm_create_group over the job's ranks with a tag derived from the
 * string tag: a creation among the group's members only, as MPI asks.
 *
 * Not provided: the session error-handler calls (MPI_Session_set/get/
 * call_errhandler, MPI_Session_create_errhandler) and MPI_ERR_SESSION (an
 * invalid session is MPI_ERR_ARG: the error classes stay MPI 3.1's). An
 * error in a session call is raised on MPI_COMM_NULL like other object
 * errors, unless the session was created with MPI_ERRORS_RETURN; the
 * error handler given to MPI_Session_init is otherwise only that flag.
 */
#include "mpi/mpi_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct myr_mpi_session {
    unsigned magic;
    bool errors_return;
    myr_rank *owner;
};

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
enum { NPSETS = 2 };

/* Raise, or only return when the session asked for MPI_ERRORS_RETURN. */
static int session_error(MPI_Session s, int errclass, const char *call, const char *what)
{
    if (s && myr_handle_magic(s) == MYR_MAGIC_SESSION && s->errors_return)
        return errclass;
    return myr_mpi_error(MPI_COMM_NULL, errclass, call, "%s", what);
}

static int check_session(const char *call, MPI_Session s)
{
    if (s == MPI_SESSION_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid session MPI_SESSION_NULL");
    if (myr_handle_magic(s) != MYR_MAGIC_SESSION)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "invalid session handle %p (%s)", (void *)s,
                             myr_handle_problem(s));
    return MPI_SUCCESS;
}

/* The index of a process set's name, or -1. */
static int pset_index(const char *name)
{
    for (int i = 0; i < NPSETS; i++)
        if (strcasecmp(name, psets[i]) == 0)
            return i;
    return -1;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char call[] = "MPI_Session_init";
    int err;
    myr_rank *self = myr_mpi_enter_any(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_info(call, MPI_COMM_NULL, info, true)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, session, "session")))
        return err;
    MPI_Session s = calloc(1, sizeof *s);
    if (!s)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    s->magic = MYR_MAGIC_SESSION;
    s->errors_return = errhandler == MPI_ERRORS_RETURN;
    s->owner = self;
    self->had_session = true;
    atomic_fetch_add(&self->sessions, 1);
    *session = s;
    return MPI_SUCCESS;
}
int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
    MYR_PMPI(Session_init);

int PMPI_Session_finalize(MPI_Session *session)
{
    static const char call[] = "MPI_Session_finalize";
    int err;
    myr_rank *self = myr_mpi_enter_any(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_NULL, session, "session")) ||
        (err = check_session(call, *session)))
        return err;
    MPI_Session s = *session;
    atomic_fetch_sub(&s->owner->sessions, 1);
    s->magic = MYR_MAGIC_DEAD;
    free(s);
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
int MPI_Session_finalize(MPI_Session *session) MYR_PMPI(Session_finalize);

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char call[] = "MPI_Session_get_num_psets";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_session(call, session)) ||
        (err = myr_check_info(call, MPI_COMM_NULL, info, true)))
        return err;
    if (!npset_names)
        return session_error(session, MPI_ERR_ARG, call, "npset_names is NULL");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
    MYR_PMPI(Session_get_num_psets);

/* *pset_len 0: only ask for the length (with its NUL); else the name, cut
 * to *pset_len - 1 characters. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    static const char call[] = "MPI_Session_get_nth_pset";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_session(call, session)) ||
        (err = myr_check_info(call, MPI_COMM_NULL, info, true)))
        return err;
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return session_error(session, MPI_ERR_ARG, call,
                             "pset_len is NULL or negative, or pset_name is NULL");
    if (n < 0 || n >= NPSETS) {
        char what[96];
        snprintf(what, sizeof what, "invalid n %d (the session has %d process sets: 0..%d)",
                 n, NPSETS, NPSETS - 1);
        return session_error(session, MPI_ERR_ARG, call, what);
    }
    size_t len = strlen(psets[n]);
    if (*pset_len > 0) {
        size_t k = len < (size_t)*pset_len - 1 ? len : (size_t)*pset_len - 1;
        memcpy(pset_name, psets[n], k);
        pset_name[k] = '\0';
    }
    *pset_len = (int)len + 1;
    return MPI_SUCCESS;
}
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                             char *pset_name) MYR_PMPI(Session_get_nth_pset);

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char call[] = "MPI_Session_get_info";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_session(call, session)))
        return err;
    if (!info_used)
        return session_error(session, MPI_ERR_ARG, call, "info_used is NULL");
    MPI_Info info = myr_info_with("thread_level", "MPI_THREAD_MULTIPLE");
    if (!info)
        return session_error(session, MPI_ERR_NO_MEM, call, "out of memory");
    *info_used = info;
    return MPI_SUCCESS;
}
int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used) MYR_PMPI(Session_get_info);

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char call[] = "MPI_Session_get_pset_info";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_session(call, session)))
        return err;
    int i = pset_name ? pset_index(pset_name) : -1;
    if (i < 0 || !info)
        return session_error(session, MPI_ERR_ARG, call,
                             "unknown process set (Myriad has mpi://WORLD and mpi://SELF), "
                             "or info is NULL");
    char size[24];
    snprintf(size, sizeof size, "%d", i == 0 ? myr_the_job.size : 1);
    MPI_Info made = myr_info_with("mpi_size", size);
    if (!made)
        return session_error(session, MPI_ERR_NO_MEM, call, "out of memory");
    *info = made;
    return MPI_SUCCESS;
}
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
    MYR_PMPI(Session_get_pset_info);

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_from_session_pset";
    int err;
    if (!myr_mpi_enter_any(call, &err))
        return err;
    if ((err = check_session(call, session)))
        return err;
    int i = pset_name ? pset_index(pset_name) : -1;
    if (i < 0 || !newgroup)
        return session_error(session, MPI_ERR_ARG, call,
                             "unknown process set (Myriad has mpi://WORLD and mpi://SELF), "
                             "or newgroup is NULL");
    return PMPI_Comm_group(i == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup);
}
int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                MPI_Group *newgroup) MYR_PMPI(Group_from_session_pset);

/* The string tag as a tag of MPI_Comm_create_group (FNV-1a, within
 * MPI_TAG_UB): members must pass the same string, so they get the same tag. */
static int tag_of(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(h & 0x3fffffff);
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create_from_group";
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if ((err = myr_check_group(call, group, "group")) ||
        (err = myr_check_info(call, MPI_COMM_NULL, info, true)) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, stringtag, "stringtag")) ||
        (err = myr_check_pointer(call, MPI_COMM_NULL, newcomm, "newcomm")))
        return err;
    if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN + 1) > MPI_MAX_STRINGTAG_LEN)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "stringtag is longer than MPI_MAX_STRINGTAG_LEN (%d)",
                             MPI_MAX_STRINGTAG_LEN);
    if ((err = PMPI_Comm_create_group(MPI_COMM_WORLD, group, tag_of(stringtag), newcomm)))
        return err;
    if (*newcomm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    if (errhandler != MPI_ERRHANDLER_NULL &&
        (err = PMPI_Comm_set_errhandler(*newcomm, errhandler)))
        return err;
    if (info != MPI_INFO_NULL && (err = PMPI_Comm_set_info(*newcomm, info)))
        return err;
    return MPI_SUCCESS;
}
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
    MYR_PMPI(Comm_create_from_group);
