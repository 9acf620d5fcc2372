"""The base of a kind with one place to run and one task bank (every kind but `cupy`): its
backend whatever `--backend` names, and its tasks from the bank package's `TASKS`."""
from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any


class SingleBackendKind:
    name: str
    extensions: tuple[str, ...]
    runs_on: Any          # the backend: an object with name, description, timed and limits
    bank: str             # the task bank's package, e.g. "gpu_tasks.rtl"
    pipeline: ModuleType  # the kind's stages module: the steps below, by the same names
    run_type: type        # the state of one judging (the stages' `run`)

    def new_run(self, **fields):
        return self.run_type(**fields)

    # The steps the judge's core calls (kinds.Kind), each the pipeline's function of that name.
    def screen(self, *args, **kwargs):
        return self.pipeline.screen(*args, **kwargs)

    def session(self, *args, **kwargs):
        return self.pipeline.session(*args, **kwargs)

    def load(self, *args, **kwargs):
        return self.pipeline.load(*args, **kwargs)

    def run_test(self, *args, **kwargs):
        return self.pipeline.run_test(*args, **kwargs)

    def after_tests(self, *args, **kwargs):
        return self.pipeline.after_tests(*args, **kwargs)

    def measure(self, *args, **kwargs):
        return self.pipeline.measure(*args, **kwargs)

    def describe(self, *args, **kwargs):
        return self.pipeline.describe(*args, **kwargs)

    def backend(self, name):
        return self.runs_on   # the `--backend` name matters only for kinds with several

    def backend_names(self) -> tuple[str, ...]:
        return (self.runs_on.name,)

    def accepts(self, task) -> bool:
        """Whether this kind judges that task of its bank (a bank may hold several kinds')."""
        return True

    def _tasks(self) -> dict:
        return import_module(self.bank).TASKS

    def find_task(self, slug: str):
        task = self._tasks().get(slug)
        return task if task is not None and self.accepts(task) else None

    def task_slugs(self) -> list[str]:
        return sorted(slug for slug, task in self._tasks().items() if self.accepts(task))
