"""A hardware-design task: the module's name, clocks, ports and parameters, its tests' parameter
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
class Domain:
    """One clock domain of a task with several clocks: its clock (rising edge), its reset (active
    low, asserted asynchronously) and the other ports that belong to it. `data`: inputs whose words
    the design stores for the other domain to read (a FIFO's `wdata`): storage loaded from them may
    be read across without a synchronizer."""
    clock: str
    reset: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    data: tuple[str, ...] = ()


@dataclass(frozen=True)
class RtlTask:
    slug: str
    title: str
    difficulty: str
    skills: tuple[str, ...]      # taxonomy ids (skillmap/data/taxonomy.toml)
    summary: str
    statement: str
    module: str                  # the top module's name
    clock: str                   # the rising-edge clock the judge drives (with domains: the first's)
    ports: tuple[Port, ...]
    defaults: dict               # the module's parameters as the statement declares them
    tests: dict[str, tuple[TestCase, ...]]   # per backend: each case's dims are a parameter set
    samples: tuple[TestCase, ...] = ()
    cycles: int = 3000           # cycles per hidden test (samples: a tenth)
    synth_params: dict = field(default_factory=dict)   # the parameter set the score synthesizes
    # Several clocks: each domain's clock, reset and ports (empty: one clock, `clock`). A test
    # then counts `cycles` edges of all the clocks together.
    domains: tuple[Domain, ...] = ()
    kind: str = "verilog"
    track: str = TRACK

    def __hash__(self) -> int:
        return hash(self.slug)

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        return self.samples

    @property
    def clocks(self) -> tuple[str, ...]:
        return tuple(d.clock for d in self.domains) or (self.clock,)

    @property
    def reference_path(self) -> Path:
        return REFERENCE_DIR / f"{self.slug}.v"


def cases(*param_sets: dict) -> tuple[TestCase, ...]:
    return tuple(TestCase("_".join(f"{k.lower()}{v}" for k, v in p.items()), dict(p)) for p in param_sets)
