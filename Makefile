# Every target makes its own .venv, so a fresh clone needs nothing but python3 (≥ 3.11).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: serve test check bench format clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# Stamps re-run the install whenever pyproject.toml changes.
$(VENV)/.installed-serve: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[providers]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[dev]'
	touch $@ $(VENV)/.installed-serve

$(VENV)/.installed-bench: pyproject.toml $(VENV)/.installed-dev
	$(PIP) install -e '.[bench]'
	touch $@

serve: $(VENV)/.installed-serve
	$(BIN)/runyard serve

check: $(VENV)/.installed-dev
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/mypy
	$(BIN)/lint-imports

# Branch coverage of src/ may not fall below the floor (93% when it was set; the misses are listed).
test: check
	$(BIN)/pytest --cov=runyard --cov-branch --cov-report=term-missing:skip-covered --cov-fail-under=92

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/runtime_overhead.py
	$(BIN)/python benchmarks/cold_start.py

format: $(VENV)/.installed-dev
	$(BIN)/ruff format src tests benchmarks examples
	$(BIN)/ruff check --fix src tests benchmarks examples

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
