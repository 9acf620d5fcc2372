"""Where a design's simulation runs: the run sandbox, as a Python child that loads the models
Verilator built (the only backend of this kind; a `--backend` name is ignored)."""
from __future__ import annotations

from ...sandbox import GiB, Limits
from ..child_backend import ChildBackend

CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/verilog/__init__.py",
               "assessments/judge/kinds/verilog/child.py", "assessments/judge/kinds/verilog/driver.py")


class SimBackend(ChildBackend):
    name = "sim"
    description = "the Verilator simulation"
    # a test simulates a few thousand cycles in well under a second: 10 s is a loop that never ends
    limits = Limits(memory=2 * GiB, op_wall_s=10.0)
    child_module = "assessments.judge.kinds.verilog.child"
    child_files = CHILD_FILES


SIM = SimBackend()
