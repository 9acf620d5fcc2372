"""`KIND`: rules tasks as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from . import stages
from .backend import BACKEND


class PromqlKind:
    name = "promql"
    extensions = (".yml", ".yaml")   # a Prometheus rule file

    def backend(self, name):
        return BACKEND   # one place to run: the `--backend` name matters only for kinds with several

    def backend_names(self) -> tuple[str, ...]:
        return (BACKEND.name,)

    def find_task(self, slug: str):
        from gpu_tasks.alerts import TASKS
        return TASKS.get(slug)

    def task_slugs(self) -> list[str]:
        from gpu_tasks.alerts import TASKS
        return sorted(TASKS)

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
