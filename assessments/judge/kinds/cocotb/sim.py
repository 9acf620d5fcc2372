"""One simulation: a design and the testbench in a sandbox of their own (parent side).

Each simulation gets a fresh scratch (the testbench, read-only, as testbench.py) and a sandbox of
its own whose one program is the simulator (`vvp` with cocotb's VPI library; the testbench's
Python runs inside it), the design on its standard input without a file. The parent watches its
wall clock and CPU time from outside. Nothing of another design, the reference or the task bank
is there. What came back is scrubbed of the judge's paths before it leaves this module.
"""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...outcome import Scrubber
from ...runner import ChildDied, ChildProcess
from ...sandbox import REPO_ROOT, Limits, SandboxSpec
from . import backend, results
from .results import TestResult

OUTPUT_CAP = 8 * 1024
DESIGN_NAME = "design"             # the memory file's name (boot.DESIGN_LINK)
DESIGN_PATH = "/proc/self/fd/0"    # where the simulator reads it
# How a simulation ended (Simulation.ended).
FINISHED, WALL, CPU, MEMORY, PROCESSES, STOPPED = (
    "finished", "past_wall_clock", "past_cpu_time", "out_of_memory", "too_many_processes", "stopped")


class SandboxFailed(RuntimeError):
    """The sandbox did not start: the judge's fault, never the testbench's."""


@dataclass
class Simulation:
    """How one simulation ended and what its testbench reported."""

    ended: str                      # FINISHED, WALL, CPU, MEMORY, PROCESSES or STOPPED
    wall_s: float = 0.0
    cpu_s: float | None = None      # the simulator's CPU seconds (None when it did not answer)
    returncode: int | None = None
    signal: int | None = None
    boot: dict | None = None        # boot.py's status (results.boot_status)
    tests: list[TestResult] | None = None   # None: no results file
    stdout: str = ""
    stderr: str = ""
    detail: str = ""

    @property
    def failed(self) -> TestResult | None:
        return next((t for t in self.tests or () if not t.passed), None)

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signal).name if self.signal else ""
        except ValueError:
            return f"signal {self.signal}"


@dataclass(frozen=True)
class Setup:
    """What every simulation of one judging shares."""

    source: str                     # the testbench
    top: str                        # COCOTB_TOPLEVEL
    seed: int                       # cocotb's random seed: the same for every design
    limits: Limits
    isolation: str
    wrapper: object = None
    tools: dict = field(default_factory=dict)


def simulate(setup: Setup, design: bytes, *, wall_s: float | Callable[[], float],
             cpu_s: int | None = None) -> Simulation:
    """Run the testbench on one compiled design; SandboxFailed when no sandbox starts. `wall_s`
    may be a function asked again while the simulation runs (a limit that another thread lowers)."""
    scratch = Path(tempfile.mkdtemp(prefix="kp-tb-"))
    scrub = Scrubber(scratch, REPO_ROOT)
    (scratch / f"{backend.MODULE}.py").write_text(setup.source)
    began = time.monotonic()
    child = None
    try:
        child = _started(setup, scratch, design)
        sim = _run(child, wall_s, cpu_s)
        sim.wall_s = round(time.monotonic() - began, 3)
        folder = child.spec.scratch            # the sandbox's own scratch, through its handle
        sim.boot = results.boot_status(folder)
        sim.tests = results.parse(results.read_file(folder, backend.RESULTS, results.MAX_RESULTS))
    finally:
        if child is not None:
            child.close()
            sim_out = [scrub(_tail(path, OUTPUT_CAP)) for path in (child.stdout_path, child.stderr_path)]
        shutil.rmtree(scratch, ignore_errors=True)
    sim.stdout, sim.stderr = sim_out
    for t in sim.tests or ():
        t.message, t.details = scrub(t.message), scrub(t.details)
    if sim.boot and isinstance(sim.boot.get("error"), dict):
        sim.boot["error"]["message"] = scrub(str(sim.boot["error"].get("message", "")))
    return sim


def _started(setup: Setup, scratch: Path, design: bytes) -> ChildProcess:
    """The simulator in a sandbox of its own, its design on its standard input: an anonymous
    memory file, the same descriptor and path for every design, that boot.py closes once the
    simulator has read it."""
    fd = os.memfd_create(DESIGN_NAME)         # close-on-exec: the simulator gets it as stdin only
    try:
        view = memoryview(design)
        while view:
            view = view[os.write(fd, view):]
        spec = SandboxSpec(scratch=scratch, backend=backend.SIM, limits=setup.limits, wrapper=setup.wrapper,
                           isolation=setup.isolation, stdin=fd,
                           program=(setup.tools["vvp"], "-n", "-m", setup.tools["vpi"], DESIGN_PATH),
                           extra_env={"COCOTB_TOPLEVEL": setup.top, "COCOTB_RANDOM_SEED": str(setup.seed)})
        child = ChildProcess(spec)
        try:
            child.start()
        except ChildDied as died:
            raise SandboxFailed(f"the sandbox did not start: {died.detail}") from None
        return child
    finally:
        os.close(fd)


def _tail(path: Path, cap: int) -> str:
    """The end of a captured output: cocotb's log ends with each test's result and its summary."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            fh.seek(max(0, size - cap))
            data = fh.read(cap)
    except OSError:
        return ""
    text = data.decode(errors="replace")
    return f"... ({size - cap} bytes before)\n" + text.split("\n", 1)[-1] if size > cap else text


def _run(child: ChildProcess, wall_s: float | Callable[[], float], cpu_s: int | None) -> Simulation:
    try:
        exited = child.wait(wall_s, cpu_s)
    except ChildDied as died:
        if died.reason == "wall":
            return Simulation(WALL, detail=f"no end within {wall_s() if callable(wall_s) else wall_s:.0f} s")
        if died.oom_killed:
            return Simulation(MEMORY, detail="killed for memory")
        if died.reason == "processes":
            return Simulation(PROCESSES, detail=f"more than {child.spec.limits.processes} processes and threads")
        return Simulation(STOPPED, returncode=died.returncode, signal=died.signal,
                          detail=f"the sandbox ended ({died.reason})")
    sig = exited.signal
    ended = CPU if exited.over_cpu or sig == signal.SIGXCPU else FINISHED
    return Simulation(ended, cpu_s=exited.cpu_s, returncode=exited.returncode, signal=sig,
                      detail=f"over {cpu_s} s of CPU time" if ended == CPU else "")
