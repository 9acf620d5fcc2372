"""Compiler diagnostics mapped back to the candidate's file: pure text functions.

Shared by both sides: the child's NVRTC gate (nvrtc.py) names every program PROGRAM_NAME, and
the parent (outcome.py) rewrites `kernel.cu(L): error: ...` lines as `solution.py:N: error: ...`.
"""
from __future__ import annotations

import os
import re

PROGRAM_NAME = "kernel.cu"

_DIAG = re.compile(r"^(?P<file>[^\s()]+)\((?P<line>\d+)\): (?P<rest>.*)$")


def source_line_offset(cuda_source: str, py_text: str) -> int | None:
    """0-based py line where the CUDA text starts (its line 1), if it appears verbatim."""
    idx = py_text.find(cuda_source) if cuda_source else -1
    if idx < 0:
        # Some candidates strip or dedent the literal; its first non-empty line still anchors it.
        lines = [ln for ln in cuda_source.splitlines() if ln.strip()]
        if not lines:
            return None
        first = cuda_source.splitlines().index(lines[0])
        hits = [i for i, ln in enumerate(py_text.splitlines()) if ln.strip() == lines[0].strip()]
        if len(hits) != 1:
            return None
        return hits[0] - first
    return py_text.count("\n", 0, idx)


def map_line(cuda_line: int, cuda_source: str, py_text: str) -> int | None:
    """1-based line in the .py for a 1-based line of the CUDA source, or None if unknown."""
    base = source_line_offset(cuda_source, py_text)
    if base is not None:
        return base + cuda_line
    # Generated code (ElementwiseKernel bodies, transpiled jit): find that line's text in the file.
    src_lines = cuda_source.splitlines()
    if not 1 <= cuda_line <= len(src_lines):
        return None
    text = src_lines[cuda_line - 1].strip()
    if len(text) < 3:
        return None
    hits = [i + 1 for i, ln in enumerate(py_text.splitlines()) if text in ln]
    return hits[0] if hits else None


def map_log(log: str, cuda_source: str, py_text: str, filename: str = "solution.py") -> str:
    """NVRTC log with `kernel.cu(L): ...` rewritten as `solution.py:N: ...` where N is resolvable."""
    out = []
    for line in log.splitlines():
        m = _DIAG.match(line)
        if m and os.path.basename(m.group("file")) == PROGRAM_NAME:
            n = map_line(int(m.group("line")), cuda_source, py_text)
            where = f"{filename}:{n}" if n else f"{filename} (generated kernel line {m.group('line')})"
            line = f"{where}: {m.group('rest')}"
        elif m:
            line = f"{os.path.basename(m.group('file'))}({m.group('line')}): {m.group('rest')}"
        if line.startswith("ptxas"):
            continue
        out.append(line.replace(f'"{PROGRAM_NAME}"', f'"{filename}"'))
    return "\n".join(out).strip()


def first_error(mapped_log: str) -> str:
    """The first `error` diagnostic of a mapped log, on one line."""
    for line in mapped_log.splitlines():
        if "error" in line:
            return line.strip()
    lines = [ln.strip() for ln in mapped_log.splitlines() if ln.strip()]
    return lines[0] if lines else "compilation failed"
