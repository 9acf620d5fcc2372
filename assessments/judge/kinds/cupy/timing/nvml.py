"""The few NVML calls the judge needs, through ctypes on libnvidia-ml.so.1; None where absent.

NVML comes with the driver, not with CuPy: on a machine without it every function answers None
and the callers carry on without the information (and say so in the report).
"""
from __future__ import annotations

import ctypes
import os

LIB_ENV = "KERNELPATH_NVML_LIB"
_SUCCESS, _INSUFFICIENT_SIZE = 0, 7
_state: dict = {}


class _Utilization(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


def _lib():
    """The initialised library, or None (looked up once per process)."""
    if "lib" in _state:
        return _state["lib"]
    lib = None
    try:
        candidate = ctypes.CDLL(os.environ.get(LIB_ENV) or "libnvidia-ml.so.1")
        init = getattr(candidate, "nvmlInit_v2", None) or candidate.nvmlInit
        if init() == _SUCCESS:
            lib = candidate
    except (OSError, AttributeError):
        lib = None
    _state["lib"] = lib
    return lib


def available() -> bool:
    return _lib() is not None


def driver_version() -> str | None:
    lib = _lib()
    if lib is None:
        return None
    buf = ctypes.create_string_buffer(96)
    try:
        if lib.nvmlSystemGetDriverVersion(buf, ctypes.c_uint(len(buf))) != _SUCCESS:
            return None
    except AttributeError:
        return None
    return buf.value.decode(errors="replace") or None


def _handle(token: str):
    """Device handle for a CUDA_VISIBLE_DEVICES entry: an index or a GPU-/MIG- UUID."""
    lib = _lib()
    if lib is None:
        return None
    handle = ctypes.c_void_p()
    try:
        if token.isdigit():
            fn = getattr(lib, "nvmlDeviceGetHandleByIndex_v2", None) or lib.nvmlDeviceGetHandleByIndex
            rc = fn(ctypes.c_uint(int(token)), ctypes.byref(handle))
        elif token.startswith(("GPU-", "MIG-")):
            rc = lib.nvmlDeviceGetHandleByUUID(token.encode(), ctypes.byref(handle))
        else:
            return None
    except AttributeError:
        return None
    return handle if rc == _SUCCESS else None


def utilization(token: str = "0") -> int | None:
    """Percent of the last sample period in which a kernel ran on the GPU."""
    handle = _handle(token)
    if handle is None:
        return None
    util = _Utilization()
    if _state["lib"].nvmlDeviceGetUtilizationRates(handle, ctypes.byref(util)) != _SUCCESS:
        return None
    return int(util.gpu)


def compute_processes(token: str = "0") -> int | None:
    """How many processes hold a compute context on the GPU (the judge's own child included)."""
    handle = _handle(token)
    if handle is None:
        return None
    lib = _state["lib"]
    fn = None
    for name in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                 "nvmlDeviceGetComputeRunningProcesses"):
        fn = getattr(lib, name, None)
        if fn is not None:
            break
    if fn is None:
        return None
    count = ctypes.c_uint(0)
    # With room for none, NVML only reports how many there are.
    rc = fn(handle, ctypes.byref(count), None)
    return int(count.value) if rc in (_SUCCESS, _INSUFFICIENT_SIZE) else None


_CLOCK_SM, _CLOCK_MEM = 0, 2            # nvmlClockType_t: NVML_CLOCK_SM, NVML_CLOCK_MEM


def clocks(token: str = "0") -> dict | None:
    """The SM and memory clocks now (MHz) and why the clocks are held below their maximum (the
    driver's bit mask of clock event reasons: idle, power cap, thermal...). Medians of the same
    kernel judged again differ by a few percent for short kernels; these readings, taken before
    and after each timing, tell a slow clock from anything else."""
    handle = _handle(token)
    if handle is None:
        return None
    lib = _state["lib"]
    out: dict = {}
    for key, kind in (("sm_mhz", _CLOCK_SM), ("mem_mhz", _CLOCK_MEM)):
        value = ctypes.c_uint(0)
        try:
            if lib.nvmlDeviceGetClockInfo(handle, ctypes.c_int(kind), ctypes.byref(value)) == _SUCCESS:
                out[key] = int(value.value)
        except AttributeError:
            pass
    for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
        fn = getattr(lib, name, None)
        if fn is None:
            continue
        reasons = ctypes.c_ulonglong(0)
        if fn(handle, ctypes.byref(reasons)) == _SUCCESS:
            out["event_reasons"] = int(reasons.value)
        break
    return out or None
