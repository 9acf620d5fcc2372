"""Every task's data fits the limits of the backend that judges it: a judge whose own file-size
or scratch limit is smaller than a task's benchmark fails correct solutions (seen on an H100:
the timing re-check of sgemv and matrix_transpose, one slot's inputs and outputs in one .npz,
ran into a 512 MiB RLIMIT_FSIZE and was reported as the candidate's runtime error)."""
import pytest

import gpu_tasks
from assessments.judge.kinds.cupy.backends.base import BACKENDS

TASKS = gpu_tasks.all_tasks()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.slug)
@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_the_largest_data_of_each_task_fits_the_file_and_scratch_limits(task, backend):
    limits = BACKENDS[backend].limits
    sizes = [dict(c.dims) for c in task.tests.get(backend, ())]
    if task.bench.get(backend):
        sizes.append(dict(task.bench[backend]))
    for dims in sizes:
        moved, _flops = task.cost(dims)     # each input read once, each output written once
        # One .npz holds a test's (or a re-checked slot's) inputs and outputs: twice that leaves
        # room for the archive's headers and any output a task counts once but writes wider.
        assert 2 * moved <= limits.file_size, (task.slug, dims, moved, limits.file_size)
        assert 3 * moved <= limits.scratch_size, (task.slug, dims, moved, limits.scratch_size)
