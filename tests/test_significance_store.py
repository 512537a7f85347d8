"""Stored significance results (schema 009, warehouse/reports/pairs.py): an old warehouse gains the
table, a result is computed once and read by every later report, and it is computed again when
what it depends on changes (the runs' stored scores, the test, seed, permutations, alpha)."""
from __future__ import annotations

import duckdb

import warehouse
from warehouse.engines.duckdb import migrations
from warehouse.resources import read_sql


def schema_8_warehouse(path) -> None:
    """A warehouse as irw wrote it at schema version 8 (migrations 001-008, nothing later), holding a
    qrels set and two runs stored the way ingest stores them."""
    con = duckdb.connect(str(path))
    con.execute(read_sql("schema/000_schema_version.sql"))
    for version, name in migrations():
        if version > 8:
            break
        con.execute(read_sql(name))
        con.execute("insert into irw_schema (version, name) values (?, ?)", [version, name])
    con.execute("insert into qrels_sets (name, sha256, query_count, judgment_count) values ('q', 'x', 3, 9)")
    con.execute("insert into qrels select 1, 'q' || q, 'd' || d, case when d < q + 1 then 1 else 0 end "
                "from range(1, 4) a(q), range(3) b(d)")
    for run_id, name in ((1, "a"), (2, "b")):
        con.execute("insert into runs (name, sha256, row_count, query_count, file_created_at, date_source) "
                    "values (?, ?, 9, 3, timestamp '2026-01-01', 'file mtime')", [name, name])
        # run a ranks d0 d1 d2, run b the other way round
        con.execute("insert into run_rows select ?, 'q' || q, 'd' || d, r, 10 - r, r from "
                    "(select q, d, case when ? = 1 then d + 1 else 3 - d end as r from range(1, 4) a(q), range(3) b(d))",
                    [run_id, run_id])
        con.execute("insert into run_queries select ?, 'q' || q, 3 from range(1, 4) a(q)", [run_id])
    con.execute("insert into judged_run_rows select 1, run_id, query_id, doc_id, trec_rank from run_rows")
    con.close()


def test_a_schema_8_warehouse_upgrades_and_stores_its_tests(tmp_path):
    path = tmp_path / "old.duckdb"
    schema_8_warehouse(path)
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() == migrations()[-1][0] >= 9
        assert [r[0] for r in wh.db.fetchall("select version from irw_schema order by version")] == \
            [v for v, _ in migrations()]
        assert wh.db.fetchone("select count(*) from significance_results")[0] == 0
        comparison = wh.compare(["a", "b"], "q", ["P@1", "RR"], baseline="a")
        assert [(r.run, r.measure.name, r.result.n) for r in comparison.rows] == [("b", "P@1", 3), ("b", "RR", 3)]
        assert wh.db.fetchone("select count(*) from significance_results")[0] == 2
