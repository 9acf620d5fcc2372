"""The registry: every task module's TASK by slug."""
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
from gpu_tasks.base import Task

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
