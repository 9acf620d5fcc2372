"""A randomized fleet of GPU hosts as the DCGM exporter shows it to Prometheus: hosts, their GPUs
with the exporter's labels, each GPU's minutes and the episodes placed on them (a Xid, a hot
stretch, an idle one...) without overlapping one another or an outage of their host's exporter.

Episodes start after at least one ordinary sample and end before the next episode or outage
begins, so the window of a `*_over_time` rule and the evaluations of a `for:` rule see the same
samples: the judge's reference is `for:`, and either way of writing a rule gets the same alerts.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MODEL = "NVIDIA H100 80GB HBM3"
DRIVER = "550.90.07"
EXPORTER_PORT = 9400
NODE_EXPORTER_PORT = 9100
MARGIN = 2          # ordinary minutes kept around every episode and outage


@dataclass
class Gpu:
    host: str
    index: int
    uuid: str
    busy: list = field(default_factory=list)       # [start, end) minutes already taken

    @property
    def labels(self) -> dict[str, str]:
        return {"Hostname": self.host, "gpu": str(self.index), "UUID": self.uuid,
                "device": f"nvidia{self.index}", "modelName": MODEL, "DCGM_FI_DRIVER_VERSION": DRIVER,
                "instance": f"{self.host}:{EXPORTER_PORT}", "job": "dcgm"}

    @property
    def key(self) -> tuple[str, str]:
        return (self.host, str(self.index))

    def free(self, start: int, end: int) -> bool:
        return all(end + MARGIN <= s or start >= e + MARGIN for s, e in self.busy)


@dataclass
class Fleet:
    minutes: int
    gpus: list[Gpu]
    hosts: list[str]

    def of_host(self, host: str) -> list[Gpu]:
        return [g for g in self.gpus if g.host == host]


def make_fleet(rng: np.random.Generator, hosts: int, gpus: int, minutes: int) -> Fleet:
    """Hosts with names a rule cannot guess (`gpu-node-17`), `gpus` GPUs each."""
    numbers = sorted(rng.choice(np.arange(1, 100), size=hosts, replace=False).tolist())
    names = [f"gpu-node-{n:02d}" for n in numbers]
    fleet = Fleet(minutes, [], names)
    for host in names:
        for i in range(gpus):
            uuid = "GPU-" + "".join(f"{b:02x}" for b in rng.integers(0, 256, size=8).tolist())
            fleet.gpus.append(Gpu(host, i, f"{uuid[:12]}-{uuid[12:16]}-{uuid[16:]}"))
    return fleet


def place(rng: np.random.Generator, fleet: Fleet, length: int, *, gpus: list[Gpu] | None = None,
          earliest: int = 1, tries: int = 200) -> tuple[Gpu, int] | None:
    """A GPU and a start minute where `length` minutes are free (after `earliest`, within the
    test), taken for the episode; None when there is no room."""
    pool = gpus if gpus is not None else fleet.gpus
    latest = fleet.minutes - length
    if latest < earliest or not pool:
        return None
    for _ in range(tries):
        gpu = pool[int(rng.integers(len(pool)))]
        start = int(rng.integers(earliest, latest + 1))
        if gpu.free(start, start + length):
            gpu.busy.append((start, start + length))
            return gpu, start
    return None


def block_host(fleet: Fleet, host: str, start: int, end: int) -> None:
    """An outage of the host's exporter: no GPU episode of the host overlaps it."""
    for gpu in fleet.of_host(host):
        gpu.busy.append((start, end))


def walk(rng: np.random.Generator, n: int, lo: float, hi: float, step: float) -> np.ndarray:
    """A bounded random walk of integers: ordinary telemetry that drifts."""
    out = np.empty(n)
    x = float(rng.uniform(lo, hi))
    for i, d in enumerate(rng.normal(0.0, step, n).tolist()):
        x = min(max(x + d, lo), hi)
        out[i] = round(x)
    return out
