"""The compile stage's common ground: what the child may ask of its parent instead of compiling.

The child may not start programs, and the parent compiles nothing in its own process: each
request (`build`: an emulator build, builds.py; `gate`: NVRTC, gate.py) is answered from the
machine's cache (build_cache.py) or by a job in the compile sandbox (compile_sandbox.py) whose
result is cached. Compiling is off the request's clock (the runner leaves out the seconds `serve`
returns) and has limits of its own: `Limits.compile_s` per job, `compile_total_s` for all the
run's jobs (a `Budget` the services share). Answering from the cache stays on the clock, so a
flood of requests cannot stop it. A failure of the judge's own sets `failure`, which the engine
turns into an internal_error whatever the child makes of the reply.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from . import compile_sandbox
from .build_cache import BuildCache
from .compile_sandbox import JobFailed
from .sandbox import Limits

MAX_SOURCE = 1024 * 1024
MAX_ITEMS = 256
MAX_ITEM = 1024


@dataclass
class Budget:
    """The compile seconds left to a run, shared by its services."""

    total_s: float
    spent_s: float = 0.0

    def left(self) -> float:
        return self.total_s - self.spent_s


class OverBudget(Exception):
    """A job that cannot run (the run's compile time is spent) or ran past its own limit."""


class Service:
    """One kind of request of the run's child; subclasses implement `_serve` and name `what`."""

    what = "compile a kernel"             # the judge could not ...
    doing = "compiling the kernel"        # ... took longer than N s
    job_files = compile_sandbox.JobFiles()  # what the kind's jobs import (its compile_sandbox.JobFiles)

    def __init__(self, backend, limits: Limits, isolation: str, cache: BuildCache | None = None,
                 budget: Budget | None = None):
        self.backend = backend
        self.limits = limits
        self.isolation = isolation
        self.cache = cache or BuildCache()
        self.budget = budget or Budget(limits.compile_total_s)
        self.spent_s = 0.0            # serving requests (the report's stage)
        self.failure: str | None = None
        self._off_clock = 0.0

    def serve(self, msg: dict) -> tuple[dict, float]:
        """The reply to one request and the seconds to leave off the request's clock."""
        began, self._off_clock = time.monotonic(), 0.0
        try:
            reply = self._serve(msg)
        except Exception as exc:   # the judge's own failure: never the candidate's verdict
            self.failure = f"the judge could not {self.what}: {type(exc).__name__}: {exc}"
            reply = {"ok": False, "log": self.failure}
        self.spent_s += time.monotonic() - began
        return reply, self._off_clock

    def _serve(self, msg: dict) -> dict:
        raise NotImplementedError

    def compile_limits(self) -> compile_sandbox.CompileLimits:
        return compile_sandbox.CompileLimits(memory=self.limits.compile_memory)

    def close(self) -> None:
        """Ends what the service still has under way."""

    def _cached(self, section: str, k: str, make) -> dict:
        """The entry for `k`, made by `make()` (which caches it) when absent; the time spent
        making it or waiting for another worker's making of it is off the clock."""
        entry = self.cache.get(section, k)
        if entry is not None:
            return entry
        began = time.monotonic()
        try:
            with self.cache.locked(section, k):
                return self.cache.get(section, k) or make()
        finally:
            self._off_clock += time.monotonic() - began

    def _job(self, module: str, job: dict, *, limit_s: float | None = None,
             readonly: tuple[str, ...] = (), budgeted: bool = True) -> dict:
        """Run one compile sandbox job within the per-job limit and the run's budget (unless
        not `budgeted`: the listings, made after the verdict, have their own); OverBudget when
        either is spent, RuntimeError when the sandbox failed."""
        return self._answer(self._start(module, job, limit_s=limit_s, readonly=readonly,
                                        budgeted=budgeted))

    def _start(self, module: str, job: dict, *, limit_s: float | None = None,
               readonly: tuple[str, ...] = (), budgeted: bool = True) -> "Started":
        """`_job`'s first half: the job, started; `_answer` waits for it."""
        left = self.budget.left() if budgeted else float("inf")
        if left <= 0:
            raise OverBudget(f"the kernels of this run took more than {self.budget.total_s:g} s "
                             "to compile in all (the compile time limit)")
        timeout = min(limit_s or self.limits.compile_s, left)
        began = time.monotonic()
        try:
            started = compile_sandbox.Job(module, job, timeout_s=timeout, isolation=self.isolation,
                                          readonly=readonly, limits=self.compile_limits(),
                                          files=self.job_files)
        except JobFailed as exc:
            raise RuntimeError(str(exc)) from None
        return Started(started, timeout, began, budgeted)

    def _answer(self, started: "Started") -> dict:
        try:
            return started.job.answer()
        except JobFailed as exc:
            if exc.timed_out:
                raise OverBudget(f"{self.doing} took longer than {started.timeout_s:g} s "
                                 "(the compile time limit)") from None
            if exc.out_of_memory:
                raise OverBudget(f"{self.doing} {exc} (the compile memory limit)") from None
            raise RuntimeError(str(exc)) from None
        finally:
            if started.budgeted:
                self.budget.spent_s += time.monotonic() - started.began


@dataclass
class Started:
    """A compile sandbox job under way, with what its answer is charged against."""

    job: compile_sandbox.Job
    timeout_s: float
    began: float
    budgeted: bool


def valid(msg: dict, *, checking: bool = False) -> tuple | None:
    """(source, options, name expressions[, checking]) of a well-formed request, else None."""
    source, options = msg.get("source"), msg.get("options", [])
    exprs = msg.get("name_expressions", [])
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        return None
    for items in (options, exprs):
        if not isinstance(items, list) or len(items) > MAX_ITEMS or \
                not all(isinstance(x, str) and len(x) <= MAX_ITEM for x in items):
            return None
    if not checking:
        return source, tuple(options), tuple(exprs)
    flag = msg.get("checking", False)
    return (source, tuple(options), tuple(exprs), flag) if isinstance(flag, bool) else None
