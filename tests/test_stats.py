"""warehouse.evaluation.stats against scipy.stats (ttest_rel, permutation_test, bootstrap) and hand-worked cases."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as scipy_stats  # a declared test dependency (pyproject [test]): never skipped

from warehouse.evaluation import stats
from warehouse.errors import UsageError
from warehouse.evaluation.stats import StatsSettings


def paired(n: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-query scores in [0, 1] of a baseline and a run that is `shift` better on average."""
    rng = np.random.default_rng(seed)
    b = rng.random(n)
    a = np.clip(b + shift + rng.normal(0, 0.15, n), 0, 1)
    return a, b


def scipy_permutation(a, b, n_resamples: int, seed: int = 1):
    return scipy_stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True, permutation_type="samples",
        n_resamples=n_resamples, alternative="two-sided", rng=np.random.default_rng(seed))


def monte_carlo_tolerance(p: float, resamples: int) -> float:
    """Five standard errors of a Monte Carlo p-value estimate, plus the +1 corrections."""
    return 5 * math.sqrt(max(p * (1 - p), 1e-4) / resamples) + 3 / resamples


# -- randomization ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n,seed", [(2, 0), (3, 1), (6, 2), (9, 3), (12, 4), (13, 5)])
def test_randomization_enumerates_every_sign_pattern_and_matches_scipy_exactly(n, seed):
    a, b = paired(n, 0.05, seed)
    p, exact = stats.randomization_test(a, b, permutations=10_000)
    assert exact  # 2^13 = 8192 <= 10,000: scipy enumerates too
    expected = scipy_permutation(a, b, 10_000).pvalue
    assert p == pytest.approx(expected, abs=1e-12)


def exact_sign_flip_p(d: list[Fraction]) -> Fraction:
    """The oracle: every sign pattern, in exact rational arithmetic."""
    observed = abs(sum(d))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(d))
               if abs(sum(s * x for s, x in zip(signs, d))) >= observed)
    return Fraction(hits, 2 ** len(d))


def test_randomization_counts_resamples_that_tie_the_observed_statistic():
    # P@10 differences are multiples of 0.1: many sign patterns tie |observed| exactly, and 0.1 + 0.2
    # is not 0.3 in binary floating point; ties must count all the same
    a = [0.3, 0.5, 0.1, 0.7, 0.2, 0.4, 0.6, 0.3, 0.5, 0.1, 0.2]
    b = [0.1, 0.3, 0.1, 0.4, 0.4, 0.1, 0.5, 0.3, 0.2, 0.2, 0.1]
    d = [Fraction(round(x * 10)) / 10 - Fraction(round(y * 10)) / 10 for x, y in zip(a, b)]
    p, exact = stats.randomization_test(a, b)
    assert exact
    assert p == pytest.approx(float(exact_sign_flip_p(d)), abs=1e-12)
    assert p == pytest.approx(scipy_permutation(np.array(a), np.array(b), 10_000).pvalue, abs=1e-12)


def test_randomization_monte_carlo_agrees_with_scipy_within_sampling_error():
    a, b = paired(50, 0.04, seed=11)
    p, exact = stats.randomization_test(a, b, permutations=10_000, seed=0)
    assert not exact
    reference = scipy_permutation(a, b, 100_000).pvalue
    assert 0.001 < reference < 0.2  # a case where the p-value is neither trivial nor 1
    assert abs(p - reference) <= monte_carlo_tolerance(reference, 10_000)


def test_randomization_is_reproducible_by_seed_and_bounded_below_by_one_over_n_plus_one():
    a, b = paired(60, 0.04, seed=12)
    first = stats.randomization_test(a, b, 5_000, seed=3)
    assert stats.randomization_test(a, b, 5_000, seed=3) == first
    other = stats.randomization_test(a, b, 5_000, seed=4)[0]
    assert other != first[0] and abs(other - first[0]) <= monte_carlo_tolerance(first[0], 5_000) * 2
    huge, _ = stats.randomization_test(np.ones(60), np.zeros(60), 999, seed=0)
    assert huge == pytest.approx(1 / 1000)  # the observed arrangement always counts


def test_randomization_of_identical_runs_is_one_and_of_no_queries_is_nan():
    x = [0.2, 0.5, 0.9]
    assert stats.randomization_test(x, x) == (1.0, True)
    assert stats.randomization_test([0.7], [0.2]) == (1.0, True)  # one query: both signs reach |d|
    p, _ = stats.randomization_test([], [])
    assert math.isnan(p)


# -- t-test ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,shift,seed", [(2, 0.1, 0), (5, 0.0, 1), (30, 0.03, 2), (50, -0.2, 3), (700, 0.01, 4)])
def test_paired_ttest_matches_scipy_ttest_rel(n, shift, seed):
    a, b = paired(n, shift, seed)
    t, p = stats.paired_ttest(a, b)
    reference = scipy_stats.ttest_rel(a, b)
    assert t == pytest.approx(reference.statistic, rel=1e-10)
    assert p == pytest.approx(reference.pvalue, rel=1e-8, abs=1e-300)
    low, high = stats.t_interval(a, b, 0.95)
    ci = reference.confidence_interval(confidence_level=0.95)
    assert (low, high) == (pytest.approx(ci.low, rel=1e-9), pytest.approx(ci.high, rel=1e-9))


def test_benjamini_hochberg_matches_scipy():
    rng = np.random.default_rng(7)
    for m in (1, 2, 5, 40, 300):
        p = list(rng.uniform(0, 0.2, m) ** 2)
        assert stats.correct(p, "bh") == pytest.approx(list(scipy_stats.false_discovery_control(p)), rel=1e-12)
    assert stats.correct([0.01, math.nan, 0.04, 0.03], "bh") == pytest.approx([0.03, math.nan, 0.04, 0.04],
                                                                            nan_ok=True)


def test_ttest_degenerate_cases_are_stated_not_crashed():
    assert all(math.isnan(v) for v in stats.paired_ttest([0.5], [0.2]))      # one query: no variance
    assert stats.paired_ttest([0.5, 0.4], [0.5, 0.4]) == (0.0, 1.0)          # identical runs
    t, p = stats.paired_ttest([0.6, 0.5], [0.5, 0.4])                        # the same gain everywhere
    assert (t, p) == (math.inf, 0.0)


# -- bootstrap ---------------------------------------------------------------------------------------
def test_bootstrap_percentile_interval_agrees_with_scipy_bootstrap():
    a, b = paired(50, 0.03, seed=21)
    low, high = stats.bootstrap_ci(a, b, 0.95, resamples=20_000, seed=0)
    reference = scipy_stats.bootstrap((a - b,), np.mean, method="percentile", n_resamples=20_000,
                                      confidence_level=0.95, rng=np.random.default_rng(5)).confidence_interval
    # two independent Monte Carlo estimates of a 2.5% / 97.5% quantile: each is off by about
    # 0.02 standard errors of the mean at 20,000 resamples; allow five times their difference's
    se = float(np.std(a - b, ddof=1) / math.sqrt(50))
    assert abs(low - reference.low) < 0.15 * se
    assert abs(high - reference.high) < 0.15 * se
    assert low < float(np.mean(a - b)) < high


def test_bootstrap_p_value_is_the_share_of_centred_resamples_beyond_the_observed_mean():
    a, b = paired(40, 0.03, seed=22)
    d = a - b
    p = stats.bootstrap_test(a, b, resamples=20_000, seed=0)
    # scipy's bootstrap distribution of the mean of the differences shifted to mean 0 is the null
    null = scipy_stats.bootstrap((d - d.mean(),), np.mean, method="percentile", n_resamples=50_000,
                                 rng=np.random.default_rng(6)).bootstrap_distribution
    reference = float(np.mean(np.abs(null) >= abs(d.mean())))
    assert 0.001 < reference < 0.3
    assert abs(p - reference) <= monte_carlo_tolerance(reference, 20_000)


def test_one_query_is_not_tested_by_the_bootstrap_nor_given_an_interval():
    """Every resample of one query is that query, so the bootstrap's p was 1/(resamples + 1) for any
    difference: irw compare --test bootstrap called a run "significant" on one query, and the
    leaderboard marked every run against a one-query baseline. Now the bootstrap leaves one query
    untested, as the t-test does; the sign-flip test's exact p, 1, stands; no test gives an interval
    of one difference (its width was 0)."""
    assert math.isnan(stats.bootstrap_test([0.7455], [0.1902]))
    assert all(math.isnan(v) for v in stats.bootstrap_ci([0.7455], [0.1902]))
    for test in ("bootstrap", "randomization", "ttest"):
        (result,) = stats.paired_comparisons([([0.7455], [0.1902])], StatsSettings(test=test))
        assert math.isnan(result.ci_low) and math.isnan(result.ci_high), test
        assert (result.p_value == 1.0) if test == "randomization" else math.isnan(result.p_value), (test, result.p_value)
        assert (result.n, result.wins) == (1, 1)
    # two queries and more are tested as before
    (two,) = stats.paired_comparisons([([0.7455, 0.4570], [0.1902, 0.0018])], StatsSettings(test="bootstrap"))
    assert not math.isnan(two.p_value) and two.ci_low < two.ci_high


# -- one comparison --------------------------------------------------------------------------------
def test_paired_comparison_reports_means_difference_interval_and_wins_ties_losses():
    a = [0.5, 0.4, 0.3, 0.9, 0.2, 0.25]
    b = [0.4, 0.4, 0.5, 0.1, 0.2, 0.05]
    result = stats.paired_comparison(a, b, StatsSettings(test="ttest"))
    assert (result.n, result.wins, result.ties, result.losses) == (6, 3, 2, 1)
    assert result.mean_a == pytest.approx(np.mean(a)) and result.mean_b == pytest.approx(np.mean(b))
    assert result.diff == pytest.approx(np.mean(np.subtract(a, b)))
    reference = scipy_stats.ttest_rel(a, b)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-10)
    assert (result.ci_low, result.ci_high) == (pytest.approx(reference.confidence_interval().low, rel=1e-9),
                                               pytest.approx(reference.confidence_interval().high, rel=1e-9))
    for test in ("randomization", "bootstrap"):
        other = stats.paired_comparison(a, b, StatsSettings(test=test))
        assert other.ci_low < other.diff < other.ci_high
        assert 0 < other.p_value <= 1
    empty = stats.paired_comparison([], [], StatsSettings())
    assert empty.n == 0 and math.isnan(empty.p_value)


def test_settings_refuse_what_cannot_be_tested():
    for bad in (dict(test="wilcoxon"), dict(correction="fdr"), dict(alpha=0), dict(alpha=1.5),
                dict(permutations=0), dict(seed=-1)):
        with pytest.raises(UsageError):
            StatsSettings(**bad)


def test_too_few_permutations_for_alpha_are_refused_saying_how_many():
    """--permutations 10 was taken: p counts the observed arrangement, so none is below 1/11, and
    at alpha 0.05 no pair could be significant, with nothing said."""
    for test in ("randomization", "bootstrap"):
        with pytest.raises(UsageError) as refused:
            StatsSettings(test=test, permutations=10)
        assert str(refused.value) == ("permutations 10 gives no p below 1/11 = 0.09091, above alpha 0.05, so no pair "
                                      "could be significant (a p equal to alpha is not): give at least 20 (the "
                                      "default is 10,000)")
        # 1/20 = alpha, which is not below it (a walk: 19 was taken, and REP_LLAMA, better than BM25
        # on 35 of 43 queries, had p 0.05, not significant)
        with pytest.raises(UsageError) as refused:
            StatsSettings(test=test, permutations=19)
        assert str(refused.value).startswith("permutations 19 gives no p below 1/20 = 0.05, alpha 0.05, so no pair")
        assert StatsSettings(test=test, permutations=20).permutations == 20  # 1/21 < alpha: can be significant
        assert StatsSettings(test=test, permutations=9, alpha=0.1000001).permutations == 9
    assert StatsSettings(test="ttest", permutations=10).permutations == 10  # no resampling in the t-test's p
    assert StatsSettings(permutations=10, alpha=0.1).alpha == 0.1


# -- multiple testing ------------------------------------------------------------------------------
def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> running max 0.06
    assert stats.correct(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.correct(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert stats.correct(p, "none") == p
    with_nan = stats.correct([0.02, math.nan, 0.5], "holm")
    assert with_nan[0] == pytest.approx(0.04) and math.isnan(with_nan[1]) and with_nan[2] == pytest.approx(0.5)
    assert stats.correct([0.6, 0.9], "bonferroni") == [1.0, 1.0]


def holm_step_down(p: list[float], alpha: float) -> list[bool]:
    """Holm's procedure as published: reject in ascending order while p_(k) <= alpha / (m - k + 1)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = [False] * len(p)
    for k, i in enumerate(order):
        if p[i] > alpha / (len(p) - k):
            break
        rejected[i] = True
    return rejected


def test_holm_adjusted_p_values_decide_as_holms_step_down_procedure():
    rng = np.random.default_rng(9)
    for _ in range(200):
        p = list(rng.beta(0.3, 3, size=int(rng.integers(1, 12))))
        adjusted = stats.correct(p, "holm")
        assert [a <= 0.05 for a in adjusted] == holm_step_down(p, 0.05)


def test_a_family_corrects_all_its_comparisons_together():
    family = stats.Family(StatsSettings(test="ttest", correction="bonferroni"))
    pairs = [paired(30, shift, seed) for shift, seed in ((0.08, 1), (0.0, 2), (0.03, 3))]
    for a, b in pairs:
        family.add(a, b)
    family.finish()
    raw = [scipy_stats.ttest_rel(a, b).pvalue for a, b in pairs]
    assert family.adjusted == pytest.approx([min(1.0, 3 * p) for p in raw], rel=1e-8)
    assert [family.significant(i) for i in range(3)] == [min(1.0, 3 * p) < 0.05 for p in raw]


def test_a_value_that_is_not_finite_is_never_tested():
    """A measure's 0/0 per query (NaN; a user measure's 1/0 is inf) has no order: every comparison
    with it was false, so each query counted as a loss and the randomization test called the
    difference significant (p 1e-4 over 43 queries). Such a pair is not tested."""
    from warehouse.evaluation.stats import StatsSettings, paired_comparisons

    finite = [0.1 * q for q in range(20)]
    for bad in (math.nan, math.inf):
        for test in ("randomization", "ttest", "bootstrap"):
            (result, clean) = paired_comparisons([([bad] * 20, finite), ([x + 0.5 for x in finite], finite)],
                                                 StatsSettings(test=test))
            assert math.isnan(result.p_value) and (result.wins, result.ties, result.losses) == (0, 0, 0)
            assert result.n == 20 and clean.p_value < 0.05  # the other pair of the same call is tested


# -- queries that do not differ ---------------------------------------------------------------------
def test_randomization_is_exact_over_the_queries_that_differ_however_many_are_tied():
    """Two versions of a system that differ on 9 of DL19's 43 queries: a tied query's sign moves no
    sum, so the 2^43 patterns are the 2^9 of the queries that differ, each 2^34 times, and p is
    exact (once it was estimated from 10,000 random flips of all 43, moved by the seed)."""
    rng = np.random.default_rng(21)
    b = rng.random(43)
    a = b.copy()
    changed = rng.choice(43, 9, replace=False)
    a[changed] = np.clip(a[changed] + rng.normal(0.04, 0.1, 9), 0, 1)
    d = [Fraction(x) - Fraction(y) for x, y in zip(a[changed], b[changed])]
    p, exact = stats.randomization_test(a, b, permutations=10_000, seed=0)
    assert exact
    assert p == pytest.approx(float(exact_sign_flip_p(d)), abs=1e-12)
    assert stats.randomization_test(a, b, permutations=10_000, seed=7) == (p, True)  # no seed moves it
    assert p == pytest.approx(scipy_permutation(a[changed], b[changed], 10_000).pvalue, abs=1e-12)
    result = stats.paired_comparison(a, b, StatsSettings())
    assert (result.p_value, result.exact, result.ties) == (p, True, 34)


def test_randomization_estimates_when_the_queries_that_differ_have_more_patterns_than_permutations():
    a, b = paired(43, 0.03, seed=22)
    a[:31] = b[:31]  # 12 differ: 2^12 > 1,000
    p, exact = stats.randomization_test(a, b, permutations=1_000, seed=0)
    assert not exact
    reference = scipy_permutation(a[31:], b[31:], 100_000).pvalue  # scipy enumerates the 2^12
    assert abs(p - reference) <= monte_carlo_tolerance(reference, 1_000)
    assert stats.randomization_test(a, b, permutations=4_096, seed=0) == (pytest.approx(reference, abs=1e-12), True)


def test_identical_runs_over_many_queries_are_one_exactly():
    assert stats.randomization_test([0.4] * 200, [0.4] * 200) == (1.0, True)


def test_the_settings_say_when_every_pattern_is_enumerated():
    assert "every pattern when the queries that differ are at most 13" in StatsSettings().describe_test()
    assert "at most 9" in StatsSettings(permutations=1_000).describe_test()
    assert "at most 0" in StatsSettings(permutations=1, alpha=0.6).describe_test()
