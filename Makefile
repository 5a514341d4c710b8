# ATC Mesh — the two commands: `make run` and `make test`.
# Everything installs into .venv from the package registries; nothing else is needed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Headless Chromium for the chat page's browser test (Debian's package; no browser download).
CHROMIUM := /usr/bin/chromium

.PHONY: run test lint proto format bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## Start the whole mesh on embedded defaults and print the chat URL.
run: $(STAMP)
	$(BIN)/atc up $(ARGS)

$(CHROMIUM):
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

## Run the whole test suite (includes buf lint/format and the proto drift check).
test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest

## buf lint + buf format + ruff + mypy.
lint: $(STAMP)
	$(BIN)/buf lint
	$(BIN)/buf format -d --exit-code
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy services indexer_svc classifier_svc loop_svc caller_svc

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
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .atc .pytest_cache .mypy_cache .ruff_cache
