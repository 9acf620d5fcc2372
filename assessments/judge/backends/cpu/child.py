"""The cpu backend inside the child: the CPU stand-in for `cupy` (shim/) over the emulator."""
from __future__ import annotations

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
