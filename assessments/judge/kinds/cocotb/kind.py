"""`KIND`: design-verification tasks as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from ..single import SingleBackendKind
from . import stages
from .backend import SIM


class CocotbKind(SingleBackendKind):
    name = "cocotb"
    extensions = (".py",)   # a cocotb testbench; the task, not the extension, picks this kind
    runs_on = SIM
    bank = "gpu_tasks.testbench"
    pipeline = stages
    run_type = stages.TbRun


KIND = CocotbKind()
