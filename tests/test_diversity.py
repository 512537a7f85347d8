"""The diversity measures (alpha_nDCG@k, ERR_IA@k, NRBP, nNRBP, P_IA@k, StRecall@k) against ndeval as
users run it: ir_measures' pyndeval provider, per query within 1e-9, on subtopic judgments seeded
here with the corners that matter: ties in the run's scores, grades above 3, a subtopic with no
relevant document, documents judged for several subtopics, a query with no relevant document, a
query only in the qrels and one only in the run; at relevance levels 1 and 2 and alphas 0.5 and 0.3.

ir_measures runs each distinct (rel, alpha, beta) as its own pyndeval invocation over one run
iterator, which the first invocation exhausts: asked for NRBP and NRBP(alpha=0.3,beta=0.8) in one
call, the second gets 0 for every query. The oracle here is therefore asked one measure at a time."""
from __future__ import annotations

import math
import random
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval

import warehouse
from warehouse import InputFileError, MeasureError

from conftest import write_file

NAMES = ["alpha_nDCG@1", "alpha_nDCG@5", "alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@10", "alpha_nDCG(alpha=0)@10",
         "ERR_IA@1", "ERR_IA@5", "ERR_IA@20", "NRBP", "nNRBP", "NRBP(alpha=0.3,beta=0.8)", "nNRBP(alpha=0.3,beta=0.8)",
         "P_IA@5", "P_IA@20", "StRecall@5", "StRecall@20"]
TOLERANCE = 1e-9


def seeded_files(tmp_path: Path) -> tuple[Path, Path]:
    """Queries 1..6 judged over subtopics 1..4 (4 is judged, never relevant; 5 has no relevant
    document at all; 6 is not in the run), 7 only in the run. Grades 0..5; scores from four values."""
    rng = random.Random(5)
    qrels, run = [], []
    for q in range(1, 7):
        for subtopic in range(1, 5):
            for doc in range(25):
                if rng.random() < 0.35:
                    grade = 0 if subtopic == 4 or q == 5 else rng.choice([0, 0, 1, 2, 3, 4, 5])
                    qrels.append(f"{q} {subtopic} D{doc:02d} {grade}")
    for q in [1, 2, 3, 4, 5, 7]:
        for i, doc in enumerate(rng.sample(range(30), 22)):
            run.append(f"{q} Q0 D{doc:02d} {i + 1} {rng.choice([3.0, 2.0, 1.5, 1.0])} r")
    return (write_file(tmp_path, "div.qrels", "\n".join(qrels) + "\n"),
            write_file(tmp_path, "div.run", "\n".join(run) + "\n"))


def with_rel_2(name: str) -> str:
    if "(" in name:
        return name.replace(")", ",rel=2)", 1)
    return name.replace("@", "(rel=2)@") if "@" in name else name + "(rel=2)"


def pyndeval(qrels: Path, run: Path, names: list[str]) -> dict[tuple[str, str], float]:
    """{(irw name, query): value} from ndeval through ir_measures, one measure per call (see above)."""
    judgments = list(ir_measures.read_trec_qrels(str(qrels)))
    ranking = list(ir_measures.read_trec_run(str(run)))
    out = {}
    for name in names:
        for metric in ir_measures.pyndeval.iter_calc([ir_measures.parse_measure(name)], judgments, ranking):
            out[(name, metric.query_id)] = metric.value
    return out


def per_query(evaluation) -> dict[tuple[str, str], float]:
    return {(measure, query): value for _, query, measure, value in evaluation.per_query.rows}


def test_the_seeded_data_has_the_corners(tmp_path):
    qrels, run = seeded_files(tmp_path)
    lines = [line.split() for line in qrels.read_text().splitlines()]
    by_doc: dict[tuple[str, str], set[str]] = {}
    for q, subtopic, doc, grade in lines:
        if int(grade) >= 1:
            by_doc.setdefault((q, doc), set()).add(subtopic)
    assert any(len(s) > 1 for s in by_doc.values())                     # a document relevant to several
    assert any(int(g) > 3 for *_, g in lines)                            # grades above 3
    assert not any(s == "4" and int(g) > 0 for _, s, _, g in lines)     # a subtopic with none relevant
    assert not any(q == "5" and int(g) > 0 for q, _, _, g in lines)     # a query with none relevant
    scores = [(line.split()[0], line.split()[4]) for line in run.read_text().splitlines()]
    assert len(set(scores)) < len(scores)                                # ties


@pytest.mark.parametrize("level", [1, 2])
def test_seeded_equals_pyndeval_per_query(tmp_path, level):
    qrels, run = seeded_files(tmp_path)
    names = NAMES if level == 1 else [with_rel_2(n) for n in NAMES]
    theirs = pyndeval(qrels, run, names)
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "div", subtopics=True)
        wh.ingest_run(run, name="r")
        ours = per_query(wh.evaluate(["r"], "div", names, per_query=True))
        complete = per_query(wh.evaluate(["r"], "div", names, per_query=True, complete=True))
    # the default query set: the run's judged queries (7 is not judged; 6 not in the run)
    assert {q for _, q in ours} == {"1", "2", "3", "4", "5"}
    # -c: every qrels query, as ir_measures reports them (6 scores 0 in both)
    assert set(complete) == set(theirs)
    for key, value in theirs.items():
        if math.isnan(value):  # ndeval's nNRBP of a query with no relevant document: 0 / 0
            assert key[0].startswith("nNRBP") and key[1] == "5" and complete[key] == 0.0
            continue
        assert abs(complete[key] - value) <= TOLERANCE, (key, complete[key], value)
        if key in ours:
            assert abs(ours[key] - complete[key]) <= TOLERANCE  # parallel sums may differ in the last bit
    # ndeval leaves ERR_IA@1 undivided by the subtopic count: a document covering two subtopics scores 2
    assert any(v > 1 for (n, q), v in ours.items() if n.startswith("ERR_IA") and n.endswith("@1"))


def test_depth_and_judged_only_equal_pyndeval_on_the_cut_run(tmp_path):
    qrels, run = seeded_files(tmp_path)
    judged = {(q, d) for q, _, d, _ in (line.split() for line in qrels.read_text().splitlines())}
    rows: dict[str, list[tuple[float, str, str]]] = {}
    for line in run.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        rows.setdefault(q, []).append((-float(score), doc, line))
    ordered = {q: [line for *_, line in sorted(r)] for q, r in rows.items()}  # pyndeval's order
    cut = write_file(tmp_path, "cut.run", "".join(line + "\n" for lines in ordered.values() for line in lines[:7]))
    only_judged = write_file(tmp_path, "judged.run", "".join(
        line + "\n" for q, lines in ordered.items() for line in lines if (q, line.split()[2]) in judged))
    names = ["alpha_nDCG@10", "ERR_IA@10", "NRBP", "P_IA@10", "StRecall@10"]
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "div", subtopics=True)
        wh.ingest_run(run, name="r")
        by_depth = per_query(wh.evaluate(["r"], "div", names, per_query=True, depth=7))
        by_judged = per_query(wh.evaluate(["r"], "div", names, per_query=True, judged_only=True))
    for ours, cut_file in ((by_depth, cut), (by_judged, only_judged)):
        theirs = pyndeval(qrels, cut_file, names)
        for key, value in ours.items():
            assert abs(value - theirs[key]) <= TOLERANCE, (cut_file.name, key, value, theirs[key])


def test_ordinary_measures_read_each_documents_highest_grade(tmp_path):
    """AP and nDCG@10 on a subtopic set equal pytrec_eval's on qrels holding each (query, doc)'s
    highest subtopic grade (the README's rule)."""
    qrels, run = seeded_files(tmp_path)
    best: dict[str, dict[str, int]] = {}
    for q, _, doc, grade in (line.split() for line in qrels.read_text().splitlines()):
        best.setdefault(q, {})[doc] = max(best.get(q, {}).get(doc, -99), int(grade))
    ranking: dict[str, dict[str, float]] = {}
    for q, _, doc, _, score, _ in (line.split() for line in run.read_text().splitlines()):
        ranking.setdefault(q, {})[doc] = float(score)
    expected = pytrec_eval.RelevanceEvaluator(best, {"map", "ndcg_cut.10"}).evaluate(ranking)
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "div", subtopics=True)
        wh.ingest_run(run, name="r")
        ours = per_query(wh.evaluate(["r"], "div", ["AP", "nDCG@10"], per_query=True))
    for q, values in expected.items():
        assert abs(ours[("AP", q)] - values["map"]) <= 1e-9
        assert abs(ours[("nDCG@10", q)] - values["ndcg_cut_10"]) <= 1e-9


def test_cli_ingest_eval_sql_and_rm(irw, tmp_path):
    qrels, run = seeded_files(tmp_path)
    ingested = irw("ingest", "qrels", qrels, "--subtopics", "--name", "div")
    assert ingested.exit_code == 0, ingested.stderr
    assert irw("ingest", "qrels", qrels, "--subtopics", "--name", "div").exit_code == 0  # same bytes: no-op
    assert irw("ingest", "run", run, "--name", "r").exit_code == 0
    result = irw("eval", "-m", "alpha_nDCG@10", "-m", "ERR_IA@20", "-m", "nNRBP", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    header, row = result.stdout.splitlines()
    assert header == "run,queries,alpha_nDCG@10,ERR_IA@20,nNRBP"
    assert "# alpha_nDCG@10: ndeval's conventions (as pyndeval runs it): ties by score as a double, then docid " \
           "ascending" in result.stderr
    theirs = pyndeval(qrels, run, ["alpha_nDCG@10", "ERR_IA@20", "nNRBP"])
    judged_in_run = {"1", "2", "3", "4", "5"}
    for name, cell in zip(["alpha_nDCG@10", "ERR_IA@20", "nNRBP"], row.split(",")[2:]):
        values = [0.0 if math.isnan(v) else v for (n, q), v in theirs.items() if n == name and q in judged_in_run]
        assert abs(float(cell) - sum(values) / len(values)) <= 1e-4  # 4 printed decimals
    stored = irw("sql", "select count(*) from score_values where measure = 'alpha_nDCG@10'", "--format", "csv")
    assert stored.stdout.splitlines()[1] == "5"
    assert irw("rm", "qrels", "div").exit_code == 0
    left = irw("sql", "select count(*) from qrels_subtopics", "--format", "csv")
    assert left.exit_code == 0 and left.stdout.splitlines()[1] == "0"


def test_a_plain_qrels_set_refuses_the_diversity_measures(irw, tmp_path):
    write_file(tmp_path, "plain.qrels", "1 0 a 1\n")
    irw("ingest", "qrels", tmp_path / "plain.qrels", "--name", "plain")
    irw("ingest", "run", write_file(tmp_path, "r.run", "1 Q0 a 1 1.0 r\n"), "--name", "r")
    result = irw("eval", "-m", "alpha_nDCG@10", "-m", "AP")
    assert result.exit_code == 1
    assert "alpha_nDCG@10 needs subtopic judgments, and qrels plain has none" in result.stderr
    assert "irw ingest qrels FILE --subtopics" in result.stderr and "Traceback" not in result.stderr


def test_a_bad_subtopic_file_names_its_lines_and_stores_nothing(irw, tmp_path):
    bad = write_file(tmp_path, "bad.qrels", "1 1 a 1\n1 2 a 0\n1 a 1\n1 1 a 2\n1 1 b x\n")
    result = irw("ingest", "qrels", bad, "--subtopics", "--name", "bad")
    assert result.exit_code == 1
    assert "bad.qrels:3: expected 4 fields (qid subtopic docid grade), found 3" in result.stderr
    assert "bad.qrels:4: duplicate judgment of document a for subtopic 1 of query 1 (first at line 1)" in result.stderr
    assert "bad.qrels:5: grade x is not an integer" in result.stderr
    assert irw("qrels", "--format", "csv").stdout.count("\n") <= 1


def test_same_bytes_as_a_plain_set_are_not_a_no_op(irw, tmp_path):
    qrels = write_file(tmp_path, "one.qrels", "1 1 a 1\n1 2 b 2\n")
    assert irw("ingest", "qrels", qrels, "--name", "s").exit_code == 0
    refused = irw("ingest", "qrels", qrels, "--subtopics", "--name", "s")
    assert refused.exit_code == 1 and "--replace" in refused.stderr
    assert irw("ingest", "qrels", qrels, "--subtopics", "--name", "s", "--replace").exit_code == 0
    assert irw("sql", "select count(*) from qrels_subtopics", "--format", "csv").stdout.splitlines()[1] == "2"


def test_api_evaluate_files_reads_no_subtopics(tmp_path):
    """evaluate_files takes plain qrels; a diversity measure there says what to do."""
    qrels, run = seeded_files(tmp_path)
    plain = write_file(tmp_path, "plain.qrels", "1 0 D01 1\n")
    with pytest.raises(MeasureError, match="needs subtopic judgments"):
        warehouse.evaluate_files(plain, run, ["alpha_nDCG@10"])
    with pytest.raises(InputFileError):  # a subtopic file as plain qrels: documents judged twice
        warehouse.evaluate_files(qrels, run, ["AP"])


def test_groups_and_diversity_together_ask_for_the_subtopics_once(tmp_path, monkeypatch):
    """check_qrels_for asks whether the set has subtopics (eval/qrels_has_subtopics.sql) once, when
    judgment-group and diversity measures are asked together, with and without subtopics."""
    from warehouse.engines.duckdb import Database

    asked = []
    run_file = Database.run_file

    def counting(self, relative_path, *args, **kwargs):
        asked.append(relative_path)
        return run_file(self, relative_path, *args, **kwargs)

    qrels, run = seeded_files(tmp_path)
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "div", subtopics=True)
        wh.ingest_qrels(write_file(tmp_path, "plain.qrels", "1 0 a 1\n"), "plain")
        wh.ingest_run(run, name="r")
        monkeypatch.setattr(Database, "run_file", counting)
        evaluation = wh.evaluate(["r"], "div", ["map_avgjg", "alpha_nDCG@10"])
        assert {m for _, m, *_ in evaluation.summary.rows} == {"map_avgjg", "alpha_nDCG@10"}
        assert asked.count("eval/qrels_has_subtopics.sql") == 1
        asked.clear()
        with pytest.raises(MeasureError, match="map_avgjg needs judgment groups, and qrels plain has none"):
            wh.evaluate(["r"], "plain", ["map_avgjg", "alpha_nDCG@10"])
        assert asked.count("eval/qrels_has_subtopics.sql") == 1
