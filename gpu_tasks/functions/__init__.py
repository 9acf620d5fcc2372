"""Function tasks (kinds `python` and `cpp`): a function with a fixed name and signature, judged
on hidden inputs against the task's trusted logic. Each module of this package but `model` and
`fit_answers` (the two scheduler-filter tasks' shared checking) is one task: it gives `TASK` and
the task's generator, reference and checker (model.py says what); none of that but the task
object is ever served."""
from __future__ import annotations

from ..discover import logic_of, tasks_in
from .model import CppCall, CppParam, FunctionTask, cases

TASKS = tasks_in(__name__, __path__, helpers={"model", "fit_answers"})


def logic(slug: str):
    """The task's trusted module: generate, reference, check, quality, CPP (never served)."""
    return logic_of(__name__, TASKS, slug)


__all__ = ["TASKS", "FunctionTask", "CppCall", "CppParam", "cases", "logic"]
