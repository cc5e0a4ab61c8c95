/*
 * place.c — one process of a job started by a PMIx launcher: prints its
 * place (net/wireup.c) and checks an exchange with every other process.
 * Usage: net_place [ranks of this process]; without the argument, the
 * count the runtime would take (MYR_NRANKS, which mpiexec -n/-nfg sets per
 * process; else 1). Run under mpiexec -nfg or Open MPI's mpirun
 * (tests/net/CMakeLists.txt, tests/tools/launcher.cmake).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int main(int argc, char **argv)
{
    const char *nranks = getenv("MYR_NRANKS");
    long local = argc > 1 ? atol(argv[1]) : nranks ? atol(nranks) : 1;
    if (myr_net_place_init(local) != 0)
        return 1;
    const myr_net_place *p = &myr_net_the_place;
    printf("process %d of %d (%s): ranks %ld..%ld of %ld, %d of %d on this node\n",
           p->proc, p->nprocs, p->launcher, p->first, p->first + p->local - 1,
           p->job_size, p->node_index, p->node_procs);
    char mine[64];
    snprintf(mine, sizeof mine, "hello from process %d", p->proc);
    if (myr_net_publish("test.hello", mine, strlen(mine) + 1) != 0)
        return 1;
    int bad = 0;
    for (int q = 0; q < p->nprocs; q++) {
        size_t len;
        char *theirs = p->nprocs > 1 ? myr_net_lookup(q, "test.hello", &len) : NULL;
        char want[64];
        snprintf(want, sizeof want, "hello from process %d", q);
        if (p->nprocs > 1 && (!theirs || strcmp(theirs, want) != 0)) {
            printf("process %d: wrong value from %d: %s\n", p->proc, q, theirs ? theirs : "(none)");
            bad = 1;
        }
        free(theirs);
        if (myr_net_proc_of(p->proc_first[q]) != q ||
            myr_net_proc_of(p->proc_first[q + 1] - 1) != q) {
            printf("process %d: myr_net_proc_of is wrong for process %d\n", p->proc, q);
            bad = 1;
        }
    }
    if (myr_net_fence() != 0)
        return 1;
    myr_net_place_fini();
    printf("process %d: %s\n", p->proc, bad ? "FAILED" : "ok");
    return bad;
}
