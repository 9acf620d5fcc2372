"""Scoring: 0 unless accepted, correctness part, roofline-based performance part."""
import pytest

from assessments.judge import scoring
from assessments.judge.verdicts import Verdict


@pytest.mark.parametrize("verdict", [v for v in Verdict if v is not Verdict.ACCEPTED])
def test_zero_unless_accepted(verdict):
    assert scoring.score(verdict, "cuda", 1.0).total == 0
    assert scoring.score(verdict, "cpu").total == 0


def test_cpu_gets_correctness_only():
    s = scoring.score(Verdict.ACCEPTED, "cpu", 0.9)
    assert (s.total, s.correctness, s.performance, s.max) == (60.0, 60.0, None, 100.0)


def test_cuda_adds_performance():
    assert scoring.score("accepted", "cuda", 1.0).total == 100.0
    assert scoring.score("accepted", "cuda", 0.5).total == 80.0
    assert scoring.score("accepted", "cuda", 0.0).total == 60.0
    assert scoring.score("accepted", "cuda", None).total == 60.0


def test_roofline_memory_bound():
    peaks = scoring.Peaks("test", bandwidth_bytes_s=1e12, flops_s=1e13)
    r = scoring.roofline(2e-3, nbytes=1_000_000_000, flops=1_000_000, peaks=peaks)
    assert r.bound == "memory"
    assert r.floor_s == pytest.approx(1e-3)
    assert r.fraction == pytest.approx(0.5)
    assert r.achieved_bytes_s == pytest.approx(5e11)
    assert not r.below_floor


def test_roofline_compute_bound_and_below_floor():
    peaks = scoring.Peaks("test", bandwidth_bytes_s=1e12, flops_s=1e12)
    r = scoring.roofline(1e-4, nbytes=1000, flops=10 ** 9, peaks=peaks)
    assert r.bound == "compute"
    assert r.fraction == 1.0 and r.below_floor


def test_nominal_h100():
    assert scoring.H100_NOMINAL.bandwidth_bytes_s == pytest.approx(3.35e12)
    assert not scoring.H100_NOMINAL.measured
