#!/bin/sh
# scripts/plot-figures --from on tiny data files in the bench scripts'
# formats: the figures whose data is there are PNGs, the others are
# skipped, and columns are found by name (this p2p file has two libraries
# only, in another order than bench-mpi writes them). Exit 77 (skipped)
# without gnuplot.
# Usage: plot_figures_check.sh SOURCE_DIR WORK_DIR
set -eu
src=$1 work=$2
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work/data"
cat >"$work/data/demo.dat" <<'DAT'
# examples/heat.c: 2048 x 2048 plate, 200 iterations; 2 CPUs
# ranks myriad serial openmpi_np2
2 0.8 1.2 0.9
16 0.75 1.2 0.9
64 - 1.2 0.9
DAT
cat >"$work/data/p2p-latency.dat" <<'DAT'
# latency: ping-pong half round trip, us (best of the runs)
# a dash: not run
# bytes openmpi myriad_same_worker
0 0.1 0.04
8 0.12 0.04
1024 0.5 0.07
DAT
"$src/scripts/plot-figures" --from "$work/data" --to "$work/out" >"$work/log" 2>&1 ||
    { cat "$work/log"; exit 1; }
for png in demo-scaling p2p-latency; do
    # The PNG signature: \211 P N G.
    [ "$(head -c 4 "$work/out/$png.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
        { echo "$png.png is not a PNG"; cat "$work/log"; exit 1; }
done
if [ -e "$work/out/mm-curve.png" ] || ! grep -q 'skipped mm-curve.png (no mm.dat)' "$work/log"; then
    echo "mm-curve.png was not skipped"; cat "$work/log"; exit 1
fi
echo "ok"
