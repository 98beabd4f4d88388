# kadmin: `make demo` and `make test` do all the set-up on a fresh machine.
# Prerequisites: Python 3.10+, Java 17 (ZooKeeper and Spark); Debian's zookeeper and kcat are
# installed by `make system-deps` when missing (needs root and apt).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

.PHONY: help venv system-deps lint test test-fast demo bench completions wheel-check clean

help:
	@echo "make demo         set up, start a sandbox cluster, run the walkthrough, stop it"
	@echo "make test         set up everything (apt + pip) and run the whole test suite"
	@echo "make lint         ruff (lint and format check) and mypy over kadmin/ and commands/"
	@echo "make bench        print the table of performance figures"
	@echo "make completions  regenerate completions/ from the Click tree"

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip==25.3" "setuptools==80.9.0" "wheel==0.45.1"
	$(PIP) install --quiet -c constraints.txt -e ".[test,spark]"
	touch $(STAMP)

venv: $(STAMP)

# Debian packages the tests need: ZooKeeper (a real server for ZooKeeper mode), kcat (a third
# client against the sandbox) and a Java runtime (ZooKeeper, Spark).
system-deps:
	@missing=""; \
	[ -f /usr/share/java/zookeeper.jar ] || missing="$$missing zookeeper"; \
	command -v kcat >/dev/null 2>&1 || missing="$$missing kcat"; \
	command -v java >/dev/null 2>&1 || missing="$$missing openjdk-17-jre-headless"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Settings in pyproject.toml ([tool.ruff], [tool.mypy]). scripts/mypy.sh lays out kadmin.commands
# the way the package installs it, which mypy cannot do from the source tree.
lint: venv
	$(VENV)/bin/ruff check kadmin commands
	$(VENV)/bin/ruff format --check kadmin commands
	MYPY=$(VENV)/bin/mypy bash scripts/mypy.sh

test: system-deps venv
	SPARK_LOCAL_IP=127.0.0.1 $(PY) -m pytest -q -p no:cacheprovider

test-fast: venv
	SPARK_LOCAL_IP=127.0.0.1 $(PY) -m pytest -q -x -m "not slow and not spark"

demo: venv
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

bench: venv
	SPARK_LOCAL_IP=127.0.0.1 $(PY) bench/run.py

completions: venv
	$(PY) scripts/gen_completions.py

# Build a wheel, install it into a fresh venv, and run it from there (CI does this).
wheel-check: venv
	bash scripts/wheel_check.sh

clean:
	rm -rf $(VENV) build dist *.egg-info
