"""The `cocotb` kind's steps (kinds.Kind): compile the correct design and its mutants with Icarus
Verilog in the compile sandbox (cached by content), then simulate the testbench against each, one
sandbox per design, one per core side by side: the correct design first (every test must pass),
the mutants beside it and after it (a mutant is caught when a test fails on it). A mutant's
limits come from the correct design's run; one that starts before that run ends gets the correct
design's own limits, its wall clock lowered to the mutant's as soon as they are known.

The testbench never sees the seed (cocotb's random seed is derived from it, the same for every
design of a judging), the reference, another design or which design it is running against.
"""
from __future__ import annotations

import base64
import hashlib
import math
import os
import subprocess
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import build_cache, compile_sandbox
from ...compile_sandbox import JobFailed, JobFiles
from ...engine import Run
from ...outcome import Decided, Outcome
from ...report import TestReport
from ...sandbox import CUSTOM
from ...verdicts import Verdict
from . import backend, static
from .sim import CPU, FINISHED, MEMORY, PROCESSES, WALL, SandboxFailed, Setup, Simulation, simulate

BUILD_MODULE = "assessments.judge.kinds.cocotb.compile_job"
JOB_FILES = JobFiles(("assessments/__init__.py", "assessments/judge/__init__.py",
                      "assessments/judge/protocol.py", "assessments/judge/kinds/__init__.py",
                      "assessments/judge/kinds/cocotb/__init__.py",
                      "assessments/judge/kinds/cocotb/compile_job.py"), ())
CORRECT = "correct design"     # gpu_tasks.testbench.CORRECT: the first test's name
# A mutant's simulation may use twice the CPU time the correct design's took, plus this: past it
# the testbench is taken to wait for something the mutant never does (caught), while the same
# testbench on a machine twice as busy still finishes.
MUTANT_CPU_SLACK_S = 2.0
MUTANT_WALL_SLACK_S = 5.0
MAX_SIDE_BY_SIDE = 4    # simulations at once, at most one per core


@dataclass
class TbRun(Run):
    cache: Any = None
    setup: Setup | None = None
    designs: dict = field(default_factory=dict)     # test name -> .vvp bytes
    correct: Simulation | None = None
    pool: ThreadPoolExecutor | None = None
    pending: dict = field(default_factory=dict)     # test name -> Future[Simulation]
    mutant_limits: tuple[float, int] | None = None  # (wall s, CPU s), once the correct design ran
    stopped: bool = False                           # the judging ended: running simulations stop
    correct_ended: threading.Event = field(default_factory=threading.Event)
    wrapper: Any = None


# ---- the machine's Icarus Verilog ----------------------------------------------------------------
_fingerprint: list[str] = []


def fingerprint() -> str:
    """What a compiled design depends on besides its text: the compile job and Icarus Verilog."""
    if not _fingerprint:
        h = hashlib.sha256(b"kp-cocotb-1")
        h.update((Path(__file__).resolve().parent / "compile_job.py").read_bytes())
        try:
            h.update(subprocess.run([backend.tools()["iverilog"], "-V"], capture_output=True, timeout=30).stdout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise backend.ToolMissing(f"cannot run iverilog: {exc}") from None
        _fingerprint.append(h.hexdigest()[:24])
    return _fingerprint[0]


# ---- steps ---------------------------------------------------------------------------------------
def screen(run: TbRun) -> None:
    static.screen(run.source)


@contextmanager
def session(run: TbRun, wrapper):
    """Nothing runs yet: each design gets its own sandbox when it is simulated (sim.py)."""
    run.cache = build_cache.BuildCache()
    run.wrapper = wrapper
    try:
        yield
    finally:
        run.stopped = True
        run.correct_ended.set()
        if run.pool is not None:
            for future in run.pending.values():
                future.cancel()
            run.pool.shutdown(wait=True)


def load(run: TbRun) -> None:
    """The testbench parses; every design of the run's tests is compiled (cache or compile job)."""
    static.parse(run.source)
    try:
        tools = backend.tools()
        fp = fingerprint()
    except backend.ToolMissing as exc:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge cannot simulate testbenches here: {exc}")) from None
    task = run.task
    seed = int(hashlib.sha256(f"cocotb:{run.seed}".encode()).hexdigest()[:8], 16)
    run.setup = Setup(run.source, task.module, seed, run.limits, run.isolation, run.wrapper, tools)
    with run.stage("build"):
        keys = {c.name: build_cache.key("vvp", fp, task.source_of(c.name), task.module, dict(c.dims))
                for c in run.cases}
        missing = [c for c in run.cases if run.cache.get("builds", keys[c.name]) is None]
        if missing:
            _compile(run, missing, keys, tools)
        for c in run.cases:
            run.designs[c.name] = _cached_design(run, keys[c.name])


def _compile(run: TbRun, cases: list, keys: dict, tools: dict) -> None:
    """Two jobs side by side (one per core), each compiling its share of the designs."""
    shares = [cases[i::2] for i in range(2) if cases[i::2]]
    jobs = []
    try:
        for share in shares:
            designs = [{"source": run.task.source_of(c.name), "top": run.task.module, "params": dict(c.dims)}
                       for c in share]
            jobs.append(compile_sandbox.Job(BUILD_MODULE, {"iverilog": tools["iverilog"], "designs": designs},
                                            timeout_s=run.limits.compile_s, isolation=run.isolation,
                                            files=JOB_FILES))
        for job, share in zip(jobs, shares):
            try:
                answer = job.answer()
            except JobFailed as exc:
                raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not compile the designs: {exc}")) from None
            for case, result in zip(share, answer.get("results") or []):
                if not result.get("ok"):   # the bank's own designs: never the candidate's fault
                    raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not compile the design "
                                          f"of test {case.name}: {str(result.get('log'))[:300]}"))
                run.cache.put("builds", keys[case.name], {"ok": True, "vvp": True},
                              base64.b64decode(result["vvp"]))
    finally:
        for job in jobs:
            job.cancel()


def _cached_design(run: TbRun, key: str) -> bytes:
    entry = run.cache.get("builds", key)
    try:
        data = run.cache.file("builds", key).read_bytes()
    except OSError:
        data = None
    if entry is None or data is None or len(data) != entry.get("size"):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "a compiled design left the build cache while the run read it"))
    return data


# ---- the designs ---------------------------------------------------------------------------------
def _simulate(run: TbRun, name: str, *, wall_s: float, cpu_s: int | None = None) -> Simulation:
    run.report.sandbox = CUSTOM if run.wrapper else run.isolation   # code runs from here on
    try:
        return simulate(run.setup, run.designs[name], wall_s=wall_s, cpu_s=cpu_s)
    except SandboxFailed as exc:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, str(exc))) from None


def _mutant_limits(run: TbRun) -> tuple[float, int]:
    """A mutant's wall clock and CPU seconds, from what the correct design took."""
    c = run.correct
    cpu = math.ceil(2 * (c.cpu_s or 0.0) + MUTANT_CPU_SLACK_S)
    wall = min(run.limits.op_wall_s, 3 * c.wall_s + MUTANT_WALL_SLACK_S)
    return wall, cpu


def _simulate_correct(run: TbRun) -> Simulation:
    """The correct design's simulation; its end sets the mutants' limits and lets the rest start
    (here, in the worker, so no mutant starts between its end and its limits)."""
    try:
        sim = _simulate(run, CORRECT, wall_s=lambda: 0.0 if run.stopped else run.limits.op_wall_s,
                        cpu_s=run.limits.cpu_s)
        run.correct = sim
        run.mutant_limits = _mutant_limits(run)
        return sim
    finally:
        run.correct_ended.set()


def _simulate_mutant(run: TbRun, name: str, early: bool) -> Simulation | None:
    """One mutant's simulation. An early one runs beside the correct design: the correct design's
    own CPU cap (the child's, fixed at the start), its wall clock lowered to the mutant's once the
    correct design's run has ended. The others wait for that end (None: the judging stopped)."""
    if not early:
        run.correct_ended.wait()
    if run.stopped:
        return None
    cpu = run.mutant_limits[1] if run.mutant_limits is not None else run.limits.cpu_s
    return _simulate(run, name, wall_s=lambda: _mutant_wall(run), cpu_s=cpu)


def _mutant_wall(run: TbRun) -> float:
    """The correct design's limit until its run ends, then the mutant's; none once the judging
    has ended (a wrong testbench, an error)."""
    if run.stopped:
        return 0.0
    return run.mutant_limits[0] if run.mutant_limits is not None else run.limits.op_wall_s


def _start(run: TbRun) -> None:
    """Every design of the run, as many side by side as there are cores: the correct design first
    with one mutant per other core beside it (so no core waits for its run to end, and a
    testbench that fails on it wastes little), then the rest. Never more than the cores: a
    simulation sharing a core runs slower, which a testbench could time to tell the correct
    design from the mutants."""
    cores = min(MAX_SIDE_BY_SIDE, os.cpu_count() or 1)
    run.pool = ThreadPoolExecutor(max_workers=min(cores, len(run.cases)))
    mutants = [c.name for c in run.cases if c.name != CORRECT]
    if len(mutants) < len(run.cases):
        run.pending[CORRECT] = run.pool.submit(_simulate_correct, run)
    else:
        run.correct_ended.set()
    for i, name in enumerate(mutants):
        run.pending[name] = run.pool.submit(_simulate_mutant, run, name, i < cores - 1)


def run_test(run: TbRun, index: int, case, test: TestReport) -> None:
    if run.pool is None:
        _start(run)
    if case.name == CORRECT:
        _judge_correct(run, test)
        return
    future: Future = run.pending[case.name]
    sim = future.result()
    if sim is None:     # the judging stopped before it ran (never once the correct design passed)
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"{case.name} was not simulated"))
    test.elapsed_s = sim.wall_s
    caught, by, how = _caught(run, sim)
    mutant = run.task.mutant_named(case.name)
    if run.report.mutants is None:
        run.report.mutants = []
    run.report.mutants.append({"name": case.name, "description": mutant.description if mutant else "",
                               "public": bool(mutant and mutant.public), "caught": caught, "test": by,
                               "how": how})
    test.message = f"caught: {how}" if caught else f"not caught: {how}"


def _caught(run: TbRun, sim: Simulation) -> tuple[bool, str | None, str]:
    """Whether the testbench told this mutant from the correct design: (caught, test, how)."""
    if sim.ended == FINISHED and sim.boot is None:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the simulator did not start the testbench on a mutant",
                              details=sim.stderr[-4000:] or None))
    failed = sim.failed
    if failed is not None:
        return True, failed.name, failed.summary
    if sim.ended in (WALL, CPU):
        took = f"{run.correct.cpu_s:.2f} s of CPU" if run.correct.cpu_s is not None else "less"
        return True, None, f"the testbench ran past its time on this mutant ({sim.detail or 'CPU time'}; " \
                           f"the correct design took {took})"
    if sim.ended != FINISHED or sim.signal:
        return True, None, f"the simulation stopped on this mutant ({_how_it_stopped(sim)})"
    if not sim.tests:
        if isinstance(sim.boot, dict) and sim.boot.get("tests") is None:
            return False, None, "the testbench did not import on this mutant"
        return True, None, f"the simulation ended before every test finished (exit status {sim.returncode})"
    return False, None, _passing(len(sim.tests))


def _passing(n: int) -> str:
    return "its one test passes" if n == 1 else f"all {n} tests pass"


def _how_it_stopped(sim: Simulation) -> str:
    if sim.ended == MEMORY:
        return "out of memory"
    if sim.ended == PROCESSES:
        return sim.detail
    if sim.signal:
        return f"the simulator died of {sim.signal_name}"
    return sim.detail or f"exit status {sim.returncode}"


def _judge_correct(run: TbRun, test: TestReport) -> None:
    """Every test passes on the correct design, within the limits; else the verdict says why."""
    sim = run.pending[CORRECT].result()
    test.elapsed_s = sim.wall_s
    on = "on the correct design"
    limit = run.limits.op_wall_s
    if sim.ended in (WALL, CPU):
        raise Decided(Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"the testbench did not finish {on} within "
                                                           f"{limit:g} s (a wait for something that never happens?)"))
    if sim.ended == MEMORY:
        raise Decided(Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"the simulation {on} went over "
                                                             f"{run.limits.memory // 2 ** 20} MiB of memory"))
    if sim.ended == PROCESSES:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the testbench {on} started {sim.detail}"))
    boot = sim.boot
    if boot is None:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the simulator did not start the testbench",
                              details=sim.stderr[-4000:] or None))
    error = boot.get("error")
    if isinstance(error, dict):
        line = error.get("line")
        where = f"line {line}: " if isinstance(line, int) else ""
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the testbench does not import: {where}"
                                                     f"{error.get('type')}: {str(error.get('message'))[:300]}",
                              compile_log=sim.stderr[-4000:] or None))
    if boot.get("tests") == 0:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, "the testbench defines no test: each test is an async "
                                                     "function decorated with @cocotb.test()"))
    failed = sim.failed
    if failed is not None:
        raise Decided(Outcome(Verdict.WRONG_ANSWER, f"{on}, {failed.summary}", details=failed.details or None))
    if sim.ended != FINISHED or sim.signal:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the simulation {on} stopped ({_how_it_stopped(sim)})",
                              details=sim.stderr[-4000:] or None))
    if not sim.tests:
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the simulation {on} ended before every test finished "
                                                     f"(exit status {sim.returncode}; no results from cocotb)",
                              details=sim.stderr[-4000:] or None))
    test.message = _passing(len(sim.tests))


def after_tests(run: TbRun) -> None:
    """Accepted: the message says how many mutants the testbench caught."""
    mutants = run.report.mutants or []
    caught = sum(1 for m in mutants if m["caught"])
    passed = f"every test passes on the correct design; {caught} of {len(mutants)} mutants caught"
    if run.report.suite == "samples":
        raise Decided(Outcome(Verdict.ACCEPTED, f"{passed} (the public ones); submit to be judged "
                                                f"against every hidden mutant"))
    raise Decided(Outcome(Verdict.ACCEPTED, passed))


def measure(run: TbRun) -> None:
    """No timing: a testbench's performance is the share of mutants it catches."""


def describe(run: TbRun) -> None:
    """The correct design's simulation log (cocotb's and the testbench's own output)."""
    if run.correct is not None:
        run.report.stdout, run.report.stderr = run.correct.stdout, run.correct.stderr
