"""The judge's core: one judging's pipeline, whatever the kind of task.

The screen, the sandboxed session, loading, each test, the checks after the tests, timing and
the description of what ran are the kind's (kinds/, through `kinds.Kind`); the core orders them,
keeps the report's verdict and each test's row, and scores. A step that settles the verdict
raises outcome.Decided; the core catches it where the verdict is written (`_finish`) and, for a
test, where the test's fields are (`_run_test`).
"""
from __future__ import annotations

import secrets
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import kinds, sandbox, scoring
from .outcome import Decided, Outcome, Scrubber
from .report import Report, TestReport
from .sandbox import BUBBLEWRAP, UNSAFE, Limits
from .verdicts import Verdict

SUITES = ("tests", "samples")
# The samples' inputs are visible by design (the statement shows their sizes): a public seed.
SAMPLES_SEED = 0


class UnknownTask(KeyError):
    """No task with that slug."""


def resolve_task(task):
    """A task from a slug, looked up in each kind's task bank (never in the child)."""
    if not isinstance(task, str):
        return task
    found = kinds.find_task(task)
    if found is None:
        raise UnknownTask(f"unknown task {task!r}; known tasks: {', '.join(kinds.task_slugs())}")
    return found


@dataclass
class Run:
    """State of one judging run; a kind keeps its own in a subclass (`Kind.new_run`)."""

    task: Any
    kind: Any
    backend: Any                                # where the code runs: name, timed, limits...
    source: str
    seed: int
    limits: Limits
    report: Report
    scrub: Scrubber = field(default_factory=Scrubber)
    isolation: str = BUBBLEWRAP
    static_checks: bool = True
    cases: tuple = ()                           # the tests this run judges
    listings: bool = True

    def services(self) -> dict:
        """Services whose seconds are their own stages (a kind's compile stage), by name."""
        return {}

    @contextmanager
    def stage(self, name: str):
        """Adds the seconds spent in the block to `report.stages[name]`, less what went to the
        services (`services()`: each its own stage); for benchmarks only."""
        services = self.services()
        began = time.monotonic()
        before = {k: s.spent_s for k, s in services.items() if s is not None}
        try:
            yield
        finally:
            stages = self.report.stages
            spent = {k: services[k].spent_s - v for k, v in before.items()}
            stages[name] = stages.get(name, 0.0) + time.monotonic() - began - sum(spent.values())
            for k, v in spent.items():
                if v:
                    stages[k] = stages.get(k, 0.0) + v


def judge(task, source: str, backend: str = "cpu", seed: int | None = None, *,
          limits: Limits | None = None, timing: bool = True, wrapper=None,
          unsafe_no_sandbox: bool = False, static_checks: bool = True,
          suite: str = "tests", listings: bool = True, language: str | None = None) -> Report:
    """Judge `source` (a submission's text) on `task` (slug or Task) and return the report; the
    task's kind (kinds/) says how, `backend` where (a name the kind knows).

    Always returns a report with a final verdict; raises only for caller errors (UnknownTask, a
    backend name that does not exist). The code runs under bubblewrap; where that cannot run the
    report is an internal_error saying so, unless `unsafe_no_sandbox` (one's own code only).
    `static_checks=False` exists for the hostile-submission tests, which show the sandbox alone
    contains each attack; `wrapper` replaces the sandbox with a test's own command.
    `suite="samples"` judges only the task's small visible samples (public seed 0 unless given,
    no timing, no score): what a candidate tries before submitting. `listings` asks the kind
    for the listings it can show of the compiled code. `language` ("python", "cpp", ...) picks
    the kind of a task several kinds judge (a function task in Python or C++); None: the task's own.
    """
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; use one of {', '.join(SUITES)}")
    task = resolve_task(task)
    kind = kinds.kind_of(task, language)
    backend = kind.backend(backend)
    started = time.monotonic()
    samples = suite == "samples"
    cases = tuple(task.sample_cases) if samples else tuple(task.tests.get(backend.name, ()))
    if seed is None:
        seed = SAMPLES_SEED if samples else secrets.randbits(63)
    seed = int(seed)
    report = Report(task=task.slug, backend=backend.name, verdict=Verdict.INTERNAL_ERROR, message="",
                    seed=seed, suite=suite, tests=[TestReport(c.name, dict(c.dims)) for c in cases])
    run = kind.new_run(task=task, kind=kind, backend=backend, source=source, seed=seed,
                       limits=limits or backend.limits, report=report,
                       isolation=UNSAFE if unsafe_no_sandbox else BUBBLEWRAP,
                       static_checks=static_checks, cases=cases, listings=listings)
    try:
        _judge(run, wrapper, timing)
    except Exception as exc:  # the service needs a final status even when the judge breaks
        report.verdict = Verdict.INTERNAL_ERROR
        report.message = f"the judge failed: {type(exc).__name__}: {exc}"
        report.details = run.scrub("".join(traceback.format_exception(exc))[-4000:])
    report.message = run.scrub(report.message)
    t = report.timing
    if samples:
        report.score, report.score_detail = 0.0, {"total": 0.0, "max": 0.0, "samples": True,
                                                  "counted": False,
                                                  "note": "sample runs are not scored"}
    else:
        est = report.profile
        synth = report.synthesis
        if t is None and synth is not None:
            # a design's performance: its area and depth against the reference design's
            sc = scoring.score(report.verdict, True, synth.get("fraction"))
            detail = {**sc.to_dict(), "synthesized": True}
        elif t is None and report.mutants is not None:
            # a testbench's performance: the share of the mutants it caught
            sc = scoring.score(report.verdict, True, scoring.caught_fraction(report.mutants))
            detail = {**sc.to_dict(), "mutants_caught": sum(1 for m in report.mutants if m["caught"]),
                      "mutants": len(report.mutants)}
        elif t is None and report.measure is not None:
            # a function's performance: its time against the reference's, and/or its quality
            sc = scoring.score(report.verdict, True, report.measure.get("fraction"))
            detail = {**sc.to_dict(), "measured": True}
        elif t is None and est is not None:
            # estimated, not measured: the same 40 points from the estimate's roofline fraction
            sc = scoring.score(report.verdict, True, est.get("roofline_fraction"),
                               eligible=bool(est.get("eligible")))
            detail = {**sc.to_dict(), "estimated": True}
        else:
            sc = scoring.score(report.verdict, backend.timed,
                               t.roofline["fraction"] if t and t.roofline else None,
                               eligible=bool(t.leaderboard_eligible) if t else True)
            detail = sc.to_dict()
        report.score, report.score_detail = sc.total, detail
    report.elapsed_s = round(time.monotonic() - started, 3)
    return report


def _finish(run: Run, outcome: Outcome) -> None:
    r = run.report
    r.verdict, r.message = outcome.verdict, outcome.message
    r.details = run.scrub(outcome.details) if outcome.details else None
    r.compile_log = run.scrub(outcome.compile_log) if outcome.compile_log else None


def _judge(run: Run, wrapper, timing: bool) -> None:
    kind = run.kind
    try:
        if run.static_checks:
            with run.stage("static"):
                kind.screen(run)
        if wrapper is None and run.isolation == BUBBLEWRAP:
            usable, why = sandbox.probe()
            if not usable:
                raise Decided(Outcome(Verdict.INTERNAL_ERROR, sandbox.refusal_message(why)))
    except Decided as decided:
        _finish(run, decided.outcome)
        return
    try:
        with kind.session(run, wrapper):
            try:
                _drive(run, timing)
            except Decided as decided:
                _finish(run, decided.outcome)
            kind.describe(run)
    except Decided as decided:   # the session could not start
        _finish(run, decided.outcome)


def _drive(run: Run, timing: bool) -> None:
    """Load the submission, run every test, then the kind's checks and timing; raises Decided."""
    kind = run.kind
    kind.load(run)
    with run.stage("tests"):
        for i, case in enumerate(run.cases):
            _run_test(run, i, case)
    n = len(run.cases)
    where = run.backend.description
    if run.report.suite == "samples":
        kind.after_tests(run)
        _finish(run, Outcome(Verdict.ACCEPTED, f"all {n} sample tests passed on {where}; "
                                               "submit to be judged on the hidden tests"))
        return
    _finish(run, Outcome(Verdict.ACCEPTED, f"all {n} tests passed on {where}"))
    kind.after_tests(run)
    if timing:
        kind.measure(run)


def _run_test(run: Run, index: int, case) -> None:
    """One test; its report row is filled here, whatever decides it."""
    test = run.report.tests[index]
    try:
        run.kind.run_test(run, index, case, test)
    except Decided as decided:
        test.passed, test.verdict, test.message = (False, decided.outcome.verdict.value,
                                                   decided.outcome.message)
        raise
    test.passed = True
