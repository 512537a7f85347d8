"""warehouse.stats.paired_comparisons (every comparison of a report in one NumPy pass per query
count) gives the numbers paired_comparison gives one comparison at a time, to the bit: the same
sign patterns and resamples, so a stored p-value is the p-value of any later report."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import require_conformance
from warehouse import stats
from warehouse.stats import StatsSettings

TESTS = ("randomization", "bootstrap", "ttest")
DL19_MEASURES = ("map", "ndcg_cut_10", "P_10")


def dl19_per_query() -> dict[str, dict[str, dict[str, float]]]:
    """run -> trec_eval measure -> query -> value, from trec_eval's own -q output of the six DL19 runs."""
    folder = require_conformance() / "dl19-passage"
    runs = {}
    for path in sorted(folder.glob("expected_run.dl19.*.all_trec.q.v9.txt")):
        run = path.name[len("expected_run.dl19."):-len(".all_trec.q.v9.txt")]
        values: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            measure, query, value = line.split()
            if measure in DL19_MEASURES and query != "all":
                values.setdefault(measure, {})[query] = float(value)
        runs[run] = values
    assert len(runs) == 6
    return runs


def same(one: stats.PairedResult, other: stats.PairedResult) -> bool:
    """Equal field by field, nan equal to nan."""
    for x, y in zip(one.__dict__.values(), other.__dict__.values()):
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if x != y or type(x) is not type(y):
            return False
    return True


@pytest.mark.parametrize("test", TESTS)
def test_dl19_runs_against_bm25_give_the_numbers_one_at_a_time_gives(test):
    runs = dl19_per_query()
    settings = StatsSettings(test=test)
    pairs = []
    for measure in DL19_MEASURES:
        base = runs["BM25"][measure]
        for run, values in runs.items():
            if run != "BM25":
                queries = sorted(set(values[measure]) & set(base))
                pairs.append(([values[measure][q] for q in queries], [base[q] for q in queries]))
    together = stats.paired_comparisons(pairs, settings)
    alone = [stats.paired_comparison(a, b, settings) for a, b in pairs]
    assert len(together) == 15
    for one, other in zip(together, alone):
        assert same(one, other), (one, other)
    assert all(0 < r.p_value <= 1 for r in together) and all(r.n == 43 for r in together)


@pytest.mark.parametrize("test", TESTS)
def test_query_counts_mixed_in_one_call_exact_patterns_ties_and_empty(test):
    """Several query counts at once (2^n <= permutations enumerates every sign pattern), tied
    differences, identical runs, a single query and none."""
    rng = np.random.default_rng(4)
    pairs = []
    for n in (0, 1, 2, 5, 13, 14, 30, 30, 43, 200):
        b = rng.random(n)
        a = np.clip(b + rng.normal(0.03, 0.1, n), 0, 1)
        pairs.append((list(a), list(b)))
    pairs.append(([0.3, 0.5, 0.1, 0.7, 0.2], [0.1, 0.3, 0.1, 0.4, 0.4]))  # P@10-like: ties
    pairs.append(([0.5] * 7, [0.5] * 7))
    settings = StatsSettings(test=test, permutations=5_000, seed=3, alpha=0.1)
    together = stats.paired_comparisons(pairs, settings)
    for (a, b), one in zip(pairs, together):
        assert same(one, stats.paired_comparison(a, b, settings)), (len(a), one)


def test_more_comparisons_than_one_chunk_holds(monkeypatch):
    """Comparisons split over several column chunks and resample blocks give the same numbers."""
    monkeypatch.setattr(stats, "_CHUNK_CELLS", 3_000)
    rng = np.random.default_rng(8)
    pairs = [(list(rng.random(20)), list(rng.random(20))) for _ in range(7)]
    settings = StatsSettings(permutations=999)
    together = stats.paired_comparisons(pairs, settings)
    for (a, b), one in zip(pairs, together):
        assert same(one, stats.paired_comparison(a, b, settings))
