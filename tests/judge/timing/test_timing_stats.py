"""The pure statistics: binomial CI of the median and the adaptive stopping rule."""
from __future__ import annotations

import math

import numpy as np
import pytest

from assessments.judge.kinds.cupy.timing.stats import MedianCI, StopRule, binomial_half_cdf, median_ci


def test_binomial_cdf_matches_exact_counts():
    for n in (1, 2, 7, 10, 31):
        exact = np.cumsum([math.comb(n, i) for i in range(n + 1)]) / 2 ** n
        assert np.allclose(binomial_half_cdf(n), exact, rtol=1e-12, atol=0)


def test_binomial_cdf_matches_scipy_for_large_n():
    stats = pytest.importorskip("scipy.stats")
    for n in (100, 999, 5000):
        i = np.arange(n + 1)
        assert np.allclose(binomial_half_cdf(n), stats.binom.cdf(i, n, 0.5), rtol=1e-9, atol=1e-300)


def test_ten_samples_use_second_and_ninth_order_statistics():
    ci = median_ci([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])
    assert ci.median == 5.5 and (ci.low, ci.high) == (2.0, 9.0) and ci.ranks == (2, 9)
    assert ci.coverage == pytest.approx(1 - 2 * 11 / 1024)


def test_too_few_samples_have_no_interval():
    ci = median_ci([1.0, 2.0, 3.0, 4.0, 5.0])        # 2 * 2**-5 > 0.05
    assert ci.low is None and ci.high is None and ci.rel_halfwidth == math.inf
    assert median_ci([1.0] * 6).ranks == (1, 6)        # 2 * 2**-6 <= 0.05


@pytest.mark.parametrize("n", [10, 11, 50, 101, 400])
def test_coverage_is_the_tightest_at_or_above_the_level(n):
    ci = median_ci(np.arange(n, dtype=float))
    k = ci.ranks[0]
    cdf = binomial_half_cdf(n)
    assert ci.coverage >= 0.95 and 1 - 2 * cdf[k] < 0.95   # one rank further in would undercover
    assert ci.ranks[1] == n - k + 1


def test_interval_covers_the_true_median_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    trials, hits = 2000, 0
    for _ in range(trials):
        x = rng.lognormal(0.0, 0.5, 30)    # skewed, true median 1.0
        ci = median_ci(x)
        hits += ci.low <= 1.0 <= ci.high
    assert 0.94 <= hits / trials <= 0.995


def test_rel_halfwidth_is_the_larger_side():
    ci = MedianCI(100.0, 98.0, 100.5, 0.95, 0.96, (1, 2), 10)
    assert ci.rel_halfwidth == pytest.approx(0.02)


def test_bad_arguments():
    with pytest.raises(ValueError):
        median_ci([])
    with pytest.raises(ValueError):
        median_ci([1.0], confidence=1.0)


def test_rule_needs_ten_repeats_even_when_tight():
    rule = StopRule()
    assert rule.decide([1.0] * 9, 0.1)[0] is False
    stop, reason, ci = rule.decide([1.0] * 10, 0.1)
    assert stop and reason == "converged" and ci.median == 1.0


def test_rule_goes_on_while_the_interval_is_wide():
    rng = np.random.default_rng(1)
    noisy = list(1.0 + 0.2 * rng.standard_normal(40))
    stop, reason, ci = StopRule().decide(noisy, 1.0)
    assert not stop and reason == "" and ci.rel_halfwidth > 0.01


def test_rule_stops_at_the_bounds():
    rng = np.random.default_rng(2)
    noisy = list(1.0 + 0.3 * rng.standard_normal(50))
    assert StopRule(max_repeats=50).decide(noisy, 0.0)[1] == "max_repeats"
    assert StopRule(max_seconds=5.0).decide(noisy, 5.0)[1] == "max_seconds"


def test_tight_samples_converge_with_enough_repeats():
    rng = np.random.default_rng(3)
    samples = list(1.0 + 0.01 * rng.standard_normal(200))   # 1% spread
    stop, reason, ci = StopRule().decide(samples, 1.0)
    assert stop and reason == "converged" and ci.rel_halfwidth <= 0.01


def test_batch_sizing():
    rule = StopRule(min_repeats=10, max_repeats=1000, max_seconds=20.0)
    assert rule.next_batch(0, per_repeat_s=1.0, elapsed_s=0.0) == 10          # slow: the minimum
    assert rule.next_batch(0, per_repeat_s=1e-4, elapsed_s=0.0) == 1000       # 0.1 s of fast repeats
    assert rule.next_batch(995, per_repeat_s=1e-4, elapsed_s=0.0) == 5        # never past max_repeats
    assert rule.next_batch(0, per_repeat_s=2.0, elapsed_s=0.0, max_batch_s=10.0) == 5
    assert rule.next_batch(3, per_repeat_s=1.0, elapsed_s=17.5) == 2          # what the budget holds
    assert rule.next_batch(3, per_repeat_s=1.0, elapsed_s=25.0) == 7          # past it: still one batch


def test_convergence_waits_for_enough_timed_wall_but_not_past_the_bounds():
    rule = StopRule(min_timed_s=0.3, max_repeats=40, max_seconds=10.0)
    tight = [1.0] * 20
    assert rule.decide(tight, 1.0, timed_s=0.1)[:2] == (False, "")
    assert rule.decide(tight, 1.0, timed_s=0.3)[:2] == (True, "converged")
    assert rule.decide([1.0] * 40, 1.0, timed_s=0.1)[:2] == (True, "max_repeats")
    assert rule.decide(tight, 10.0, timed_s=0.1)[:2] == (True, "max_seconds")
