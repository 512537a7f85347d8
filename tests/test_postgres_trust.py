"""A shared PostgreSQL warehouse and the roles that only read it (issue 24), checked at the server,
bypassing irw's own checks on purpose: a reader cannot hold a lock irw's writers wait on; the
reader login irw sql runs user SQL as works under password authentication (pg_hba.conf asking
scram-sha-256), and a login the server refuses makes irw sql refuse, never run in the writer's
session. Real server, raw psycopg sessions, irw in subprocesses with timeouts."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import psycopg
import pytest

from conftest import RUN_ROWS, Cli, hba_first, hba_lines, postgres_url_with, qrels_text, run_text, write_file

pytestmark = pytest.mark.postgres

# Every advisory key an irw before issue 24 took: migrations, and (class, qrels set) of stored scores.
OLD_MIGRATION_KEY = 0x697277
OLD_SCORES_CLASS = 0x697273


def _irw(url: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *args, "--db", url], capture_output=True, text=True,
                          timeout=timeout)


def _seeded(url, tmp_path):
    irw = Cli(url)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    return irw


def test_a_reader_holding_every_advisory_key_irw_used_blocks_no_writer(postgres_url, postgres_readonly_url, tmp_path):
    # Before the warehouse exists: any role that may connect holds the old migration key.
    squatter = psycopg.connect(postgres_readonly_url, autocommit=True)
    try:
        squatter.execute("select pg_advisory_lock(%s)", [OLD_MIGRATION_KEY])
        qrels = write_file(tmp_path, "q.txt", qrels_text())
        made = _irw(postgres_url, "ingest", "qrels", str(qrels), "--name", "q")
        assert made.returncode == 0, made.stderr
        ids = [r[0] for r in squatter.execute("select qrels_set_id from qrels_sets").fetchall()]
        assert ids  # the reader reads the warehouse
        for qrels_set_id in {*ids, *range(1, 20)}:
            squatter.execute("select pg_advisory_lock(%s, %s)", [OLD_SCORES_CLASS, qrels_set_id])
        squatter.execute("select pg_advisory_lock_shared(%s)", [OLD_MIGRATION_KEY])
        ingest = subprocess.Popen([sys.executable, "-m", "warehouse", "ingest", "run",
                                   str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r",
                                   "--db", postgres_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, stderr = ingest.communicate(timeout=120)
        assert ingest.returncode == 0, stderr
        evaluated = _irw(postgres_url, "eval", "-m", "AP", "-m", "P@5", "--qrels", "q")
        assert evaluated.returncode == 0 and "r" in evaluated.stdout, evaluated.stderr
        assert squatter.execute("select count(*) from pg_locks where locktype = 'advisory' and granted"
                                ).fetchone()[0] >= 2  # still held, all along
    finally:
        squatter.close()
    stored = psycopg.connect(postgres_url, autocommit=True)
    try:
        assert stored.execute("select count(*) from scores").fetchone()[0] > 0
    finally:
        stored.close()


def test_a_reader_cannot_take_the_locks_writers_serialise_on(postgres_url, postgres_readonly_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    with psycopg.connect(postgres_readonly_url) as reader:
        for statement in ("select 1 from qrels_sets for no key update", "select 1 from qrels_sets for key share",
                          "lock table irw_schema in exclusive mode", "lock table irw_schema in row share mode",
                          "lock table qrels_sets in share mode"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                reader.execute(statement)
            reader.rollback()
        # what it may hold: ACCESS SHARE (reading), which the writers' locks do not wait on
        reader.execute("lock table irw_schema in access share mode")
        reader.execute("select * from qrels_sets").fetchall()
        evaluated = _irw(postgres_url, "eval", "-m", "AP", "--qrels", "q", timeout=120)
        assert evaluated.returncode == 0, evaluated.stderr
        reader.rollback()



def test_a_writer_storing_scores_waits_for_another_on_the_same_qrels_set(postgres_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    with psycopg.connect(postgres_url) as other:  # a writer in the middle of storing scores for q
        other.execute("select 1 from qrels_sets where name = 'q' for no key update")
        waiting = subprocess.Popen([sys.executable, "-m", "warehouse", "eval", "-m", "AP", "--qrels", "q",
                                    "--db", postgres_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline, seen = time.monotonic() + 60, 0
            while time.monotonic() < deadline and not seen and waiting.poll() is None:
                time.sleep(0.1)
                seen = other.execute("select count(*) from pg_locks where not granted "
                                     "and locktype in ('tuple', 'transactionid')").fetchone()[0]
            assert seen and waiting.poll() is None  # it waits for the other writer
            other.rollback()
            stdout, stderr = waiting.communicate(timeout=120)
            assert waiting.returncode == 0 and "r" in stdout, stderr
        finally:
            if waiting.poll() is None:
                waiting.kill()
                waiting.wait()



def test_many_clients_creating_a_warehouse_together_all_open_it(postgres_server):
    """Without an advisory lock the first writer creates irw_schema alone: the others fail on the
    catalog ("relation/type already exists"), find it made and wait on its lock."""
    from concurrent.futures import ThreadPoolExecutor

    import warehouse
    from conftest import fresh_postgres_database
    from warehouse.engines.duckdb import migrations

    for _ in range(3):
        with fresh_postgres_database(postgres_server) as url:
            def open_it(_):
                with warehouse.open(url) as wh:
                    return wh.db.schema_version()

            with ThreadPoolExecutor(8) as pool:
                assert list(pool.map(open_it, range(8))) == [migrations()[-1][0]] * 8


# -- the reader login under password authentication ---------------------------------------------
def _login(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as con:
        return con.execute("select role_name from irw_reader_login").fetchone()[0]


def test_the_reader_login_works_where_the_server_asks_a_scram_password(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    login = _login(postgres_url)
    with hba_first(postgres_url, hba_lines(login, "scram-sha-256")):
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(postgres_url_with(postgres_url, user=login, password="not-its-password")).close()
        who = irw("sql", "select session_user as who, count(*) as n from runs", "-f", "csv")
        assert who.exit_code == 0 and who.stdout.splitlines()[1] == f"{login},1", who.stderr
    # the password never reached the server as text: it keeps a SCRAM verifier
    with psycopg.connect(postgres_url, autocommit=True) as con:
        stored, = con.execute("select rolpassword from pg_authid where rolname = %s", [login]).fetchone()
        password, = con.execute("select password from irw_reader_login").fetchone()
    assert stored.startswith("SCRAM-SHA-256$4096:") and password not in stored


def test_a_reader_login_the_server_refuses_makes_irw_sql_refuse_and_say_what_to_do(
        postgres_url, postgres_readonly_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    login = _login(postgres_url)
    with hba_first(postgres_url, hba_lines(login, "reject")):
        refused = irw("sql", "select session_user as who", "-f", "csv")
        assert refused.exit_code == 1, refused.stdout
        assert f"irw's reader login {login}" in refused.stderr and "pg_hba.conf" in refused.stderr, refused.stderr
        assert "read-only role" in refused.stderr and "Traceback" not in refused.stderr
        assert "postgres" not in refused.stdout  # never ran in the writer's session instead
        # a role that can only read runs it in its own session, as before
        own = Cli(postgres_readonly_url)("sql", "select count(*) as n from runs", "-f", "csv")
        assert own.exit_code == 0 and own.stdout.splitlines()[1] == "1", own.stderr


def test_a_warehouse_from_before_the_reader_login_gets_one_when_a_writer_upgrades_it(postgres_url, tmp_path):
    irw = _seeded(postgres_url, tmp_path)
    with psycopg.connect(postgres_url, autocommit=True) as con:  # as an irw before migration 15 left it
        login = con.execute("select role_name from irw_reader_login").fetchone()[0]
        con.execute("drop table irw_reader_login")
        con.execute("delete from irw_schema where version = 15")
        con.execute(f'drop owned by "{login}"')
        con.execute(f'drop role "{login}"')
    old = irw("sql", "select 1 as x")
    assert old.exit_code == 1 and "irw migrate" in old.stderr, old.stderr
    assert irw("migrate").exit_code == 0
    who = irw("sql", "select session_user as who", "-f", "csv")
    assert who.exit_code == 0 and who.stdout.splitlines()[1] == _login(postgres_url) != login, who.stderr


# -- objects irw's migrations did not make ------------------------------------------------------
def _replaced_view(con, name: str) -> str:
    definition = con.execute("select pg_get_viewdef(%s::regclass)", [name]).fetchone()[0].rstrip().rstrip(";")
    return (f"create or replace view {name} as select * from ({definition}) q "
            "where pg_read_file('/etc/hostname') is not null")


# attack: (statements as the warehouse's owner, the label the message names)
ATTACKS = {
    "irw's table swapped for a view over a server file": (
        ["alter table runs rename to runs_kept",
         "create view runs as select run_id, pg_read_file('/etc/hostname') as name, system, tag, description, "
         "parameters, ir_metadata, source_path, sha256, file_created_at, date_source, ingested_at, row_count, "
         "query_count from runs_kept"], "view runs (not irw's definition)"),
    # (run_summary and ranked_judged are made again at a writable open instead, unrun:
    # test_a_redefined_view_irw_makes_again_is_dropped_unrun_by_a_writer)
    "irw's view redefined": ([lambda con: _replaced_view(con, "score_values")],
                             "view score_values (not irw's definition)"),
    "a view of someone else's": (["create view extra as select pg_read_file('/etc/hostname') as secret"],
                                 "view extra"),
    "a table of someone else's": (["create table extra_table (a integer)"], "table extra_table"),
    "a function shadowing a built-in": (
        ["create function lower(varchar) returns text language sql as $$ select pg_read_file('/etc/hostname') $$"],
        "function lower(character varying)"),
    "an aggregate named like count": (["create aggregate count(integer) (sfunc = int4pl, stype = integer)"],
                                      "aggregate count(integer)"),
    "a procedure": (["create procedure tidy() language sql as $$ select 1 $$"], "procedure tidy()"),
    "a type": (["create type mood as enum ('a')"], "type mood"),
    "a sequence": (["create sequence extra_seq"], "sequence extra_seq"),
    "a trigger": (["create function touch() returns trigger language plpgsql as $$ begin return new; end $$",
                   "create trigger touched before insert on runs for each row execute function touch()"],
                  "trigger runs.touched"),
    "a rule": (["create rule quiet as on update to runs do instead nothing"], "rule runs.quiet"),
    "an operator": (["create operator === (leftarg = text, rightarg = text, function = texteq)"],
                    "operator ===(text, text)"),
    "a row security policy": (["create policy everyone on runs using (pg_read_file('/etc/hostname') is not null)"],
                              "policy runs.everyone"),
    "a column default": (["alter table runs alter column description set default pg_read_file('/etc/hostname')"],
                         "column runs.description (not irw's definition)"),
    "an index on an expression": (["create index leak_idx on runs ((name || 'x'))"], "index leak_idx"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_warehouse_holding_what_irw_did_not_make_is_refused_by_every_command(postgres_url, tmp_path, attack):
    irw = _seeded(postgres_url, tmp_path)
    statements, label = ATTACKS[attack]
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        for statement in statements:
            owner.execute(statement(owner) if callable(statement) else statement)
    target = tmp_path / "copy.duckdb"
    page = tmp_path / "lb.html"
    for command in (["runs"], ["report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", str(page)],
                    ["sql", "select count(*) as n from runs"], ["eval", "-m", "AP", "--qrels", "q"]):
        result = irw(*command)
        assert result.exit_code == 1, (command, result.stdout)
        assert "irw's migrations did not make" in result.stderr and label in result.stderr, (command, result.stderr)
    copied = Cli(postgres_url)("copy", "--from", postgres_url, "--to", str(target), db=False)
    assert copied.exit_code == 1 and label in copied.stderr, copied.stderr
    assert not target.exists() and not page.exists()


def test_a_redefined_view_irw_makes_again_is_dropped_unrun_by_a_writer(postgres_url, tmp_path):
    """run_summary (and ranked_judged) hold the text of files under sql/ that change without a
    migration, so a view of that name made otherwise is made again at a writable open (dropping a
    view runs nothing of it) and refused at a read-only one, naming `irw migrate`."""
    irw = _seeded(postgres_url, tmp_path)
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        owner.execute(_replaced_view(owner, "run_summary"))
    refused = irw("sql", "select count(*) as n from runs")
    assert refused.exit_code == 1 and "view run_summary was made by an irw of other sql/eval files" in refused.stderr
    assert "irw migrate" in refused.stderr and "did not make" not in refused.stderr, refused.stderr
    assert irw("migrate").exit_code == 0
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        assert "pg_read_file" not in owner.execute("select pg_get_viewdef('run_summary')").fetchone()[0]
    assert irw("eval", "-m", "AP", "--qrels", "q").exit_code == 0
    assert irw("sql", "select count(*) as n from run_summary").exit_code == 0


def test_irws_own_warehouses_hold_nothing_foreign_old_or_upgraded(postgres_url, tmp_path, monkeypatch):
    import warehouse
    from warehouse.engines import duckdb as db_module

    full = db_module.migrations()
    monkeypatch.setattr(db_module, "migrations", lambda: full[:9])
    with warehouse.open(postgres_url) as wh:  # a warehouse of an irw of nine migrations
        assert wh.db.schema_version() == 9
    monkeypatch.undo()
    irw = Cli(postgres_url)
    old = irw("runs")  # refused for its version alone: nothing in it is foreign
    assert old.exit_code == 1 and "irw migrate" in old.stderr and "did not make" not in old.stderr, old.stderr
    irw = _seeded(postgres_url, tmp_path)  # upgrades it
    with warehouse.open(postgres_url, read_only=True) as wh:
        assert wh.db.schema_version() == full[-1][0]
    assert irw("eval", "-m", "AP", "--qrels", "q").exit_code == 0
    assert irw("runs").exit_code == 0
    page = tmp_path / "lb.html"
    assert irw("report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", str(page)).exit_code == 0
    assert irw("sql", "select count(*) as n from runs").exit_code == 0


def test_irws_session_searches_the_warehouses_schema_alone(postgres_url, tmp_path):
    """A function of another schema on the URL's search_path (public, writable by every role before
    PostgreSQL 15) cannot stand for a built-in one in irw's statements: the path is the warehouse's
    schema alone (pg_catalog implicitly first), and the schema's own functions are refused at open."""
    import warehouse

    with psycopg.connect(postgres_url, autocommit=True) as owner:
        owner.execute("create schema wh")
        owner.execute("create function public.lower(varchar) returns text language sql "
                      "as $$ select 'shadowed' $$")
    url = postgres_url + "?options=-csearch_path%3Dwh%2Cpublic"
    irw = _seeded(url, tmp_path)
    with warehouse.open(url, read_only=True) as wh:
        assert wh.db.schema == "wh"
        assert wh.db.con.execute("show search_path").fetchone()[0] == "wh"
        assert wh.db.con.execute("select lower('ABC'::varchar)").fetchone()[0] == "abc"
    assert irw("runs").exit_code == 0


def test_the_reference_of_irws_objects_is_worked_out_once_and_kept(postgres_url, postgres_readonly_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}

    def runs(url):
        return subprocess.run([sys.executable, "-m", "warehouse", "runs", "--db", url], capture_output=True,
                              text=True, timeout=120, env=env)

    with psycopg.connect(postgres_url, autocommit=True) as owner:
        database = owner.execute("select current_database()").fetchone()[0]
        owner.execute(f'revoke temporary on database "{database}" from public')
    refused = runs(postgres_readonly_url)  # a reader that may not create temporary tables, and no cache
    assert refused.returncode == 1 and "GRANT TEMP" in refused.stderr and "Traceback" not in refused.stderr, \
        refused.stderr
    assert not list(cache.glob("irw/known-postgres-objects-*.json"))
    made = runs(postgres_url)  # the owner works it out once
    assert made.returncode == 0, made.stderr
    assert len(list(cache.glob("irw/known-postgres-objects-*.json"))) == 1
    kept = runs(postgres_readonly_url)  # and the reader of the same account reads it from the cache
    assert kept.returncode == 0 and "r" in kept.stdout, kept.stderr


def _add_event_trigger(url: str, event: str) -> None:
    with psycopg.connect(url, autocommit=True) as owner:
        owner.execute("create schema elsewhere")  # not the warehouse's schema, which _check_objects checks
        owner.execute("create function elsewhere.watch() returns event_trigger language plpgsql as "
                      "$$ begin perform pg_read_file('/etc/hostname'); end $$")
        owner.execute(f"create event trigger watcher on {event} execute function elsewhere.watch()")


@pytest.mark.parametrize("event", ["ddl_command_start", "sql_drop"])
def test_a_database_with_an_event_trigger_irw_did_not_make_is_refused(postgres_url, tmp_path, event):
    """An event trigger (database-wide, a superuser's) fires on the DDL irw runs, running its function
    in irw's session: a warehouse in its database is not opened, by any command; disabled, it is no
    longer in the way."""
    irw = _seeded(postgres_url, tmp_path)
    _add_event_trigger(postgres_url, event)
    label = f"event trigger watcher (on {event}, owner "
    for command in (["runs"], ["sql", "select count(*) as n from runs"]):
        result = irw(*command)
        assert result.exit_code == 1, (command, result.stdout)
        assert "its database holds an event trigger irw did not make" in result.stderr and label in result.stderr, \
            (command, result.stderr)
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        owner.execute("alter event trigger watcher disable")
    assert irw("runs").exit_code == 0


def test_no_warehouse_is_made_in_a_database_with_an_event_trigger(postgres_url, tmp_path):
    _add_event_trigger(postgres_url, "ddl_command_end")
    result = Cli(postgres_url)("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q")
    assert result.exit_code == 1 and "event trigger watcher (on ddl_command_end, owner " in result.stderr, result.stderr
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        assert owner.execute("select to_regclass('irw_schema') is null").fetchone()[0]
