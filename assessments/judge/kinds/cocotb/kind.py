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

    def new_run(self, **fields):
        return stages.TbRun(**fields)

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.session)
    load = staticmethod(stages.load)
    run_test = staticmethod(stages.run_test)
    after_tests = staticmethod(stages.after_tests)
    measure = staticmethod(stages.measure)
    describe = staticmethod(stages.describe)


KIND = CocotbKind()
