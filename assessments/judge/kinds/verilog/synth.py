"""Yosys synthesis of a design for one parameter set: whether it is synthesizable (no latch, no
combinational loop, no delay or `initial`, Yosys accepts it), its cell count and its longest
combinational path in cells (`ltp -noff`). Runs in the compile sandbox on the source text.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .netlist import SOURCE_FILE, YosysError, elaborate_script, yosys

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_LATCH = re.compile(r"Latch inferred for signal `\\?[^.]*\.\\?([^']+)'")
_LOOP = re.compile(r"found logic loop|Detected loop at")
_LTP = re.compile(r"Longest topological path in \S+ \(length=(\d+)\)")


def simulation_only(source: str) -> list[str]:
    """Constructs a synthesizer ignores but a simulator honours: `initial` blocks and delays
    (`#5`, `#DELAY`; a `#(` parameter list is not one)."""
    text = _STRING.sub('""', _COMMENT.sub(" ", source))
    found = []
    for m in re.finditer(r"\binitial\b", text):
        found.append(f"line {text.count(chr(10), 0, m.start()) + 1}: an `initial` block")
    for m in re.finditer(r"#\s*(?:\d|[A-Za-z_])", text):
        before = text[:m.start()].rstrip()
        if re.search(r"\b(module|macromodule)\s+\w+$", before):
            continue   # `module m #P ...`: not Verilog, Yosys will say so
        found.append(f"line {text.count(chr(10), 0, m.start()) + 1}: a delay (`{text[m.start():m.end() + 3].strip()}`)")
    return found


def synthesize(workdir: str, source: str, top: str, params: dict) -> dict:
    """{"ok", "cells", "depth", "by_type", "problems": [why not synthesizable], "log"}."""
    Path(workdir, SOURCE_FILE).write_text(source)
    script = (f"{elaborate_script(top, params)}; check; synth -top {top}; "
              f"tee -q -o stat.json stat -json; tee -q -o ltp.txt ltp -noff")
    try:
        log = yosys(workdir, script, quiet=False)
    except YosysError as exc:
        if exc.internal:
            return {"ok": False, "internal": True, "problems": [str(exc)], "log": ""}
        if exc.timed_out:
            return {"ok": False, "problems": [str(exc)], "log": ""}
        return {"ok": False, "problems": simulation_only(source) + [str(exc)], "log": exc.log}
    problems = simulation_only(source)
    latches = sorted(set(_LATCH.findall(log)))
    if latches:
        problems.append(f"a latch is inferred for {', '.join(f'`{s}`' for s in latches[:5])} (a value "
                        "kept by combinational logic: assign it on every path of the `always @*` block)")
    if _LOOP.search(log):
        problems.append("a combinational loop (an output of logic feeds back into its own input "
                        "without a flip-flop)")
    cells = depth = None
    by_type: dict = {}
    try:
        stat = json.loads(Path(workdir, "stat.json").read_text())
        module = next(iter(stat.get("modules", {}).values()), {})
        cells, by_type = int(module.get("num_cells", 0)), module.get("num_cells_by_type", {})
    except (OSError, ValueError, StopIteration):
        pass
    m = _LTP.search(Path(workdir, "ltp.txt").read_text() if Path(workdir, "ltp.txt").exists() else "")
    if m:
        depth = int(m.group(1))
    return {"ok": not problems, "cells": cells, "depth": depth, "by_type": by_type, "problems": problems,
            "log": log[-4000:]}
