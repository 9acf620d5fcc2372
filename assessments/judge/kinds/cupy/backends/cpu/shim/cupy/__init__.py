"""Stand-in for `cupy` on the judge's CPU backend (KernelPath).

Device arrays are numpy arrays in host memory; RawKernel/RawModule, ElementwiseKernel,
ReductionKernel and cupyx.jit kernels are compiled by NVRTC (the gate) and executed by the
CUDA-C emulator; array-level code runs on numpy with CuPy's conventions. Anything numpy has and
this module does not define is numpy's, with array results returned as device arrays.
"""
import sys as _sys

import numpy as _numpy

from _kpshim import missing as _missing
from _kpshim import numpy_api as _api
from _kpshim.array import empty as _empty
from _kpshim.array import from_numpy as _from_numpy
from _kpshim.array import ndarray
from _kpshim.elementwise import ElementwiseKernel  # noqa: F401
from _kpshim.raw import RawKernel, RawModule  # noqa: F401
from _kpshim.reduction import ReductionKernel  # noqa: F401

__version__ = "14.2.0"

# Set by the judge's child: correctness runs launch kernels with the emulator's checking on.
_kp_checking = False
_kp_timeout_s = None

_missing.install()

from cupy import cuda  # noqa: E402
from cupy import fft, lib, linalg, random  # noqa: E402,F401

# -- dtypes and constants (CuPy re-exports numpy's) ----------------------------------------------
from numpy import (  # noqa: E402,F401
    bool_, byte, cdouble, complex64, complex128, csingle, double, dtype, e, euler_gamma, finfo,
    float16, float32, float64, half, iinfo, inf, int8, int16, int32, int64, intc, intp, longlong,
    nan, newaxis, pi, short, single, ubyte, uint8, uint16, uint32, uint64, uintc, uintp,
    ulonglong, ushort, can_cast, result_type, promote_types, min_scalar_type, common_type,
    issubdtype, isscalar, ndim, shape, size,
)

int_ = _numpy.int_
uint = getattr(_numpy, "uint", _numpy.uint64)
float_ = _numpy.float64
complex_ = _numpy.complex128
generic = _numpy.generic
number = _numpy.number
integer = _numpy.integer
signedinteger = _numpy.signedinteger
unsignedinteger = _numpy.unsignedinteger
floating = _numpy.floating
complexfloating = _numpy.complexfloating
inexact = _numpy.inexact
ufunc = _api.Ufunc


# -- allocation and host <-> device ---------------------------------------------------------------
def _kp_from_numpy(arr):
    """The judge's way in: a device array holding a copy of `arr` (guard pages if enabled)."""
    return _from_numpy(arr)


def _kp_to_numpy(a):
    """The judge's way out: a host copy of a device array."""
    return _numpy.array(a.view(_numpy.ndarray) if isinstance(a, ndarray) else a, copy=True)


def empty(shape, dtype=float, order="C"):
    return _empty(shape, dtype, order)


def zeros(shape, dtype=float, order="C"):
    out = _empty(shape, dtype, order)
    out.view(_numpy.ndarray).fill(0)
    return out


def ones(shape, dtype=float, order="C"):
    out = _empty(shape, dtype, order)
    out.view(_numpy.ndarray).fill(1)
    return out


def full(shape, fill_value, dtype=None, order="C"):
    if dtype is None:
        dtype = _numpy.asarray(fill_value.get() if isinstance(fill_value, ndarray)
                               else fill_value).dtype
    out = _empty(shape, dtype, order)
    out.view(_numpy.ndarray)[...] = fill_value
    return out


def _like(a, dtype, shape):
    return (a.shape if shape is None else shape), (a.dtype if dtype is None else dtype)


def empty_like(a, dtype=None, order="K", subok=None, shape=None):
    return empty(*_like(a, dtype, shape))


def zeros_like(a, dtype=None, order="K", subok=None, shape=None):
    return zeros(*_like(a, dtype, shape))


def ones_like(a, dtype=None, order="K", subok=None, shape=None):
    return ones(*_like(a, dtype, shape))


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    return _api.as_device(obj, dtype, copy=True if copy is None else copy, order=order or "K",
                          ndmin=ndmin)


def asarray(a, dtype=None, order=None, *, blocking=False):
    return _api.as_device(a, dtype, copy=False, order=order or "K")


def asanyarray(a, dtype=None, order=None):
    return asarray(a, dtype, order)


def ascontiguousarray(a, dtype=None):
    if isinstance(a, ndarray) and a.flags.c_contiguous and (dtype is None or a.dtype == dtype):
        return a
    return _api.as_device(a, dtype, copy=True, order="C")


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    """A host numpy.ndarray with the contents of `a`."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    host = _numpy.asarray(a, order=order)
    if out is not None:
        out[...] = host
        return out
    return host


def get_array_module(*args):
    for a in args:
        if isinstance(a, ndarray):
            return _sys.modules[__name__]
    return _numpy


def is_available():
    return True


def fuse(*args, **kwargs):
    """cupy.fuse: numpy already evaluates the expression, so the function is used as it is."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


def memoize(for_each_device=False):
    import functools
    return functools.lru_cache(maxsize=None)


def clear_memo():
    return None


def get_default_memory_pool():
    return cuda.get_default_memory_pool()


def get_default_pinned_memory_pool():
    return cuda.get_default_pinned_memory_pool()


def show_config(*, _full=False):
    print("CuPy CPU stand-in (KernelPath judge): CUDA C runs on the CPU emulator")


def synchronize():
    return None


def _ufuncs():
    # numpy's own namespace, not dir(): getattr on dir()'s names would import numpy's lazy
    # submodules (f2py, testing, ma: a third of the stand-in's import time)
    for name, value in list(vars(_numpy).items()):
        if isinstance(value, _numpy.ufunc):
            globals()[name] = _api.Ufunc(value, name)


_ufuncs()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        value = getattr(_numpy, name)
    except AttributeError:
        raise AttributeError(f"module 'cupy' has no attribute '{name}'") from None
    value = _api.convert(value, name)
    globals()[name] = value
    return value

