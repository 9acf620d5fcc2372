"""Design-verification tasks (kind `cocotb`): a cocotb testbench for a design of the RTL bank,
judged against the correct design and its hidden mutants. Each module of this package gives
`TASKS`, a tuple of TbTask; mutants and reference testbenches are never served."""
from __future__ import annotations

from ..discover import tasks_in
from .model import CORRECT, Mutant, MutantError, TbTask

TASKS = tasks_in(__name__, __path__, helpers={"model"})

__all__ = ["CORRECT", "TASKS", "Mutant", "MutantError", "TbTask"]
