"""The cuda backend inside the child: real CuPy, its timing entry points captured before the
submission is imported, and kernels recorded as they are built (wrap.py)."""
from __future__ import annotations

import os

from ... import kernel_log

# Set by the parent when compute-sanitizer runs this child (sanitizer.py): every array is then
# an allocation of its own, so an access just past its end is out of bounds, not in the pool.
SANITIZER_ENV = "KERNELPATH_SANITIZER"


class CudaSide:
    """Sets up CuPy on the GPU; the timing harness works from what `import_cupy` captured."""

    def __init__(self):
        self.arch = "sm_90"
        self.gpu = None   # CUDA entry points captured before the submission is imported

    def import_cupy(self):
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("CuPy sees no GPU")
        if os.environ.get(SANITIZER_ENV):
            cupy.cuda.set_allocator(None)
        from . import timing
        self.gpu = timing.capture(cupy)
        from . import wrap
        self.arch = wrap.device_arch(cupy)
        kernel_log.configure(arch=self.arch, gate=True, gate_fatal=False)
        wrap.install(cupy)
        return cupy

    def set_checking(self, cp, checking: bool) -> None:
        """No checking build on a GPU."""

    def set_kernel_timeout(self, cp, seconds: float | None) -> None:
        """The GPU's own watchdog and the parent's wall clock bound a launch."""

    def profiler(self):
        return None   # measured, not estimated

    def harness(self, solve):
        """The timing harness (timing.py), or None where CuPy was not set up."""
        if self.gpu is None:
            return None
        from . import timing
        return timing.Harness(self.gpu, solve)
