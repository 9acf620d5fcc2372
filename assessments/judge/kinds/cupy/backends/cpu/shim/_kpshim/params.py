"""CuPy's kernel parameter syntax (`float32 x, T y, raw T z`) and its type rules."""
from __future__ import annotations

import re

import numpy

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

C_TYPENAMES = {
    numpy.dtype("bool"): "bool",
    numpy.dtype("int8"): "signed char",
    numpy.dtype("uint8"): "unsigned char",
    numpy.dtype("int16"): "short",
    numpy.dtype("uint16"): "unsigned short",
    numpy.dtype("int32"): "int",
    numpy.dtype("uint32"): "unsigned int",
    numpy.dtype("int64"): "long long",
    numpy.dtype("uint64"): "unsigned long long",
    numpy.dtype("float16"): "float16",
    numpy.dtype("float32"): "float",
    numpy.dtype("float64"): "double",
    numpy.dtype("complex64"): "complex<float>",
    numpy.dtype("complex128"): "complex<double>",
}


def c_typename(dtype) -> str:
    dtype = numpy.dtype(dtype)
    try:
        return C_TYPENAMES[dtype]
    except KeyError:
        raise TypeError(f"Type is not supported: {dtype}") from None


def is_valid_kernel_name(name: str) -> bool:
    return isinstance(name, str) and bool(_VALID_NAME.match(name))


class Param:
    """One parameter: `name`, fixed `dtype` (or None for a placeholder `ctype`), `raw`, `is_const`."""

    __slots__ = ("name", "dtype", "ctype", "raw", "is_const")

    def __init__(self, text: str, is_const: bool):
        parts = text.split()
        if len(parts) < 2:
            raise Exception(f"Syntax error: {text}")
        t, self.name = parts[-2:]
        self.dtype = None
        self.raw = False
        self.is_const = is_const
        if len(t) == 1:
            self.ctype = t
        else:
            try:
                dtype = numpy.dtype(t)
            except TypeError:
                raise TypeError(f"data type {t!r} not understood") from None
            if dtype.name != t:
                raise ValueError(f"Wrong type {t}")
            self.dtype = dtype
            self.ctype = c_typename(dtype)
        for word in parts[:-2]:
            if word == "raw":
                self.raw = True
            else:
                raise Exception(f'Unknown keyword "{word}"')

    def __repr__(self):
        return f"<Param {'raw ' if self.raw else ''}{self.ctype} {self.name}>"


def parse(text: str, is_const: bool) -> tuple:
    if not text or not text.strip():
        return ()
    return tuple(Param(p, is_const) for p in text.strip().split(","))


def decide_types(in_params, out_params, in_dtypes, out_dtypes):
    """Bind type placeholders from array arguments; return (in, out dtypes, {placeholder: dtype}).

    `in_dtypes`/`out_dtypes` hold a numpy dtype for each array argument and None for scalars.
    """
    bound: dict[str, numpy.dtype] = {}

    def bind(p, dt):
        if dt is None:
            return
        dt = numpy.dtype(dt)
        if p.dtype is not None:
            if dt != p.dtype:
                raise TypeError(f"Type is mismatched. {p.name} {dt.type} {p.dtype.type}")
        elif p.ctype in bound:
            if bound[p.ctype] != dt:
                raise TypeError(f"Type is mismatched. {p.name} {dt.type} {bound[p.ctype].type} "
                                f"{p.ctype}")
        else:
            bound[p.ctype] = dt

    for p, dt in zip(out_params, out_dtypes):
        bind(p, dt)
    for p, dt in zip(in_params, in_dtypes):
        bind(p, dt)

    def resolve(p, fallback=None):
        if p.dtype is not None:
            return p.dtype
        if p.ctype in bound:
            return bound[p.ctype]
        if fallback is not None:
            bound[p.ctype] = fallback
            return fallback
        raise TypeError(f"Cannot determine the type of parameter '{p.name}' ({p.ctype}): "
                        "bind it with an array argument")

    in_types = []
    for p, dt in zip(in_params, in_dtypes):
        in_types.append(resolve(p))
    out_types = [resolve(p) for p in out_params]
    return tuple(in_types), tuple(out_types), dict(sorted(bound.items()))


def scalar_dtype(value):
    """numpy dtype CuPy gives a Python or numpy scalar before applying the parameter's type."""
    if isinstance(value, numpy.generic):
        return value.dtype
    if isinstance(value, bool):
        return numpy.dtype(numpy.bool_)
    if isinstance(value, int):
        return numpy.dtype(numpy.int64)
    if isinstance(value, float):
        return numpy.dtype(numpy.float64)
    if isinstance(value, complex):
        return numpy.dtype(numpy.complex128)
    raise TypeError(f"Unsupported type {type(value)}")


def typedefs(bound: dict) -> str:
    return "".join(f"typedef {c_typename(dt)} {name};\n" for name, dt in bound.items())
