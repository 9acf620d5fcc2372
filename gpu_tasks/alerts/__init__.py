"""Rules tasks (kind `promql`): a Prometheus rule file whose alerts promtool evaluates on hidden
series, compared with the alerts the task's trusted logic expects. Each module of this package
but the helpers is one task: it gives `TASK` and the task's generator and conditions (model.py
says what); none of that but the task object is ever served, nor the references in reference/."""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from .model import Alert, RulesTask, cases

_NOT_TASKS = {"model", "series", "semantics", "fleet"}

TASKS: dict[str, RulesTask] = {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in _NOT_TASKS and not _info.ispkg:
        _task = getattr(importlib.import_module(f"{__name__}.{_info.name}"), "TASK", None)
        if _task is not None:
            if _task.slug != _info.name:
                raise ValueError(f"gpu_tasks/alerts/{_info.name}.py holds task {_task.slug!r}: "
                                 "a task's module is named by its slug")
            TASKS[_task.slug] = _task


def logic(slug: str) -> ModuleType:
    """The task's trusted module: generate, conditions, observe (never served)."""
    if slug not in TASKS:
        raise KeyError(slug)
    return importlib.import_module(f"{__name__}.{slug}")


__all__ = ["TASKS", "Alert", "RulesTask", "cases", "logic"]
