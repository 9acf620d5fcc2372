"""cupy.cuda.nvrtc: the error class (compilation itself is the judge's NVRTC gate)."""
from _kpshim.errors import NVRTCError  # noqa: F401

NVRTC_SUCCESS = 0
NVRTC_ERROR_COMPILATION = 6


def getVersion() -> tuple:
    return (13, 0)
