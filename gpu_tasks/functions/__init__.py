"""Function tasks (kinds `python` and `cpp`): a function with a fixed name and signature, judged
on hidden inputs against the task's trusted logic. Each module of this package but `model` is one
task: it gives `TASK` and the task's generator, reference and checker (model.py says what);
none of that but the task object is ever served."""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from .model import CppCall, CppParam, FunctionTask, cases

_NOT_TASKS = {"model"}

TASKS: dict[str, FunctionTask] = {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in _NOT_TASKS and not _info.ispkg:
        _task = getattr(importlib.import_module(f"{__name__}.{_info.name}"), "TASK", None)
        if _task is not None:
            if _task.slug != _info.name:
                raise ValueError(f"gpu_tasks/functions/{_info.name}.py holds task {_task.slug!r}: "
                                 "a task's module is named by its slug")
            TASKS[_task.slug] = _task


def logic(slug: str) -> ModuleType:
    """The task's trusted module: generate, reference, check, quality, CPP (never served)."""
    if slug not in TASKS:
        raise KeyError(slug)
    return importlib.import_module(f"{__name__}.{slug}")


__all__ = ["TASKS", "FunctionTask", "CppCall", "CppParam", "cases", "logic"]
