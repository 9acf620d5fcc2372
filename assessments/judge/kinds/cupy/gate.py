"""The NVRTC gate and the listings for one run: compiled by the parent, reported by the child.

Every kernel passes NVRTC before its first launch. The child's kernel_log sends a `gate` event
(source text, options, name expressions, target) and waits; `RunGate.serve` answers from the
cache or runs NVRTC in the compile sandbox (nvrtc.py), keeping the log, ptxas' resource usage
and the PTX with the cubin beside them. Once the verdict is settled, `listings` turns the
programs the child names (listing.programs) into PTX (kept) and SASS (nvdisasm on the kept
cubins, listing.py, in the compile sandbox), cached too. With `prefetch`, each new cubin's
nvdisasm job starts as soon as the gate made it, beside the builds and tests. A request may name
the emulator build that follows a pass (`build`: its source, options and name expressions);
`beside` hears of it before NVRTC starts, and the build starts then.
"""
from __future__ import annotations

import base64
import binascii
import glob
import os
import re
import shutil
import site

from ... import build_cache, compile_sandbox
from ...compile_sandbox import JobFailed
from ...compile_stage import OverBudget, Service, valid
from ...listing_text import BUDGET_S, CAP, cap_text
from ...sandbox import REPO_ROOT
from . import jobs

_ARCH = re.compile(r"^sm_\d{2,3}[af]?$")
NVRTC_MODULE = "assessments.judge.kinds.cupy.nvrtc"
# Listings that come out the same on every try (others, cut short by time, are made again).
_STABLE_NOTES = (None, "SASS unavailable: NVRTC gave no cubin")


class RunGate(Service):
    """The `gate` requests of one run's child, and its kernels' listings."""

    job_files = jobs.FILES

    what = "run the NVRTC gate"
    doing = "compiling the kernel with NVRTC"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.prefetch = False            # start the SASS of each new cubin at once
        self.beside = None               # called with a request's `build` before NVRTC starts
        self._tools: list | None = None
        self._pending: list[tuple[compile_sandbox.Job, list[str]]] = []   # SASS jobs under way
        self._view: build_cache.RunView | None = None   # the cubins the SASS jobs read

    def close(self) -> None:
        for job, _ in self._pending:
            job.cancel()
        self._pending = []
        if self._view is not None:
            self._view.close()
            self._view = None

    def _serve(self, msg: dict) -> dict:
        request = valid(msg)
        arch = msg.get("arch")
        if request is None or not isinstance(arch, str) or not _ARCH.match(arch):
            return {"ok": False, "log": "the gate request is malformed"}
        k = self._key(request, arch)
        then = valid(msg["build"]) if isinstance(msg.get("build"), dict) else None
        try:
            entry = self._cached("gates", k, lambda: self._first_compile(request, k, arch, then))
        except OverBudget as exc:   # not cached: another run may have the time
            return {"ok": False, "log": str(exc)}
        return {key: entry.get(key) for key in ("ok", "log", "kernels", "lowered_names", "unavailable")
                if key in entry}

    def _first_compile(self, request: tuple, k: str, arch: str, then: tuple | None) -> dict:
        if self.beside is not None and then is not None:
            self.beside(then)   # the emulator's build of the program starts beside NVRTC
        return self._compile([request], [k], arch)[0]

    def _key(self, request: tuple, arch: str) -> str:
        if self._tools is None:
            self._tools = _tools()
        return build_cache.key("gate", self._tools, arch, *request)

    def _compile(self, requests: list, keys: list, arch: str, budgeted: bool = True) -> list:
        job = {"programs": [{"source": s, "options": list(o), "name_expressions": list(e)}
                            for s, o, e in requests], "arch": arch}
        answer = self._job(NVRTC_MODULE, job, budgeted=budgeted)
        results = answer.get("results") or []
        if len(results) != len(keys):
            raise RuntimeError("the compile sandbox did not answer for every program")
        return [self._publish(k, r) for k, r in zip(keys, results)]

    def _publish(self, k: str, result: dict) -> dict:
        if not isinstance(result, dict):
            raise RuntimeError("the compile sandbox answered something that is not a result")
        if result.get("unavailable"):
            return {"unavailable": True, "log": str(result.get("log", ""))}   # not cached
        entry = {key: result.get(key) for key in ("ok", "log", "kernels", "lowered_names", "ptx")}
        cubin = None
        if result.get("cubin"):
            try:
                cubin = base64.b64decode(result["cubin"], validate=True)
            except (TypeError, binascii.Error):
                raise RuntimeError("the compile sandbox answered a broken cubin") from None
        entry["cubin"] = cubin is not None
        entry = self.cache.put("gates", k, entry, cubin)
        if cubin is not None and self.prefetch and self.cache.get("listings", k) is None:
            self._start_sass([k])
        return entry

    # -- listings ----------------------------------------------------------------------------
    def listings(self, answer: dict, arch: str) -> dict:
        """{"programs": [{ptx, sass, note}], "listed", "unlisted"} for the programs the child
        named: PTX from the gate's entries, SASS from the cache or one nvdisasm job."""
        programs = answer.get("programs") if isinstance(answer.get("programs"), list) else []
        arch = arch if isinstance(arch, str) and _ARCH.match(arch) else "sm_90"
        out: list[dict] = []
        keys: list[str | None] = []
        for prog in programs:
            request = valid(prog) if isinstance(prog, dict) else None
            keys.append(self._key(request, arch) if request else None)
            out.append({"ptx": None, "sass": None, "note": "no listing: the program is malformed"}
                       if request is None else {})
        self._gate_missing(programs, keys, arch)
        sass_needed = []
        for i, k in enumerate(keys):
            if k is None:
                continue
            gate = self.cache.get("gates", k)
            if gate is None or not gate.get("ok"):
                out[i] = {"ptx": None, "sass": None, "note": "no listing: the kernel did not compile"}
                continue
            ptx = gate.get("ptx")
            out[i] = {"ptx": cap_text(ptx, CAP) if isinstance(ptx, str) else None, "sass": None,
                      "note": None if isinstance(ptx, str) else "PTX unavailable from this NVRTC"}
            listed = self.cache.get("listings", k)
            if listed is not None:
                out[i]["sass"], out[i]["note"] = listed.get("sass"), out[i]["note"] or listed.get("note")
            else:
                sass_needed.append(i)
        if sass_needed:
            self._disassemble(sass_needed, keys, out)
        return {"programs": out, "listed": answer.get("listed"), "unlisted": answer.get("unlisted")}

    def _gate_missing(self, programs, keys, arch: str) -> None:
        """Programs the gate never saw here (a cache emptied meanwhile): compiled now."""
        missing = [i for i, k in enumerate(keys) if k and self.cache.get("gates", k) is None]
        if not missing:
            return
        try:
            self._compile([valid(programs[i]) for i in missing], [keys[i] for i in missing], arch,
                          budgeted=False)
        except (OverBudget, RuntimeError):
            pass   # those programs go without listings

    def _start_sass(self, keys: list[str]) -> compile_sandbox.Job | None:
        """nvdisasm on the cubins of `keys`, linked into this run's own view first: an entry
        evicted meanwhile goes without SASS, and the job reads nothing the cache may drop."""
        if self._view is None:
            self._view = self.cache.view()
        linked = []
        for k in keys:
            try:
                linked.append((k, str(self._view.path / self._view.add(k, "gates"))))
            except FileNotFoundError:
                continue
        if not linked:
            return None
        keys = [k for k, _ in linked]
        paths = tuple(path for _, path in linked)
        try:
            job = compile_sandbox.Job(jobs.LISTING_MODULE,
                                      {"cubins": list(paths), "budget_s": BUDGET_S},
                                      timeout_s=BUDGET_S + 5, isolation=self.isolation, readonly=paths,
                                      limits=self.compile_limits(), files=self.job_files)
        except JobFailed:
            return None
        self._pending.append((job, keys))
        return job

    def _disassemble(self, needed: list, keys: list, out: list) -> None:
        """SASS from the jobs under way, and one more job for the cubins none of them has."""
        waiting = {k for _, ks in self._pending for k in ks}
        missing = [keys[i] for i in needed if keys[i] not in waiting and
                   self.cache.file("gates", keys[i]).exists()]
        if missing:
            self._start_sass(sorted(set(missing)))
        made: dict[str, dict] = {}
        for job, ks in self._pending:
            try:
                listings = job.answer().get("listings") or []
            except JobFailed as exc:
                why = "took too long" if exc.timed_out else "failed"
                listings = [{"sass": None, "note": f"no listing: making the listings {why}"}] * len(ks)
            for k, entry in zip(ks, listings):
                if isinstance(entry, dict):
                    made[k] = entry
                    if entry.get("note") in _STABLE_NOTES:
                        self.cache.put("listings", k, {"sass": entry.get("sass"), "note": entry.get("note")})
        self._pending = []
        for i in needed:
            entry = made.get(keys[i], {"sass": None, "note": "SASS unavailable: NVRTC gave no cubin"})
            out[i]["sass"], out[i]["note"] = entry.get("sass"), out[i]["note"] or entry.get("note")


def _tools() -> list:
    """What a gate result or listing depends on besides its program: the judge's NVRTC and
    listing code, NVRTC itself, the headers' packages and nvdisasm."""
    parts = [build_cache.key((REPO_ROOT / rel).read_text())
             for rel in ("assessments/judge/kinds/cupy/nvrtc.py", "assessments/judge/kinds/cupy/listing.py")]
    paths = [p for sp in site.getsitepackages()
             for pattern in ("nvidia/cu13/lib/libnvrtc*.so*", "nvidia/cu13/bin/nvdisasm",
                             "nvidia_*.dist-info", "cupy*.dist-info")
             for p in sorted(glob.glob(f"{sp}/{pattern}"))]
    paths.append(shutil.which("nvdisasm") or "")
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        parts.append([os.path.basename(path), st.st_size, st.st_mtime_ns])
    return parts
