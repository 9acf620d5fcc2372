"""Turn CuPy-style generated CUDA C (CArray/CIndexer kernel parameters) into emulator input.

The NVRTC gate sees the source as CuPy would compile it, with CuPy's real headers. The emulator
takes only pointers and scalars as kernel arguments, so each `CArray<T, n, c, i32> x` parameter
becomes `T* _kp_p_x` plus n int64 extents and n int64 byte strides, and the kernel rebuilds `x`
from them on entry (CIndexer likewise from its size and extents). CuPy's headers are replaced
by a small CPU header with the same classes.
"""
from __future__ import annotations

import os
import re

import numpy

HEADER_PATH = os.path.join(os.path.dirname(__file__), "include", "kp_carray_cpu.h")

_CUPY_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]cupy/[^>"]*[>"][^\n]*$', re.M)
_LANEID_ASM = re.compile(
    r'asm\s*(?:volatile\s*)?\(\s*"mov\.u32 %0, %%laneid;"\s*:\s*"=r"\(\s*(\w+)\s*\)\s*\)')
_LANE_EXPR = r"\1 = (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) & 31u"
_PARAM = re.compile(r"^(const\s+)?(CArray|CIndexer)\s*<(.*)>\s*(\w+)$", re.S)

_header_cache: list[str] = []


def header() -> str:
    if not _header_cache:
        with open(HEADER_PATH, encoding="utf-8") as f:
            _header_cache.append(f.read())
    return _header_cache[0]


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside <>, (), [] and {}."""
    depth, start, out = 0, 0, []
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def _matching(text: str, start: int, open_ch: str, close_ch: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced {open_ch}{close_ch}")


def _rewrite_param(param: str):
    """(new parameter text, prologue, plan entry) for one kernel parameter."""
    m = _PARAM.match(param)
    if not m:
        return param, "", ("plain",)
    const, kind, targs, name = m.group(1) or "", m.group(2), m.group(3), m.group(4)
    args = split_top_level(targs)
    if kind == "CIndexer":
        ndim = int(args[0])
        params = [f"long long _kp_n_{name}"] + [f"long long _kp_s{k}_{name}" for k in range(ndim)]
        if ndim:
            shape = ", ".join(f"_kp_s{k}_{name}" for k in range(ndim))
            pro = (f"const ptrdiff_t _kp_sh_{name}[{ndim}] = {{{shape}}}; "
                   f"{const}CIndexer<{targs}> {name}(_kp_n_{name}, _kp_sh_{name});\n")
        else:
            pro = f"{const}CIndexer<{targs}> {name}(_kp_n_{name}, (const ptrdiff_t*)0);\n"
        return ", ".join(params), pro, ("cindexer", ndim)
    ctype, ndim = args[0], int(args[1])
    params = [f"{ctype}* _kp_p_{name}"]
    params += [f"long long _kp_s{k}_{name}" for k in range(ndim)]
    params += [f"long long _kp_t{k}_{name}" for k in range(ndim)]
    if ndim:
        shape = ", ".join(f"_kp_s{k}_{name}" for k in range(ndim))
        strides = ", ".join(f"_kp_t{k}_{name}" for k in range(ndim))
        pro = (f"const ptrdiff_t _kp_sh_{name}[{ndim}] = {{{shape}}}; "
               f"const ptrdiff_t _kp_st_{name}[{ndim}] = {{{strides}}}; "
               f"{const}CArray<{targs}> {name}(_kp_p_{name}, _kp_sh_{name}, _kp_st_{name});\n")
    else:
        pro = f"{const}CArray<{targs}> {name}(_kp_p_{name});\n"
    return ", ".join(params), pro, ("carray", ndim)


def rewrite_kernel(source: str, name: str):
    """Rewrite kernel `name`'s signature; returns (source, plan)."""
    m = re.search(r"__global__\s+void\s+" + re.escape(name) + r"\s*\(", source)
    if m is None:
        raise ValueError(f"kernel {name} not found in generated source")
    open_at = m.end() - 1
    close_at = _matching(source, open_at, "(", ")")
    body_at = source.index("{", close_at)
    new_params, prologue, plan = [], [], []
    for p in split_top_level(source[open_at + 1:close_at]):
        text, pro, entry = _rewrite_param(p)
        new_params.append(text)
        prologue.append(pro)
        plan.append(entry)
    out = (source[:open_at + 1] + ", ".join(new_params) + source[close_at:body_at + 1] + "\n"
           + "".join(prologue) + source[body_at + 1:])
    return out, tuple(plan)


def for_emulator(source: str, kernel_names) -> tuple[str, dict]:
    """Emulator source for generated code, and each kernel's argument expansion plan."""
    src = _CUPY_INCLUDE.sub("", source)
    src = _LANEID_ASM.sub(_LANE_EXPR, src)
    plans = {}
    for name in kernel_names:
        src, plans[name] = rewrite_kernel(src, name)
    return header() + "\n" + src, plans


def expand_args(plan: tuple, args: list) -> list:
    """Arguments for a rewritten kernel: arrays become pointer, extents and strides."""
    out = []
    for entry, arg in zip(plan, args):
        kind = entry[0]
        if kind == "plain":
            out.append(arg)
        elif kind == "carray":
            out.append(arg)
            if entry[1]:
                out.extend(numpy.int64(s) for s in arg.shape)
                out.extend(numpy.int64(s) for s in arg.strides)
        else:
            size, shape = arg
            out.append(numpy.int64(size))
            out.extend(numpy.int64(s) for s in shape)
    return out
