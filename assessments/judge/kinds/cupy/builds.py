"""The emulator's builds for one run (cpu): compiled by the parent, loaded by the child.

When the emulator needs a build, the child sends a `build` event (source text, options, name
expressions, variant) and waits. `RunBuilds.serve` takes the build from the cache or runs the
emulator's builder in the compile sandbox (compile_job.py), both variants side by side when the
backend runs checking builds (its tests need both), and links the library into the run's
read-only view, where the child dlopens it. g++'s refusals are cached like builds; a compile
past its limit is refused with a message saying so and is not cached.
"""
from __future__ import annotations

import base64
import binascii

from ... import build_cache
from ...compile_stage import OverBudget, Service, valid
from . import jobs


class RunBuilds(Service):
    """The `build` requests of one run's child, and the run's view of the cache."""

    job_files = jobs.FILES

    what = "build a kernel"
    doing = "compiling the kernel for the CPU emulator"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.view = self.cache.view()
        self._setup: tuple | None = None
        self.maps: dict[str, dict] = {}   # file in the view -> its profile map (checking builds)

    def close(self) -> None:
        self.view.close()

    def _serve(self, msg: dict) -> dict:
        request = valid(msg, checking=True)
        if request is None:
            return {"ok": False, "log": "the build request is malformed"}
        fingerprint, core = self._emulator()
        if fingerprint is None:
            return {"ok": False, "log": "this backend builds no kernels for an emulator"}
        source, options, exprs, checking = request
        keys = {c: build_cache.key("build", fingerprint, source, options, exprs, c) for c in (False, True)}
        for _ in range(2):   # once more when the entry was evicted between reading and linking
            entry = self._cached("builds", keys[checking], lambda: self._compile(request, keys, core))
            if not entry.get("ok"):
                return {"ok": False, "log": str(entry.get("log", ""))}
            try:
                meta = dict(entry.get("meta") or {})
                name = self.view.add(keys[checking])
                if meta.get("profile_map"):
                    self.maps[name] = meta.pop("profile_map")   # the judge's, the child has no use for it
                return {"ok": True, "file": name, "meta": meta}
            except FileNotFoundError:
                continue
        raise RuntimeError("the build was evicted from the cache as soon as it was made")

    def _emulator(self) -> tuple:
        if self._setup is None:
            fingerprint = self.backend.emulator_fingerprint()
            core = self.backend.emulator_core() if fingerprint else None
            if fingerprint and not core:
                raise RuntimeError("the emulator's runtime object could not be built")
            self._setup = (fingerprint, core)
        return self._setup

    def _compile(self, request: tuple, keys: dict, core: str) -> dict:
        source, options, exprs, checking = request
        variants = [checking]
        if self.backend.checking and self.cache.get("builds", keys[not checking]) is None:
            variants.append(not checking)   # the tests need both: build them side by side
        job = {"source": source, "options": list(options), "name_expressions": list(exprs),
               "variants": variants, "core": core}
        try:
            answer = self._job(jobs.BUILD_MODULE, job, readonly=(core,))
        except OverBudget as exc:   # not cached: another run may have the time
            return {"ok": False, "log": str(exc)}
        mine = None
        for result in answer.get("results") or []:
            entry = self._publish(result, keys)
            if result.get("checking") is checking:
                mine = entry
        if mine is None:
            raise RuntimeError("the compile sandbox did not answer for the variant asked")
        return mine

    def _publish(self, result: dict, keys: dict) -> dict:
        if not isinstance(result, dict) or result.get("internal"):
            raise RuntimeError(str(result.get("log") if isinstance(result, dict) else result))
        k = keys[bool(result.get("checking"))]
        if not result.get("ok"):
            return self.cache.put("builds", k, {"ok": False, "log": str(result.get("log", ""))})
        try:
            library = base64.b64decode(result["so"], validate=True)
        except (KeyError, TypeError, binascii.Error):
            raise RuntimeError("the compile sandbox answered no library") from None
        return self.cache.put("builds", k, {"ok": True, "meta": result.get("meta") or {}}, library)
