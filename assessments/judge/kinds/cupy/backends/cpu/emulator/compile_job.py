"""The compile sandbox's entry point for emulator builds: `python -m ...emulator.compile_job`.

The trusted parent runs it in its compile sandbox (compile_sandbox.py): one job as JSON on stdin,
the source text and its build options only, never the candidate's Python. Each requested variant
builds at the same time (g++ per thread) into the sandbox's tmpfs; the answer on stdout carries
each variant's metadata and shared library (base64), or g++'s log.

    {"source", "options", "name_expressions", "variants": [false, true], "core": "/path/kp_core.o"}
    -> {"results": [{"checking": false, "ok": true, "meta": {...}, "so": "<base64>"},
                    {"checking": true, "ok": false, "log": "..."}]}
"""
from __future__ import annotations

import base64
import sys
import tempfile
import threading
from pathlib import Path

from . import build
from .errors import EmulatorError

MAX_MODULE = 64 * 1024 * 1024   # a larger library is refused (static data the size of a dataset)


def _one(job: dict, checking: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="build-") as tmp:
        try:
            meta = build.compile_in(tmp, job["source"], job.get("options", ()),
                                    job.get("name_expressions", ()), checking, job["core"])
        except EmulatorError as exc:
            return {"checking": checking, "ok": False, "log": exc.detail}
        data = Path(tmp, "module.so").read_bytes()
    if len(data) > MAX_MODULE:
        return {"checking": checking, "ok": False,
                "log": f"the compiled module is {len(data) >> 20} MiB, over the "
                       f"{MAX_MODULE >> 20} MiB the judge loads"}
    return {"checking": checking, "ok": True, "meta": meta,
            "so": base64.b64encode(data).decode("ascii")}


def run(job: dict) -> dict:
    variants = [bool(v) for v in job.get("variants", [False])]
    results: list[dict | None] = [None] * len(variants)

    def work(i: int) -> None:
        try:
            results[i] = _one(job, variants[i])
        except Exception as exc:   # the builder's own failure: the parent reports it as the judge's
            results[i] = {"checking": variants[i], "ok": False, "internal": True,
                          "log": f"{type(exc).__name__}: {exc}"}

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(variants))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"results": results}


def main() -> int:
    from assessments.judge.protocol import answer_job

    return answer_job(run)


if __name__ == "__main__":
    sys.exit(main())
