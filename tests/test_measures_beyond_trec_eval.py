"""The measures beyond trec_eval (gdeval's, the diversity ones, the tie-aware ones) describe
themselves in `irw measures` (a definition and the reference their values match) and go where every
other measure goes: eval, compare, the reports and `irw sql` over the stored scores."""
from __future__ import annotations

import csv
import io

import pytest

from warehouse.measures import ALL_FAMILIES, parse, reference

from conftest import write_file

NEW_NAMES = {  # what `irw measures` shows -> the reference it must name
    "ERR@k": "gdeval.pl", "nDCG(dcg=exp-log2)@k": "gdeval.pl",
    "alpha_nDCG@k": "ndeval", "ERR_IA@k": "ndeval", "NRBP": "ndeval", "nNRBP": "ndeval", "P_IA@k": "ndeval",
    "StRecall@k": "ndeval",
    "AP(ties=expected|min|max)": "McSherry and Najork", "nDCG(ties=expected|min|max)@k": "McSherry and Najork",
    "P(ties=expected|min|max)@k": "McSherry and Najork", "RR(ties=expected|min|max)": "McSherry and Najork",
    "R(ties=expected|min|max)@k": "McSherry and Najork",
}


def test_irw_measures_lists_each_new_name_with_a_definition_and_its_reference(irw):
    result = irw("measures", "--format", "csv", db=False)
    assert result.exit_code == 0, result.stderr
    rows = {row["irw name"]: row for row in csv.DictReader(io.StringIO(result.stdout))}
    for name, source in NEW_NAMES.items():
        assert name in rows, name
        assert rows[name]["description"].endswith(".") and source in rows[name]["reference"], rows[name]
    assert all(reference(family) for family in ALL_FAMILIES.values())


@pytest.mark.parametrize("example", ["ERR@20", "nDCG(dcg=exp-log2)@20", "alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@5",
                                     "ERR_IA@20", "NRBP", "NRBP(alpha=0.3,beta=0.8)", "nNRBP", "P_IA@20",
                                     "StRecall@20", "AP(ties=expected)", "nDCG(ties=min)@10", "P(ties=max)@10",
                                     "RR(ties=expected)", "R(ties=min)@1000"])
def test_every_canonical_name_reads_back_as_itself(example):
    assert [m.name for m in parse(example)] == [example]


@pytest.fixture
def stored(irw, tmp_path):
    """Two runs with ties over a subtopic qrels set (ordinary measures read each document's best grade)."""
    qrels = write_file(tmp_path, "div.qrels", "".join(
        f"{q} {s} d{d} {(q * 7 + s * 3 + d) % 4}\n" for q in (1, 2, 3) for s in (1, 2) for d in range(8)))
    rows_a = "".join(f"{q} Q0 d{d} {d + 1} {float(8 - d // 2)} a\n" for q in (1, 2, 3) for d in range(8))
    rows_b = "".join(f"{q} Q0 d{d} {d + 1} {float(d % 3)} b\n" for q in (1, 2, 3) for d in range(8))
    assert irw("ingest", "qrels", qrels, "--subtopics", "--name", "div").exit_code == 0
    assert irw("ingest", "run", write_file(tmp_path, "a.run", rows_a), "--name", "a").exit_code == 0
    assert irw("ingest", "run", write_file(tmp_path, "b.run", rows_b), "--name", "b").exit_code == 0
    return tmp_path


MEASURES = ["ERR@5", "alpha_nDCG@5", "AP(ties=expected)", "P(ties=min)@5"]


def test_eval_compare_sql_and_reports(irw, stored):
    flags = [arg for name in MEASURES for arg in ("-m", name)]
    evaluated = irw("eval", *flags, "--format", "csv")
    assert evaluated.exit_code == 0, evaluated.stderr
    assert evaluated.stdout.splitlines()[0] == "run,queries," + ",".join(MEASURES)
    compared = irw("compare", "a", "b", *flags, "--test", "ttest", "--format", "csv")
    assert compared.exit_code == 0, compared.stderr
    assert [line.split(",")[0] for line in compared.stdout.splitlines()[1:]] == MEASURES
    stored_names = irw("sql", "select distinct measure from score_values order by measure", "--format", "csv")
    assert sorted(stored_names.stdout.splitlines()[1:]) == sorted(MEASURES)
    for report, args in (("leaderboard", []), ("run", ["a"]), ("compare", ["a", "b"])):
        out = stored / f"{report}.html"
        written = irw("report", report, *args, *flags, "-o", out)
        assert written.exit_code == 0, written.stderr
        page = out.read_text(encoding="utf-8")
        assert all(name.replace("&", "&amp;") in page for name in MEASURES), report
