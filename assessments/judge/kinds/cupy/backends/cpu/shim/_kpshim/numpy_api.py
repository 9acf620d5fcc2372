"""numpy's functions and ufuncs with CuPy's calling conventions on stand-in device arrays."""
from __future__ import annotations

import functools
import types

import numpy

from . import profiling
from .array import _is_plain_numpy, _unsupported, ndarray, unwrap, wrap


def reject_host_arrays(args, kwargs=None) -> None:
    """CuPy refuses numpy.ndarray where it expects device arrays (host memory is not on the GPU)."""
    for a in args:
        if _is_plain_numpy(a):
            _unsupported(a)
    for a in (kwargs or {}).values():
        if _is_plain_numpy(a):
            _unsupported(a)


class Ufunc:
    """cupy.ufunc: calls the numpy ufunc on device arrays; `_kp_real` names CuPy's for cupyx.jit."""

    def __init__(self, ufunc: numpy.ufunc, name: str):
        self._ufunc = ufunc
        self.__name__ = name
        self.__doc__ = ufunc.__doc__
        self._kp_real = ("cupy", name)

    def __call__(self, *args, **kwargs):
        reject_host_arrays(args, kwargs)
        return wrap(self._ufunc(*args, **kwargs))

    def __getattr__(self, attr):
        value = getattr(self._ufunc, attr)
        if callable(value):
            @functools.wraps(value)
            def method(*args, **kwargs):
                reject_host_arrays(args, kwargs)
                return wrap(value(*args, **kwargs))
            return method
        return value

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"


Ufunc.__module__ = "cupy"
Ufunc.__qualname__ = Ufunc.__name__ = "ufunc"


def wrap_function(func, name: str):
    """A numpy function whose array results come back as device arrays (scalars as 0-d arrays)."""
    @functools.wraps(func)
    def call(*args, **kwargs):
        reject_host_arrays(args, kwargs)
        with profiling.array_op(name, args, kwargs) as op:
            result = wrap(func(*args, **kwargs))
            op.done(result)
        return result
    call._kp_numpy = func
    return call


class ObjectProxy:
    """Wraps an object (numpy Generator, RandomState ...) so its methods return device arrays."""

    def __init__(self, obj):
        object.__setattr__(self, "_obj", obj)

    def __getattr__(self, attr):
        return convert(getattr(self._obj, attr), attr)

    def __setattr__(self, attr, value):
        setattr(self._obj, attr, unwrap(value))

    def __repr__(self):
        return repr(self._obj)


def convert(value, name: str):
    """What `cupy.<name>` is, given numpy's attribute of that name."""
    if isinstance(value, numpy.ufunc):
        return Ufunc(value, name)
    if isinstance(value, types.ModuleType):
        return ModuleProxy(value)
    if isinstance(value, type):
        if issubclass(value, (numpy.generic, numpy.dtype)) or value is numpy.ndarray:
            return value
        return _class_factory(value)
    if callable(value):
        return wrap_function(value, name)
    return value


def _class_factory(cls):
    @functools.wraps(cls, updated=())
    def make(*args, **kwargs):
        return ObjectProxy(cls(*args, **kwargs))
    return make


class ModuleProxy(types.ModuleType):
    """cupy.random / cupy.linalg / cupy.fft: numpy's module with device-array results."""

    def __init__(self, module, name: str | None = None):
        super().__init__(name or module.__name__.replace("numpy", "cupy", 1))
        self._numpy_module = module

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = convert(getattr(self._numpy_module, attr), attr)
        setattr(self, attr, value)
        return value

    def __dir__(self):
        return dir(self._numpy_module)


def as_device(obj, dtype=None, copy=True, order="K", ndmin=0) -> ndarray:
    """cupy.array / cupy.asarray semantics: host data is copied to a new device array."""
    from .array import from_numpy
    if isinstance(obj, ndarray):
        if not copy and (dtype is None or numpy.dtype(dtype) == obj.dtype) and obj.ndim >= ndmin:
            return obj
        host = numpy.array(obj.view(numpy.ndarray), dtype=dtype, copy=True, order=order,
                           ndmin=ndmin)
    else:
        host = numpy.array(unwrap(obj), dtype=dtype, order=order, ndmin=ndmin)
        profiling.transfer("h2d", host.nbytes)
    if not host.flags.c_contiguous:
        return host.view(ndarray)
    return from_numpy(host)
