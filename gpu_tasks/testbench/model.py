"""A design-verification task: a cocotb testbench for a design of the RTL bank, judged against
the correct design and against mutants of it (each a realistic bug). The mutants live in
mutants/<slug>/mutants.toml, the reference testbench in reference/<slug>.py; neither is served.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..base import TestCase

HERE = Path(__file__).resolve().parent
MUTANTS_DIR = HERE / "mutants"
REFERENCE_DIR = HERE / "reference"
STARTERS_DIR = HERE / "starters"
TRACK = "hardware design"
CORRECT = "correct design"       # the first test's name: the design the testbench must pass


def how_judged(module: str, edges: str, public: tuple[str, str]) -> str:
    """What every testbench statement says after its design's contract: the simulator and the
    clock, how the testbench is judged and scored (`edges`: what to test at the contract's edges),
    the two public mutants' descriptions, and the limits."""
    return f"""The top level is `{module}` (your tests get it as `dut`); the simulator is Icarus Verilog with
a time unit of 1 ns and a precision of 1 ps. The judge does not start the clock: your testbench
starts it (`Clock(dut.clk, 10, unit="ns").start()`) and resets the design itself; inputs start
undriven.

The judge runs your tests against the correct design, then against hidden mutants of it: the
same design with one realistic bug each, with the same ports and internal signals. Your
testbench is accepted when every test passes on the correct design; its performance points are
the share of mutants for which at least one of your tests fails (or that make it run past its
time). Test what the contract says at its edges: {edges}.

Two mutants are public, and "Run on samples" runs your tests against the correct design and
these two:

- {public[0]}
- {public[1]}

Each design gets one simulation, limited to 20 s (and a mutant to about twice the CPU time the
correct design took); a testbench may import cocotb and the Python standard library's pure
modules (`random`, `collections`, `itertools`, `math`, `dataclasses`...), not `os`, `sys` or
anything that reaches files, processes or the network."""


class MutantError(ValueError):
    """A mutant's edit does not apply to the reference design exactly once."""


@dataclass(frozen=True)
class Mutant:
    number: int                  # 1-based: the test "mutant N"
    description: str             # one sentence, shown once graded (public ones in the statement)
    edits: tuple[tuple[str, str], ...]   # (old, new) on the simulated reference design
    public: bool = False         # one of the samples

    @property
    def name(self) -> str:
        return f"mutant {self.number}"


@dataclass(frozen=True)
class TbTask:
    slug: str
    title: str
    difficulty: str
    skills: tuple[str, ...]      # taxonomy ids (skillmap/data/taxonomy.toml)
    summary: str
    statement: str
    design: str                  # the RTL bank's task whose design is under test (gpu_tasks.rtl)
    params: dict                 # its parameters here
    kind: str = "cocotb"
    track: str = TRACK
    mutants_dir: Path = field(default=MUTANTS_DIR, repr=False, compare=False)

    def __hash__(self) -> int:
        return hash(self.slug)

    # -- the design under test (from the RTL bank) ----------------------------------------------
    @property
    def rtl(self):
        from ..rtl import TASKS
        return TASKS[self.design]

    @property
    def module(self) -> str:
        """The top level, as cocotb's COCOTB_TOPLEVEL names it."""
        return self.rtl.module

    @property
    def clock(self) -> str:
        return self.rtl.clock

    @property
    def ports(self):
        return self.rtl.ports

    # -- the designs the judge simulates --------------------------------------------------------
    @cached_property
    def _bank(self) -> dict:
        with open(self.mutants_dir / self.slug / "mutants.toml", "rb") as fh:
            return tomllib.load(fh)

    @cached_property
    def mutants(self) -> tuple[Mutant, ...]:
        return tuple(Mutant(i, m["description"], tuple(tuple(e) for e in m["replace"]), bool(m.get("public")))
                     for i, m in enumerate(self._bank["mutant"], start=1))

    def design_source(self) -> str:
        """The correct design as simulated: the reference with the bank's shadow lines before
        `endmodule`, which every mutant has too, so that all designs share one hierarchy."""
        text = self.rtl.reference_path.read_text()
        shadow = self._bank.get("shadow", "")
        if shadow:
            head, sep, tail = text.rpartition("endmodule")
            text = head + shadow.rstrip("\n") + "\n" + sep + tail
        return text

    def mutant_source(self, mutant: Mutant) -> str:
        text = self.design_source()
        for old, new in mutant.edits:
            if text.count(old) != 1:
                raise MutantError(f"{self.slug} {mutant.name}: {old!r} occurs {text.count(old)} times")
            text = text.replace(old, new)
        return text

    def source_of(self, case_name: str) -> str:
        """The design a test simulates, by the test's name."""
        if case_name == CORRECT:
            return self.design_source()
        for m in self.mutants:
            if m.name == case_name:
                return self.mutant_source(m)
        raise KeyError(case_name)

    # -- tests, samples, starter ----------------------------------------------------------------
    @property
    def tests(self) -> dict[str, tuple[TestCase, ...]]:
        """One test per design: the correct one first, then every mutant."""
        return {"sim": (TestCase(CORRECT, dict(self.params)),
                        *(TestCase(m.name, dict(self.params)) for m in self.mutants))}

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        """The correct design and the public mutants (their descriptions are in the statement)."""
        return (TestCase(CORRECT, dict(self.params)),
                *(TestCase(m.name, dict(self.params)) for m in self.mutants if m.public))

    def mutant_named(self, case_name: str) -> Mutant | None:
        return next((m for m in self.mutants if m.name == case_name), None)

    @property
    def starter(self) -> str:
        """The testbench a candidate starts from: clock, reset and one trivial test."""
        return (STARTERS_DIR / f"{self.slug}.py").read_text()

    @property
    def reference_testbench_path(self) -> Path:
        return REFERENCE_DIR / f"{self.slug}.py"
