# One target per daily act. Everything installs itself: `make demo` and `make test` work
# on a fresh machine.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export DO_NOT_TRACK := 1
export HF_HUB_OFFLINE := 1

.PHONY: install system-deps services axe demo test test-fast lint bench clean

install: $(VENV)/.installed

# torch first and pinned: the CPU wheel on this machine; an unpinned torch pulls a CUDA build.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

# Debian's Chromium and its driver for the browser tests (never a downloaded browser).
system-deps:
	@command -v chromium >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)

# axe-core, the browser tests' accessibility check (tests/web/axe.py): the npm package pinned
# in tests/web/package-lock.json, installed from the npm registry (Debian's npm when missing).
AXE := tests/web/node_modules/axe-core/axe.min.js
axe: $(AXE)

$(AXE): tests/web/package.json tests/web/package-lock.json
	@command -v npm >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm)
	cd tests/web && npm ci --no-audit --no-fund --no-update-notifier
	touch $@

# PostgreSQL and Redis must answer for the integration tests; start them if they do not.
services:
	@bash scripts/services.sh

demo: install
	$(BIN)/docent demo

test: install system-deps services axe
	$(BIN)/pytest

test-fast: install
	$(BIN)/pytest -m "not integration and not slow and not browser"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install
	$(BIN)/python -m benchmarks

clean:
	rm -rf .docent .pytest_cache .mypy_cache .ruff_cache test-output
