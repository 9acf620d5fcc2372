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

    def new_run(self, **fields):
        return stages.RtlRun(**fields)

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.session)
    load = staticmethod(stages.load)
    run_test = staticmethod(stages.run_test)
    after_tests = staticmethod(stages.after_tests)
    measure = staticmethod(stages.measure)
    describe = staticmethod(stages.describe)


KIND = VerilogKind()
