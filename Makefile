# Two commands do all the set-up on a fresh machine with only Python and pip:
#   make run    creates .venv, installs evalrun, scores the example corpus in traces/
#   make test   creates .venv, installs evalrun with its dev extras, runs ruff and pytest
#   make bench  creates .venv/bench with the peers (the bench extra, which pulls in PyTorch, so it
#               stays out of the dev environment), then runs scripts/bench.py (BENCH_ARGS=...)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BENCH_VENV  := $(VENV)/bench
BENCH_STAMP := $(BENCH_VENV)/.installed
BENCH_ARGS  ?=

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/evalrun score traces/

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest

$(BENCH_STAMP): pyproject.toml
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python scripts/bench.py $(BENCH_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
