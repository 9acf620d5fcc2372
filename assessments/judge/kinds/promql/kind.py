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
    pipeline = stages
    run_type = stages.RulesRun


KIND = PromqlKind()
