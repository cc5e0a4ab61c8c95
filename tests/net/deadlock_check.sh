#!/bin/sh
# deadlock_check.sh STATUS PATTERN... -- MPIEXEC-COMMAND...
# A job of several OS processes that must be ended (a deadlock, or the
# time limit): job_check.sh's checks, within BOUND seconds (default 30),
# the PATTERNs in order and the last one on the last line.
exec sh "$(dirname "$0")/../tools/job_check.sh" --bound "${BOUND:-30}" --last "$@"
