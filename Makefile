# The developer's tasks. `make help` lists them; each is one command you can
# also type yourself (docs/contributing.md, "Tests, ruff and benchmarks").
VENV ?= .venv
PY ?= $(VENV)/bin/python
RUFF ?= $(VENV)/bin/ruff

.PHONY: help install lint format types test-fast test generate ci

help:
	@echo "make install    the venv with the dev extra ($(VENV))"
	@echo "make lint       ruff check and ruff format --check"
	@echo "make format     ruff check --fix and ruff format"
	@echo "make types      mypy over spiders tracker alerts db tests benchmarks"
	@echo "make test-fast  the fast loop: every room on SQLite, without the tests marked slow"
	@echo "make test       the whole suite, as CI runs it"
	@echo "make generate   regenerate docs/cli.md, deploy/k8s/cronjobs.yaml and docs/providers.md"
	@echo "make ci         bash .ci/run (installs, lint, types, the whole suite)"

install:
	python3 -m venv $(VENV) && $(VENV)/bin/pip install -q -e '.[dev]'

lint:
	$(RUFF) check .
	$(RUFF) format --check .

format:
	$(RUFF) check --fix .
	$(RUFF) format .

types:
	$(PY) -m mypy

test-fast:
	GPU_TRACKER_TEST_BACKENDS=sqlite GPU_TRACKER_FUZZ_SCALE=0.2 $(PY) -m pytest -m "not slow and not postgres" -q

test:
	$(PY) -m pytest

# Written to a temporary file first: a failing generator leaves the file as it was.
generate:
	$(PY) -m tracker.cli.reference > docs/cli.md.tmp && mv docs/cli.md.tmp docs/cli.md
	$(PY) -m tracker.daemon.k8s > deploy/k8s/cronjobs.yaml.tmp && mv deploy/k8s/cronjobs.yaml.tmp deploy/k8s/cronjobs.yaml
	$(PY) -m tracker.cli.providers > docs/providers.md.tmp && mv docs/providers.md.tmp docs/providers.md

ci:
	bash .ci/run
