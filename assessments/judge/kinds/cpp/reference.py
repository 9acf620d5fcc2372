"""A task's C++ reference (`CPP_REFERENCE` of its module), built like a submission (build.py) and
loaded into the trusted parent: it answers the tests where a task has one (the Python
reference's answers, much faster: tests/judge/functions checks they agree) and is what C++
submissions are timed against. Called through python/native.py, as the child calls a submission."""
from __future__ import annotations

import ctypes
import os
import time

from ..python import native
from . import build


class CppReference:
    def __init__(self, run):
        call = run.logic.CPP
        k, _ = build.library(run.cache, run.logic.CPP_REFERENCE, run.task.function, limits=run.limits,
                             isolation=run.isolation, who="the reference")
        self._lib = ctypes.CDLL(str(run.cache.file(build.SECTION, k)), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        self.params = native.parse([{"name": p.name, "type": p.type} for p in call.params])
        self.function = native.bind(getattr(self._lib, run.task.function), self.params, call.returns)
        self.call = call

    def answer(self, args: dict):
        c_args, outs, _keep = native.arguments(self.params, self.call.to_cpp(args))
        self.function(*c_args)
        return self.call.from_cpp(args, {k: v.tolist() for k, v in outs.items()})

    def best(self, calls: list, repeat: int) -> float:
        prepared = [native.arguments(self.params, self.call.to_cpp(args)) for args in calls]
        out = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            for c_args, _, _ in prepared:
                self.function(*c_args)
            out = min(out, time.perf_counter() - began)
        return out
