"""Host memory for stand-in device arrays, optionally placed against PROT_NONE guard pages.

A guarded array ends (up to 16-byte alignment of its start, which vector loads such as float4
need) where an inaccessible page begins, and another inaccessible page sits just before it, so a
stray access a little past either end faults instead of silently reading a neighbour. Guarding is
off unless the emulator asks for it (it must turn the fault into a report) or KP_SHIM_GUARD=1.
"""
from __future__ import annotations

import ctypes
import mmap
import os

import numpy

PAGE = mmap.PAGESIZE
ALIGN = 16
PROT_NONE = 0

_state = {"guard": None}
_libc = None


def _mprotect():
    global _libc
    if _libc is None:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.mprotect.restype = ctypes.c_int
        _libc = lib
    return _libc.mprotect


def set_guard(enabled: bool | None) -> None:
    """Force guard pages on or off (None: decide from the environment and the emulator)."""
    _state["guard"] = enabled


def guard_enabled() -> bool:
    if _state["guard"] is not None:
        return bool(_state["guard"])
    env = os.environ.get("KP_SHIM_GUARD")
    if env in ("0", "1"):
        _state["guard"] = env == "1"
        return _state["guard"]
    from . import backend
    _state["guard"] = backend.emulator_wants_guard_pages()
    return _state["guard"]


def guarded_empty(shape: tuple, dtype) -> numpy.ndarray:
    """A C-contiguous array whose bytes end at (or just before) an inaccessible page."""
    dtype = numpy.dtype(dtype)
    count = 1
    for s in shape:
        count *= int(s)
    nbytes = count * dtype.itemsize
    data_pages = max(1, -(-nbytes // PAGE))
    mm = mmap.mmap(-1, (data_pages + 2) * PAGE)
    holder = ctypes.c_char.from_buffer(mm)
    base = ctypes.addressof(holder)
    del holder
    protect = _mprotect()
    if protect(base, PAGE, PROT_NONE) or protect(base + (data_pages + 1) * PAGE, PAGE, PROT_NONE):
        return numpy.empty(shape, dtype)
    end = (data_pages + 1) * PAGE
    offset = (end - nbytes) // ALIGN * ALIGN
    return numpy.frombuffer(mm, dtype=dtype, count=count, offset=offset).reshape(shape)


def empty(shape, dtype=float) -> numpy.ndarray:
    """Plain (or guarded) uninitialised host memory for a device array."""
    if isinstance(shape, (int, numpy.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    dtype = numpy.dtype(dtype)
    if guard_enabled() and all(s > 0 for s in shape):
        hook = _emulator_allocator()
        if hook is not None:
            return hook(shape, dtype)
        return guarded_empty(shape, dtype)
    return numpy.empty(shape, dtype)


def _emulator_allocator():
    from . import backend
    return backend.emulator_allocator()
