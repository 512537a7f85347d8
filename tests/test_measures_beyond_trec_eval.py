"""The measures beyond trec_eval (gdeval's, the diversity ones, the tie-aware ones) describe
themselves in `irw measures` (a definition and the reference their values match) and go where every
other measure goes: eval, compare, the reports and `irw sql` over the stored scores."""
from __future__ import annotations

import csv
import io

import pytest

from warehouse.evaluation.measures import ALL_FAMILIES, parse, reference

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


def test_leaderboard_marks_runs_a_tie_order_could_reorder_and_run_pages_show_the_spread(irw, tmp_path):
    """Query 1 judges x (relevant) and y, z (not). Run `tied` scores all three equally: AP is 1/3 to 1
    over the orders (trec_eval's docid order z, y, x gives 1/3). Run `half` ranks y first, then x:
    AP 1/2, inside that range, so both ranks could change. Run `best` ranks x first: AP 1, no tie,
    but `tied` can reach 1 too, which only ties it: no mark for `best`."""
    write_file(tmp_path, "q.qrels", "1 0 x 1\n1 0 y 0\n1 0 z 0\n")
    irw("ingest", "qrels", tmp_path / "q.qrels", "--name", "q")
    for name, rows in (("tied", "x 1.0\ny 1.0\nz 1.0"), ("half", "y 2.0\nx 1.0\nz 0.5"), ("best", "x 2.0\ny 1.0\nz 0.5")):
        text = "".join(f"1 Q0 {doc} {i} {score} {name}\n" for i, (doc, score) in
                       enumerate((line.split() for line in rows.splitlines()), 1))
        assert irw("ingest", "run", write_file(tmp_path, f"{name}.run", text), "--name", name).exit_code == 0
    out = tmp_path / "board.html"
    assert irw("report", "leaderboard", "-m", "AP", "-o", out).exit_code == 0
    page = out.read_text(encoding="utf-8")
    marked = {row.split('data-value="', 2)[2].split('"')[0] for row in page.split("<tr")[1:]
              if 'class="ties"' in row}
    assert marked == {"tied", "half"}
    assert 'title="AP is 0.3333 to 1.0000 over the orders of this run' in page
    run_page = (tmp_path / "board_runs" / "tied.html").read_text(encoding="utf-8")
    assert "AP over tie orders" in run_page and "0.3333 &ndash; 1.0000" in run_page
    assert "over tie orders" not in (tmp_path / "board_runs" / "best.html").read_text(encoding="utf-8")
