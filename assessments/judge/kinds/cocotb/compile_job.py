"""The compile sandbox's job for testbench tasks: Icarus Verilog compiles designs to .vvp files.

    stdin:  {"iverilog": "/usr/bin/iverilog", "designs": [{"source": "...", "top": "sync_fifo",
             "params": {"WIDTH": 8}}, ...]}
    stdout: {"results": [{"ok": true, "vvp": "<base64>", "log": "..."} | {"ok": false, "log": "..."}]}

Every design is written to the same file name and compiled with the same options, so nothing in
a .vvp tells which design it came from but the design itself.
"""
from __future__ import annotations

import base64
import os
import subprocess
import sys

from ...protocol import answer_job

SOURCE = "design.v"
OUTPUT = "design.vvp"
# cocotb's clocks and timers need a time precision: the unit and precision the statement gives.
TIMESCALE = "+timescale+1ns/1ps\n"
TIMEOUT_S = 60


def compile_one(iverilog: str, design: dict) -> dict:
    for name in (SOURCE, OUTPUT):
        if os.path.exists(name):
            os.unlink(name)
    with open(SOURCE, "w") as fh:
        fh.write(design["source"])
    with open("cmds.f", "w") as fh:
        fh.write(TIMESCALE)
    top = str(design["top"])
    argv = [iverilog, "-g2012", "-f", "cmds.f", "-s", top, "-o", OUTPUT]
    for k, v in sorted((design.get("params") or {}).items()):
        argv += ["-P", f"{top}.{k}={int(v)}"]
    try:
        done = subprocess.run(argv + [SOURCE], capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"ok": False, "log": f"iverilog took longer than {TIMEOUT_S} s"}
    log = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or not os.path.exists(OUTPUT):
        return {"ok": False, "log": log or f"iverilog exited with {done.returncode}"}
    with open(OUTPUT, "rb") as fh:
        return {"ok": True, "vvp": base64.b64encode(fh.read()).decode(), "log": log}


def run(job: dict) -> dict:
    return {"results": [compile_one(job["iverilog"], d) for d in job["designs"]]}


if __name__ == "__main__":
    sys.exit(answer_job(run))
