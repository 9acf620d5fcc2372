"""The `cpp` kind's own steps: the screen and loading (g++ in the compile sandbox, the library
loaded in the run sandbox's child through the task's `extern "C"` signature); every other step
is the function kinds' (kinds/python/stages.py). Performance is timed against the task's C++
reference built the same way and called the same way (python/native.py) in the parent."""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Callable

from ... import build_cache
from ...outcome import Decided, Outcome
from ...verdicts import Verdict
from ..python import stages as common
from . import build

MAX_SOURCE = 256 * 1024
CPP_FACTOR = 30.0    # a task without a C++ reference: its Python reference's time over this


def screen(run: common.FunctionRun) -> None:
    if len(run.source.encode()) > MAX_SOURCE:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the file is over {MAX_SOURCE // 1024} KiB"))
    name = run.task.function
    if not re.search(rf"\b{re.escape(name)}\s*\(", run.source):
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"no function `{name}` in the file (the task calls "
                                                     f'`extern "C"` {name} with the statement\'s signature)'))


@contextmanager
def session(run: common.FunctionRun, wrapper):
    run.cache = build_cache.BuildCache()
    run.view = run.cache.view()
    try:
        with common.session(run, wrapper):
            yield
    finally:
        run.view.close()


def load(run: common.FunctionRun) -> None:
    task, call = run.task, run.logic.CPP
    with run.stage("build"):
        k, entry = build.library(run.cache, run.source, task.function, limits=run.limits, isolation=run.isolation)
        try:
            library = run.view.add(k)
        except FileNotFoundError:   # evicted between the two: made again
            k, entry = build.library(run.cache, run.source, task.function, limits=run.limits,
                                     isolation=run.isolation)
            library = run.view.add(k)
    if entry.get("log", "").strip():
        run.report.compile_log = "g++'s warnings:\n" + run.scrub(entry["log"])
    with run.stage("load"):
        common.request(run, {"op": "load", "language": "cpp", "library": library, "function": task.function,
                             "params": [{"name": p.name, "type": p.type} for p in call.params],
                             "returns": call.returns}, "while loading the library")
    common.reference_answers(run)   # the C++ reference, where the task has one, before the timer
    run.time_reference = _reference_timer(run)


def _reference_timer(run: common.FunctionRun) -> Callable:
    """(calls, repeat) -> the task's C++ reference's best seconds; the Python reference's over
    CPP_FACTOR for a task without one."""
    if run.cpp_reference is None:
        python = common.python_reference_timer(run.logic)
        return lambda calls, repeat: python(calls, repeat) / CPP_FACTOR
    return run.cpp_reference.best
