"""PTX and SASS listings of the kernels the NVRTC gate compiled, for the report.

Child side. The child collects them (`collect`): the PTX NVRTC kept, and the SASS that nvdisasm
prints for the cubin. nvdisasm runs inside the child's sandbox, on a cubin the child wrote, so no
native tool of the trusted parent ever reads a file the candidate's code could have shaped. The
parent only caps and counts the text it gets back (kernels.py, with listing_text.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

from .listing_text import BUDGET_S, CAP, cap_text

ANSWER_BUDGET = 3 * 1024 * 1024  # all listings of one answer: JSON escaping stays under MAX_LINE
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


def collect(records, workdir: str, *, sass: bool = True, cap: int = CAP,
            budget_s: float = BUDGET_S) -> dict:
    """Listings of every recorded kernel: {"programs": [{ptx, sass, note}], "listed": {key: i},
    "unlisted": {key: note}}. A program shared by kernels (a RawModule) is listed once."""
    deadline = time.monotonic() + budget_s
    programs: list[dict] = []
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
        if spent >= ANSWER_BUDGET:
            notes[rec.key] = "no listing: the listings of this run's other kernels filled the report"
            continue
        entry: dict = {"ptx": cap_text(prog.ptx, cap) if prog.ptx else None, "sass": None, "note": None}
        if entry["ptx"] is None:
            entry["note"] = "PTX unavailable from this NVRTC"
        if sass and prog.cubin:
            entry["sass"], why = disassemble(prog.cubin, workdir, min(NVDISASM_TIMEOUT_S,
                                                                      deadline - time.monotonic()), cap)
            entry["note"] = entry["note"] or why
        elif sass:
            entry["note"] = entry["note"] or "SASS unavailable: NVRTC gave no cubin"
        spent += len(entry["ptx"] or "") + len(entry["sass"] or "")
        index[id(prog)] = len(programs)
        kernels[rec.key] = len(programs)
        programs.append(entry)
    return {"programs": programs, "listed": kernels, "unlisted": notes}
