"""Exception classes shaped like CuPy's, re-exported under the module paths CuPy uses."""
from __future__ import annotations


class CUDADriverError(RuntimeError):
    """cupy.cuda.driver.CUDADriverError: a driver call failed (`status` is the CUresult code)."""

    def __init__(self, status: int, message: str = ""):
        self.status = status
        name, text = _DRIVER_ERRORS.get(status, ("CUDA_ERROR_UNKNOWN", "unknown error"))
        super().__init__(f"{name}: {text}" + (f" ({message})" if message else ""))


class CUDARuntimeError(RuntimeError):
    """cupy_backends.cuda.api.runtime.CUDARuntimeError."""

    def __init__(self, status: int, message: str = ""):
        self.status = status
        super().__init__(message or f"cudaError {status}")


class NVRTCError(RuntimeError):
    """cupy.cuda.nvrtc.NVRTCError."""

    def __init__(self, status: int, message: str = ""):
        self.status = status
        super().__init__(message or f"NVRTC_ERROR {status}")


class CompileException(Exception):
    """cupy.cuda.compiler.CompileException: NVRTC refused the source; `log` holds its log."""

    def __init__(self, msg: str, source: str = "", name: str = "", options: tuple = (),
                 backend: str = "nvrtc"):
        self._msg = msg
        self.source = source
        self.name = name
        self.options = options
        self.backend = backend
        super().__init__()

    @property
    def log(self) -> str:
        return self._msg

    def __reduce__(self):
        return (type(self), (self._msg, self.source, self.name, self.options, self.backend))

    def __repr__(self):
        return str(self)

    def __str__(self):
        return self.get_message()

    def get_message(self) -> str:
        return self._msg

    def dump(self, f) -> None:
        f.write(f"NVRTC compilation error: {self._msg}\n")


CUDA_ERROR_INVALID_VALUE = 1
CUDA_ERROR_LAUNCH_FAILED = 719
CUDA_ERROR_ILLEGAL_ADDRESS = 700
CUDA_ERROR_LAUNCH_TIMEOUT = 702
CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701
CUDA_ERROR_NOT_FOUND = 500
CUDA_ERROR_INVALID_IMAGE = 200

_DRIVER_ERRORS = {
    CUDA_ERROR_INVALID_VALUE: ("CUDA_ERROR_INVALID_VALUE", "invalid argument"),
    CUDA_ERROR_LAUNCH_FAILED: ("CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"),
    CUDA_ERROR_ILLEGAL_ADDRESS: ("CUDA_ERROR_ILLEGAL_ADDRESS",
                                 "an illegal memory access was encountered"),
    CUDA_ERROR_LAUNCH_TIMEOUT: ("CUDA_ERROR_LAUNCH_TIMEOUT",
                                "the launch timed out and was terminated"),
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
                                         "too many resources requested for launch"),
    CUDA_ERROR_NOT_FOUND: ("CUDA_ERROR_NOT_FOUND", "named symbol not found"),
    CUDA_ERROR_INVALID_IMAGE: ("CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"),
}
