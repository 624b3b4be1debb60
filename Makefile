# Two commands do all the set-up on a fresh machine with only Python and pip:
#   make run    creates .venv, installs evalrun (what running needs, nothing more), scores the
#               example corpus in traces/
#   make test   creates .venv, installs evalrun with its dev extras (pytest, hypothesis, ruff,
#               mypy, Dask, Playwright), runs ruff, mypy and pytest
#   make fuzz   the long fuzz run and every property test on the thorough hypothesis profile
#               (make test runs the quick one: tests/conftest.py)
#   make fixtures  creates .venv/frameworks with the agent frameworks (the frameworks extra) and
#               rewrites tests/data/frameworks/ with scripts/framework_traces.py (offline); the
#               frameworks of OWN_FRAMEWORKS each in .venv/frameworks-NAME (its extra
#               frameworks-NAME)
#   make integrations  creates .venv/integrations with Inspect AI, DeepEval and MLflow (the
#               integrations extra, about 1.2 GB: kept out of the dev environment) and runs
#               tests/test_integrations.py there, offline
#   make run and make test also build the native core (native/, the evalrun_native extension,
#               Rust through maturin) into .venv when cargo is there, and say in one line when it
#               is not (then the Python core runs); a build that fails where cargo is fails make
#   make bench  creates .venv/bench with the peers (the bench extra, which pulls in PyTorch, so it
#               stays out of the dev environment) and the native core where cargo is, then runs
#               scripts/bench.py (BENCH_ARGS=...)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
BENCH_VENV  := $(VENV)/bench
BENCH_STAMP := $(BENCH_VENV)/.installed
BENCH_ARGS  ?=
FRAMEWORKS_VENV  := $(VENV)/frameworks
FRAMEWORKS_STAMP := $(FRAMEWORKS_VENV)/.installed
# frameworks driven each in a venv of its own (scripts/framework_traces.py OWN_VENV)
OWN_FRAMEWORKS   := mlflow langfuse crewai agno
OWN_STAMPS       := $(foreach f,$(OWN_FRAMEWORKS),$(VENV)/frameworks-$(f)/.installed)
FUZZ_EXAMPLES ?= 20000
INTEGRATIONS_VENV  := $(VENV)/integrations
INTEGRATIONS_STAMP := $(INTEGRATIONS_VENV)/.installed
NATIVE_STAMP := $(VENV)/.installed-native
NATIVE_SOURCES := $(wildcard native/Cargo.toml native/Cargo.lock native/pyproject.toml native/evalrun_native.pyi native/src/*.rs)
HAVE_CARGO := $(shell command -v cargo >/dev/null 2>&1 && echo yes)
# The test files run a second time on the Python core (EVALRUN_CORE=python): the scenarios and
# the grading laws, which the native core's suite run does not exercise on the fallback.
PYTHON_CORE_TESTS ?= tests/test_corpus.py tests/test_grading.py tests/test_compare.py tests/test_norms.py
# pytest-xdist: the suite on two workers (the machines it runs on have two cores)
PYTEST_JOBS ?= 2

# A .venv whose Python is gone, moved or too old (made by another PYTHON) is rebuilt, not kept
# failing until `make clean`.
ifneq ($(wildcard $(VENV)),)
  ifneq ($(shell $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null && echo ok),ok)
    $(info $(VENV) was made by a Python evalrun cannot use (missing, moved, or older than 3.10): rebuilding it with $(PYTHON))
    $(shell rm -rf $(VENV))
  endif
endif

.PHONY: run test native lint typecheck fuzz bench fixtures integrations clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "evalrun needs Python 3.10 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1). Run: make PYTHON=python3.11 ..." >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP) $(RUN_STAMP)

# The native core, when cargo is there: pip builds it with maturin (an isolated build: maturin is
# needed at build time only) and installs the evalrun_native module; nothing new at run time.
$(NATIVE_STAMP): $(NATIVE_SOURCES) | $(BIN)/python
ifeq ($(HAVE_CARGO),yes)
	$(BIN)/python -m pip install --quiet --force-reinstall --no-deps ./native
	touch $(NATIVE_STAMP)
else
	@echo "no cargo here: the native core is not built, evalrun runs its Python core"
endif

native: $(NATIVE_STAMP)

# The package's bytecode, written once: an editable install leaves it to the first import, and a
# machine that sets PYTHONDONTWRITEBYTECODE then compiles every module on every start (about half
# of `evalrun score`'s start-up there; BENCHMARKS.md, "Issue 31: start-up"). Only changed files
# are compiled again; Python reads a .pyc only while its source is unchanged.
run: $(RUN_STAMP) $(NATIVE_STAMP)
	@$(BIN)/python -m compileall -q evalrunner
	$(BIN)/evalrun score traces/

# Where cargo is, the suite runs on the native core, required (EVALRUN_CORE=native: a broken
# build fails, it does not fall back), then the scenario and law files on the Python core.
test: $(DEV_STAMP) $(NATIVE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
ifeq ($(HAVE_CARGO),yes)
	EVALRUN_CORE=native $(BIN)/pytest -n $(PYTEST_JOBS)
	EVALRUN_CORE=python $(BIN)/pytest -n $(PYTEST_JOBS) $(PYTHON_CORE_TESTS)
else
	$(BIN)/pytest -n $(PYTEST_JOBS)
endif

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

fuzz: $(DEV_STAMP)
	EVALRUN_HYPOTHESIS=thorough EVALRUN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -n $(PYTEST_JOBS) -m hypothesis

$(BENCH_STAMP): pyproject.toml $(NATIVE_SOURCES)
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[bench]'
ifeq ($(HAVE_CARGO),yes)
	$(BENCH_VENV)/bin/python -m pip install --quiet --force-reinstall --no-deps ./native
else
	@echo "no cargo here: the bench measures evalrun's Python core"
endif
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python scripts/bench.py $(BENCH_ARGS)

$(FRAMEWORKS_STAMP): pyproject.toml
	test -x $(FRAMEWORKS_VENV)/bin/python || $(PYTHON) -m venv $(FRAMEWORKS_VENV)
	$(FRAMEWORKS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FRAMEWORKS_VENV)/bin/python -m pip install --quiet -e '.[frameworks]'
	touch $(FRAMEWORKS_STAMP)

$(VENV)/frameworks-%/.installed: pyproject.toml
	test -x $(VENV)/frameworks-$*/bin/python || $(PYTHON) -m venv $(VENV)/frameworks-$*
	$(VENV)/frameworks-$*/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/frameworks-$*/bin/python -m pip install --quiet -e '.[frameworks-$*]'
	touch $@

fixtures: $(FRAMEWORKS_STAMP) $(OWN_STAMPS)
	$(FRAMEWORKS_VENV)/bin/python scripts/framework_traces.py
	for f in $(OWN_FRAMEWORKS); do $(VENV)/frameworks-$$f/bin/python scripts/framework_traces.py $$f || exit 1; done

$(INTEGRATIONS_STAMP): pyproject.toml
	test -x $(INTEGRATIONS_VENV)/bin/python || $(PYTHON) -m venv $(INTEGRATIONS_VENV)
	$(INTEGRATIONS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(INTEGRATIONS_VENV)/bin/python -m pip install --quiet -e '.[integrations]'
	touch $(INTEGRATIONS_STAMP)

# deepeval brings pytest-asyncio, which warns (an error here) unless its loop scope is set
integrations: $(INTEGRATIONS_STAMP)
	DEEPEVAL_TELEMETRY_OPT_OUT=YES $(INTEGRATIONS_VENV)/bin/python -m pytest -p no:cacheprovider \
	  -o asyncio_default_fixture_loop_scope=function tests/test_integrations.py

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis tests/artifacts native/target
