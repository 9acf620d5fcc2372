"""The CuPy kind: a Python file whose `solve(...)` writes its outputs with CuPy (RawKernel,
ElementwiseKernel, ReductionKernel, cupyx.jit, array code), judged on arrays from the task bank
(gpu_tasks) on the `cpu` backend (the emulator) or the `cuda` backend (a GPU, timed).
The stages are in stages.py; the backends, the child and the timing are the judge's modules
that this kind uses (backends/, child.py, timing/...)."""
from __future__ import annotations

from . import stages


class CupyKind:
    name = "cupy"

    def backend(self, name):
        from ...backends.base import get_backend
        return get_backend(name)

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
