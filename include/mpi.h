/*
 * mpi.h — Myriad's MPI interface (MPI 3.1 names, our own values).
 *
 * Handles are pointers to opaque objects; the predefined ones are addresses
 * of objects exported by libmyriad. C99 and C++ compatible. Every MPI_X is
 * also available as PMPI_X for profiling tools (MPI_X is a weak alias).
 *
 * Ranks are user-level threads of one process: Myriad's runtime owns the
 * process's entry and runs the program's main once per rank. Programs are
 * linked (by mpicc) with -Wl,--wrap=__libc_start_main, so the program's
 * main keeps its name and its C/C++ semantics (see src/launch/launch.h).
 */
#ifndef MYRIAD_MPI_H
#define MYRIAD_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "myr_ult.h"  /* per-ULT errno; the ULT API for tasks in a rank */

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define MYRIAD_VERSION "0.1.0"

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct myr_mpi_comm *MPI_Comm;
typedef struct myr_mpi_datatype *MPI_Datatype;
typedef struct myr_mpi_request *MPI_Request;
typedef struct myr_mpi_op *MPI_Op;
typedef struct myr_mpi_errhandler *MPI_Errhandler;
typedef struct myr_mpi_group *MPI_Group;
typedef struct myr_mpi_info *MPI_Info;
typedef struct myr_mpi_session *MPI_Session;   /* MPI 4.0 sessions */
typedef struct myr_mpi_message *MPI_Message;
/* Windows and files: declared so that programs naming them compile; the
 * calls fail with MPI_ERR_UNSUPPORTED_OPERATION until they are
 * implemented (docs/mpi-coverage.md), so no such object exists yet. */
typedef struct myr_mpi_win *MPI_Win;
typedef struct myr_mpi_file *MPI_File;
/* The tools information interface (MPI 3.1, 14.3). */
typedef struct myr_mpi_t_enum *MPI_T_enum;
typedef struct myr_mpi_t_cvar_handle *MPI_T_cvar_handle;
typedef struct myr_mpi_t_pvar_handle *MPI_T_pvar_handle;
typedef struct myr_mpi_t_pvar_session *MPI_T_pvar_session;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int myr_cancelled;
    MPI_Count myr_bytes;  /* bytes received (count * type size) */
} MPI_Status;

/* The status of Fortran's mpi_f08 module, as C sees it (MPI 3.1, 17.2.5):
 * the public fields, then MPI_Status's other two as Fortran integers. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint myr_internal[3];
} MPI_F08_status;

/* The objects behind predefined handles are libmyriad's and must be
 * reached through the GOT. gcc on x86 otherwise reaches a library's data
 * from an executable built -fPIE (Debian's default, and what CMake's
 * FindMPI compiles with) PC-relative, through a COPY relocation: the
 * program then holds its own copy of the object, a private copy of the
 * program (one per rank, src/launch/privatize.h) holds another, and
 * MPI_INT would not be one handle across ranks. gcc never assumes that a
 * weak reference binds locally, so it goes through the GOT; libmyriad.so
 * defines every one of them. (gcc 12's nodirect_extern_access would say
 * so directly, but it marks the whole executable as having no COPY
 * relocations at all, which breaks the program's own -fPIE references to
 * libc's stdout.) Clang and other targets use the GOT already. Not
 * applied inside libmyriad, which defines the objects. */
#if defined(__GNUC__) && !defined(__clang__) && \
    (defined(__x86_64__) || defined(__i386__)) && !defined(MYR_BUILDING_LIBMYRIAD)
#define MYR_HANDLE_OBJECT __attribute__((weak))
#else
#define MYR_HANDLE_OBJECT
#endif

#ifdef __cplusplus
#define MYR_PREDEFINED(type, object) (reinterpret_cast<type>(&(object)))
#else
#define MYR_PREDEFINED(type, object) ((type)&(object))
#endif

/* Null handles and special values. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
extern MYR_HANDLE_OBJECT struct myr_mpi_message myr_mpi_message_no_proc;
#define MPI_MESSAGE_NO_PROC MYR_PREDEFINED(MPI_Message, myr_mpi_message_no_proc)

#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_BSEND_OVERHEAD 64
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Communicators and error handlers. */
extern MYR_HANDLE_OBJECT struct myr_mpi_comm myr_mpi_comm_world, myr_mpi_comm_self;
#define MPI_COMM_WORLD MYR_PREDEFINED(MPI_Comm, myr_mpi_comm_world)
#define MPI_COMM_SELF MYR_PREDEFINED(MPI_Comm, myr_mpi_comm_self)
extern MYR_HANDLE_OBJECT struct myr_mpi_errhandler myr_mpi_errors_are_fatal, myr_mpi_errors_return;
#define MPI_ERRORS_ARE_FATAL MYR_PREDEFINED(MPI_Errhandler, myr_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN MYR_PREDEFINED(MPI_Errhandler, myr_mpi_errors_return)

/* Groups and communicator comparison. */
extern MYR_HANDLE_OBJECT struct myr_mpi_group myr_mpi_group_empty;
#define MPI_GROUP_EMPTY MYR_PREDEFINED(MPI_Group, myr_mpi_group_empty)
/* MPI_Topo_test */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
/* Distinct sentinels of MPI_Dist_graph_create(_adjacent)'s weights. */
extern MYR_HANDLE_OBJECT int myr_mpi_unweighted, myr_mpi_weights_empty;
#define MPI_UNWEIGHTED (&myr_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY (&myr_mpi_weights_empty)
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
/* MPI_Comm_split_type: collocated ranks (those of this OS process, today
 * every rank of the job). */
#define MPI_COMM_TYPE_SHARED 1
#define MPIX_COMM_TYPE_PROCESS 2

/* Info objects: MPI_INFO_ENV holds what the job was started with. */
extern MYR_HANDLE_OBJECT struct myr_mpi_info myr_mpi_info_env;
#define MPI_INFO_ENV MYR_PREDEFINED(MPI_Info, myr_mpi_info_env)

/* Attribute keys. The predefined ones are cached on every communicator
 * (values are pointers to int); user keyvals are above them. */
#define MPI_KEYVAL_INVALID (-1)
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM 5
#define MPI_UNIVERSE_SIZE 6
#define MPI_LASTUSEDCODE 7

/* Error classes (MPI 3.1, section 8.4). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_RMA_RANGE 38
#define MPI_ERR_RMA_ATTACH 39
#define MPI_ERR_RMA_SHARED 40
#define MPI_ERR_RMA_FLAVOR 41
#define MPI_ERR_FILE 42
#define MPI_ERR_NOT_SAME 43
#define MPI_ERR_AMODE 44
#define MPI_ERR_UNSUPPORTED_DATAREP 45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE 47
#define MPI_ERR_FILE_EXISTS 48
#define MPI_ERR_BAD_FILE 49
#define MPI_ERR_ACCESS 50
#define MPI_ERR_NO_SPACE 51
#define MPI_ERR_QUOTA 52
#define MPI_ERR_READ_ONLY 53
#define MPI_ERR_FILE_IN_USE 54
#define MPI_ERR_DUP_DATAREP 55
#define MPI_ERR_CONVERSION 56
#define MPI_ERR_IO 57
/* The tools interface's return codes are error classes too. */
#define MPI_T_ERR_MEMORY 58
#define MPI_T_ERR_NOT_INITIALIZED 59
#define MPI_T_ERR_CANNOT_INIT 60
#define MPI_T_ERR_INVALID_INDEX 61
#define MPI_T_ERR_INVALID_ITEM 62
#define MPI_T_ERR_INVALID_HANDLE 63
#define MPI_T_ERR_OUT_OF_HANDLES 64
#define MPI_T_ERR_OUT_OF_SESSIONS 65
#define MPI_T_ERR_INVALID_SESSION 66
#define MPI_T_ERR_CVAR_SET_NOT_NOW 67
#define MPI_T_ERR_CVAR_SET_NEVER 68
#define MPI_T_ERR_PVAR_NO_STARTSTOP 69
#define MPI_T_ERR_PVAR_NO_WRITE 70
#define MPI_T_ERR_PVAR_NO_ATOMIC 71
#define MPI_T_ERR_INVALID_NAME 72
#define MPI_T_ERR_INVALID 73
#define MPI_ERR_LASTCODE 73

/* Predefined datatypes. */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_char;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_short;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_long;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_long_long;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_signed_char;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_unsigned_char;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_unsigned_short;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_unsigned;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_unsigned_long;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_unsigned_long_long;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_float;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_double;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_long_double;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_wchar;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_c_bool;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_int8;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_int16;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_int32;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_int64;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_uint8;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_uint16;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_uint32;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_uint64;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_aint;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_count;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_offset;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_c_float_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_c_double_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_c_long_double_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_cxx_bool;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_cxx_float_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_cxx_double_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_cxx_long_double_complex;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_byte;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_packed;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_float_int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_double_int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_long_int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_2int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_short_int;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_long_double_int;

#define MPI_CHAR MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_char)
#define MPI_SHORT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_short)
#define MPI_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_int)
#define MPI_LONG MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_long)
#define MPI_LONG_LONG_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_long_long)
#define MPI_SIGNED_CHAR MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_signed_char)
#define MPI_UNSIGNED_CHAR MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_unsigned_char)
#define MPI_UNSIGNED_SHORT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_unsigned_short)
#define MPI_UNSIGNED MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_unsigned)
#define MPI_UNSIGNED_LONG MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_unsigned_long)
#define MPI_UNSIGNED_LONG_LONG MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_unsigned_long_long)
#define MPI_FLOAT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_float)
#define MPI_DOUBLE MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_double)
#define MPI_LONG_DOUBLE MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_long_double)
#define MPI_WCHAR MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_wchar)
#define MPI_C_BOOL MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_c_bool)
#define MPI_INT8_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_int8)
#define MPI_INT16_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_int16)
#define MPI_INT32_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_int32)
#define MPI_INT64_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_int64)
#define MPI_UINT8_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_uint8)
#define MPI_UINT16_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_uint16)
#define MPI_UINT32_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_uint32)
#define MPI_UINT64_T MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_uint64)
#define MPI_AINT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_aint)
#define MPI_COUNT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_count)
#define MPI_OFFSET MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_offset)
#define MPI_C_FLOAT_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_c_long_double_complex)
/* The C++ types (MPI 3.1, 3.2.2), usable from C too: bool and
 * std::complex<T> have the layout of _Bool and T _Complex. */
#define MPI_CXX_BOOL MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_cxx_long_double_complex)
#define MPI_BYTE MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_byte)
#define MPI_PACKED MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_packed)
#define MPI_FLOAT_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_float_int)
#define MPI_DOUBLE_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_double_int)
#define MPI_LONG_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_long_int)
#define MPI_2INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_2int)
#define MPI_SHORT_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_short_int)
#define MPI_LONG_DOUBLE_INT MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_long_double_int)
#define MPI_LONG_LONG MPI_LONG_LONG_INT

/* Fortran's named types (MPI 3.1, 3.2.2 and 17.2.5), C constants whatever
 * the language: each has the layout of the C type beside it, the one a
 * C program passes (MPI_COMPLEX for float _Complex or std::complex<float>).
 * MPI_2REAL and MPI_2DOUBLE_PRECISION are pairs of two reals for MINLOC
 * and MAXLOC, MPI_2INTEGER a pair of ints. MPI_INTEGER16, MPI_REAL2,
 * MPI_COMPLEX4 (and MPI_REAL16, MPI_COMPLEX32 where long double is not
 * IEEE binary128) have no C type: they move data, no predefined op takes
 * them. */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_character;   /* char */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_logical;     /* int */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer;     /* int */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_real;        /* float */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_double_precision; /* double */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_complex;     /* float _Complex */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_double_complex; /* double _Complex */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_2integer;    /* int[2] */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_2real;       /* float[2] */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_2double_precision; /* double[2] */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer1;    /* int8_t */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer2;    /* int16_t */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer4;    /* int32_t */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer8;    /* int64_t */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_integer16;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_real2;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_real4;       /* float */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_real8;       /* double */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_real16;      /* aarch64: long double */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_complex4;
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_complex8;    /* float _Complex */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_complex16;   /* double _Complex */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_complex32;   /* aarch64: long double _Complex */
#define MPI_CHARACTER MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_character)
#define MPI_LOGICAL MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_logical)
#define MPI_INTEGER MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer)
#define MPI_REAL MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_real)
#define MPI_DOUBLE_PRECISION MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_double_precision)
#define MPI_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_complex)
#define MPI_DOUBLE_COMPLEX MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_double_complex)
#define MPI_2INTEGER MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_2integer)
#define MPI_2REAL MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_2real)
#define MPI_2DOUBLE_PRECISION MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_2double_precision)
#define MPI_INTEGER1 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer1)
#define MPI_INTEGER2 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer2)
#define MPI_INTEGER4 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer4)
#define MPI_INTEGER8 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer8)
#define MPI_INTEGER16 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_integer16)
#define MPI_REAL2 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_real2)
#define MPI_REAL4 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_real4)
#define MPI_REAL8 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_real8)
#define MPI_REAL16 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_real16)
#define MPI_COMPLEX4 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_complex4)
#define MPI_COMPLEX8 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_complex8)
#define MPI_COMPLEX16 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_complex16)
#define MPI_COMPLEX32 MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_complex32)
/* Bound markers of MPI-1's MPI_Type_struct (removed in MPI 3.0, kept for
 * the programs that still use them). */
extern MYR_HANDLE_OBJECT struct myr_mpi_datatype myr_mpi_type_lb, myr_mpi_type_ub;
#define MPI_LB MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_lb)
#define MPI_UB MYR_PREDEFINED(MPI_Datatype, myr_mpi_type_ub)

/* Datatype constructors' combiners (MPI_Type_get_envelope). */
enum {
    MPI_COMBINER_NAMED = 1, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR_INTEGER, MPI_COMBINER_HVECTOR,
    MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED_INTEGER, MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT_INTEGER, MPI_COMBINER_STRUCT, MPI_COMBINER_SUBARRAY,
    MPI_COMBINER_DARRAY, MPI_COMBINER_F90_REAL, MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED
};
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* One type, named "MPI_C_COMPLEX" (MPI lists MPI_C_FLOAT_COMPLEX as its synonym). */
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
/* MPI_Type_match_size */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* One-sided communication (MPI 3.1, chapter 11). */
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2
/* Assertions: bits, distinct from the file modes below. */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
/* Window attribute keys: their own range, apart from the communicator
 * keys above (windows have attributes of their own). */
#define MPI_WIN_BASE 101
#define MPI_WIN_SIZE 102
#define MPI_WIN_DISP_UNIT 103
#define MPI_WIN_CREATE_FLAVOR 104
#define MPI_WIN_MODEL 105
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* Files (MPI 3.1, chapter 13): access modes are bits. */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-54278278)
#define MPI_MAX_DATAREP_STRING 128

/* Process creation and management (MPI 3.1, chapter 10). */
#define MPI_MAX_PORT_NAME 1024
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)

/* Statuses of Fortran's calls, seen from C (MPI 3.1, 17.2.5): a status of
 * mpif.h and the mpi module is MPI_STATUS_SIZE integers. */
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)0)
#define MPI_F08_STATUS_IGNORE ((MPI_F08_status *)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)0)

/* The tools information interface (MPI 3.1, 14.3). */
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1)
enum {
    MPI_T_VERBOSITY_USER_BASIC = 1, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
    MPI_T_BIND_NO_OBJECT = 1, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO
};
enum {
    MPI_T_SCOPE_CONSTANT = 1, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL, MPI_T_SCOPE_ALL_EQ
};
enum {
    MPI_T_PVAR_CLASS_STATE = 1, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK,
    MPI_T_PVAR_CLASS_LOWWATERMARK, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE,
    MPI_T_PVAR_CLASS_TIMER, MPI_T_PVAR_CLASS_GENERIC
};

/* Prototypes: every function exists as MPI_name and PMPI_name. */
#define MYR_MPI_FN(ret, name, params) ret MPI_##name params; ret PMPI_##name params;

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
/* A user reduction (MPI_Op_create): inoutvec[i] = invec[i] op inoutvec[i]
 * for the *len elements of *datatype. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out,
                                       int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);
/* MPI-2.0 names of the handler types (deprecated since MPI 2.2). */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
/* MPI-1 names (removed in MPI 3.0), kept for the programs that use them. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
typedef MPI_Comm_errhandler_function MPI_Handler_function;

/* The predefined callbacks: functions, so a program may also call them. */
int myr_mpi_comm_null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
int myr_mpi_comm_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
int myr_mpi_comm_null_delete_fn(MPI_Comm, int, void *, void *);
int myr_mpi_type_null_copy_fn(MPI_Datatype, int, void *, void *, void *, int *);
int myr_mpi_type_dup_fn(MPI_Datatype, int, void *, void *, void *, int *);
int myr_mpi_type_null_delete_fn(MPI_Datatype, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN myr_mpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN myr_mpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN myr_mpi_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN myr_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN myr_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN myr_mpi_type_null_delete_fn
#define MPI_NULL_COPY_FN myr_mpi_comm_null_copy_fn
#define MPI_DUP_FN myr_mpi_comm_dup_fn
#define MPI_NULL_DELETE_FN myr_mpi_comm_null_delete_fn
int myr_mpi_win_null_copy_fn(MPI_Win, int, void *, void *, void *, int *);
int myr_mpi_win_dup_fn(MPI_Win, int, void *, void *, void *, int *);
int myr_mpi_win_null_delete_fn(MPI_Win, int, void *, void *);
int myr_mpi_conversion_fn_null(void *, MPI_Datatype, int, void *, MPI_Offset, void *);
#define MPI_WIN_NULL_COPY_FN myr_mpi_win_null_copy_fn
#define MPI_WIN_DUP_FN myr_mpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN myr_mpi_win_null_delete_fn
#define MPI_CONVERSION_FN_NULL myr_mpi_conversion_fn_null

/* Environment. */
MYR_MPI_FN(int, Init, (int *argc, char ***argv))
MYR_MPI_FN(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
MYR_MPI_FN(int, Finalize, (void))
MYR_MPI_FN(int, Initialized, (int *flag))
MYR_MPI_FN(int, Finalized, (int *flag))
MYR_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
MYR_MPI_FN(int, Query_thread, (int *provided))
MYR_MPI_FN(int, Is_thread_main, (int *flag))
MYR_MPI_FN(int, Get_version, (int *version, int *subversion))
MYR_MPI_FN(int, Get_library_version, (char *version, int *resultlen))
MYR_MPI_FN(int, Get_processor_name, (char *name, int *resultlen))
MYR_MPI_FN(double, Wtime, (void))
MYR_MPI_FN(double, Wtick, (void))
MYR_MPI_FN(int, Comm_rank, (MPI_Comm comm, int *rank))
MYR_MPI_FN(int, Comm_size, (MPI_Comm comm, int *size))
MYR_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
MYR_MPI_FN(int, Free_mem, (void *base))

/* Errors. */
MYR_MPI_FN(int, Error_string, (int errorcode, char *string, int *resultlen))
MYR_MPI_FN(int, Error_class, (int errorcode, int *errorclass))
MYR_MPI_FN(int, Add_error_class, (int *errorclass))
MYR_MPI_FN(int, Add_error_code, (int errorclass, int *errorcode))
MYR_MPI_FN(int, Add_error_string, (int errorcode, const char *string))
MYR_MPI_FN(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
MYR_MPI_FN(int, Grequest_complete, (MPI_Request request))
MYR_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
MYR_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
MYR_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
MYR_MPI_FN(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function,
                                          MPI_Errhandler *errhandler))
MYR_MPI_FN(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* Point-to-point. */
MYR_MPI_FN(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MYR_MPI_FN(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MYR_MPI_FN(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MYR_MPI_FN(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MYR_MPI_FN(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Buffer_attach, (void *buffer, int size))
MYR_MPI_FN(int, Buffer_detach, (void *buffer_addr, int *size))
MYR_MPI_FN(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
MYR_MPI_FN(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status))
MYR_MPI_FN(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                   int source, int recvtag, MPI_Comm comm, MPI_Status *status))
MYR_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
MYR_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
MYR_MPI_FN(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
MYR_MPI_FN(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
MYR_MPI_FN(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
MYR_MPI_FN(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
MYR_MPI_FN(int, Wait, (MPI_Request *request, MPI_Status *status))
MYR_MPI_FN(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
MYR_MPI_FN(int, Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status))
MYR_MPI_FN(int, Waitsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
MYR_MPI_FN(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
MYR_MPI_FN(int, Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]))
MYR_MPI_FN(int, Testany, (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status))
MYR_MPI_FN(int, Testsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
MYR_MPI_FN(int, Request_free, (MPI_Request *request))
MYR_MPI_FN(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
MYR_MPI_FN(int, Cancel, (MPI_Request *request))
MYR_MPI_FN(int, Test_cancelled, (const MPI_Status *status, int *flag))
MYR_MPI_FN(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Start, (MPI_Request *request))
MYR_MPI_FN(int, Startall, (int count, MPI_Request requests[]))
MYR_MPI_FN(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
MYR_MPI_FN(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
MYR_MPI_FN(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
MYR_MPI_FN(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
MYR_MPI_FN(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
MYR_MPI_FN(int, Status_set_cancelled, (MPI_Status *status, int flag))
MYR_MPI_FN(int, Type_size, (MPI_Datatype datatype, int *size))

/* Groups. */
MYR_MPI_FN(int, Group_size, (MPI_Group group, int *size))
MYR_MPI_FN(int, Group_rank, (MPI_Group group, int *rank))
MYR_MPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
MYR_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
MYR_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
MYR_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
MYR_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
MYR_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
MYR_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
MYR_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
MYR_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
MYR_MPI_FN(int, Group_free, (MPI_Group *group))
MYR_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group *group))

/* Communicators. */
MYR_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
MYR_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))

/* Virtual topologies (src/mpi/topo.c). */
MYR_MPI_FN(int, Cart_create, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
MYR_MPI_FN(int, Cartdim_get, (MPI_Comm comm, int *ndims))
MYR_MPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
MYR_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
MYR_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
MYR_MPI_FN(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
MYR_MPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]))
MYR_MPI_FN(int, Topo_test, (MPI_Comm comm, int *status))
MYR_MPI_FN(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
MYR_MPI_FN(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
MYR_MPI_FN(int, Graph_create, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
MYR_MPI_FN(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
MYR_MPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
MYR_MPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
MYR_MPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
MYR_MPI_FN(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
MYR_MPI_FN(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
MYR_MPI_FN(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
MYR_MPI_FN(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
MYR_MPI_FN(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
MYR_MPI_FN(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]))
MYR_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_free, (MPI_Comm *comm))
MYR_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
MYR_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int *flag))
MYR_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
MYR_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
MYR_MPI_FN(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
MYR_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
MYR_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int *size))
MYR_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))

/* Info objects and communicator hints. */
MYR_MPI_FN(int, Info_create, (MPI_Info *info))
MYR_MPI_FN(int, Info_set, (MPI_Info info, const char *key, const char *value))
MYR_MPI_FN(int, Info_delete, (MPI_Info info, const char *key))
MYR_MPI_FN(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
MYR_MPI_FN(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
MYR_MPI_FN(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
MYR_MPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
MYR_MPI_FN(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
MYR_MPI_FN(int, Info_free, (MPI_Info *info))
/* Handles as Fortran integers and back (MPI_X_c2f, MPI_X_f2c). */
MYR_MPI_FN(MPI_Fint, Comm_c2f, (MPI_Comm handle))
MYR_MPI_FN(MPI_Comm, Comm_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Type_c2f, (MPI_Datatype handle))
MYR_MPI_FN(MPI_Datatype, Type_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Group_c2f, (MPI_Group handle))
MYR_MPI_FN(MPI_Group, Group_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Request_c2f, (MPI_Request handle))
MYR_MPI_FN(MPI_Request, Request_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Op_c2f, (MPI_Op handle))
MYR_MPI_FN(MPI_Op, Op_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Info_c2f, (MPI_Info handle))
MYR_MPI_FN(MPI_Info, Info_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Errhandler_c2f, (MPI_Errhandler handle))
MYR_MPI_FN(MPI_Errhandler, Errhandler_f2c, (MPI_Fint handle))
MYR_MPI_FN(MPI_Fint, Message_c2f, (MPI_Message handle))
MYR_MPI_FN(MPI_Message, Message_f2c, (MPI_Fint handle))
/* From MPI 4.0: info strings and the environment's info, sessions. */
MYR_MPI_FN(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
MYR_MPI_FN(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))
MYR_MPI_FN(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session))
MYR_MPI_FN(int, Session_finalize, (MPI_Session *session))
MYR_MPI_FN(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names))
MYR_MPI_FN(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name))
MYR_MPI_FN(int, Session_get_info, (MPI_Session session, MPI_Info *info_used))
MYR_MPI_FN(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info))
MYR_MPI_FN(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup))
MYR_MPI_FN(int, Comm_create_from_group, (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
MYR_MPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
MYR_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))

/* Attributes. */
MYR_MPI_FN(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                      MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                      int *comm_keyval, void *extra_state))
MYR_MPI_FN(int, Comm_free_keyval, (int *comm_keyval))
MYR_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
MYR_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
MYR_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
MYR_MPI_FN(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn,
                                      MPI_Type_delete_attr_function *type_delete_attr_fn,
                                      int *type_keyval, void *extra_state))
MYR_MPI_FN(int, Type_free_keyval, (int *type_keyval))
MYR_MPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
MYR_MPI_FN(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
MYR_MPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* MPI-1 names removed in MPI 3.0, kept for the programs that use them. */
MYR_MPI_FN(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                                 int *keyval, void *extra_state))
MYR_MPI_FN(int, Keyval_free, (int *keyval))
MYR_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
MYR_MPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
MYR_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval))
MYR_MPI_FN(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
MYR_MPI_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
MYR_MPI_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))

/* Derived datatypes and packing. */
MYR_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_commit, (MPI_Datatype *datatype))
MYR_MPI_FN(int, Type_free, (MPI_Datatype *datatype))
MYR_MPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
MYR_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
MYR_MPI_FN(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
MYR_MPI_FN(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
MYR_MPI_FN(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
MYR_MPI_FN(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
MYR_MPI_FN(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
MYR_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
MYR_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
MYR_MPI_FN(int, Get_address, (const void *location, MPI_Aint *address))
MYR_MPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
MYR_MPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
MYR_MPI_FN(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
MYR_MPI_FN(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
MYR_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
MYR_MPI_FN(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position))
MYR_MPI_FN(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype))
MYR_MPI_FN(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))
/* MPI-1 names removed in MPI 3.0, kept for the programs that use them. */
MYR_MPI_FN(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_hindexed, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype))
MYR_MPI_FN(int, Address, (void *location, MPI_Aint *address))
MYR_MPI_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
MYR_MPI_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
MYR_MPI_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))

/* Collectives (on intracommunicators). */
MYR_MPI_FN(int, Barrier, (MPI_Comm comm))
MYR_MPI_FN(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
MYR_MPI_FN(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
MYR_MPI_FN(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
MYR_MPI_FN(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
MYR_MPI_FN(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
MYR_MPI_FN(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
MYR_MPI_FN(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
MYR_MPI_FN(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
MYR_MPI_FN(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MYR_MPI_FN(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MYR_MPI_FN(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MYR_MPI_FN(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MYR_MPI_FN(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
/* Nonblocking collectives (MPI-3). */
MYR_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
MYR_MPI_FN(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))

/* Reduction operations (MPI 3.1, 5.9). MPI_REPLACE and MPI_NO_OP are for
 * one-sided accumulate calls only. */
extern MYR_HANDLE_OBJECT struct myr_mpi_op myr_mpi_op_max, myr_mpi_op_min, myr_mpi_op_sum, myr_mpi_op_prod,
    myr_mpi_op_land, myr_mpi_op_lor, myr_mpi_op_lxor, myr_mpi_op_band, myr_mpi_op_bor,
    myr_mpi_op_bxor, myr_mpi_op_maxloc, myr_mpi_op_minloc, myr_mpi_op_replace,
    myr_mpi_op_no_op;
#define MPI_MAX MYR_PREDEFINED(MPI_Op, myr_mpi_op_max)
#define MPI_MIN MYR_PREDEFINED(MPI_Op, myr_mpi_op_min)
#define MPI_SUM MYR_PREDEFINED(MPI_Op, myr_mpi_op_sum)
#define MPI_PROD MYR_PREDEFINED(MPI_Op, myr_mpi_op_prod)
#define MPI_LAND MYR_PREDEFINED(MPI_Op, myr_mpi_op_land)
#define MPI_LOR MYR_PREDEFINED(MPI_Op, myr_mpi_op_lor)
#define MPI_LXOR MYR_PREDEFINED(MPI_Op, myr_mpi_op_lxor)
#define MPI_BAND MYR_PREDEFINED(MPI_Op, myr_mpi_op_band)
#define MPI_BOR MYR_PREDEFINED(MPI_Op, myr_mpi_op_bor)
#define MPI_BXOR MYR_PREDEFINED(MPI_Op, myr_mpi_op_bxor)
#define MPI_MAXLOC MYR_PREDEFINED(MPI_Op, myr_mpi_op_maxloc)
#define MPI_MINLOC MYR_PREDEFINED(MPI_Op, myr_mpi_op_minloc)
#define MPI_REPLACE MYR_PREDEFINED(MPI_Op, myr_mpi_op_replace)
#define MPI_NO_OP MYR_PREDEFINED(MPI_Op, myr_mpi_op_no_op)
MYR_MPI_FN(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
MYR_MPI_FN(int, Op_free, (MPI_Op *op))
MYR_MPI_FN(int, Op_commutative, (MPI_Op op, int *commute))
MYR_MPI_FN(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))

/* ---- Declared for every program; not implemented yet ----------------------
 * The calls below link, and fail with MPI_ERR_UNSUPPORTED_OPERATION through
 * the error handler that MPI names for them (src/mpi/unsupported.c): the
 * communicator's when there is one, else MPI_COMM_WORLD's; files' calls
 * through the files' default handler (MPI_ERRORS_RETURN unless the program
 * sets another on MPI_FILE_NULL). Those marked "works" do what MPI says.
 * docs/mpi-coverage.md lists which is which. */

/* Process creation and management. */
MYR_MPI_FN(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
MYR_MPI_FN(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
MYR_MPI_FN(int, Comm_get_parent, (MPI_Comm *parent))   /* works: MPI_COMM_NULL */
MYR_MPI_FN(int, Open_port, (MPI_Info info, char *port_name))
MYR_MPI_FN(int, Close_port, (const char *port_name))
MYR_MPI_FN(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
MYR_MPI_FN(int, Comm_disconnect, (MPI_Comm *comm))
MYR_MPI_FN(int, Comm_join, (int fd, MPI_Comm *intercomm))
MYR_MPI_FN(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
MYR_MPI_FN(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
MYR_MPI_FN(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))

/* One-sided communication. */
MYR_MPI_FN(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
MYR_MPI_FN(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
MYR_MPI_FN(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
MYR_MPI_FN(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
MYR_MPI_FN(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
MYR_MPI_FN(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
MYR_MPI_FN(int, Win_detach, (MPI_Win win, const void *base))
MYR_MPI_FN(int, Win_free, (MPI_Win *win))
MYR_MPI_FN(int, Win_get_group, (MPI_Win win, MPI_Group *group))
MYR_MPI_FN(int, Win_set_info, (MPI_Win win, MPI_Info info))
MYR_MPI_FN(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
MYR_MPI_FN(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
MYR_MPI_FN(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
MYR_MPI_FN(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
MYR_MPI_FN(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
MYR_MPI_FN(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
MYR_MPI_FN(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
MYR_MPI_FN(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
MYR_MPI_FN(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
MYR_MPI_FN(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
MYR_MPI_FN(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
MYR_MPI_FN(int, Win_fence, (int assert, MPI_Win win))
MYR_MPI_FN(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
MYR_MPI_FN(int, Win_complete, (MPI_Win win))
MYR_MPI_FN(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
MYR_MPI_FN(int, Win_wait, (MPI_Win win))
MYR_MPI_FN(int, Win_test, (MPI_Win win, int *flag))
MYR_MPI_FN(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
MYR_MPI_FN(int, Win_lock_all, (int assert, MPI_Win win))
MYR_MPI_FN(int, Win_unlock, (int rank, MPI_Win win))
MYR_MPI_FN(int, Win_unlock_all, (MPI_Win win))
MYR_MPI_FN(int, Win_flush, (int rank, MPI_Win win))
MYR_MPI_FN(int, Win_flush_all, (MPI_Win win))
MYR_MPI_FN(int, Win_flush_local, (int rank, MPI_Win win))
MYR_MPI_FN(int, Win_flush_local_all, (MPI_Win win))
MYR_MPI_FN(int, Win_sync, (MPI_Win win))
MYR_MPI_FN(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state))
MYR_MPI_FN(int, Win_free_keyval, (int *win_keyval))
MYR_MPI_FN(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
MYR_MPI_FN(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
MYR_MPI_FN(int, Win_delete_attr, (MPI_Win win, int win_keyval))
MYR_MPI_FN(int, Win_set_name, (MPI_Win win, const char *win_name))
MYR_MPI_FN(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
MYR_MPI_FN(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
MYR_MPI_FN(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
MYR_MPI_FN(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
MYR_MPI_FN(int, Win_call_errhandler, (MPI_Win win, int errorcode))
MYR_MPI_FN(MPI_Fint, Win_c2f, (MPI_Win win))        /* works */
MYR_MPI_FN(MPI_Win, Win_f2c, (MPI_Fint win))        /* works */

/* I/O. */
MYR_MPI_FN(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
MYR_MPI_FN(int, File_close, (MPI_File *fh))
MYR_MPI_FN(int, File_delete, (const char *filename, MPI_Info info))
MYR_MPI_FN(int, File_set_size, (MPI_File fh, MPI_Offset size))
MYR_MPI_FN(int, File_preallocate, (MPI_File fh, MPI_Offset size))
MYR_MPI_FN(int, File_get_size, (MPI_File fh, MPI_Offset *size))
MYR_MPI_FN(int, File_get_group, (MPI_File fh, MPI_Group *group))
MYR_MPI_FN(int, File_get_amode, (MPI_File fh, int *amode))
MYR_MPI_FN(int, File_set_info, (MPI_File fh, MPI_Info info))
MYR_MPI_FN(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
MYR_MPI_FN(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
MYR_MPI_FN(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
MYR_MPI_FN(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
MYR_MPI_FN(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
MYR_MPI_FN(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
MYR_MPI_FN(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
MYR_MPI_FN(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
MYR_MPI_FN(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
MYR_MPI_FN(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
MYR_MPI_FN(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
MYR_MPI_FN(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
MYR_MPI_FN(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
MYR_MPI_FN(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
MYR_MPI_FN(int, File_set_atomicity, (MPI_File fh, int flag))
MYR_MPI_FN(int, File_get_atomicity, (MPI_File fh, int *flag))
MYR_MPI_FN(int, File_sync, (MPI_File fh))
MYR_MPI_FN(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))
/* works on MPI_FILE_NULL (the files' default) with the predefined handlers */
MYR_MPI_FN(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
MYR_MPI_FN(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
MYR_MPI_FN(int, File_call_errhandler, (MPI_File fh, int errorcode))
MYR_MPI_FN(MPI_Fint, File_c2f, (MPI_File file))     /* works */
MYR_MPI_FN(MPI_File, File_f2c, (MPI_Fint file))     /* works */

/* Language interoperability (works, except the f90 constructors). */
MYR_MPI_FN(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
MYR_MPI_FN(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
MYR_MPI_FN(int, Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status))
MYR_MPI_FN(int, Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status))
MYR_MPI_FN(int, Status_f2f08, (MPI_Fint *f_status, MPI_F08_status *f08_status))
MYR_MPI_FN(int, Status_f082f, (MPI_F08_status *f08_status, MPI_Fint *f_status))
MYR_MPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
MYR_MPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))

/* Profiling control (works: Myriad's own profiling has no levels). */
MYR_MPI_FN(int, Pcontrol, (const int level, ...))

/* The tools information interface (works: Myriad exposes no control or
 * performance variables and no categories yet; MPI_T calls return their
 * codes and never call an error handler, as MPI 3.1, 14.3.10 says). */
MYR_MPI_FN(int, T_init_thread, (int required, int *provided))
MYR_MPI_FN(int, T_finalize, (void))
MYR_MPI_FN(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
MYR_MPI_FN(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
MYR_MPI_FN(int, T_cvar_get_num, (int *num_cvar))
MYR_MPI_FN(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
MYR_MPI_FN(int, T_cvar_get_index, (const char *name, int *cvar_index))
MYR_MPI_FN(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
MYR_MPI_FN(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
MYR_MPI_FN(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
MYR_MPI_FN(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
MYR_MPI_FN(int, T_pvar_get_num, (int *num_pvar))
MYR_MPI_FN(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic))
MYR_MPI_FN(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
MYR_MPI_FN(int, T_pvar_session_create, (MPI_T_pvar_session *session))
MYR_MPI_FN(int, T_pvar_session_free, (MPI_T_pvar_session *session))
MYR_MPI_FN(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count))
MYR_MPI_FN(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
MYR_MPI_FN(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
MYR_MPI_FN(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
MYR_MPI_FN(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
MYR_MPI_FN(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
MYR_MPI_FN(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
MYR_MPI_FN(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
MYR_MPI_FN(int, T_category_get_num, (int *num_cat))
MYR_MPI_FN(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories))
MYR_MPI_FN(int, T_category_get_index, (const char *name, int *cat_index))
MYR_MPI_FN(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
MYR_MPI_FN(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
MYR_MPI_FN(int, T_category_get_categories, (int cat_index, int len, int indices[]))
MYR_MPI_FN(int, T_category_changed, (int *stamp))

/* FG-MPI's extensions. */
int MPIX_Yield(void);
int MPIX_Get_collocated_size(int *size);
int MPIX_Get_collocated_startrank(int *rank);
int PMPIX_Yield(void);
int PMPIX_Get_collocated_size(int *size);
int PMPIX_Get_collocated_startrank(int *rank);

#undef MYR_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* MYRIAD_MPI_H */
