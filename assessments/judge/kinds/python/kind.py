"""`KIND`: function tasks in Python as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from ..single import SingleBackendKind
from . import stages
from .backend import CPU


class PythonKind(SingleBackendKind):
    name = "python"
    language = "python"
    extensions = (".py",)   # what a submission's file may be called (the CLI checks)
    runs_on = CPU
    bank = "gpu_tasks.functions"

    pipeline = stages

    def accepts(self, task) -> bool:
        return self.language in task.languages

    def new_run(self, **fields):
        return stages.FunctionRun(**fields, language=self.language)


KIND = PythonKind()
