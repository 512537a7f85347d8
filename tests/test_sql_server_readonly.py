"""`irw sql` on PostgreSQL (issue 24): read-only is the server's guarantee. User SQL runs in a
session whose login role can only read (the warehouse's reader login when the URL's role may do
more), in a READ ONLY transaction with statement and lock timeouts; the checks that remain read
names as the server does (U&"..." decoded) and refuse every function the server marks VOLATILE.
Ctrl-C and a killed client leave nothing running on the server. Real server, real subprocesses."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import Iterator

import psycopg
import pytest
from psycopg import sql as psql

import warehouse
from conftest import Cli, postgres_url_with, qrels_text, run_text, RUN_ROWS, write_file

pytestmark = pytest.mark.postgres

FOREVER = "with recursive t(n) as (select 1 union all select n + 1 from t) select count(*) from t"


def _seeded(url, tmp_path):
    irw = Cli(url)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    return irw


@contextmanager
def _login_roles(url: str, *names: str) -> Iterator[psycopg.Connection]:
    """Login roles (password pw) made afresh for a test; the admin connection, for their grants,
    until the block ends, when everything they own and the roles themselves are dropped."""
    with psycopg.connect(url, autocommit=True) as admin:
        for name in names:
            admin.execute(psql.SQL("drop role if exists {}").format(psql.Identifier(name)))
            admin.execute(psql.SQL("create role {} login password 'pw'").format(psql.Identifier(name)))
        try:
            yield admin
        finally:
            for name in names:
                admin.execute(psql.SQL("drop owned by {}").format(psql.Identifier(name)))
                admin.execute(psql.SQL("drop role {}").format(psql.Identifier(name)))


def _unchecked(db, statement):
    """run_on_postgres without its statement checks: what the server alone enforces."""
    from warehouse.store import adhoc

    original = adhoc._postgres_refusal
    adhoc._postgres_refusal = lambda query, volatile=None: (None, "")
    try:
        return adhoc.run_on_postgres(db, statement, None)
    finally:
        adhoc._postgres_refusal = original


def test_hostile_functions_are_refused_whatever_their_spelling(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    for statement in (r'select U&"pg\005fadvisory\005flock"(1, 1)',
                      r'select U&"pg!005fterminate!005fbackend" UESCAPE ' + "'!'" + "(pg_backend_pid())",
                      r'select pg_catalog.U&"pg\005fread\005ffile"(' + "'/etc/passwd')",
                      "select * from ts_stat('select to_tsvector(pg_read_file(''/etc/passwd''))')",
                      "select pg_read_file('/etc/passwd')", "select pg_backup_start('x')",
                      "select set_config('role', 'none', true)", "select pg_catalog.pg_sleep(1)",
                      "select query_to_xml('select 1', true, true, '')",
                      "select txid_current_if_assigned(), pg_stat_reset()",
                      "select * from runs where pg_try_advisory_lock(7)"):
        refused = irw("sql", statement)
        assert refused.exit_code == 1, (statement, refused.stdout)
        assert "acts outside the query" in refused.stderr, (statement, refused.stderr)
        assert "irw ingest" not in refused.stderr  # not a write: no hint to write another way
    # volatile functions that only read the clock or draw numbers are fine
    assert irw("sql", "select random() < 2 as ok, clock_timestamp() is not null as t").exit_code == 0


def test_statements_that_are_not_queries_are_named_as_such(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    for statement, word in (("listen x", "LISTEN"), ("notify x, 'y'", "NOTIFY"), ("  unlisten *", "UNLISTEN"),
                            ("/* c */ discard all", "DISCARD"), ("do $$ begin end $$", "DO"),
                            ("set role postgres", "SET"), ("with x as (select 1) delete from runs", "DELETE")):
        refused = irw("sql", statement)
        assert refused.exit_code == 1 and f"{word} statements are refused" in refused.stderr, refused.stderr
        assert "ALIAS" not in refused.stderr


def test_deep_nesting_is_checked_not_a_traceback(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    ok = irw("sql", "select " + "(" * 50 + "1" + ")" * 50 + " as x")
    assert ok.exit_code == 0 and "1" in ok.stdout


def _login(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as con:
        return con.execute("select role_name from irw_reader_login").fetchone()[0]


def test_a_superuser_url_runs_user_sql_as_the_warehouses_reader_login(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    login = _login(postgres_url)
    assert login.startswith("irw_sql_")
    who = irw("sql", "select current_user as who, session_user as login, "
              "(select rolsuper from pg_roles where rolname = current_user) as su", "-f", "csv")
    assert who.exit_code == 0 and who.stdout.splitlines()[1] == f"{login},{login},false", who.stdout
    assert irw("sql", "select count(*) as n from run_rows").stdout.count("4") >= 1
    # what the role enforces where the checks are bypassed
    other = psycopg.connect(postgres_url, autocommit=True)
    try:
        pid = other.execute("select pg_backend_pid()").fetchone()[0]
        with warehouse.open(postgres_url, read_only=True) as wh:
            for statement in ("select pg_read_file('/etc/hostname')", f"select pg_terminate_backend({pid})",
                              "select pg_ls_dir('.')", "select pg_backup_start('x')",
                              "select set_config('role', 'postgres', false)",
                              "select set_config('session_authorization', 'postgres', false)"):
                with pytest.raises(warehouse.ReadOnlyError, match="permission denied|must be a"):
                    _unchecked(wh.db, statement)
            # a session-level advisory lock does not outlive the statement
            _unchecked(wh.db, "select pg_advisory_lock(42)")
            # the role cannot be undone: user SQL's session logged in as the reader
            assert _unchecked(wh.db, "select set_config('role', 'none', false) as r, session_user as s").rows == \
                [("none", login)]
        assert other.execute("select count(*) from pg_locks where locktype = 'advisory'").fetchone()[0] == 0
        assert other.execute("select 1").fetchone() == (1,)  # not terminated
    finally:
        other.close()


def test_user_sqls_session_cannot_regain_the_writers_role(postgres_url, tmp_path):
    """Raw statements in the very session user SQL runs in: the server refuses every way back."""
    from warehouse.store import adhoc

    _seeded(postgres_url, tmp_path)
    login = _login(postgres_url)
    with warehouse.open(postgres_url, read_only=True) as wh:
        session = wh.db.user_sql_session()
        assert session is not wh.db.con
        for statement in ("select set_config('role', 'postgres', false)", "set role postgres",
                          "set session authorization postgres", "select set_config('role', 'postgres', true)"):
            session.execute("begin")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                session.execute(statement)
            session.execute("rollback")
        session.execute("reset role")
        assert session.execute("select current_user, session_user").fetchone() == (login, login)
        session.execute("reset session authorization")
        assert session.execute("select current_user, session_user").fetchone() == (login, login)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            session.execute("insert into runs (name) values ('x')")


def test_a_writer_keeps_reading_the_reader_login_and_nothing_more_of_it(postgres_url, tmp_path):
    """A team's writers could not evaluate the team's measures written in SQL (nor use irw sql):
    the owner's next command took back even their SELECT on the login's table. A writer may read
    it (the login reads no more than the writer may), never change it; a role that cannot write
    the scores keeps nothing of it."""
    _seeded(postgres_url, tmp_path)
    role, reader = "irw_writer_sec", "irw_plain_reader_sec"
    with _login_roles(postgres_url, role, reader) as admin:
        admin.execute(psql.SQL("grant select, insert, update, delete on all tables in schema public to {}").format(
            psql.Identifier(role)))
        admin.execute(psql.SQL("grant usage, select on all sequences in schema public to {}").format(
            psql.Identifier(role)))
        admin.execute(psql.SQL("grant select on all tables in schema public to {}").format(psql.Identifier(reader)))
        writer = Cli(postgres_url_with(postgres_url, user=role, password="pw"))
        # the owner's next writing command takes back what more was granted on the login's table
        assert Cli(postgres_url)("migrate").exit_code == 0
        who = writer("sql", "select session_user as who", "-f", "csv")
        assert who.exit_code == 0 and who.stdout.splitlines()[1] == _login(postgres_url), who.stderr
        held = dict(admin.execute(
            "select pg_get_userbyid(a.grantee), string_agg(a.privilege_type, ',' order by a.privilege_type) "
            "from pg_class c, aclexplode(c.relacl) a where c.oid = 'irw_reader_login'::regclass "
            "and a.grantee <> c.relowner group by 1").fetchall())
        assert held == {role: "SELECT"}, held  # not UPDATE, DELETE ...; and the reader nothing
        (tmp_path / "half.sql").write_text("-- measure: halfpg\n-- parameters: none\n-- aggregate: mean\n"
                                           "select run_id, query_id, 0.5 as value from ranked_judged "
                                           "group by run_id, query_id\n")
        assert Cli(postgres_url)("measures", "add", tmp_path / "half.sql").exit_code == 0
        evaluated = writer("eval", "-m", "halfpg", "-f", "csv")
        assert evaluated.exit_code == 0 and ",0.5" in evaluated.stdout, evaluated.stderr


def test_a_writer_that_cannot_read_the_reader_login_is_refused_and_told_why(postgres_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    role = "irw_writer_sec"
    with _login_roles(postgres_url, role) as admin:
        admin.execute(psql.SQL("grant select, insert on all tables in schema public to {}").format(
            psql.Identifier(role)))
        admin.execute(psql.SQL("revoke all on irw_reader_login from {}").format(psql.Identifier(role)))
        writer = Cli(postgres_url_with(postgres_url, user=role, password="pw"))
        refused = writer("sql", "select 1 as x")
        assert refused.exit_code == 1
        assert "irw_writer_sec may write the warehouse's tables" in refused.stderr, refused.stderr
        assert "irw migrate" in refused.stderr and "read-only role" in refused.stderr


def test_a_reader_that_may_become_a_writer_does_not_run_user_sql_in_its_session(postgres_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    role, writer = "irw_member_sec", "irw_member_writer_sec"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        for name in (role, writer):
            admin.execute(psql.SQL("drop role if exists {}").format(psql.Identifier(name)))
        admin.execute(psql.SQL("create role {} nologin").format(psql.Identifier(writer)))
        admin.execute(psql.SQL("grant insert on runs to {}").format(psql.Identifier(writer)))
        admin.execute(psql.SQL("create role {} login noinherit password 'pw'").format(psql.Identifier(role)))
        admin.execute(psql.SQL("grant usage on schema public to {}").format(psql.Identifier(role)))
        admin.execute(psql.SQL("grant select on all tables in schema public to {}").format(psql.Identifier(role)))
        admin.execute(psql.SQL("revoke all on irw_reader_login from {}").format(psql.Identifier(role)))
        admin.execute(psql.SQL("grant {} to {}").format(psql.Identifier(writer), psql.Identifier(role)))
    try:
        refused = Cli(postgres_url_with(postgres_url, user=role, password="pw"))("sql", "select 1 as x")
        assert refused.exit_code == 1
        assert f"may SET ROLE to {writer}" in refused.stderr, refused.stderr
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            for name in (role, writer):
                admin.execute(psql.SQL("drop owned by {}").format(psql.Identifier(name)))
                admin.execute(psql.SQL("drop role {}").format(psql.Identifier(name)))


def test_the_readonly_role_needs_no_switch(postgres_url, postgres_readonly_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    result = Cli(postgres_readonly_url)("sql", "select current_user as who", "-f", "csv")
    assert result.exit_code == 0 and result.stdout.splitlines()[1].startswith("irw_reader_")


def _active(url: str, marker: str) -> int:
    """The statements running in url's database that hold marker, or that fetch the rows of irw
    sql's cursor (a SELECT is declared as a server-side cursor, whose FETCHes run it)."""
    with psycopg.connect(url, autocommit=True) as con:
        return con.execute("select count(*) from pg_stat_activity where (query like %s or query like %s) "
                           "and state = 'active' and datname = current_database() and pid <> pg_backend_pid()",
                           [f"%{marker}%", '%FETCH%"irw_user_sql"%']).fetchone()[0]


def _wait(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_the_statement_timeout_cancels_on_the_server(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    started = time.monotonic()
    result = irw("sql", FOREVER + " -- timeout_marker", "--timeout", "1")
    assert result.exit_code == 1 and "timeout of 1 s" in result.stderr and "--timeout" in result.stderr
    assert time.monotonic() - started < 10
    assert _active(postgres_url, "timeout_marker") == 0


@pytest.mark.parametrize("how, timeout", [("sigint", "3"), ("sigkill", "3"), ("sigkill", "0")])
def test_ctrl_c_and_a_killed_client_leave_nothing_running_on_the_server(postgres_url, tmp_path, how, timeout):
    """With --timeout 0 (no limit) a killed client's statement ran on the server for ever (a hostile
    walk ended it by hand after minutes): the server now looks for the client every second."""
    _seeded(postgres_url, tmp_path)
    marker = f"{how}_{timeout}_marker"
    process = subprocess.Popen([sys.executable, "-m", "warehouse", "sql", FOREVER + f" -- {marker}",
                                "--db", postgres_url, "--timeout", timeout],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait(lambda: _active(postgres_url, marker) == 1, 30)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT if how == "sigint" else signal.SIGKILL)
        _, stderr = process.communicate(timeout=10)
        if how == "sigint":
            assert time.monotonic() - sent < 1.5
            assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr
            assert _wait(lambda: _active(postgres_url, marker) == 0, 1)
        else:  # the server's statement_timeout ends what the dead client left
            assert _wait(lambda: _active(postgres_url, marker) == 0, 10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_writer_that_may_create_roles_makes_and_becomes_the_reader(postgres_url, tmp_path):
    role = "irw_owner_sec"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(psql.SQL("drop role if exists {}").format(psql.Identifier(role)))
        admin.execute(psql.SQL("create role {} login createrole password 'pw'").format(psql.Identifier(role)))
        admin.execute(psql.SQL("grant create, usage on schema public to {}").format(psql.Identifier(role)))
    try:
        owner = postgres_url_with(postgres_url, user=role, password="pw")
        irw = _seeded(owner, tmp_path)  # the owner's ingest creates the tables, and the reader login
        who = irw("sql", "select current_user as who, count(*) as n from runs", "-f", "csv")
        assert who.exit_code == 0 and who.stdout.splitlines()[1] == f"{_login(owner)},1", who.stderr
        refused = irw("sql", "select pg_terminate_backend(1)")
        assert refused.exit_code == 1 and "acts outside the query" in refused.stderr
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(psql.SQL("drop owned by {}").format(psql.Identifier(role)))
            admin.execute(psql.SQL("drop role {}").format(psql.Identifier(role)))
