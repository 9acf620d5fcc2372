"""A stand-in `cupy` with a simulated GPU, for testing the timing harness on a machine without one.

Data operations run at once in numpy; their cost is booked on a simulated device that executes
one thing at a time at BANDWIDTH bytes/s. Streams follow CUDA's rules for the legacy default
stream: it waits for blocking streams and they wait for it, non-blocking streams wait for
nobody. An event's timestamp is when its stream reaches it, in time.perf_counter() seconds, and
synchronizing waits (in real time) until the device gets there, so the parent's wall clock sees
what the simulated device did.

KP_FAKE_GPU_MODE=forge makes get_elapsed_time report a thousandth of the truth: a forged timer
that got past the harness's captured references, which only the cross-checks can catch.
"""
from __future__ import annotations

import itertools
import os
import random
import time
import weakref

import numpy as _np

float32, int32, uint8, uint32, float64 = _np.float32, _np.int32, _np.uint8, _np.uint32, _np.float64
BANDWIDTH = float(os.environ.get("KP_FAKE_GPU_BANDWIDTH", "10e9"))
LAUNCH_S = 5e-6
JITTER = float(os.environ.get("KP_FAKE_GPU_JITTER", "0.02"))   # relative spread of each operation
L2_BYTES = 256 * 1024
_clock = time.perf_counter
_ids = itertools.count(1)


def _mode() -> str:
    return os.environ.get("KP_FAKE_GPU_MODE", "honest")


def _wait_until(t: float) -> None:
    """Sleep for most of the wait, then spin: sleep alone overshoots by tens of microseconds."""
    while True:
        left = t - _clock()
        if left <= 0:
            return
        if left > 1e-3:
            time.sleep(left - 5e-4)


class _Device:
    busy_until = 0.0
    streams: "weakref.WeakSet[Stream]" = weakref.WeakSet()


def _blocking_ready() -> float:
    return max((s.ready for s in _Device.streams if not s.non_blocking and not s.is_null), default=0.0)


def _enqueue(stream, seconds: float) -> None:
    start = max(_clock(), _Device.busy_until, stream.ready)
    if stream.is_null:
        start = max(start, _blocking_ready())
    elif not stream.non_blocking:
        start = max(start, Stream.null.ready)
    stream.ready = start + (LAUNCH_S + seconds) * (1.0 + JITTER * random.uniform(-1.0, 1.0))
    _Device.busy_until = stream.ready


def _cost(nbytes: float) -> None:
    _enqueue(_current[0], nbytes / BANDWIDTH)


class Stream:
    null: "Stream"

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=0):
        self.is_null = bool(null)
        self.non_blocking = bool(non_blocking) and not null
        self.ptr = 0 if null else next(_ids)
        self.ready = 0.0
        self._previous: list = []
        _Device.streams.add(self)

    def done_at(self) -> float:
        return max(self.ready, _blocking_ready()) if self.is_null else self.ready

    def use(self):
        _current[0] = self
        return self

    def __enter__(self):
        self._previous.append(_current[0])
        _current[0] = self
        return self

    def __exit__(self, *exc):
        _current[0] = self._previous.pop()
        return False

    def synchronize(self):
        _wait_until(self.done_at())

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event


Stream.null = Stream(null=True)
_current = [Stream.null]


def get_current_stream():
    return _current[0]


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.t = None

    def record(self, stream=None):
        stream = stream or _current[0]
        self.t = max(_clock(), stream.done_at())

    def synchronize(self):
        _wait_until(self.t)


def get_elapsed_time(start, end):
    if start.t is None or end.t is None:
        raise RuntimeError("cudaErrorInvalidResourceHandle: event not recorded")
    _wait_until(max(start.t, end.t))
    ms = (end.t - start.t) * 1e3
    return ms * 1e-3 if _mode() == "forge" else ms


# -- memory ------------------------------------------------------------------------------------
_BUFFERS: "weakref.WeakValueDictionary[int, _np.ndarray]" = weakref.WeakValueDictionary()


def _address(a: _np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


class _Mem:
    def __init__(self, ptr):
        self.ptr = ptr


class ndarray:
    def __init__(self, array: _np.ndarray):
        self._a = array
        if array.base is None:
            _BUFFERS[_address(array)] = array

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: self._a.ndim)
    nbytes = property(lambda self: self._a.nbytes)
    data = property(lambda self: _Mem(_address(self._a)))

    def __len__(self):
        return len(self._a)

    def _binary(self, other, op):
        o = other._a if isinstance(other, ndarray) else other
        out = op(self._a, o)
        _cost(self.nbytes + getattr(o, "nbytes", 0) + out.nbytes)
        return ndarray(out)

    def __add__(self, other):
        return self._binary(other, _np.add)

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, _np.subtract)

    def __mul__(self, other):
        return self._binary(other, _np.multiply)

    __rmul__ = __mul__

    def __getitem__(self, key):
        return ndarray(self._a[key])

    def __setitem__(self, key, value):
        v = value._a if isinstance(value, ndarray) else value
        self._a[key] = v
        _cost(self._a[key].nbytes + getattr(v, "nbytes", 0))

    def copy(self):
        _cost(2 * self.nbytes)
        return ndarray(self._a.copy())

    def fill(self, value):
        self._a.fill(value)
        _cost(self.nbytes)

    def get(self):
        return asnumpy(self)


def empty(shape, dtype=float32):
    return ndarray(_np.empty(shape, dtype=dtype))


def zeros(shape, dtype=float32):
    return ndarray(_np.zeros(shape, dtype=dtype))


def asarray(a, dtype=None):
    if isinstance(a, ndarray):
        return a
    out = _np.array(a, dtype=dtype, copy=True, order="C")
    _cost(out.nbytes)
    return ndarray(out)


def asnumpy(a):
    if not isinstance(a, ndarray):
        return _np.asarray(a)
    _cost(a.nbytes)
    _current[0].synchronize()
    return a._a.copy()


def _buffer(ptr: int, size: int) -> _np.ndarray:
    base = _BUFFERS.get(ptr)
    if base is None or base.nbytes < size:
        raise RuntimeError(f"cudaErrorInvalidValue: no allocation of {size} bytes at {ptr:#x}")
    return base.reshape(-1).view(_np.uint8)[:size]


def _stream_of(ptr: int) -> Stream:
    if ptr == 0:
        return Stream.null
    for s in _Device.streams:
        if s.ptr == ptr:
            return s
    raise RuntimeError("cudaErrorInvalidResourceHandle: unknown stream")


class _Runtime:
    memcpyDeviceToDevice = 3
    cudaDevAttrL2CacheSize = 38

    class CUDARuntimeError(RuntimeError):
        pass

    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def getDevice():
        return 0

    @staticmethod
    def deviceSynchronize():
        _wait_until(max([_Device.busy_until] + [s.ready for s in _Device.streams]))

    @staticmethod
    def memcpyAsync(dst, src, size, kind, stream):
        _buffer(dst, size)[:] = _buffer(src, size)
        _enqueue(_stream_of(stream), 2 * size / BANDWIDTH)

    @staticmethod
    def memsetAsync(ptr, value, size, stream):
        _buffer(ptr, size)[:] = value
        _enqueue(_stream_of(stream), size / BANDWIDTH)

    @staticmethod
    def getDeviceProperties(device):
        return {"name": b"Fake GPU", "l2CacheSize": L2_BYTES, "totalGlobalMem": 16 << 30}

    @staticmethod
    def deviceGetAttribute(attr, device):
        return {38: L2_BYTES, 16: 4}.get(int(attr), 0)

    @staticmethod
    def driverGetVersion():
        return 13000

    @staticmethod
    def runtimeGetVersion():
        return 13000

    @staticmethod
    def memGetInfo():
        return 8 << 30, 16 << 30


class Device:
    def __init__(self, device=None):
        self.id = 0

    compute_capability = "90"

    def synchronize(self):
        _Runtime.deviceSynchronize()

    def use(self):
        return self


class _Kernel:
    """Kernel classes exist so the judge's recording wrappers can subclass them; they do not run."""

    def __init__(self, *args, **kwargs):
        self.name = kwargs.get("name", args[1] if len(args) > 1 else "kernel")

    def __call__(self, *args, **kwargs):
        raise NotImplementedError("the fake GPU runs array-level code only")


class RawKernel(_Kernel):
    pass


class RawModule(_Kernel):
    pass


class ElementwiseKernel(_Kernel):
    pass


class ReductionKernel(_Kernel):
    pass


class _Namespace:
    def __init__(self, **items):
        self.__dict__.update(items)


ALLOCATOR = {"pool": True}


def set_allocator(allocator=None):
    """None: every array an allocation of its own (the child does this under compute-sanitizer)."""
    ALLOCATOR["pool"] = allocator is not None


cuda = _Namespace(Event=Event, Stream=Stream, Device=Device, get_elapsed_time=get_elapsed_time,
                  get_current_stream=get_current_stream, runtime=_Runtime,
                  set_allocator=set_allocator)
