"""The emulator's builds for one run (cpu): compiled by the parent, loaded by the child.

When the emulator needs a build, the child sends a `build` event (source text, options, name
expressions, variant) and waits. `RunBuilds.serve` takes the build from the cache or runs the
emulator's builder in the compile sandbox (compile_job.py), and links the library into the
run's read-only view, where the child dlopens it. The child asks for the variant it launches:
the checking build on a backend whose tests are checked, the only one such a run builds. g++'s
refusals are cached like builds; a compile past its limit is refused with a message saying so
and is not cached. The build a gate request names (kernel_log.record_kernel's `build`) starts
with the gate (`prepare`), so that g++ runs beside NVRTC and the build request that follows a
passed gate finds it under way.
"""
from __future__ import annotations

import base64
import binascii

from ... import build_cache
from ...compile_stage import OverBudget, Service, Started, valid
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
        self._early: dict[str, Started] = {}   # a build's key -> its job, started by prepare

    def close(self) -> None:
        for started in self._early.values():
            started.job.cancel()
        self._early = {}
        self.view.close()

    def prepare(self, request: tuple) -> None:
        """Start the builds the tests will ask for of (source, options, name expressions), unless
        they are cached or under way; `_compile` takes their answer. Whatever goes wrong here is
        left to the build request to meet and report."""
        try:
            fingerprint, core = self._emulator()
            if fingerprint is None:
                return
            variant = self.backend.checking   # the one its tests launch
            k = build_cache.key("build", fingerprint, *request, variant)
            if k in self._early or self.cache.get("builds", k) is not None:
                return
            self._early[k] = self._start(jobs.BUILD_MODULE, self._job_of(request, variant, core),
                                         readonly=(core,))
        except Exception:   # noqa: BLE001 - the build request meets it again and says why
            return

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

    @staticmethod
    def _job_of(program: tuple, checking: bool, core: str) -> dict:
        source, options, exprs = program[:3]
        return {"source": source, "options": list(options), "name_expressions": list(exprs),
                "variants": [checking], "core": core}

    def _compile(self, request: tuple, keys: dict, core: str) -> dict:
        checking = request[3]
        started = self._early.pop(keys[checking], None)
        if started is None:
            started = self._start(jobs.BUILD_MODULE, self._job_of(request, checking, core), readonly=(core,))
        try:
            answer = self._answer(started)
        except OverBudget as exc:   # not cached: another run may have the time
            return {"ok": False, "log": str(exc)}
        results = [r for r in answer.get("results") or [] if isinstance(r, dict)]
        if len(results) != 1 or results[0].get("checking") is not checking:
            raise RuntimeError("the compile sandbox did not answer for the variant asked")
        return self._publish(results[0], keys)

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
