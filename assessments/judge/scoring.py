"""Score from verdict and speed: pure functions, no I/O."""
from __future__ import annotations

from dataclasses import dataclass

from .backends.cuda.crosscheck import FLOOR_SLACK, physical_floor_s
from .verdicts import Verdict

CORRECTNESS_POINTS = 60.0
PERFORMANCE_POINTS = 40.0
MAX_POINTS = CORRECTNESS_POINTS + PERFORMANCE_POINTS


@dataclass(frozen=True)
class Peaks:
    """Peak memory bandwidth and arithmetic throughput the roofline is drawn with."""

    name: str
    bandwidth_bytes_s: float
    flops_s: float                       # FP32 (cuBLAS SGEMM): the roofline the score is drawn with
    measured: bool = False
    # Fastest arithmetic on float32 inputs (TF32 tensor cores): only the physical floor uses it,
    # since a kernel may legitimately beat the FP32 rate where its task tolerates TF32.
    tensor_flops_s: float | None = None
    source: str = "datasheet"

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @property
    def fastest_flops_s(self) -> float:
        return max(self.flops_s, self.tensor_flops_s or 0.0)


# Datasheet figures for the H100 SXM5 (HBM3; FP32 and dense TF32) until measured ones replace them.
H100_NOMINAL = Peaks("H100 SXM (nominal)", 3.35e12, 66.9e12, tensor_flops_s=494.7e12)


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
    physical_floor_s: float = 0.0   # the time below_floor compares with

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def roofline(measured_s: float, nbytes: int, flops: int, peaks: Peaks = H100_NOMINAL,
             floor_slack: float = FLOOR_SLACK) -> Roofline:
    """Roofline position of a measured time, and whether it is under the physical floor."""
    t_mem = nbytes / peaks.bandwidth_bytes_s if peaks.bandwidth_bytes_s else 0.0
    t_flop = flops / peaks.flops_s if peaks.flops_s else 0.0
    floor = max(t_mem, t_flop)
    physical = physical_floor_s(nbytes, flops, peaks.bandwidth_bytes_s, peaks.fastest_flops_s,
                                floor_slack)
    measured = max(float(measured_s), 1e-12)
    return Roofline(
        bytes=int(nbytes), flops=int(flops), floor_s=floor, measured_s=measured,
        fraction=min(1.0, floor / measured), bound="memory" if t_mem >= t_flop else "compute",
        achieved_bytes_s=nbytes / measured, achieved_flops_s=flops / measured,
        below_floor=measured < physical, physical_floor_s=physical,
    )


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


def score(verdict: Verdict | str, backend: str, roofline_fraction: float | None = None, *,
          eligible: bool = True) -> Score:
    """0 unless accepted; accepted earns the correctness part, plus speed on the cuda backend
    from the roofline fraction unless the timing is flagged for review (`eligible` False)."""
    if Verdict(verdict) is not Verdict.ACCEPTED:
        return Score(0.0, 0.0, None if backend == "cpu" else 0.0, MAX_POINTS)
    if backend == "cpu" or roofline_fraction is None:
        return Score(CORRECTNESS_POINTS, CORRECTNESS_POINTS, None, MAX_POINTS)
    if not eligible:
        return Score(CORRECTNESS_POINTS, CORRECTNESS_POINTS, 0.0, MAX_POINTS, withheld=True)
    perf = performance_points(roofline_fraction)
    return Score(round(CORRECTNESS_POINTS + perf, 2), CORRECTNESS_POINTS, perf, MAX_POINTS)
