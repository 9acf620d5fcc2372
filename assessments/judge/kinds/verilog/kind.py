"""`KIND`: hardware-design tasks as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from ..single import SingleBackendKind
from . import stages
from .backend import SIM


class VerilogKind(SingleBackendKind):
    name = "verilog"
    extensions = (".v", ".sv")   # what a submission's file may be called (the CLI checks)
    runs_on = SIM
    bank = "gpu_tasks.rtl"
    pipeline = stages
    run_type = stages.RtlRun


KIND = VerilogKind()
