"""Where a measured time sits against the roofline drawn with the device's peaks, and the physical
floor no honest time goes under. Pure functions."""
from __future__ import annotations

from dataclasses import dataclass

from .peaks import H100_NOMINAL, Peaks

# A time this far under the roofline floor drawn with measured peaks cannot be real: measured
# copy bandwidth and cuBLAS rates sit below the datasheet by less than this.
FLOOR_SLACK = 0.75


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


def physical_floor_s(nbytes: float, flops: float, bandwidth_bytes_s: float, flops_s: float,
                     slack: float = FLOOR_SLACK) -> float:
    """Shortest believable time: compulsory bytes over peak bandwidth or FLOPs over the fastest
    arithmetic the device has, whichever is longer, loosened by `slack`."""
    t_mem = nbytes / bandwidth_bytes_s if bandwidth_bytes_s > 0 else 0.0
    t_flop = flops / flops_s if flops_s > 0 else 0.0
    return max(t_mem, t_flop) * slack


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
