"""The steps of kinds `python` and `cpp` (kinds.Kind): the submission runs in the run sandbox's
child, which calls its function on each test's arguments; the parent generates them from the
secret seed, computes the task's reference answers and checks every result with the task's
checker (gpu_tasks/functions/<slug>.py). The child never sees the seed, the reference or the
checker. What differs by language is the screen and loading (here for Python, kinds/cpp/ for
C++) and the reference the time is measured against (`FunctionRun.time_reference`).

Arrays go to the child as .npy files in its scratch (written by the parent, read back by
numpy without pickles); everything else, and the results, as JSON on the pipe.
"""
from __future__ import annotations

import ast
import json
import math
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ... import build_cache, scoring
from ...engine import Run
from ...outcome import Decided, Outcome
from ...report import TestReport
from ...runner import ChildDied
from ...sandbox import SandboxSpec
from ..child_backend import started_child
from ...verdicts import Verdict
from . import faults, screen as python_screen

SOLUTION = "solution.py"
SHOWN = 8                   # array elements shown of an input
SHOWN_CHARS = 2000
REPEAT_BELOW_S = 0.5        # a timed test faster than this is run again...
REPEAT_FOR_S = 1.0          # ...until about this long in all (best run kept), both sides
MAX_REPEATS = 50


@dataclass
class FunctionRun(Run):
    language: str = "python"
    logic: Any = None                 # the task's module: generate, reference, check, quality, CPP
    child: Any = None
    scratch: Path | None = None
    cache: Any = None                 # cpp: the build cache and the run's view of it
    view: Any = None
    # (calls, repeat) -> the reference's best seconds over the calls (Python's, or C++'s)
    time_reference: Callable | None = None
    cpp_reference: Any = None         # the task's C++ reference loaded here, where it has one
    bench: dict | None = None         # the timed test: its calls as sent, the seconds measured
    quality: dict = field(default_factory=dict)   # test name -> the mean quality fraction


def logic_of(task):
    from gpu_tasks.functions import logic
    return logic(task.slug)


def arity(signature: str) -> int:
    """The number of parameters of the statement's Python signature."""
    tree = ast.parse(signature.strip().rstrip(":") + ": pass")
    return len(tree.body[0].args.args)


# ---- steps -----------------------------------------------------------------------------------------
def screen(run: FunctionRun) -> None:
    python_screen.screen(run.source, run.task.function)


@contextmanager
def session(run: FunctionRun, wrapper):
    """Scratch (with the Python submission, read-only there), the cpp build cache's view, the
    sandboxed child."""
    run.logic = logic_of(run.task)
    scratch = Path(tempfile.mkdtemp(prefix="kp-fn-"))
    if run.language == "python":
        (scratch / SOLUTION).write_text(run.source, encoding="utf-8")
    try:
        spec = SandboxSpec(scratch=scratch, backend=run.backend, limits=run.limits, wrapper=wrapper,
                           isolation=run.isolation,
                           builds_view=str(run.view.path) if run.view is not None else None)
        with started_child(run, spec):
            run.scratch = run.child.spec.scratch
            yield
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def load(run: FunctionRun) -> None:
    task = run.task
    with run.stage("load"):
        request(run, {"op": "load", "language": "python", "file": SOLUTION, "function": task.function,
                      "arity": arity(task.python_signature)}, "while loading the file")
    run.time_reference = python_reference_timer(run.logic)
    reference_answers(run)


def python_reference_timer(logic) -> Callable:
    def best(calls: list, repeat: int) -> float:
        out = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            for args in calls:
                logic.reference(args)
            out = min(out, time.perf_counter() - began)
        return out
    return best


def reference_answers(run: FunctionRun) -> Callable:
    """What the checker compares with: the task's C++ reference's answers where it has one (built
    once per machine; the same answers as the Python reference, much faster), else the Python
    reference's."""
    if getattr(run.logic, "CPP_REFERENCE", None) is None:
        return run.logic.reference
    if run.cpp_reference is None:
        from ..cpp.reference import CppReference
        if run.cache is None:
            run.cache = build_cache.BuildCache()
        with run.stage("build"):
            run.cpp_reference = CppReference(run)
    return run.cpp_reference.answer


def request(run: FunctionRun, message: dict, phase: str):
    """One request to the child; Decided with the verdict when it failed or died."""
    try:
        answer = run.child.request(message)
    except ChildDied as died:
        group = run.child.group
        if died.reason == "wall" and group is not None and group.processes_hit():
            died.reason = "processes"   # a fork bomb spinning at the cap: the cap is the news
        stderr, _ = run.child.captured("stderr", 8 * 1024)
        raise Decided(faults.from_death(died, phase=phase, stderr=run.scrub(stderr), limits=run.limits,
                                        language=run.language)) from None
    if not answer.message.get("ok"):
        raise Decided(faults.from_error(answer.message.get("error") or {}, phase=phase, limits=run.limits,
                                        language=run.language))
    return answer


def run_test(run: FunctionRun, index: int, case, test: TestReport) -> None:
    logic, task = run.logic, run.task
    calls = logic.generate(np.random.default_rng([run.seed, index]), dict(case.dims))
    timed = run.report.suite == "tests" and task.bench_case is not None and case.name == task.bench_case.name
    phase = f"on test {case.name}"
    files: list[str] = []
    wire = [send_call(run, index, i, args, files) for i, args in enumerate(calls)]
    answers_of = reference_answers(run)
    reference_s = None
    if timed:   # one after the other: neither slows the other down
        began = time.perf_counter()
        expected = [answers_of(args) for args in calls]
        if answers_of is logic.reference and run.language == "python":
            reference_s = time.perf_counter() - began   # the reference it is timed against
        answer = request(run, {"op": "call", "calls": wire}, phase)
    else:       # the reference's answers beside the child's run (the parent waits on a pipe)
        with ThreadPoolExecutor(1) as pool:
            answers = pool.submit(lambda: [answers_of(args) for args in calls])
            answer = request(run, {"op": "call", "calls": wire}, phase)
            expected = answers.result()
    seconds = float(answer.message.get("seconds") or 0.0)
    test.elapsed_s = round(seconds, 4)
    results = answer.message.get("results")
    if not isinstance(results, list) or len(results) != len(calls):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the child answered a different number of results"))
    stray = run.child.stray_tasks()
    if stray:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"{stray} thread(s) or process(es) of your program were "
                                                     f"still running after the function returned {phase}"))
    fractions = []
    for i, (args, exp, got) in enumerate(zip(calls, expected, results)):
        actual = answer_of(run, args, got)
        why = logic.check(args, exp, actual)
        if why:
            raise Decided(wrong_answer(run, case, i, len(calls), args, exp, actual, why))
        if "quality" in task.performance:
            fractions.append(_quality_fraction(task, logic, args, exp, actual))
    if fractions:
        run.quality[case.name] = sum(fractions) / len(fractions)
    if timed:
        run.bench = {"test": case.name, "calls": calls, "wire": wire, "seconds": seconds,
                     "reference_seconds": reference_s}
    else:
        _remove(run, files)


def answer_of(run: FunctionRun, args: dict, got):
    """The submission's answer as the checker reads it (C++: the output arrays made Python)."""
    if run.language != "cpp":
        return got
    try:
        return run.logic.CPP.from_cpp(args, got["outs"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the child's answer is malformed: {exc}")) from None


def send_call(run: FunctionRun, test: int, call: int, args: dict, files: list) -> list | dict:
    """One call's arguments as the child takes them; arrays written to .npy files in its scratch."""
    def put(name: str, value):
        if isinstance(value, np.ndarray):
            fname = f"t{test}.c{call}.{name}.npy"
            path = Path(run.scratch) / fname
            if path.is_symlink() or path.exists():
                path.unlink()
            np.save(path, np.ascontiguousarray(value), allow_pickle=False)
            files.append(fname)
            return {"npy": fname}
        return {"value": _json_value(value)}

    if run.language == "cpp":
        values = run.logic.CPP.to_cpp(args)
        wanted = {p.name for p in run.logic.CPP.params if p.type.startswith("in:") or ":" not in p.type}
        return {name: put(name, values[name]) for name in wanted}
    return [put(name, value) for name, value in args.items()]


def _json_value(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


def _remove(run: FunctionRun, files: list) -> None:
    for fname in files:
        try:
            os.unlink(Path(run.scratch) / fname)
        except OSError:
            pass


def _quality_fraction(task, logic, args, expected, actual) -> float:
    q, ref = float(logic.quality(args, actual)), float(logic.quality(args, expected))
    if task.quality_goal == "max":
        return 1.0 if ref <= 0 else max(0.0, min(1.0, q / ref))
    return 1.0 if q <= 0 else max(0.0, min(1.0, ref / q))


# ---- a wrong answer ----------------------------------------------------------------------------------
def wrong_answer(run, case, i: int, n: int, args: dict, expected, actual, why: str) -> Outcome:
    shown = show(run.logic, args)
    where = f"test {case.name}" + (f", call {i + 1} of {n}" if n > 1 else "")
    inline = f" ({shown})" if len(shown) <= 120 else ""
    # Where many answers are right (a placement, a schedule) the judge's own is one of them.
    label = "One right answer" if getattr(run.logic, "MANY_ANSWERS", False) else "Expected"
    details = (f"Test {case.name}" + (f", call {i + 1} of {n}" if n > 1 else "") + "\n"
               f"Inputs:   {shown}\n{label}: {_compact(expected)}\nGot:      {_compact(actual)}")
    return Outcome(Verdict.WRONG_ANSWER, f"{where}{inline}: {why}", details=details)


def show(logic, args: dict) -> str:
    """The inputs as a person reads them: the task's own rendering, else each argument trimmed."""
    if hasattr(logic, "show"):
        return logic.show(args)[:SHOWN_CHARS]
    parts = []
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            head = ", ".join(str(v) for v in value.ravel()[:SHOWN].tolist())
            more = ", ..." if value.size > SHOWN else ""
            parts.append(f"{name}={value.dtype}[{value.size}] [{head}{more}]")
        else:
            parts.append(f"{name}={_compact(value, 200)}")
    return ", ".join(parts)[:SHOWN_CHARS]


def _compact(value, limit: int = 600) -> str:
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---- after the tests ---------------------------------------------------------------------------------
def after_tests(run: FunctionRun) -> None:
    """Nothing to overrule: every result was checked as it came."""


def measure(run: FunctionRun) -> None:
    """The performance fraction: the submission's time on the timed test against the reference's
    (both best of a few runs when one is short), and/or the mean quality fraction."""
    task = run.task
    figures: dict = {}
    parts = []
    if "time" in task.performance and run.bench is not None:
        bench = run.bench
        seconds = bench["seconds"]
        repeat = _repeats(seconds)
        if repeat > 1:
            answer = request(run, {"op": "call", "calls": bench["wire"], "repeat": repeat},
                             f"timing test {bench['test']}")
            seconds = min(seconds, float(answer.message.get("seconds") or seconds))
        reference_s = _reference_seconds(run, bench)
        fraction = scoring.time_fraction(seconds, reference_s)
        figures.update({"test": bench["test"], "seconds": round(seconds, 6),
                        "reference_seconds": round(reference_s, 6), "reference": run.language,
                        "time_fraction": round(fraction, 4)})
        parts.append(fraction)
    if "quality" in task.performance and run.quality:
        q = sum(run.quality.values()) / len(run.quality)
        figures.update({"quality": round(q, 4), "quality_by_test": {k: round(v, 4) for k, v in run.quality.items()}})
        parts.append(q)
    if parts:
        figures["fraction"] = round(math.prod(parts) ** (1 / len(parts)), 4)
        run.report.measure = figures


def _reference_seconds(run: FunctionRun, bench: dict) -> float:
    """The reference's best time on the timed test's calls, run as often as the submission."""
    first = bench["reference_seconds"]        # Python: measured while computing the answers
    if first is None:
        first = run.time_reference(bench["calls"], 1)
    repeat = _repeats(first)
    return first if repeat == 1 else min(first, run.time_reference(bench["calls"], repeat))


def _repeats(seconds: float) -> int:
    if seconds >= REPEAT_BELOW_S:
        return 1
    return max(2, min(MAX_REPEATS, int(REPEAT_FOR_S / max(seconds, 1e-4))))


def describe(run: FunctionRun) -> None:
    """The submission's captured stdout and stderr."""
    cap = run.limits.captured_output
    for which in ("stdout", "stderr"):
        text, size = run.child.captured(which, cap)
        text = run.scrub(text) or ""
        if size > cap:
            text += f"\n... ({size - cap} more bytes cut)"
        setattr(run.report, which, text)
