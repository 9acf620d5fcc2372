"""A hardware-design task: the module's name, clock, ports and parameters, its tests' parameter
sets, and where its reference design is."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..base import TestCase

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
TRACK = "hardware design"


@dataclass(frozen=True)
class Port:
    name: str
    direction: str      # input | output
    width: str          # as the statement writes it: "1", "WIDTH", "$clog2(DEPTH)+1"
    note: str = ""


@dataclass(frozen=True)
class RtlTask:
    slug: str
    title: str
    difficulty: str
    skills: tuple[str, ...]      # taxonomy ids (skillmap/data/taxonomy.toml)
    summary: str
    statement: str
    module: str                  # the top module's name
    clock: str                   # the rising-edge clock the judge drives
    ports: tuple[Port, ...]
    defaults: dict               # the module's parameters as the statement declares them
    tests: dict[str, tuple[TestCase, ...]]   # per backend: each case's dims are a parameter set
    samples: tuple[TestCase, ...] = ()
    cycles: int = 3000           # cycles per hidden test (samples: a tenth)
    synth_params: dict = field(default_factory=dict)   # the parameter set the score synthesizes
    kind: str = "verilog"
    track: str = TRACK

    def __hash__(self) -> int:
        return hash(self.slug)

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        return self.samples

    @property
    def reference_path(self) -> Path:
        return REFERENCE_DIR / f"{self.slug}.v"


def cases(*param_sets: dict) -> tuple[TestCase, ...]:
    return tuple(TestCase("_".join(f"{k.lower()}{v}" for k, v in p.items()), dict(p)) for p in param_sets)
