"""Calling an `extern "C"` function through ctypes from a parameter list (the task's CppCall,
sent as [{"name", "type"}]): pure, no I/O. The child calls the submission with it; the parent
calls the task's C++ reference with it, so both are called the same way.

Types: int32, int64, uint64, double (a scalar); in:<t> (a read-only array); len:<arg> (an
array's length, int64); out:<t>[N] (N elements the function fills, zeroed first).
"""
from __future__ import annotations

import ctypes
import re

import numpy as np

SCALARS = {"int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
           "double": ctypes.c_double}
ARRAYS = {"uint8": np.uint8, "int32": np.int32, "int64": np.int64, "uint64": np.uint64,
          "double": np.float64}
_OUT = re.compile(r"out:(\w+)\[(\d+)\]$")
MAX_OUT = 1 << 20


class BadParams(ValueError):
    """A parameter list the judge does not know how to call."""


def parse(params: list[dict]) -> list[tuple[str, str, object]]:
    """[(name, role, detail)]: role scalar (ctypes type), in (dtype), len (array name), out
    ((dtype, count))."""
    out = []
    for p in params:
        name, kind = str(p["name"]), str(p["type"])
        if kind in SCALARS:
            out.append((name, "scalar", SCALARS[kind]))
        elif kind.startswith("in:") and kind[3:] in ARRAYS:
            out.append((name, "in", ARRAYS[kind[3:]]))
        elif kind.startswith("len:"):
            out.append((name, "len", kind[4:]))
        elif _OUT.match(kind) and _OUT.match(kind).group(1) in ARRAYS:
            m = _OUT.match(kind)
            count = int(m.group(2))
            if not 0 < count <= MAX_OUT:
                raise BadParams(f"output {name} of {count} elements")
            out.append((name, "out", (ARRAYS[m.group(1)], count)))
        else:
            raise BadParams(f"parameter {name} of unknown type {kind}")
    return out


def bind(function, params: list[tuple[str, str, object]], returns: str = "void"):
    """Set the function's argument and result types."""
    function.argtypes = [detail if role == "scalar" else ctypes.c_int64 if role == "len"
                         else ctypes.c_void_p for _, role, detail in params]
    function.restype = None if returns == "void" else SCALARS[returns]
    return function


def arguments(params: list[tuple[str, str, object]], values: dict) -> tuple[list, dict, list]:
    """The C arguments from `values` (name -> array or number), the output arrays by name, and
    the arrays that must stay alive through the call."""
    args, outs, keep = [], {}, []
    for name, role, detail in params:
        if role == "scalar":
            args.append(detail(values[name]))
        elif role == "in":
            arr = np.ascontiguousarray(values[name], dtype=detail)
            keep.append(arr)
            args.append(arr.ctypes.data_as(ctypes.c_void_p))
        elif role == "len":
            args.append(ctypes.c_int64(len(values[detail])))
        else:
            dtype, count = detail
            arr = np.zeros(count, dtype=dtype)
            outs[name] = arr
            args.append(arr.ctypes.data_as(ctypes.c_void_p))
    return args, outs, keep
