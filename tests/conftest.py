"""Shared fixtures: real warehouse files in temporary folders, input files written by hand."""
from __future__ import annotations

import bz2
import functools
import gzip
import lzma
import os
import re
import secrets
import shutil
import signal
import json
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import zstandard

import pytest
import typer.testing
from typer.testing import CliRunner

import warehouse
from warehouse.commands.irw import app

# typer's CliRunner.invoke builds the click command from the app's functions on every call (~40 ms
# of signature and type-hint inspection: a quarter of a CLI test's time in the suite's profile). The
# app does not change while the tests run, so each app's command is built once; every invocation
# still parses its arguments into a context of its own, as `irw` does in its process.
if hasattr(typer.testing, "_get_command"):
    typer.testing._get_command = functools.lru_cache(maxsize=None)(typer.testing._get_command)

# -- the conformance folder ------------------------------------------------------------------------
# trec_eval's own outputs and the dl19-passage runs, read-only, beside the checkout. The one rule for
# every test that reads it: request the `conformance` fixture (cases listed from the folder at
# collection go through `conformance_params`). Where the folder is absent the test is skipped with
# CONFORMANCE_ABSENT, and the run's summary says how many were; under CI (env CI set) it is an error,
# so CI can never pass without them.
# beside the checkout, or where IRW_CONFORMANCE says (a clone elsewhere skipped every test reading it,
# with no way to point at the folder)
CONFORMANCE = Path(os.environ.get("IRW_CONFORMANCE") or Path(__file__).resolve().parents[2] / "shared" / "conformance")
CONFORMANCE_ABSENT = (f"../shared/conformance (trec_eval's own outputs) is absent beside this checkout ({CONFORMANCE}); "
                      "IRW_CONFORMANCE=FOLDER names it elsewhere")


def under_ci() -> bool:
    """True when the environment says CI (CI=true, as .ci/run's callers set it)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_conformance() -> Path:
    """The conformance folder; else skip the calling test, or fail it under CI."""
    if CONFORMANCE.is_dir():
        return CONFORMANCE
    if under_ci():
        pytest.fail(f"CI is set and {CONFORMANCE} is absent: the conformance tests cannot be skipped in CI; "
                    "place trec_eval's outputs beside the checkout at ../shared/conformance", pytrace=False)
    pytest.skip(CONFORMANCE_ABSENT)


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The conformance folder (see require_conformance). Tests using it are marked `conformance`."""
    return require_conformance()


@pytest.fixture(scope="module")
def multi_collection(conformance: Path) -> Path:
    """The multi-collection folder of the conformance data (3 systems x 4 collections, qrels of 3)."""
    path = conformance / "multi-collection"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


def dl19_expected(conformance: Path, run: str, level: int = 1, version: int = 9) -> dict[tuple[str, str], str]:
    """trec_eval's `-m all_trec -q` output for a DL19 run (level 2: the `.l2.` file), as
    (trec_eval name, query or 'all') -> the value as trec_eval printed it."""
    suffix = f".q{'.l2' if level == 2 else ''}.v{version}.txt"
    path = conformance / "dl19-passage" / f"expected_run.dl19.{run}.all_trec{suffix}"
    values = {}
    for line in path.read_text().splitlines():
        name, query, value = (field.strip() for field in line.split("\t"))
        values[(name, query)] = value
    return values


def dl19_trec_eval(conformance: Path, *argv: str, run: str = "BM25") -> str:
    """What `irw trec-eval ARGV QRELS RUN` prints, in this process, for a DL19 run of the conformance
    folder (IrwError raised as the command raises it)."""
    import io

    from warehouse.commands import trec_eval

    folder = conformance / "dl19-passage"
    out = io.StringIO()
    trec_eval.run([*argv, str(folder / "qrels.dl19-passage.txt"), str(folder / "runs" / f"run.dl19.{run}.txt")], out)
    return out.getvalue()


def conformance_params(make_cases: Callable[[], list], width: int) -> list:
    """pytest.param cases listed from the conformance folder by make_cases. Where the folder is absent,
    one placeholder case of `width` Nones stands in, so the test still meets its `conformance` fixture
    (a skip with the one reason, or a CI failure) instead of pytest's silent 'empty parameter set'."""
    if CONFORMANCE.is_dir():
        return make_cases()
    return [pytest.param(*([None] * width), id="conformance-absent")]


# The slowest test files, slowest first (their tests' times by pytest --durations at 08c8262).
# `make test` gives each file whole to one of its workers
# (pytest-xdist --dist=loadfile --no-loadscope-reorder) in the order collected: started first, the
# long files run beside the many short ones, and the workers end together instead of one worker
# running a long file alone at the end. A file missing here only runs later; rename it here too.
SLOWEST_FILES = (
    "test_spark.py",            # Spark: SQL planned on one JVM per worker, and one spark-submit
    "test_spark_into.py",
    "test_serve.py",            # a served DL19 warehouse, the same on PostgreSQL
    "test_browser.py",          # Chromium, the 1,000-run warehouse
    "test_multi_collection_walkthrough.py",
    "test_demo.py",             # under CI: make demo in a clean clone
)


# Files `make test` gives together to one worker, as one unit (it goes out where its first file
# would): the files whose tests take the `spark` fixture share that worker's one JVM, started and
# warmed once, instead of each worker starting its own (~15 s, and the first evaluation's JIT) for
# a file or a test. A file that starts using the fixture belongs here too. The two files that run
# the README's PostgreSQL lines start and stop the README's server in its one folder (/tmp/irw-pg):
# on two workers at once, one's `stop` or `initdb` breaks the other's.
ONE_WORKER = {"test_spark.py": "spark", "test_spark_into.py": "spark", "test_export.py": "spark",
              "test_header_lines.py": "spark",
              "test_readme_postgres.py": "readme-server", "test_postgres_server.py": "readme-server"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist=loadfile, but the files of a ONE_WORKER group are one unit of work."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesAndGroups(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            group = ONE_WORKER.get(path.rpartition("/")[2])
            return f"group:{group}" if group else path

    return FilesAndGroups(config, log)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "conformance" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.conformance)
        if "postgres_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)
    alone = sorted({item.path.name for item in items if "spark" in getattr(item, "fixturenames", ())} - set(ONE_WORKER))
    if alone:
        raise pytest.UsageError(f"{', '.join(alone)} take the spark fixture: add them to ONE_WORKER in tests/conftest.py")
    rank = {name: position for position, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# -- a folder the workers of one run share ---------------------------------------------------------
# What several test files build identically and only read (tests/many_runs_data.py's 1,000-run
# warehouse) is built once per run, not once per pytest-xdist worker: the controller (or the one
# process) makes this folder before the workers start, they find it in the environment, and it is
# removed when the run ends.
SHARED_ENV = "IRW_TEST_SHARED_DIR"  # many_runs_data.SHARED_ENV
_SHARED_MADE = pytest.StashKey[Path]()


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get(SHARED_ENV):
        return  # a worker, which inherited the controller's folder; or a folder the caller gave
    folder = Path(tempfile.mkdtemp(prefix="irw-tests-shared-"))
    os.environ[SHARED_ENV] = str(folder)
    config.stash[_SHARED_MADE] = folder


def pytest_unconfigure(config):
    _stop_builder(config)
    folder = config.stash.get(_SHARED_MADE, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(SHARED_ENV, None)


# The 1,000-run warehouse takes a worker a minute or two to build: a run that is to read it (a test
# marked thousand_runs among those collected) starts building it at once in a process of its own,
# which holds many_runs_data's lock, so that the ingests overlap other tests instead of holding up
# the first test that reads it (and, under pytest-xdist, a worker waiting for the lock). Should that
# process fail, the test that reads the warehouse builds it itself and shows why.
_BUILDER = pytest.StashKey[subprocess.Popen]()


def pytest_collection_finish(session):
    shared = os.environ.get(SHARED_ENV)
    if session.config.option.collectonly or not shared or \
            not any(item.get_closest_marker("thousand_runs") for item in session.items):
        return
    try:  # one builder for the run, whichever worker collects first
        os.close(os.open(Path(shared) / "1000-runs.started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    here = Path(__file__).resolve().parent
    session.config.stash[_BUILDER] = subprocess.Popen(
        [sys.executable, "-c", "import many_runs_data; many_runs_data.thousand_runs()"], cwd=here,
        env={**os.environ, "PYTHONPATH": str(here.parent)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop_builder(config) -> None:
    builder = config.stash.get(_BUILDER, None)
    if builder is not None:
        try:  # other workers may still be waiting for it
            builder.wait(timeout=900)
        except subprocess.TimeoutExpired:
            builder.kill()
            builder.wait()


REPORTED = "irw-reported"  # the user property under which a test hands a line to the summary


@pytest.fixture
def report_line(record_property) -> Callable[[str], None]:
    """report_line(text) shows text in the run's summary (what a test measured without asserting
    it, such as how long Chromium took to sort 1,000 rows). Printing from the test would be lost
    under pytest-xdist, which `make test` uses: the workers' output never reaches the terminal,
    their reports' user properties do."""
    return lambda text: record_property(REPORTED, text)


def pytest_terminal_summary(terminalreporter):
    for reason, what in ((CONFORMANCE_ABSENT, "conformance"), (POSTGRES_ABSENT, "postgres")):
        skipped = [r for r in terminalreporter.stats.get("skipped", [])
                   if isinstance(r.longrepr, tuple) and r.longrepr[2].endswith(reason)]
        if skipped:
            terminalreporter.write_line(f"{len(skipped)} {what} tests skipped: {reason}", yellow=True)
    for report in terminalreporter.stats.get("passed", []):
        for key, text in getattr(report, "user_properties", ()):
            if key == REPORTED and report.when == "call":
                terminalreporter.write_line(f"{report.nodeid.split('::')[-1]}: {text}")


# -- a PostgreSQL server -----------------------------------------------------------------------------
# The PostgreSQL tests run against the server whose URL is in IRW_TEST_POSTGRES (its superuser, or a
# role that may create databases and roles); `make test` starts a throwaway PostgreSQL 15 for them
# with scripts/postgres.sh. The one rule: request `postgres_server` (or `postgres_url`, a fresh
# database of the test's own, or `postgres_readonly_url`); such tests are marked `postgres`. Where the
# variable is unset they are skipped with POSTGRES_ABSENT; under CI that is an error.
POSTGRES_ENV = "IRW_TEST_POSTGRES"
POSTGRES_ABSENT = (f"{POSTGRES_ENV} is unset: no PostgreSQL server for the postgres tests "
                   f"(make test starts one; or {POSTGRES_ENV}=postgresql://USER@HOST:PORT/postgres)")


def require_postgres() -> str:
    """The server's URL from IRW_TEST_POSTGRES; else skip the calling test, or fail it under CI."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if url:
        return url
    if under_ci():
        pytest.fail(f"CI is set and {POSTGRES_ENV} is unset: the PostgreSQL tests cannot be skipped in CI; "
                    "make test starts a PostgreSQL 15 with scripts/postgres.sh (see its message above)", pytrace=False)
    pytest.skip(POSTGRES_ABSENT)


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The PostgreSQL server's URL (see require_postgres). Tests using it are marked `postgres`."""
    return require_postgres()


def postgres_url_with(url: str, *, dbname: str | None = None, user: str | None = None,
                      password: str | None = None) -> str:
    """url with its database, or its login (user and password), replaced; host, port and query kept."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if user is not None:
        login = quote(user, safe="") + (f":{quote(password, safe='')}" if password is not None else "")
        netloc = f"{login}@{netloc.rpartition('@')[2]}"
    path = f"/{quote(dbname, safe='')}" if dbname is not None else parts.path
    return urlunsplit((parts.scheme, netloc, path, parts.query, parts.fragment))


def postgres_dbname(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def _postgres_admin(url: str):
    import psycopg  # the `postgresql` extra, part of `test`

    return psycopg.connect(url, autocommit=True)


@contextmanager
def hba_first(url: str, lines: list[str]) -> Iterator[None]:
    """The server's pg_hba.conf with lines put first (for one role: other sessions are not
    concerned), reloaded; restored on leaving. Skips where the file is not this machine's to edit.
    Held under a lock beside the file: two test workers editing it at once would each restore the
    other's lines as the original."""
    import fcntl

    with _postgres_admin(url) as con:
        path = Path(con.execute("show hba_file").fetchone()[0])
        if not os.access(path, os.W_OK):
            pytest.skip(f"the server's {path} is not writable here: its pg_hba.conf cannot be changed for the test")
        lock = open(path.parent / "pg_hba.conf.irw-test-lock", "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
        original = path.read_text()
        try:
            path.write_text("\n".join(lines) + "\n" + original)
            assert con.execute("select pg_reload_conf()").fetchone()[0]
            time.sleep(0.5)  # the postmaster reloads on SIGHUP
            yield
        finally:
            path.write_text(original)
            con.execute("select pg_reload_conf()")
            time.sleep(0.5)
            lock.close()  # and with it the lock


def hba_lines(role: str, method: str) -> list[str]:
    """pg_hba.conf lines giving role (only) the method, on the socket and on localhost."""
    return [f"local all {role} {method}", f"host all {role} 127.0.0.1/32 {method}", f"host all {role} ::1/128 {method}"]


@contextmanager
def fresh_postgres_database(server_url: str) -> Iterator[str]:
    """A new, empty database irw_test_<random> on the server; yields its URL (the server's login) and
    drops it on leaving, closing whatever connections are still open to it."""
    from psycopg import sql

    name = f"irw_test_{secrets.token_hex(6)}"
    with _postgres_admin(server_url) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    try:
        yield postgres_url_with(server_url, dbname=name)
    finally:
        with _postgres_admin(server_url) as admin:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@contextmanager
def postgres_reader(database_url: str) -> Iterator[str]:
    """A login role irw_reader_<random> with a password, granted CONNECT on the database and SELECT on
    the tables of its schema public, those there now and those the URL's user creates later; yields
    its URL (`postgresql://irw_reader_x:secret-pass-y@HOST:PORT/DB`) and drops the role on leaving.
    Nothing else is granted: it cannot create, insert, update or delete (it keeps what PostgreSQL
    gives every role, PUBLIC: temporary tables of its own session)."""
    from psycopg import sql

    import psycopg

    role, password = f"irw_reader_{secrets.token_hex(4)}", f"secret-pass-{secrets.token_hex(4)}"
    dbname = postgres_dbname(database_url)
    with _postgres_admin(database_url) as admin:
        admin.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(role), sql.Literal(password)))
        for statement in ("grant connect on database {db} to {role}",
                          "grant usage on schema public to {role}",
                          "grant select on all tables in schema public to {role}",
                          "alter default privileges in schema public grant select on tables to {role}"):
            admin.execute(sql.SQL(statement).format(db=sql.Identifier(dbname), role=sql.Identifier(role)))
    try:
        yield postgres_url_with(database_url, user=role, password=password)
    finally:
        try:
            admin, database_left = _postgres_admin(database_url), True
        except psycopg.OperationalError:  # the database is gone, and the role's grants with it
            admin, database_left = _postgres_admin(postgres_url_with(database_url, dbname="postgres")), False
        with admin:
            # its sessions end first (waiting up to 10 s for each), with whatever temporary tables they made
            admin.execute("select pg_terminate_backend(pid, 10000) from pg_stat_activity where usename = %s", (role,))
            if database_left:  # its grants in the database, and the default privileges
                admin.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
            admin.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """The URL of a fresh, empty database of this test's own (fresh_postgres_database), dropped after it."""
    with fresh_postgres_database(postgres_server) as url:
        yield url


@pytest.fixture
def postgres_readonly_url(postgres_url: str) -> Iterator[str]:
    """The URL of a role that may only read postgres_url's database (postgres_reader), dropped after."""
    with postgres_reader(postgres_url) as url:
        yield url


# -- input files -----------------------------------------------------------------------------------
COMPRESSIONS: dict[str, Callable[[bytes], bytes]] = {
    "": lambda data: data,
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    # zstandard is a runtime dependency (pyproject), so always there
    ".zst": lambda data: zstandard.ZstdCompressor(write_checksum=True).compress(data),
}


def compress(data: bytes, suffix: str) -> bytes:
    return COMPRESSIONS[suffix](data)


def write_file(directory: Path, name: str, content: str | bytes) -> Path:
    """Writes content (str as UTF-8, bytes as is) to directory/name, compressing by the suffix."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    path = directory / name
    suffix = path.suffix if path.suffix in COMPRESSIONS else ""
    path.write_bytes(compress(data, suffix))
    return path


def run_text(rows: Iterable[tuple], tag: str = "tagA", sep: str = " ") -> str:
    """TREC run lines from (qid, docid, rank, score) tuples."""
    return "".join(sep.join(str(v) for v in (q, "Q0", d, r, s, tag)) + "\n" for q, d, r, s in rows)


RUN_ROWS = [("q1", "d1", 1, "3.5"), ("q1", "d2", 2, "2.25"), ("q1", "d3", 3, "-1"), ("q2", "d1", 1, "0.5")]
QRELS_ROWS = [("q1", "d1", 2), ("q1", "d3", 0), ("q2", "d1", 1), ("q2", "d9", -1)]


def qrels_text(rows: Iterable[tuple] = QRELS_ROWS) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


def warehouse_fingerprint(wh: warehouse.Warehouse) -> dict[str, tuple]:
    """Row count and an order-independent checksum of every table, and every sequence's value.

    Two equal fingerprints mean no row was added, removed or changed anywhere in the file.
    """
    db = wh.db
    tables = [r[0] for r in db.fetchall(
        "select table_name from information_schema.tables "
        "where table_catalog = current_database() and table_schema = 'main' and table_type = 'BASE TABLE' "
        "order by table_name")]
    assert tables, "a warehouse always has tables"
    fingerprint: dict[str, tuple] = {}
    for table in tables:
        fingerprint[table] = tuple(db.fetchone(f'select count(*), coalesce(sum(hash(t)), 0) from "{table}" as t'))
    for name, value in db.fetchall("select sequence_name, last_value from duckdb_sequences() order by 1"):
        fingerprint[f"sequence {name}"] = (value,)
    return fingerprint


def fingerprint_at(path: Path) -> dict[str, tuple]:
    with warehouse.open(path, read_only=True) as wh:
        return warehouse_fingerprint(wh)


def contents_at(path: Path) -> dict[str, tuple]:
    """Like fingerprint_at, but blind to timestamp columns (when a row was written): two warehouses
    made by the same commands from the same files, at different times, have equal contents."""
    with warehouse.open(path, read_only=True) as wh:
        columns: dict[str, list[str]] = {}
        for table, column, data_type in wh.db.fetchall(
                "select c.table_name, c.column_name, c.data_type from information_schema.columns c "
                "join information_schema.tables t using (table_catalog, table_schema, table_name) "
                "where c.table_catalog = current_database() and c.table_schema = 'main' "
                "and t.table_type = 'BASE TABLE' order by c.table_name, c.ordinal_position"):
            columns.setdefault(table, [])
            if not data_type.startswith("TIMESTAMP"):
                columns[table].append(f'"{column}"')
        contents: dict[str, tuple] = {}
        for table, kept in columns.items():
            row_hash = f"hash({', '.join(kept)})" if kept else "0"
            contents[table] = tuple(wh.db.fetchone(f'select count(*), coalesce(sum({row_hash}), 0) from "{table}"'))
        for name, value in wh.db.fetchall("select sequence_name, last_value from duckdb_sequences() order by 1"):
            contents[f"sequence {name}"] = (value,)
        return contents


@pytest.fixture(scope="session")
def _templates(tmp_path_factory) -> dict[str, Path]:
    """Warehouse files built once per session; tests get copies (a fresh schema takes ~0.1 s)."""
    folder = tmp_path_factory.mktemp("templates")
    empty, seeded = folder / "empty.duckdb", folder / "seeded.duckdb"
    warehouse.open(empty).close()
    with warehouse.open(seeded) as opened:
        opened.ingest_qrels(write_file(folder, "base.qrels", qrels_text()), "base")
        opened.ingest_run(write_file(folder, "seed.run", run_text(RUN_ROWS)))
    return {"empty": empty, "seeded": seeded}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a test's warehouse lives; nothing is there until something creates it."""
    return tmp_path / "irw.duckdb"


@pytest.fixture
def wh(db_path: Path, _templates):
    """An open, empty warehouse (all migrations applied) at db_path."""
    shutil.copyfile(_templates["empty"], db_path)
    with warehouse.open(db_path) as opened:
        yield opened


@pytest.fixture
def seeded_db(db_path: Path, _templates) -> Path:
    """A closed warehouse file at db_path holding qrels set `base` and run `tagA` (from RUN_ROWS)."""
    shutil.copyfile(_templates["seeded"], db_path)
    return db_path


# The top-level commands, as the README's command table lists them.
COMMANDS = ("ingest", "runs", "qrels", "rm", "rename", "edit", "eval", "trec-eval", "compare", "report", "sql",
            "migrate", "copy", "export", "measures", "demo", "serve")


def help_commands(text: str) -> list[str]:
    """The command names in the commands panel of `irw --help`: the first word of each row of the
    panel (rich's box, or click's plain `Commands:` list); a wrapped description's continuation
    rows start with spaces and are skipped. Empty when there is no such panel."""
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if re.fullmatch(r"[\s╭+\-─]*Commands:?[\s─\-+╮]*", line)]
    if len(heads) != 1:
        return []
    names = []
    for line in lines[heads[0] + 1:]:
        if not line.strip() or line.lstrip().startswith(("╰", "+")):
            break
        # a rich row is "│ name  description │"; a click row is "  name  description"
        row = line[2:] if line[:2] in ("│ ", "| ", "  ") else line
        if row[:1].strip():
            names.append(row.split()[0])
    return names


class Cli:
    """Runs `irw` in-process; stdout and stderr stay apart."""

    def __init__(self, db: Path):
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, env: dict | None = None, db: bool = True):
        argv = [str(a) for a in args]
        if db:
            argv += ["--db", str(self.db)]
        return self.runner.invoke(app, argv, input=input, env=env, catch_exceptions=False)


@pytest.fixture
def irw(db_path: Path) -> Cli:
    return Cli(db_path)


def dl19_cli(conformance: Path, folder: Path, runs: Sequence[str] = ("BM25", "BM25_RM3")) -> Cli:
    """The irw of a warehouse in folder (irw.duckdb) holding DL19's qrels (`dl19`) and these of its
    runs, each under its system's name."""
    data = conformance / "dl19-passage"
    irw = Cli(folder / "irw.duckdb")
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for run in runs:
        assert irw("ingest", "run", data / "runs" / f"run.dl19.{run}.txt", "--name", run).exit_code == 0
    return irw


def dl19_with_measure(conformance: Path, folder: Path, measure_name: str, measure_text: str) -> tuple[Cli, Path]:
    """A warehouse in folder holding DL19's qrels (`dl19`), its BM25 and BM25_RM3 runs and one user
    measure (measure_name.sql, of measure_text): the irw that runs on it, and the measure's file."""
    irw = dl19_cli(conformance, folder)
    measure = folder / f"{measure_name}.sql"
    measure.write_text(measure_text, encoding="utf-8")
    added = irw("measures", "add", measure)
    assert added.exit_code == 0, added.stderr
    return irw, measure


# -- the modules a command loads ----------------------------------------------------------------------
def modules_loaded_by(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`irw ARGV` run as the installed entry point runs it (warehouse/__main__.py), in a process of its
    own; the process and the modules loaded when the command ended. The entry point ends with os._exit
    once the output is flushed: here that raises SystemExit instead, so the modules can be listed
    (on the process's last stderr line). The command must exit 0."""
    probe = (f"import os, runpy, sys; sys.argv = ['irw', *{argv!r}]\n"
             "def _exit(code):\n    raise SystemExit(code)\n"
             "os._exit = _exit\n"
             "try:\n    runpy.run_module('warehouse', run_name='__main__')\n"
             "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
             "import json; print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done, json.loads(done.stderr.splitlines()[-1])


# -- irw in a subprocess, run in steps ----------------------------------------------------------------
@dataclass
class View:
    """What a stopped irw process is doing with its warehouse, seen from outside (Linux /proc)."""

    open_files: set[str]   # resolved paths of the files it has open
    lock: str | None       # the lock it holds on the warehouse file: 'READ', 'WRITE' or None
    db_size: int           # the warehouse file's size
    wal: bool              # DuckDB's write-ahead log exists beside it

    def has_open(self, path: Path) -> bool:
        return str(Path(path).resolve()) in self.open_files


def stepping_supported() -> bool:
    return Path("/proc/locks").is_file() and Path("/proc/self/fd").is_dir() and hasattr(signal, "SIGSTOP")


class SteppedIrw:
    """`python -m warehouse ARGS --db DB` in a subprocess that runs only when let: step_until() runs it
    STEP seconds at a time, stopping it (SIGSTOP) after each step to look at it, until a condition on
    what it is doing holds; it is then left stopped (to be killed, or held while others run). The
    points are states, never times: a slow machine only makes the steps finer."""

    STEP = 0.002

    def __init__(self, db: Path, *args):
        self.db = Path(db).resolve()
        self.args = [str(a) for a in args]
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "warehouse", *self.args, "--db", str(self.db)],
                                     stdout=self._out, stderr=self._err)
        self.views: list[View] = []

    def _state(self) -> str:
        stat = Path(f"/proc/{self.proc.pid}/stat").read_text()
        return stat[stat.rindex(")") + 2]

    def look(self) -> View:
        pid = self.proc.pid
        files = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                files.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
        stat = self.db.stat()
        lock = None
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()  # id: class mode READ|WRITE pid major:minor:inode start end
            if len(fields) > 5 and fields[4] == str(pid) and fields[5].rsplit(":", 1)[-1] == str(stat.st_ino):
                lock = fields[3]
        return View(files, lock, stat.st_size, Path(f"{self.db}.wal").exists())

    def step_until(self, holds: Callable[[View, list[View]], bool], timeout: float = 60) -> bool:
        """Steps until holds(view now, earlier views): True, the process stopped there; False if it
        ended first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(self.STEP)
            os.kill(self.proc.pid, signal.SIGSTOP)
            try:
                while (state := self._state()) not in "TtZX":
                    pass
                if state in "ZX":
                    return False
                view = self.look()
            except FileNotFoundError:  # reaped: it ended
                return False
            if holds(view, self.views):
                self.views.append(view)
                return True
            self.views.append(view)
            os.kill(self.proc.pid, signal.SIGCONT)
        self.kill()
        pytest.fail(f"irw {' '.join(self.args)}: the condition did not hold within {timeout} s")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def finish(self, timeout: float = 120) -> tuple[int, str, str]:
        """Lets it run to its end: (exit code, stdout, stderr)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
        code = self.proc.wait(timeout)
        return code, self.output()[0], self.output()[1]

    def output(self) -> tuple[str, str]:
        out = []
        for f in (self._out, self._err):
            f.seek(0)
            out.append(f.read().decode("utf-8", errors="replace"))
        return out[0], out[1]

    def close(self) -> None:
        self.kill()
        self._out.close()
        self._err.close()


SPARK_ABSENT = "pyspark or Java 17 is not installed (pip install the spark extra; make test installs Java as root)"


# The tests' JVMs only (the `spark` fixture's, and the spark-submit test's), never irw's defaults for
# users (warehouse/engines/spark.py SESSION_CONF): every test's data is small and every JVM short-lived,
# so the JIT's optimising tier (C2) costs more CPU compiling than its code saves, and G1's concurrent
# collector threads take cores the tasks need on a small machine. With C2 off the JVM reserves only
# 48 MB for compiled code, which Spark's generated classes filled within a minute ("CodeCache is
# full. Compiler has been disabled."), leaving every later query interpreted: hence the room.
TEST_SPARK_DEFAULTS = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=256m",
}


def spark_conf_dir(folder: Path, extra: dict[str, str] | None = None) -> Path:
    """folder holding a spark-defaults.conf of TEST_SPARK_DEFAULTS and `extra`, for SPARK_CONF_DIR."""
    settings = {**TEST_SPARK_DEFAULTS, **(extra or {})}
    (folder / "spark-defaults.conf").write_text("".join(f"{key} {value}\n" for key, value in settings.items()))
    return folder


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """One SparkSession (local[2]) for every Spark test, in every file: starting one costs ~10-20 s."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        pyspark = None
    if pyspark is None or not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        if under_ci():
            pytest.fail(f"CI is set and {SPARK_ABSENT}", pytrace=False)
        pytest.skip(SPARK_ABSENT)
    from warehouse.engines.spark import session

    conf_dir = spark_conf_dir(tmp_path_factory.mktemp("spark-conf"))
    before = os.environ.get("SPARK_CONF_DIR")
    os.environ["SPARK_CONF_DIR"] = str(conf_dir)  # read once, when pyspark starts the JVM
    try:
        spark = session("local[2]", app_name="irw-tests")
    finally:
        if before is None:
            del os.environ["SPARK_CONF_DIR"]
        else:
            os.environ["SPARK_CONF_DIR"] = before
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    yield spark
    spark.stop()
