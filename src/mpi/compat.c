/*
 * compat.c — MPI-1 names removed in MPI 3.0 that real programs (and MPICH's
 * test suite) still call: attribute caching and error handlers. Each is
 * its MPI-2 successor under another name, and errors name the function
 * the program called. (The MPI-1 datatype names, MPI_Type_struct,
 * MPI_Address and the like, live with the datatypes in datatype.c.)
 */
#include "mpi/mpi_impl.h"

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                       int *keyval, void *extra_state)
{
    return myr_attr_comm_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval,
                                       extra_state);
}
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                      int *keyval, void *extra_state) MYR_PMPI(Keyval_create);

int PMPI_Keyval_free(int *keyval)
{
    return myr_attr_comm_free_keyval("MPI_Keyval_free", keyval);
}
int MPI_Keyval_free(int *keyval) MYR_PMPI(Keyval_free);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return myr_attr_comm_set("MPI_Attr_put", comm, keyval, attribute_val);
}
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) MYR_PMPI(Attr_put);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return myr_attr_comm_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
    MYR_PMPI(Attr_get);

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return myr_attr_comm_delete("MPI_Attr_delete", comm, keyval);
}
int MPI_Attr_delete(MPI_Comm comm, int keyval) MYR_PMPI(Attr_delete);

int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return myr_errhandler_create("MPI_Errhandler_create", function, errhandler);
}
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
    MYR_PMPI(Errhandler_create);

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return myr_errhandler_set("MPI_Errhandler_set", comm, errhandler);
}
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) MYR_PMPI(Errhandler_set);

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return myr_errhandler_get("MPI_Errhandler_get", comm, errhandler);
}
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) MYR_PMPI(Errhandler_get);
