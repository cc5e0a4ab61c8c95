/*
 * p2p.c — MPI point-to-point entry points: checks, then core/p2p.
 *
 * Blocking calls keep their request on the stack: they do not return before
 * it completes, and a completer never touches a request after completing it.
 */
#include "core/p2p.h"
#include "mpi/mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* The calling rank when it may call MPI (between MPI_Init and
 * MPI_Finalize): one inline test; myr_mpi_enter decides and reports
 * everything else. */
static inline myr_rank *enter(const char *call, int *err)
{
    myr_rank *self = myr_rank_self_internal();
    if (__builtin_expect(self && self->init_state == 1, 1)) {
        atomic_store_explicit(&self->last_call, call, memory_order_relaxed);
        *err = MPI_SUCCESS;
        return self;
    }
    return myr_mpi_enter(call, err);
}

/* How many ranks a valid communicator's point-to-point calls may name. */
static inline int comm_size_known(MPI_Comm comm)
{
    return myr_comm_peer_count(comm);
}

/* Would every check of check_send/check_recv pass? The same rules without
 * a call, so that a valid call (nearly all of them) costs a few compares
 * instead of a third of a same-worker ping-pong; anything else, including
 * what this cannot decide, goes through the checkers, which have the last
 * word and build the error messages. */
static inline bool common_args_ok(const void *buf, int count, MPI_Datatype type,
                                  MPI_Comm comm)
{
    return comm && myr_handle_magic(comm) == MYR_MAGIC_COMM && count >= 0 && type &&
           myr_handle_magic(type) == MYR_MAGIC_TYPE && type->committed &&
           (buf || count == 0);
}

static inline bool send_args_ok(const void *buf, int count, MPI_Datatype type,
                                int dest, int tag, MPI_Comm comm)
{
    return common_args_ok(buf, count, type, comm) &&
           ((dest >= 0 && dest < comm_size_known(comm)) || dest == MPI_PROC_NULL) &&
           tag >= 0 && tag <= MYR_TAG_UB;
}

static inline bool recv_args_ok(const void *buf, int count, MPI_Datatype type,
                                int source, int tag, MPI_Comm comm)
{
    return common_args_ok(buf, count, type, comm) &&
           ((source >= 0 && source < comm_size_known(comm)) ||
            source == MPI_PROC_NULL || source == MPI_ANY_SOURCE) &&
           ((tag >= 0 && tag <= MYR_TAG_UB) || tag == MPI_ANY_TAG);
}

/* Checks shared by every send: comm, count, type, buffer, dest, tag. */
static int check_send_all(const char *call, myr_rank *self, const void *buf, int count,
                          MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_count(call, comm, "count", count)) ||
        (err = myr_check_type(call, comm, type)) ||
        (err = myr_check_buffer(call, comm, buf, count, type)) ||
        (err = myr_check_peer(call, comm, self, "destination", dest, MYR_ALLOW_PROC_NULL)) ||
        (err = myr_check_tag(call, comm, tag, false)))
        return err;
    return MPI_SUCCESS;
}

static int check_recv_all(const char *call, myr_rank *self, const void *buf, int count,
                          MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    int err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_count(call, comm, "count", count)) ||
        (err = myr_check_type(call, comm, type)) ||
        (err = myr_check_buffer(call, comm, buf, count, type)) ||
        (err = myr_check_peer(call, comm, self, "source", source,
                              MYR_ALLOW_ANY | MYR_ALLOW_PROC_NULL)) ||
        (err = myr_check_tag(call, comm, tag, true)))
        return err;
    return MPI_SUCCESS;
}

static inline int check_send(const char *call, myr_rank *self, const void *buf, int count,
                             MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (__builtin_expect(send_args_ok(buf, count, type, dest, tag, comm), 1))
        return MPI_SUCCESS;
    return check_send_all(call, self, buf, count, type, dest, tag, comm);
}

static inline int check_recv(const char *call, myr_rank *self, const void *buf, int count,
                             MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    if (__builtin_expect(recv_args_ok(buf, count, type, source, tag, comm), 1))
        return MPI_SUCCESS;
    return check_recv_all(call, self, buf, count, type, source, tag, comm);
}

static void describe_send(struct myr_mpi_request *r, const void *buf, int count,
                          MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          myr_send_mode mode)
{
    r->sbuf = buf;
    r->count = count;
    r->type = type;
    r->peer = dest;
    r->tag = tag;
    r->comm = comm;
    r->mode = (unsigned char)mode;
    if (r->heap)
        myr_comm_retain(comm);  /* dropped by myr_request_release */
}

static void describe_recv(struct myr_mpi_request *r, void *buf, int count,
                          MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    myr_request_set_recv(r, buf, count, type, source, tag, comm);
    if (r->heap)
        myr_comm_retain(comm);  /* dropped by myr_request_release */
}

static int send_failed(const char *call, MPI_Comm comm, myr_rank *self, int err)
{
    if (err == MPI_ERR_BUFFER)
        return myr_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "the attached buffer (%zu bytes, %zu in use) is too "
                             "small for this message plus MPI_BSEND_OVERHEAD",
                             self->bsend.size, atomic_load(&self->bsend.used));
    return myr_mpi_error(comm, err, call, "out of memory for the message envelope");
}

/* A blocking send that must wait for its receive: its own request, on the
 * stack (out of line: the common sends do not need it). */
static __attribute__((noinline)) int send_and_wait(myr_rank *self, const void *buf,
                                                   int count, MPI_Datatype type,
                                                   int dest, int tag, MPI_Comm comm,
                                                   myr_send_mode mode)
{
    struct myr_mpi_request r;
    myr_request_init_solo(&r, self, MYR_REQ_SEND);
    describe_send(&r, buf, count, type, dest, tag, comm, mode);
    int err = myr_p2p_start_send(&r);
    if (!err)
        myr_request_wait(self, &r);
    return err;
}

/* Inline in each mode's entry point, with its mode a constant. */
static inline __attribute__((always_inline)) int
blocking_send(const char *call, const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm, myr_send_mode mode)
{
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_send(call, self, buf, count, type, dest, tag, comm)))
        return err;
    err = myr_p2p_send_blocking(self, buf, count, type, dest, tag, comm, mode);
    if (__builtin_expect(err == MYR_P2P_NEEDS_REQUEST, 0))
        err = send_and_wait(self, buf, count, type, dest, tag, comm, mode);
    if (__builtin_expect(err != MPI_SUCCESS, 0))
        return send_failed(call, comm, self, err);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Send", buf, count, type, dest, tag, comm, MYR_MODE_STANDARD);
}
int MPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm) MYR_PMPI(Send);

int PMPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Bsend", buf, count, type, dest, tag, comm, MYR_MODE_BUFFERED);
}
int MPI_Bsend(const void *, int, MPI_Datatype, int, int, MPI_Comm) MYR_PMPI(Bsend);

int PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Ssend", buf, count, type, dest, tag, comm, MYR_MODE_SYNC);
}
int MPI_Ssend(const void *, int, MPI_Datatype, int, int, MPI_Comm) MYR_PMPI(Ssend);

int PMPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Rsend", buf, count, type, dest, tag, comm, MYR_MODE_READY);
}
int MPI_Rsend(const void *, int, MPI_Datatype, int, int, MPI_Comm) MYR_PMPI(Rsend);

/* Create a send request; start it unless `persistent`. */
static int make_send(const char *call, const void *buf, int count, MPI_Datatype type,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request,
                     myr_send_mode mode, bool persistent)
{
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_send(call, self, buf, count, type, dest, tag, comm)) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    struct myr_mpi_request *r = myr_request_new(self, MYR_REQ_SEND);
    if (!r)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a request");
    describe_send(r, buf, count, type, dest, tag, comm, mode);
    myr_datatype_retain(type);  /* MPI_Type_free may come before completion */
    r->persistent = persistent;
    if (!persistent) {
        r->active = true;
        if ((err = myr_p2p_start_send(r))) {
            myr_request_release(r);
            return send_failed(call, comm, self, err);
        }
    }
    *request = r;
    return MPI_SUCCESS;
}

#define SEND_VARIANT(Name, mode, persistent)                                          \
    int PMPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, \
                    MPI_Comm comm, MPI_Request *request)                              \
    {                                                                                 \
        return make_send("MPI_" #Name, buf, count, type, dest, tag, comm, request,   \
                         mode, persistent);                                           \
    }                                                                                 \
    int MPI_##Name(const void *, int, MPI_Datatype, int, int, MPI_Comm,               \
                   MPI_Request *) MYR_PMPI(Name);

SEND_VARIANT(Isend, MYR_MODE_STANDARD, false)
SEND_VARIANT(Ibsend, MYR_MODE_BUFFERED, false)
SEND_VARIANT(Issend, MYR_MODE_SYNC, false)
SEND_VARIANT(Irsend, MYR_MODE_READY, false)
SEND_VARIANT(Send_init, MYR_MODE_STANDARD, true)
SEND_VARIANT(Bsend_init, MYR_MODE_BUFFERED, true)
SEND_VARIANT(Ssend_init, MYR_MODE_SYNC, true)
SEND_VARIANT(Rsend_init, MYR_MODE_READY, true)

/* Raise the error a completed receive carries (truncation, a message
 * ending inside a basic element of the receive type). */
static int recv_result(const char *call, MPI_Comm comm, const MPI_Status *st)
{
    if (st->MPI_ERROR == MPI_ERR_TRUNCATE)
        return myr_mpi_error(comm, MPI_ERR_TRUNCATE, call,
                             "message of %lld bytes from rank %d (tag %d) truncated "
                             "to the receive buffer",
                             (long long)st->myr_bytes, st->MPI_SOURCE, st->MPI_TAG);
    if (st->MPI_ERROR == MPI_ERR_TYPE)
        return myr_mpi_error(comm, MPI_ERR_TYPE, call,
                             "message of %lld bytes from rank %d (tag %d) ends inside a "
                             "basic element of the receive type: the sender's and the "
                             "receiver's type signatures do not match",
                             (long long)st->myr_bytes, st->MPI_SOURCE, st->MPI_TAG);
    return st->MPI_ERROR;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Recv";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_recv(call, self, buf, count, type, source, tag, comm)))
        return err;
    _Alignas(64) struct myr_mpi_request r;   /* two lines (p2p.h) */
    myr_p2p_recv_blocking(self, &r, buf, count, type, source, tag, comm);
    myr_status_copy(status, &r.status);
    if (__builtin_expect(r.status.MPI_ERROR != MPI_SUCCESS, 0))
        return recv_result(call, comm, &r.status);
    return MPI_SUCCESS;
}
int MPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) MYR_PMPI(Recv);

static int make_recv(const char *call, void *buf, int count, MPI_Datatype type,
                     int source, int tag, MPI_Comm comm, MPI_Request *request,
                     bool persistent)
{
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_recv(call, self, buf, count, type, source, tag, comm)) ||
        (err = myr_check_pointer(call, comm, request, "request")))
        return err;
    struct myr_mpi_request *r = myr_request_new(self, MYR_REQ_RECV);
    if (!r)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a request");
    describe_recv(r, buf, count, type, source, tag, comm);
    myr_datatype_retain(type);  /* MPI_Type_free may come before completion */
    r->persistent = persistent;
    *request = r;
    if (!persistent) {
        r->active = true;
        myr_p2p_start_recv(r);
    }
    return MPI_SUCCESS;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return make_recv("MPI_Irecv", buf, count, type, source, tag, comm, request, false);
}
int MPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) MYR_PMPI(Irecv);

int PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return make_recv("MPI_Recv_init", buf, count, type, source, tag, comm, request, true);
}
int MPI_Recv_init(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *)
    MYR_PMPI(Recv_init);

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Sendrecv";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_send(call, self, sendbuf, sendcount, sendtype, dest, sendtag, comm)) ||
        (err = check_recv(call, self, recvbuf, recvcount, recvtype, source, recvtag, comm)))
        return err;
    struct myr_mpi_request rr, sr;
    myr_request_init_solo(&rr, self, MYR_REQ_RECV);
    describe_recv(&rr, recvbuf, recvcount, recvtype, source, recvtag, comm);
    myr_request_init_solo(&sr, self, MYR_REQ_SEND);
    describe_send(&sr, sendbuf, sendcount, sendtype, dest, sendtag, comm, MYR_MODE_STANDARD);
    myr_p2p_start_recv(&rr);  /* post first: a send to ourselves then matches */
    if ((err = myr_p2p_start_send(&sr))) {
        if (myr_p2p_cancel(&rr) == false)
            myr_request_wait(self, &rr);
        return send_failed(call, comm, self, err);
    }
    myr_request_wait(self, &sr);
    myr_request_wait(self, &rr);
    myr_status_copy(status, &rr.status);
    return recv_result(call, comm, &rr.status);
}
int MPI_Sendrecv(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
                 int, int, MPI_Comm, MPI_Status *) MYR_PMPI(Sendrecv);

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Sendrecv_replace";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_send(call, self, buf, count, type, dest, sendtag, comm)) ||
        (err = check_recv(call, self, buf, count, type, source, recvtag, comm)))
        return err;
    /* The outgoing data must be read before the incoming data lands. */
    size_t bytes = (size_t)count * (size_t)type->extent;
    void *copy = bytes ? malloc(bytes) : NULL;
    if (bytes && !copy)
        return myr_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory (%zu bytes)", bytes);
    if (bytes)
        memcpy(copy, buf, bytes);
    err = PMPI_Sendrecv(copy, count, type, dest, sendtag, buf, count, type, source,
                        recvtag, comm, status);
    free(copy);
    return err;
}
int MPI_Sendrecv_replace(void *, int, MPI_Datatype, int, int, int, int, MPI_Comm,
                         MPI_Status *) MYR_PMPI(Sendrecv_replace);

/* ---- probe ------------------------------------------------------------ */

static int check_probe(const char *call, myr_rank *self, int source, int tag, MPI_Comm comm)
{
    int err;
    if ((err = myr_check_comm(call, comm)) ||
        (err = myr_check_peer(call, comm, self, "source", source,
                              MYR_ALLOW_ANY | MYR_ALLOW_PROC_NULL)) ||
        (err = myr_check_tag(call, comm, tag, true)))
        return err;
    return MPI_SUCCESS;
}

static void proc_null_status(MPI_Status *status)
{
    MPI_Status st;
    myr_status_empty(&st);
    st.MPI_SOURCE = MPI_PROC_NULL;
    myr_status_copy(status, &st);
}

/* The four probes: `block` waits for a match, `take` removes it from the
 * queue into *message (matched probe); flag may be NULL when blocking. */
static int probe(const char *call, int source, int tag, MPI_Comm comm, bool block,
                 bool take, int *flag, MPI_Message *message, MPI_Status *status)
{
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_probe(call, self, source, tag, comm)) ||
        (!block && (err = myr_check_pointer(call, comm, flag, "flag"))) ||
        (take && (err = myr_check_pointer(call, comm, message, "message"))))
        return err;
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        if (take)
            *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    MPI_Status st;
    myr_envelope *e = NULL;
    bool found = myr_p2p_probe(self, comm, source, tag, block, take, &st, &e);
    if (flag)
        *flag = found;
    if (found) {
        if (take)
            *message = e;
        myr_status_copy(status, &st);
    } else {
        myr_ult_yield();  /* a polling loop must let the sender run */
    }
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, true, false, NULL, NULL, status);
}
int MPI_Probe(int, int, MPI_Comm, MPI_Status *) MYR_PMPI(Probe);

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe("MPI_Iprobe", source, tag, comm, false, false, flag, NULL, status);
}
int MPI_Iprobe(int, int, MPI_Comm, int *, MPI_Status *) MYR_PMPI(Iprobe);

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    return probe("MPI_Mprobe", source, tag, comm, true, true, NULL, message, status);
}
int MPI_Mprobe(int, int, MPI_Comm, MPI_Message *, MPI_Status *) MYR_PMPI(Mprobe);

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    return probe("MPI_Improbe", source, tag, comm, false, true, flag, message, status);
}
int MPI_Improbe(int, int, MPI_Comm, int *, MPI_Message *, MPI_Status *) MYR_PMPI(Improbe);

struct myr_mpi_message myr_mpi_message_no_proc = {.magic = MYR_MAGIC_MESSAGE};

static int check_message(const char *call, myr_rank *self, MPI_Message *message)
{
    (void)self;
    if (!message)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "message is NULL");
    if (*message == MPI_MESSAGE_NULL)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "invalid message handle MPI_MESSAGE_NULL");
    if (myr_handle_magic(*message) != MYR_MAGIC_MESSAGE)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "invalid message handle %p (%s; a message comes from "
                             "MPI_Mprobe/MPI_Improbe)",
                             (void *)*message, myr_handle_problem(*message));
    if (*message != MPI_MESSAGE_NO_PROC && (*message)->receiver != self)
        return myr_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "message was matched by another rank");
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
               MPI_Status *status)
{
    static const char call[] = "MPI_Mrecv";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_message(call, self, message)) ||
        (err = myr_check_count(call, MPI_COMM_WORLD, "count", count)) ||
        (err = myr_check_type(call, MPI_COMM_WORLD, type)) ||
        (err = myr_check_buffer(call, MPI_COMM_WORLD, buf, count, type)))
        return err;
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct myr_mpi_request r;
    myr_request_init(&r, self, MYR_REQ_RECV);
    describe_recv(&r, buf, count, type, (*message)->source, (*message)->tag, MPI_COMM_WORLD);
    myr_p2p_start_mrecv(&r, *message);
    *message = MPI_MESSAGE_NULL;
    myr_request_wait(self, &r);
    myr_status_copy(status, &r.status);
    return recv_result(call, MPI_COMM_WORLD, &r.status);
}
int MPI_Mrecv(void *, int, MPI_Datatype, MPI_Message *, MPI_Status *) MYR_PMPI(Mrecv);

int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
                MPI_Request *request)
{
    static const char call[] = "MPI_Imrecv";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = check_message(call, self, message)) ||
        (err = myr_check_count(call, MPI_COMM_WORLD, "count", count)) ||
        (err = myr_check_type(call, MPI_COMM_WORLD, type)) ||
        (err = myr_check_buffer(call, MPI_COMM_WORLD, buf, count, type)) ||
        (err = myr_check_pointer(call, MPI_COMM_WORLD, request, "request")))
        return err;
    struct myr_mpi_request *r = myr_request_new(self, MYR_REQ_RECV);
    if (!r)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                             "out of memory for a request");
    r->active = true;
    myr_datatype_retain(type);  /* MPI_Type_free may come before completion */
    if (*message == MPI_MESSAGE_NO_PROC) {
        describe_recv(r, buf, count, type, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD);
        myr_p2p_start_recv(r);
    } else {
        describe_recv(r, buf, count, type, (*message)->source, (*message)->tag,
                      MPI_COMM_WORLD);
        myr_p2p_start_mrecv(r, *message);
    }
    *message = MPI_MESSAGE_NULL;
    *request = r;
    return MPI_SUCCESS;
}
int MPI_Imrecv(void *, int, MPI_Datatype, MPI_Message *, MPI_Request *) MYR_PMPI(Imrecv);

/* ---- buffered sends ------------------------------------------------------ */

int PMPI_Buffer_attach(void *buffer, int size)
{
    static const char call[] = "MPI_Buffer_attach";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if (size < 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "invalid size %d (must be >= 0)", size);
    if (!buffer && size > 0)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call,
                             "buffer is NULL with size %d > 0", size);
    if (self->bsend.buffer)
        return myr_mpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call,
                             "a buffer is already attached (detach it first)");
    self->bsend.buffer = buffer;
    self->bsend.size = (size_t)size;
    return MPI_SUCCESS;
}
int MPI_Buffer_attach(void *, int) MYR_PMPI(Buffer_attach);

static bool bsend_drained(void *arg)
{
    myr_rank *self = arg;
    return atomic_load(&self->bsend.used) == 0;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char call[] = "MPI_Buffer_detach";
    int err;
    myr_rank *self = enter(call, &err);
    if (!self)
        return err;
    if ((err = myr_check_pointer(call, MPI_COMM_WORLD, buffer_addr, "buffer_addr")) ||
        (err = myr_check_pointer(call, MPI_COMM_WORLD, size, "size")))
        return err;
    /* Blocks until every buffered message has been delivered. */
    myr_wait_until(self, bsend_drained, self, &(myr_wait_note){.kind = MYR_WAIT_BSEND});
    *(void **)buffer_addr = self->bsend.buffer;
    *size = (int)self->bsend.size;
    self->bsend.buffer = NULL;
    self->bsend.size = 0;
    return MPI_SUCCESS;
}
int MPI_Buffer_detach(void *, int *) MYR_PMPI(Buffer_detach);
