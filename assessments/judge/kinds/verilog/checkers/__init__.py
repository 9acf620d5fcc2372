"""Checkers for the hardware-design tasks, one module each (a Checker subclass with `slug`): what a design's outputs must be, cycle by cycle, and
the stimulus that exercises it. Standard library only; nothing here imports the project.

The driver's cycle protocol, which every checker is written for. For each cycle c = 0, 1, ...:
  1. apply `inputs` (every input but clk) with clk low, evaluate, read all outputs, and call
     `before_edge(c, inputs, outputs)`;
  2. optionally, for each variation in `probe(c)` (a dict of some inputs), apply it on top of the
     current inputs without a clock, evaluate and read all outputs; then restore the cycle's own
     inputs, evaluate, and call `probed(c, [(variation, outputs), ...])`;
  3. raise clk (the rising edge), evaluate, read all outputs, call `after_edge(c, inputs, outputs)`.
Each call returns the first `Mismatch` it finds or None; the driver stops at the first mismatch.

A task with several clocks (`RtlTask.domains`): `stimulus` returns a `clocks.Edge` per rising
edge of any clock, in time order, with every input (the clocks left out) as applied just before
it; cycle c above is the index of an edge in that list, and its clock is `edge.clock`. Steps 1
and 3 then happen around that clock's edge alone, the other clocks keeping their level.

Rules shared by the checkers:
  - Nothing is judged until an edge with rst_n low: before it the design's state is undefined.
  - Outputs read before the edge of a reset cycle (rst_n low) are not judged: a design may gate
    its outputs with rst_n while reset is asserted. What they must be after the edge is judged.
  - Values are plain ints (masked to the port's width); expected/actual are shown as Verilog
    literals so that a hardware engineer reads them as such.
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import Checker, Mismatch

# task slug -> its checker: every Checker subclass with a `slug` in this package's modules
CHECKERS: dict[str, type[Checker]] = {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _value in vars(_module).values():
        if isinstance(_value, type) and issubclass(_value, Checker) and getattr(_value, "slug", None):
            CHECKERS[_value.slug] = _value

__all__ = ["CHECKERS", "Checker", "Mismatch"]
