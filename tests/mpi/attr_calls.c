/* attr_calls.c — attributes on communicators and datatypes: keyvals, the
 * copy and delete callbacks (when they run, with what, in which order, and
 * what their errors do), attributes per rank, MPI_Finalize's deletions, the
 * predefined attributes, and the error class of each bad argument (with
 * nothing lost). Usage: attr_calls CASE. */
#include <mpi.h>
#include <stdint.h>

#include "../check.h"

/* ---- a log of the callbacks (globals: per rank, the program's globals
 * being private to each rank) ----------------------------------------- */

typedef struct event {
    char what;        /* 'c' copy, 'd' delete */
    void *object;     /* the communicator or datatype passed */
    int keyval;
    void *value;
    void *extra;
} event;

static event events[64];
static int nevents;

/* What a keyval's recording callbacks do: their extra_state. */
typedef struct behaviour {
    int copy_rc;      /* returned by the copy callback */
    int copy_flag;    /* its flag */
    int delete_rc;    /* returned by the delete callback */
    int rank_seen;    /* MPI_Comm_rank of MPI_COMM_WORLD, asked from the delete callback */
} behaviour;

static void log_event(char what, void *object, int keyval, void *value, void *extra)
{
    CHECK(nevents < 64);
    events[nevents++] = (event){what, object, keyval, value, extra};
}

static void check_event(int i, char what, void *object, int keyval, void *value, void *extra)
{
    CHECK(i < nevents);
    CHECK(events[i].what == what);
    CHECK(events[i].object == object);
    CHECK(events[i].keyval == keyval);
    CHECK(events[i].value == value);
    CHECK(events[i].extra == extra);
}

/* A copy gives the value's address plus one (so the copy is recognisable). */
static int record_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                       int *flag)
{
    behaviour *b = extra;
    log_event('c', oldcomm, keyval, in, extra);
    void *copy = (char *)in + 1;
    memcpy(out, &copy, sizeof copy);
    *flag = b->copy_flag;
    return b->copy_rc;
}

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    behaviour *b = extra;
    log_event('d', comm, keyval, value, extra);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &b->rank_seen));   /* MPI is usable here */
    return b->delete_rc;
}

static int record_type_copy(MPI_Datatype oldtype, int keyval, void *extra, void *in,
                            void *out, int *flag)
{
    behaviour *b = extra;
    log_event('c', oldtype, keyval, in, extra);
    void *copy = (char *)in + 1;
    memcpy(out, &copy, sizeof copy);
    *flag = b->copy_flag;
    return b->copy_rc;
}

static int record_type_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    behaviour *b = extra;
    log_event('d', type, keyval, value, extra);
    return b->delete_rc;
}

static behaviour normal(void)
{
    return (behaviour){MPI_SUCCESS, 1, MPI_SUCCESS, -1};
}

static char values[32];   /* attribute values: addresses in here */
#define VAL(i) ((void *)&values[i])

static int world_rank(void)
{
    int r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    return r;
}

static int world_size(void)
{
    int s;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    return s;
}

static void *get(MPI_Comm comm, int keyval, int *flag)
{
    void *v = NULL;
    *flag = -1;
    CHECK_OK(MPI_Comm_get_attr(comm, keyval, &v, flag));
    return v;
}

static void check_attr(MPI_Comm comm, int keyval, void *want)
{
    int flag;
    void *v = get(comm, keyval, &flag);
    CHECK(flag == 1);
    CHECK(v == want);
}

static void check_no_attr(MPI_Comm comm, int keyval)
{
    int flag;
    (void)get(comm, keyval, &flag);
    CHECK(flag == 0);
}

static void *type_get(MPI_Datatype t, int keyval, int *flag)
{
    void *v = NULL;
    *flag = -1;
    CHECK_OK(MPI_Type_get_attr(t, keyval, &v, flag));
    return v;
}

/* ---- communicators ---------------------------------------------------- */

static void set_get_delete_run_the_delete_callback(void)
{
    behaviour b = normal();
    int k = MPI_KEYVAL_INVALID;
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &k, &b));
    CHECK(k != MPI_KEYVAL_INVALID && k > MPI_LASTUSEDCODE);
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm targets[] = {MPI_COMM_WORLD, MPI_COMM_SELF, c};
    for (int i = 0; i < 3; i++) {
        MPI_Comm t = targets[i];
        nevents = 0;
        check_no_attr(t, k);
        CHECK_OK(MPI_Comm_set_attr(t, k, VAL(1)));
        check_attr(t, k, VAL(1));
        CHECK(nevents == 0);
        /* Setting again deletes the old value first. */
        CHECK_OK(MPI_Comm_set_attr(t, k, VAL(2)));
        CHECK(nevents == 1);
        check_event(0, 'd', t, k, VAL(1), &b);
        check_attr(t, k, VAL(2));
        CHECK_OK(MPI_Comm_delete_attr(t, k));
        CHECK(nevents == 2);
        check_event(1, 'd', t, k, VAL(2), &b);
        check_no_attr(t, k);
        /* Deleting what is not there does nothing. */
        CHECK_OK(MPI_Comm_delete_attr(t, k));
        CHECK(nevents == 2);
        CHECK(b.rank_seen == world_rank());
    }
    /* Values are opaque pointers: NULL is a value too. */
    CHECK_OK(MPI_Comm_set_attr(c, k, NULL));
    check_attr(c, k, NULL);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(nevents == 3);
    CHECK(events[2].what == 'd' && events[2].value == NULL);
    CHECK_OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID);
}

/* MPI_COMM_DUP_FN copies the value, MPI_COMM_NULL_COPY_FN nothing, a
 * user's callback what it decides; free deletes newest first. */
static void dup_copies_as_the_copy_callbacks_decide(void)
{
    behaviour bdup = normal(), bnull = normal(), bmine = normal(), bno = normal();
    bno.copy_flag = 0;
    int kdup, knull, kmine, kno;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &kdup, &bdup));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &knull, &bnull));
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &kmine, &bmine));
    CHECK_OK(MPI_Comm_create_keyval(record_copy, MPI_COMM_NULL_DELETE_FN, &kno, &bno));
    CHECK(kdup != knull && knull != kmine && kmine != kno);
    MPI_Comm parents[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int p = 0; p < 2; p++) {
        MPI_Comm parent = parents[p], c, d;
        CHECK_OK(MPI_Comm_set_attr(parent, kdup, VAL(1)));
        CHECK_OK(MPI_Comm_set_attr(parent, knull, VAL(2)));
        CHECK_OK(MPI_Comm_set_attr(parent, kmine, VAL(3)));
        CHECK_OK(MPI_Comm_set_attr(parent, kno, VAL(4)));
        nevents = 0;
        CHECK_OK(MPI_Comm_dup(parent, &c));
        /* Copies run oldest first; only the user's callbacks log. */
        CHECK(nevents == 2);
        check_event(0, 'c', parent, kmine, VAL(3), &bmine);
        check_event(1, 'c', parent, kno, VAL(4), &bno);
        check_attr(c, kdup, VAL(1));
        check_no_attr(c, knull);
        check_attr(c, kmine, VAL(4));   /* VAL(3) + 1 */
        check_no_attr(c, kno);
        /* The parent keeps its own. */
        check_attr(parent, kdup, VAL(1));
        check_attr(parent, knull, VAL(2));
        check_attr(parent, kmine, VAL(3));
        /* Dup of a dup: the copies are copied (with_info too). */
        nevents = 0;
        CHECK_OK(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d));
        CHECK(nevents == 1);
        check_event(0, 'c', c, kmine, VAL(4), &bmine);
        check_attr(d, kdup, VAL(1));
        check_attr(d, kmine, VAL(5));
        /* Free deletes newest first: in c the copies were set kdup, kmine. */
        nevents = 0;
        MPI_Comm keep_c = c;
        CHECK_OK(MPI_Comm_free(&c));
        CHECK(nevents == 2);
        check_event(0, 'd', keep_c, kmine, VAL(4), &bmine);
        check_event(1, 'd', keep_c, kdup, VAL(1), &bdup);
        CHECK_OK(MPI_Comm_free(&d));
        CHECK(nevents == 4);
        /* Deleting the parent's: the callbacks see the parent. */
        nevents = 0;
        CHECK_OK(MPI_Comm_delete_attr(parent, kno));   /* MPI_COMM_NULL_DELETE_FN */
        CHECK_OK(MPI_Comm_delete_attr(parent, kmine));
        CHECK_OK(MPI_Comm_delete_attr(parent, knull));
        CHECK_OK(MPI_Comm_delete_attr(parent, kdup));
        CHECK(nevents == 3);
        check_event(0, 'd', parent, kmine, VAL(3), &bmine);
        check_event(1, 'd', parent, knull, VAL(2), &bnull);
        check_event(2, 'd', parent, kdup, VAL(1), &bdup);
    }
    /* The predefined callbacks are callable functions. */
    void *out = NULL;
    int flag = -1;
    CHECK_OK(MPI_COMM_DUP_FN(MPI_COMM_WORLD, kdup, NULL, VAL(7), &out, &flag));
    CHECK(flag == 1 && out == VAL(7));
    CHECK_OK(MPI_COMM_NULL_COPY_FN(MPI_COMM_WORLD, kdup, NULL, VAL(7), &out, &flag));
    CHECK(flag == 0);
    CHECK_OK(MPI_COMM_NULL_DELETE_FN(MPI_COMM_WORLD, kdup, VAL(7), NULL));
    int keys[] = {kdup, knull, kmine, kno};
    for (int i = 0; i < 4; i++)
        CHECK_OK(MPI_Comm_free_keyval(&keys[i]));
}

/* A copy callback's error fails the dup with that code; the copies made
 * before it are deleted again; the parent keeps everything. */
static void copy_callback_error_fails_the_dup(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    behaviour bok = normal(), bfail = normal(), blater = normal();
    bfail.copy_rc = MPI_ERR_INTERN;
    int kok, kfail, klater;
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &kok, &bok));
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &kfail, &bfail));
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &klater, &blater));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kok, VAL(1)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kfail, VAL(2)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, klater, VAL(3)));
    MPI_Comm c = MPI_COMM_NULL;
    nevents = 0;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_ERR_INTERN);
    CHECK(c == MPI_COMM_NULL);
    /* kok copied, kfail failed, klater never asked; kok's copy deleted. */
    CHECK(nevents == 3);
    check_event(0, 'c', MPI_COMM_WORLD, kok, VAL(1), &bok);
    check_event(1, 'c', MPI_COMM_WORLD, kfail, VAL(2), &bfail);
    CHECK(events[2].what == 'd' && events[2].keyval == kok && events[2].value == VAL(2) &&
          events[2].object != MPI_COMM_WORLD);
    check_attr(MPI_COMM_WORLD, kok, VAL(1));
    check_attr(MPI_COMM_WORLD, kfail, VAL(2));
    check_attr(MPI_COMM_WORLD, klater, VAL(3));
    /* Any code the callback returns is the call's. */
    bfail.copy_rc = 1234;
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c) == 1234);
    CHECK(c == MPI_COMM_NULL);
    /* Fixed, the dup works. */
    bfail.copy_rc = MPI_SUCCESS;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    check_attr(c, kok, VAL(2));
    check_attr(c, kfail, VAL(3));
    check_attr(c, klater, VAL(4));
    CHECK_OK(MPI_Comm_free(&c));
    int keys[] = {kok, kfail, klater};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]));
        CHECK_OK(MPI_Comm_free_keyval(&keys[i]));
    }
}

/* A delete callback's error fails delete_attr, set_attr (replacing) and
 * MPI_Comm_free with that code, and the attribute (and the communicator)
 * stay as they were. */
static void delete_callback_error_keeps_the_attribute(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    behaviour b = normal(), bother = normal();
    int k, kother;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k, &b));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &kother, &bother));
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_attr(c, kother, VAL(9)));
    CHECK_OK(MPI_Comm_set_attr(c, k, VAL(1)));
    b.delete_rc = MPI_ERR_OTHER;
    nevents = 0;
    CHECK(MPI_Comm_delete_attr(c, k) == MPI_ERR_OTHER);
    check_attr(c, k, VAL(1));
    CHECK(MPI_Comm_set_attr(c, k, VAL(2)) == MPI_ERR_OTHER);
    check_attr(c, k, VAL(1));
    MPI_Comm keep = c;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_OTHER);
    CHECK(c == keep);
    /* Newest first: k's callback failed before kother's was called. */
    CHECK(nevents == 3);
    for (int i = 0; i < 3; i++)
        check_event(i, 'd', c, k, VAL(1), &b);
    check_attr(c, kother, VAL(9));
    int size;
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK(size == world_size());
    CHECK_OK(MPI_Barrier(c));
    b.delete_rc = MPI_SUCCESS;
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL);
    CHECK(nevents == 5);
    check_event(3, 'd', keep, k, VAL(1), &b);
    check_event(4, 'd', keep, kother, VAL(9), &bother);
    CHECK_OK(MPI_Comm_free_keyval(&k));
    CHECK_OK(MPI_Comm_free_keyval(&kother));
}

/* MPI 3.1 6.7.2: a freed keyval lives on in the attributes that use it. */
static void freed_keyval_lives_while_attributes_use_it(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    behaviour b = normal();
    int k, saved;
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &k, &b));
    saved = k;
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, VAL(1)));
    CHECK_OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID);
    check_attr(MPI_COMM_WORLD, saved, VAL(1));
    /* No new attribute with it, nor a second free. */
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, saved, VAL(2)) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, VAL(2)) == MPI_ERR_KEYVAL);
    k = saved;
    CHECK(MPI_Comm_free_keyval(&k) == MPI_ERR_KEYVAL);
    CHECK(k == saved);
    check_attr(MPI_COMM_WORLD, saved, VAL(1));
    /* Its callbacks still run. */
    nevents = 0;
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK(nevents == 1);
    check_event(0, 'c', MPI_COMM_WORLD, saved, VAL(1), &b);
    check_attr(c, saved, VAL(2));
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(nevents == 2);
    check_event(1, 'd', events[1].object, saved, VAL(2), &b);
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved));
    CHECK(nevents == 3);
    check_event(2, 'd', MPI_COMM_WORLD, saved, VAL(1), &b);
    /* The last attribute gone, so is the keyval. */
    int flag;
    void *v;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved) == MPI_ERR_KEYVAL);
    /* Its id is not reused at once. */
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &k, &b));
    CHECK(k != saved);
    CHECK_OK(MPI_Comm_free_keyval(&k));
}

/* Attributes are per rank, on MPI_COMM_WORLD and on every communicator;
 * keyvals of different ranks never collide, and one keyval can be used by
 * every rank (as when ranks share a library's static keyval). */
static void attributes_are_per_rank(void)
{
    int me = world_rank(), n = world_size();
    behaviour b = normal();
    int k;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k, &b));
    if (me == 0) {
        int *ids = malloc((size_t)n * sizeof *ids);
        CHECK(ids != NULL);
        ids[0] = k;
        for (int r = 1; r < n; r++)
            CHECK_OK(MPI_Recv(&ids[r], 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                CHECK(ids[i] != ids[j]);
        free(ids);
    } else {
        CHECK_OK(MPI_Send(&k, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    }
    int shared = MPI_KEYVAL_INVALID;
    static behaviour bshared;   /* rank 0's extra_state, shared by reference */
    if (me == 0) {
        bshared = normal();
        CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &shared,
                                        &bshared));
    }
    CHECK_OK(MPI_Bcast(&shared, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    /* Many rounds, so that ranks on both workers race for the lock. */
    int *mine = malloc(sizeof *mine);
    CHECK(mine != NULL);
    *mine = me;
    for (int round = 0; round < 50; round++) {
        nevents = 0;   /* replacing runs k's delete callback: not checked here */
        void *tag = (void *)(intptr_t)(me * 100 + round + 1);
        CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, mine));
        CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, shared, tag));
        CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, shared, tag));
        CHECK_OK(MPI_Comm_set_attr(c, shared, tag));
        CHECK_OK(MPI_Comm_set_attr(c, k, tag));
        check_attr(MPI_COMM_WORLD, k, mine);
        check_attr(MPI_COMM_WORLD, shared, tag);
        check_attr(MPI_COMM_SELF, shared, tag);
        check_attr(c, shared, tag);
        check_attr(c, k, tag);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int flag;
    int *v = get(MPI_COMM_WORLD, k, &flag);
    CHECK(flag && v == mine && *v == me);
    check_attr(MPI_COMM_WORLD, shared, (void *)(intptr_t)(me * 100 + 50));
    /* A dup of MPI_COMM_WORLD copies the caller's attributes only. */
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    check_attr(d, k, mine);
    check_attr(d, shared, (void *)(intptr_t)(me * 100 + 50));
    /* Each rank's deletions run its own callbacks, once per attribute. */
    nevents = 0;
    CHECK_OK(MPI_Comm_free(&d));
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k));
    CHECK(nevents == 2);
    CHECK(events[0].value == mine && events[1].value == mine);
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, shared));
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, shared));
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(nevents == 3);
    CHECK(events[2].value == (void *)(intptr_t)(me * 100 + 50) && events[2].keyval == k);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK_OK(MPI_Comm_free_keyval(&shared));
    CHECK_OK(MPI_Comm_free_keyval(&k));
    free(mine);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, in reverse order
 * of setting, then MPI_COMM_WORLD's, then those on predefined datatypes;
 * callbacks may call MPI; a failing one does not stop the others and
 * MPI_Finalize returns its code. (This case finalizes itself.) */
static void finalize_deletes_self_attributes_first_in_reverse_order(void)
{
    static behaviour b, bfail, bt;
    b = normal();
    bfail = normal();
    bt = normal();
    bfail.delete_rc = MPI_ERR_INTERN;
    int k1, kfail, k2, k3, k4, kt;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k1, &b));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &kfail, &bfail));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k2, &b));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k3, &b));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k4, &b));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_type_delete, &kt, &bt));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k4, VAL(4)));   /* WORLD's, set first */
    CHECK_OK(MPI_Type_set_attr(MPI_INT, kt, VAL(5)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k1, VAL(1)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kfail, VAL(9)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k2, VAL(0)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k3, VAL(3)));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k2, VAL(2)));   /* keeps its place */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int me = world_rank();
    nevents = 0;
    b.rank_seen = -1;
    CHECK(MPI_Finalize() == MPI_ERR_INTERN);
    CHECK(nevents == 6);
    check_event(0, 'd', MPI_COMM_SELF, k3, VAL(3), &b);
    check_event(1, 'd', MPI_COMM_SELF, k2, VAL(2), &b);
    check_event(2, 'd', MPI_COMM_SELF, kfail, VAL(9), &bfail);
    check_event(3, 'd', MPI_COMM_SELF, k1, VAL(1), &b);
    check_event(4, 'd', MPI_COMM_WORLD, k4, VAL(4), &b);
    check_event(5, 'd', MPI_INT, kt, VAL(5), &bt);
    CHECK(b.rank_seen == me);
    int finalized = 0;
    CHECK_OK(MPI_Finalized(&finalized));
    CHECK(finalized);
}

/* ---- datatypes ---------------------------------------------------------- */

static void type_attributes_follow_dup_and_free(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    behaviour bdup = normal(), bnull = normal(), bmine = normal();
    int kdup, knull, kmine, flag;
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_type_delete, &kdup, &bdup));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_type_delete, &knull, &bnull));
    CHECK_OK(MPI_Type_create_keyval(record_type_copy, record_type_delete, &kmine, &bmine));
    MPI_Datatype t, u;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));   /* uncommitted is fine */
    CHECK_OK(MPI_Type_set_attr(t, kdup, VAL(1)));
    CHECK_OK(MPI_Type_set_attr(t, knull, VAL(2)));
    CHECK_OK(MPI_Type_set_attr(t, kmine, VAL(3)));
    nevents = 0;
    CHECK_OK(MPI_Type_dup(t, &u));
    CHECK(nevents == 1);
    check_event(0, 'c', t, kmine, VAL(3), &bmine);
    CHECK(type_get(u, kdup, &flag) == VAL(1) && flag == 1);
    (void)type_get(u, knull, &flag);
    CHECK(flag == 0);
    CHECK(type_get(u, kmine, &flag) == VAL(4) && flag == 1);
    CHECK(type_get(t, kmine, &flag) == VAL(3) && flag == 1);
    /* Replacing and deleting run the delete callback. */
    CHECK_OK(MPI_Type_set_attr(u, kdup, VAL(6)));
    CHECK(nevents == 2);
    check_event(1, 'd', u, kdup, VAL(1), &bdup);
    CHECK_OK(MPI_Type_delete_attr(t, knull));
    CHECK(nevents == 3);
    check_event(2, 'd', t, knull, VAL(2), &bnull);
    (void)type_get(t, knull, &flag);
    CHECK(flag == 0);
    /* Free: newest first. */
    nevents = 0;
    MPI_Datatype keep_u = u;
    CHECK_OK(MPI_Type_free(&u));
    CHECK(nevents == 2);
    check_event(0, 'd', keep_u, kmine, VAL(4), &bmine);
    check_event(1, 'd', keep_u, kdup, VAL(6), &bdup);

    /* A copy error fails the dup; a delete error fails the free. */
    bmine.copy_rc = MPI_ERR_TYPE;
    nevents = 0;
    CHECK(MPI_Type_dup(t, &u) == MPI_ERR_TYPE);
    CHECK(nevents == 2);   /* kdup's copy (DUP_FN, silent) deleted again */
    check_event(0, 'c', t, kmine, VAL(3), &bmine);
    CHECK(events[1].what == 'd' && events[1].keyval == kdup && events[1].value == VAL(1) &&
          events[1].object != t);
    bmine.copy_rc = MPI_SUCCESS;
    bmine.delete_rc = MPI_ERR_OTHER;
    MPI_Datatype keep_t = t;
    CHECK(MPI_Type_free(&t) == MPI_ERR_OTHER);
    CHECK(t == keep_t);
    CHECK(type_get(t, kdup, &flag) == VAL(1) && flag == 1);
    int size;
    CHECK_OK(MPI_Type_size(t, &size));
    CHECK(size == 2 * (int)sizeof(int));
    bmine.delete_rc = MPI_SUCCESS;
    nevents = 0;
    CHECK_OK(MPI_Type_free(&t));
    CHECK(nevents == 2);
    check_event(0, 'd', keep_t, kmine, VAL(3), &bmine);
    check_event(1, 'd', keep_t, kdup, VAL(1), &bdup);

    /* Predefined types carry attributes too, each its own (per rank). */
    CHECK_OK(MPI_Type_set_attr(MPI_INT, kdup, VAL(7)));
    CHECK_OK(MPI_Type_set_attr(MPI_DOUBLE, kmine, VAL(8)));
    CHECK(type_get(MPI_INT, kdup, &flag) == VAL(7) && flag == 1);
    (void)type_get(MPI_DOUBLE, kdup, &flag);
    CHECK(flag == 0);
    (void)type_get(MPI_INT, kmine, &flag);
    CHECK(flag == 0);
    nevents = 0;
    CHECK_OK(MPI_Type_dup(MPI_INT, &u));
    CHECK(nevents == 0);
    CHECK(type_get(u, kdup, &flag) == VAL(7) && flag == 1);
    CHECK_OK(MPI_Type_free(&u));
    CHECK_OK(MPI_Type_delete_attr(MPI_INT, kdup));
    CHECK_OK(MPI_Type_delete_attr(MPI_DOUBLE, kmine));
    CHECK(nevents == 3);
    check_event(1, 'd', MPI_INT, kdup, VAL(7), &bdup);
    check_event(2, 'd', MPI_DOUBLE, kmine, VAL(8), &bmine);
    /* The predefined callbacks are callable functions. */
    void *out = NULL;
    CHECK_OK(MPI_TYPE_DUP_FN(MPI_INT, kdup, NULL, VAL(7), &out, &flag));
    CHECK(flag == 1 && out == VAL(7));
    CHECK_OK(MPI_TYPE_NULL_COPY_FN(MPI_INT, kdup, NULL, VAL(7), &out, &flag));
    CHECK(flag == 0);
    CHECK_OK(MPI_TYPE_NULL_DELETE_FN(MPI_INT, kdup, VAL(7), NULL));
    int keys[] = {kdup, knull, kmine};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(MPI_Type_free_keyval(&keys[i]));
        CHECK(keys[i] == MPI_KEYVAL_INVALID);
    }
}

/* ---- predefined attributes ---------------------------------------------- */

static void predefined_attributes_have_the_job_values(void)
{
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF, c};
    for (int i = 0; i < 3; i++) {
        int flag, *v;
        v = get(comms[i], MPI_TAG_UB, &flag);
        CHECK(flag && *v == 0x7fffffff);
        v = get(comms[i], MPI_HOST, &flag);
        CHECK(flag && *v == MPI_PROC_NULL);
        v = get(comms[i], MPI_IO, &flag);
        CHECK(flag && *v == MPI_ANY_SOURCE);
        v = get(comms[i], MPI_WTIME_IS_GLOBAL, &flag);
        CHECK(flag && *v == 1);
        v = get(comms[i], MPI_APPNUM, &flag);
        CHECK(flag && *v == 0);
        v = get(comms[i], MPI_UNIVERSE_SIZE, &flag);
        CHECK(flag && *v == world_size());
        v = get(comms[i], MPI_LASTUSEDCODE, &flag);
        CHECK(flag && *v == MPI_ERR_LASTCODE);
    }
    /* MPI_TAG_UB is a tag point-to-point accepts. */
    int flag, *ub = get(MPI_COMM_WORLD, MPI_TAG_UB, &flag), me = world_rank(), x = me, y = -1;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, me, *ub, &y, 1, MPI_INT, me, *ub, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    CHECK(y == me);
    /* They are read-only. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    for (int k = MPI_TAG_UB; k <= MPI_LASTUSEDCODE; k++) {
        int key = k;
        void *v;
        CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, &x) == MPI_ERR_KEYVAL);
        CHECK(MPI_Comm_set_attr(c, k, &x) == MPI_ERR_KEYVAL);
        CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k) == MPI_ERR_KEYVAL);
        CHECK(MPI_Comm_free_keyval(&key) == MPI_ERR_KEYVAL);
        CHECK(key == k);
        CHECK(MPI_Type_get_attr(MPI_INT, k, &v, &flag) == MPI_ERR_KEYVAL);
    }
    ub = get(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    CHECK(flag && *ub == 0x7fffffff);
    CHECK_OK(MPI_Comm_free(&c));
}

/* ---- bad arguments ---------------------------------------------------- */

static void bad_arguments_return_error_classes(void)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    behaviour b = normal();
    int kc, kt, k = -7, flag = -1;
    void *v = NULL;
    int garbage[8] = {0};
    MPI_Comm bad_comm = (MPI_Comm)(void *)garbage;
    MPI_Datatype bad_type = (MPI_Datatype)(void *)garbage;
    CHECK_OK(MPI_Comm_create_keyval(record_copy, record_delete, &kc, &b));
    CHECK_OK(MPI_Type_create_keyval(record_type_copy, record_type_delete, &kt, &b));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kc, VAL(1)));
    CHECK_OK(MPI_Type_set_attr(MPI_INT, kt, VAL(2)));
    nevents = 0;

    CHECK(MPI_Comm_create_keyval(NULL, record_delete, &k, &b) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_keyval(record_copy, NULL, &k, &b) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_keyval(record_copy, record_delete, NULL, &b) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_keyval(NULL, record_type_delete, &k, &b) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_keyval(record_type_copy, NULL, &k, &b) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_keyval(record_type_copy, record_type_delete, NULL, &b) ==
          MPI_ERR_ARG);
    CHECK(k == -7);

    int bad_keys[] = {MPI_KEYVAL_INVALID, 0, -5, 12345678, 63, kt};
    for (int i = 0; i < 6; i++) {
        CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, bad_keys[i], VAL(3)) == MPI_ERR_KEYVAL);
        CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, bad_keys[i], &v, &flag) == MPI_ERR_KEYVAL);
        CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, bad_keys[i]) == MPI_ERR_KEYVAL);
        int key = bad_keys[i];
        CHECK(MPI_Comm_free_keyval(&key) == MPI_ERR_KEYVAL);
        CHECK(key == bad_keys[i]);
    }
    int bad_type_keys[] = {MPI_KEYVAL_INVALID, 0, 12345678, kc, MPI_TAG_UB};
    for (int i = 0; i < 5; i++) {
        CHECK(MPI_Type_set_attr(MPI_INT, bad_type_keys[i], VAL(3)) == MPI_ERR_KEYVAL);
        CHECK(MPI_Type_get_attr(MPI_INT, bad_type_keys[i], &v, &flag) == MPI_ERR_KEYVAL);
        CHECK(MPI_Type_delete_attr(MPI_INT, bad_type_keys[i]) == MPI_ERR_KEYVAL);
        int key = bad_type_keys[i];
        CHECK(MPI_Type_free_keyval(&key) == MPI_ERR_KEYVAL);
        CHECK(key == bad_type_keys[i]);
    }
    CHECK(MPI_Comm_set_attr(MPI_COMM_NULL, kc, VAL(3)) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_attr(bad_comm, kc, VAL(3)) == MPI_ERR_COMM);
    CHECK(MPI_Comm_get_attr(MPI_COMM_NULL, kc, &v, &flag) == MPI_ERR_COMM);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_NULL, kc) == MPI_ERR_COMM);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, kc, NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, kc, &v, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Type_set_attr(MPI_DATATYPE_NULL, kt, VAL(3)) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_attr(bad_type, kt, &v, &flag) == MPI_ERR_TYPE);
    CHECK(MPI_Type_delete_attr(MPI_DATATYPE_NULL, kt) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_attr(MPI_INT, kt, NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_attr(MPI_INT, kt, &v, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_free_keyval(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_free_keyval(NULL) == MPI_ERR_ARG);
    CHECK(v == NULL && flag == -1);

    /* Double free: the second is an error (the first made it invalid). */
    int k2, saved;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    saved = k2;
    CHECK_OK(MPI_Comm_free_keyval(&k2));
    CHECK(MPI_Comm_free_keyval(&k2) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_free_keyval(&saved) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, VAL(3)) == MPI_ERR_KEYVAL);

    /* Nothing was lost, and no callback ran. */
    CHECK(nevents == 0);
    check_attr(MPI_COMM_WORLD, kc, VAL(1));
    CHECK(type_get(MPI_INT, kt, &flag) == VAL(2) && flag == 1);
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kc));
    CHECK_OK(MPI_Type_delete_attr(MPI_INT, kt));
    CHECK(nevents == 2);
    CHECK_OK(MPI_Comm_free_keyval(&kc));
    CHECK_OK(MPI_Type_free_keyval(&kt));
}

/* The default handler ends the job with one line naming the keyval. */
static void wrong_kind_keyval_is_fatal(void)
{
    int kt;
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    if (world_rank() == 0)
        MPI_Comm_set_attr(MPI_COMM_WORLD, kt, NULL);
    CHECK_OK(MPI_Type_free_keyval(&kt));
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                        int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_INTERN;
}

static void copy_callback_error_is_fatal(void)
{
    int k;
    CHECK_OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k, NULL));
    MPI_Comm c;
    if (world_rank() == 0)
        MPI_Comm_dup(MPI_COMM_SELF, &c);
    CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, k));
    CHECK_OK(MPI_Comm_free_keyval(&k));
}

/* Creating and freeing keyvals forever keeps the ids (and the table
 * behind them) bounded, and a reused id never finds an attribute set
 * under the keyval that had it before. Every rank does this at once, so
 * ids go from one rank to another too. */
static void freed_keyvals_are_reused(void)
{
    enum { ROUNDS = 20000 };
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Datatype t;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    int kept, bound = 0, flag;
    void *v;
    /* A freed keyval that an attribute still uses keeps its id throughout. */
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kept,
                                    NULL));
    int kept_id = kept;
    CHECK_OK(MPI_Comm_set_attr(c, kept, VAL(7)));
    CHECK_OK(MPI_Comm_free_keyval(&kept));
    for (int i = 0; i < ROUNDS; i++) {
        int k, tk;
        CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k,
                                        NULL));
        CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk,
                                        NULL));
        CHECK(k != kept_id && tk != kept_id);
        int id = k > tk ? k : tk;
        bound = id > bound ? id : bound;
        /* Whatever an earlier keyval with this id had set is gone. */
        CHECK_OK(MPI_Comm_get_attr(c, k, &v, &flag));
        CHECK(!flag);
        CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag));
        CHECK(!flag);
        CHECK_OK(MPI_Type_get_attr(t, tk, &v, &flag));
        CHECK(!flag);
        CHECK_OK(MPI_Type_get_attr(MPI_INT, tk, &v, &flag));
        CHECK(!flag);
        CHECK_OK(MPI_Comm_set_attr(c, k, VAL(i % 8)));
        CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, VAL(i % 8)));
        CHECK_OK(MPI_Type_set_attr(t, tk, VAL(i % 8)));
        CHECK_OK(MPI_Type_set_attr(MPI_INT, tk, VAL(i % 8)));
        /* Freed while in use; the ids go once the attributes do. */
        int k_id = k, tk_id = tk;
        CHECK_OK(MPI_Comm_free_keyval(&k));
        CHECK_OK(MPI_Type_free_keyval(&tk));
        CHECK_OK(MPI_Comm_delete_attr(c, k_id));
        CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_id));
        CHECK_OK(MPI_Type_delete_attr(t, tk_id));
        CHECK_OK(MPI_Type_delete_attr(MPI_INT, tk_id));
    }
    /* A few hundred ids at most for the ranks' 2 * ROUNDS keyvals each
     * (without reuse: 2 * ROUNDS * ranks). */
    CHECK(bound < 1000);
    CHECK_OK(MPI_Comm_get_attr(c, kept_id, &v, &flag));
    CHECK(flag && v == VAL(7));
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Type_free(&t));
}

static const test_case cases[] = {
    {"set_get_delete_run_the_delete_callback", set_get_delete_run_the_delete_callback},
    {"dup_copies_as_the_copy_callbacks_decide", dup_copies_as_the_copy_callbacks_decide},
    {"copy_callback_error_fails_the_dup", copy_callback_error_fails_the_dup},
    {"delete_callback_error_keeps_the_attribute", delete_callback_error_keeps_the_attribute},
    {"freed_keyval_lives_while_attributes_use_it", freed_keyval_lives_while_attributes_use_it},
    {"attributes_are_per_rank", attributes_are_per_rank},
    {"finalize_deletes_self_attributes_first_in_reverse_order",
     finalize_deletes_self_attributes_first_in_reverse_order},
    {"type_attributes_follow_dup_and_free", type_attributes_follow_dup_and_free},
    {"predefined_attributes_have_the_job_values", predefined_attributes_have_the_job_values},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"freed_keyvals_are_reused", freed_keyvals_are_reused},
    {"wrong_kind_keyval_is_fatal", wrong_kind_keyval_is_fatal},
    {"copy_callback_error_is_fatal", copy_callback_error_is_fatal},
};

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rc = RUN_TEST_CASES(argc, argv, cases);
    int finalized = 0;
    CHECK_OK(MPI_Finalized(&finalized));
    if (!finalized)   /* one case finalizes itself */
        CHECK_OK(MPI_Finalize());
    return rc;
}
