"""The compile sandbox's entry point for simulation models: `python -m ...verilog.compile_job`.

One job as JSON on stdin: the design's text, its top module, the parameter sets and the path of
Verilator's runtime object (bound read-only). Each set builds in turn into the sandbox's tmpfs;
the answer carries each model (base64) with its ports and lint report, or the tool's refusal.

    {"source", "top", "params": [{...}, ...], "runtime", "domains": [...] (several clocks only)}
    -> {"results": [{"ok": true, "meta": {"ports", "lint", "crossings"}, "so": "<base64>"}
                    | {"ok": false, "log", "verdict"}]}
    {"source", "top", "synth": {...}} -> {"synth": synth.synthesize's answer}   (Yosys)
"""
from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

from . import cdc, netlist, synth, verilator_build

MAX_MODEL = 64 * 1024 * 1024


def _one(job: dict, params: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="model-") as tmp:
        try:
            if job.get("domains"):
                meta, built = _with_crossings(tmp, job, params)
            else:
                meta, built = verilator_build.build(tmp, job["source"], job["top"], params, job["runtime"]), tmp
        except verilator_build.BuildError as exc:
            return {"ok": False, "log": exc.log, "internal": exc.what == "internal"}
        except netlist.YosysError as exc:
            return {"ok": False, "log": exc.log or str(exc), "message": str(exc), "verdict": "not_synthesizable",
                    "internal": exc.internal}
        data = Path(built, "model.so").read_bytes()
    if len(data) > MAX_MODEL:
        return {"ok": False, "log": f"the simulation model is {len(data) >> 20} MiB, over the "
                                    f"{MAX_MODEL >> 20} MiB the judge loads (a memory that large?)"}
    return {"ok": True, "meta": meta, "so": base64.b64encode(data).decode("ascii")}


def _with_crossings(tmp: str, job: dict, params: dict) -> tuple[dict, str]:
    """A design with several clocks: Verilator reads it as written (its errors and warnings),
    Yosys makes its netlist with the metastability model built in (cdc.py), and Verilator
    builds that netlist, the parameters already applied."""
    design, yosys, model = (str(Path(tmp, d)) for d in ("design", "yosys", "model"))
    for d in (design, yosys, model):
        Path(d).mkdir()
    _, lint = verilator_build.elaborate(design, job["source"], job["top"], params)
    text, crossings = cdc.model_source(yosys, job["source"], job["top"], params, job["domains"])
    meta = verilator_build.build(model, text, job["top"], {}, job["runtime"])
    meta.update(lint=lint, crossings=crossings)
    return meta, model


def run(job: dict) -> dict:
    if "synth" in job:
        with tempfile.TemporaryDirectory(prefix="synth-") as tmp:
            return {"synth": synth.synthesize(tmp, job["source"], job["top"], job["synth"])}
    results = []
    for params in job.get("params") or []:
        result = _one(job, params)
        results.append(result)
        if not result["ok"]:
            break   # the same refusal for every set, as a rule
    return {"results": results}


def main() -> int:
    from assessments.judge.protocol import answer_job

    return answer_job(run)


if __name__ == "__main__":
    sys.exit(main())
