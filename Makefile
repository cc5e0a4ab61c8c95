# The two commands of the README, plus helpers. CMake does the building.
JOBS ?= $(shell nproc)
BUILD ?= build

.PHONY: all deps demo check conformance conformance-omp bench bench-demo bench-lu bench-mm bench-imbalance bench-threads bench-omp bench-startup bench-coll bench-coll-nb bench-coll-procs bench-net plots clean install

all: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps --cross

# Headers, libraries, wrappers, mpiexec, pkg-config files and docs under
# PREFIX (docs/building.md); the installed tree can be moved afterwards.
PREFIX ?= /usr/local
install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# The main job: heat diffusion on 1024 ranks, checked against a serial run
# (examples/heat.c). RANKS and ARGS override the defaults, e.g.
# `make demo RANKS=4096 ARGS="-n 4096 -i 200"`.
RANKS ?= 1024
ARGS ?=
demo: all
	$(BUILD)/bin/mpiexec -n $(RANKS) $(BUILD)/examples/heat $(ARGS)

# The main job at 2 ... 4096 ranks beside its serial run, the 2-core limit
# and Open MPI at -np 2, measured in one run (scripts/bench-demo, issue 19).
bench-demo: all
	BUILD=$(BUILD) scripts/bench-demo $(BENCH_ARGS)

# The HPL-style LU (examples/lu.c: plain, look-ahead, dataflow tasks) at
# N = 2000 and 4000 on 2, 4 and 16 ranks, beside two dgemm calls at once
# and Open MPI's plain variant at -np 2 (scripts/bench-lu, issue 20).
bench-lu: all
	BUILD=$(BUILD) scripts/bench-lu $(BENCH_ARGS)

# The SUMMA matrix multiply (examples/mm.c) at N = 4096 on 1 ... 1024
# ranks, beside Open MPI at -np 1, 2, 4 and OpenBLAS dgemm on both cores
# (scripts/bench-mm, issue 19), e.g. BENCH_ARGS="-n 2048 --reps 2".
bench-mm: all
	BUILD=$(BUILD) scripts/bench-mm $(BENCH_ARGS)

# Unequal work per rank (bench/imbalance.c: patterns r mod 8 + 1, one rank
# 10x, random) at 16 ... 1024 ranks on 2 workers, against perfect balance
# and a static split over 2 processes, Open MPI and Myriad
# (scripts/bench-imbalance, issue 19).
bench-imbalance: all
	BUILD=$(BUILD) scripts/bench-imbalance $(BENCH_ARGS)

# Blocking MPI from many threads of a rank (bench/threads.c, seed 001):
# concurrent ping-pong of T = 1 ... 512 ULTs per rank and compute/wait
# overlap, beside Myriad with polling waiters (MYR_WAIT_POLICY=yield), Open
# MPI and MPICH with pthreads (scripts/bench-threads, issue 20; ~1-2 min).
bench-threads: all
	BUILD=$(BUILD) scripts/bench-threads $(BENCH_ARGS)

# OpenMP overheads (bench/omp.c: parallel, barrier, for, single, critical,
# reduction, task, nested) on Myriad's runtime beside libgomp, same run
# (scripts/bench-omp, issue 21).
bench-omp: all
	BUILD=$(BUILD) scripts/bench-omp $(BENCH_ARGS)

# The whole test suite: normal build, ASan+UBSan build, aarch64 under qemu.
check: deps
	@scripts/check

# MPICH's test suite (fetched into ~/.cache/myriad from Debian's mpich
# source package), every in-scope directory, once per configuration: one OS
# process per job (1), each job's ranks split over two OS processes (half),
# and, with CONFORMANCE_PROCS="1 half 2", two ranks per OS process (2).
# Prints the table per directory of each, then all the tables together.
CONFORMANCE_PROCS ?= 1 half
conformance: all
	@for procs in $(CONFORMANCE_PROCS); do \
		BUILD=$(BUILD) tests/mpich/run --procs $$procs || exit; done
	@for procs in $(CONFORMANCE_PROCS); do \
		echo; BUILD=$(BUILD) tests/mpich/run --procs $$procs --table; done

# gcc 12's libgomp C tests (fetched into ~/.cache/myriad from Debian's
# gcc-12 source package) on Myriad's OpenMP runtime: every in-scope test,
# then the totals (tests/omp/libgomp-suite; the ratchet is in make check).
conformance-omp: all
	BUILD=$(BUILD) tests/omp/libgomp-suite

# The ULT figures, then point-to-point side by side with Open MPI and MPICH
# (scripts/bench-mpi installs them with scripts/install-deps --bench).
bench: all
	$(BUILD)/bench/ult_bench
	BUILD=$(BUILD) scripts/bench-mpi

# Start-up time and memory per rank, globals private vs shared, N = 1 to
# 10000 ranks, next to one rank per process (bench/README.md).
bench-startup: all
	BUILD=$(BUILD) scripts/bench-startup

# Barrier and allreduce latency for N = 2 ... 4096 ranks and TMPI's rooted
# table (Reduce, Bcast, Allreduce), side by side with Open MPI and MPICH
# (bench/README.md). BENCH_ARGS go to scripts/bench-coll, e.g. BENCH_ARGS=--quick.
bench-coll: all
	BUILD=$(BUILD) scripts/bench-coll $(BENCH_ARGS)

# Only the tables of issue 22: nonblocking collectives + MPI_Wait beside
# their blocking forms for N = 2 ... 4096, every collective by size at N = 2
# and 4, and the overlap of a 64 KiB MPI_Iallreduce at N = 16.
bench-coll-nb: all
	BUILD=$(BUILD) scripts/bench-coll --nb-only $(BENCH_ARGS)

# Issue 18's table: collectives of N = 16 ... 1024 ranks spread over 2 and
# 4 OS processes beside one process and beside Open MPI and MPICH with a
# process per rank (up to 256): Barrier, Allreduce (1 double), TMPI's
# rooted table at 16 and 64, and Bcast 8 B / 64 KiB / 1 MiB, Allreduce
# 1 MiB, Alltoall 1 KiB by size (N = 2 for Allreduce 1 MiB against Open
# MPI's 2 processes); N = 32 gives the one-process figure of the targets.
bench-coll-procs: all
	BUILD=$(BUILD) scripts/bench-coll --procs 2,4 --ranks 2,16,32,64,256,1024 \
		--rooted 16,64 --sizes-ranks 2,16,64,256,1024 --sizes 8,1024,65536,1048576 \
		--size-ops bcast,allreduce,alltoall --overlap-ranks 0 $(BENCH_ARGS)

# Point-to-point between ranks of two OS processes over shared memory and
# TCP on loopback, message rate, overlap and start-up, side by side with
# Open MPI, MPICH and ucx_perftest (bench/README.md). BENCH_ARGS go to
# scripts/bench-net, e.g. BENCH_ARGS=--quick (under ~3 minutes).
bench-net: all
	BUILD=$(BUILD) scripts/bench-net $(BENCH_ARGS)

# The benchmarks' figures (docs/figures/*.png): runs the benchmarks behind
# them one after the other with quick options (~10 minutes), keeps their
# data in docs/figures/data, then draws them with gnuplot
# (scripts/plot-figures; `scripts/plot-figures` alone redraws from the data).
plots: all
	BUILD=$(BUILD) scripts/plot-figures --run

clean:
	rm -rf build build-asan build-aarch64
