"""Rules tasks (kind `promql`): a Prometheus rule file whose alerts promtool evaluates on hidden
series, compared with the alerts the task's trusted logic expects. Each module of this package
but the helpers is one task: it gives `TASK` and the task's generator and conditions (model.py
says what); none of that but the task object is ever served, nor the references in reference/."""
from __future__ import annotations

from ..discover import logic_of, tasks_in
from .model import Alert, RulesTask, cases

TASKS = tasks_in(__name__, __path__, helpers={"model", "series", "semantics", "fleet"})


def logic(slug: str):
    """The task's trusted module: generate, conditions, observe (never served)."""
    return logic_of(__name__, TASKS, slug)


__all__ = ["TASKS", "Alert", "RulesTask", "cases", "logic"]
