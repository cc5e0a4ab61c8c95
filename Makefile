# The two commands of the README, plus helpers. CMake does the building.
JOBS ?= $(shell nproc)
BUILD ?= build

.PHONY: all deps demo check bench clean

all: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps --cross

# The main job. Until the MPI layer exists: a ULT demo.
demo: all
	$(BUILD)/examples/ult_demo

# The whole test suite: normal build, ASan+UBSan build, aarch64 under qemu.
check: deps
	@scripts/check

bench: all
	$(BUILD)/bench/ult_bench

clean:
	rm -rf build build-asan build-aarch64
