# OpenSCC top-level commands (README): make, make demo, make test, make bench.
BUILD      ?= build
ASAN_BUILD ?= build-asan
PREFIX     ?= /usr/local
JOBS       ?= 2
PYTHON     ?= python3

.PHONY: all build test-asan-build demo test test-unit test-integration test-asan bench validate calibrate mpi-library-cost install clean deps

all: build

deps:
	@OPENSCC_DEPS_LOG=$(BUILD)/install-deps.log sh scripts/install-deps.sh

# Configured after deps: the MPI providers' flavours are built only when CMake
# finds libfabric-dev and the .venv's MPICH (docs/mpi.md "Dependencies").
$(BUILD)/Makefile: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j$(JOBS)

$(ASAN_BUILD)/Makefile: | deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DOPENSCC_SANITIZE=ON

test-asan-build: deps $(ASAN_BUILD)/Makefile
	cmake --build $(ASAN_BUILD) -j$(JOBS)

demo: deps build
	@sh scripts/demo.sh $(BUILD)

test: deps build test-asan-build
	cd $(BUILD) && ctest --output-on-failure
	cd $(ASAN_BUILD) && ctest --output-on-failure
	$(PYTHON) -m pytest -q tests/integration python/tests
	sh scripts/check-format.sh

# BASELINE=REV: the revision the A/B group compares this tree with (default: bench/ab-baseline).
bench: build
	@OPENSCC_DEPS_LOG=$(BUILD)/install-deps.log sh scripts/install-deps.sh --bench
	$(PYTHON) bench/run_bench.py --build $(BUILD) $(if $(BASELINE),--baseline $(BASELINE))
	$(PYTHON) bench/model_bench.py --build $(BUILD)
	$(PYTHON) bench/trace_bench.py --build $(BUILD)
	$(PYTHON) bench/svm_bench.py --build $(BUILD)
	$(PYTHON) bench/mpi_bench.py --build $(BUILD)
	$(PYTHON) bench/python_bench.py --build $(BUILD)
	$(PYTHON) bench/hosts_bench.py --build $(BUILD)
	$(PYTHON) bench/hosts_scale.py --build $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

# The timing model against published figures (docs/model.md "Validation").
validate: build
	$(PYTHON) validate/run_validate.py --build $(BUILD)

# The computation constants of the timing model for this host (docs/model.md).
calibrate: build
	$(PYTHON) validate/calibrate.py --build $(BUILD)

# The MPI libraries' own work per message call, priced as the P54C's (docs/model.md).
mpi-library-cost: build
	$(PYTHON) validate/mpi_library_cost.py --build $(BUILD)
