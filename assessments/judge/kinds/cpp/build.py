"""C++ sources to shared libraries: in the compile sandbox (compile_job.py), kept in the
machine's build cache by content (the source, the function's name, the builder and g++'s
version), one compile per key at a time across workers. The same build makes the candidate's
library and the task's C++ reference, so both are timed as built alike."""
from __future__ import annotations

import base64
import binascii
import hashlib
import subprocess
from pathlib import Path

from ... import build_cache, compile_sandbox
from ...compile_sandbox import CompileLimits, JobFailed, JobFiles
from ...outcome import Decided, Outcome
from ...verdicts import Verdict
from . import compile_job

JOB_MODULE = "assessments.judge.kinds.cpp.compile_job"
JOB_FILES = JobFiles(("assessments/__init__.py", "assessments/judge/__init__.py",
                      "assessments/judge/protocol.py", "assessments/judge/kinds/__init__.py",
                      "assessments/judge/kinds/cpp/__init__.py",
                      "assessments/judge/kinds/cpp/compile_job.py"), ())
SECTION = "builds"
_fingerprint: list[str] = []


def fingerprint() -> str:
    """What a library depends on besides the source: the builder's flags and g++'s version."""
    if not _fingerprint:
        h = hashlib.sha256(b"kp-cpp-1")
        h.update(Path(compile_job.__file__).read_bytes())
        try:
            h.update(subprocess.run([compile_job.CXX, "--version"], capture_output=True, timeout=30).stdout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"cannot run {compile_job.CXX}: {exc}") from None
        _fingerprint.append(h.hexdigest()[:24])
    return _fingerprint[0]


def library(cache: build_cache.BuildCache, source: str, function: str, *, limits, isolation: str,
            who: str = "your code") -> tuple[str, dict]:
    """(key, entry) of the built library: from the cache, else compiled now. Decided:
    compile_error with g++'s first error (the whole log in compile_log), or past the compile
    limits; internal_error when the judge cannot compile."""
    try:
        k = build_cache.key("cpp", fingerprint(), source, function)
    except RuntimeError as exc:
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge cannot compile C++: {exc}")) from None
    entry = cache.get(SECTION, k)
    if entry is None:
        with cache.locked(SECTION, k):
            entry = cache.get(SECTION, k) or _compile(cache, k, source, function, limits, isolation, who)
    if not entry.get("ok"):
        log = entry.get("log") or "g++ refused the file"
        if who != "your code":   # the judge's own source: never the candidate's verdict
            raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not compile {who}: {first_error(log)}"))
        raise Decided(Outcome(Verdict.COMPILE_ERROR, first_error(log), compile_log=log))
    return k, entry


def _compile(cache, k: str, source: str, function: str, limits, isolation: str, who: str) -> dict:
    try:
        answer = compile_sandbox.run_job(JOB_MODULE, {"source": source, "function": function},
                                         timeout_s=limits.compile_s, isolation=isolation,
                                         limits=CompileLimits(memory=limits.compile_memory), files=JOB_FILES)
    except JobFailed as exc:
        if exc.timed_out:
            raise Decided(Outcome(Verdict.COMPILE_ERROR, f"compiling {who} took longer than "
                                                         f"{limits.compile_s:g} s (the compile time limit)")) from None
        if exc.out_of_memory:
            raise Decided(Outcome(Verdict.COMPILE_ERROR, f"compiling {who} {exc} (the compile memory limit)")) from None
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not compile {who}: {exc}")) from None
    if answer.get("internal"):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not compile {who}: {answer.get('log')}"))
    if not answer.get("ok"):
        return cache.put(SECTION, k, {"ok": False, "log": str(answer.get("log", ""))})
    try:
        data = base64.b64decode(answer["so"], validate=True)
    except (KeyError, TypeError, binascii.Error):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the compile sandbox answered no library")) from None
    return cache.put(SECTION, k, {"ok": True, "log": str(answer.get("log", ""))}, data)


def first_error(log: str) -> str:
    """g++'s first error as one line: `solution.cpp:12:5: error: ...`."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    line = next((ln for ln in lines if ": error:" in ln or ": fatal error:" in ln), lines[0] if lines else "")
    line = line if len(line) <= 300 else line[:297] + "..."
    return f"compile error: {line}" if line else "compile error"
