"""`KIND`: rules tasks as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from ..single import SingleBackendKind
from . import stages
from .backend import BACKEND


class PromqlKind(SingleBackendKind):
    name = "promql"
    extensions = (".yml", ".yaml")   # a Prometheus rule file
    runs_on = BACKEND
    bank = "gpu_tasks.alerts"

    def new_run(self, **fields):
        return stages.RulesRun(**fields)

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.session)
    load = staticmethod(stages.load)
    run_test = staticmethod(stages.run_test)
    after_tests = staticmethod(stages.after_tests)
    measure = staticmethod(stages.measure)
    describe = staticmethod(stages.describe)


KIND = PromqlKind()
