"""The task bank: one module per task, registered by slug."""
from gpu_tasks import (
    attention,
    conv1d,
    conv2d,
    histogram,
    layer_norm,
    matmul,
    matrix_transpose,
    prefix_sum,
    reduce_sum,
    relu,
    saxpy,
    sgemv,
    softmax,
    vector_add,
)
from gpu_tasks.base import FLOAT_SENTINEL, INT_SENTINEL, Arg, Task, TestCase, output_like

_MODULES = (
    vector_add,
    relu,
    saxpy,
    matrix_transpose,
    reduce_sum,
    prefix_sum,
    histogram,
    matmul,
    softmax,
    conv1d,
    sgemv,
    layer_norm,
    conv2d,
    attention,
)

TASKS: dict[str, Task] = {m.TASK.slug: m.TASK for m in _MODULES}


def get_task(slug: str) -> Task:
    try:
        return TASKS[slug]
    except KeyError:
        raise KeyError(f"unknown task {slug!r}; known tasks: {', '.join(sorted(TASKS))}") from None


def all_tasks() -> list[Task]:
    return list(TASKS.values())


# After the registry: the catalog looks tasks up in it.
from gpu_tasks.catalog import STYLES, reference_source, starter, starters  # noqa: E402

__all__ = [
    "Arg", "Task", "TestCase", "TASKS", "get_task", "all_tasks",
    "FLOAT_SENTINEL", "INT_SENTINEL", "output_like",
    "STYLES", "starter", "starters", "reference_source",
]
