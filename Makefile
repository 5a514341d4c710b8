# ATC Mesh — the two commands: `make run` and `make test`.
# Everything installs into .venv from the package registries; nothing else is needed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Headless Chromium for the chat page's browser test (Debian's package; no browser download).
CHROMIUM := /usr/bin/chromium

TOOLS := .venv-tools
TOOLS_STAMP := $(TOOLS)/.installed
# The images' registry and tag live in one place: deploy/k8s/components/image/kustomization.yaml.
IMAGES_FILE := deploy/k8s/components/image/kustomization.yaml
image_ref = $(shell awk '/- name:/{m=($$3=="$(1)")} m&&/newName:/{n=$$2} m&&/newTag:/{t=$$2} END{print n ":" t}' $(IMAGES_FILE))
IMAGE = $(call image_ref,atc-mesh)
DEVTOOLS_IMAGE = $(call image_ref,atc-mesh-devtools)

.PHONY: run test test-fast lint typecheck proto format bench constraints clean tools image push

# Every dependency is pinned by constraints.txt (the whole set, transitive ones included).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

## Start the whole mesh on embedded defaults and print the chat URL.
run: $(STAMP)
	$(BIN)/atc up $(ARGS)

$(CHROMIUM):
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

## Run the whole test suite (includes ruff, mypy, buf lint/format/breaking, the proto drift check
## and the chat page in headless Chromium).
# Two workers, one per core (pytest-xdist), a test file per worker at a time: a file's
# fixtures (a mesh, a model) start once. Most of the suite's time is servers starting.
test: $(STAMP) $(TOOLS_STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest -n 2 --dist loadfile

## The fast lane (unit + integration, no whole-mesh, reliability or gate tests): for the
## edit-test loop. `make test` stays the gate and runs everything.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "unit or integration"

## The tools venv for tests/test_deploy.py (kubernetes-validate, xds-protos): apart from
## .venv because their top-level packages clash with the mesh's.
$(TOOLS_STAMP): deploy/tools-requirements.txt
	test -x $(TOOLS)/bin/python || $(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --upgrade pip
	$(TOOLS)/bin/python -m pip install --quiet -r deploy/tools-requirements.txt
	touch $(TOOLS_STAMP)

tools: $(TOOLS_STAMP)

## Build the mesh's images (context: this folder): the runtime image and the devtools one
## (demo APIs, `atc seed`). Needs a Docker engine, which this development machine does not have.
image:
	@docker info >/dev/null 2>&1 || { echo "make image: no Docker engine reachable here; where one runs: docker build -f deploy/Dockerfile --target runtime -t $(IMAGE) . && docker build -f deploy/Dockerfile --target devtools -t $(DEVTOOLS_IMAGE) ." >&2; exit 1; }
	docker build -f deploy/Dockerfile --target runtime -t $(IMAGE) .
	docker build -f deploy/Dockerfile --target devtools -t $(DEVTOOLS_IMAGE) .

push: image
	docker push $(IMAGE)
	docker push $(DEVTOOLS_IMAGE)

## buf lint + buf format + ruff + mypy.
lint: $(STAMP)
	$(BIN)/buf lint
	$(BIN)/buf format -d --exit-code
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(MAKE) typecheck

typecheck: $(STAMP)
	$(BIN)/mypy --disallow-untyped-defs services edge_svc indexer_svc classifier_svc loop_svc caller_svc devtools

## Re-pin constraints.txt from .venv after a dependency change in pyproject.toml.
constraints: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	{ head -n 2 constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -vi '^atc-mesh'; } > constraints.tmp
	mv constraints.tmp constraints.txt

## Regenerate the Python code for protos/ (commit the result).
proto: $(STAMP)
	$(BIN)/buf lint
	$(BIN)/buf format -w
	$(BIN)/python -m devtools.protogen

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	$(BIN)/buf format -w

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

clean:
	rm -rf $(VENV) $(TOOLS) .atc .pytest_cache .mypy_cache .ruff_cache
