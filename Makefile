# Knock: `make run` starts the product, `make test` runs the checks. Both set themselves up.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKER_CONCURRENCY ?= 2

.PHONY: run test lint format bench clean

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Knock needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Stamps: reinstall only when pyproject.toml changes, so a second run is quick.
$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py collectstatic --noinput --verbosity 0
	@if $(PY) -c 'import sys; from config.env import env_bool; sys.exit(not env_bool("DEBUG", True))'; \
	then $(PY) manage.py load_demo; else echo "DEBUG is off: production mode, no demo data"; fi
	@echo "Knock is starting at http://$(HOST):$(PORT)/ (Ctrl-C stops the web server, the worker and beat)"
	DEBUG=$${DEBUG:-1} exec $(PY) manage.py serve --host $(HOST) --port $(PORT) \
		--concurrency $(WORKER_CONCURRENCY)

test: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
