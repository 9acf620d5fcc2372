"""A test's outputs against the reference: inputs bitwise unchanged, then each output with the
task's comparator (comparators.py). A failure raises Decided (wrong_answer) after filling the
test's max error and first mismatches."""
from __future__ import annotations

import numpy as np

from ...outcome import Decided, Outcome
from ...report import MismatchReport, TestReport
from ...verdicts import Verdict
from .comparators import COMPARATORS
from .task import Task


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(a: np.ndarray) -> np.ndarray:
    """The array's bits as unsigned integers of its item size (one per element; bytes for other
    sizes): NaN payloads and signed zeros compare as what they are, at the speed of an integer
    comparison."""
    a = np.ascontiguousarray(a)
    kind = _UNSIGNED.get(a.dtype.itemsize)
    return a.view(kind) if kind else a.view(np.uint8).reshape(a.shape + (-1,))


def modified_input(name: str, before: np.ndarray, after: np.ndarray, test: TestReport,
                   phase: str) -> None:
    """Bitwise comparison of an input before and after solve (NaN payloads included)."""
    if before.size == 0:
        return
    changed = _bits(before) != _bits(after)
    if changed.ndim > before.ndim:
        changed = changed.any(axis=-1)
    if not changed.any():
        return
    flat = np.flatnonzero(changed)
    idx = tuple(int(i) for i in np.unravel_index(int(flat[0]), before.shape))
    was, now = before[idx].item(), after[idx].item()
    test.mismatches = [MismatchReport(list(idx), now, was)]
    raise Decided(Outcome(Verdict.WRONG_ANSWER,
                          f"solve modified its input '{name}' {phase}: {len(flat)} element(s) "
                          f"changed, first at {list(idx)} (was {was}, now {now}); inputs must be "
                          "left unchanged"))


def compare_outputs(task: Task, inputs: dict, expected: dict, got: dict, test: TestReport,
                    phase: str, tolerance: dict | None = None) -> None:
    """Inputs unchanged, then every output against the reference with the task's comparator
    (`tolerance`: the task's tolerance for these inputs where the caller has it already)."""
    for a in task.args:
        if a.role == "in":
            modified_input(a.name, np.asarray(inputs[a.name]), got[a.name], test, phase)
    comparator = COMPARATORS[task.check]
    tol = task.tolerance_for(inputs) if tolerance is None else tolerance
    worst = 0.0
    for a in task.args:
        if a.role != "out":
            continue
        res = comparator(got[a.name], expected[a.name], initial=np.asarray(inputs[a.name]), **tol)
        worst = max(worst, float(res.max_error))
        if not res.passed:
            test.max_error = float(res.max_error)
            test.mismatches = [MismatchReport(list(m.index), m.got, m.expected) for m in res.mismatches]
            raise Decided(Outcome(Verdict.WRONG_ANSWER,
                                  f"wrong answer {phase}: output '{a.name}': {res.message}"))
    test.max_error = worst
