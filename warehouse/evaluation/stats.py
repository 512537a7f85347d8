"""Paired significance tests over per-query scores, and multiple-testing corrections.

Three paired, two-sided tests of "run and baseline have the same mean" over the queries both
were evaluated on:

- randomization (Fisher's sign-flip permutation test): every query's difference keeps or flips
  its sign at random; p is the share of the `permutations` resamples whose |sum of differences|
  reaches the observed one, counting the observed arrangement: (1 + hits) / (1 + permutations)
  (Phipson and Smyth 2010). A query whose difference is 0 moves no sum when its sign flips, so
  the 2^n patterns of n queries are the 2^m patterns of the m queries that differ, each 2^(n-m)
  times: when 2^m <= permutations every pattern of those m queries is enumerated and p is exact
  (hits / 2^m), whatever n is. Two versions of a system that differ on a handful of queries get
  the exact p, not an estimate that another seed moves. scipy.stats.permutation_test enumerates
  when 2^n <= n_resamples, and gives the same exact p then.
- ttest: Student's paired t-test, t = mean(d) / (sd(d) / sqrt(n)) with n - 1 degrees of freedom
  (scipy.stats.ttest_rel).
- bootstrap: the paired bootstrap of the mean difference; p is the share of resamples of the
  differences shifted to mean 0 whose |mean| reaches the observed |mean| (Efron and Tibshirani
  1993, 16.4), counted as (1 + hits) / (1 + resamples).

The confidence interval of the mean difference is Student's t interval for the t-test and the
percentile interval of the paired bootstrap (scipy.stats.bootstrap(method='percentile')) for the
other two; its level is 1 - alpha, uncorrected.

Reproducibility: random signs and resample indices come from the raw 64-bit stream of NumPy's
PCG64 seeded through SeedSequence([seed, purpose]); NumPy keeps that stream stable across
versions (unlike Generator methods), so a seed gives the same p-values everywhere. Every
comparison with the same query count sees the same resamples, so adding a run to a report does
not move the other runs' p-values (the corrected ones move: the family grew).

Ties: differences are compared after scaling to integers (12 significant decimals of the largest
difference), so the sums over resamples are exact and a resample that ties the observed
statistic always counts; a query is a tie (for win/tie/loss) when its scaled difference is 0.

Many comparisons at once (paired_comparisons, what reports call): comparisons over the same
number of queries see the same sign patterns and resamples, so each group is tested in one pass,
the sums of every resample for every comparison being one matrix product (exact: integers below
2^53 in float64). One comparison is a group of one, so its numbers are the same either way.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from warehouse import progress
from warehouse.errors import SettingError, UsageError

TESTS = {
    "randomization": "paired randomization (sign-flip permutation) test",
    "ttest": "paired Student's t-test",
    "bootstrap": "paired bootstrap test (differences shifted to mean 0)",
}
TESTS_SHORT = {"randomization": "randomization test", "ttest": "t-test", "bootstrap": "bootstrap"}
CORRECTIONS = {
    "holm": "Holm-Bonferroni step-down",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg false discovery rate",
    "none": "none",
}
_SCALE_DIGITS = 1e12      # differences are compared as integers at this resolution
_CHUNK_CELLS = 4_000_000  # resample rows x queries held in memory at once
PROGRESS_FROM = 1_000     # comparisons from which their testing reports its progress (warehouse/progress.py)
_SIGNS, _RESAMPLES = 0, 1  # SeedSequence purposes: independent streams for the two uses
# The way the tests are computed, stored with every result (significance_results.method): raised
# when a change gives other numbers for the same scores and settings, so older results are not read.
# 3: no bootstrap p and no interval over one query; 2: exact over the queries that differ (1: exact
# only when 2^n <= permutations)
METHOD = 3


@dataclass(frozen=True)
class StatsSettings:
    """How comparisons are tested; stated beside every p-value a report prints."""

    test: str = "randomization"
    alpha: float = 0.05
    correction: str = "holm"
    permutations: int = 10_000   # randomization permutations and bootstrap resamples
    seed: int = 0

    def __post_init__(self):
        if self.test not in TESTS:
            raise SettingError("test", f"takes {', '.join(TESTS)}, not {self.test!r}")
        if self.correction not in CORRECTIONS:
            raise SettingError("correction", f"takes {', '.join(CORRECTIONS)}, not {self.correction!r}")
        if not 0 < self.alpha < 1:
            raise SettingError("alpha", f"must be between 0 and 1, not {self.alpha}")
        if self.permutations < 1:
            raise SettingError("permutations", f"must be at least 1, not {self.permutations}")
        if self.test != "ttest" and 1 / (self.permutations + 1) >= self.alpha:
            # p counts the observed arrangement, so it is never below 1 / (permutations + 1); an
            # enumerated pattern set is smaller still; a pair is significant when p is below alpha
            # (equal is not): no pair could be, silently
            least = math.floor(1 / self.alpha)  # permutations + 1 > 1 / alpha
            floor = 1 / (self.permutations + 1)
            where = "alpha" if floor == self.alpha else "above alpha"
            raise SettingError("permutations", f"{self.permutations:,} gives no p below 1/{self.permutations + 1:,} = "
                               f"{floor:.4g}, {where} {self.alpha:g}, so no pair could be significant (a p equal to "
                               f"alpha is not): give at least {least:,} (the default is 10,000)")
        if self.seed < 0:
            raise SettingError("seed", f"must be 0 or more, not {self.seed}")

    @property
    def confidence(self) -> float:
        return 1.0 - self.alpha

    def describe_test(self) -> str:
        if self.test == "randomization":
            return (f"{TESTS['randomization']}, two-sided, {self.permutations:,} random sign flips "
                    f"(every pattern when the queries that differ are at most {_at_most_enumerated(self.permutations)}), "
                    f"seed {self.seed}")
        if self.test == "bootstrap":
            return f"{TESTS['bootstrap']}, two-sided, {self.permutations:,} resamples, seed {self.seed}"
        return f"{TESTS['ttest']}, two-sided"

    def describe_ci(self) -> str:
        level = f"{self.confidence * 100:g}%"
        if self.test == "ttest":
            return f"{level} Student t interval of the mean difference"
        return (f"{level} paired bootstrap percentile interval of the mean difference, "
                f"{self.permutations:,} resamples, seed {self.seed}")


@dataclass(frozen=True)
class PairedResult:
    """One paired comparison: run (a) against baseline (b) over n shared queries."""

    n: int
    mean_a: float
    mean_b: float
    diff: float             # mean(a - b)
    ci_low: float
    ci_high: float
    statistic: float        # t for the t-test, the mean difference otherwise
    p_value: float          # nan when the test cannot be made (n = 0, n = 1 but for randomization, a value not finite)
    wins: int               # queries where a > b
    ties: int
    losses: int
    exact: bool = False     # randomization: every sign pattern of the queries that differ was enumerated


def smallest_exact_p(n: int) -> float:
    """The smallest p an exact two-sided sign-flip test over n queries gives: 2 / 2^n (every
    difference of one sign), 0.25 over 3 queries, 0.0625 over 5."""
    return 2.0 ** (1 - n)


def no_exact_test_reaches(n: int, alpha: float) -> bool:
    """Whether no exact paired test over n queries can give a p at or below alpha
    (smallest_exact_p). A bootstrap or t-test p below alpha there rests on the test's approximation,
    not on the data (the shifted bootstrap gave 0.0001 over 3 queries)."""
    return n > 0 and smallest_exact_p(n) > alpha


def optimistic_marks(rows, settings: StatsSettings) -> list:
    """The significant rows (reports.PairRow: result, significant) of a test that is not exact (the
    bootstrap, the t-test) over too few queries for any exact test to reach alpha."""
    if settings.test == "randomization":  # exact over so few queries: never below 2 / 2^n
        return []
    return [row for row in rows if row.significant and row.result is not None
            and no_exact_test_reaches(row.result.n, settings.alpha)]


def optimistic_said(rows, settings: StatsSettings) -> str:
    """What a report says of optimistic_marks(rows) (non-empty): how many, over how few queries."""
    fewest = min(row.result.n for row in rows)
    count = len(rows)
    return (f"{count} significant {'pair rests' if count == 1 else 'pairs rest'} on too few queries for any exact test "
            f"to reach alpha {settings.alpha:g} (the fewest: {fewest} {'query' if fewest == 1 else 'queries'}, where a "
            f"sign-flip test's smallest p is {smallest_exact_p(fewest):.4g}): the {TESTS_SHORT[settings.test]} is "
            "optimistic there; --test randomization is exact over so few")


def unreachable_said(tested: int, settings: StatsSettings) -> str:
    """What a report says when no comparison of its family can be significant, '' when one can: the
    test's smallest p, 1 / (permutations + 1), corrected over the tested comparisons (Holm and
    Bonferroni multiply it by their count) is not below alpha. A walk's board of 10,000 runs x 3
    measures, 30,000 comparisons, needed p below 1.7e-06 where 10,000 permutations give none below
    1e-04: every row was unmarked, a run 0.66 below the top one too, and the page said unmarked
    meant not significantly different. The t-test has no such floor."""
    if settings.test == "ttest" or tested == 0 or settings.correction not in ("holm", "bonferroni"):
        return ""  # bh and none keep the floor itself, below alpha (StatsSettings refuses fewer permutations)
    floor = 1 / (settings.permutations + 1)
    if floor * tested < settings.alpha:
        return ""
    needed = math.floor(tested / settings.alpha)  # permutations + 1 > tested / alpha
    draws = "permutations" if settings.test == "randomization" else "resamples"
    return (f"no comparison can be significant: {tested:,} comparisons corrected together "
            f"({CORRECTIONS[settings.correction]}) need a p below alpha / {tested:,} = {settings.alpha / tested:.2g}, "
            f"and the {TESTS_SHORT[settings.test]} with {settings.permutations:,} {draws} gives none below "
            f"1/{settings.permutations + 1:,} = {floor:.2g}: give --permutations {needed:,} or more, --correction bh "
            "(a false discovery rate), --test ttest, or compare fewer runs or measures")


# -- the random streams ------------------------------------------------------------------------
def _stream(seed: int, purpose: int) -> np.random.PCG64:
    return np.random.PCG64(np.random.SeedSequence([seed, purpose]))


def _sign_bits(n: int, permutations: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of 0/1 rows (1: flip the sign): every pattern when 2^n <= permutations, else random."""
    rows_per_chunk = max(1, _CHUNK_CELLS // max(n, 1))
    if n < 63 and (1 << n) <= permutations:
        total = 1 << n
        for start in range(0, total, rows_per_chunk):
            rows = np.arange(start, min(total, start + rows_per_chunk), dtype=np.int64)
            yield ((rows[:, None] >> np.arange(n, dtype=np.int64)[None, :]) & 1).astype(np.uint8)
        return
    bitgen = _stream(seed, _SIGNS)
    words = (n + 63) // 64
    done = 0
    while done < permutations:
        rows = min(rows_per_chunk, permutations - done)
        raw = bitgen.random_raw(rows * words).astype("<u8")
        bits = np.unpackbits(raw.view(np.uint8), bitorder="little").reshape(rows, words * 64)
        yield bits[:, :n]
        done += rows


def _resample_indices(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of rows of n indices drawn with replacement: ((raw >> 32) * n) >> 32 (Lemire)."""
    bitgen = _stream(seed, _RESAMPLES)
    rows_per_chunk = max(1, _CHUNK_CELLS // max(n, 1))
    done = 0
    while done < resamples:
        rows = min(rows_per_chunk, resamples - done)
        raw = bitgen.random_raw(rows * n)
        yield (((raw >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32)).astype(np.int64).reshape(rows, n)
        done += rows


# -- the tests, one comparison at a time (the same code as many at once) ---------------------
def randomization_test(a: Sequence[float], b: Sequence[float], permutations: int = 10_000,
                       seed: int = 0) -> tuple[float, bool]:
    """Two-sided paired sign-flip test; returns (p, exact)."""
    d = _differences(a, b)
    if d.size == 0:
        return math.nan, False
    scaled, _tops = _scaled_rows(d[None, :])
    p, exact = _randomization_many(scaled, permutations, seed)
    return float(p[0]), bool(exact[0])


def bootstrap_test(a: Sequence[float], b: Sequence[float], resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided paired bootstrap p-value of the mean difference (shifted to the null)."""
    d = _differences(a, b)
    if d.size < 2:  # see _test_chunk
        return math.nan
    scaled, _tops = _scaled_rows(d[None, :])
    _sums, hits = _bootstrap_many(scaled, resamples, seed)
    return (int(hits[0]) + 1) / (resamples + 1)


def bootstrap_ci(a: Sequence[float], b: Sequence[float], confidence: float = 0.95, resamples: int = 10_000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the paired bootstrap mean difference."""
    d = _differences(a, b)
    if d.size < 2:  # see _test_chunk
        return math.nan, math.nan
    scaled, tops = _scaled_rows(d[None, :])
    sums, _hits = _bootstrap_many(scaled, resamples, seed)
    low, high = _percentile_cis(d[None, :], tops, sums, confidence)[0]
    return float(low), float(high)


def paired_ttest(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """(t, two-sided p) of Student's paired t-test.

    n < 2: (nan, nan). All differences equal: sd = 0, so t is 0/0 when they are 0 (no evidence of a
    difference: t = 0, p = 1) and +-inf otherwise (p = 0); scipy.stats.ttest_rel gives nan for the first.
    """
    d = _differences(a, b)
    (t,), (p,), _intervals = _ttest_many(d[None, :], 0.95)
    return t, p


def t_interval(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Student's t interval of the mean difference."""
    d = _differences(a, b)
    _t, _p, (interval,) = _ttest_many(d[None, :], confidence)
    return interval


def _differences(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("paired tests need two sequences of the same length")
    return x - y


def paired_comparison(a: Sequence[float], b: Sequence[float], settings: StatsSettings) -> PairedResult:
    """Means, difference, confidence interval, p-value and win/tie/loss of a against b."""
    return paired_comparisons([(a, b)], settings)[0]


# -- many comparisons in one pass ---------------------------------------------------------------
# Sums of scaled differences are integers of at most n * 1e12 in magnitude, and the tests compare
# differences of two such sums: while 2 * n * 1e12 < 2^53 every one of them is exact in float64,
# so the sums are matrix products made by BLAS; with more queries they are made in int64 (exact,
# slower).
_FLOAT_EXACT_QUERIES = int(2 ** 53 // (2 * _SCALE_DIGITS))


def _exact_dtype(n: int) -> type:
    return np.float64 if n <= _FLOAT_EXACT_QUERIES else np.int64


def _column_chunks(k: int, rows: int) -> list[slice]:
    """Slices of k comparisons such that rows x comparisons stays within _CHUNK_CELLS."""
    size = max(1, _CHUNK_CELLS // max(rows, 1))
    return [slice(start, min(k, start + size)) for start in range(0, k, size)]


def _at_most_enumerated(permutations: int) -> int:
    """The most queries that differ whose every sign pattern fits in `permutations`: 2^m <= it."""
    return min(62, permutations.bit_length() - 1)


def _randomization_many(scaled: np.ndarray, permutations: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """p of the sign-flip test for each row of scaled (k x n), and whether it is exact. A row whose
    m differing queries have 2^m <= permutations patterns is enumerated over those m alone (rows
    with the same m in one pass); the others are tested on the one stream of sign patterns that
    every comparison over n queries draws, as randomization_test draws it for one."""
    k, n = scaled.shape
    differing = np.count_nonzero(scaled, axis=1)
    enumerable = differing <= _at_most_enumerated(permutations)
    p = np.empty(k, dtype=np.float64)
    for m in np.unique(differing[enumerable]):
        rows = np.flatnonzero(enumerable & (differing == m))
        # each row's nonzero differences, in query order: dropping the zeros changes no sum
        compact = scaled[rows][scaled[rows] != 0].reshape(rows.size, int(m))
        hits, count = _sign_flip_hits(compact, _sign_bits(int(m), permutations, seed))
        p[rows] = hits / count
    sampled = np.flatnonzero(~enumerable)
    if sampled.size:
        hits, count = _sign_flip_hits(scaled[sampled], _sign_bits(n, permutations, seed))
        p[sampled] = (hits + 1) / (count + 1)
    return p, enumerable


def _sign_flip_hits(scaled: np.ndarray, patterns: Iterator[np.ndarray]) -> tuple[np.ndarray, int]:
    """For each row of scaled (k x n): how many of the sign patterns (blocks of 0/1 rows of n)
    give a |sum| that reaches the observed |sum|; and how many patterns there were."""
    k, n = scaled.shape
    kind = _exact_dtype(n)
    values = scaled.astype(kind)
    totals = values.sum(axis=1)
    observed = np.abs(totals)
    hits = np.zeros(k, dtype=np.int64)
    count = 0
    for bits in patterns:
        bits = bits.astype(kind)
        for cols in _column_chunks(k, bits.shape[0]):
            # flipping the queries with bit 1 turns the sum into total - 2 * (sum of the flipped)
            flipped = bits @ values[cols].T
            hits[cols] += np.count_nonzero(np.abs(totals[cols] - 2 * flipped) >= observed[cols], axis=0)
        count += bits.shape[0]
    return hits, count


def _resample_counts(n: int, resamples: int, seed: int, kind: type) -> Iterator[np.ndarray]:
    """The resamples of _resample_indices as rows of counts: how often each query was drawn."""
    for idx in _resample_indices(n, resamples, seed):
        rows = idx.shape[0]
        flat = (np.arange(rows, dtype=np.int64)[:, None] * n + idx).ravel()
        yield np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(kind)


def _bootstrap_many(scaled: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """For each row of scaled (k x n): the resampled sums (resamples x k, exact) and how many
    reach |sum| after centring, as _bootstrap computes them for one row."""
    k, n = scaled.shape
    kind = _exact_dtype(n)
    values = scaled.astype(kind)
    totals = values.sum(axis=1)
    sums = np.empty((resamples, k), dtype=kind)
    at = 0
    for counts in _resample_counts(n, resamples, seed, kind):
        sums[at:at + counts.shape[0]] = counts @ values.T
        at += counts.shape[0]
    # centred at 0: |mean* - mean| >= |mean|  <=>  |sum* - sum| >= |sum|
    hits = np.count_nonzero(np.abs(sums - totals) >= np.abs(totals), axis=0)
    return sums, hits


def _percentile_cis(d: np.ndarray, tops: np.ndarray, sums: np.ndarray, confidence: float) -> np.ndarray:
    """_percentile_ci of each comparison (rows of d, columns of sums) at once: (k x 2)."""
    means = sums.astype(np.float64) * (tops / _SCALE_DIGITS) / d.shape[1]
    tail = (1.0 - confidence) / 2 * 100
    return np.percentile(means, [tail, 100 - tail], axis=0).T


def _ttest_many(d: np.ndarray, confidence: float) -> tuple[list[float], list[float], list[tuple[float, float]]]:
    """paired_ttest and t_interval of each row of d (k x n): t, p and the interval."""
    k, n = d.shape
    if n < 2:
        return [math.nan] * k, [math.nan] * k, [(math.nan, math.nan)] * k
    from scipy import stats as scipy_stats  # imported only by the commands that test

    means = d.mean(axis=1)
    sds = d.std(axis=1, ddof=1)
    spread = np.where(sds == 0.0, 1.0, sds)  # rows with sd 0 are decided below, without dividing
    t = means / (spread / math.sqrt(n))
    p = np.minimum(1.0, 2.0 * scipy_stats.t.sf(np.abs(t), n - 1))
    t = np.where(sds == 0.0, np.where(means == 0.0, 0.0, np.copysign(np.inf, means)), t)
    p = np.where(sds == 0.0, np.where(means == 0.0, 1.0, 0.0), p)
    half = float(scipy_stats.t.ppf(1.0 - (1.0 - confidence) / 2, n - 1)) * sds / math.sqrt(n)
    return ([float(x) for x in t], [float(x) for x in p],
            [(float(m - h), float(m + h)) for m, h in zip(means, half)])


def _scaled_rows(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of differences d (k x n) as int64 at 1e-12 of its largest magnitude (at least 1,
    its top): exact sums, exact ties. Returns the scaled rows and each row's top."""
    tops = np.maximum(1.0, np.max(np.abs(d), axis=1))
    return np.rint(d * (_SCALE_DIGITS / tops)[:, None]).astype(np.int64), tops


def paired_comparisons(pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
                       settings: StatsSettings) -> list[PairedResult]:
    """paired_comparison of every (a, b), with the same numbers: comparisons over the same number
    of queries see the same sign patterns and resamples, so each group is tested in one NumPy
    pass (matrix products over all its comparisons) instead of one loop per comparison."""
    results: list[PairedResult | None] = [None] * len(pairs)
    groups: dict[int, list[int]] = {}
    tested = 0
    nan = math.nan
    for i, (a, b) in enumerate(pairs):
        d = _differences(a, b)
        if not np.isfinite(d).all() or not np.isfinite(np.asarray(a, dtype=np.float64)).all():
            # a NaN or infinite value (0/0 of a measure, as trec_eval's under -J) has no order: every
            # sign comparison with it is false, so it counted as a loss of every query and the test
            # called it significant. Such a pair is not tested (p nan), as one without queries.
            results[i] = PairedResult(d.size, nan, nan, nan, nan, nan, nan, nan, 0, 0, 0)
            continue
        groups.setdefault(d.size, []).append(i)
    for n, members in groups.items():
        if n == 0:
            for i in members:
                results[i] = PairedResult(0, nan, nan, nan, nan, nan, nan, nan, 0, 0, 0)
            continue
        a_rows = np.array([np.asarray(pairs[i][0], dtype=np.float64) for i in members])
        b_rows = np.array([np.asarray(pairs[i][1], dtype=np.float64) for i in members])
        d = a_rows - b_rows
        scaled, tops = _scaled_rows(d)
        wins = np.count_nonzero(scaled > 0, axis=1)
        losses = np.count_nonzero(scaled < 0, axis=1)
        chunks = _column_chunks(len(members), settings.permutations if settings.test != "ttest" else 1)
        for chunk in chunks:
            _test_chunk(members[chunk], a_rows[chunk], b_rows[chunk], d[chunk], scaled[chunk], tops[chunk],
                        wins[chunk], losses[chunk], settings, results)
            tested += chunk.stop - chunk.start
            if len(pairs) >= PROGRESS_FROM:  # thousands of comparisons: a wait worth saying as it goes
                progress.step("comparisons tested", tested, len(pairs))
    return results  # type: ignore[return-value]


def _test_chunk(members, a_rows, b_rows, d, scaled, tops, wins, losses, settings, results) -> None:
    n = d.shape[1]
    exact_rows = None
    if settings.test == "ttest":
        statistics, p_values, intervals = _ttest_many(d, settings.confidence)
    else:
        statistics = [float(row.mean()) for row in d]
        sums, boot_hits = _bootstrap_many(scaled, settings.permutations, settings.seed)
        intervals = [(float(low), float(high)) for low, high in _percentile_cis(d, tops, sums, settings.confidence)]
        if settings.test == "bootstrap":
            p_values = list((boot_hits + 1) / (settings.permutations + 1))
        else:
            p_many, exact_rows = _randomization_many(scaled, settings.permutations, settings.seed)
            p_values = list(p_many)
        if n < 2:
            # every resample of one query is that query: the interval is the one difference, width
            # 0, and no resample is as far from it as it is from 0, so the bootstrap's p was
            # 1/(resamples + 1) for any difference, however small: "significant" on one query (the
            # t-test, over n - 1 = 0 degrees of freedom, is not computed either). The sign-flip
            # test's exact p over one query, 1, stands.
            intervals = [(math.nan, math.nan)] * len(intervals)
            if settings.test == "bootstrap":
                p_values = [math.nan] * len(p_values)
    for j, i in enumerate(members):
        low, high = intervals[j]
        results[i] = PairedResult(n, float(np.mean(a_rows[j])), float(np.mean(b_rows[j])), float(d[j].mean()),
                                  low, high, float(statistics[j]), float(p_values[j]), int(wins[j]),
                                  n - int(wins[j]) - int(losses[j]), int(losses[j]),
                                  bool(exact_rows[j]) if exact_rows is not None else False)


# -- multiple testing --------------------------------------------------------------------------
def correct(p_values: Sequence[float], method: str = "holm") -> list[float]:
    """Adjusted p-values over one family of tests (nan entries are not tests and stay nan).

    bonferroni: min(1, m p). holm: sort ascending, p_(i) times (m - i + 1), made monotone by a
    running maximum, capped at 1 (Holm 1979); the comparison is significant when adjusted p < alpha,
    which is the same decision as Holm's step-down procedure. bh: Benjamini-Hochberg, p_(i) times
    m / i made monotone from the largest down (scipy.stats.false_discovery_control): it bounds the
    expected share of false discoveries instead of the chance of any, so on a board of hundreds of
    runs it still finds the real differences that Holm, over thousands of tests, leaves unmarked.
    """
    if method not in CORRECTIONS:
        raise UsageError(f"correction takes {', '.join(CORRECTIONS)}, not {method!r}")
    tested = [(p, i) for i, p in enumerate(p_values) if not math.isnan(p)]
    adjusted = [math.nan] * len(p_values)
    m = len(tested)
    if method == "none":
        for p, i in tested:
            adjusted[i] = p
    elif method == "bonferroni":
        for p, i in tested:
            adjusted[i] = min(1.0, p * m)
    elif method == "bh":
        running = 1.0
        for rank, (p, i) in reversed(list(enumerate(sorted(tested), start=1))):
            running = min(running, p * m / rank)
            adjusted[i] = running
    else:
        running = 0.0
        for rank, (p, i) in enumerate(sorted(tested)):
            running = max(running, min(1.0, (m - rank) * p))
            adjusted[i] = running
    return adjusted


@dataclass
class Family:
    """The comparisons one report makes, corrected together."""

    settings: StatsSettings
    results: list[PairedResult] = field(default_factory=list)
    adjusted: list[float] = field(default_factory=list)

    def add(self, a: Sequence[float], b: Sequence[float]) -> int:
        self.results.append(paired_comparison(a, b, self.settings))
        return len(self.results) - 1

    def finish(self) -> None:
        self.adjusted = correct([r.p_value for r in self.results], self.settings.correction)

    @property
    def tested(self) -> int:
        return sum(1 for r in self.results if not math.isnan(r.p_value))

    def significant(self, index: int) -> bool:
        p = self.adjusted[index]
        return not math.isnan(p) and p < self.settings.alpha
