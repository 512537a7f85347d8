"""NUL in what irw stores (issue 24): one rule on both engines. A query id, doc id, tag or
ir_metadata block holding U+0000 is refused at ingest naming FILE:LINE (PostgreSQL's text cannot
hold it, and a DuckDB warehouse must not keep what it could not copy to a server); `irw trec-eval`,
which keeps nothing, reads it as data as before."""
from __future__ import annotations

import os

import pytest

from conftest import Cli, write_file

RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d{0}2 2 1.5 tag\n"


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("where, content", [
    ("docid", "q1 Q0 d1 1 2.5 tag\nq1 Q0 d\x002 2 1.5 tag\n"),
    ("query", "q1 Q0 d1 1 2.5 tag\nq\x001 Q0 d2 2 1.5 tag\n"),
    ("tag", "q1 Q0 d1 1 2.5 t\x00g\nq1 Q0 d2 2 1.5 t\x00g\n"),
])
def test_a_run_holding_nul_is_refused_naming_the_line(tmp_path, where, content, suffix):
    path = write_file(tmp_path, f"r.txt{suffix}", content)
    irw = Cli(tmp_path / "w.duckdb")
    result = irw("ingest", "run", str(path))
    assert result.exit_code == 1
    line = 1 if where == "tag" else 2
    assert f"{path}:{line}: the control character NUL (U+0000)" in result.stderr, result.stderr


def test_qrels_holding_nul_are_refused_and_trec_eval_reads_it_as_before(tmp_path):
    qrels = write_file(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d\x002 1\n")
    irw = Cli(tmp_path / "w.duckdb")
    result = irw("ingest", "qrels", str(qrels), "--name", "q")
    assert result.exit_code == 1 and f"{qrels}:2: the control character NUL" in result.stderr
    run = write_file(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 tag\nq1 Q0 d\x002 2 1.5 tag\n")
    evaluated = irw("trec-eval", "-m", "num_rel_ret", str(qrels), str(run), db=False)
    assert evaluated.exit_code == 0 and evaluated.stdout.split() == ["num_rel_ret", "all", "2"]


@pytest.mark.postgres
def test_postgres_ingest_says_the_same(postgres_url, tmp_path):
    irw = Cli(postgres_url)
    run = write_file(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 tag\nq1 Q0 d\x002 2 1.5 tag\n")
    result = irw("ingest", "run", str(run))
    assert result.exit_code == 1 and f"{run}:2: the control character NUL" in result.stderr, result.stderr


@pytest.mark.postgres
def test_copying_an_older_warehouse_holding_nul_to_postgres_names_the_run(postgres_url, tmp_path):
    import duckdb

    path = tmp_path / "old.duckdb"
    irw = Cli(path)
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 tag\nq1 Q0 dx 2 1.5 tag\n")),
               "--name", "old").exit_code == 0
    with duckdb.connect(str(path)) as con:  # as an irw that kept NUL as data stored it
        con.execute("update run_rows set doc_id = 'd' || chr(0) || '2' where doc_id = 'dx'")
    result = Cli(path)("copy", "--from", str(path), "--to", postgres_url, db=False)
    assert result.exit_code == 1 and "run old" in result.stderr and "holds NUL (U+0000) at query q1, document d\\x002" \
        in result.stderr, result.stderr
