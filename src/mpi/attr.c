/*
 * attr.c — attributes cached on communicators and datatypes (MPI 3.1, 6.7),
 * and the predefined attributes of communicators (8.1.2).
 *
 * Keyvals are objects of the OS process, not of a rank. In MPI a keyval is
 * a process-local int; here one OS process holds many MPI processes
 * (ranks), so ids come from one counter: two ranks creating keyvals never
 * get the same id, and a keyval is valid in every rank. The latter matters
 * when ranks share the program's globals: a library that creates its keyval
 * once and keeps it in a static variable (the usual idiom) then hands one id
 * to every rank, and each rank can use it. What MPI makes per process is per
 * rank: the attribute values. Each rank has its own attribute list on each
 * communicator (in its myr_comm_local: rank 3's MPI_COMM_WORLD attributes
 * are not rank 5's) and on each predefined datatype
 * (myr_rank.predefined_type_attrs); a derived datatype belongs to the rank
 * that made it and carries its list.
 *
 * Lifetimes. A keyval counts one reference until MPI_*_free_keyval, plus
 * one per attribute using it, so a freed keyval in use stays alive (6.7.2):
 * its callbacks still run when those objects are duplicated or freed, and
 * MPI_*_get_attr and _delete_attr still accept its id; only new attributes
 * are refused. The id of a keyval that is gone (freed, and no attribute
 * left) is reused, so creating and freeing keyvals forever keeps the table
 * as large as the most keyvals alive at once; but only once more than
 * SPARE_KEEP ids wait, oldest first, so a stale id is for a while still
 * reported as such instead of naming another keyval. A reused id starts
 * with no attribute anywhere: attributes hold their keyval, and the id is
 * only given back when none does.
 *
 * Order. A list is newest first. Duplicating an object copies its
 * attributes oldest first (the copy keeps their order); freeing one deletes
 * them newest first, which for MPI_COMM_SELF at MPI_Finalize is the reverse
 * order of setting that MPI requires (8.7.1). Setting an attribute that
 * exists calls its delete callback and keeps its place.
 *
 * Predefined attributes (MPI_TAG_UB...) are answered on every communicator,
 * not only MPI_COMM_WORLD: programs (PETSc, for one) ask their own
 * communicators for MPI_TAG_UB. They are read-only (MPI_ERR_KEYVAL).
 *
 * Locking: one spin lock guards the keyval table, the reference counts and
 * every attribute list. It is held for a few instructions, never across a
 * user callback: callbacks may call MPI, attribute functions included. A
 * callback's error fails the calling function with that code, leaving the
 * attribute as it was.
 */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef enum { KV_COMM, KV_TYPE } kv_kind;

static const char *const kind_name[] = {[KV_COMM] = "communicator", [KV_TYPE] = "datatype"};
static const char *const kind_creator[] = {[KV_COMM] = "MPI_Comm_create_keyval",
                                           [KV_TYPE] = "MPI_Type_create_keyval"};

typedef struct keyval {
    int id;
    kv_kind kind;
    bool freed;        /* by MPI_*_free_keyval */
    int refs;          /* 1 until freed, plus 1 per attribute; under attr_lock */
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
    } del;
    void *extra_state;
} keyval;

typedef struct myr_attr {
    struct myr_attr *next;     /* the next older attribute */
    void *object;              /* the communicator or datatype it is cached on */
    keyval *kv;                /* holds a reference */
    void *value;
} attr;

/* Ids below this are predefined keys (or kept for future ones). */
enum { FIRST_USER_KEYVAL = 64 };

static myr_spinlock attr_lock;
static keyval **table;     /* id - FIRST_USER_KEYVAL -> keyval; NULL once gone */
static int table_len, table_cap;
/* Slots whose keyval is gone, oldest first: a queue linked through
 * spare_next (same capacity as table). */
enum { SPARE_KEEP = 64 };
static int *spare_next;
static int spare_head = -1, spare_tail = -1, spare_n;

/* ---- predefined keys ------------------------------------------------------ */

static int tag_ub = MYR_TAG_UB;
static int host_rank = MPI_PROC_NULL;        /* no host process */
static int io_rank = MPI_ANY_SOURCE;         /* every rank can do I/O */
static int wtime_is_global = 1;              /* myr_mpi_clock_is_global */
static int appnum = 0;                       /* one application */
static int *appnums;                         /* per world rank (MPMD), or NULL */

void myr_attr_set_appnums(int *per_rank)
{
    appnums = per_rank;
}

static bool is_predefined(int id)
{
    return id >= MPI_TAG_UB && id <= MPI_LASTUSEDCODE;
}

static const char *predefined_name(int id)
{
    static const char *const names[] = {
        [MPI_TAG_UB] = "MPI_TAG_UB", [MPI_HOST] = "MPI_HOST", [MPI_IO] = "MPI_IO",
        [MPI_WTIME_IS_GLOBAL] = "MPI_WTIME_IS_GLOBAL", [MPI_APPNUM] = "MPI_APPNUM",
        [MPI_UNIVERSE_SIZE] = "MPI_UNIVERSE_SIZE", [MPI_LASTUSEDCODE] = "MPI_LASTUSEDCODE"};
    return names[id];
}

static int *predefined_value(int id)
{
    switch (id) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host_rank;
    case MPI_IO: return &io_rank;
    case MPI_WTIME_IS_GLOBAL:
        wtime_is_global = myr_mpi_clock_is_global();
        return &wtime_is_global;
    case MPI_APPNUM: {
        /* Which program of an MPMD job the calling rank runs. */
        myr_rank *self = myr_rank_self();
        return appnums && self ? &appnums[self->world_rank] : &appnum;
    }
    case MPI_UNIVERSE_SIZE: return &myr_the_job.size;   /* constant while ranks run */
    default: return &myr_mpi_last_used_code;
    }
}

/* ---- predefined callbacks ----------------------------------------------- */

int myr_mpi_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state, (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int myr_mpi_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                        void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    memcpy(attribute_val_out, &attribute_val_in, sizeof attribute_val_in);
    *flag = 1;
    return MPI_SUCCESS;
}

int myr_mpi_comm_null_delete_fn(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state)
{
    (void)comm, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

int myr_mpi_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)keyval, (void)extra_state, (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int myr_mpi_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra_state,
                        void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)keyval, (void)extra_state;
    memcpy(attribute_val_out, &attribute_val_in, sizeof attribute_val_in);
    *flag = 1;
    return MPI_SUCCESS;
}

int myr_mpi_type_null_delete_fn(MPI_Datatype datatype, int keyval, void *attribute_val,
                                void *extra_state)
{
    (void)datatype, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

/* ---- keyvals ---------------------------------------------------------------- */

/* Drop n references; the last frees the keyval. */
static void kv_drop_locked(keyval *kv, int n)
{
    kv->refs -= n;
    if (kv->refs > 0)
        return;
    int slot = kv->id - FIRST_USER_KEYVAL;
    table[slot] = NULL;
    free(kv);
    spare_next[slot] = -1;
    if (spare_tail >= 0)
        spare_next[spare_tail] = slot;
    else
        spare_head = slot;
    spare_tail = slot;
    spare_n++;
}

/* A slot for a new keyval: a spare one, once enough wait; -1 if the table
 * must grow. */
static int spare_take_locked(void)
{
    if (spare_n <= SPARE_KEEP)
        return -1;
    int slot = spare_head;
    spare_head = spare_next[slot];
    if (spare_head < 0)
        spare_tail = -1;
    spare_n--;
    return slot;
}

static void kv_release_locked(keyval *kv)
{
    kv_drop_locked(kv, 1);
}

static void kv_release(keyval *kv)
{
    myr_spin_lock(&attr_lock);
    kv_release_locked(kv);
    myr_spin_unlock(&attr_lock);
}

/* What may be named: a predefined key (*out is then NULL), a freed keyval
 * that attributes still use. */
enum { ALLOW_PREDEFINED = 1, ALLOW_FREED = 2 };

/* The keyval `id` for a call on an object of `kind`: MPI_SUCCESS and *out
 * (a reference the caller drops), or the raised error. */
static int kv_get(const char *call, MPI_Comm errcomm, int id, kv_kind kind, int allow,
                  keyval **out)
{
    *out = NULL;
    if (id == MPI_KEYVAL_INVALID)
        return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                             "invalid keyval MPI_KEYVAL_INVALID");
    if (is_predefined(id)) {
        if (kind != KV_COMM)
            return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                                 "keyval %s is a communicator keyval, not a datatype keyval",
                                 predefined_name(id));
        if (!(allow & ALLOW_PREDEFINED))
            return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                                 "keyval %s is predefined: its attribute is read-only "
                                 "and the keyval cannot be freed", predefined_name(id));
        return MPI_SUCCESS;
    }
    myr_spin_lock(&attr_lock);
    keyval *kv = id >= FIRST_USER_KEYVAL && id - FIRST_USER_KEYVAL < table_len
                     ? table[id - FIRST_USER_KEYVAL] : NULL;
    kv_kind found_kind = kv ? kv->kind : kind;
    bool freed = kv && kv->freed;
    bool ok = kv && found_kind == kind && (!freed || (allow & ALLOW_FREED));
    if (ok)
        kv->refs++;
    myr_spin_unlock(&attr_lock);
    if (ok) {
        *out = kv;
        return MPI_SUCCESS;
    }
    if (!kv)
        return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                             "invalid keyval %d (no %s keyval has this id: never "
                             "created, or freed and no longer in use)", id, kind_name[kind]);
    if (found_kind != kind)
        return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                             "keyval %d is a %s keyval (from %s), not a %s keyval", id,
                             kind_name[found_kind], kind_creator[found_kind],
                             kind_name[kind]);
    return myr_mpi_error(errcomm, MPI_ERR_KEYVAL, call,
                         "keyval %d was freed (no new attributes may use it)", id);
}

static int create_keyval(const char *call, keyval proto, int *keyval_out)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!proto.copy.comm)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "copy function is NULL (MPI_%s_NULL_COPY_FN copies nothing)",
                             proto.kind == KV_COMM ? "COMM" : "TYPE");
    if (!proto.del.comm)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "delete function is NULL (MPI_%s_NULL_DELETE_FN does nothing)",
                             proto.kind == KV_COMM ? "COMM" : "TYPE");
    if (!keyval_out)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "keyval is NULL");
    keyval *kv = malloc(sizeof *kv);
    if (!kv)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory for a keyval");
    *kv = proto;
    kv->freed = false;
    kv->refs = 1;
    myr_spin_lock(&attr_lock);
    int slot = spare_take_locked();
    bool full = slot < 0 && table_len >= INT_MAX - FIRST_USER_KEYVAL;
    if (slot < 0 && !full && table_len == table_cap) {
        int cap = table_cap ? (table_cap < INT_MAX / 4 ? 2 * table_cap : INT_MAX / 2) : 64;
        keyval **grown = realloc(table, (size_t)cap * sizeof *grown);
        if (grown)
            table = grown;
        int *grown_next = grown ? realloc(spare_next, (size_t)cap * sizeof *grown_next) : NULL;
        if (grown_next) {
            spare_next = grown_next;
            table_cap = cap;
        }
        full = !grown_next;
    }
    if (slot < 0 && !full)
        slot = table_len++;
    if (!full) {
        kv->id = FIRST_USER_KEYVAL + slot;
        table[slot] = kv;
    }
    myr_spin_unlock(&attr_lock);
    if (full) {
        free(kv);
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no keyval left");
    }
    *keyval_out = kv->id;
    return MPI_SUCCESS;
}

static int free_keyval(const char *call, kv_kind kind, int *keyval_io)
{
    int err;
    if (!myr_mpi_enter(call, &err))
        return err;
    if (!keyval_io)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "keyval is NULL");
    keyval *kv;
    if ((err = kv_get(call, MPI_COMM_NULL, *keyval_io, kind, 0, &kv)))
        return err;
    myr_spin_lock(&attr_lock);
    bool already = kv->freed;
    kv->freed = true;
    kv_drop_locked(kv, already ? 1 : 2);   /* the lookup's, and the creator's */
    myr_spin_unlock(&attr_lock);
    if (already)   /* a concurrent free by another task of the rank won */
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
                             "keyval %d was freed (no new attributes may use it)",
                             *keyval_io);
    *keyval_io = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- attribute lists ------------------------------------------------------ */

/* An object with attributes, as seen by the calling rank. */
typedef struct host {
    kv_kind kind;
    void *object;
    attr **list;
    MPI_Comm errcomm;     /* whose handler gets the errors */
} host;

static host comm_host(MPI_Comm comm, myr_rank *self)
{
    return (host){KV_COMM, comm, &myr_comm_local_of(comm, self)->attrs, comm};
}

static host type_host(MPI_Datatype type, myr_rank *self)
{
    return (host){KV_TYPE, type, type->predefined ? &self->predefined_type_attrs : &type->attrs,
                  MPI_COMM_NULL};
}

static attr *find_locked(const host *h, const keyval *kv)
{
    for (attr *a = *h->list; a; a = a->next)
        if (a->object == h->object && a->kv == kv)
            return a;
    return NULL;
}

/* Take `a` out of h's list; false if it is no longer there. */
static bool unlink_locked(const host *h, attr *a)
{
    for (attr **p = h->list; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            return true;
        }
    return false;
}

static int call_delete(const host *h, keyval *kv, void *value)
{
    if (h->kind == KV_COMM)
        return kv->del.comm((MPI_Comm)h->object, kv->id, value, kv->extra_state);
    return kv->del.type((MPI_Datatype)h->object, kv->id, value, kv->extra_state);
}

static int call_copy(const host *h, keyval *kv, void *value, void **out, int *flag)
{
    if (h->kind == KV_COMM)
        return kv->copy.comm((MPI_Comm)h->object, kv->id, kv->extra_state, value, out, flag);
    return kv->copy.type((MPI_Datatype)h->object, kv->id, kv->extra_state, value, out, flag);
}

static int callback_failed(const char *call, const host *h, const char *which, int id, int rc)
{
    return myr_mpi_error(h->errcomm, rc, call,
                         "the %s callback of keyval %d returned error %d", which, id, rc);
}

static int attr_set(const char *call, const host *h, int id, void *value)
{
    keyval *kv;
    int err = kv_get(call, h->errcomm, id, h->kind, 0, &kv);
    if (err)
        return err;
    attr *fresh = malloc(sizeof *fresh);
    if (!fresh) {
        kv_release(kv);
        return myr_mpi_error(h->errcomm, MPI_ERR_NO_MEM, call, "out of memory for an attribute");
    }
    myr_spin_lock(&attr_lock);
    attr *a = find_locked(h, kv);
    void *old = a ? a->value : NULL;
    myr_spin_unlock(&attr_lock);
    if (a) {
        int rc = call_delete(h, kv, old);
        if (rc != MPI_SUCCESS) {
            free(fresh);
            kv_release(kv);
            return callback_failed(call, h, "delete", id, rc);
        }
    }
    myr_spin_lock(&attr_lock);
    if ((a = find_locked(h, kv))) {
        a->value = value;
    } else {
        *fresh = (attr){*h->list, h->object, kv, value};
        *h->list = fresh;
        fresh = NULL;
        kv->refs++;   /* the attribute's */
    }
    kv_release_locked(kv);
    myr_spin_unlock(&attr_lock);
    free(fresh);
    return MPI_SUCCESS;
}

static int attr_get(const char *call, const host *h, int id, void *value_out, int *flag)
{
    keyval *kv;
    int err = kv_get(call, h->errcomm, id, h->kind, ALLOW_PREDEFINED | ALLOW_FREED, &kv);
    if (err)
        return err;
    if ((err = myr_check_pointer(call, h->errcomm, value_out, "attribute_val")) ||
        (err = myr_check_pointer(call, h->errcomm, flag, "flag"))) {
        if (kv)
            kv_release(kv);
        return err;
    }
    void *value = NULL;
    bool found = true;
    if (!kv) {
        value = predefined_value(id);
    } else {
        myr_spin_lock(&attr_lock);
        attr *a = find_locked(h, kv);
        found = a != NULL;
        if (a)
            value = a->value;
        kv_release_locked(kv);
        myr_spin_unlock(&attr_lock);
    }
    *flag = found;
    if (found)   /* attribute_val is a void ** passed as void * */
        memcpy(value_out, &value, sizeof value);
    return MPI_SUCCESS;
}

/* Deleting an attribute that is not there does nothing. */
static int attr_delete(const char *call, const host *h, int id)
{
    keyval *kv;
    int err = kv_get(call, h->errcomm, id, h->kind, ALLOW_FREED, &kv);
    if (err)
        return err;
    myr_spin_lock(&attr_lock);
    attr *a = find_locked(h, kv);
    void *value = a ? a->value : NULL;
    myr_spin_unlock(&attr_lock);
    if (a) {
        int rc = call_delete(h, kv, value);
        if (rc != MPI_SUCCESS) {
            kv_release(kv);
            return callback_failed(call, h, "delete", id, rc);
        }
    }
    myr_spin_lock(&attr_lock);
    if (!(a && (a = find_locked(h, kv)) && unlink_locked(h, a)))
        a = NULL;
    kv_drop_locked(kv, a ? 2 : 1);   /* the lookup's, and the attribute's */
    myr_spin_unlock(&attr_lock);
    free(a);
    return MPI_SUCCESS;
}

/* How attr_delete_all treats a delete callback's error. */
typedef enum {
    STOP,           /* raise it; that attribute and the older ones stay */
    GO_ON_RAISE,    /* delete the others, then raise the first error */
    GO_ON_QUIET,    /* delete the others; the error is dropped */
} on_error;

/* Delete h's attributes, newest first, calling their delete callbacks. */
static int attr_delete_all(const char *call, const host *h, on_error mode)
{
    int first_rc = MPI_SUCCESS, first_id = 0;
    for (;;) {
        myr_spin_lock(&attr_lock);
        attr *a = *h->list;
        while (a && a->object != h->object)
            a = a->next;
        keyval *kv = a ? a->kv : NULL;
        void *value = a ? a->value : NULL;
        if (kv)
            kv->refs++;   /* kept alive across the callback */
        myr_spin_unlock(&attr_lock);
        if (!a)
            break;
        int id = kv->id;
        int rc = call_delete(h, kv, value);
        if (rc != MPI_SUCCESS && mode == STOP) {
            kv_release(kv);
            return callback_failed(call, h, "delete", id, rc);
        }
        if (rc != MPI_SUCCESS && first_rc == MPI_SUCCESS) {
            first_rc = rc;
            first_id = id;
        }
        myr_spin_lock(&attr_lock);
        /* The callback may have deleted it itself. */
        if (!(find_locked(h, kv) == a && unlink_locked(h, a)))
            a = NULL;
        kv_drop_locked(kv, a ? 2 : 1);   /* ours, and the attribute's */
        myr_spin_unlock(&attr_lock);
        free(a);
    }
    if (first_rc != MPI_SUCCESS && mode == GO_ON_RAISE)
        return callback_failed(call, h, "delete", first_id, first_rc);
    return MPI_SUCCESS;
}

/* Copy `from`'s attributes to `to` (a new object), oldest first, as their
 * copy callbacks decide. On a callback's error the copies made so far are
 * deleted (their errors ignored) and the error is raised on `from`. */
static int attr_copy_all(const char *call, const host *from, const host *to)
{
    typedef struct item {
        keyval *kv;
        void *value;
    } item;
    myr_spin_lock(&attr_lock);
    int n = 0;
    for (attr *a = *from->list; a; a = a->next)
        n += a->object == from->object;
    item *items = n ? malloc((size_t)n * sizeof *items) : NULL;
    if (items) {
        int i = 0;
        for (attr *a = *from->list; a; a = a->next)
            if (a->object == from->object) {
                items[i++] = (item){a->kv, a->value};
                a->kv->refs++;
            }
    }
    myr_spin_unlock(&attr_lock);
    if (n && !items)
        return myr_mpi_error(from->errcomm, MPI_ERR_NO_MEM, call,
                             "out of memory copying attributes");
    int rc = MPI_SUCCESS, failed_id = 0;
    const char *which = "copy";
    for (int i = n - 1; i >= 0; i--) {
        keyval *kv = items[i].kv;
        void *out = NULL;
        int flag = 0;
        if (rc == MPI_SUCCESS &&
            (rc = call_copy(from, kv, items[i].value, &out, &flag)) != MPI_SUCCESS)
            failed_id = kv->id;
        attr *a = rc == MPI_SUCCESS && flag ? malloc(sizeof *a) : NULL;
        if (a) {
            myr_spin_lock(&attr_lock);
            *a = (attr){*to->list, to->object, kv, out};
            *to->list = a;   /* takes items[i]'s reference */
            myr_spin_unlock(&attr_lock);
            continue;
        }
        if (rc == MPI_SUCCESS && flag) {
            (void)call_delete(to, kv, out);   /* a copy with no room to keep it */
            rc = MPI_ERR_NO_MEM;
            which = NULL;
        }
        kv_release(kv);
    }
    free(items);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    (void)attr_delete_all(call, to, GO_ON_QUIET);
    if (!which)
        return myr_mpi_error(from->errcomm, MPI_ERR_NO_MEM, call,
                             "out of memory copying attributes");
    return callback_failed(call, from, which, failed_id, rc);
}

/* ---- what the other entry points call ---------------------------------- */

int myr_attr_comm_copy_all(MPI_Comm oldcomm, MPI_Comm newcomm, const char *call)
{
    myr_rank *self = myr_rank_self();
    host from = comm_host(oldcomm, self), to = comm_host(newcomm, self);
    return attr_copy_all(call, &from, &to);
}

int myr_attr_comm_delete_all(MPI_Comm comm, const char *call)
{
    host h = comm_host(comm, myr_rank_self());
    return attr_delete_all(call, &h, STOP);
}

int myr_attr_type_copy_all(MPI_Datatype oldtype, MPI_Datatype newtype, const char *call)
{
    myr_rank *self = myr_rank_self();
    host from = type_host(oldtype, self), to = type_host(newtype, self);
    return attr_copy_all(call, &from, &to);
}

int myr_attr_type_delete_all(MPI_Datatype type, const char *call)
{
    host h = type_host(type, myr_rank_self());
    return attr_delete_all(call, &h, STOP);
}

int myr_attr_finalize(myr_rank *self)
{
    static const char call[] = "MPI_Finalize";
    int first_err = MPI_SUCCESS;
    host comms[2] = {comm_host(MPI_COMM_SELF, self), comm_host(MPI_COMM_WORLD, self)};
    for (int i = 0; i < 2; i++) {
        int err = attr_delete_all(call, &comms[i], GO_ON_RAISE);
        if (err && !first_err)
            first_err = err;
    }
    for (;;) {
        myr_spin_lock(&attr_lock);
        attr *a = self->predefined_type_attrs;
        void *type = a ? a->object : NULL;
        myr_spin_unlock(&attr_lock);
        if (!a)
            break;
        host h = type_host(type, self);
        int err = attr_delete_all(call, &h, GO_ON_RAISE);
        if (err && !first_err)
            first_err = err;
    }
    return first_err;
}

/* ---- MPI entry points: communicators ------------------------------------- */

static int comm_entry(const char *call, MPI_Comm comm, host *h)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_comm(call, comm)))
        return err;
    *h = comm_host(comm, self);
    return MPI_SUCCESS;
}

int myr_attr_comm_create_keyval(const char *call, MPI_Comm_copy_attr_function *copy_fn,
                                MPI_Comm_delete_attr_function *delete_fn, int *keyval_out,
                                void *extra_state)
{
    keyval proto = {.kind = KV_COMM, .copy.comm = copy_fn, .del.comm = delete_fn,
                    .extra_state = extra_state};
    return create_keyval(call, proto, keyval_out);
}

int myr_attr_comm_free_keyval(const char *call, int *keyval_io)
{
    return free_keyval(call, KV_COMM, keyval_io);
}

int myr_attr_comm_set(const char *call, MPI_Comm comm, int id, void *value)
{
    host h;
    int err = comm_entry(call, comm, &h);
    return err ? err : attr_set(call, &h, id, value);
}

int myr_attr_comm_get(const char *call, MPI_Comm comm, int id, void *value_out, int *flag)
{
    host h;
    int err = comm_entry(call, comm, &h);
    return err ? err : attr_get(call, &h, id, value_out, flag);
}

int myr_attr_comm_delete(const char *call, MPI_Comm comm, int id)
{
    host h;
    int err = comm_entry(call, comm, &h);
    return err ? err : attr_delete(call, &h, id);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    return myr_attr_comm_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn,
                                       comm_delete_attr_fn, comm_keyval, extra_state);
}
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                           int *comm_keyval, void *extra_state) MYR_PMPI(Comm_create_keyval);

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return myr_attr_comm_free_keyval("MPI_Comm_free_keyval", comm_keyval);
}
int MPI_Comm_free_keyval(int *comm_keyval) MYR_PMPI(Comm_free_keyval);

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return myr_attr_comm_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
    MYR_PMPI(Comm_set_attr);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return myr_attr_comm_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
    MYR_PMPI(Comm_get_attr);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return myr_attr_comm_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) MYR_PMPI(Comm_delete_attr);

/* ---- MPI entry points: datatypes ------------------------------------------ */

/* Any valid datatype, committed or not, predefined or derived. */
static int type_entry(const char *call, MPI_Datatype type, host *h)
{
    int err;
    myr_rank *self = myr_mpi_enter(call, &err);
    if (!self)
        return err;
    if (type == MPI_DATATYPE_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid datatype MPI_DATATYPE_NULL");
    if (!myr_datatype_valid(type))
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "invalid datatype handle %p (%s)", (void *)type,
                             myr_handle_problem(type));
    *h = type_host(type, self);
    return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    keyval proto = {.kind = KV_TYPE, .copy.type = type_copy_attr_fn,
                    .del.type = type_delete_attr_fn, .extra_state = extra_state};
    return create_keyval("MPI_Type_create_keyval", proto, type_keyval);
}
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn,
                           int *type_keyval, void *extra_state) MYR_PMPI(Type_create_keyval);

int PMPI_Type_free_keyval(int *type_keyval)
{
    return free_keyval("MPI_Type_free_keyval", KV_TYPE, type_keyval);
}
int MPI_Type_free_keyval(int *type_keyval) MYR_PMPI(Type_free_keyval);

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    host h;
    int err = type_entry(call, datatype, &h);
    return err ? err : attr_set(call, &h, type_keyval, attribute_val);
}
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
    MYR_PMPI(Type_set_attr);

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    host h;
    int err = type_entry(call, datatype, &h);
    return err ? err : attr_get(call, &h, type_keyval, attribute_val, flag);
}
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
    MYR_PMPI(Type_get_attr);

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    host h;
    int err = type_entry(call, datatype, &h);
    return err ? err : attr_delete(call, &h, type_keyval);
}
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) MYR_PMPI(Type_delete_attr);
