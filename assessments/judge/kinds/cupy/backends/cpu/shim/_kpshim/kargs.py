"""Kernel arguments converted as CuPy's launcher converts them (cupy/cuda/function.pyx)."""
from __future__ import annotations

import numpy

INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _is_device_array(x) -> bool:
    from .array import ndarray
    return isinstance(x, ndarray)


def convert(args) -> list:
    """Device arrays pass as pointers, scalars by value with CuPy's type rules.

    Python int and float stay Python objects: the emulator turns them into int64 and double bytes
    and the kernel reads as many bytes as its parameter declares (CuPy's behaviour, including a
    Python float given to a `float` parameter reading half a double).
    """
    out = []
    for a in args:
        out.append(convert_one(a))
    return out


def convert_one(a):
    from .array import MemoryPointer
    if a is None:
        return numpy.uint64(0)
    if _is_device_array(a):
        return a
    if isinstance(a, MemoryPointer):
        return numpy.uint64(a.ptr)
    if isinstance(a, numpy.ndarray):
        if a.size == 1:
            return a.reshape(-1)[0]
        raise TypeError(
            f"You are trying to pass a numpy.ndarray of shape {a.shape} as a kernel parameter. "
            "Only numpy.ndarrays of size one can be passed by value. If you meant to pass a "
            "pointer to __global__ memory, you need to pass a cupy.ndarray instead.")
    if isinstance(a, numpy.generic):
        if isinstance(a, (numpy.str_, numpy.bytes_, numpy.void)) or a.dtype == object:
            raise TypeError(f"Unsupported type {type(a)}")
        return a
    if isinstance(a, bool):
        return numpy.bool_(a)
    if isinstance(a, int):
        if INT64_MIN <= a <= INT64_MAX:
            return a
        if 0 <= a <= UINT64_MAX:
            return numpy.uint64(a)
        raise OverflowError("Python int too large to convert to C long")
    if isinstance(a, float):
        return a
    if isinstance(a, complex):
        return numpy.complex128(a)
    raise TypeError(f"Unsupported type {type(a)}")
