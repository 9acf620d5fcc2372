"""The `cpp` kind's own steps: the screen and loading (g++ in the compile sandbox, the library
loaded in the run sandbox's child through the task's `extern "C"` signature); every other step
is the function kinds' (kinds/python/stages.py). Performance is timed against the task's C++
reference built the same way and called the same way (python/native.py) in the parent."""
from __future__ import annotations

import ctypes
import os
import re
import time
from contextlib import contextmanager
from typing import Callable

from ... import build_cache
from ...outcome import Decided, Outcome
from ...verdicts import Verdict
from ..python import native, stages as common
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
    run.time_reference = _reference_timer(run)


def _reference_timer(run: common.FunctionRun) -> Callable:
    """(calls, repeat) -> the task's C++ reference's best seconds, built on first use and loaded
    into the parent (trusted code); the Python reference over CPP_FACTOR without one."""
    logic = run.logic
    source = getattr(logic, "CPP_REFERENCE", None)
    if source is None:
        python = common._python_reference_timer(logic)
        return lambda calls, repeat: python(calls, repeat) / CPP_FACTOR
    loaded: list = []

    def best(calls: list, repeat: int) -> float:
        call = logic.CPP
        if not loaded:
            k, _ = build.library(run.cache, source, run.task.function, limits=run.limits,
                                 isolation=run.isolation, who="the reference")
            lib = ctypes.CDLL(str(run.cache.file(build.SECTION, k)), mode=os.RTLD_NOW | os.RTLD_LOCAL)
            params = native.parse([{"name": p.name, "type": p.type} for p in call.params])
            loaded.append((native.bind(getattr(lib, run.task.function), params, call.returns), params))
        function, params = loaded[0]
        prepared = [native.arguments(params, call.to_cpp(args)) for args in calls]
        out = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            for args, _, _ in prepared:
                function(*args)
            out = min(out, time.perf_counter() - began)
        return out
    return best
