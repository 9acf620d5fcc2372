"""From what the function child answered, or how it died, to a verdict and a message a person
understands (kinds `python` and `cpp`)."""
from __future__ import annotations

import signal

from ...outcome import Outcome
from ...verdicts import Verdict


def _one_line(text: str, limit: int = 400) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def from_error(error: dict, *, phase: str, limits, language: str) -> Outcome:
    """A request the child answered with ok=false."""
    kind = str(error.get("kind", "exception"))
    etype = str(error.get("type", "Error"))
    msg = str(error.get("message", "")).strip()
    where = error.get("where")
    at = f" ({where})" if where else ""
    tb = error.get("traceback") or None
    if kind == "memory":
        cap = f" (limit {limits.address_space / 2 ** 30:.0f} GiB)" if limits.address_space else ""
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, _one_line(f"ran out of memory{cap}{at} {phase}"), details=tb)
    if kind == "recursion":
        return Outcome(Verdict.RUNTIME_ERROR, _one_line(f"maximum recursion depth exceeded{at} {phase}"), details=tb)
    if kind in ("no_function", "arity"):
        return Outcome(Verdict.RUNTIME_ERROR, _one_line(msg))
    if kind == "protocol":
        return Outcome(Verdict.INTERNAL_ERROR, _one_line(f"the judge failed {phase}: {msg}"))
    if language == "cpp" and etype == "OSError" and "loading" in phase:
        return Outcome(Verdict.RUNTIME_ERROR, _one_line(f"the library did not load: {msg}"))
    text = f"{etype}: {msg}" if msg else etype
    return Outcome(Verdict.RUNTIME_ERROR, _one_line(f"{text}{at} {phase}"), details=tb)


def from_death(died, *, phase: str, stderr: str, limits, language: str) -> Outcome:
    """The child ended without answering: the wall clock, a signal, an exit, a broken channel."""
    stderr = stderr or ""
    if died.reason == "wall":
        return Outcome(Verdict.TIME_LIMIT_EXCEEDED,
                       f"no result {phase} within {limits.op_wall_s:g} s (the time limit)")
    if died.reason == "channel":
        return Outcome(Verdict.RUNTIME_ERROR, f"your program corrupted the judge's channel {phase}",
                       details=died.detail)
    if died.reason == "processes":
        return Outcome(Verdict.RUNTIME_ERROR, f"your program started more processes or threads than "
                                              f"allowed ({limits.processes} at once) {phase}")
    if died.reason == "sandbox":
        return Outcome(Verdict.INTERNAL_ERROR, f"the sandbox did not start: {died.detail}")
    if getattr(died, "oom_killed", False):
        cap = f" (limit {limits.memory / 2 ** 30:.0f} GiB)" if limits.memory else ""
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory{cap} {phase}")
    sig = died.signal
    if sig == signal.SIGXCPU:
        return Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"CPU time limit of {limits.cpu_s} s exceeded {phase}")
    if sig == signal.SIGKILL and getattr(died, "oom_killed", None) is False:
        return Outcome(Verdict.RUNTIME_ERROR, f"your program was killed {phase} (SIGKILL)")
    if sig == signal.SIGKILL:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"your program was killed {phase} (out of memory)")
    if sig in (signal.SIGSEGV, signal.SIGBUS):
        name = signal.Signals(sig).name
        if language == "cpp":
            return Outcome(Verdict.MEMORY_ERROR, f"your function crashed {phase} ({name}): an access outside "
                                                 "valid memory, such as an index past an array's end or a "
                                                 "stack too deep", details=stderr[-4000:] or None)
        return Outcome(Verdict.RUNTIME_ERROR, f"the interpreter crashed {phase} ({name})",
                       details=stderr[-4000:] or None)
    if sig == signal.SIGABRT and "bad_alloc" in stderr:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory {phase} (std::bad_alloc)")
    if sig == signal.SIGXFSZ:
        return Outcome(Verdict.RUNTIME_ERROR, f"your program wrote more output than allowed {phase}")
    if sig:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return Outcome(Verdict.RUNTIME_ERROR, f"your program died {phase} ({name})",
                       details=stderr[-4000:] or None)
    if "MemoryError" in stderr:
        return Outcome(Verdict.MEMORY_LIMIT_EXCEEDED, f"ran out of memory {phase}")
    return Outcome(Verdict.RUNTIME_ERROR,
                   f"your program exited (code {died.returncode}) {phase} before the judge finished",
                   details=stderr[-4000:] or None)
