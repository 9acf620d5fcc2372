"""Events against the parent's wall clock, the physical floor, flags, roofline and score."""
from __future__ import annotations

import pytest

from assessments.judge import scoring
from assessments.judge.kinds.cupy.timing import crosscheck as cc
from assessments.judge.kinds.cupy.timing import roofline as rl
from assessments.judge.kinds.cupy.timing.crosscheck import BatchWall
from assessments.judge.kinds.cupy.timing.peaks import Peaks
from assessments.judge.kinds.cupy.timing.roofline import roofline
from assessments.judge.verdicts import Verdict


def _batches(n, repeats, kernel_s, overhead_s, seen_s=None, jitter_s=0.0):
    """n batches whose wall holds overhead + kernel per repeat; the events saw `seen_s` of it."""
    seen = kernel_s if seen_s is None else seen_s
    return [BatchWall(repeats, repeats * (overhead_s + kernel_s) + jitter_s * (-1) ** i,
                      repeats * seen, repeats * overhead_s) for i in range(n)]


def test_honest_batches_are_consistent():
    c = cc.wall_consistency(_batches(4, 200, kernel_s=120e-6, overhead_s=350e-6, jitter_s=1e-3))
    assert c.ok and abs(c.excess_s) < c.allowed_s and c.batches == 4
    assert c.overhead_ms_per_repeat == pytest.approx(0.35)


def test_hidden_work_shows_as_excess():
    # Events see 2 us of launches; the wall holds the 120 us kernel as well.
    c = cc.wall_consistency(_batches(4, 200, kernel_s=120e-6, overhead_s=350e-6, seen_s=2e-6))
    assert not c.ok and c.excess_s == pytest.approx(4 * 200 * 118e-6)


def test_timer_reading_low_shows_as_excess():
    c = cc.wall_consistency(_batches(3, 100, kernel_s=1e-3, overhead_s=1e-4, seen_s=1e-6))
    assert not c.ok


def test_events_longer_than_the_wall_are_inconsistent():
    c = cc.wall_consistency([BatchWall(10, wall_s=0.01, events_s=0.05, empty_wall_s=0.001)])
    assert not c.ok


def test_small_differences_stay_within_the_slack():
    # 5% of the work unseen (launch gaps, clock drift) is not a finding.
    c = cc.wall_consistency(_batches(3, 100, kernel_s=1e-3, overhead_s=2e-4, seen_s=0.95e-3))
    assert c.ok


def test_the_allowance_is_a_setting():
    # 4 batches, 14 ms unseen in all: over the default 2 ms a batch + 10% (12 ms), within a wider
    # allowance.
    batches = [BatchWall(10, wall_s=0.0135, events_s=0.001, empty_wall_s=0.009)] * 4
    tight = cc.wall_consistency(batches)
    assert not tight.ok and tight.excess_s == pytest.approx(0.014)
    assert tight.allowed_s == pytest.approx(4 * cc.SLACK_S_PER_BATCH + cc.SLACK_REL * 0.040)
    assert (tight.slack_s_per_batch, tight.slack_rel) == (cc.SLACK_S_PER_BATCH, cc.SLACK_REL)
    loose = cc.wall_consistency(batches, slack_per_batch=0.004, slack_rel=0.0)
    assert loose.ok and loose.allowed_s == pytest.approx(0.016)
    assert loose.to_dict()["slack_s_per_batch"] == 0.004 and loose.to_dict()["slack_rel"] == 0.0


def test_honest_batches_are_consistent_to_the_microsecond():
    # Exact agreement with constructed numbers: no excess at all, well inside any allowance.
    c = cc.wall_consistency(_batches(5, 100, kernel_s=2e-4, overhead_s=3e-4),
                            slack_per_batch=0.0, slack_rel=1e-6)
    assert c.ok and c.excess_s == pytest.approx(0.0, abs=1e-12)


def test_no_batches_is_not_ok():
    assert not cc.wall_consistency([]).ok


def test_physical_floor():
    # 1 GB at 2 TB/s = 0.5 ms; 1 GFLOP at 100 TFLOP/s = 0.01 ms: memory decides, loosened by 0.75.
    assert rl.physical_floor_s(1e9, 1e9, 2e12, 1e14) == pytest.approx(0.5e-3 * rl.FLOOR_SLACK)
    assert rl.physical_floor_s(1e3, 1e15, 2e12, 1e14, slack=1.0) == pytest.approx(10.0)


def test_flags_and_eligibility():
    good = cc.wall_consistency(_batches(2, 100, 1e-4, 1e-4))
    bad = cc.wall_consistency(_batches(2, 100, 1e-4, 1e-4, seen_s=0.0))
    assert cc.review_flags(consistency=good, median_s=1e-4, floor_s=5e-5, peaks_measured=True) == []
    flags = cc.review_flags(consistency=bad, median_s=1e-6, floor_s=5e-5, peaks_measured=False,
                            exclusive=False, idle=False)
    assert flags == ["below_physical_floor", "events_inconsistent_with_wall_time", "peaks_not_measured",
                     "gpu_not_exclusive", "gpu_busy"]
    assert cc.leaderboard_eligible([]) and not cc.leaderboard_eligible(flags[:1])


def test_roofline_uses_fp32_for_the_fraction_and_tensor_cores_for_the_floor():
    peaks = Peaks("t", bandwidth_bytes_s=3e12, flops_s=50e12, measured=True, tensor_flops_s=400e12)
    flops = 2 * 4096 ** 3
    fast = roofline(0.6e-3, 4 * 3 * 4096 ** 2, flops, peaks)   # 229 TFLOP/s: TF32 territory
    assert fast.bound == "compute" and fast.fraction == 1.0 and not fast.below_floor
    assert fast.physical_floor_s == pytest.approx(flops / 400e12 * rl.FLOOR_SLACK)
    forged = roofline(0.1e-3, 4 * 3 * 4096 ** 2, flops, peaks)  # 1.4 PFLOP/s: impossible
    assert forged.below_floor
    slow = roofline(11e-3, 4 * 3 * 4096 ** 2, flops, peaks)
    assert slow.fraction == pytest.approx(flops / 50e12 / 11e-3)
    assert slow.achieved_flops_s == pytest.approx(flops / 11e-3)


def test_score_withholds_performance_while_flagged():
    s = scoring.score(Verdict.ACCEPTED, True, 0.8, eligible=False)
    assert (s.total, s.performance, s.withheld) == (60.0, 0.0, True)
    s = scoring.score(Verdict.ACCEPTED, True, 0.8)
    assert (s.total, s.performance, s.withheld) == (92.0, 32.0, False)
    assert scoring.score(Verdict.WRONG_ANSWER, True, 0.8, eligible=True).total == 0.0
    assert scoring.score(Verdict.ACCEPTED, False, None, eligible=False).performance is None
