"""compute-sanitizer on the cuda backend: the small tests run again under memcheck, racecheck and
synccheck, which see what a GPU forgives (a write past the end that lands in the memory pool, a
missing barrier whose race the hardware happened to win).

Parent side only. The engine starts one more child per tool with `launcher()` in front of the
child's command (the sanitizer front-end then starts the child and watches it); the child
allocates without CuPy's memory pool under it (`ENV`), so every array is an allocation of its
own and an access one element past its end is out of bounds. What the tool printed comes back in
the child's captured stdout, under a prefix made for the run; `findings()` reads it.

Configuration: `KERNELPATH_COMPUTE_SANITIZER` (the program; else `compute-sanitizer` on PATH,
under `$CUDA_HOME` or `/usr/local/cuda`), `KERNELPATH_SANITIZER_TOOLS` (comma-separated, default
memcheck,racecheck,synccheck; `none` turns the pass off).
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
from dataclasses import dataclass

from ... import seccomp
from ...verdicts import Verdict

TOOLS = ("memcheck", "racecheck", "synccheck")
PROGRAM_ENV = "KERNELPATH_COMPUTE_SANITIZER"
TOOLS_ENV = "KERNELPATH_SANITIZER_TOOLS"
ENV = "KERNELPATH_SANITIZER"          # set in the child under a tool: no memory pool
ERROR_EXIT = 86                       # the front-end's exit status when the tool found errors
PRINT_LIMIT = 10
# The verdict each tool's finding stands for: the cpu backend's checking build says the same of
# the same bug (bounds: memory_error; a shared-memory race: race_detected; a barrier that not
# every thread of the block reaches: runtime_error, the emulator's deadlock).
VERDICTS = {"memcheck": Verdict.MEMORY_ERROR, "racecheck": Verdict.RACE_DETECTED,
            "synccheck": Verdict.RUNTIME_ERROR}
WHAT = {"memcheck": "an invalid memory access", "racecheck": "a shared-memory race",
        "synccheck": "a barrier not reached by every thread of its block"}
_SUMMARY = re.compile(r"(?:ERROR SUMMARY|RACECHECK SUMMARY):\s*(\d+)\s+(?:errors?|hazards?)"
                      r"(?:\s+displayed\s*\((\d+)\s+errors?)?")
_HEADERS = re.compile(r"^(Invalid |Error:|Barrier error|Program hit |Race reported|Uninitialized |"
                      r"Malloc/Free|Misaligned|Out-of-range|Cuda API error|Leaked)")
_UNSUPPORTED = re.compile(r"(not supported|Internal Sanitizer Error|Unable to|Target application "
                          r"terminated before|could not|Failed to)", re.IGNORECASE)


# The calls the front-end needs to start and watch its child, refused by the sandbox's usual
# filter: with them refused every tool stops at once ("Error launching target app", exit status
# 13, seen on an H200 under bubblewrap). Only the front-end gains them: the child installs the
# usual refusals again on itself before it loads a submission (exec_ban.py).
TRACING_CALLS = ("ptrace", "process_vm_readv", "process_vm_writev")


def syscall_filter() -> bytes:
    """The seccomp program for the sandbox a tool runs in."""
    return seccomp.program(allow=TRACING_CALLS)


def program() -> str | None:
    """The compute-sanitizer front-end, or None where it is not installed."""
    env = os.environ.get(PROGRAM_ENV)
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else None
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            for rel in ("bin/compute-sanitizer", "compute-sanitizer/compute-sanitizer"):
                path = os.path.join(home, rel)
                if os.path.isfile(path) and os.access(path, os.X_OK):
                    return path
    return None


def tools() -> tuple[str, ...]:
    """The tools the pass runs, in order; () when it is off."""
    raw = os.environ.get(TOOLS_ENV, ",".join(TOOLS)).strip().lower()
    if raw in ("", "none", "off", "0"):
        return ()
    return tuple(t for t in (x.strip() for x in raw.split(",")) if t in TOOLS)


def install_dir(path: str) -> str:
    """The folder the front-end needs beside it (its libraries, the injected collection): the
    real one, since a toolkit's bin/compute-sanitizer is a link into it."""
    return os.path.dirname(os.path.realpath(path))


def new_prefix() -> str:
    """A line prefix made for one run: the tool's lines are told from the program's own output."""
    return f"#kp-sanitizer-{secrets.token_hex(6)}#"


def launcher(path: str, tool: str, prefix: str) -> tuple[str, ...]:
    """The command put in front of the child's."""
    args = [path, "--tool", tool, "--prefix", prefix, "--print-limit", str(PRINT_LIMIT),
            "--error-exitcode", str(ERROR_EXIT), "--launch-timeout", "60"]
    if tool == "memcheck":
        args += ["--leak-check", "no"]
    if tool == "racecheck":
        args += ["--racecheck-report", "hazard"]
    return tuple(args)


@dataclass
class Finding:
    """What one tool said about one run of the small tests."""

    tool: str
    errors: int | None = None          # None: the tool's summary never came (see `note`)
    first: str = ""                    # the first error, as the tool described it (a few lines)
    note: str = ""                     # why the tool said nothing usable
    seconds: float = 0.0
    exit_status: int | None = None

    @property
    def found(self) -> bool:
        return bool(self.errors)

    def to_dict(self) -> dict:
        return {"tool": self.tool, "errors": self.errors, "first": self.first or None,
                "note": self.note or None, "seconds": round(self.seconds, 3),
                "exit_status": self.exit_status}


def read(tool: str, output: str, prefix: str, exit_status: int | None) -> Finding:
    """The tool's lines in `output` (the child's captured stdout): the error count from the last
    summary (printed after the program ended, so nothing the program wrote comes after it) and
    the first error's description."""
    f = Finding(tool, exit_status=exit_status)
    lines = [ln[len(prefix):].strip() for ln in output.splitlines() if ln.startswith(prefix)]
    for ln in lines:
        m = _SUMMARY.search(ln)
        if m:
            f.errors = int(m.group(2) if m.group(2) is not None else m.group(1))
    block: list[str] = []
    for ln in lines:
        if not block and _HEADERS.match(ln):
            block.append(ln)
        elif block:
            if not ln or ln.startswith("Saved host backtrace") or _SUMMARY.search(ln) \
                    or len(block) >= 5:
                break
            block.append(ln)
    f.first = "; ".join(block)
    if f.errors is None and exit_status == ERROR_EXIT and f.first:
        f.errors = 1    # the tool exited saying it found errors, and showed one: its summary was lost
    if f.errors is None:
        trouble = [ln for ln in lines if _UNSUPPORTED.search(ln)]
        said = [ln for ln in lines if ln and not ln.startswith("COMPUTE-SANITIZER")]
        f.note = (trouble[0] if trouble else
                  f"the tool printed no summary; its last words: {said[-1][:200]}" if said else
                  "the tool printed no summary" if lines else "the tool printed nothing")
        if exit_status not in (None, 0, ERROR_EXIT):
            f.note += f" (exit status {exit_status})"
    return f


def message(f: Finding, cases: str) -> str:
    """The verdict's message for a finding."""
    what = WHAT.get(f.tool, "an error")
    n = f.errors or 1
    text = (f"compute-sanitizer {f.tool} found {what} on the small tests ({cases}): "
            f"{n} error{'s' if n != 1 else ''}")
    return text + (f"; first: {f.first}" if f.first else "")
