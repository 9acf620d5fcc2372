"""`KIND`: function tasks in Python as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from . import stages
from .backend import CPU


class PythonKind:
    name = "python"
    language = "python"
    extensions = (".py",)   # what a submission's file may be called (the CLI checks)

    def backend(self, name):
        return CPU   # one place to run: the `--backend` name matters only for kinds with several

    def backend_names(self) -> tuple[str, ...]:
        return (CPU.name,)

    def find_task(self, slug: str):
        from gpu_tasks.functions import TASKS
        task = TASKS.get(slug)
        return task if task is not None and self.language in task.languages else None

    def task_slugs(self) -> list[str]:
        from gpu_tasks.functions import TASKS
        return sorted(s for s, t in TASKS.items() if self.language in t.languages)

    def new_run(self, **fields):
        return stages.FunctionRun(**fields, language=self.language)

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.session)
    load = staticmethod(stages.load)
    run_test = staticmethod(stages.run_test)
    after_tests = staticmethod(stages.after_tests)
    measure = staticmethod(stages.measure)
    describe = staticmethod(stages.describe)


KIND = PythonKind()
