# The two commands of the README: `make demo` and `make test`.
# Each creates .venv when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# Four pytest workers on two cores: Pilot tests spend part of their time waiting (timers, the sandbox, pauses), so
# two workers would leave the cores idle; one worker spends the wall-screen window waiting on real dashboards
# (tests/conftest.py hands out the long tests first), whose shared answers need their timers on time: a fifth busy
# worker made them late enough to miss.
TEST_WORKERS ?= 4

.PHONY: demo test bench lint screenshots mutate clean

# `make demo` installs what the dashboard and its sandbox need; `make test` (and lint, bench, screenshots) adds the
# dev tools to the same venv. An editable install is not byte-compiled (pip compiles what it copies): start-up would
# pay ~30 ms to compile tui/ wherever PYTHONDONTWRITEBYTECODE is set, hence compileall.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -e .
	@$(BIN)/python -m compileall -q tui
	@touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	@$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(DEV_STAMP)

demo: $(STAMP)
	$(BIN)/watchdeck --demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check tui tests
	$(BIN)/mypy tui

# Tests assert where the screen ends up, not the frames of a scroll on the way: TEXTUAL_ANIMATIONS=none skips those
# frames (set here because Textual reads it when first imported, before any conftest runs). pytest keeps each test
# module it rewrites (for its assert messages) as a .pyc in __pycache__, unless PYTHONDONTWRITEBYTECODE is set: then
# every worker rewrites all of them on every run, seconds of CPU each. The test run writes bytecode, as Python does
# by default; __pycache__ is ignored by git.
test: lint
	TEXTUAL_ANIMATIONS=none PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# The soaks' lengths are environment variables, short by default: WATCHDECK_SOAK_MINUTES (the churning soaks of the
# monitor and the exporter, default 3; their targets are for 30), WATCHDECK_SOAK_DAYS and WATCHDECK_SOAK_SPEED (the
# simulated week: 7 days at 2880 times the wall's clock, about 4 minutes), WATCHDECK_SOAK_CYCLES (the soaks with
# faults, in polls) and WATCHDECK_IDLE_SECONDS (the idle CPU window, default 60). For example:
#   WATCHDECK_SOAK_MINUTES=30 make bench
bench: $(DEV_STAMP)
	$(BIN)/python -m pytest -q -s tests/benchmarks -p no:cacheprovider --override-ini addopts=

# The mutation audit: mutmut over the modules and fast tests pyproject.toml names ([tool.mutmut]); prints the score.
mutate: $(DEV_STAMP)
	rm -rf mutants
	TEXTUAL_ANIMATIONS=none $(BIN)/mutmut run
	$(BIN)/mutmut export-cicd-stats
	$(BIN)/python -m tui.tools.mutation_score mutants/mutmut-cicd-stats.json

screenshots: $(DEV_STAMP)
	$(BIN)/python -m tui.tools.screenshots screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache mutants
