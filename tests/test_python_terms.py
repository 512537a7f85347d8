"""A Python caller's errors speak Python: the library words its messages for the irw command
(`--replace`, `--qrels dl19`, `irw runs`), and a walk of the Python API found some fifteen of them
telling a notebook user to pass options that a call does not have. An error raised while the irw
command runs keeps the command's words; anywhere else it says the call's (warehouse.errors)."""
from __future__ import annotations

from pathlib import Path

import pytest

import warehouse
from conftest import Cli, qrels_text, write_file
from warehouse.errors import python_terms


@pytest.fixture
def two_collections(conformance: Path, tmp_path: Path) -> Path:
    """A warehouse holding DL19 (qrels dl19, run BM25) and DL21 (qrels dl21, run BM25.dl21)."""
    db = tmp_path / "irw.duckdb"
    multi = conformance / "multi-collection"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(conformance / "dl19-passage" / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt", name="BM25")
        wh.ingest_qrels(multi / "qrels" / "qrels.dl21-passage.txt", "dl21")
        wh.ingest_run(multi / "runs" / "BM25" / "trec_results_dl21.txt", name="BM25.dl21")
    return db


CASES = [  # (the call, what Python is told, what the command is told for the same mistake)
    (lambda wh, c: wh.ingest_run(c / "dl19-passage" / "runs" / "run.dl19.BM25_RM3.txt", name="BM25"),
     ["ingest", "run", "{c}/dl19-passage/runs/run.dl19.BM25_RM3.txt", "--name", "BM25"],
     "pass `replace=True` to replace it", "pass `--replace` to replace it"),
    # (irw eval without --qrels evaluates each run against its own set: wh.evaluate_each)
    (lambda wh, c: wh.compare(None, None, ["AP"]), ["compare", "-m", "AP"],
     "name the qrels set with qrels=: this warehouse holds 2 (dl19, dl21)",
     "name the qrels set with --qrels: this warehouse holds 2 (dl19, dl21)"),
    (lambda wh, c: wh.compare(["BM25", "BM25.dl21"], None, ["AP"]), ["compare", "BM25", "BM25.dl21", "-m", "AP"],
     "(`qrels='dl19'` with BM25)", "(`--qrels dl19` with BM25)"),
    (lambda wh, c: wh.evaluate("BM52", "dl19", ["AP"]), ["eval", "BM52", "--qrels", "dl19", "-m", "AP"],
     "no run named 'BM52'; did you mean BM25? `wh.runs()` lists the stored runs",
     "no run named 'BM52'; did you mean BM25? `irw runs` lists the stored runs"),
    (lambda wh, c: wh.sql("insert into runs (name) values ('x')"), ["sql", "insert into runs (name) values ('x')"],
     "wh.sql is read-only: INSERT statements are refused (use wh.ingest_run, wh.ingest_qrels or wh.remove_run "
     "to change the warehouse)",
     "irw sql is read-only: INSERT statements are refused (use irw ingest / irw rm to change the warehouse)"),
    (lambda wh, c: wh.sql("set threads = 1"), ["sql", "set threads = 1"],
     "(irw fixes the sandbox's settings; timeout= sets wh.sql's time limit)",
     "(irw fixes the sandbox's settings; --timeout sets irw sql's time limit)"),
    # a walk's notebook was told to pass --timeout, which wh.sql does not take
    (lambda wh, c: wh.sql("select count(*) from range(100000000000)", timeout=1),
     ["sql", "--timeout", "1", "select count(*) from range(100000000000)"],
     "the query ran longer than wh.sql's timeout of 1 s and was stopped; give it more with timeout=SECONDS",
     "the query ran longer than irw sql's timeout of 1 s and was stopped; give it more with --timeout SECONDS"),
]


@pytest.mark.parametrize("call, argv, in_python, on_the_command_line", CASES)
def test_a_mistake_is_said_in_the_call_s_terms_and_in_the_command_s(two_collections, conformance, call, argv,
                                                                    in_python, on_the_command_line):
    with warehouse.open(two_collections) as wh:
        with pytest.raises(warehouse.IrwError) as raised:
            call(wh, conformance)
    assert in_python in str(raised.value), str(raised.value)
    assert all(on_the_command_line not in line for line in raised.value.message_lines())
    result = Cli(two_collections)(*[str(a).format(c=conformance) for a in argv])
    assert result.exit_code != 0 and on_the_command_line in result.stderr, result.stderr
    assert in_python not in result.stderr


def test_a_command_in_backquotes_stays_as_it_runs_in_a_shell():
    said = ("store it beside that run, in system BM25: `irw ingest run x.txt --name BM25.2026-03-09 --system "
            "BM25`; or pass `--replace`")
    assert python_terms(said) == ("store it beside that run, in system BM25: `irw ingest run x.txt --name "
                                  "BM25.2026-03-09 --system BM25`; or pass `replace=True`")
    assert python_terms("pass `--name-template '{folder}.{short}'` (instead of --name-from file)") == \
        "pass `name_template='{folder}.{short}'` (instead of name_from='file')"
    # a run date's stored source is no option (runs.date_source)
    assert python_terms("dated 2019-04-01 00:00:00 (from --date); --date gives another") == \
        "dated 2019-04-01 00:00:00 (from --date); date= gives another"
    assert python_terms("name at least one measure (-m), e.g. -m AP -m nDCG@10") == \
        "name at least one measure (measures=), e.g. measures=['AP', 'nDCG@10']"


def test_warehouse_copy_is_irw_copy_and_says_its_arguments(tmp_path):
    """`irw copy` had no Python call, and wh.sql's refusal of ATTACH pointed a notebook user at it."""
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
    with pytest.raises(warehouse.UsageError) as raised:
        warehouse.copy(db, db)
    assert str(raised.value) == f"source and target are the same warehouse ({db}): name another target"
    copied = warehouse.copy(db, tmp_path / "copy.duckdb")
    assert copied.qrels == {"q": "copied"}
    result = Cli(db)("copy", "--from", str(db), "--to", str(db), db=False)
    assert result.exit_code == 2 and f"--from and --to are the same warehouse ({db})" in result.stderr
    with warehouse.open(db, sandboxed=True) as wh:
        with pytest.raises(warehouse.ReadOnlyError, match=r"warehouse\.copy\(SOURCE, TARGET\) moves runs and qrels"):
            wh.sql("attach 'other.duckdb'")
