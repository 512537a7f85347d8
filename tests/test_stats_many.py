"""warehouse.evaluation.stats.paired_comparisons (every comparison of a report in one NumPy pass per query
count) gives, to the bit, the numbers of the one-comparison-at-a-time code it replaced (kept here
as `reference`, as warehouse/evaluation/stats.py had it at f89bffd, but for the randomization test's
exact case, which since METHOD 2 enumerates the sign patterns of the queries that differ, however
many are tied): the same sign patterns and resamples over the same scaled differences, so p-values
did not move when the tests were vectorised, and a stored p-value is the p-value any later report
would compute."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from conftest import require_conformance
from warehouse.evaluation import stats
from warehouse.evaluation.stats import PairedResult, StatsSettings

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


# -- the reference: one comparison at a time, loops over the shared random streams ---------------
def _scaled(d: np.ndarray) -> np.ndarray:
    if d.size == 0:
        return d.astype(np.int64)
    top = max(1.0, float(np.max(np.abs(d))))
    return np.rint(d * (stats._SCALE_DIGITS / top)).astype(np.int64)


def _randomization(d: np.ndarray, permutations: int, seed: int) -> tuple[float, bool]:
    scaled = _scaled(d)
    total = int(scaled.sum())
    differing = scaled[scaled != 0]
    if (1 << differing.size) <= permutations:  # every sign pattern of the queries that differ
        signs = np.array(list(itertools.product((1, -1), repeat=differing.size)), dtype=np.int64)
        sums = signs @ differing if differing.size else np.zeros(1, dtype=np.int64)
        return int(np.count_nonzero(np.abs(sums) >= abs(total))) / len(sums), True
    hits = count = 0
    for bits in stats._sign_bits(d.size, permutations, seed):
        flipped = bits.astype(np.int64) @ scaled
        hits += int(np.count_nonzero(np.abs(total - 2 * flipped) >= abs(total)))
        count += bits.shape[0]
    return (hits + 1) / (count + 1), False


def _bootstrap(d: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, int]:
    scaled = _scaled(d)
    total = int(scaled.sum())
    sums = np.empty(resamples, dtype=np.int64)
    hits = at = 0
    for idx in stats._resample_indices(d.size, resamples, seed):
        block = scaled[idx].sum(axis=1)
        sums[at:at + block.size] = block
        at += block.size
        hits += int(np.count_nonzero(np.abs(block - total) >= abs(total)))
    return sums, hits


def _percentile_ci(d: np.ndarray, sums: np.ndarray, confidence: float) -> tuple[float, float]:
    top = max(1.0, float(np.max(np.abs(d))))
    means = sums.astype(np.float64) * (top / stats._SCALE_DIGITS) / d.size
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def _ttest(d: np.ndarray, confidence: float) -> tuple[float, float, float, float]:
    import scipy.stats as scipy_stats

    n = d.size
    if n < 2:
        return math.nan, math.nan, math.nan, math.nan
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0.0:
        t, p = (0.0, 1.0) if mean == 0.0 else (math.copysign(math.inf, mean), 0.0)
    else:
        t = mean / (sd / math.sqrt(n))
        p = min(1.0, 2.0 * float(scipy_stats.t.sf(abs(t), n - 1)))
    half = float(scipy_stats.t.ppf(1.0 - (1.0 - confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return t, p, mean - half, mean + half


def reference(a, b, settings: StatsSettings) -> PairedResult:
    """paired_comparison as it was before the tests were vectorised."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    scaled = _scaled(d)
    wins, losses = int(np.count_nonzero(scaled > 0)), int(np.count_nonzero(scaled < 0))
    if n == 0:
        nan = math.nan
        return PairedResult(0, nan, nan, nan, nan, nan, nan, nan, 0, 0, 0)
    mean_a, mean_b, diff = float(np.mean(a)), float(np.mean(b)), float(d.mean())
    exact = False
    if settings.test == "ttest":
        statistic, p, low, high = _ttest(d, settings.confidence)
    else:
        statistic = diff
        sums, boot_hits = _bootstrap(d, settings.permutations, settings.seed)
        low, high = _percentile_ci(d, sums, settings.confidence)
        if settings.test == "bootstrap":
            p = (boot_hits + 1) / (settings.permutations + 1)
        else:
            p, exact = _randomization(d, settings.permutations, settings.seed)
        if n == 1:  # since method 3: one query has no interval, nor a bootstrap p
            low = high = math.nan
            p = math.nan if settings.test == "bootstrap" else p
    return PairedResult(n, mean_a, mean_b, diff, low, high, statistic, p, wins, n - wins - losses, losses, exact)


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
    alone = [reference(a, b, settings) for a, b in pairs]
    assert len(together) == 15
    for one, other in zip(together, alone):
        assert same(one, other), (one, other)
    assert all(0 < r.p_value <= 1 for r in together) and all(r.n == 43 for r in together)


@pytest.mark.parametrize("test", TESTS)
def test_query_counts_mixed_in_one_call_exact_patterns_ties_and_empty(test):
    """Several query counts at once (2^m <= permutations enumerates every sign pattern of the m
    queries that differ), tied differences, identical runs, runs that differ on a few queries of
    many, a single query and none."""
    rng = np.random.default_rng(4)
    pairs = []
    for n in (0, 1, 2, 5, 13, 14, 30, 30, 43, 200):
        b = rng.random(n)
        a = np.clip(b + rng.normal(0.03, 0.1, n), 0, 1)
        pairs.append((list(a), list(b)))
    pairs.append(([0.3, 0.5, 0.1, 0.7, 0.2], [0.1, 0.3, 0.1, 0.4, 0.4]))  # P@10-like: ties
    pairs.append(([0.5] * 7, [0.5] * 7))
    pairs.append(([0.5] * 43, [0.5] * 43))
    for n, differing in ((43, 5), (43, 12), (30, 13), (30, 2)):  # 2^12 <= 5,000 < 2^13
        b = rng.random(n)
        a = b.copy()
        a[rng.choice(n, differing, replace=False)] += rng.normal(0.05, 0.1, differing)
        pairs.append((list(a), list(b)))
    settings = StatsSettings(test=test, permutations=5_000, seed=3, alpha=0.1)
    together = stats.paired_comparisons(pairs, settings)
    for (a, b), one in zip(pairs, together):
        assert same(one, reference(a, b, settings)), (len(a), one)
        assert same(one, stats.paired_comparison(a, b, settings))  # a group of one


def test_more_comparisons_than_one_chunk_holds(monkeypatch):
    """Comparisons split over several column chunks and resample blocks give the same numbers."""
    monkeypatch.setattr(stats, "_CHUNK_CELLS", 3_000)
    rng = np.random.default_rng(8)
    pairs = [(list(rng.random(20)), list(rng.random(20))) for _ in range(7)]
    settings = StatsSettings(permutations=999)
    together = stats.paired_comparisons(pairs, settings)
    for (a, b), one in zip(pairs, together):
        assert same(one, reference(a, b, settings))
