# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo

.PHONY: demo test fuzz bench install clean chromium texlive java postgres-start postgres-stop docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A stamp per extra, so `make test` after `make demo` only adds what the tests need.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/irw demo $(DEMO_DIR)

# The PostgreSQL tests (marker `postgres`) run against the server at IRW_TEST_POSTGRES. Unless it is
# set, `make test` starts a throwaway PostgreSQL 15 cluster for the run (scripts/postgres.sh: as root
# on Debian it installs Debian's postgresql when missing; elsewhere it says how) and always stops it
# and removes it afterwards, keeping pytest's exit status. Without a server those tests skip, except
# under CI, where they fail.
# The suite runs on every core (pytest-xdist), at most four workers; a test file stays on one worker, so
# a file's module fixtures (a Spark evaluation, a DL19 warehouse) are built once. Each worker has its
# own Chromium; the files that use Spark go to one worker together (tests/conftest.py, ONE_WORKER), which
# starts the one JVM. The files go out in the order collected, the slowest first
# (tests/conftest.py, SLOWEST_FILES), not xdist's order by number of tests, so no worker is left
# running a long file alone at the end. `make test PYTEST_PARALLEL=` runs it in one process.
PYTEST_PARALLEL ?= --numprocesses=auto --maxprocesses=4 --dist=loadfile --no-loadscope-reorder
test: $(VENV)/.installed-test chromium texlive java
	@pgdir=""; \
	if [ -z "$${IRW_TEST_POSTGRES:-}" ]; then \
	  pgdir="$$(mktemp -d "$${TMPDIR:-/tmp}/irw-test-pg.XXXXXX")" || exit 1; \
	  trap 'bash scripts/postgres.sh stop "$$pgdir"' EXIT; trap 'exit 130' INT TERM; \
	  if url="$$(bash scripts/postgres.sh start "$$pgdir")"; then \
	    echo "PostgreSQL tests: a throwaway PostgreSQL 15 at $$url (in $$pgdir)" >&2; \
	    export IRW_TEST_POSTGRES="$$url"; \
	  else \
	    echo "no PostgreSQL 15 for the tests (see above): the postgres tests will be skipped, or fail under CI" >&2; \
	  fi; \
	fi; \
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL); status=$$?; exit $$status

# The documentation site (mkdocs.yml, docs/) in site/, strict: a broken link, anchor or page fails, as
# in tests/test_docs.py, which `make test` runs. `python scripts/docs.py` writes its generated pages.
docs: $(VENV)/.installed-test
	$(BIN)/python -m mkdocs build --strict

# The whole seeded fuzz corpus of run and qrels files (tests/fuzz_corpus.py, tests/test_fuzz.py):
# 4,000 files held to the README's rules; `make test` runs the first 300 of them.
fuzz: $(VENV)/.installed-test
	IRW_FUZZ_CASES=4000 $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py

# The browser tests (tests/test_browser.py) drive Debian's Chromium. CI runs as root on Debian:
# install it there when it is missing; elsewhere say how, and those tests skip.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests" >&2; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is not installed (apt-get install chromium); the browser tests will be skipped" >&2; \
	  fi; \
	fi

# The Spark tests (tests/test_spark.py, marker `spark`) run pyspark 4 (the test extra installs it),
# which needs a Java 17 runtime: Debian's openjdk-17-jre-headless, installed the same way when no
# `java` is found; elsewhere those tests skip (under CI they fail).
java:
	@if ! command -v java >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's openjdk-17-jre-headless for the Spark tests" >&2; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      openjdk-17-jre-headless >/dev/null; \
	  else \
	    echo "java is not installed (apt-get install openjdk-17-jre-headless); the Spark tests will be skipped" >&2; \
	  fi; \
	fi

# tests/test_paper.py compiles the LaTeX paper table with pdflatex (booktabs): Debian's TeX, installed
# the same way when missing (about a minute); elsewhere that one test skips.
texlive:
	@if ! command -v pdflatex >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's texlive-latex-base and texlive-latex-recommended for the LaTeX test" >&2; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      texlive-latex-base texlive-latex-recommended >/dev/null; \
	  else \
	    echo "pdflatex is not installed (apt-get install texlive-latex-recommended); the LaTeX test will be skipped" >&2; \
	  fi; \
	fi

# A throwaway PostgreSQL 15 for working on the PostgreSQL engine by hand (PG_DIR, default
# /tmp/irw-make-postgres): `make postgres-start` prints its URL (use it as IRW_TEST_POSTGRES or --db),
# `make postgres-stop` stops it and deletes it.
PG_DIR ?= /tmp/irw-make-postgres
postgres-start:
	@bash scripts/postgres.sh start $(PG_DIR)

postgres-stop:
	@bash scripts/postgres.sh stop $(PG_DIR)

# The benchmark (benchmarks/README.md): long, run it on an idle machine. BENCH_ARGS passes options,
# e.g. make bench BENCH_ARGS="--only small,many-runs" or BENCH_ARGS=--quick. Its spark section
# needs pyspark (the test extra) and Java 17 (the java target, as for the tests).
bench: $(VENV)/.installed-bench java
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(DEMO_DIR) build dist site
