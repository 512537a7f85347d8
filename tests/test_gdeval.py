"""gdeval's measures, ERR@k and nDCG(dcg=exp-log2)@k, against gdeval.pl as users run it: ir_measures'
gdeval provider (it writes the qrels and run to files and runs ir_measures' copy of gdeval.pl with
perl). gdeval prints 5 decimals, so each per-query value must be within 5e-6 (half its last printed
digit) plus 1e-9 of float noise, and each mean (ir_measures averages the printed values) within the
same: 4 decimals agree. On the six TREC DL 2019 passage runs (graded 0..3), and on a seeded case
built here with the corners DL19 lacks: ties in double scores, scores that tie only as float32
(gdeval orders doubles), grade 4, negative grades, unjudged documents, a query with no document
graded > 0, queries only in the run or only in the qrels."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import ir_measures
import pytest
from ir_measures import ERR, nDCG

import warehouse
from warehouse import MeasureError
from warehouse.evaluation.measures import parse

from conftest import write_file

TOLERANCE = 5e-6 + 1e-9
RUNS = ["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]
CUTOFFS = (5, 20)

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl (Debian: perl-base)")


def gdeval(qrels_path: Path, run_path: Path, k: int) -> dict[str, dict[str, float]]:
    """{irw name: {query: value}} from gdeval.pl through ir_measures' gdeval provider."""
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    names = {ERR @ k: f"ERR@{k}", nDCG(dcg="exp-log2") @ k: f"nDCG(dcg=exp-log2)@{k}"}
    out: dict[str, dict[str, float]] = {name: {} for name in names.values()}
    for metric in ir_measures.gdeval.iter_calc(list(names), qrels, run):
        out[names[metric.measure]][metric.query_id] = metric.value
    return out


def irw_values(evaluation, run: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for r, query, measure, value in evaluation.per_query.rows:
        if r == run and value is not None:
            out.setdefault(measure, {})[query] = value
    return out


def assert_matches(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]], what: str,
                   queries: set[str] | None = None) -> None:
    """Per query, and the means. ir_measures reports every qrels query (0 where gdeval printed
    nothing); irw's query set is the run's judged queries unless -c: `queries` names it then."""
    for name, values in theirs.items():
        assert values, f"{what}: gdeval scored no query for {name}"
        if queries is not None:
            values = {q: v for q, v in values.items() if q in queries}
        got = ours.get(name, {})
        assert set(got) == set(values), f"{what} {name}: queries differ: {sorted(set(got) ^ set(values))}"
        for query, value in values.items():
            assert abs(got[query] - value) <= TOLERANCE, (what, name, query, got[query], value)
        mean_ours, mean_theirs = sum(got.values()) / len(got), sum(values.values()) / len(values)
        assert abs(mean_ours - mean_theirs) <= TOLERANCE, (what, name, mean_ours, mean_theirs)


# -- DL19 ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dl19(conformance, tmp_path_factory):
    source = conformance / "dl19-passage"
    db = tmp_path_factory.mktemp("gdeval") / "dl19.duckdb"
    wh = warehouse.open(db)
    wh.ingest_qrels(source / "qrels.dl19-passage.txt", "dl19")
    for run in RUNS:
        wh.ingest_run(source / "runs" / f"run.dl19.{run}.txt", name=run)
    yield wh, source
    wh.close()


@pytest.mark.parametrize("k", CUTOFFS)
def test_dl19_equals_gdeval_per_query_and_mean(dl19, k):
    wh, source = dl19
    evaluation = wh.evaluate(RUNS, "dl19", [f"ERR@{k}", f"nDCG(dcg=exp-log2)@{k}"], per_query=True)
    for run in RUNS:
        theirs = gdeval(source / "qrels.dl19-passage.txt", source / "runs" / f"run.dl19.{run}.txt", k)
        assert_matches(irw_values(evaluation, run), theirs, run)
        for name, values in theirs.items():  # the stored summary is the mean of the same values
            assert abs(evaluation.value(run, name) - sum(values.values()) / len(values)) <= TOLERANCE


def test_dl19_ndcg_exp_differs_from_trec_eval_ndcg(dl19):
    """The gain 2^g - 1 is not trec_eval's gain g: the two names must not read the same scores."""
    wh, _ = dl19
    evaluation = wh.evaluate(["BM25"], "dl19", ["nDCG@10", "nDCG(dcg=exp-log2)@10"])
    assert abs(evaluation.value("BM25", "nDCG@10") - evaluation.value("BM25", "nDCG(dcg=exp-log2)@10")) > 1e-3


# -- the seeded case -------------------------------------------------------------------------------
def seeded_files(tmp_path: Path) -> tuple[Path, Path]:
    """Queries 1..6 judged (6 has only grades <= 0), 7 only in the qrels, 8 only in the run; scores
    from a few values (many ties), some pairs equal only as float32."""
    rng = random.Random(17)
    qrels, run = [], []
    for q in range(1, 8):
        for d in range(40):
            if rng.random() < 0.6:
                grade = 0 if q == 6 else rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4])
                qrels.append(f"{q} 0 D{d:02d} {grade}")
    for q in [1, 2, 3, 4, 5, 6, 8]:
        docs = rng.sample(range(40), 30)
        for i, d in enumerate(docs):
            score = rng.choice([3.0, 2.5, 2.0, 1.0])
            if i % 7 == 0:  # equal to 2.0 as a float32, larger as a double
                score = 2.00000001
            run.append(f"{q} Q0 D{d:02d} {i + 1} {score!r} seeded")
    return (write_file(tmp_path, "seeded.qrels", "\n".join(qrels) + "\n"),
            write_file(tmp_path, "seeded.run", "\n".join(run) + "\n"))


def gdeval_order(run_path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each query's (docid, line) in gdeval's order: score as a double descending, docid descending."""
    by_query: dict[str, list[tuple[float, str, str]]] = {}
    for line in run_path.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        by_query.setdefault(q, []).append((float(score), doc, line))
    return {q: [(doc, line) for _, doc, line in sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)]
            for q, rows in by_query.items()}


JUDGED_IN_RUN = {"1", "2", "3", "4", "5", "6"}  # the seeded run's queries the qrels judge


@pytest.mark.parametrize("compat", [9, 10])
@pytest.mark.parametrize("k", [1, 3, 10, 1000])
def test_seeded_equals_gdeval(tmp_path, k, compat):
    qrels, run = seeded_files(tmp_path)
    names = [f"ERR@{k}", f"nDCG(dcg=exp-log2)@{k}"]
    theirs = gdeval(qrels, run, k)
    # -c: every qrels query, as ir_measures reports them (7, absent from the run, scores 0)
    complete = warehouse.evaluate_files(qrels, {"seeded": run}, names, per_query=True, compat=compat, complete=True)
    assert_matches(irw_values(complete, "seeded"), theirs, f"seeded -c k={k} compat={compat}")
    # the default query set: the run's judged queries; 6, with no document graded > 0, scores 0
    evaluation = warehouse.evaluate_files(qrels, {"seeded": run}, names, per_query=True, compat=compat)
    ours = irw_values(evaluation, "seeded")
    assert_matches(ours, theirs, f"seeded k={k} compat={compat}", queries=JUDGED_IN_RUN)
    assert ours[f"ERR@{k}"]["6"] == 0.0 and ours[f"nDCG(dcg=exp-log2)@{k}"]["6"] == 0.0


def test_seeded_depth_and_judged_only_equal_gdeval_on_the_cut_file(tmp_path):
    """-M N is gdeval on the first N documents of its own order; -J is gdeval on the run without the
    documents the qrels do not judge (or grade below 0)."""
    qrels, run = seeded_files(tmp_path)
    grades = {(q, d): int(g) for q, _, d, g in (line.split() for line in qrels.read_text().splitlines())}
    ordered = gdeval_order(run)
    cut = write_file(tmp_path, "cut.run", "".join(line + "\n" for rows in ordered.values() for _, line in rows[:6]))
    judged = write_file(tmp_path, "judged.run", "".join(
        line + "\n" for q, rows in ordered.items() for doc, line in rows if grades.get((q, doc), -1) >= 0))
    names = ["ERR@10", "nDCG(dcg=exp-log2)@10"]
    by_depth = warehouse.evaluate_files(qrels, {"seeded": run}, names, per_query=True, depth=6)
    assert_matches(irw_values(by_depth, "seeded"), gdeval(qrels, cut, 10), "-M 6", queries=JUDGED_IN_RUN)
    by_judged = warehouse.evaluate_files(qrels, {"seeded": run}, names, per_query=True, judged_only=True)
    assert_matches(irw_values(by_judged, "seeded"), gdeval(qrels, judged, 10), "-J", queries=JUDGED_IN_RUN)


def test_norel_exclude_drops_the_query_without_relevant_documents(tmp_path):
    qrels, run = seeded_files(tmp_path)
    evaluation = warehouse.evaluate_files(qrels, {"seeded": run}, ["ERR@10"], per_query=True, norel="exclude")
    assert set(irw_values(evaluation, "seeded")["ERR@10"]) == JUDGED_IN_RUN - {"6"}


# -- names, errors, and the places every measure goes ------------------------------------------------
def test_names_quoted_and_unquoted_are_one_measure():
    assert [m.name for m in parse("nDCG(dcg='exp-log2')@20")] == ["nDCG(dcg=exp-log2)@20"]
    assert [m.name for m in parse('nDCG(dcg="exp-log2")@20')] == ["nDCG(dcg=exp-log2)@20"]
    assert [m.name for m in parse("nDCG(dcg=exp-log2)@20")] == ["nDCG(dcg=exp-log2)@20"]
    assert [m.name for m in parse("nDCG(dcg=log2)@20")] == ["nDCG@20"]
    assert [m.name for m in parse("ERR@20")] == ["ERR@20"]


@pytest.mark.parametrize("spec, message", [
    ("ERR", "needs a cutoff"),
    ("nDCG(dcg=exp-log2)", "needs a cutoff"),
    ("nDCG(dcg=exp)@10", "dcg= takes log2"),
    ("ERR(rel=2)@20", "take no rel="),
])
def test_bad_names_say_what_to_type(spec, message):
    with pytest.raises(MeasureError, match=message):
        parse(spec)


def test_misspelled_err_suggests_the_name(irw, tmp_path):
    qrels, run = seeded_files(tmp_path)
    irw("ingest", "qrels", qrels, "--name", "s")
    irw("ingest", "run", run, "--name", "seeded")
    result = irw("eval", "-m", "err@20")
    assert result.exit_code == 2 and "did you mean ERR@20?" in result.stderr


def test_grades_above_4_refuse_err_and_not_ndcg_exp(irw, tmp_path):
    qrels = write_file(tmp_path, "five.qrels", "1 0 a 5\n1 0 b 1\n")
    run = write_file(tmp_path, "r.run", "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    assert irw("ingest", "qrels", qrels, "--name", "five").exit_code == 0
    assert irw("ingest", "run", run, "--name", "r").exit_code == 0
    refused = irw("eval", "-m", "ERR@20")
    assert refused.exit_code == 1
    assert "ERR (gdeval) takes grades up to 4" in refused.stderr and "document a of query 1 5" in refused.stderr
    assert "Traceback" not in refused.stderr
    computed = irw("eval", "-m", "nDCG(dcg=exp-log2)@20", "--format", "csv")
    assert computed.exit_code == 0, computed.stderr
    assert computed.stdout.splitlines()[1] == "r,1,1.0"  # 31/1 + 1/log2(3) over the same: the ideal order


def test_eval_compare_and_sql_read_the_stored_scores(irw, tmp_path):
    qrels, run = seeded_files(tmp_path)
    other = write_file(tmp_path, "other.run", run.read_text().replace(" seeded", " other").replace(" 3.0 ", " 0.5 "))
    irw("ingest", "qrels", qrels, "--name", "s")
    irw("ingest", "run", run, "--name", "seeded")
    irw("ingest", "run", other, "--name", "other")
    expected = gdeval(qrels, run, 20)
    evaluated = irw("eval", "-m", "ERR@20", "-m", "nDCG(dcg='exp-log2')@20", "--format", "csv", "seeded")
    assert evaluated.exit_code == 0, evaluated.stderr
    header, row = evaluated.stdout.splitlines()
    assert header == "run,queries,ERR@20,nDCG(dcg=exp-log2)@20"
    # the settings line speaks for trec_eval's measures; these say their own tie order
    assert "# ERR@20: gdeval's conventions: ties by score as a double, then docid descending" in evaluated.stderr
    values = row.split(",")
    assert values[:2] == ["seeded", "6"]
    mean = {name: sum(x for q, x in v.items() if q in JUDGED_IN_RUN) / 6 for name, v in expected.items()}
    assert abs(float(values[2]) - mean["ERR@20"]) <= TOLERANCE
    assert abs(float(values[3]) - mean["nDCG(dcg=exp-log2)@20"]) <= TOLERANCE
    stored = irw("sql", "select query, value from score_values where run = 'seeded' and measure = 'ERR@20' "
                        "order by query", "--format", "csv")
    assert stored.exit_code == 0, stored.stderr
    rows = [line.split(",") for line in stored.stdout.splitlines()[1:]]
    assert {q: float(v) for q, v in rows}.keys() == JUDGED_IN_RUN
    compared = irw("compare", "seeded", "other", "-m", "ERR@20", "--test", "ttest", "--format", "csv")
    assert compared.exit_code == 0, compared.stderr
    assert compared.stdout.splitlines()[1].startswith("ERR@20,")


def test_trec_eval_drop_in_prints_gdeval_values(irw, tmp_path):
    """irw trec-eval takes ir_measures names: ERR@k reads every run row, not only the judged ones."""
    qrels, run = seeded_files(tmp_path)
    result = irw("trec-eval", "-q", "-m", "ERR@10", "-m", "nDCG(dcg=exp-log2)@10", qrels, run, db=False)
    assert result.exit_code == 0, result.stderr
    printed = {(name, query): float(value) for name, query, value in
               (line.split("\t") for line in result.stdout.splitlines())}
    theirs = gdeval(qrels, run, 10)
    for name, trec_name in (("ERR@10", "gdeval_err_10"), ("nDCG(dcg=exp-log2)@10", "gdeval_ndcg_10")):
        for query in JUDGED_IN_RUN:
            assert abs(printed[(trec_name.ljust(22), query)] - theirs[name][query]) <= 1e-4  # 4 printed decimals
