#!/bin/sh
# launcher_failure.sh STATUS PATTERN -- MPIEXEC-COMMAND...
# A job of several OS processes that fails: job_check.sh's checks (status
# within BOUND seconds, default 15; a line matching PATTERN; no process
# left).
exec sh "$(dirname "$0")/job_check.sh" --bound "${BOUND:-15}" "$@"
