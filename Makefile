# ATC Mesh — the two commands: `make run` and `make test`.
# Everything installs into .venv from the package registries; nothing else is needed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck proto format bench constraints clean

# Every dependency is pinned by constraints.txt (the whole set, transitive ones included).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

## Start the whole mesh on embedded defaults and print the chat URL.
run: $(STAMP)
	$(BIN)/atc up $(ARGS)

## Run the whole test suite (includes ruff, mypy, buf lint/format/breaking and the proto drift check).
test: $(STAMP)
	$(BIN)/python -m pytest

## buf lint + buf format + ruff + mypy.
lint: $(STAMP)
	$(BIN)/buf lint
	$(BIN)/buf format -d --exit-code
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(MAKE) typecheck

typecheck: $(STAMP)
	$(BIN)/mypy --disallow-untyped-defs services indexer_svc classifier_svc loop_svc caller_svc

## Re-pin constraints.txt from .venv after a dependency change in pyproject.toml.
constraints: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	{ head -n 2 constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -vi '^atc-mesh'; } > constraints.tmp
	mv constraints.tmp constraints.txt

## Regenerate the Python code for protos/ (commit the result).
proto: $(STAMP)
	$(BIN)/buf lint
	$(BIN)/buf format -w
	$(BIN)/python -m services.protogen

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	$(BIN)/buf format -w

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

clean:
	rm -rf $(VENV) .atc .pytest_cache .mypy_cache .ruff_cache
