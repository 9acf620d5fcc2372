"""Checkers for the hardware-design tasks, one module each: what a design's outputs must be, cycle by cycle, and
the stimulus that exercises it. Standard library only; nothing here imports the project.

The driver's cycle protocol, which every checker is written for. For each cycle c = 0, 1, ...:
  1. apply `inputs` (every input but clk) with clk low, evaluate, read all outputs, and call
     `before_edge(c, inputs, outputs)`;
  2. optionally, for each variation in `probe(c)` (a dict of some inputs), apply it on top of the
     current inputs without a clock, evaluate and read all outputs; then restore the cycle's own
     inputs, evaluate, and call `probed(c, [(variation, outputs), ...])`;
  3. raise clk (the rising edge), evaluate, read all outputs, call `after_edge(c, inputs, outputs)`.
Each call returns the first `Mismatch` it finds or None; the driver stops at the first mismatch.

Rules shared by the checkers:
  - Nothing is judged until an edge with rst_n low: before it the design's state is undefined.
  - Outputs read before the edge of a reset cycle (rst_n low) are not judged: a design may gate
    its outputs with rst_n while reset is asserted. What they must be after the edge is judged.
  - Values are plain ints (masked to the port's width); expected/actual are shown as Verilog
    literals so that a hardware engineer reads them as such.
"""
from __future__ import annotations

from .base import Checker, Mismatch
from .rr_arbiter import RrArbiterChecker
from .skid_buffer import SkidBufferChecker
from .sync_fifo import SyncFifoChecker

# task slug -> its checker; a new task adds its module here
CHECKERS: dict[str, type[Checker]] = {"sync_fifo": SyncFifoChecker, "rr_arbiter": RrArbiterChecker,
                                      "skid_buffer": SkidBufferChecker}

__all__ = ["CHECKERS", "Checker", "Mismatch"]
