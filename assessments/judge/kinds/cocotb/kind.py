"""`KIND`: design-verification tasks as the judge's core sees them (kinds.Kind), over stages.py."""
from __future__ import annotations

from . import stages
from .backend import SIM


class CocotbKind:
    name = "cocotb"
    extensions = (".py",)   # a cocotb testbench; the task, not the extension, picks this kind

    def backend(self, name):
        return SIM   # one place to run: the `--backend` name matters only for kinds with several

    def backend_names(self) -> tuple[str, ...]:
        return (SIM.name,)

    def find_task(self, slug: str):
        from gpu_tasks.testbench import TASKS
        return TASKS.get(slug)

    def task_slugs(self) -> list[str]:
        from gpu_tasks.testbench import TASKS
        return sorted(TASKS)

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
