"""The CuPy kind's stages: the static screen, a sandboxed child per judging (the emulator's
builds and the NVRTC gate serve it), a test as arrays in and out, compute-sanitizer on cuda,
timing on a GPU, and the kernels described with their listings.

engine.py calls these through `CupyKind` (kinds/cupy/__init__.py) and knows nothing of them.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ...compile_stage import Budget
from ...engine import Run
from ...outcome import Decided, Outcome, Scrubber
from ...report import TestReport
from ...runner import ChildDied, ChildProcess
from ...sandbox import REPO_ROOT, SandboxSpec
from ...verdicts import Verdict
from . import arrays, compare, kernels, perfmodel, profile_inputs, sanitizer, static
from .builds import RunBuilds
from .faults import from_death, from_error, from_incidents
from .gate import RunGate
from .timing import guard, nvml, peaks, session

SOLUTION_FILE = "solution.py"
# Timing knobs (repeats, pool, re-checks): timing/session.py; tests may replace this.
TIMING_CONFIG = None
# One compute-sanitizer tool's child, at most (its start, the small tests, its summary).
SANITIZER_WALL_S = 180.0


@dataclass
class CupyRun(Run):
    """A judging's state beyond the core's: the child and what serves it, what it reported."""

    child: ChildProcess | None = None
    builds: RunBuilds | None = None             # the compile stage: emulator builds,
    gate: RunGate | None = None                 # and the NVRTC gate with the listings
    snapshot: dict = field(default_factory=lambda: {"kernels": [], "incidents": []})
    incidents_seen: int = 0
    arch: str = "sm_90"
    gpu: dict = field(default_factory=dict)   # GPU lock state (cuda), for the timing report
    kernel_listings: dict | None = None   # record key -> (ptx, sass, note), from the child
    unlisted: str | None = None           # why no kernel has listings (the child ended first)
    profile_inputs: tuple | None = None   # (folder, args) of the benchmark-size inputs (cpu)

    def services(self) -> dict:
        return {"gate": self.gate, "build": self.builds}


def screen(run: CupyRun) -> None:
    """The static screen (static.py): a refused file never reaches a child."""
    task = run.task
    result = static.screen(run.source, arity=len(task.args),
                           arg_names=tuple(a.name for a in task.args), filename=SOLUTION_FILE)
    if not result.ok:
        raise Decided(Outcome(result.verdict, result.message))


@contextmanager
def child_session(run: CupyRun, wrapper):
    """The run's scratch, its compile services and its sandboxed child, alive for the block
    (under the GPU's lock on cuda); the kernels' report is written however the block ends."""
    scratch = Path(tempfile.mkdtemp(prefix="kp-judge-"))
    run.scrub = Scrubber(scratch, REPO_ROOT)
    try:
        (scratch / SOLUTION_FILE).write_text(run.source, encoding="utf-8")
        budget = Budget(run.limits.compile_total_s)   # all the run's compiling
        run.builds = RunBuilds(run.backend, run.limits, run.isolation, budget=budget)
        run.gate = RunGate(run.backend, run.limits, run.isolation, run.builds.cache, budget)
        run.gate.prefetch = run.listings   # each new cubin's SASS starts beside the tests
        run.gate.beside = run.builds.prepare   # g++ beside NVRTC
        bench = run.task.bench.get("cuda")
        if run.backend.profiled and bench:
            try:
                run.profile_inputs = profile_inputs.prepare(run.task, dict(bench))
            except OSError:
                run.profile_inputs = None   # the profile says so; the tests go on
        spec = SandboxSpec(scratch=scratch, backend=run.backend, limits=run.limits, wrapper=wrapper,
                           isolation=run.isolation, builds_view=str(run.builds.view.path),
                           emulator_fingerprint=run.backend.emulator_fingerprint(),
                           readonly_paths=(run.profile_inputs[0],) if run.profile_inputs else ())
        run.report.sandbox = spec.mode
        run.child = ChildProcess(spec)
        run.child.services.update(build=run.builds.serve, gate=run.gate.serve)
        lock = run.backend.device_lock()   # the GPU's, held for the child's whole life (cuda)
        run.gpu = lock.info
        try:
            with lock:
                with run.stage("start"):
                    run.child.start()
                try:
                    yield
                finally:
                    with run.stage("teardown"):
                        run.child.close()
        except ChildDied as died:  # only start() raises it: bubblewrap refused to build the sandbox
            raise Decided(Outcome(Verdict.INTERNAL_ERROR,
                                  f"the sandbox did not start: {died.detail}")) from None
    finally:
        run.report.kernels = kernels.kernel_reports(run.snapshot.get("kernels", []), run.arch,
                                                    run.kernel_listings, run.unlisted)
        with run.stage("teardown"):
            shutil.rmtree(scratch, ignore_errors=True)
            for service in (run.gate, run.builds):
                if service is not None:
                    service.close()


def load(run: CupyRun) -> None:
    """The child imports the submission and finds `solve`."""
    task = run.task
    with run.stage("load"):
        answer = _request(run, {"op": "load", "file": SOLUTION_FILE, "arity": len(task.args),
                                "checking": run.backend.checking}, "while loading your file")
    run.arch = answer.get("arch", run.arch)
    imports = answer.get("import_s")
    if isinstance(imports, (int, float)) and 0 <= imports <= run.report.stages.get("load", 0.0):
        run.report.stages["imports"] = float(imports)    # the child's own clock: informative only
        run.report.stages["load"] -= float(imports)


def after_tests(run: CupyRun) -> None:
    """What runs once every test passed: compute-sanitizer on cuda; on the samples, the
    estimate where the backend profiles (a candidate iterates on it in seconds)."""
    with run.stage("sanitizer"):
        _sanitize(run)
    if run.report.suite == "samples" and run.backend.profiled and run.task.bench.get("cuda"):
        with run.stage("profile"):
            _profile(run)   # never timing: samples are not timed


def measure(run: CupyRun) -> None:
    """An accepted solution timed at the task's benchmark size where the backend times, or its
    time on an H100 estimated from the emulator's counters where it profiles (perfmodel.py)."""
    if run.backend.timed and run.task.bench.get(run.backend.name):
        with run.stage("timing"):
            _time(run)
    elif run.backend.profiled and run.task.bench.get("cuda"):
        with run.stage("profile"):
            _profile(run)


def _profile(run: CupyRun) -> None:
    """`solve` once at the cuda backend's benchmark size, each launch on a sample of its blocks
    in the instrumented build; the counters become report.profile. Never changes the verdict:
    a profile that fails says why and gives no estimate."""
    dims = dict(run.task.bench["cuda"])
    if run.profile_inputs is None:
        run.report.profile = perfmodel.no_estimate(dims, "the benchmark-size inputs could not be made")
        return
    folder, args = run.profile_inputs
    try:
        ans = run.child.request({"op": "profile", "inputs_dir": str(folder), "args": args,
                                 "kernel_timeout_s": run.limits.kernel_timeout_s},
                                run.limits.op_wall_s * 3)
    except ChildDied:
        run.report.profile = perfmodel.no_estimate(dims, "the program ended while it was profiled")
        return
    msg = ans.message
    if not msg.get("ok"):
        err = msg.get("error") or {}
        why = run.scrub(str(err.get("detail") or err.get("message") or "it failed"))[:600]
        run.report.profile = perfmodel.no_estimate(dims, f"the profile run failed: {why}")
        return
    records = msg.get("kernels") or run.snapshot.get("kernels") or []
    try:
        run.report.profile = perfmodel.estimate(msg.get("profile") or {}, run.builds.maps, records,
                                                run.task, dims, run.source)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:   # a malformed answer
        run.report.profile = perfmodel.no_estimate(dims, f"the counters were unusable ({type(exc).__name__})")


def describe(run: CupyRun) -> None:
    """The kernels' listings (once the verdict is settled) and the child's output."""
    with run.stage("listings"):
        _take_listings(run)
    _collect_output(run)


def _sanitize(run: CupyRun) -> None:
    """cuda: the small tests run again under each compute-sanitizer tool (sanitizer.py), each
    in a child of its own; the first tool that finds an error decides. Where the tool is missing
    or cannot watch this device, the report says so and the verdict stands."""
    tools = sanitizer.tools() if run.backend.sanitized else ()
    if not tools:
        return
    path = sanitizer.program()
    if path is None:
        run.report.sanitizer = {"ran": False, "note": "compute-sanitizer is not installed here"}
        return
    small = run.cases if run.report.suite == "samples" else tuple(run.task.sample_cases)
    names = ", ".join(c.name for c in small)
    findings: list[sanitizer.Finding] = []
    run.report.sanitizer = {"ran": True, "cases": [c.name for c in small], "tools": []}
    try:
        for tool in tools:
            finding = _sanitized_run(run, path, tool, small)
            findings.append(finding)
            if finding.found:
                raise Decided(Outcome(sanitizer.VERDICTS[tool], sanitizer.message(finding, names)))
    finally:
        run.report.sanitizer["tools"] = [f.to_dict() for f in findings]
        run.report.sanitizer["seconds"] = round(sum(f.seconds for f in findings), 3)


def _sanitized_run(run: CupyRun, path: str, tool: str, small) -> "sanitizer.Finding":
    """The small tests in a child started by compute-sanitizer `tool`. The child's own errors
    (a launch the tool stopped) are not verdicts here: what the tool printed is."""
    began = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="kp-sanitize-"))
    prefix = sanitizer.new_prefix()
    home = sanitizer.install_dir(path)
    # The tools slow CuPy's start and every launch; the small tests still take seconds. A tool
    # that hangs costs at most SANITIZER_WALL_S, and the verdict then stands (no summary).
    limits = replace(run.limits, op_wall_s=min(run.limits.op_wall_s * 2, SANITIZER_WALL_S),
                     wall_s=SANITIZER_WALL_S)
    try:
        (scratch / SOLUTION_FILE).write_text(run.source, encoding="utf-8")
        spec = SandboxSpec(
            scratch=scratch, backend=run.backend, limits=limits, isolation=run.isolation,
            wrapper=run.child.spec.wrapper, builds_view=str(run.builds.view.path),
            launcher=sanitizer.launcher(path, tool, prefix), extra_env={sanitizer.ENV: tool},
            private_tmp=True, syscall_filter=sanitizer.syscall_filter(),
            readonly_paths=() if home.startswith("/usr/") else (Path(home),))
        child = ChildProcess(spec)
        child.services.update(gate=run.gate.serve)
        status = None
        try:
            child.start()
            child.request({"op": "load", "file": SOLUTION_FILE, "arity": len(run.task.args),
                           "checking": False})
            for i, case in enumerate(small):
                rng = np.random.default_rng([run.seed, 3_000_000, i])
                inputs = run.task.generate(rng, dict(case.dims))
                name_in = f"s{i}.in.npz"
                args = arrays.write_inputs(run.task, inputs, child.spec.scratch / name_in)
                child.request({"op": "run", "inputs": name_in, "output": f"s{i}.out.npz",
                               "args": args, "checking": False})
        except (ChildDied, OSError):
            pass   # the tool stopped the program, or it died: the tool's lines say which
        finally:
            status = child.finish(timeout_s=30.0)
        output, _ = child.captured("stdout", 1 << 20)
        finding = sanitizer.read(tool, output, prefix, status)
        finding.first = run.scrub(finding.first)
        finding.note = run.scrub(finding.note)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    finding.seconds = time.monotonic() - began
    return finding


def _request(run: CupyRun, message: dict, phase: str, timeout_s: float | None = None) -> dict:
    """Send a request and return the child's answer; raises Decided when the answer (an
    incident, an error) or the child's death decided a verdict."""
    try:
        ans = run.child.request(message, timeout_s)
    except ChildDied as died:
        _builds_failed(run)
        incidents = [e for e in died.events if e.get("event") == "incident"]
        decided = from_incidents(incidents, run.source)
        if decided:
            raise Decided(decided) from None
        stderr, _ = run.child.captured("stderr", 64 * 1024)
        raise Decided(from_death(died, backend=run.backend, phase=phase, stderr=run.scrub(stderr),
                                 limits=run.limits)) from None
    msg = ans.message
    run.snapshot = {"kernels": msg.get("kernels") or [], "incidents": msg.get("incidents") or []}
    _builds_failed(run)
    new = run.snapshot["incidents"][run.incidents_seen:]
    run.incidents_seen = len(run.snapshot["incidents"])
    decided = from_incidents(new, run.source)
    if decided:
        raise Decided(decided)
    if not msg.get("ok"):
        raise Decided(from_error(msg.get("error") or {}, run.source, phase=phase, limits=run.limits))
    return msg


def _builds_failed(run: CupyRun) -> None:
    """A compile the judge itself could not make decides before whatever the child made of it."""
    for service in (run.gate, run.builds):
        if service is not None and service.failure:
            raise Decided(Outcome(Verdict.INTERNAL_ERROR, service.failure))


def run_test(run: CupyRun, index: int, case, test: TestReport) -> None:
    """One test: inputs generated from the run's seed into the child's scratch, `run` in the
    child, the outputs read back and compared; Decided when it fails."""
    task = run.task
    rng = np.random.default_rng([run.seed, index])
    inputs = task.generate(rng, dict(case.dims))
    expected = task.reference(inputs)
    name_in, name_out = f"t{index}.in.npz", f"t{index}.out.npz"
    scratch = run.child.spec.scratch
    sizes = ", ".join(f"{k}={v}" for k, v in case.dims.items())
    phase = f"on test '{case.name}' ({sizes})"
    try:
        args = arrays.write_inputs(task, inputs, scratch / name_in)
    except OSError as exc:  # the child's scratch is its own: it can fill it (ENOSPC) or wreck it
        raise Decided(Outcome(Verdict.RUNTIME_ERROR,
                              f"the judge could not hand your program the inputs {phase}: its scratch "
                              f"space is full or unusable ({exc.strerror or type(exc).__name__}; "
                              f"{run.limits.scratch_size // 2 ** 20} MiB at most)")) from None
    served = run.child.excluded_s
    ans = _request(run, {"op": "run", "inputs": name_in, "output": name_out, "args": args,
                         "checking": run.backend.checking,
                         "kernel_timeout_s": run.limits.kernel_timeout_s}, phase)
    # The child's clock ran while it waited for its kernels to be compiled (the compile stage):
    # that time is the judge's, not the test's.
    served = run.child.excluded_s - served
    elapsed = ans.get("elapsed_s")
    test.elapsed_s = (round(max(float(elapsed) - served, 0.0), 4)
                      if isinstance(elapsed, (int, float)) else None)
    stray = run.child.stray_tasks() if run.backend.refuses_stray_tasks else 0
    if stray:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR,
                              f"solve returned while {stray} thread(s) or process(es) it started "
                              f"were still running {phase}; finish all work before returning"))
    try:
        got = arrays.load_arrays(scratch / name_out, arrays.array_args(task, inputs), phase)
        compare.compare_outputs(task, inputs, expected, got, test, phase)
    except Decided as decided:
        raise Decided(_with_notes(decided.outcome, run.snapshot)) from None
    finally:
        (scratch / name_in).unlink(missing_ok=True)
        (scratch / name_out).unlink(missing_ok=True)


def _with_notes(outcome: Outcome, snapshot: dict) -> Outcome:
    """A wrong answer with what the child noticed about the kernels' arguments (the likely
    cause: a Python float given to a float parameter)."""
    notes = [n for k in snapshot.get("kernels", []) for n in (k.get("extra") or {}).get("notes", [])
             if isinstance(n, str)]
    if outcome.verdict is not Verdict.WRONG_ANSWER or not notes:
        return outcome
    return replace(outcome, message=outcome.message + "; note: " + "; ".join(notes[:2]))


def _time(run: CupyRun) -> None:
    """Time the accepted solution at the benchmark size (timing/session.py decides)."""
    token = guard.gpu_token()
    gpu = dict(run.gpu)
    gpu.update(guard.wait_until_idle(token))
    measured = peaks.for_device(token)
    sess = session.TimingSession(
        run.task, dict(run.task.bench[run.backend.name]), run.seed,
        lambda message, phase: _request(run, message, phase), run.child.spec.scratch, measured,
        gpu=gpu, config=TIMING_CONFIG)
    before = nvml.clocks(token)
    try:
        timing, outcome = sess.run()
    except OSError as exc:  # the child filled or wrecked its scratch while being timed
        why = exc.strerror or type(exc).__name__
        raise Decided(Outcome(Verdict.RUNTIME_ERROR,
                              "the judge could not hand your program the timing inputs: its scratch "
                              f"space is full or unusable ({why})")) from None
    if timing is not None and before is not None:
        timing.gpu["clocks"] = {"before": before, "after": nvml.clocks(token)}
    run.report.timing = timing
    if outcome is None and timing is not None and timing.flags:
        run.report.message += (f"; the timing is flagged for review ({', '.join(timing.flags)}) "
                               "and stays off the leaderboard")
    if outcome is not None:
        raise Decided(outcome)


def _take_listings(run: CupyRun) -> None:
    """Each compiled kernel's PTX and SASS, once the verdict is settled, so nothing here can
    change it: the child names its programs, the compile stage lists them (gate.py)."""
    if not run.listings:
        return
    if not any(k.get("compiled") for k in run.snapshot.get("kernels", [])):
        run.kernel_listings = {}
        return
    if run.child.proc is None or run.child.proc.poll() is not None:
        run.kernel_listings, run.unlisted = {}, "no listing: the program ended before they were taken"
        return
    try:
        ans = run.child.request({"op": "listings"}, 15)
    except ChildDied:
        run.kernel_listings, run.unlisted = {}, "no listing: the program did not answer for them"
        return
    if not ans.message.get("ok"):
        run.kernel_listings, run.unlisted = {}, "no listing: the listings could not be made"
        return
    made = run.gate.listings(ans.message, run.arch)
    run.kernel_listings = kernels.listings_from(made, run.scrub)


def _collect_output(run: CupyRun) -> None:
    cap = run.limits.captured_output
    for which in ("stdout", "stderr"):
        text, size = run.child.captured(which, cap)
        text = run.scrub(text) or ""
        if size > cap:
            text += f"\n... ({size - cap} more bytes cut)"
        setattr(run.report, which, text)
