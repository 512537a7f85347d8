"""A warehouse file from someone else (issue 24): every command that opens one reads only what
irw's migrations made. An object they did not make (a view, macro, sequence, table, index, type,
trigger, a column default), or one of irw's names defined otherwise (a view over read_text of a secret) is
refused at open with a message, before anything reads it: nothing reaches `irw runs`, a report,
the target of `irw copy` or `irw sql`'s output."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import warehouse
from conftest import Cli, RUN_ROWS, qrels_text, run_text, write_file
from warehouse.engines.duckdb import foreign_objects

SECRET = "TOP-SECRET-7f3a"


def _warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "theirs.duckdb"
    irw = Cli(path)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    assert irw("eval", "-m", "AP", "--qrels", "q").exit_code == 0
    return path


def _crafted(path: Path, secret: Path, *statements: str) -> None:
    con = duckdb.connect(str(path))
    for statement in statements:
        con.execute(statement.replace("SECRET_PATH", str(secret)))
    con.close()


ATTACKS = {
    "irw's view redefined over a file": [
        "create or replace view score_values as select content as run, content as qrels, content as query, "
        "'AP' as measure, 1.0 as value from read_text('SECRET_PATH')"],
    "irw's table swapped for a view": [
        "alter table runs rename to runs_kept",
        "create view runs as select run_id, (select content from read_text('SECRET_PATH')) as name, system, tag, "
        "description, parameters, ir_metadata, source_path, sha256, file_created_at, date_source, ingested_at, "
        "row_count, query_count from runs_kept"],
    "a view of someone else's": ["create view extra as select content from read_text('SECRET_PATH')"],
    "a macro": ["create macro leak() as (select content from read_text('SECRET_PATH'))"],
    "a table macro": ["create macro leak_rows() as table select * from read_text('SECRET_PATH')"],
    "a column default": ["alter table runs alter column description set default "
                         "(current_setting('home_directory'))"],
    "a table in another schema": ["create schema s", "create table s.x (a integer)"],
    "a sequence": ["create sequence s_seq"],
    "a type": ["create type mood as enum ('a')"],
    "an index on an expression": ["create index leak_idx on runs ((name || 'x'))"],
    # DuckDB 2.0's triggers run in irw's writes, with irw's full access: this one copied the secret
    # into irw_schema when qrels were ingested
    "a trigger on one of irw's tables": [
        "create trigger leak after insert on qrels_sets for each statement "
        "insert into irw_schema select 900, content, now() from read_text('SECRET_PATH')"],
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_warehouse_holding_what_irw_did_not_make_is_refused_by_every_command(tmp_path, attack):
    path = _warehouse(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    _crafted(path, secret, *ATTACKS[attack])
    irw = Cli(path)
    target = tmp_path / "copy.duckdb"
    for command in (["runs"], ["qrels"], ["sql", "select * from runs"], ["eval", "-m", "AP", "--qrels", "q"],
                    ["report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", str(tmp_path / "lb.html")],
                    ["migrate"]):
        result = irw(*command)
        assert result.exit_code == 1, (command, result.stdout)
        assert "irw's migrations did not make" in result.stderr, (command, result.stderr)
        assert SECRET not in result.stdout + result.stderr
    copied = Cli(path)("copy", "--from", str(path), "--to", str(target), db=False)
    assert copied.exit_code == 1 and "irw's migrations did not make" in copied.stderr, copied.stderr
    assert not target.exists() or SECRET.encode() not in target.read_bytes()
    assert not (tmp_path / "lb.html").exists()
    with pytest.raises(warehouse.NotAWarehouse, match="did not make"):
        warehouse.open(path, read_only=True)


def test_the_message_names_what_is_foreign(tmp_path):
    path = _warehouse(tmp_path)
    _crafted(path, tmp_path, "create or replace view score_values as select 1 as x", "create view extra as select 1")
    result = Cli(path)("runs")
    assert "view score_values (not irw's definition)" in result.stderr and "view extra" in result.stderr


def test_irws_own_warehouses_hold_nothing_foreign(tmp_path):
    path = _warehouse(tmp_path)
    assert Cli(path)("report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", str(tmp_path / "lb.html")).exit_code == 0
    with duckdb.connect(str(path), read_only=True) as con:
        assert foreign_objects(con) == []


def test_a_file_found_clean_is_searched_again_once_its_bytes_change(tmp_path, monkeypatch):
    """This process does not search a file it found clean again while its bytes are the same (the
    search reads every DuckDB function: most of an open). A change by another connection,
    checkpointed into the file or left in its write-ahead log, is searched and refused. (Files changed in the last 2 s are
    always searched; here 0 s, so that the test need not wait.)"""
    import warehouse.engines.duckdb as duckdb_engine

    path = _warehouse(tmp_path)
    monkeypatch.setattr(duckdb_engine, "_SETTLED_SECONDS", 0.0)
    searches = []
    real_search = duckdb_engine.foreign_objects
    monkeypatch.setattr(duckdb_engine, "foreign_objects", lambda con: searches.append(1) or real_search(con))
    for read_only in (False, True, False):
        with warehouse.open(path, read_only=read_only):
            pass
    assert len(searches) <= 1  # the first open may search (no writes since _warehouse's last search)
    _crafted(path, tmp_path, "create macro leak() as 1")
    with pytest.raises(warehouse.NotAWarehouse, match="macro leak"):
        warehouse.open(path, read_only=True)
    _crafted(path, tmp_path, "drop macro leak")
    with warehouse.open(path):
        pass
    # the change stays in DuckDB's write-ahead log beside the file: its headers are unchanged
    con = duckdb.connect(str(path))
    con.execute("pragma disable_checkpoint_on_shutdown")
    con.execute("create view extra as select 1 as x")
    con.close()
    assert Path(f"{path}.wal").exists()
    with pytest.raises(warehouse.NotAWarehouse, match="view extra"):
        warehouse.open(path, read_only=True)


def test_a_later_command_does_not_search_a_file_found_clean_until_its_bytes_change(tmp_path, monkeypatch):
    """Each irw command is a process of its own: what one found clean is kept in the user's cache, so
    the next command on the same bytes opens without searching (~20 ms of every command). A change
    since, a record in a folder others may write, or a record that is not one, is searched again."""
    import os

    import warehouse.engines.duckdb as duckdb_engine

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(duckdb_engine, "_SETTLED_SECONDS", 0.0)
    path = _warehouse(tmp_path)
    searches = []
    real_search = duckdb_engine.foreign_objects
    monkeypatch.setattr(duckdb_engine, "foreign_objects", lambda con: searches.append(1) or real_search(con))

    def a_later_command_opens(read_only: bool = True) -> int:
        """How many searches a new process (this one, forgetting what it found) makes to open path."""
        monkeypatch.setattr(duckdb_engine, "_CLEAN_FILES", set())
        searches.clear()
        with warehouse.open(path, read_only=read_only):
            pass
        return len(searches)

    assert a_later_command_opens() <= 1  # found clean, and kept
    assert a_later_command_opens() == 0
    assert a_later_command_opens(read_only=False) == 0
    (record,) = (tmp_path / "cache" / "irw" / "clean-warehouses").glob("*.json")
    _crafted(path, tmp_path, "create macro leak() as 1")
    with pytest.raises(warehouse.NotAWarehouse, match="macro leak"):
        a_later_command_opens()
    _crafted(path, tmp_path, "drop macro leak")
    assert a_later_command_opens() == 1
    assert a_later_command_opens() == 0
    os.chmod(record.parent, 0o777)  # anyone may write the record: it is not read
    try:
        assert a_later_command_opens() == 1
    finally:
        os.chmod(record.parent, 0o700)
    record.write_text("not a record")
    assert a_later_command_opens() == 1
    assert a_later_command_opens() == 0
