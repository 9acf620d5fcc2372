"""Scoring: 0 unless accepted, correctness part, roofline-based performance part."""
import pytest

from assessments.judge import scoring
from assessments.judge.kinds.cupy.backends.base import CPU, CUDA
from assessments.judge.kinds.cupy.timing.peaks import H100_NOMINAL, Peaks
from assessments.judge.kinds.cupy.timing.roofline import roofline
from assessments.judge.verdicts import Verdict


@pytest.mark.parametrize("verdict", [v for v in Verdict if v is not Verdict.ACCEPTED])
def test_zero_unless_accepted(verdict):
    assert scoring.score(verdict, CUDA.timed, 1.0).total == 0
    assert scoring.score(verdict, CPU.timed).total == 0
    assert scoring.score(verdict, CUDA.timed, 1.0).performance == 0.0
    assert scoring.score(verdict, CPU.timed).performance is None


def test_cpu_gets_correctness_only():
    s = scoring.score(Verdict.ACCEPTED, CPU.timed, 0.9)
    assert (s.total, s.correctness, s.performance, s.max) == (60.0, 60.0, None, 100.0)


def test_cuda_adds_performance():
    assert scoring.score("accepted", CUDA.timed, 1.0).total == 100.0
    assert scoring.score("accepted", CUDA.timed, 0.5).total == 80.0
    assert scoring.score("accepted", CUDA.timed, 0.0).total == 60.0
    assert scoring.score("accepted", CUDA.timed, None).total == 60.0


def test_roofline_memory_bound():
    peaks = Peaks("test", bandwidth_bytes_s=1e12, flops_s=1e13)
    r = roofline(2e-3, nbytes=1_000_000_000, flops=1_000_000, peaks=peaks)
    assert r.bound == "memory"
    assert r.floor_s == pytest.approx(1e-3)
    assert r.fraction == pytest.approx(0.5)
    assert r.achieved_bytes_s == pytest.approx(5e11)
    assert not r.below_floor


def test_roofline_compute_bound_and_below_floor():
    peaks = Peaks("test", bandwidth_bytes_s=1e12, flops_s=1e12)
    r = roofline(1e-4, nbytes=1000, flops=10 ** 9, peaks=peaks)
    assert r.bound == "compute"
    assert r.fraction == 1.0 and r.below_floor


def test_nominal_h100():
    assert H100_NOMINAL.bandwidth_bytes_s == pytest.approx(3.35e12)
    assert not H100_NOMINAL.measured
