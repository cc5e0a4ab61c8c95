/*
 * misc.c — the rest of gcc 12's GOMP ABI: the error directive and the
 * entry points Myriad does not implement (each aborts naming itself;
 * docs/openmp.md lists them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp/omp_impl.h"

/* `#pragma omp error`: at run time, severity(fatal) ends the program. */
void GOMP_warning(const char *msg, size_t len)
{
    if (msg)
        fprintf(stderr, "OpenMP warning: %.*s\n", (int)len, msg);
    else
        fprintf(stderr, "OpenMP warning: '#pragma omp error' encountered\n");
}

void GOMP_error(const char *msg, size_t len)
{
    if (msg)
        fprintf(stderr, "OpenMP error: %.*s\n", (int)len, msg);
    else
        fprintf(stderr, "OpenMP error: '#pragma omp error' encountered\n");
    exit(EXIT_FAILURE);
}

#define UNSUPPORTED(name, what)                                               \
    void name(void) { myr_omp_unsupported(#name " (" what ")"); }

UNSUPPORTED(GOMP_parallel_loop_static_start, "the ABI of gcc before 4.9")
UNSUPPORTED(GOMP_parallel_loop_dynamic_start, "the ABI of gcc before 4.9")
UNSUPPORTED(GOMP_parallel_loop_guided_start, "the ABI of gcc before 4.9")
UNSUPPORTED(GOMP_parallel_loop_runtime_start, "the ABI of gcc before 4.9")
UNSUPPORTED(GOMP_parallel_sections_start, "the ABI of gcc before 4.9")
UNSUPPORTED(GOMP_teams4, "the teams construct")
UNSUPPORTED(GOMP_target, "target offload")
UNSUPPORTED(GOMP_target_ext, "target offload")
UNSUPPORTED(GOMP_target_data, "target offload")
UNSUPPORTED(GOMP_target_data_ext, "target offload")
UNSUPPORTED(GOMP_target_end_data, "target offload")
UNSUPPORTED(GOMP_target_update, "target offload")
UNSUPPORTED(GOMP_target_update_ext, "target offload")
UNSUPPORTED(GOMP_target_enter_exit_data, "target offload")
UNSUPPORTED(GOMP_offload_register, "target offload")
UNSUPPORTED(GOMP_offload_register_ver, "target offload")
UNSUPPORTED(GOMP_offload_unregister, "target offload")
UNSUPPORTED(GOMP_offload_unregister_ver, "target offload")
