#!/bin/sh
# rank_script.sh MODE — a program not built with Myriad, for mpiexec's
# tests (a script runs natively in cross builds too). print: what the
# launcher told this process; exit N: exit with N + the rank; pwd: where it
# runs; sleep S: sleep (as the process itself, which a signal ends);
# env NAME: a variable.
case $1 in
    print) echo "rank $PMI_RANK of $PMI_SIZE, ompi $OMPI_COMM_WORLD_RANK of $OMPI_COMM_WORLD_SIZE, local $OMPI_COMM_WORLD_LOCAL_RANK" ;;
    exit) exit $(($2 + PMI_RANK)) ;;
    pwd) pwd ;;
    sleep) exec sleep "$2" ;;
    env) eval "echo \"$2=\${$2-(unset)}\"" ;;
    *) echo "rank_script.sh: unknown mode '$1'" >&2; exit 2 ;;
esac
