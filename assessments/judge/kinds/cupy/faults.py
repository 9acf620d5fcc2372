"""From what the CuPy kind's child said or how it died to a verdict and a message a candidate
understands: compile errors mapped back to solution.py, the emulator's incidents, the child's
errors and deaths."""
from __future__ import annotations

import signal
from typing import Protocol

from ...outcome import Outcome
from ...verdicts import INCIDENT_VERDICTS, Verdict
from . import diagnostics


class FaultReader(Protocol):
    """What a death needs of the backend (backends/base.py's Backend): what SIGSEGV or SIGBUS
    means there. A protocol, so this module never imports the backends that import it."""

    def memory_fault(self, signal_name: str, phase: str) -> "Outcome | None": ...

_EMULATOR_VERDICTS = {
    "race_detected": Verdict.RACE_DETECTED,
    "memory_error": Verdict.MEMORY_ERROR,
    "compile_error": Verdict.COMPILE_ERROR,
    "deadlock": Verdict.RUNTIME_ERROR,
    "timeout": Verdict.TIME_LIMIT_EXCEEDED,
    "launch_error": Verdict.RUNTIME_ERROR,
}


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def compile_outcome(log: str, source: str, py_text: str, kernel: str | None) -> Outcome:
    mapped = diagnostics.map_log(log or "", source or "", py_text)
    name = f" in kernel '{kernel}'" if kernel else ""
    first = diagnostics.first_error(mapped)
    return Outcome(Verdict.COMPILE_ERROR, _one_line(f"compile error{name}: {first}"), compile_log=mapped)


def from_incidents(incidents: list[dict], py_text: str) -> Outcome | None:
    """The first verdict-worthy incident decides, whatever the candidate's code did after it."""
    for inc in incidents:
        try:
            verdict = Verdict(inc.get("verdict"))
        except ValueError:
            verdict = Verdict.RUNTIME_ERROR
        if verdict not in INCIDENT_VERDICTS:
            verdict = Verdict.RUNTIME_ERROR
        kernel = inc.get("kernel")
        message = str(inc.get("message", ""))
        if verdict is Verdict.COMPILE_ERROR:
            return compile_outcome(message, inc.get("source", ""), py_text, kernel)
        where = f" in kernel '{kernel}'" if kernel else ""
        first = message.strip().splitlines()[0] if message.strip() else verdict.title.lower()
        if "in kernel" in first[:60]:
            text = first[0].upper() + first[1:]   # the reporter already said what and where
        else:
            text = f"{verdict.title}{where}: {first}"
        return Outcome(verdict, _one_line(text), details=message or None)
    return None


def from_error(error: dict, py_text: str, *, phase: str, limits=None) -> Outcome:
    """A request the child answered with ok=false."""
    kind = str(error.get("kind", "exception"))
    etype = str(error.get("type", "Error"))
    msg = str(error.get("message", "")).strip()
    where = error.get("where")
    at = f" ({where})" if where else ""
    tb = error.get("traceback") or None
    if kind == "compile":
        return compile_outcome(error.get("log") or msg, error.get("source", ""), py_text,
                               error.get("kernel"))
    if kind == "memory":
        cap = f" (limit {limits.address_space / 2 ** 30:.0f} GiB)" if limits and limits.address_space else ""
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED,
                       f"ran out of memory{cap}{at} {phase}", details=tb)
    if kind.startswith("emulator:"):
        ekind = kind.split(":", 1)[1]
        verdict = _EMULATOR_VERDICTS.get(ekind, Verdict.RUNTIME_ERROR)
        kernel = error.get("kernel")
        detail = error.get("detail") or msg
        label = {"deadlock": "deadlock: threads of a block wait at different barriers",
                 "launch_error": "launch failed"}.get(ekind, verdict.title)
        kname = f" in kernel '{kernel}'" if kernel else ""
        if verdict is Verdict.COMPILE_ERROR:
            return compile_outcome(detail, error.get("source", ""), py_text, kernel)
        return Outcome(verdict, _one_line(f"{label}{kname}: {detail.splitlines()[0] if detail else etype}"),
                       details=(detail + ("\n" + tb if tb else "")) or None)
    if kind == "illegal_address":
        return Outcome(Verdict.MEMORY_ERROR, _one_line(f"illegal memory access{at} {phase}: {msg}"), details=tb)
    if kind == "timeout":
        return Outcome(Verdict.TIME_LIMIT_EXCEEDED, _one_line(f"a kernel ran too long {phase}: {msg}"), details=tb)
    if kind in ("setup", "protocol"):
        return Outcome(Verdict.INTERNAL_ERROR, _one_line(f"the judge failed {phase}: {etype}: {msg}"), details=tb)
    if kind in ("arity", "no_solve"):
        return Outcome(Verdict.RUNTIME_ERROR, _one_line(msg))
    if kind == "recursion":
        return Outcome(Verdict.RUNTIME_ERROR, _one_line(f"maximum recursion depth exceeded{at} {phase}"), details=tb)
    text = f"{etype}: {msg}" if msg else etype
    return Outcome(Verdict.RUNTIME_ERROR, _one_line(f"{text}{at} {phase}"), details=tb)


def from_death(died, *, backend: FaultReader, phase: str, stderr: str, limits) -> Outcome:
    """The child ended without answering (signal, exit, wall clock, broken channel); what a
    SIGSEGV or SIGBUS means is the backend's to say."""
    stderr = stderr or ""
    if "AddressSanitizer" in stderr:
        return Outcome(Verdict.MEMORY_ERROR, f"out-of-bounds memory access {phase} (AddressSanitizer)",
                       details=stderr[-4000:])
    if died.reason == "wall":
        return Outcome(Verdict.TIME_LIMIT_EXCEEDED,
                       f"no result {phase} within {limits.op_wall_s:g} s (wall-clock limit)")
    if died.reason == "channel":
        return Outcome(Verdict.RUNTIME_ERROR, f"your program corrupted the judge's channel {phase}",
                       details=died.detail)
    if died.reason == "processes":
        return Outcome(Verdict.RUNTIME_ERROR,
                       f"your program started more processes or threads than allowed "
                       f"({limits.processes} at once) {phase}")
    if died.reason == "sandbox":
        return Outcome(Verdict.INTERNAL_ERROR, f"the sandbox did not start: {died.detail}")
    if getattr(died, "oom_killed", False):
        cap = f" (limit {limits.memory / 2 ** 30:.0f} GiB)" if limits.memory else ""
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory{cap} {phase}")
    sig = died.signal
    if sig == signal.SIGXCPU:
        return Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"CPU time limit of {limits.cpu_s} s exceeded {phase}")
    if sig == signal.SIGKILL and getattr(died, "oom_killed", None) is False:
        # The run's cgroup saw no out-of-memory kill: the program ignored SIGXCPU or killed itself.
        return Outcome(Verdict.RUNTIME_ERROR, f"your program was killed {phase} (SIGKILL)")
    if sig == signal.SIGKILL:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"your program was killed {phase} (out of memory)")
    if sig in (signal.SIGSEGV, signal.SIGBUS):
        return backend.memory_fault(signal.Signals(sig).name, phase)
    if sig == signal.SIGABRT and "bad_alloc" in stderr:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory {phase}")
    if sig == signal.SIGXFSZ:
        return Outcome(Verdict.RUNTIME_ERROR, f"your program wrote more output than allowed {phase}")
    if sig:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return Outcome(Verdict.RUNTIME_ERROR, f"your program died {phase} ({name})")
    if "MemoryError" in stderr:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory {phase}")
    return Outcome(Verdict.RUNTIME_ERROR,
                   f"your program exited (code {died.returncode}) {phase} before the judge finished")
