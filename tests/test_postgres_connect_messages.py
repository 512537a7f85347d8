"""A PostgreSQL warehouse that cannot be opened says why and what to do, in the user's terms: a wrong
password, a URL without the password the server asks, a database that does not exist, a server
nobody listens on. Only a server not reached (or starting, or shutting down) is ServerUnreachable,
which `irw serve` answers with a 503 and "load the page again in a moment"; a login or database the
server refuses is a WarehouseOpenError, and serve says that the URL it was started with needs fixing.
A connection the server ends under `irw sql` says to run it again once the server is up; `?` or a
literal `%` with parameters says how PostgreSQL writes placeholders. Real server (IRW_TEST_POSTGRES),
its pg_hba.conf asking a password of the test's own role only, restored after."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import psycopg
import pytest

import warehouse
from conftest import hba_first, hba_lines, postgres_dbname, postgres_url_with
from test_serve import get, served
from warehouse.errors import ServerUnreachable

WRONG = "not-its-password-7"


def _irw(url: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *args, "--db", url], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "IRW_DB": "", "PGPASSWORD": "", **(env or {})})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def reader(postgres_url, postgres_readonly_url):
    """(its URL with the password, role, password) of a reader of a warehouse, the server asking it a password."""
    warehouse.open(postgres_url).close()  # the warehouse, made by the server's superuser
    parts = urlsplit(postgres_readonly_url)
    with hba_first(postgres_url, hba_lines(parts.username, "scram-sha-256")):
        yield postgres_readonly_url, parts.username, parts.password


def _assert_clear(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("Error: cannot open warehouse ") and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def _assert_logged_in(listed: subprocess.CompletedProcess) -> None:
    """`irw runs` read the (empty) warehouse: its note, and exit 1 for the empty listing."""
    assert (listed.returncode, listed.stderr) == (1, "# no run is stored; ingest runs with `irw ingest run FILE...`\n")


# -- the login --------------------------------------------------------------------------------------

@pytest.mark.postgres
def test_a_wrong_password_says_to_check_the_url_not_to_wait(reader):
    url, role, password = reader
    wrong = postgres_url_with(url, user=role, password=WRONG)
    result = _irw(wrong, "runs")
    _assert_clear(result, f'password authentication failed for user "{role}"',
                  "check the user name and password in the URL (postgresql://USER:PASSWORD@HOST:PORT/DBNAME; "
                  "a password holding @ : / ? # % is percent-encoded)")
    assert WRONG not in result.stderr + result.stdout
    with pytest.raises(warehouse.WarehouseOpenError, match="check the user name and password") as caught:
        warehouse.open(wrong)
    assert not isinstance(caught.value, ServerUnreachable)  # waiting never fixes a password
    _assert_logged_in(_irw(url, "runs"))  # the right one does


@pytest.mark.postgres
def test_a_url_without_the_password_the_server_asks_says_to_give_it_in_the_url_pgpass_or_pgpassword(reader,
                                                                                                     tmp_path):
    url, role, password = reader
    bare = postgres_url_with(url, user=role)
    home = tmp_path / "home"
    home.mkdir()
    result = _irw(bare, "runs", env={"HOME": str(home)})
    _assert_clear(result, "no password supplied", f"the server asks a password of {role}, and the URL gives none",
                  "put it in the URL", "or in ~/.pgpass (mode 0600) or the PGPASSWORD environment variable")
    # each place the message names works
    _assert_logged_in(_irw(bare, "runs", env={"PGPASSWORD": password, "HOME": str(home)}))
    parts = urlsplit(url)
    pgpass = home / ".pgpass"
    pgpass.write_text(f"{parts.hostname}:{parts.port or 5432}:{postgres_dbname(url)}:{role}:{password}\n")
    pgpass.chmod(0o600)
    _assert_logged_in(_irw(bare, "runs", env={"HOME": str(home)}))


@pytest.mark.postgres
def test_a_database_that_does_not_exist_says_to_create_it_or_fix_the_name(postgres_server):
    missing = postgres_url_with(postgres_server, dbname="irw_no_such_database")
    result = _irw(missing, "runs")
    _assert_clear(result, 'database "irw_no_such_database" does not exist',
                  "create it (`createdb irw_no_such_database`, or ask its owner) or fix the database's name in the URL")
    with pytest.raises(warehouse.WarehouseOpenError, match="createdb") as caught:
        warehouse.open(missing)
    assert not isinstance(caught.value, ServerUnreachable)


def test_a_url_naming_no_database_is_refused_before_the_server_s_own_database_is_written(postgres_server):
    """`postgresql://postgres@HOST:PORT` (no /DBNAME) took libpq's default, the database named after
    the user: a superuser's ingest made irw's tables in the `postgres` maintenance database, and
    another user was told to `createdb` their own name."""
    from urllib.parse import urlunsplit

    parts = urlsplit(postgres_server)
    for path in ("", "/"):
        bare = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
        result = _irw(bare, "ingest", "qrels", os.devnull, "--name", "x")
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.startswith(f"Error: cannot open warehouse {bare}: the URL names no database, and the "
                                        "server would take the one named after the user"), result.stderr
        assert f"add the database's name: {bare.rstrip('/')}/DBNAME" in result.stderr
        with pytest.raises(warehouse.WarehouseOpenError, match="the URL names no database"):
            warehouse.open(bare)
    # PGDATABASE names it as libpq reads it, and ?dbname= as well
    named = urlunsplit((parts.scheme, parts.netloc, "", parts.query, ""))
    assert "names no database" not in _irw(named, "qrels", env={"PGDATABASE": postgres_dbname(postgres_server)}).stderr
    query = f"{parts.query}&" if parts.query else ""
    with_param = urlunsplit((parts.scheme, parts.netloc, "/", f"{query}dbname={postgres_dbname(postgres_server)}", ""))
    assert "names no database" not in _irw(with_param, "qrels").stderr


# -- the server -------------------------------------------------------------------------------------

def test_a_server_nobody_listens_on_says_to_check_it_is_running():
    port = _free_port()  # closed again: nothing listens there
    url = f"postgresql://irw:s3cret@127.0.0.1:{port}/irw"
    result = _irw(url, "runs")
    _assert_clear(result, "Connection refused", f"is the server running and listening on 127.0.0.1:{port}?")
    assert "s3cret" not in result.stderr
    with pytest.raises(ServerUnreachable, match="is the server running"):
        warehouse.open(url)


@pytest.mark.parametrize("said, unreachable, advice", [
    ('FATAL:  the database system is shutting down', True, "starting or shutting down: run the command again"),
    ('FATAL:  the database system is starting up', True, "starting or shutting down: run the command again"),
    ('FATAL:  sorry, too many clients already', True, "no connection free now"),
    ('FATAL:  password authentication failed for user "alice"', False, "check the user name and password"),
    ('FATAL:  role "alice" does not exist', False, "fix the user name in the URL"),
    ('FATAL:  pg_hba.conf rejects connection for host "10.0.0.2", user "alice", database "irw", no encryption',
     False, "pg_hba.conf does not let alice connect to irw"),
    ('FATAL:  permission denied for database "irw"', False, "grant connect on database irw to alice"),
])
def test_what_the_server_said_at_connect_decides_whether_a_later_try_may_connect(said, unreachable, advice):
    from warehouse.engines.postgres import _connect_failure

    error = psycopg.OperationalError(f'connection failed: connection to server at "10.0.0.1", port 5432 failed: {said}')
    kind, told = _connect_failure(error, "postgresql://alice:pw@10.0.0.1:5432/irw")
    assert (kind is ServerUnreachable) is unreachable and issubclass(kind, warehouse.WarehouseOpenError)
    assert advice in told, told


# -- irw serve --------------------------------------------------------------------------------------

@pytest.mark.postgres
def test_serve_after_its_role_s_password_changed_says_its_url_needs_fixing_not_to_load_again(reader, postgres_url,
                                                                                            tmp_path):
    url, role, password = reader
    with served(url, log=tmp_path / "serve.log") as base:
        assert get(f"{base}/api/qrels")[0] == 200
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f'alter role "{role}" password \'{WRONG}\'')
        status, _, body = get(f"{base}/api/qrels")
        assert status == 500, (status, body[:400])
        error = json.loads(body)["error"]
        assert f'password authentication failed for user "{role}"' in error
        assert "loading it again will not help" in error and "fix that URL (its role, password or database)" in error
        assert "load the page again" not in error and "could not connect to the warehouse's database server" not in error
        status, _, page = get(f"{base}/")
        assert status == 500 and "<title>This server cannot open the warehouse</title>" in page, page[:400]
        assert password not in body + page and WRONG not in body + page


# -- irw sql ----------------------------------------------------------------------------------------

@pytest.mark.postgres
def test_a_connection_the_server_ends_mid_query_says_to_run_it_again_once_it_is_up(postgres_url):
    query = "select count(*) as n from generate_series(1, 3000000000) as g"

    def end_it():  # as a fast shutdown does: the server ends the session (57P01)
        deadline = time.monotonic() + 30
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            while time.monotonic() < deadline:
                ended = admin.execute("select pg_terminate_backend(pid) from pg_stat_activity where query = %s "
                                      "and pid <> pg_backend_pid()", [query]).fetchall()
                if ended:
                    return
                time.sleep(0.1)

    with warehouse.open(postgres_url) as wh:
        ender = threading.Thread(target=end_it)
        ender.start()
        try:
            with pytest.raises(warehouse.QueryError) as caught:
                wh.sql(query, timeout=0)
        finally:
            ender.join()
        lines = caught.value.message_lines()
        assert lines[0] == "terminating connection due to administrator command"
        assert "the server ended the connection (it was shut down or restarted): run the command again once it is up" \
            in lines
        assert wh.sql("select 1 as x").rows == [(1,)]  # the next one connects again


@pytest.mark.postgres
@pytest.mark.parametrize("query, psycopg_said", [
    ("select run_id from runs where run_id = ?", "the query has 0 placeholders but 1 parameters were passed"),
    ("select run_id from runs where name like 'BM25%' and run_id = %s", "are allowed as placeholders, got '%''"),
])
def test_question_marks_or_a_literal_percent_with_parameters_say_how_postgresql_writes_placeholders(
        postgres_url, query, psycopg_said):
    with warehouse.open(postgres_url) as wh:
        with pytest.raises(warehouse.QueryError) as caught:
            wh.sql(query, [1])
        message = str(caught.value)
        assert psycopg_said in message
        assert "on PostgreSQL write placeholders as psycopg does: %s (not ?)" in message
        assert "and a literal % as %%" in message
        assert wh.sql("select count(*) as n from runs where name like 'BM25%%' and run_id = %s", [1]).rows == [(0,)]
