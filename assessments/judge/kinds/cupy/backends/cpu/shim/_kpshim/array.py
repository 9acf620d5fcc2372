"""cupy.ndarray on the CPU: a numpy subclass with CuPy's device-array surface.

Differences from numpy that CuPy users rely on are reproduced: indexing one element and
reductions give 0-d arrays (not scalars), `.data.ptr`, `.get()`, `.device`, and mixing with a
numpy.ndarray in arithmetic raises TypeError as it does with real device arrays.
"""
from __future__ import annotations

import numpy

from . import alloc, profiling

_np = numpy.ndarray


class MemoryPointer:
    """cupy.cuda.MemoryPointer: what `ndarray.data` returns (`ptr` is the host address here)."""

    def __init__(self, owner, ptr: int, size: int):
        self._owner = owner
        self.ptr = int(ptr)
        self.size = int(size)
        self.device_id = 0
        self.mem = self

    @property
    def device(self):
        from cupy.cuda import Device
        return Device(0)

    def __int__(self):
        return self.ptr

    def __add__(self, offset: int):
        return MemoryPointer(self._owner, self.ptr + int(offset), self.size - int(offset))

    def __repr__(self):
        return f"<MemoryPointer 0x{self.ptr:x} device=0>"


def _is_plain_numpy(x) -> bool:
    return type(x) is _np or (isinstance(x, _np) and not isinstance(x, ndarray))


def _unsupported(x):
    raise TypeError(f"Unsupported type {type(x)}")


def wrap(result):
    """numpy results as CuPy returns them: arrays as cupy.ndarray, scalars as 0-d arrays."""
    if isinstance(result, ndarray):
        return result
    if isinstance(result, _np):
        return result.view(ndarray)
    if isinstance(result, numpy.generic):
        return numpy.asarray(result).view(ndarray)
    if isinstance(result, tuple):
        return tuple(wrap(r) for r in result)
    if isinstance(result, list):
        return [wrap(r) for r in result]
    return result


def unwrap(x):
    """A base-class view, so that numpy's own machinery does not dispatch back to us."""
    if isinstance(x, ndarray):
        return x.view(_np)
    if isinstance(x, tuple):
        return tuple(unwrap(v) for v in x)
    if isinstance(x, list):
        return [unwrap(v) for v in x]
    return x


class ndarray(numpy.ndarray):
    """A device array whose memory is host memory the CPU emulator reads and writes."""

    __array_priority__ = 100

    def __new__(cls, shape, dtype=float, memptr=None, strides=None, order="C"):
        if memptr is not None or strides is not None:
            raise NotImplementedError("ndarray(memptr=..., strides=...) is not supported on the "
                                      "CPU backend")
        base = alloc.empty(shape, dtype)
        if order in ("F", "f"):
            base = numpy.asfortranarray(base)
        return base.view(cls)

    def __array_finalize__(self, obj):
        pass

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        if isinstance(arr, _np) and not isinstance(arr, ndarray):
            arr = arr.view(ndarray)
        return arr

    # Copies and fills are kernels on a GPU: noted while a profile runs (profiling.py).
    def __setitem__(self, key, value):
        if profiling.active() is None:
            return _np.__setitem__(self, key, value)
        with profiling.array_op("setitem", [value]) as op:
            _np.__setitem__(self, key, value)
            op.done(_np.__getitem__(self, key))
        return None

    def fill(self, value):
        with profiling.array_op("fill", []) as op:
            _np.fill(self, value)
            op.done(self)

    def copy(self, order="C"):
        with profiling.array_op("copy", [self]) as op:
            out = _np.copy(self, order=order)
            op.done(out)
        return out

    def astype(self, dtype, *args, **kwargs):
        with profiling.array_op("astype", [self]) as op:
            out = _np.astype(self, dtype, *args, **kwargs)
            op.done(out)
        return out

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for x in inputs:
            if _is_plain_numpy(x):
                _unsupported(x)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(unwrap(o) for o in (out if isinstance(out, tuple) else (out,)))
        with profiling.array_op(f"{ufunc.__name__}.{method}" if method != "__call__" else ufunc.__name__,
                                inputs) as op:
            result = getattr(ufunc, method)(*(unwrap(x) for x in inputs), **kwargs)
            op.done(result if out is None else kwargs["out"])
        if out is not None:
            outs = out if isinstance(out, tuple) else (out,)
            return outs[0] if len(outs) == 1 else outs
        return wrap(result)

    # -- element access ------------------------------------------------------------------
    def __getitem__(self, key):
        result = _np.__getitem__(self, key)
        if isinstance(result, _np):
            return result
        # One element: CuPy gives a 0-d view of it.
        if isinstance(key, tuple):
            if not any(k is Ellipsis for k in key):
                return _np.__getitem__(self, key + (Ellipsis,))
        elif key is not Ellipsis:
            return _np.__getitem__(self, (key, Ellipsis))
        return numpy.asarray(result).view(ndarray)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    # -- CuPy's device-array surface -----------------------------------------------------
    @property
    def data(self):
        return MemoryPointer(self, self.ctypes.data, self.nbytes)

    @property
    def device(self):
        from cupy.cuda import Device
        return Device(0)

    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to a numpy.ndarray (the host)."""
        profiling.transfer("d2h", self.nbytes)
        if out is not None:
            if not isinstance(out, _np) or isinstance(out, ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
            out[...] = self.view(_np)
            return out
        return numpy.array(self.view(_np), order=order, copy=True)

    def set(self, arr, stream=None):
        """Copy a numpy.ndarray into this array."""
        arr = numpy.asarray(arr)
        if arr.shape != self.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self.shape}, new shape: {arr.shape}")
        if arr.dtype != self.dtype:
            raise TypeError(f"{self.dtype} array cannot be set to {arr.dtype} array")
        _np.__setitem__(self, Ellipsis, arr)

    def toDlpack(self):
        raise NotImplementedError("DLPack export is not supported on the CPU backend")

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "descr": self.dtype.descr,
                "data": (self.ctypes.data, False), "version": 3,
                "strides": None if self.flags.c_contiguous else self.strides}

    def reduced_view(self, dtype=None):
        return self.ravel() if self.flags.c_contiguous else self

    def __repr__(self):
        return repr(self.view(_np))

    def __str__(self):
        return str(self.view(_np))

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.item(), spec)
        return _np.__format__(self.view(_np), spec)

    def __reduce__(self):
        return (_rebuild, (self.view(_np).copy(),))

    def __deepcopy__(self, memo):
        return self.copy()


ndarray.__module__ = "cupy"


def _rebuild(arr):
    return arr.view(ndarray)


def _wrap_method(name):
    base = getattr(_np, name)

    def method(self, *args, **kwargs):
        return wrap(base(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


for _name in ("argmax", "argmin", "all", "any", "nonzero", "trace", "dot", "searchsorted",
              "argsort", "cumsum", "cumprod", "ptp", "round", "clip", "conj"):
    if hasattr(_np, _name):
        setattr(ndarray, _name, _wrap_method(_name))


def from_numpy(arr) -> ndarray:
    """A new device array holding a copy of `arr` (C-contiguous; guard pages if enabled)."""
    arr = numpy.asarray(arr)
    out = alloc.empty(arr.shape, arr.dtype)
    out[...] = arr
    return out.view(ndarray)


def empty(shape, dtype=float, order="C") -> ndarray:
    out = alloc.empty(shape, dtype)
    if order in ("F", "f") and out.ndim > 1:
        out = numpy.asfortranarray(out)
    return out.view(ndarray)
