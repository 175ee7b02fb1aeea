# Knock: `make run` starts the product, `make test` runs the checks. Both set themselves up.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKER_CONCURRENCY ?= 2

.PHONY: run test lint format bench clean chromium constraints messages

# The browser tests drive Debian's chromium (Playwright's own browser download cannot work
# offline); `make test` installs the package when it is missing.
CHROMIUM := /usr/bin/chromium
APT_GET := $(shell [ "$$(id -u)" = 0 ] || echo sudo) apt-get

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Knock needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Stamps: reinstall only when pyproject.toml or constraints.txt changes, so a second run is
# quick. Every install takes the exact versions in constraints.txt (as the image does).
$(VENV)/.installed: pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -c constraints.txt -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $@ $(VENV)/.installed

# After changing dependencies in pyproject.toml: install them, then pin what was installed.
constraints: | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) deploy/constraints.py
	@touch $(VENV)/.installed-dev $(VENV)/.installed

# The translations (locale/*/LC_MESSAGES/*.po) compiled to .mo with Babel, a pinned
# dependency: no gettext needed (config/ops/management/commands/compilemessages.py).
messages: $(VENV)/.installed
	$(PY) manage.py compilemessages

run: $(VENV)/.installed messages
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py collectstatic --noinput --verbosity 0
	@if $(PY) -c 'import sys; from config.env import env_bool; sys.exit(not env_bool("DEBUG", True))'; \
	then $(PY) manage.py load_demo --site-url http://$(HOST):$(PORT); else echo "DEBUG is off: production mode, no demo data"; fi
	@echo "Knock is starting at http://$(HOST):$(PORT)/ (Ctrl-C stops the web server, the worker and beat)"
	DEBUG=$${DEBUG:-1} exec $(PY) manage.py serve --host $(HOST) --port $(PORT) \
		--concurrency $(WORKER_CONCURRENCY)

chromium:
	@[ -x $(CHROMIUM) ] || { \
		echo "Installing Debian's chromium for the browser tests: $(strip $(APT_GET)) install -y chromium"; \
		$(strip $(APT_GET)) install -y -qq chromium >/dev/null 2>&1 \
		|| { $(strip $(APT_GET)) update -qq >/dev/null && $(strip $(APT_GET)) install -y -qq chromium >/dev/null; } \
		|| { echo "Could not install chromium; install it (Debian: apt-get install -y chromium) and rerun make test" >&2; exit 1; }; \
	}

test: $(VENV)/.installed-dev chromium messages
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
