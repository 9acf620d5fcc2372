"""The judge's pipeline: static checks, the child run of every test, timing, score and report."""
from __future__ import annotations

import secrets
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import evaluate, scoring, static
from .outcome import Outcome, Scrubber, from_death, from_error, from_incidents
from .report import Report, TestReport, TimingReport
from .runner import ChildDied, ChildProcess
from .sandbox import DEFAULT_LIMITS, REPO_ROOT, Limits, SandboxSpec
from .verdicts import Verdict

BACKENDS = ("cpu", "cuda")
SOLUTION_FILE = "solution.py"
BENCH_STREAM = 1_000_000   # rng stream of the timing inputs, apart from the tests' streams
TIMING_WARMUP, TIMING_REPEATS, TIMING_BUDGET_S = 3, 20, 10.0


class UnknownTask(KeyError):
    """No task with that slug."""


def resolve_task(task):
    """A Task from a slug (the task bank is imported here, never in the child)."""
    if not isinstance(task, str):
        return task
    import gpu_tasks
    try:
        return gpu_tasks.get_task(task)
    except KeyError as exc:
        raise UnknownTask(str(exc.args[0]) if exc.args else task) from None


@dataclass
class _Run:
    """State of one judging run."""

    task: object
    backend: str
    source: str
    seed: int
    limits: Limits
    report: Report
    scrub: Scrubber = field(default_factory=Scrubber)
    child: ChildProcess | None = None
    snapshot: dict = field(default_factory=lambda: {"kernels": [], "incidents": []})
    incidents_seen: int = 0
    arch: str = "sm_90"


def judge(task, source: str, backend: str = "cpu", seed: int | None = None, *,
          limits: Limits | None = None, timing: bool = True, wrapper=None) -> Report:
    """Judge `source` (a submission's text) on `task` (slug or Task) and return the report.

    Always returns a report with a final verdict; raises only for caller errors (UnknownTask, a
    backend name that does not exist).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    task = resolve_task(task)
    started = time.monotonic()
    seed = secrets.randbits(63) if seed is None else int(seed)
    report = Report(task=task.slug, backend=backend, verdict=Verdict.INTERNAL_ERROR, message="",
                    seed=seed,
                    tests=[TestReport(c.name, dict(c.dims)) for c in task.tests.get(backend, ())])
    run = _Run(task, backend, source, seed, limits or DEFAULT_LIMITS[backend], report)
    try:
        _judge(run, wrapper, timing)
    except Exception as exc:  # the service needs a final status even when the judge breaks
        report.verdict = Verdict.INTERNAL_ERROR
        report.message = f"the judge failed: {type(exc).__name__}: {exc}"
        report.details = run.scrub("".join(traceback.format_exception(exc))[-4000:])
    report.message = run.scrub(report.message)
    sc = scoring.score(report.verdict, backend,
                       report.timing.roofline["fraction"] if report.timing and report.timing.roofline else None)
    report.score, report.score_detail = sc.total, sc.to_dict()
    report.elapsed_s = round(time.monotonic() - started, 3)
    return report


def _finish(run: _Run, outcome: Outcome) -> None:
    r = run.report
    r.verdict, r.message = outcome.verdict, outcome.message
    r.details = run.scrub(outcome.details) if outcome.details else None
    r.compile_log = run.scrub(outcome.compile_log) if outcome.compile_log else None


def _judge(run: _Run, wrapper, timing: bool) -> None:
    task = run.task
    result = static.check(run.source, arity=len(task.args), arg_names=tuple(a.name for a in task.args),
                          filename=SOLUTION_FILE)
    if not result.ok:
        _finish(run, Outcome(result.verdict, result.message))
        return
    scratch = Path(tempfile.mkdtemp(prefix="kp-judge-"))
    run.scrub = Scrubber(scratch, REPO_ROOT)
    try:
        (scratch / SOLUTION_FILE).write_text(run.source, encoding="utf-8")
        spec = SandboxSpec(scratch=scratch, backend=run.backend, limits=run.limits, wrapper=wrapper)
        run.child = ChildProcess(spec)
        with run.child:
            _drive(run, timing)
            _collect_output(run)
    finally:
        run.report.kernels = evaluate.kernel_reports(run.snapshot.get("kernels", []), run.arch)
        shutil.rmtree(scratch, ignore_errors=True)


def _drive(run: _Run, timing: bool) -> None:
    task = run.task
    checking = run.backend == "cpu"
    outcome, answer = _request(run, {"op": "load", "file": SOLUTION_FILE, "arity": len(task.args),
                                     "checking": checking}, "while loading your file")
    if outcome:
        _finish(run, outcome)
        return
    run.arch = answer.get("arch", run.arch)
    cases = task.tests.get(run.backend, ())
    for i, case in enumerate(cases):
        outcome = _run_test(run, i, case, checking)
        if outcome:
            _finish(run, outcome)
            return
    n = len(cases)
    where = "the CPU backend (correctness only; timing needs a GPU)" if run.backend == "cpu" else "the GPU"
    _finish(run, Outcome(Verdict.ACCEPTED, f"all {n} tests passed on {where}"))
    if timing and run.backend == "cuda" and task.bench.get("cuda"):
        outcome = _time(run)
        if outcome:
            _finish(run, outcome)


def _request(run: _Run, message: dict, phase: str, timeout_s: float | None = None):
    """Send a request; (Outcome, None) when it decided a failure, else (None, answer)."""
    try:
        ans = run.child.request(message, timeout_s)
    except ChildDied as died:
        incidents = [e for e in died.events if e.get("event") == "incident"]
        decided = from_incidents(incidents, run.source)
        if decided:
            return decided, None
        stderr, _ = run.child.captured("stderr", 64 * 1024)
        return from_death(died, backend=run.backend, phase=phase, stderr=run.scrub(stderr),
                          limits=run.limits), None
    msg = ans.message
    run.snapshot = {"kernels": msg.get("kernels") or [], "incidents": msg.get("incidents") or []}
    new = run.snapshot["incidents"][run.incidents_seen:]
    run.incidents_seen = len(run.snapshot["incidents"])
    decided = from_incidents(new, run.source)
    if decided:
        return decided, None
    if not msg.get("ok"):
        return from_error(msg.get("error") or {}, run.source, phase=phase, limits=run.limits), None
    return None, msg


def _write_inputs(run: _Run, inputs: dict, path: Path) -> list[dict]:
    args = []
    arrays = {}
    for a in run.task.args:
        value = inputs[a.name]
        if a.role == "scalar":
            args.append({"scalar": int(value) if a.dtype == "int" else float(value)})
        else:
            arrays[a.name] = np.ascontiguousarray(value)
            args.append({"array": a.name})
    np.savez(path, **arrays)
    return args


def _run_test(run: _Run, index: int, case, checking: bool) -> Outcome | None:
    task = run.task
    t = run.report.tests[index]
    rng = np.random.default_rng([run.seed, index])
    inputs = task.generate(rng, dict(case.dims))
    expected = task.reference(inputs)
    name_in, name_out = f"t{index}.in.npz", f"t{index}.out.npz"
    scratch = run.child.spec.scratch
    args = _write_inputs(run, inputs, scratch / name_in)
    sizes = ", ".join(f"{k}={v}" for k, v in case.dims.items())
    phase = f"on test '{case.name}' ({sizes})"
    outcome, ans = _request(run, {"op": "run", "inputs": name_in, "output": name_out, "args": args,
                                  "checking": checking,
                                  "kernel_timeout_s": run.limits.kernel_timeout_s}, phase)
    if outcome:
        t.passed, t.verdict, t.message = False, outcome.verdict.value, outcome.message
        return outcome
    elapsed = ans.get("elapsed_s")
    t.elapsed_s = round(float(elapsed), 4) if isinstance(elapsed, (int, float)) else None
    originals = {a.name: np.asarray(inputs[a.name]) for a in task.args if a.role != "scalar"}
    got = evaluate.load_arrays(scratch / name_out, originals, phase)
    if isinstance(got, Outcome):
        outcome = got
    else:
        from .checks import CHECKS
        outcome = evaluate.check_test(task, inputs, expected, got, t, phase, CHECKS)
    (scratch / name_in).unlink(missing_ok=True)
    (scratch / name_out).unlink(missing_ok=True)
    t.passed = outcome is None
    if outcome:
        t.verdict, t.message = outcome.verdict.value, outcome.message
    return outcome


def _time(run: _Run) -> Outcome | None:
    task = run.task
    dims = dict(task.bench["cuda"])
    rng = np.random.default_rng([run.seed, BENCH_STREAM])
    inputs = task.generate(rng, dims)
    scratch = run.child.spec.scratch
    args = _write_inputs(run, inputs, scratch / "bench.in.npz")
    del inputs
    outcome, ans = _request(run, {"op": "time", "inputs": "bench.in.npz", "args": args,
                                  "warmup": TIMING_WARMUP, "repeats": TIMING_REPEATS,
                                  "budget_s": TIMING_BUDGET_S},
                            f"at the benchmark size ({', '.join(f'{k}={v}' for k, v in dims.items())})")
    if outcome:
        return outcome
    times = ans.get("times_ms")
    # The statistics are taken here from the raw samples: the child's own summary is not trusted.
    if not (isinstance(times, list) and times
            and all(isinstance(x, (int, float)) and np.isfinite(x) and x > 0 for x in times)):
        return Outcome(Verdict.RUNTIME_ERROR, "the timing run returned no usable measurements")
    median = float(np.median(times))
    nbytes, flops = task.cost(dims)
    peaks = scoring.H100_NOMINAL
    roof = scoring.roofline(median / 1e3, nbytes, flops, peaks)
    run.report.timing = TimingReport(
        dims=dims, median_ms=median, min_ms=float(min(times)), max_ms=float(max(times)),
        repeats=len(times), warmup=TIMING_WARMUP, device=str(ans.get("device", "GPU"))[:100],
        roofline=roof.to_dict(), peaks=peaks.to_dict())
    if roof.below_floor:
        run.report.message += "; the measured time is below the physical floor and needs review"
    return None


def _collect_output(run: _Run) -> None:
    cap = run.limits.captured_output
    for which in ("stdout", "stderr"):
        text, size = run.child.captured(which, cap)
        text = run.scrub(text) or ""
        if size > cap:
            text += f"\n... ({size - cap} more bytes cut)"
        setattr(run.report, which, text)
