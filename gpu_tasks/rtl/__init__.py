"""Hardware-design tasks (kind `verilog`): a synthesizable module with a fixed name, parameters
and ports, simulated against the task's checker (assessments/judge/kinds/verilog/checkers/) for
several parameter sets. Each module of this package gives `TASKS`, a tuple of RtlTask; reference
designs live in reference/ and are never served."""
from __future__ import annotations

import importlib
import pkgutil

from .model import Port, RtlTask, cases

TASKS: dict[str, RtlTask] = {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "model":
        for _task in getattr(importlib.import_module(f"{__name__}.{_info.name}"), "TASKS", ()):
            TASKS[_task.slug] = _task

__all__ = ["TASKS", "Port", "RtlTask", "cases"]
