"""PTX and SASS listings of the kernels the NVRTC gate compiled, for the report.

Two ends. In the child, `programs` names each gated program by its source, options and name
expressions (no tool runs there: the child may not start programs). The gate compiled them in
the parent's compile sandbox (nvrtc.py), where their PTX and cubins stay in the parent's cache;
`python -m assessments.judge.kinds.cupy.listing` runs nvdisasm on those cubins in the compile sandbox too
(`run`), so no native tool ever reads a file the candidate's code could have shaped. The parent
caches, caps and counts what comes back (gate.py, kernels.py, listing_text.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from ...listing_text import BUDGET_S, CAP, cap_text

ANSWER_BUDGET = 3 * 1024 * 1024  # all sources of one answer: JSON escaping stays under MAX_LINE
NVDISASM_TIMEOUT_S = 20.0


def find_nvdisasm() -> str | None:
    """nvdisasm from the nvidia-cuda-nvdisasm wheel (bound read-only with the rest of `nvidia`),
    else one on PATH (a CUDA toolkit)."""
    from .nvrtc import site_dirs
    for site in site_dirs():
        cand = os.path.join(site, "nvidia", "cu13", "bin", "nvdisasm")
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("nvdisasm")


def disassemble(cubin: bytes, workdir: str, timeout_s: float = NVDISASM_TIMEOUT_S,
                cap: int = CAP) -> tuple[str | None, str | None]:
    """(SASS, None) for a cubin, or (None, why not). Output goes to a file so a huge listing
    costs disk in the scratch, not memory."""
    tool = find_nvdisasm()
    if tool is None:
        return None, "SASS unavailable: nvdisasm is not installed"
    if timeout_s <= 0:
        return None, "SASS skipped: the time for listings was spent"
    with tempfile.TemporaryDirectory(dir=workdir, prefix="sass-") as tmp:
        image, listing = os.path.join(tmp, "kernel.cubin"), os.path.join(tmp, "sass.txt")
        with open(image, "wb") as fh:
            fh.write(cubin)
        try:
            with open(listing, "wb") as out:
                proc = subprocess.run([tool, "-c", image], stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.PIPE, timeout=timeout_s, close_fds=True)
        except subprocess.TimeoutExpired:
            return None, f"SASS unavailable: nvdisasm took longer than {timeout_s:.0f} s"
        except OSError as exc:
            return None, f"SASS unavailable: nvdisasm did not run ({exc.strerror or exc})"
        if proc.returncode != 0:
            why = proc.stderr.decode(errors="replace").strip().splitlines()
            return None, f"SASS unavailable: nvdisasm failed ({why[-1][:200] if why else proc.returncode})"
        with open(listing, "rb") as fh:
            data = fh.read(cap + 1)
            total = os.fstat(fh.fileno()).st_size
    return cap_text(data.decode(errors="replace"), cap, total), None


def _not_compiled(record) -> str:
    if record.compiled is False:
        return "no listing: the kernel did not compile"
    return "no listing: the judge did not compile this kernel itself (CuPy builds it on the GPU)"


def programs(records) -> dict:
    """The child's half: {"programs": [{source, options, name_expressions}], "listed": {key: i},
    "unlisted": {key: note}}. A program shared by kernels (a RawModule) is named once."""
    progs: list[dict] = []
    index: dict[int, int] = {}
    kernels: dict[str, int] = {}
    notes: dict[str, str] = {}
    spent = 0
    for rec in records:
        prog = rec.program
        if prog is None:
            notes[rec.key] = _not_compiled(rec)
            continue
        if id(prog) in index:
            kernels[rec.key] = index[id(prog)]
            continue
        if spent + len(rec.source) > ANSWER_BUDGET:
            notes[rec.key] = "no listing: the listings of this run's other kernels filled the report"
            continue
        spent += len(rec.source)
        index[id(prog)] = kernels[rec.key] = len(progs)
        progs.append({"source": rec.source, "options": [str(o) for o in rec.options],
                      "name_expressions": [str(e) for e in rec.name_expressions]})
    return {"programs": progs, "listed": kernels, "unlisted": notes}


def run(job: dict) -> dict:
    """{"cubins": [path | None], "budget_s"} -> {"listings": [{"sass", "note"}]}: the cubins
    are the gate's, kept in the parent's cache and bound read-only."""
    deadline = time.monotonic() + min(float(job.get("budget_s", BUDGET_S)), BUDGET_S)
    workdir = tempfile.gettempdir()
    out = []
    for path in job.get("cubins", []):
        try:
            with open(path, "rb") as fh:
                cubin = fh.read()
        except (OSError, TypeError):
            out.append({"sass": None, "note": "SASS unavailable: NVRTC gave no cubin"})
            continue
        sass, why = disassemble(cubin, workdir, min(NVDISASM_TIMEOUT_S, deadline - time.monotonic()))
        out.append({"sass": sass, "note": why})
    return {"listings": out}


def main() -> int:
    from assessments.judge.protocol import answer_job

    return answer_job(run)


if __name__ == "__main__":
    sys.exit(main())
