"""`KIND`: the CuPy kind as the judge's core sees it (kinds.Kind), over stages.py."""
from __future__ import annotations

from . import stages


class CupyKind:
    name = "cupy"
    extensions = (".py",)   # what a submission's file may be called (the CLI checks)

    def backend(self, name):
        from .backends.base import get_backend
        return get_backend(name)

    def backend_names(self) -> tuple[str, ...]:
        from .backends.base import BACKENDS
        return tuple(BACKENDS)

    def find_task(self, slug: str):
        import gpu_tasks
        return gpu_tasks.TASKS.get(slug)

    def task_slugs(self) -> list[str]:
        import gpu_tasks
        return sorted(gpu_tasks.TASKS)

    def new_run(self, **fields):
        return stages.CupyRun(**fields)

    screen = staticmethod(stages.screen)
    session = staticmethod(stages.child_session)
    load = staticmethod(stages.load)
    run_test = staticmethod(stages.run_test)
    after_tests = staticmethod(stages.after_tests)
    measure = staticmethod(stages.measure)
    describe = staticmethod(stages.describe)


KIND = CupyKind()
