"""`irw compare`: paired tests whose numbers are checked against `irw eval` and scipy.stats."""
from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
import scipy.stats as scipy_stats  # a declared test dependency (pyproject [test]): never skipped
from typer.testing import CliRunner

import warehouse
from warehouse import reports
from warehouse.evaluation import stats
from warehouse.commands.irw import app
from warehouse.commands.sample import DEMO_SYSTEMS, write_sample


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory):
    """The demo's sample data (50 queries, six runs) in a warehouse, evaluated once for AP and P@10."""
    folder = tmp_path_factory.mktemp("compare")
    qrels, runs = write_sample(folder / "data")
    db = folder / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "sample")
        for spec, path in zip(DEMO_SYSTEMS, runs):
            wh.ingest_run(path, spec.name, system=spec.name.split("-")[0], description=spec.description)
        wh.evaluate([s.name for s in DEMO_SYSTEMS], "sample", ["AP", "P@10", "nDCG@10"])
    return db


@pytest.fixture
def db(sample_db, tmp_path):
    copy = tmp_path / "irw.duckdb"
    shutil.copyfile(sample_db, copy)
    return copy


def irw(*args, db=None):
    argv = [str(a) for a in args] + (["--db", str(db)] if db else [])
    return CliRunner().invoke(app, argv, catch_exceptions=False)


def compare_json(db, *args):
    result = irw("compare", *args, "--format", "json", db=db)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def eval_summary(db, runs, measures, *extra):
    result = irw("eval", *runs, "--qrels", "sample", *[a for m in measures for a in ("-m", m)], *extra,
                 "--format", "json", db=db)
    assert result.exit_code == 0, result.stderr
    return {row["run"]: row for row in json.loads(result.stdout)}


def eval_per_query(db, runs, measures, *extra):
    """{run: {query: {measure: value}}} from `irw eval -q`."""
    result = irw("eval", *runs, "--qrels", "sample", *[a for m in measures for a in ("-m", m)], "-q", *extra,
                 "--format", "json", db=db)
    assert result.exit_code == 0, result.stderr
    out: dict = {}
    for row in json.loads(result.stdout):
        out.setdefault(row["run"], {})[row["query"]] = {m: row[m] for m in measures}
    return out


def paired_values(per_query, run, baseline, measure):
    queries = sorted(set(per_query[run]) & set(per_query[baseline]))
    return (queries, np.array([per_query[run][q][measure] for q in queries]),
            np.array([per_query[baseline][q][measure] for q in queries]))


def test_means_are_the_numbers_irw_eval_prints(db):
    rows, _ = compare_json(db, "bm25-rm3", "dense", "--baseline", "bm25", "--qrels", "sample", "-m", "AP",
                           "-m", "P@10")
    summary = eval_summary(db, ["bm25", "bm25-rm3", "dense"], ["AP", "P@10"])
    assert [(r["measure"], r["run"], r["baseline"]) for r in rows] == [
        ("AP", "bm25-rm3", "bm25"), ("AP", "dense", "bm25"), ("P@10", "bm25-rm3", "bm25"), ("P@10", "dense", "bm25")]
    for row in rows:
        assert row["queries"] == 50
        assert row["run_mean"] == pytest.approx(summary[row["run"]][row["measure"]], abs=1e-12)
        assert row["baseline_mean"] == pytest.approx(summary[row["baseline"]][row["measure"]], abs=1e-12)
        assert row["diff"] == pytest.approx(row["run_mean"] - row["baseline_mean"], abs=1e-12)


def test_ttest_and_holm_match_scipy_on_the_per_query_scores_of_irw_eval(db):
    rows, stderr = compare_json(db, "bm25", "bm25-rm3", "bm25-trunc", "random", "--baseline", "bm25", "--qrels",
                                "sample", "-m", "AP", "-m", "P@10", "--test", "ttest", "--alpha", "0.01")
    per_query = eval_per_query(db, ["bm25", "bm25-rm3", "bm25-trunc", "random"], ["AP", "P@10"])
    raw = []
    for row in rows:
        queries, a, b = paired_values(per_query, row["run"], row["baseline"], row["measure"])
        reference = scipy_stats.ttest_rel(a, b)
        ci = reference.confidence_interval(confidence_level=0.99)
        assert row["queries"] == len(queries)
        assert row["p"] == pytest.approx(reference.pvalue, rel=1e-8, abs=1e-300)
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(ci.low, rel=1e-9), pytest.approx(ci.high, rel=1e-9))
        d = a - b
        assert (row["wins"], row["ties"], row["losses"]) == (int((d > 1e-12).sum()), int((abs(d) <= 1e-12).sum()),
                                                             int((d < -1e-12).sum()))
        raw.append(reference.pvalue)
    # Holm over the report's six comparisons, by hand: sort, multiply by m - rank, running maximum
    order = sorted(range(len(raw)), key=lambda i: raw[i])
    expected, running = [0.0] * len(raw), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(raw) - rank) * raw[i]))
        expected[i] = running
    assert [r["p_adjusted"] for r in rows] == pytest.approx(expected, rel=1e-8, abs=1e-300)
    assert [r["significant"] for r in rows] == [p < 0.01 for p in expected]
    assert "# correction: Holm-Bonferroni step-down over 6 comparisons" in stderr
    assert "# test: paired Student's t-test, two-sided; alpha 0.01" in stderr


def test_default_randomization_test_agrees_with_scipy_and_is_reproducible(db):
    args = ("bm25-trunc", "--baseline", "bm25", "--qrels", "sample", "-m", "AP", "-m", "P@10")
    rows, stderr = compare_json(db, *args)
    assert "10,000 random sign flips" in stderr and "seed 0" in stderr
    per_query = eval_per_query(db, ["bm25", "bm25-trunc"], ["AP", "P@10"])
    for row in rows:
        _, a, b = paired_values(per_query, row["run"], row["baseline"], row["measure"])
        reference = scipy_stats.permutation_test(
            (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True, permutation_type="samples",
            n_resamples=100_000, rng=np.random.default_rng(0)).pvalue
        tolerance = 5 * math.sqrt(max(reference * (1 - reference), 1e-4) / 10_000) + 3e-4
        assert abs(row["p"] - reference) <= tolerance
        interval = scipy_stats.bootstrap((a - b,), np.mean, method="percentile", n_resamples=20_000,
                                         rng=np.random.default_rng(1)).confidence_interval
        se = float(np.std(a - b, ddof=1) / math.sqrt(len(a)))
        assert abs(row["ci_low"] - interval.low) < 0.15 * se and abs(row["ci_high"] - interval.high) < 0.15 * se
    again, _ = compare_json(db, *args)
    assert again == rows  # the same seed, the same report
    other, _ = compare_json(db, *args, "--seed", "7")
    assert [r["p"] for r in other] != [r["p"] for r in rows]


def test_without_a_baseline_every_pair_is_tested_each_run_against_those_named_before_it(db):
    rows, stderr = compare_json(db, "bm25", "bm25-rm3", "dense", "--qrels", "sample", "-m", "AP")
    assert [(r["run"], r["baseline"]) for r in rows] == [("bm25-rm3", "bm25"), ("dense", "bm25"), ("dense", "bm25-rm3")]
    assert "over 3 comparisons (all pairs x 1 measure)" in stderr
    assert all(r["significant"] and r["diff"] > 0 for r in rows)


def test_runs_evaluated_on_different_queries_are_paired_on_the_shared_ones_and_it_is_said(db):
    rows, stderr = compare_json(db, "bm25-trunc", "--baseline", "bm25", "--qrels", "sample", "-m", "AP")
    per_query = eval_per_query(db, ["bm25", "bm25-trunc"], ["AP"])
    queries, a, b = paired_values(per_query, "bm25-trunc", "bm25", "AP")
    (row,) = rows
    assert row["queries"] == len(queries) == 45
    assert row["baseline_mean"] == pytest.approx(b.mean(), abs=1e-12)
    assert row["run_mean"] == pytest.approx(a.mean(), abs=1e-12)
    assert "# bm25-trunc vs bm25: 45 shared queries (0 only in bm25-trunc, 5 only in bm25)" in stderr
    assert "# queries: each pair is tested over the queries both runs were evaluated on" in stderr

    # trec_eval -c: every qrels query counts, the missing ones as 0, so all 50 are paired
    complete, stderr = compare_json(db, "bm25-trunc", "--baseline", "bm25", "--qrels", "sample", "-m", "AP",
                                    "--complete")
    summary = eval_summary(db, ["bm25", "bm25-trunc"], ["AP"], "--complete")
    assert complete[0]["queries"] == 50
    assert complete[0]["run_mean"] == pytest.approx(summary["bm25-trunc"]["AP"], abs=1e-12)
    assert "shared queries" not in stderr


def test_measures_that_are_not_means_are_listed_but_not_tested(db):
    with warehouse.open(db) as wh:
        comparison = reports.compare(wh, ["bm25", "dense"], "sample", ["AP", "NumRelRet"], baseline="bm25")
    table = comparison.table().to_dicts()
    assert [r["measure"] for r in table] == ["AP", "NumRelRet"]
    assert table[1]["p"] is None and table[1]["wins"] is None
    assert comparison.tested == 1
    assert "not tested (not a mean over queries): NumRelRet" in comparison.notes()


def test_library_comparison_with_bootstrap_settings_agrees_with_scipy(db):
    """reports.compare with the bootstrap test, checked against independent oracles: the pairs are the
    per-query scores `irw eval -q` prints, means an fsum over them, p and the interval scipy's
    bootstrap, the correction Holm by hand."""
    runs, measures, resamples = ["bm25-rm3", "bm25-trunc", "dense"], ["AP", "P@10"], 2_000
    with warehouse.open(db) as wh:
        comparison = reports.compare(wh, ["bm25", *runs], "sample", measures, baseline="bm25",
                                     stats=stats.StatsSettings(test="bootstrap", permutations=resamples, seed=3),
                                     values=True)
    per_query = eval_per_query(db, ["bm25", *runs], measures)
    assert len(comparison.rows) == 6
    raw = []
    for row in comparison.rows:
        queries, a, b = paired_values(per_query, row.run, row.baseline, row.measure.name)
        assert list(row.queries) == queries
        assert list(row.run_values) == list(a) and list(row.baseline_values) == list(b)
        result = row.result
        assert result.n == len(queries) == (45 if row.run == "bm25-trunc" else 50)
        assert result.mean_a == pytest.approx(math.fsum(a) / len(a), abs=1e-12)
        assert result.mean_b == pytest.approx(math.fsum(b) / len(b), abs=1e-12)
        d = a - b
        # the null: scipy's bootstrap distribution of the mean of the differences shifted to mean 0
        null = scipy_stats.bootstrap((d - d.mean(),), np.mean, method="percentile", n_resamples=50_000,
                                     rng=np.random.default_rng(11)).bootstrap_distribution
        reference = float(np.mean(np.abs(null) >= abs(d.mean())))
        tolerance = 5 * math.sqrt(max(reference * (1 - reference), 1e-4) / resamples) + 3 / resamples
        assert abs(result.p_value - reference) <= tolerance, (row.measure.name, row.run, result.p_value, reference)
        interval = scipy_stats.bootstrap((d,), np.mean, method="percentile", n_resamples=20_000,
                                         rng=np.random.default_rng(12)).confidence_interval
        # two Monte Carlo quantile estimates, one of them from 2,000 resamples
        se = float(np.std(d, ddof=1) / math.sqrt(len(d)))
        assert abs(result.ci_low - interval.low) < 0.3 * se and abs(result.ci_high - interval.high) < 0.3 * se
        raw.append(result.p_value)
    # a p-value a test with these runs must give: bm25-trunc differs from bm25 on AP in 5 queries only
    assert 0.01 < raw[1] < 0.5 and max(raw[0], raw[2]) < 0.01
    order = sorted(range(len(raw)), key=lambda i: raw[i])
    expected, running = [0.0] * len(raw), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(raw) - rank) * raw[i]))
        expected[i] = running
    assert [r.p_adjusted for r in comparison.rows] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("args,code,message", [
    (["bm25", "--qrels", "sample"], 2, "compare needs at least two runs (or one run and --baseline): bm25 is the "
                                        "only run chosen"),
    # the same run twice, or as its own baseline, is one run (it said only "needs at least two runs")
    (["bm25", "bm25", "--qrels", "sample"], 2, "bm25 is the only run chosen"),
    (["bm25", "--baseline", "bm25", "--qrels", "sample"], 2, "bm25 is the only run chosen"),
    (["bm25", "nope", "--qrels", "sample"], 1, "no run named 'nope'"),
    (["bm25", "dense", "--qrels", "nope"], 1, "no qrels set named 'nope'"),
    (["bm25", "dense", "--qrels", "sample", "--alpha", "2"], 2, "--alpha must be between 0 and 1"),
    (["bm25", "dense", "--qrels", "sample", "--permutations", "0"], 2, "--permutations must be at least 1"),
    (["bm25", "dense", "--qrels", "sample", "-m", "XYZ"], 2, "unknown measure"),
])
def test_mistakes_are_reported_with_a_message_and_exit_code(db, args, code, message):
    result = irw("compare", *args, db=db)
    assert result.exit_code == code
    assert message in result.stderr
    assert result.stdout == ""


def test_compare_does_not_create_a_missing_warehouse(tmp_path):
    missing = tmp_path / "missing.duckdb"
    result = irw("compare", "a", "b", "--qrels", "q", db=missing)
    assert result.exit_code == 1
    assert "no warehouse at" in result.stderr
    assert not missing.exists()
