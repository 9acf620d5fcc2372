"""Statistics of repeated timings: a distribution-free CI of the median and the stopping rule.

Pure functions of numbers (numpy only), so the trusted parent computes them from the raw samples.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def binomial_half_cdf(n: int) -> np.ndarray:
    """P(B <= i) for B ~ Binomial(n, 1/2), i = 0..n, computed in log space (no underflow)."""
    if n < 0:
        raise ValueError("n must be >= 0")
    i = np.arange(n + 1)
    lgam = np.vectorize(math.lgamma, otypes=[float])
    logpmf = lgam(n + 1.0) - lgam(i + 1.0) - lgam(n - i + 1.0) - n * math.log(2.0)
    return np.minimum(np.exp(np.logaddexp.accumulate(logpmf)), 1.0)


@dataclass(frozen=True)
class MedianCI:
    """The sample median and a distribution-free confidence interval for the true median."""

    median: float
    low: float | None          # None: too few samples for any interval at this confidence
    high: float | None
    confidence: float          # requested level
    coverage: float | None     # exact coverage of the order statistics used (>= confidence)
    ranks: tuple[int, int] | None   # 1-based order statistics (l, u)
    n: int

    @property
    def rel_halfwidth(self) -> float:
        """Largest distance from the median to an end of the interval, relative to the median."""
        if self.low is None or self.high is None or not self.median > 0:
            return math.inf
        return max(self.median - self.low, self.high - self.median) / self.median


def median_ci(samples, confidence: float = 0.95) -> MedianCI:
    """Median of `samples` with the interval [x_(k), x_(n-k+1)] of order statistics.

    P(x_(k) <= true median < x_(n-k+1)) = 1 - 2 P(B <= k-1) for B ~ Bin(n, 1/2) whatever the
    distribution (continuous), so k is the largest rank whose tail stays within (1-confidence)/2.
    """
    x = np.sort(np.asarray(samples, dtype=float).ravel())
    n = int(x.size)
    if n == 0:
        raise ValueError("no samples")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie in (0, 1)")
    med = float(np.median(x))
    alpha = 1.0 - confidence
    cdf = binomial_half_cdf(n)
    # k-1 ranges over ranks with P(B <= k-1) <= alpha/2; k <= n/2 keeps the interval ordered.
    ok = np.flatnonzero(cdf[: (n + 1) // 2] <= alpha / 2.0 + 1e-15)
    if ok.size == 0:
        return MedianCI(med, None, None, confidence, None, None, n)
    k = int(ok[-1]) + 1
    coverage = float(1.0 - 2.0 * cdf[k - 1])
    return MedianCI(med, float(x[k - 1]), float(x[n - k]), confidence, coverage, (k, n - k + 1), n)


@dataclass(frozen=True)
class StopRule:
    """When to stop repeating: the CI of the median is tight enough, or the budget is spent."""

    min_repeats: int = 10
    max_repeats: int = 1000
    max_seconds: float = 20.0
    rel_halfwidth: float = 0.01
    confidence: float = 0.95
    min_timed_s: float = 0.0   # wall time of the timed calls before convergence counts

    def decide(self, samples, elapsed_s: float, timed_s: float | None = None
               ) -> tuple[bool, str, MedianCI | None]:
        """(stop, reason, ci); reason is converged | max_repeats | max_seconds | '' (go on)."""
        n = len(samples)
        ci = median_ci(samples, self.confidence) if n else None
        enough = timed_s is None or timed_s >= self.min_timed_s
        if n >= self.min_repeats and enough and ci is not None and ci.rel_halfwidth <= self.rel_halfwidth:
            return True, "converged", ci
        if n >= self.max_repeats:
            return True, "max_repeats", ci
        if elapsed_s >= self.max_seconds and n > 0:
            return True, "max_seconds", ci
        return False, "", ci

    def next_batch(self, done: int, per_repeat_s: float, elapsed_s: float, *,
                   target_batch_s: float = 0.1, max_batch_s: float = 10.0) -> int:
        """Repeats in the next batch: long enough that a batch's wall time is well above timer
        noise, never past max_repeats, and fitting the time left (at least one repeat)."""
        per = max(float(per_repeat_s), 1e-7)
        size = max(self.min_repeats - done, math.ceil(target_batch_s / per), 1)
        size = min(size, self.max_repeats - done, max(1, int(max_batch_s / per)))
        left = self.max_seconds - elapsed_s
        if left > 0:
            size = min(size, max(1, int(left / per)))
        return max(1, size)
