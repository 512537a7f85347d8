"""A user measure that gives no row for any query of the runs evaluated stored zeros with nothing said
(a user-measure author's walk): most often a filter of the file's own, `where qrels = 'dl21' and
level = 1` copied from an `irw sql` over ranked_judged, which an evaluation on another set or level
never meets. Each value is still 0, as docs/measures.md says of a query given no row, and the
command says why on stderr (a Python caller gets a warehouse.Note warning)."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import warehouse
from conftest import Cli, dl19_with_measure
from warehouse.errors import Note

ROOT = Path(__file__).resolve().parents[1]

FILTERED = """-- measure: p10dl
-- parameters: none
-- aggregate: mean
select run_id, query_id, count(*) filter (where is_rel and rank <= 10) / 10 as value
from ranked_judged
where qrels = 'dl21' and level = 1
group by run_id, query_id
"""


@pytest.fixture(scope="module")
def dl19(conformance, tmp_path_factory) -> Cli:
    irw, measure = dl19_with_measure(conformance, tmp_path_factory.mktemp("no_row"), "p10dl", FILTERED)
    irw.measure_path = measure
    return irw


def test_irw_eval_says_the_measure_gave_no_row(dl19):
    result = subprocess.run([sys.executable, "-m", "warehouse", "eval", "-m", "p10dl", "-m", "P@10", "BM25",
                             "BM25_RM3", "--db", str(dl19.db)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2].split() == ["BM25", "43", "0.0000", "0.6186"]  # trec_eval's P_10
    assert result.stderr.startswith(
        f"p10dl ({dl19.measure_path}) gave no row for any query of the 2 runs evaluated, so every value is 0 (a "
        "query it gives no row scores 0): the ranked_judged rows it reads are already this evaluation's runs, qrels "
        "set and level, so a filter on qrels or level of its own is not needed, and one naming another set or level "
        "keeps no row\n"), result.stderr


def test_a_python_caller_gets_a_note(dl19):
    with warehouse.open(dl19.db) as wh, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluation = wh.evaluate(["BM25"], "dl19", ["p10dl"], level=2)
    assert evaluation.value("BM25", "p10dl") == 0.0
    assert [w.category for w in caught] == [Note]
    assert "gave no row for any query of the 1 run evaluated" in str(caught[0].message)


NULLS = """-- measure: nulls
-- parameters: none
-- aggregate: mean
select run_id, query_id, sum(case when is_rel and rank <= 10 then null end) / 10 as value
from ranked_judged
group by run_id, query_id
"""


def test_a_measure_null_on_every_query_is_said_too(conformance, tmp_path):
    """A value NULL on every query (here a CASE without an ELSE) printed 0.0000 for every run with
    nothing said, where a measure giving no row was told (the command prints the Note on stderr, as
    test_irw_eval_says_the_measure_gave_no_row's); one NULL on some queries only is not said."""
    irw, measure = dl19_with_measure(conformance, tmp_path, "nulls", NULLS)
    measure.write_text(NULLS.replace("then null end", "then null else 1 end").replace("-- measure: nulls",
                                                                                      "-- measure: somenulls"))
    assert irw("measures", "add", measure).exit_code == 0
    with warehouse.open(irw.db) as wh, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluation = wh.evaluate(["BM25"], "dl19", ["nulls", "somenulls", "P@10"])
    assert [evaluation.value("BM25", m) for m in ("nulls", "P@10")] == [0.0, pytest.approx(0.6186, abs=5e-5)]
    assert [str(w.message) for w in caught] == [
        f"nulls ({tmp_path / 'nulls.sql'}) gave NULL on every query of the 1 run evaluated, so every value is 0 (a "
        "NULL value scores 0): check its value expression with `irw sql` over ranked_judged"]
