"""Score from verdict and speed: pure functions, no I/O."""
from __future__ import annotations

from dataclasses import dataclass

from .verdicts import Verdict

CORRECTNESS_POINTS = 60.0
PERFORMANCE_POINTS = 40.0
MAX_POINTS = CORRECTNESS_POINTS + PERFORMANCE_POINTS


@dataclass(frozen=True)
class Peaks:
    """Peak memory bandwidth and arithmetic throughput the roofline is drawn with."""

    name: str
    bandwidth_bytes_s: float
    flops_s: float
    measured: bool = False

    def to_dict(self) -> dict:
        return dict(self.__dict__)


# Datasheet figures for the H100 SXM5 (HBM3, FP32 without tensor cores) until a measured pair
# from the device replaces them.
H100_NOMINAL = Peaks("H100 SXM (nominal)", 3.35e12, 66.9e12)


@dataclass(frozen=True)
class Roofline:
    """Where a measured time sits against the roofline for a workload of `bytes` and `flops`."""

    bytes: int
    flops: int
    floor_s: float          # max(bytes / bandwidth, flops / peak flops)
    measured_s: float
    fraction: float         # floor / measured, capped at 1
    bound: str              # "memory" | "compute"
    achieved_bytes_s: float
    achieved_flops_s: float
    below_floor: bool       # faster than physics allows: flag for review

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def roofline(measured_s: float, nbytes: int, flops: int, peaks: Peaks = H100_NOMINAL) -> Roofline:
    """Roofline position of a measured time."""
    t_mem = nbytes / peaks.bandwidth_bytes_s if peaks.bandwidth_bytes_s else 0.0
    t_flop = flops / peaks.flops_s if peaks.flops_s else 0.0
    floor = max(t_mem, t_flop)
    measured = max(float(measured_s), 1e-12)
    return Roofline(
        bytes=int(nbytes), flops=int(flops), floor_s=floor, measured_s=measured,
        fraction=min(1.0, floor / measured), bound="memory" if t_mem >= t_flop else "compute",
        achieved_bytes_s=nbytes / measured, achieved_flops_s=flops / measured,
        below_floor=measured < floor,
    )


@dataclass(frozen=True)
class Score:
    """Points and how they were earned."""

    total: float
    correctness: float
    performance: float | None   # None where nothing was timed (cpu backend)
    max: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def performance_points(fraction: float) -> float:
    """Linear in the fraction of the roofline reached: 40 points at the roofline."""
    return round(PERFORMANCE_POINTS * max(0.0, min(1.0, fraction)), 2)


def score(verdict: Verdict | str, backend: str, roofline_fraction: float | None = None) -> Score:
    """0 unless accepted; accepted earns the correctness part, plus speed on the cuda backend."""
    if Verdict(verdict) is not Verdict.ACCEPTED:
        return Score(0.0, 0.0, None if backend == "cpu" else 0.0, MAX_POINTS)
    if backend == "cpu" or roofline_fraction is None:
        return Score(CORRECTNESS_POINTS, CORRECTNESS_POINTS, None, MAX_POINTS)
    perf = performance_points(roofline_fraction)
    return Score(round(CORRECTNESS_POINTS + perf, 2), CORRECTNESS_POINTS, perf, MAX_POINTS)
