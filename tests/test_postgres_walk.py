"""A team's shared PostgreSQL warehouse as its users met it (a user walk): a location meant as a
server that is no URL irw can use is refused before anything is made, its password masked; a
second writer's privileges are the ones docs/engines.md grants, and what it lacks is said; a
database of another application is refused alike by commands that read and that write, and a
schema of irw's own is chosen in the URL; irw sql's syntax errors and unknown tables are said as
on DuckDB; a read-only role as copy's target is told what ingest tells it; two writers storing one
run name at once are told which name, not the server's constraint."""
from __future__ import annotations

import re
import secrets
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

import warehouse
from conftest import (RUN_ROWS, Cli, fresh_postgres_database, postgres_dbname, postgres_url_with, qrels_text,
                      run_text, write_file)
from docs_pages import section

URL_FORM = "postgresql://USER:PASSWORD@HOST:PORT/DBNAME"
PASSWORD = "AlicePw1"


# -- locations meant as a server (no server needed) ------------------------------------------------

MEANT_AS_SERVER = [
    f"postgresql:/alice:{PASSWORD}@127.0.0.1:5432/team",  # one slash
    f"Postgres:alice:{PASSWORD}@127.0.0.1:5432/team",
    f"postgresql//alice:{PASSWORD}@127.0.0.1:5432/team",  # no colon
    f"host=127.0.0.1 port=5432 dbname=team user=alice password={PASSWORD}",  # libpq's key=value string
    f"dbname=team password='{PASSWORD}'",
]
# the password's @ (or /) not percent-encoded: the server would be asked for host `Pw1@127.0.0.1`
UNENCODED = ["postgresql://alice:Alice@Pw1@127.0.0.1:5432/team", "postgresql://alice:Alice/Pw1@127.0.0.1:5432/team",
             "POSTGRESQL://alice:Alice@Pw1@127.0.0.1:5432/team"]


@pytest.mark.parametrize("location", MEANT_AS_SERVER + UNENCODED)
def test_a_location_meant_as_a_server_is_refused_before_anything_is_made(location, tmp_path, monkeypatch):
    run = write_file(tmp_path, "r.txt", run_text(RUN_ROWS))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for args in (("ingest", "run", str(run), "--name", "r"), ("runs",), ("migrate",)):
        result = Cli(location)(*args)
        said = result.stdout + result.stderr
        assert result.exit_code == 1, (args, said)
        assert "Pw1" not in said, said  # no part of the password
        assert URL_FORM in result.stderr, result.stderr
        if location in UNENCODED:
            assert "%40" in result.stderr, result.stderr
    assert list(work.iterdir()) == []  # no file named by the password
    with pytest.raises(warehouse.WarehouseOpenError) as refused:
        warehouse.open(location)
    assert "Pw1" not in str(refused.value) and URL_FORM in str(refused.value)


def test_a_libpq_string_is_answered_with_the_url_it_means(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = Cli(f"host=db.example port=5433 dbname=team user=alice password={PASSWORD}")("runs")
    assert "postgresql://alice:PASSWORD@db.example:5433/team" in result.stderr, result.stderr
    assert PASSWORD not in result.stderr


def test_what_irw_prints_of_such_a_location_is_masked():
    from warehouse.engines import shown

    for location in MEANT_AS_SERVER + UNENCODED:
        assert "Pw1" not in shown(location), shown(location)
    assert shown("runs/team.duckdb") == "runs/team.duckdb"


def test_a_duckdb_file_whose_name_starts_with_postgres_is_still_a_file(tmp_path):
    path = tmp_path / "postgres_backup.duckdb"
    with warehouse.open(str(path)) as wh:
        assert wh.runs().rows == []
    assert path.is_file()


# -- on a server ----------------------------------------------------------------------------------

def _seeded(url: str, tmp_path: Path, run: str = "r") -> Cli:
    irw = Cli(url)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    made = irw("ingest", "run", str(write_file(tmp_path, f"{run}.txt", run_text(RUN_ROWS))), "--name", run)
    assert made.exit_code == 0, made.stderr
    return irw


@pytest.mark.postgres
def test_a_url_whose_scheme_is_in_capitals_is_a_url(postgres_url, tmp_path):
    upper = re.sub(r"^postgresql", "POSTGRESQL", postgres_url)
    irw = _seeded(upper, tmp_path)
    listed = irw("runs")
    assert listed.exit_code == 0 and "r " in listed.stdout, listed.stderr


@contextmanager
def _roles(server_url: str, *names: str):
    """Login roles of these names (their password: PASSWORD), dropped on leaving."""
    with psycopg.connect(server_url, autocommit=True) as admin:
        for name in names:
            admin.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name),
                                                                             sql.Literal(PASSWORD)))
    try:
        yield
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            for name in names:
                admin.execute("select pg_terminate_backend(pid) from pg_stat_activity where usename = %s", [name])
                admin.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


@contextmanager
def _team(server_url: str):
    """A database owned by a role of its own, and a second role that may connect: (owner's URL,
    writer's URL, writer's role)."""
    tag = secrets.token_hex(4)
    owner, writer = f"irw_owner_{tag}", f"irw_writer_{tag}"
    with _roles(server_url, owner, writer), fresh_postgres_database(server_url) as url:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(sql.SQL("alter database {} owner to {}").format(sql.Identifier(postgres_dbname(url)),
                                                                         sql.Identifier(owner)))
        yield (postgres_url_with(url, user=owner, password=PASSWORD),
               postgres_url_with(url, user=writer, password=PASSWORD), writer)


def _documented_grants(writer: str, *, later_only: bool = False) -> list[str]:
    """The statements docs/engines.md ("A shared warehouse") has the owner run for another writer,
    as printed, `writer` being the role's name; later_only: those for tables made later."""
    found = re.findall(r"`((?:grant|alter default privileges|revoke)[^`]*? to writer;|revoke [^`]*? from writer;)`",
                       section("A shared warehouse"))
    assert len(found) == 5, found
    if later_only:
        found = [statement for statement in found if statement.startswith("alter default privileges")]
    return [re.sub(r"\bwriter;$", f"{writer};", statement) for statement in found]


def _as(url: str, statements: list[str]) -> None:
    with psycopg.connect(url, autocommit=True) as con:
        for statement in statements:
            con.execute(statement)


def _writes(irw: Cli, tmp_path: Path) -> None:
    """irw's writes all succeed through irw: a run ingested, evaluated (its scores stored), removed."""
    other = write_file(tmp_path, "w.txt", run_text([*RUN_ROWS, ("q2", "d9", 2, "0.25")]))
    for args in (("ingest", "run", str(other), "--name", "w"), ("eval", "w", "-m", "AP", "-m", "P@5", "--qrels", "q"),
                 ("rm", "run", "w")):
        done = irw(*args)
        assert done.exit_code == 0, (args, done.stderr)


@pytest.mark.postgres
def test_a_second_writer_lacking_grants_is_told_which_and_the_documented_grants_suffice(postgres_server, tmp_path):
    with _team(postgres_server) as (owner_url, writer_url, writer):
        _seeded(owner_url, tmp_path)
        irw = Cli(writer_url)
        run = str(write_file(tmp_path, "w.txt", run_text(RUN_ROWS)))
        for grant in ([], [f"grant update on qrels_sets to {writer}"]):
            _as(owner_url, grant)
            for args in (("ingest", "run", run, "--name", "w"), ("runs",)):
                refused = irw(*args)
                assert refused.exit_code == 1, refused.stdout
                assert "permission denied for table irw_schema" in refused.stderr, refused.stderr
                assert "SELECT, INSERT, UPDATE and DELETE on its tables" in refused.stderr, refused.stderr
                assert '"A shared warehouse"' in refused.stderr
                for wrong in ("no irw_schema table", "may create tables", "no warehouse in"):
                    assert wrong not in refused.stderr, refused.stderr
        _as(owner_url, _documented_grants(writer))
        _writes(irw, tmp_path)
        # a newer irw's migration, which only the tables' owner may apply
        with psycopg.connect(owner_url, autocommit=True) as owner:
            owner.execute("delete from irw_schema where version = (select max(version) from irw_schema)")
        refused = irw("ingest", "run", run, "--name", "w")
        assert refused.exit_code == 1, refused.stdout
        assert "may not apply this irw's migrations" in refused.stderr and "irw migrate" in refused.stderr, \
            refused.stderr
        assert Cli(owner_url)("migrate").exit_code == 0
        _writes(irw, tmp_path)


@pytest.mark.postgres
def test_the_documented_default_privileges_cover_the_tables_migrations_make(postgres_server, tmp_path):
    with _team(postgres_server) as (owner_url, writer_url, writer):
        _as(owner_url, _documented_grants(writer, later_only=True))  # before any table exists
        _seeded(owner_url, tmp_path)  # the owner's migrations make every table
        _writes(Cli(writer_url), tmp_path)


@pytest.mark.postgres
def test_a_read_only_role_as_copys_target_is_told_what_ingest_tells_it(postgres_url, postgres_readonly_url,
                                                                          tmp_path):
    _seeded(postgres_url, tmp_path)
    local, files = tmp_path / "local.duckdb", tmp_path / "local"
    files.mkdir()
    _seeded(str(local), files, run="other")
    ingest = Cli(postgres_readonly_url)("ingest", "run", str(write_file(tmp_path, "x.txt", run_text(RUN_ROWS))))
    copy = Cli(postgres_readonly_url)("copy", "--from", str(local), "--to", postgres_readonly_url, db=False)
    assert ingest.exit_code == copy.exit_code == 1
    said = ingest.stderr.split("is read-only here", 1)[1]
    assert "is read-only here" in copy.stderr and copy.stderr.split("is read-only here", 1)[1] == said, copy.stderr
    assert "permission denied" not in copy.stderr and "may create tables" not in copy.stderr


@pytest.mark.postgres
def test_another_applications_database_is_refused_alike_and_a_schema_of_irws_own_is_chosen(postgres_server, tmp_path):
    with _team(postgres_server) as (owner_url, writer_url, writer):
        _as(owner_url, ["create table customers (id int)"])
        for url in (owner_url, writer_url):
            irw = Cli(url)
            for args in (("runs",), ("qrels",), ("migrate",), ("ingest", "qrels", str(write_file(
                    tmp_path, "q.txt", qrels_text())), "--name", "q")):
                refused = irw(*args)
                assert refused.exit_code == 1, (args, refused.stdout)
                assert "holds tables (customers) and no irw_schema table" in refused.stderr, (args, refused.stderr)
                assert "create one with" not in refused.stderr and "?options=-csearch_path%3Dirw" in refused.stderr
        # the schema and the URL as docs/engines.md writes them
        text = section("A shared warehouse")
        assert "`create schema irw;`" in text and "?options=-csearch_path%3Dirw`" in text
        missing = Cli(owner_url + "?options=-csearch_path%3Dirw")("runs")
        assert missing.exit_code == 1 and "no schema of its search_path (irw) exists" in missing.stderr, \
            missing.stderr
        _as(owner_url, ["create schema irw;"])
        _seeded(owner_url + "?options=-csearch_path%3Dirw", tmp_path)
        unusable = Cli(writer_url + "?options=-csearch_path%3Dirw")("runs")
        assert f"grant usage on schema irw to {writer}" in unusable.stderr, unusable.stderr
        # the owner's session starts in irw: irw_reader_login is the schema's
        _as(owner_url + "?options=-csearch_path%3Dirw",
            [statement.replace("schema public", "schema irw") for statement in _documented_grants(writer)])
        _writes(Cli(writer_url + "?options=-csearch_path%3Dirw"), tmp_path)
        with psycopg.connect(owner_url, autocommit=True) as con:
            schemas = {r[0] for r in con.execute("select table_schema from information_schema.tables "
                                                 "where table_name in ('runs', 'customers')").fetchall()}
            assert schemas == {"irw", "public"}


@pytest.mark.postgres
def test_irw_sql_says_a_syntax_error_and_lists_the_tables_as_on_duckdb(postgres_url, postgres_readonly_url, tmp_path):
    _seeded(postgres_url, tmp_path)
    local = tmp_path / "copy.duckdb"
    assert Cli(local)("copy", "--from", postgres_url, "--to", str(local), db=False).exit_code == 0
    for url in (postgres_readonly_url, postgres_url):
        typo = Cli(url)("sql", "selec 1")
        assert typo.exit_code == 1
        assert typo.stderr.splitlines()[:3] == ['Error: syntax error at or near "selec"', "Error: LINE 1: selec 1",
                                                "Error:         ^"], typo.stderr
        assert "refused" not in typo.stderr
    listings = []
    for where in (postgres_readonly_url, local):
        missing = Cli(where)("sql", "select * from nosuchtable")
        assert missing.exit_code == 1
        listings += [line for line in missing.stderr.splitlines() if "the warehouse has tables: " in line]
    assert len(listings) == 2 and listings[0] == listings[1], listings
    assert "runs" in listings[0] and "irw_reader_login" not in listings[0]


@pytest.mark.postgres
def test_a_name_stored_meanwhile_is_named_not_the_servers_constraint(postgres_url, tmp_path):
    from warehouse.errors import ConflictError

    _seeded(postgres_url, tmp_path)
    Cli(postgres_url)("ingest", "run", str(write_file(tmp_path, "s.txt", run_text(RUN_ROWS[:2]))), "--name", "s")
    with warehouse.open(postgres_url) as wh:
        # what a second writer meets when the first stored the name after it looked
        with pytest.raises(ConflictError) as clash:
            wh.db.execute("update runs set name = 'r' where name = 's'")
    said = str(clash.value)
    assert said.startswith("another writer stored run r meanwhile in ") and "run the command again" in said, said
    assert "duplicate key" not in said and "runs_name_key" not in said
