"""The run sandbox's child for designs: loads the models the parent built (read-only, in the
run's view of the build cache) and drives them cycle by cycle as asked. It never sees the
task's checker or reference; stimulus comes in, outputs go out.

    {"op": "simulate", "model": "<file in the view>", "ports": [...], "clock": "clk",
     "cycles": [{input: value}, ...], "probes": {"cycle": [{input: value}, ...]},
     "edges": ["wclk", "rclk", ...] (several clocks: the one rising at each cycle)}
        -> {"ok": true, "rows": [{"before": {...}, "after": {...}, "probed": [...]}, ...]}
    {"op": "exit"} -> {"ok": true}
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ... import exec_ban, protocol
from . import driver


def _serve(msg: dict, builds: str) -> dict:
    op = msg.get("op")
    if op != "simulate":
        return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {op!r}"}}
    name = str(msg["model"])
    if "/" in name or name.startswith("."):
        return {"ok": False, "error": {"kind": "protocol", "message": "bad model name"}}
    model = driver.Model(os.path.join(builds, name), msg["ports"])
    try:
        probes = {int(k): v for k, v in (msg.get("probes") or {}).items()}
        edges = msg.get("edges")
        if edges is not None and not (len(edges) == len(msg["cycles"]) and set(edges) <= set(model.index)):
            return {"ok": False, "error": {"kind": "protocol", "message": "bad edges"}}
        rows = driver.simulate(model, msg["clock"], msg["cycles"], probes, edges)
    except driver.ModelError as exc:
        return {"ok": False, "error": {"kind": "finish", "message": str(exc)}}
    finally:
        model.close()
    return {"ok": True, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    args = protocol.child_arguments(sys.argv[1:] if argv is None else argv)
    os.chdir(Path(args.scratch))
    builds = os.environ.get("KERNELPATH_EMULATOR_BUILDS", "")
    exec_ban.install()   # the design's C++ model loads next: from here on no program starts

    def handle(msg: dict) -> dict:
        try:
            return _serve(msg, builds)
        except Exception as exc:   # noqa: BLE001 - the judge's side reports what broke
            return {"ok": False, "error": {"kind": "exception", "message": f"{type(exc).__name__}: {exc}"}}
    return protocol.serve(args.request_fd, args.answer_fd, handle)


if __name__ == "__main__":
    sys.exit(main())
