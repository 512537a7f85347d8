"""Schema migrations (sql/schema/NNN_*.sql), the schema-version guard, and SQLAlchemy reflection."""
from __future__ import annotations

import re

import duckdb
import pytest
import sqlalchemy as sa

import warehouse
from warehouse import SchemaVersionError
from warehouse.engines.duckdb import migrations
from warehouse.resources import sql_dir

from conftest import RUN_ROWS, Cli, run_text, write_file


def schema_rows(wh):
    return wh.sql("select version, name, applied_at from irw_schema order by version").rows


def test_every_schema_file_is_a_numbered_migration():
    names = sorted(p.name for p in (sql_dir() / "schema").iterdir() if p.suffix == ".sql")
    assert names[0] == "000_schema_version.sql"
    # A file the migration pattern does not match would be skipped silently.
    assert all(re.fullmatch(r"\d{3}_[a-z0-9_]+\.sql", n) for n in names), names
    versions = [v for v, _ in migrations()]
    assert versions == list(range(1, len(names))), "versions are 1, 2, 3 ... without gaps or repeats"


def test_a_fresh_warehouse_records_every_migration(wh):
    rows = schema_rows(wh)
    assert [(v, n) for v, n, _ in rows] == migrations()
    assert migrations()[0] == (1, "schema/001_core.sql")
    assert wh.db.schema_version() == migrations()[-1][0]
    tables = set(wh.sql("select table_name from information_schema.tables where table_schema = 'main'").column(
        "table_name"))
    assert {"irw_schema", "qrels_sets", "qrels", "runs", "run_rows"} <= tables


def test_reopening_applies_nothing_new(db_path):
    with warehouse.open(db_path) as wh:
        first = schema_rows(wh)
    with warehouse.open(db_path) as wh:
        assert schema_rows(wh) == first
    with warehouse.open(db_path, read_only=True) as wh:
        assert schema_rows(wh) == first


def _bump_schema(db_path, version):
    with warehouse.open(db_path) as wh:
        wh.db.execute("insert into irw_schema (version, name) values (?, 'schema/999_from_the_future.sql')",
                      [version])


@pytest.mark.parametrize("read_only", [False, True])
def test_a_newer_schema_is_refused(db_path, read_only):
    newest = migrations()[-1][0]
    _bump_schema(db_path, newest + 50)
    with pytest.raises(SchemaVersionError) as caught:
        warehouse.open(db_path, read_only=read_only)
    assert str(caught.value) == (f"{db_path} has schema version {newest + 50}, newer than this irw "
                                 f"understands ({newest}): a newer irw wrote it; upgrade irw to open it "
                                 "(`irw --version` says which schema an irw understands)")
    # The refusal changed nothing: the newer version is still recorded, nothing was dropped.
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        assert con.execute("select max(version) from irw_schema").fetchone() == (newest + 50,)
    finally:
        con.close()


@pytest.mark.parametrize("command", [["runs"], ["sql", "select 1"], ["migrate"], ["eval", "-m", "AP"]])
def test_a_warehouse_a_newer_irw_migrated_is_refused_as_newer_and_left_as_it_is(db_path, tmp_path, command):
    """What a newer irw's migration makes (a table, a column, a view made otherwise) is not called
    someone else's objects to drop, and no view of it is made again by this irw before the refusal."""
    newest = migrations()[-1][0]
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        wh.db.execute("create table future_things (a integer)")
        wh.db.execute("alter table runs add column future_column integer")
        body = wh.db.fetchone("select sql from duckdb_views() where view_name = 'run_summary'")[0]
        wh.db.execute("create or replace view run_summary as select *, 1 as future_flag from ("
                      + body.split(" AS ", 1)[1].rstrip(";") + ")")
        wh.db.execute("insert into irw_schema (version, name) values (?, 'schema/999_from_the_future.sql')",
                      [newest + 1])
    before = db_path.read_bytes()
    result = Cli(db_path)(*command)
    assert result.exit_code == 1, result.stdout
    assert result.stderr == (f"Error: {db_path} has schema version {newest + 1}, newer than this irw understands "
                             f"({newest}): a newer irw wrote it; upgrade irw to open it (`irw --version` says "
                             "which schema an irw understands)\n")
    assert db_path.read_bytes() == before


def test_the_cli_reports_a_newer_schema(db_path):
    _bump_schema(db_path, 999)
    for command in (["runs"], ["ingest", "qrels", str(db_path)]):
        result = Cli(db_path)(*command)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"Error: {db_path} has schema version 999, newer than this irw")
        assert "upgrade irw" in result.stderr


def test_a_plain_duckdb_file_is_migrated_on_first_write_open(db_path):
    duckdb.connect(str(db_path)).close()
    with pytest.raises(SchemaVersionError, match="needs migrating"):
        warehouse.open(db_path, read_only=True)
    with warehouse.open(db_path) as wh:
        assert [(v, n) for v, n, _ in schema_rows(wh)] == migrations()


# duckdb-engine 0.17.0 knows no MAP type and reflects no indexes; both warnings are expected.
@pytest.mark.filterwarnings("ignore:Did not recognize type 'map'")
@pytest.mark.filterwarnings("ignore:duckdb-engine doesn't yet support reflection on indices")
def test_sqlalchemy_reflects_a_table_through_the_engine(wh):
    """duckdb-engine 0.17.0 reflection breaks from SQLAlchemy 2.0.55 on (see pyproject's pins)."""
    runs = sa.Table("runs", sa.MetaData(), autoload_with=wh.engine)
    assert {"run_id", "name", "system", "tag", "parameters", "ir_metadata", "sha256", "row_count"} <= set(
        runs.columns.keys())
    assert isinstance(runs.c.name.type, sa.String) and runs.c.name.nullable is False
    assert isinstance(runs.c.row_count.type, sa.BigInteger)
    assert runs.c.description.nullable is True
    inspector = sa.inspect(wh.engine)
    assert {"runs", "run_rows", "qrels", "qrels_sets", "irw_schema"} <= set(inspector.get_table_names())
    qrels = sa.Table("qrels", sa.MetaData(), autoload_with=wh.engine)
    assert {"qrels_set_id", "query_id", "doc_id", "grade"} <= set(qrels.columns.keys())
    assert isinstance(qrels.c.grade.type, sa.Integer)


@pytest.mark.filterwarnings("ignore:duckdb-engine doesn't yet support reflection on indices")
def test_sqlalchemy_queries_see_ingested_rows(wh, tmp_path):
    wh.ingest_run(write_file(tmp_path, "r.txt", run_text(RUN_ROWS)))
    run_rows = sa.Table("run_rows", sa.MetaData(), autoload_with=wh.engine)
    query = sa.select(run_rows.c.doc_id).where(run_rows.c.query_id == "q1").order_by(run_rows.c.score.desc())
    with wh.engine.connect() as connection:
        assert connection.execute(query).scalars().all() == ["d1", "d2", "d3"]


# -- judged_run_rows (schema 004): the run x qrels join kept at ingest ---------------------------

def _judged_rows(wh):
    return sorted(wh.sql("select qrels_set_id, run_id, query_id, doc_id, trec_rank from judged_run_rows").rows)


def _joined_rows(wh):
    return sorted(wh.sql("select q.qrels_set_id, r.run_id, r.query_id, r.doc_id, r.trec_rank from run_rows as r "
                         "join qrels as q on q.query_id = r.query_id and q.doc_id = r.doc_id").rows)


def test_judged_run_rows_follow_every_ingest_and_removal(wh, tmp_path):
    run_a = write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a"))
    run_b = write_file(tmp_path, "b.run", run_text([("q1", "d3", 1, "9"), ("q2", "d9", 1, "1")], tag="b"))
    q1 = write_file(tmp_path, "q1.qrels", "q1 0 d1 1\nq1 0 d3 0\nq2 0 d1 1\n")
    q1_changed = write_file(tmp_path, "q1b.qrels", "q1 0 d2 1\nq2 0 d9 2\n")
    q2 = write_file(tmp_path, "q2.qrels", "q2 0 d1 0\nq2 0 d9 1\nq3 0 d1 1\n")
    steps = [
        lambda: wh.ingest_run(run_a),                        # a run before any qrels
        lambda: wh.ingest_qrels(q1, "one"),                  # qrels after the run
        lambda: wh.ingest_run(run_b),                        # a run after the qrels
        lambda: wh.ingest_qrels(q2, "two"),
        lambda: wh.ingest_qrels(q1_changed, "one", replace=True),
        lambda: wh.remove_run("a"),
        lambda: wh.remove_qrels("two"),
    ]
    sizes = []
    for step in steps:
        step()
        assert _judged_rows(wh) == _joined_rows(wh)
        sizes.append(len(_judged_rows(wh)))
    assert sizes == [0, 3, 4, 6, 4, 2, 1]


def test_migrating_to_004_links_the_runs_and_qrels_already_stored(db_path, tmp_path):
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\nq1 0 d3 0\nq2 0 d1 1\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        before = wh.evaluate("a", "q", ["AP", "P@2", "nDCG"], per_query=True).per_query.rows
        linked = _judged_rows(wh)
        # back to schema 3, as a warehouse written before 004 is (005's run_summary reads the
        # macro again once 005 re-creates it)
        wh.db.execute("drop table judged_run_rows")
        wh.db.execute("drop macro trec_summary")
        wh.db.execute("delete from irw_schema where version >= 4")
        wh.db.execute("delete from scores")
        wh.db.execute("delete from evaluated")
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 4
        assert _judged_rows(wh) == linked and len(linked) == 3
        assert wh.evaluate("a", "q", ["AP", "P@2", "nDCG"], per_query=True).per_query.rows == before


def test_migrating_to_011_marks_every_stored_run_as_holding_its_rows(db_path, tmp_path):
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\nq1 0 d3 0\nq2 0 d1 1\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        # back to schema 10, as a warehouse written before runs could be stored without their rows
        wh.db.execute("alter table runs drop column rows_stored")
        wh.db.execute("delete from irw_schema where version >= 11")
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 11
        assert wh.db.fetchall("select name, rows_stored from runs") == [("a", True)]
        # a run that holds its rows is computed as before, and a later one is marked too
        assert wh.evaluate("a", "q", ["P@2"]).value("a", "P@2") == pytest.approx(0.5)
        wh.ingest_run(write_file(tmp_path, "b.run", run_text(RUN_ROWS, tag="b")))
        assert wh.db.fetchall("select name, rows_stored from runs order by name") == [("a", True), ("b", True)]


def test_migrating_to_013_adds_ranked_judged_and_user_measures_and_keeps_the_scores(db_path, tmp_path):
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\nq1 0 d3 0\nq2 0 d1 1\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        before = wh.evaluate("a", "q", ["AP", "P@2"], per_query=True).per_query.rows
        # back to schema 12, as a warehouse written before user measures is
        wh.db.execute("drop view ranked_judged")
        wh.db.execute("drop table user_measures")
        wh.db.execute("alter table measures drop column definition_hash")
        wh.db.execute("alter table evaluated drop column definition_hash")
        wh.db.execute("delete from irw_schema where version >= 13")
        wh.db.execute("update scores set value = value + 1")  # marks the stored scores: read, not recomputed
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 13
        assert wh.evaluate("a", "q", ["AP", "P@2"], per_query=True).per_query.rows == \
            [row[:3] + (row[3] + 1,) for row in before]
        assert wh.sql("select run, query_id, doc_id, rank, grade, is_rel from ranked_judged "
                      "where level = 1 order by query_id, doc_id").rows == [
            ("a", "q1", "d1", 1, 2, True), ("a", "q1", "d3", 3, 0, False), ("a", "q2", "d1", 1, 1, True)]
        measure = write_file(tmp_path, "m.sql", "-- measure: hits\n-- parameters: none\n-- aggregate: sum\n"
                             "select run_id, query_id, cast(count(*) filter (where is_rel and retrieved) as double) "
                             "as value from ranked_judged group by run_id, query_id\n")
        wh.add_measure(measure)
        assert wh.evaluate("a", "q", ["hits"]).value("a", "hits") == 2



def test_migrating_to_023_names_the_setf_keys_012_renamed_as_the_registry_does(db_path, tmp_path):
    """An upgrade walk: 012 renamed a stored SetF(beta=0.5) (set_F.0.25's values) to
    SetF(beta=0.25) and left its measures row saying set_F (trec_eval's set_F.1) and the textbook
    beta; `irw sql` and an export named another measure beside the right values."""
    from warehouse.evaluation.evaluator import measure_params
    from warehouse.evaluation.measures import parse

    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\nq1 0 d3 0\nq2 0 d1 1\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        wh.evaluate("a", "q", ["SetF(beta=0.25)", "SetF", "SetF(beta=2)", "AP"])
        fresh = wh.db.fetchall("select measure, trec_name, description from measures order by measure")
        # back to schema 22 with 012's rows: the old trec_eval name and description
        wh.db.execute("update measures set trec_name = 'set_F', description = 'textbook beta' "
                      "where measure like 'SetF%'")
        wh.db.execute("delete from irw_schema where version >= 23")
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 23
        assert wh.db.fetchall("select measure, trec_name, description from measures order by measure") == fresh
    assert ("SetF(beta=0.25)", "set_F_0.25", measure_params(parse("SetF(beta=0.25)")[0]).row[10]) in fresh
    assert ("SetF(beta=2)", "set_F_2", measure_params(parse("SetF(beta=2)")[0]).row[10]) in fresh

def test_a_command_that_upgrades_a_warehouse_says_so_once(db_path, tmp_path):
    """An upgrade is said on stderr (whoever shares the file on an older irw can no longer open
    it), by the command that made it, and by no later one."""
    newest = migrations()[-1][0]
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        wh.db.execute("delete from irw_schema where version = ?", [newest])  # each migration runs again
    upgrading = Cli(db_path)("rename", "run", "a", "b")
    assert upgrading.exit_code == 0, upgrading.stderr
    assert upgrading.stderr.splitlines() == [
        f"upgraded warehouse {db_path} from schema {newest - 1} to {newest}: an irw older than this one can no "
        "longer open it", "renamed run a to b"]
    again = Cli(db_path)("rename", "run", "b", "c")
    assert again.stderr.splitlines() == ["renamed run b to c"]


def test_a_copy_into_an_older_warehouse_says_it_upgraded_it(db_path, tmp_path):
    """irw copy opens its target through the library, so the upgrade was made and not said: a
    colleague's older irw then could not open the warehouse copied into, with no word why."""
    newest = migrations()[-1][0]
    source = str(tmp_path / "source.duckdb")
    with warehouse.open(source) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
    with warehouse.open(db_path) as wh:
        wh.db.execute("delete from irw_schema where version = ?", [newest])
    copied = Cli(db_path)("copy", "--from", source, "--to", db_path, db=False)
    assert copied.exit_code == 0, copied.stderr
    assert copied.stderr.splitlines() == [
        f"upgraded warehouse {db_path} from schema {newest - 1} to {newest}: an irw older than this one can no "
        "longer open it", "qrels q: copied", "run a: copied", "0 stored per-query scores copied"]
    again = Cli(db_path)("copy", "--from", source, "--to", db_path, db=False)
    assert again.stderr.splitlines()[0] == "qrels q: unchanged", again.stderr
