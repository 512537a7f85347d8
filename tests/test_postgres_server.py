"""The PostgreSQL the tests run against: the server at IRW_TEST_POSTGRES (a throwaway PostgreSQL 15
that `make test` starts with scripts/postgres.sh), and the fixtures giving each test a database of its
own and a role that may only read it (tests/conftest.py)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import psycopg  # the `postgresql` extra, part of `test`
import pytest
from psycopg import errors

from conftest import (POSTGRES_ENV, fresh_postgres_database, postgres_dbname, postgres_reader, postgres_url_with,
                      under_ci)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "postgres.sh"

# Every test here that requests postgres_server (or postgres_url, postgres_readonly_url) is marked
# `postgres` by conftest.py.

def fetch(url: str, query: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as con:
        return con.execute(query, params).fetchall()


def execute(url: str, statement: str) -> None:
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(statement)


def user_tables(url: str) -> list[tuple]:
    return fetch(url, "select table_schema, table_name from information_schema.tables "
                      "where table_schema not in ('pg_catalog', 'information_schema') order by 1, 2")


def test_the_server_is_postgresql_15(postgres_server):
    [(number,)] = fetch(postgres_server, "select current_setting('server_version_num')::integer")
    assert number // 10000 == 15, f"{POSTGRES_ENV} points at PostgreSQL {number}, the project targets 15"


def test_the_server_does_not_run_as_root(postgres_server):
    # PostgreSQL refuses root itself; this checks the server is one whose processes we can see, and
    # that scripts/postgres.sh (as root in CI) handed it to another user.
    # the connection stays open while its backend is looked at: closed, the backend exits (a race
    # the test lost once in CI)
    with psycopg.connect(postgres_server, autocommit=True) as con:
        [(pid,)] = con.execute("select pg_backend_pid()").fetchall()
        status = Path(f"/proc/{pid}/status")
        found = status.is_file() and status.read_text()
    if not found:
        message = f"the server's backend (pid {pid}) is not a process of this machine: it runs elsewhere"
        if under_ci():
            pytest.fail(f"CI runs its own PostgreSQL on this machine, yet {message}", pytrace=False)
        pytest.skip(message)
    fields = dict(line.split(":", 1) for line in found.splitlines() if ":" in line)
    real, effective = (int(uid) for uid in fields["Uid"].split()[:2])
    assert fields["Name"].strip() == "postgres"
    assert real != 0 and effective != 0
    postmaster = Path(f"/proc/{fields['PPid'].strip()}/status").read_text()
    assert re.search(r"^Uid:\s+(\d+)", postmaster, re.M).group(1) == str(real)


def test_a_fresh_database_is_empty_and_dropped_afterwards(postgres_server):
    with fresh_postgres_database(postgres_server) as url:
        name = postgres_dbname(url)
        assert re.fullmatch(r"irw_test_[0-9a-f]{12}", name)
        assert fetch(url, "select current_database()") == [(name,)]
        assert user_tables(url) == []
        execute(url, "create table kept (x integer primary key)")
        assert user_tables(url) == [("public", "kept")]
        held = psycopg.connect(url, autocommit=True)  # still open when the database is dropped
    try:
        assert fetch(postgres_server, "select datname from pg_database where datname = %s", (name,)) == []
        with pytest.raises(psycopg.OperationalError):
            held.execute("select 1")
    finally:
        held.close()


def test_each_test_gets_a_database_of_its_own(postgres_server, postgres_url):
    name = postgres_dbname(postgres_url)
    assert name.startswith("irw_test_") and name != postgres_dbname(postgres_server)
    assert user_tables(postgres_url) == []
    with fresh_postgres_database(postgres_server) as other:
        assert postgres_dbname(other) != name


def test_the_reader_may_only_read(postgres_url):
    execute(postgres_url, "create table before_reader (x integer primary key)")
    execute(postgres_url, "insert into before_reader values (1)")
    with postgres_reader(postgres_url) as reader:
        login = psycopg.conninfo.conninfo_to_dict(reader)
        role = login["user"]
        assert re.fullmatch(r"irw_reader_[0-9a-f]{8}", role) and login["password"].startswith("secret-pass-")
        assert login["dbname"] == postgres_dbname(postgres_url)
        # tables made after the role are readable too (default privileges)
        execute(postgres_url, "create table after_reader (x integer primary key)")
        execute(postgres_url, "insert into after_reader values (2)")
        with psycopg.connect(reader, autocommit=True) as con:
            assert con.execute("select current_user").fetchone() == (role,)
            assert con.execute("select x from before_reader").fetchall() == [(1,)]
            assert con.execute("select x from after_reader").fetchall() == [(2,)]
            for statement in ("create table mine (x integer)",
                              "create schema mine",
                              "insert into before_reader values (3)",
                              "update after_reader set x = 3",
                              "delete from before_reader",
                              "truncate after_reader",
                              "drop table before_reader"):
                with pytest.raises(errors.InsufficientPrivilege):
                    con.execute(statement)
        assert fetch(postgres_url, "select x from before_reader union all select x from after_reader order by 1") \
            == [(1,), (2,)]
        # a session of the reader's still open when the role is dropped
        held = psycopg.connect(reader, autocommit=True)
    try:
        assert fetch(postgres_url, "select rolname from pg_roles where rolname = %s", (role,)) == []
        with pytest.raises(psycopg.OperationalError):
            held.execute("select 1")
    finally:
        held.close()


def test_the_readonly_fixture_logs_in_as_another_role_with_a_password(postgres_url, postgres_readonly_url):
    assert postgres_dbname(postgres_readonly_url) == postgres_dbname(postgres_url)
    login = psycopg.conninfo.conninfo_to_dict(postgres_readonly_url)
    assert login["password"] and login["user"] != psycopg.conninfo.conninfo_to_dict(postgres_url).get("user")
    [(role, superuser)] = fetch(postgres_readonly_url,
                                "select current_user, rolsuper from pg_roles where rolname = current_user")
    assert role == login["user"] and superuser is False


def test_urls_change_only_the_part_asked():
    url = "postgresql://admin:pw@db.example:6543/postgres?sslmode=disable"
    assert postgres_url_with(url, dbname="irw_test_1") == "postgresql://admin:pw@db.example:6543/irw_test_1?sslmode=disable"
    assert postgres_url_with(url, user="r", password="p@ss/word") == \
        "postgresql://r:p%40ss%2Fword@db.example:6543/postgres?sslmode=disable"
    assert postgres_url_with("postgresql://127.0.0.1:5/x", user="r") == "postgresql://r@127.0.0.1:5/x"
    assert postgres_dbname("postgresql://u@h:1/a%20b") == "a b"


# -- scripts/postgres.sh, which starts CI's server ------------------------------------------------------
def script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.postgres
@pytest.mark.slow
def test_the_script_starts_a_cluster_once_and_stops_it():
    # under /tmp, not pytest's tmp_path: as root the cluster's user must reach the folder
    folder = Path(tempfile.mkdtemp(prefix="irw-pg-script-"))
    folder.chmod(0o755)
    cluster = folder / "cluster"
    try:
        started = script("start", str(cluster))
        if started.returncode == 3 and not under_ci():
            pytest.skip(f"PostgreSQL 15 is not installed here: {started.stderr.strip()}")
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip()
        port = int(re.fullmatch(r"postgresql://postgres@127\.0\.0\.1:(\d+)/postgres", url).group(1))
        assert port not in (5432, 54329)
        again = script("start", str(cluster))  # idempotent: the same running cluster
        assert (again.returncode, again.stdout.strip()) == (0, url), again.stderr
        [(number, socket_dir)] = fetch(url, "select current_setting('server_version_num')::integer, "
                                            "current_setting('unix_socket_directories')")
        assert number // 10000 == 15 and socket_dir == str(cluster.resolve())
        assert (cluster / f".s.PGSQL.{port}").is_socket()

        stopped = script("stop", str(cluster))
        assert stopped.returncode == 0, stopped.stderr
        assert not cluster.exists()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(url, connect_timeout=5)
        assert script("stop", str(cluster)).returncode == 0  # nothing left to stop

        # never a folder it did not make
        (cluster / "data").mkdir(parents=True)
        (cluster / "data" / "keep.txt").write_text("not a cluster")
        for command in ("start", "stop"):
            refused = script(command, str(cluster))
            assert refused.returncode == 2 and "not made by" in refused.stderr
            assert (cluster / "data" / "keep.txt").read_text() == "not a cluster"
    finally:
        script("stop", str(cluster))
        subprocess.run(["rm", "-rf", str(folder)], check=False)


# -- how the README tells developers to run them --------------------------------------------------------
def test_readme_says_how_to_run_the_postgres_tests(pytestconfig):
    readme = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")  # developers read it there
    assert f"{POSTGRES_ENV}=postgresql://" in readme and "-m postgres" in readme
    assert "scripts/postgres.sh" in readme and SCRIPT.is_file()
    assert any(marker.startswith("postgres:") for marker in pytestconfig.getini("markers"))
