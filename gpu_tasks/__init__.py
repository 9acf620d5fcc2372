"""The task bank: one module per task, registered by slug."""
from gpu_tasks.base import FLOAT_SENTINEL, INT_SENTINEL, Arg, Task, TestCase, output_like
from gpu_tasks.registry import TASKS, all_tasks, get_task
from gpu_tasks.catalog import STYLES, reference_source, starter, starters

__all__ = [
    "Arg", "Task", "TestCase", "TASKS", "get_task", "all_tasks",
    "FLOAT_SENTINEL", "INT_SENTINEL", "output_like",
    "STYLES", "starter", "starters", "reference_source",
]
