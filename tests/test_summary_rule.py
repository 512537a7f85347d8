"""The per-query-to-run summary rule (trec_eval's "all" line) is written once, in
sql/eval/summary_rule.sql, and every query that summarizes stored scores composes it
(warehouse/resources.py read_sql): irw eval's summary, the leaderboard, the history, the systems
table, a served leaderboard page's stored summaries and the run_summary view (schema 018).

- no other file under sql/ (but the migrations before 018, applied history that 018's view
  replaces) and no module under warehouse/ writes the rule again;
- each consumer's text as irw runs it holds the rule's text;
- on one warehouse, every consumer gives the same value, bit for bit, and the same query count, for
  a mean, a count (sum), a geometric mean and a ratio of counts, with and without -c, on DuckDB and
  on PostgreSQL (marked `postgres`); DuckDB's schema-005 macro trec_summary agrees too;
- an old warehouse (before 018: its run_summary of schema 010) is upgraded to 018's view, which
  gives the old view's values;
- a change to the rule reaches the stored view without a migration: a warehouse whose run_summary
  holds another text of the rule is made again at a writable open, and refused at a read-only one
  with the command that makes it again (`irw migrate`), on DuckDB and on PostgreSQL.
"""
from __future__ import annotations

import re

import pytest

import warehouse
from warehouse import reports
from warehouse.engines.duckdb import migrations
from warehouse.resources import read_sql, sql_dir
from warehouse.commands.sample import write_sample
from warehouse.evaluation.settings import Settings

from conftest import write_file

RULE = "eval/summary_rule.sql"
CONSUMERS = ["eval/summary.sql", "reports/leaderboard.sql", "reports/history.sql", "reports/systems.sql",
             "reports/leaderboard_summaries.sql", "schema/018_run_summary_from_the_summary_rule.sql"]
# what writes the rule: the geometric mean of values floored at trec_eval's MIN_GEO_MEAN, and a
# choice among the summary kinds by a measure's aggregate
SIGNATURES = [r"greatest\s*\([^()]*,\s*0?\.00001\s*\)", r"\bwhen\s+'geo'", r"\bwhen\s+'sum'\s+then\s+sum\s*\("]
# files that match a signature for another rule, each with why
OTHER_RULES = {
    RULE: "the rule itself",
    "oneshot/zscores.sql": "trec_eval -Z: the summary of z scores (the log taken before the z conversion, "
                           "the mean over every query of the run, missing ones as -1000000), not of scores",
}
FIRST_OWN_VIEW = 18  # migrations before it wrote the rule out; warehouses applied them, 018 replaces the view


def without_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def rule_body() -> str:
    lines = read_sql(RULE).splitlines()
    return "\n".join(lines[next(i for i, line in enumerate(lines) if not line.startswith("--")):]).strip()


def test_no_file_writes_the_rule_again():
    found = []
    for path in sorted(sql_dir().rglob("*.sql")):
        name = path.relative_to(sql_dir()).as_posix()
        match = re.fullmatch(r"schema/(\d{3})_\w+\.sql", name)
        if name in OTHER_RULES or (match and int(match.group(1)) < FIRST_OWN_VIEW):
            continue
        code = without_comments(path.read_text(encoding="utf-8"))
        found += [f"sql/{name}: {m.group(0)!r}" for pattern in SIGNATURES
                  for m in [re.search(pattern, code, re.IGNORECASE)] if m]
    modules = sql_dir().parent / "warehouse"
    for path in sorted(modules.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(modules.parent)}: {m.group(0)!r}" for pattern in SIGNATURES
                  for m in [re.search(pattern, code, re.IGNORECASE)] if m]
    assert not found, "the summary rule is written here again; compose sql/eval/summary_rule.sql instead:\n" + \
        "\n".join(found)


def test_the_signatures_catch_the_rule_written_out():
    for pattern in SIGNATURES[:2]:
        assert re.search(pattern, without_comments(read_sql(RULE)), re.IGNORECASE)
    old = without_comments(read_sql("schema/010_portable_summary_and_server_keys.sql"))
    assert all(re.search(pattern, old, re.IGNORECASE) for pattern in SIGNATURES[:2])


@pytest.mark.parametrize("path", CONSUMERS)
def test_each_consumer_composes_the_rule(path):
    assert (sql_dir() / path).read_text(encoding="utf-8").count(f'"{RULE}"') == 1
    assert rule_body() in read_sql(path)


def test_composing_a_file_into_itself_is_refused(tmp_path, monkeypatch):
    from warehouse import resources

    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "a.sql").write_text('select * from "eval/b.sql" as b\n', encoding="utf-8")
    (tmp_path / "eval" / "b.sql").write_text('-- b\nselect * from "eval/a.sql" as a\n', encoding="utf-8")
    (tmp_path / "eval" / "c.sql").write_text('-- c: from "eval/a.sql" as x\nselect 1 as one;\n', encoding="utf-8")
    monkeypatch.setattr(resources, "sql_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="composes itself"):
        resources._composed("eval/a.sql", ())
    assert resources._composed("eval/c.sql", ()) == (tmp_path / "eval" / "c.sql").read_text(encoding="utf-8")


MEASURES = ["AP", "GMAP", "NumRelRet", "P@10", "nDCG@10"]


def summaries(wh, qrels: str, settings: Settings) -> dict[str, dict[tuple[str, str], tuple]]:
    """consumer -> (run, measure) -> (value, queries), by every consumer of the rule."""
    names = wh.run_names()
    got: dict[str, dict[tuple[str, str], tuple]] = {}
    evaluation = wh.evaluate(names, qrels, MEASURES, settings=settings)
    got["eval"] = {(run, m): (value, queries) for run, m, value, _micro, queries in evaluation.summary.rows}
    board = reports.leaderboard(wh, qrels, MEASURES, settings=settings)
    got["leaderboard"] = {(row.run, m.name): (cell.value, row.queries)
                          for row in board.rows for m, cell in zip(board.measures, row.cells)}
    for round_ in ("page, summed", "page, stored"):
        page = reports.leaderboard_page(wh, qrels, MEASURES, settings=settings)
        got[round_] = {(row.run, m.name): (cell.value, row.queries)
                       for row in page.board.rows for m, cell in zip(page.board.measures, row.cells)}
    assert wh.db.fetchone("select count(*) from score_summaries")[0] > 0
    got["history"] = {}
    for m in MEASURES:
        for row in reports.history(wh, qrels, m, settings=settings).table().to_dicts():
            got["history"][(row["run"], m)] = (row[m], row["queries"])
    got["systems"] = {}  # each sample run is a system of its own: the table holds every run
    for m in MEASURES:
        for _row, cell in reports.systems(wh, m, qrels=qrels, settings=settings).cells():
            got["systems"][(cell.run, m)] = (cell.value, cell.queries)
    got["run_summary"] = {(run, m): (value, queries) for run, m, value, queries in wh.db.run_sql(
        "select run, measure, value, queries from run_summary where qrels = $qrels and settings = $settings",
        {"qrels": qrels, "settings": settings.key}).fetchall() if m in MEASURES}
    return got


def assert_agree(got: dict) -> None:
    expected = got["eval"]
    assert len(expected) == len(MEASURES) * 4
    for name, values in got.items():
        assert set(values) == set(expected), name
        for key, (value, queries) in expected.items():
            assert values[key][1] == queries, (name, key)
            # bit for bit (counts are shown as integers)
            assert isinstance(values[key][0], (int, float)) and not isinstance(values[key][0], bool), (name, key)
            assert float(values[key][0]).hex() == float(value).hex(), (name, key, values[key], value)


def sample_warehouse(target, directory) -> None:
    qrels, runs = write_sample(directory, queries=12)
    with warehouse.open(target) as wh:
        wh.ingest_qrels(qrels, "sample")
        for path in runs[:3]:
            wh.ingest_run(path)
        # a run that answers 2 of the 12 queries: -c counts the other 10 as zeros
        lines = runs[0].read_text(encoding="utf-8").splitlines()
        two = sorted({line.split()[0] for line in lines})[:2]
        wh.ingest_run(write_file(directory, "short.run", "".join(
            " ".join([*line.split()[:5], "short"]) + "\n" for line in lines if line.split()[0] in two)), "short")


@pytest.fixture(scope="module")
def duck(tmp_path_factory):
    directory = tmp_path_factory.mktemp("rule")
    sample_warehouse(directory / "w.duckdb", directory)
    with warehouse.open(directory / "w.duckdb") as wh:
        yield wh


@pytest.mark.parametrize("complete", [False, True], ids=["queries-in-both", "-c"])
def test_every_consumer_gives_the_same_bits_on_duckdb(duck, complete):
    got = summaries(duck, "sample", Settings(complete=complete))
    assert_agree(got)
    # schema 005's macro, which DuckDB warehouses keep for saved queries, agrees too
    macro = {(run, m): (value, queries) for run, m, value, queries in duck.sql(
        "select r.name, s.measure, trec_summary(m.aggregate, s.value, s.query_id), count(*) "
        "from scores as s join measures as m on m.measure = s.measure join runs as r on r.run_id = s.run_id "
        "join evaluations as e on e.evaluation_id = s.evaluation_id where e.settings_key = ? "
        "group by r.name, s.measure, m.aggregate", [Settings(complete=complete).key]).rows if m in MEASURES}
    assert_agree({"eval": got["eval"], "macro": macro})


@pytest.mark.postgres
def test_every_consumer_gives_the_same_bits_on_postgres(postgres_url, tmp_path):
    sample_warehouse(postgres_url, tmp_path)
    sample_warehouse(tmp_path / "w.duckdb", tmp_path / "again")
    with warehouse.open(postgres_url) as pg, warehouse.open(tmp_path / "w.duckdb") as wh:
        for complete in (False, True):
            on_postgres = summaries(pg, "sample", Settings(complete=complete))
            assert_agree(on_postgres)
            assert on_postgres["eval"] == summaries(wh, "sample", Settings(complete=complete))["eval"]


def test_an_old_warehouse_gets_the_view_of_the_rule(tmp_path):
    """A warehouse before schema 018 (its run_summary made by schema 010) is upgraded to 018's view,
    whose rows are the old view's."""
    path = tmp_path / "w.duckdb"
    sample_warehouse(path, tmp_path)
    with warehouse.open(path) as wh:
        wh.evaluate(wh.run_names(), "sample", MEASURES)
        wh.evaluate(wh.run_names(), "sample", MEASURES, settings=Settings(complete=True))
        ours = wh.sql("select * from run_summary order by evaluation_id, run_id, measure")
        wh.db.execute("drop view run_summary")
        wh.db.run_file("schema/010_portable_summary_and_server_keys.sql")
        wh.db.execute("delete from irw_schema where version = 18")
        old = wh.sql("select * from run_summary order by evaluation_id, run_id, measure")
        assert '"eval/summary_rule.sql"' not in wh.db.fetchone(
            "select sql from duckdb_views() where view_name = 'run_summary'")[0]
    assert old.columns == ours.columns and old.rows == ours.rows and len(ours.rows) == 2 * 4 * len(MEASURES)
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() == migrations()[-1][0]  # 18 applied again, and any later
        assert wh.sql("select * from run_summary order by evaluation_id, run_id, measure").rows == old.rows
        assert "summary_scores" in wh.db.fetchone("select sql from duckdb_views() where view_name = 'run_summary'")[0]


@pytest.mark.postgres
def test_an_old_postgres_warehouse_gets_the_view_of_the_rule(postgres_url, tmp_path):
    sample_warehouse(postgres_url, tmp_path)
    query = "select * from run_summary order by evaluation_id, run_id, measure"
    with warehouse.open(postgres_url) as wh:
        wh.evaluate(wh.run_names(), "sample", MEASURES, settings=Settings(complete=True))
        ours = wh.db.run_sql(query).fetchall()
        with wh.db.transaction():
            wh.db.execute("drop view run_summary")
            wh.db.run_file("schema/010_portable_summary_and_server_keys.sql")
            wh.db.execute("delete from irw_schema where version = 18")
        old = wh.db.run_sql(query).fetchall()
        assert "summary_scores" not in wh.db.fetchone("select pg_get_viewdef('run_summary')")[0]
    assert old == ours and len(ours) == 4 * len(MEASURES)
    with warehouse.open(postgres_url) as wh:
        assert wh.db.schema_version() == migrations()[-1][0]  # 18 applied again, and any later
        assert wh.db.run_sql(query).fetchall() == old
        assert "summary_scores" in wh.db.fetchone("select pg_get_viewdef('run_summary')")[0]


# -- a change to the rule reaches the stored view (as ranked_judged's, tests/test_user_measures.py) ---

@pytest.fixture(params=["duckdb", "postgres"])
def location(request, tmp_path):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else tmp_path / "w.duckdb"


def _forget_compositions():
    """The compositions and the objects known to be irw's, worked out again from the files."""
    from warehouse.engines import duckdb as db, postgres

    for cached in (db.ranked_judged_ctes, db.ranked_judged_view, db.known_objects):
        cached.cache_clear()
    postgres._KNOWN.clear()


def test_a_change_in_the_rule_reaches_the_stored_view(location, tmp_path, monkeypatch):
    """A warehouse whose run_summary holds another text of the rule (an irw of another
    sql/eval/summary_rule.sql applied 018) is made again at a writable open, with this irw's rule,
    and refused at a read-only one, naming `irw migrate`: the rule changes without a migration."""
    from warehouse.engines import duckdb as db

    sample_warehouse(location, tmp_path)
    query = "select run, value from run_summary where measure = 'AP' and settings = $settings order by run"
    with warehouse.open(location) as wh:
        wh.evaluate(wh.run_names(), "sample", ["AP"])
        before = wh.db.run_sql(query, {"settings": Settings().key}).fetchall()
    assert len(before) == 4 and all(value > 0 for _, value in before)
    mean = "else sum(value order by query_id) / count(*)"
    view_file = "schema/018_run_summary_from_the_summary_rule.sql"
    assert read_sql(view_file).count(mean) == 1
    monkeypatch.setattr(db, "read_sql", lambda path: read_sql(path).replace(mean, f"else 2 * {mean[5:]}")
                        if path == view_file else read_sql(path))
    _forget_compositions()
    try:
        with pytest.raises(warehouse.SchemaVersionError,
                           match=r"its view run_summary was made by an irw of other sql/eval files than this one's; "
                                 r"make it again with `irw migrate --db "):
            warehouse.open(location, read_only=True)
        with warehouse.open(location) as wh:  # made again: twice the mean, bit for bit
            assert wh.db.run_sql(query, {"settings": Settings().key}).fetchall() == \
                [(run, 2 * value) for run, value in before]
        with warehouse.open(location, read_only=True) as wh:
            assert wh.db.run_sql(query, {"settings": Settings().key}).fetchall() == \
                [(run, 2 * value) for run, value in before]
    finally:
        monkeypatch.undo()
        _forget_compositions()
    with pytest.raises(warehouse.SchemaVersionError, match="irw migrate"):
        warehouse.open(location, read_only=True)
    with warehouse.open(location) as wh:
        assert wh.db.run_sql(query, {"settings": Settings().key}).fetchall() == before
    with warehouse.open(location, read_only=True) as wh:
        assert wh.db.run_sql(query, {"settings": Settings().key}).fetchall() == before


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_a_view_named_like_run_summary_is_someone_elses(location, read_only):
    """Only run_summary itself is made again: a view run_summary_extra is someone else's, and
    refused as such (PostgreSQL names the view alone, without its columns)."""
    with warehouse.open(location) as wh:
        if wh.db.dialect == "postgres":
            with wh.db.transaction():
                wh.db.execute("create view run_summary_extra as select 1 as x")
        else:
            wh.db.execute("create view run_summary_extra as select 1 as x")
    with pytest.raises(warehouse.NotAWarehouse, match=r"did not make .*view run_summary_extra"):
        warehouse.open(location, read_only=read_only)
