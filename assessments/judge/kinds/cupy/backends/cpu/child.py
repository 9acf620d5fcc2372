"""The cpu backend inside the child: the CPU stand-in for `cupy` (shim/) over the emulator,
whose builds the parent makes (the child may not start g++) and the child loads read-only."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ... import kernel_log

SHIM_DIR = Path(__file__).resolve().parent / "shim"


class CpuSide:
    """Sets up the stand-in and passes the parent's per-request settings on to it."""

    arch = "sm_90"
    gpu = None   # no captured CUDA entry points: nothing to time

    def import_cupy(self):
        if str(SHIM_DIR) not in sys.path:
            sys.path.insert(0, str(SHIM_DIR))
        import cupy
        if not str(getattr(cupy, "__file__", "")).startswith(str(SHIM_DIR)):
            raise ImportError("the CPU stand-in for cupy is not the module that was imported")
        kernel_log.configure(arch=self.arch, gate=True, gate_fatal=True)
        view = os.environ.get("KERNELPATH_EMULATOR_BUILDS")
        if view and kernel_log.can_ask():
            from .emulator import build
            build.use_builder(_parent_builder(view))
        return cupy

    def set_checking(self, cp, checking: bool) -> None:
        """Bounds and race checks on (the emulator's checking build) or off."""
        cp._kp_checking = checking

    def set_kernel_timeout(self, cp, seconds: float | None) -> None:
        """An emulated launch longer than this ends as an incident."""
        if seconds:
            cp._kp_timeout_s = float(seconds)

    def harness(self, solve):
        return None

    def profiler(self):
        """A recorder that, while entered, profiles every launch (shim/_kpshim/profiling.py)."""
        from _kpshim import profiling
        return profiling.Recorder()


def _parent_builder(view: str):
    """build.build in the child: the parent compiles (builds.py) and links the library into the
    run's read-only view of its cache, where the child loads it from."""
    from .emulator import build
    from .emulator.errors import EmulatorError

    def ask_parent(source: str, options: tuple, name_expressions: tuple, checking: bool):
        reply = kernel_log.ask("build", source=source, options=list(options),
                               name_expressions=list(name_expressions), checking=checking)
        name = reply.get("file")
        if not reply.get("ok") or not isinstance(name, str) or "/" in name:
            raise EmulatorError("compile_error", "", str(reply.get("log") or "the build failed"))
        return build.Built(os.path.join(view, name), reply.get("meta") or {})
    return ask_parent
