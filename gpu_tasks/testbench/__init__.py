"""Design-verification tasks (kind `cocotb`): a cocotb testbench for a design of the RTL bank,
judged against the correct design and its hidden mutants. Each module of this package gives
`TASKS`, a tuple of TbTask; mutants and reference testbenches are never served."""
from __future__ import annotations

import importlib
import pkgutil

from .model import CORRECT, Mutant, MutantError, TbTask

TASKS: dict[str, TbTask] = {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "model" and not _info.ispkg:
        for _task in getattr(importlib.import_module(f"{__name__}.{_info.name}"), "TASKS", ()):
            TASKS[_task.slug] = _task

__all__ = ["CORRECT", "TASKS", "Mutant", "MutantError", "TbTask"]
