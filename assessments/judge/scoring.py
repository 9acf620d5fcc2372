"""Score from verdict and speed: pure functions, no I/O. The roofline fraction comes from the
timing (timing/roofline.py); whether a backend is timed at all is the backend's (backends/base.py).
A testbench's fraction is the share of mutants it caught (`caught_fraction`)."""
from __future__ import annotations

from dataclasses import dataclass

from .verdicts import Verdict

CORRECTNESS_POINTS = 60.0
PERFORMANCE_POINTS = 40.0
MAX_POINTS = CORRECTNESS_POINTS + PERFORMANCE_POINTS


@dataclass(frozen=True)
class Score:
    """Points and how they were earned."""

    total: float
    correctness: float
    performance: float | None   # None where nothing was timed (cpu backend)
    max: float
    withheld: bool = False      # the timing is flagged for review: no performance points until then

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def performance_points(fraction: float) -> float:
    """Linear in the fraction of the roofline reached: 40 points at the roofline."""
    return round(PERFORMANCE_POINTS * max(0.0, min(1.0, fraction)), 2)


def caught_fraction(mutants: list[dict]) -> float:
    """A testbench's performance: the share of the mutants it ran against that it caught."""
    return sum(1 for m in mutants if m.get("caught")) / len(mutants) if mutants else 0.0


# A function within 10% of the reference's time earns every performance point: two timings of
# the same code in two processes differ by a few percent on a busy machine.
TIME_SLACK = 1.1


def time_fraction(seconds: float, reference_seconds: float) -> float:
    """A function task's speed: min(1, TIME_SLACK x the reference's seconds / the submission's)."""
    return 1.0 if seconds <= 0 else max(0.0, min(1.0, TIME_SLACK * reference_seconds / seconds))


def score(verdict: Verdict | str, timed: bool, roofline_fraction: float | None = None, *,
          eligible: bool = True) -> Score:
    """0 unless accepted; accepted earns the correctness part, plus speed on a `timed` backend
    from the roofline fraction unless the timing is flagged for review (`eligible` False)."""
    if Verdict(verdict) is not Verdict.ACCEPTED:
        return Score(0.0, 0.0, 0.0 if timed else None, MAX_POINTS)
    if timed and not eligible:
        return Score(CORRECTNESS_POINTS, CORRECTNESS_POINTS, 0.0, MAX_POINTS, withheld=True)
    if not timed or roofline_fraction is None:
        return Score(CORRECTNESS_POINTS, CORRECTNESS_POINTS, None, MAX_POINTS)
    perf = performance_points(roofline_fraction)
    return Score(round(CORRECTNESS_POINTS + perf, 2), CORRECTNESS_POINTS, perf, MAX_POINTS)
