"""Hardware-design tasks (kind `verilog`): a synthesizable module with a fixed name, parameters
and ports, simulated against the task's checker (assessments/judge/kinds/verilog/checkers/) for
several parameter sets. Each module of this package gives `TASKS`, a tuple of RtlTask; reference
designs live in reference/ and are never served."""
from __future__ import annotations

from ..discover import tasks_in
from .model import Port, RtlTask, cases

TASKS = tasks_in(__name__, __path__, helpers={"model", "starter"})

__all__ = ["TASKS", "Port", "RtlTask", "cases"]
