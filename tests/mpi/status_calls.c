/* status_calls.c — what a status says (counts, elements, cancellation),
 * the sizes and extents of the predefined datatypes, and copying typed
 * data. Every case runs in every rank. Usage: status_calls CASE. */
#include <mpi.h>
/* After mpi.h (which renames main): the datatype objects behind handles,
 * for extents and myr_datatype_copy. */
#include "core/core.h"

#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "../check.h"

#define CHECK_MPI(expr) CHECK((expr) == MPI_SUCCESS)

#define PAIR(first) struct { first value; int index; }

typedef struct predefined {
    MPI_Datatype type;
    const char *name;
    size_t data;    /* bytes of data of one element, as C lays it out */
    size_t stride;  /* sizeof the C type or struct */
} predefined;

#define SCALAR(handle, ctype) {handle, #handle, sizeof(ctype), sizeof(ctype)}
#define PAIRED(handle, ctype) \
    {handle, #handle, sizeof(ctype) + sizeof(int), sizeof(PAIR(ctype))}

static const predefined predefined_types[] = {
    SCALAR(MPI_CHAR, char), SCALAR(MPI_SHORT, short), SCALAR(MPI_INT, int),
    SCALAR(MPI_LONG, long), SCALAR(MPI_LONG_LONG_INT, long long),
    SCALAR(MPI_LONG_LONG, long long), SCALAR(MPI_SIGNED_CHAR, signed char),
    SCALAR(MPI_UNSIGNED_CHAR, unsigned char), SCALAR(MPI_UNSIGNED_SHORT, unsigned short),
    SCALAR(MPI_UNSIGNED, unsigned), SCALAR(MPI_UNSIGNED_LONG, unsigned long),
    SCALAR(MPI_UNSIGNED_LONG_LONG, unsigned long long), SCALAR(MPI_FLOAT, float),
    SCALAR(MPI_DOUBLE, double), SCALAR(MPI_LONG_DOUBLE, long double),
    SCALAR(MPI_WCHAR, wchar_t), SCALAR(MPI_C_BOOL, _Bool), SCALAR(MPI_INT8_T, int8_t),
    SCALAR(MPI_INT16_T, int16_t), SCALAR(MPI_INT32_T, int32_t), SCALAR(MPI_INT64_T, int64_t),
    SCALAR(MPI_UINT8_T, uint8_t), SCALAR(MPI_UINT16_T, uint16_t),
    SCALAR(MPI_UINT32_T, uint32_t), SCALAR(MPI_UINT64_T, uint64_t),
    SCALAR(MPI_AINT, MPI_Aint), SCALAR(MPI_COUNT, MPI_Count), SCALAR(MPI_OFFSET, MPI_Offset),
    SCALAR(MPI_C_FLOAT_COMPLEX, float _Complex), SCALAR(MPI_C_COMPLEX, float _Complex),
    SCALAR(MPI_C_DOUBLE_COMPLEX, double _Complex),
    SCALAR(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    SCALAR(MPI_CXX_BOOL, _Bool), SCALAR(MPI_CXX_FLOAT_COMPLEX, float _Complex),
    SCALAR(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    SCALAR(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex),
    SCALAR(MPI_BYTE, unsigned char), SCALAR(MPI_PACKED, unsigned char),
    PAIRED(MPI_FLOAT_INT, float), PAIRED(MPI_DOUBLE_INT, double),
    PAIRED(MPI_LONG_INT, long), PAIRED(MPI_2INT, int), PAIRED(MPI_SHORT_INT, short),
    PAIRED(MPI_LONG_DOUBLE_INT, long double),
};

#define NTYPES (sizeof predefined_types / sizeof predefined_types[0])

/* ---- sizes and extents ------------------------------------------------- */

static void type_size_is_the_c_data_size(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    for (size_t i = 0; i < NTYPES; i++) {
        int size = -1;
        CHECK_MPI(MPI_Type_size(predefined_types[i].type, &size));
        if ((size_t)size != predefined_types[i].data) {
            fprintf(stderr, "%s: MPI_Type_size %d, C data %zu\n",
                    predefined_types[i].name, size, predefined_types[i].data);
            CHECK(!"size of a predefined type");
        }
    }
    int size;
    CHECK_MPI(MPI_Type_size(MPI_DOUBLE_INT, &size));
    CHECK(size == 12);  /* {double, int}: 12 bytes of data in 16 */
    CHECK_MPI(MPI_Type_size(MPI_SHORT_INT, &size));
    CHECK(size == (int)(sizeof(short) + sizeof(int)));  /* the gap is no data */
    CHECK_MPI(MPI_Finalize());
}

/* The stride between elements is the C type's (struct's) size, and the
 * name is the handle's. */
static void type_extent_is_the_c_struct_size(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    for (size_t i = 0; i < NTYPES; i++) {
        const predefined *p = &predefined_types[i];
        if ((size_t)p->type->extent != p->stride) {
            fprintf(stderr, "%s: extent %td, C stride %zu\n", p->name,
                    p->type->extent, p->stride);
            CHECK(!"extent of a predefined type");
        }
        CHECK(p->type->predefined && p->type->committed);
        if (p->type != MPI_LONG_LONG && p->type != MPI_C_COMPLEX)  /* aliases */
            CHECK(strcmp(p->type->name, p->name) == 0);
    }
    CHECK_MPI(MPI_Finalize());
}

/* ---- counts and elements -------------------------------------------------- */

static int count_of(const MPI_Status *st, MPI_Datatype type)
{
    int n = -2;
    CHECK_MPI(MPI_Get_count(st, type, &n));
    return n;
}

static int elements_of(const MPI_Status *st, MPI_Datatype type)
{
    int n = -2;
    CHECK_MPI(MPI_Get_elements(st, type, &n));
    MPI_Count x = -2;
    CHECK_MPI(MPI_Get_elements_x(st, type, &x));
    CHECK(x == n);
    return n;
}

static void get_count_counts_whole_elements(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    memset(&st, 0, sizeof st);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 12));
    CHECK(st.myr_bytes == 12);
    CHECK(count_of(&st, MPI_BYTE) == 12 && count_of(&st, MPI_CHAR) == 12);
    CHECK(count_of(&st, MPI_INT) == 3 && count_of(&st, MPI_SHORT) == 6);
    CHECK(count_of(&st, MPI_DOUBLE) == MPI_UNDEFINED);  /* 1.5 doubles */
    CHECK(count_of(&st, MPI_DOUBLE_INT) == 1);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 0));
    CHECK(count_of(&st, MPI_DOUBLE) == 0 && count_of(&st, MPI_DOUBLE_INT) == 0);
    CHECK_MPI(MPI_Finalize());
}

static void get_elements_counts_basic_elements(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    memset(&st, 0, sizeof st);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 5));
    CHECK(st.myr_bytes == 5 * (MPI_Count)sizeof(int));
    CHECK(elements_of(&st, MPI_INT) == 5);
    CHECK(elements_of(&st, MPI_BYTE) == 20 && elements_of(&st, MPI_SHORT) == 10);
    CHECK(elements_of(&st, MPI_DOUBLE) == MPI_UNDEFINED);
    CHECK(elements_of(&st, MPI_2INT) == 5);  /* two ints each */
    CHECK(count_of(&st, MPI_2INT) == MPI_UNDEFINED);
    CHECK_MPI(MPI_Finalize());
}

/* A pair type is two basic elements: 3 elements of MPI_DOUBLE_INT are one
 * whole pair and a double (20 bytes of data). */
static void pair_types_are_two_basic_elements(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    memset(&st, 0, sizeof st);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3));
    CHECK(st.myr_bytes == 20);
    CHECK(elements_of(&st, MPI_DOUBLE_INT) == 3);
    CHECK(count_of(&st, MPI_DOUBLE_INT) == MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 4));
    CHECK(st.myr_bytes == 24 && count_of(&st, MPI_DOUBLE_INT) == 2);
    CHECK(elements_of(&st, MPI_DOUBLE_INT) == 4);

    CHECK_MPI(MPI_Status_set_elements(&st, MPI_SHORT_INT, 5));
    CHECK(st.myr_bytes == (MPI_Count)(2 * (sizeof(short) + sizeof(int)) + sizeof(short)));
    CHECK(elements_of(&st, MPI_SHORT_INT) == 5);

    /* Bytes that end inside the int of a pair are no whole element. */
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 10));
    CHECK(elements_of(&st, MPI_DOUBLE_INT) == MPI_UNDEFINED);
    CHECK(count_of(&st, MPI_DOUBLE_INT) == MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 8));
    CHECK(elements_of(&st, MPI_DOUBLE_INT) == 1);
    CHECK_MPI(MPI_Finalize());
}

/* Counts beyond INT_MAX need the _x calls; the int ones say MPI_UNDEFINED. */
static void large_counts_need_the_x_calls(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    memset(&st, 0, sizeof st);
    const MPI_Count big = 3000000000LL;
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, big));
    CHECK(st.myr_bytes == big);
    MPI_Count x = 0;
    CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &x));
    CHECK(x == big);
    int n = 0;
    CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED);
    CHECK(count_of(&st, MPI_BYTE) == MPI_UNDEFINED);
    CHECK(count_of(&st, MPI_INT) == 750000000);
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_DOUBLE_INT, big + 1));
    CHECK_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE_INT, &x));
    CHECK(x == big + 1);
    CHECK_MPI(MPI_Finalize());
}

static void set_elements_keeps_the_other_fields(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st = {.MPI_SOURCE = 3, .MPI_TAG = 77, .MPI_ERROR = MPI_ERR_TRUNCATE};
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 9));
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK(count_of(&st, MPI_INT) == 9);
    CHECK_MPI(MPI_Finalize());
}

static void cancelled_flag_round_trips(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    memset(&st, 0, sizeof st);
    int flag = -1;
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 5));  /* any true value */
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    CHECK_MPI(MPI_Finalize());
}

/* A null or inactive request has the empty status, MPI_ERROR = MPI_SUCCESS
 * included (MPI 3.1, 3.7.3), whatever the status held before; a completed
 * operation's status leaves MPI_ERROR alone (3.2.5). */
static void null_and_inactive_requests_give_the_empty_status(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    const MPI_Status garbage = {.MPI_SOURCE = 1234, .MPI_TAG = 4321, .MPI_ERROR = 77};
#define CHECK_EMPTY(st)                                                          \
    CHECK((st).MPI_SOURCE == MPI_ANY_SOURCE && (st).MPI_TAG == MPI_ANY_TAG &&   \
          (st).MPI_ERROR == MPI_SUCCESS && count_of(&(st), MPI_BYTE) == 0)
    MPI_Status st = garbage;
    int flag = 0;
    CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag == 1);
    CHECK_EMPTY(st);
    CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, MPI_STATUS_IGNORE));
    MPI_Request null = MPI_REQUEST_NULL;
    st = garbage;
    CHECK_MPI(MPI_Wait(&null, &st));
    CHECK_EMPTY(st);
    st = garbage;
    flag = 0;
    CHECK_MPI(MPI_Test(&null, &flag, &st));
    CHECK(flag == 1);
    CHECK_EMPTY(st);
    /* An inactive persistent request. */
    int buf = 0, rank;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_Request persistent;
    CHECK_MPI(MPI_Recv_init(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &persistent));
    st = garbage;
    CHECK_MPI(MPI_Wait(&persistent, &st));
    CHECK_EMPTY(st);
    CHECK(persistent != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Request_free(&persistent));
    /* A completed operation keeps the caller's MPI_ERROR. */
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, rank, 5, MPI_COMM_WORLD));
    st = garbage;
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 5 && st.MPI_ERROR == 77 && buf == rank);
#undef CHECK_EMPTY
    CHECK_MPI(MPI_Finalize());
}

/* ---- copying typed data ---------------------------------------------------- */

typedef PAIR(short) short_int;
typedef PAIR(double) double_int;

static bool bytes_are(const void *p, size_t n, unsigned char value)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != value)
            return false;
    return true;
}

/* Only data bytes move: the receiver's padding is left alone. */
static void copy_of_pair_types_skips_padding(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    short_int s[3], sd[3];
    memset(s, 0x11, sizeof s);
    memset(sd, 0xab, sizeof sd);
    for (int i = 0; i < 3; i++)
        s[i] = (short_int){.value = (short)(100 + i), .index = i};
    CHECK(myr_datatype_copy(sd, s, 3, MPI_SHORT_INT, SIZE_MAX) == 3 * 6);
    for (int i = 0; i < 3; i++) {
        CHECK(sd[i].value == 100 + i && sd[i].index == i);
        const char *gap = (const char *)&sd[i] + sizeof(short);
        CHECK(bytes_are(gap, offsetof(short_int, index) - sizeof(short), 0xab));
    }

    double_int d[2], dd[2];
    memset(dd, 0xab, sizeof dd);
    d[0] = (double_int){.value = 1.5, .index = 7};
    d[1] = (double_int){.value = -2.5, .index = 8};
    CHECK(myr_datatype_copy(dd, d, 2, MPI_DOUBLE_INT, SIZE_MAX) == 2 * 12);
    CHECK(dd[0].value == 1.5 && dd[0].index == 7 && dd[1].value == -2.5 && dd[1].index == 8);
    CHECK(bytes_are((const char *)&dd[1] + 12, sizeof(double_int) - 12, 0xab));
    CHECK_MPI(MPI_Finalize());
}

/* A copy cut short by the receive size stops inside the element (and the
 * member) where the bytes run out. */
static void truncated_copy_stops_inside_an_element(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    short_int s[3] = {{1, 10}, {2, 20}, {3, 30}}, sd[3];
    memset(sd, 0xab, sizeof sd);
    size_t limit = 6 + 2 + 1;  /* one pair, one short, one byte of the int */
    CHECK(myr_datatype_copy(sd, s, 3, MPI_SHORT_INT, limit) == limit);
    CHECK(sd[0].value == 1 && sd[0].index == 10 && sd[1].value == 2);
    CHECK(memcmp(&sd[1].index, &s[1].index, 1) == 0);
    CHECK(bytes_are((const char *)&sd[1].index + 1, sizeof(int) - 1, 0xab));
    CHECK(bytes_are(&sd[2], sizeof sd[2], 0xab));

    int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
    CHECK(myr_datatype_copy(b, a, 4, MPI_INT, 10) == 10);
    CHECK(b[0] == 1 && b[1] == 2 && b[3] == 0);
    CHECK_MPI(MPI_Finalize());
}

/* ---- bad arguments ----------------------------------------------------------- */

static void bad_arguments_return_error_classes(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int garbage[8] = {0};
    MPI_Datatype bad_type = (MPI_Datatype)(void *)garbage;
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.myr_bytes = 8;
    int n, flag;
    MPI_Count x;

    CHECK(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n) == MPI_ERR_ARG);
    CHECK(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Get_count(&st, bad_type, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Get_count(&st, MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Get_elements(MPI_STATUS_IGNORE, MPI_INT, &n) == MPI_ERR_ARG);
    CHECK(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Get_elements(&st, bad_type, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Get_elements(&st, MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Get_elements_x(MPI_STATUS_IGNORE, MPI_INT, &x) == MPI_ERR_ARG);
    CHECK(MPI_Get_elements_x(&st, MPI_DATATYPE_NULL, &x) == MPI_ERR_TYPE);
    CHECK(MPI_Get_elements_x(&st, bad_type, &x) == MPI_ERR_TYPE);
    CHECK(MPI_Get_elements_x(&st, MPI_INT, NULL) == MPI_ERR_ARG);

    CHECK(MPI_Status_set_elements(NULL, MPI_INT, 1) == MPI_ERR_ARG);
    CHECK(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1) == MPI_ERR_TYPE);
    CHECK(MPI_Status_set_elements(&st, bad_type, 1) == MPI_ERR_TYPE);
    CHECK(MPI_Status_set_elements(&st, MPI_INT, -1) == MPI_ERR_COUNT);
    CHECK(MPI_Status_set_elements_x(NULL, MPI_INT, 1) == MPI_ERR_ARG);
    CHECK(MPI_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1) == MPI_ERR_TYPE);
    CHECK(MPI_Status_set_elements_x(&st, MPI_INT, -1) == MPI_ERR_COUNT);
    CHECK(MPI_Status_set_elements_x(&st, MPI_DOUBLE, LLONG_MAX) == MPI_ERR_COUNT);
    CHECK(MPI_Status_set_elements_x(&st, MPI_DOUBLE_INT, LLONG_MAX) == MPI_ERR_COUNT);
    CHECK(st.myr_bytes == 8);  /* failed calls leave the status alone */

    CHECK(MPI_Status_set_cancelled(NULL, 1) == MPI_ERR_ARG);
    CHECK(MPI_Test_cancelled(MPI_STATUS_IGNORE, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Test_cancelled(&st, NULL) == MPI_ERR_ARG);

    CHECK(MPI_Type_size(MPI_DATATYPE_NULL, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Type_size(bad_type, &n) == MPI_ERR_TYPE);
    CHECK(MPI_Type_size(MPI_INT, NULL) == MPI_ERR_ARG);
    CHECK_MPI(MPI_Finalize());
}

/* ---- cases that end the job (run through expect_crash.sh) -------------- */

static void query_of_ignored_status_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int n;
    MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n);
}

static void null_datatype_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    int n;
    MPI_Type_size(MPI_DATATYPE_NULL, &n);
}

static void negative_element_count_is_fatal(void)
{
    CHECK_MPI(MPI_Init(NULL, NULL));
    MPI_Status st;
    MPI_Status_set_elements(&st, MPI_INT, -1);
}

static const test_case cases[] = {
    {"type_size_is_the_c_data_size", type_size_is_the_c_data_size},
    {"type_extent_is_the_c_struct_size", type_extent_is_the_c_struct_size},
    {"get_count_counts_whole_elements", get_count_counts_whole_elements},
    {"get_elements_counts_basic_elements", get_elements_counts_basic_elements},
    {"pair_types_are_two_basic_elements", pair_types_are_two_basic_elements},
    {"large_counts_need_the_x_calls", large_counts_need_the_x_calls},
    {"set_elements_keeps_the_other_fields", set_elements_keeps_the_other_fields},
    {"cancelled_flag_round_trips", cancelled_flag_round_trips},
    {"null_and_inactive_requests_give_the_empty_status",
     null_and_inactive_requests_give_the_empty_status},
    {"copy_of_pair_types_skips_padding", copy_of_pair_types_skips_padding},
    {"truncated_copy_stops_inside_an_element", truncated_copy_stops_inside_an_element},
    {"bad_arguments_return_error_classes", bad_arguments_return_error_classes},
    {"query_of_ignored_status_is_fatal", query_of_ignored_status_is_fatal},
    {"null_datatype_is_fatal", null_datatype_is_fatal},
    {"negative_element_count_is_fatal", negative_element_count_is_fatal},
};

int main(int argc, char **argv)
{
    return RUN_TEST_CASES(argc, argv, cases);
}
