#!/bin/sh
# heat_bound computes heat's plate: the same checksum as examples/heat on
# 64 ranks (MYR_NRANKS, set by the test), for the same options. Any
# arguments after the two programs run them (an emulator when cross
# compiling).
# Usage: heat_bound_check.sh HEAT HEAT_BOUND [EMULATOR...]
set -eu
heat=$1 bound=$2
shift 2
opts="-n 256 -i 200 -k 20"
h=$("$@" "$heat" $opts | sed -n 's/^checksum: \([^ ]*\).*/\1/p')
b=$("$@" "$bound" -b 64 -T 2 $opts | sed -n 's/^checksum: \([^ ]*\).*/\1/p')
echo "heat on 64 ranks: $h"
echo "heat_bound, 64 blocks: $b"
[ -n "$h" ] && [ "$h" = "$b" ]
