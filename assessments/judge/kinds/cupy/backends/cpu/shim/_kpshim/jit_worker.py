"""Runs CuPy's own cupyx.jit transpiler on behalf of the stand-in (real CuPy, no GPU needed).

Started by jit_bridge as `python -I jit_worker.py` so that `cupy` here is the real package.
Requests and answers are JSON lines on stdin/stdout: a kernel's Python source, how to rebuild
the globals it uses, and its argument types; back comes the CUDA source CuPy generates.
"""
from __future__ import annotations

import builtins
import hashlib
import importlib
import json
import linecache
import os
import sys
import warnings

_built: dict[str, object] = {}


def _prepare_cupy():
    """Import CuPy's transpiler and answer its two device queries without a device."""
    import cupy
    import cupy._core
    from cupyx.jit import _compile  # noqa: F401

    cupy._core._full_mask = lambda: 0xFFFFFFFF
    cupy._core._get_warpsize = lambda: 32
    _compile._is_debug_mode = False
    warnings.filterwarnings("ignore", category=FutureWarning)


def _resolve(desc):
    import numpy
    kind = desc["k"]
    if kind == "value":
        return desc["v"]
    if kind == "complex":
        return complex(desc["re"], desc["im"])
    if kind == "npscalar":
        return numpy.dtype(desc["dtype"]).type(desc["v"])
    if kind == "dtype":
        return numpy.dtype(desc["v"])
    if kind == "module":
        return importlib.import_module(desc["name"])
    if kind == "attr":
        obj = importlib.import_module(desc["module"])
        for part in desc["name"].split("."):
            obj = getattr(obj, part)
        return obj
    if kind == "jit":
        from cupyx import jit
        func = _build(desc["func"])
        return jit.rawkernel(device=desc["device"], mode=desc["mode"])(func)
    if kind == "tuple":
        return tuple(_resolve(d) for d in desc["items"])
    raise ValueError(f"unknown global kind {kind}")


def _build(fdesc):
    """Recreate the kernel's Python function from its source, with its globals rebuilt."""
    digest = hashlib.sha256(json.dumps(fdesc, sort_keys=True).encode()).hexdigest()[:16]
    func = _built.get(digest)
    if func is not None:
        return func
    namespace = {"__builtins__": builtins, "__name__": f"_kpjit_{digest}"}
    for name, desc in fdesc["globals"].items():
        try:
            namespace[name] = _resolve(desc)
        except Exception:
            pass  # left unbound: the transpiler reports the name if the kernel needs it
    filename = f"<kpjit-{digest}-{fdesc['filename']}>"
    source = fdesc["source"]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[fdesc["name"]]
    _built[digest] = func
    return func


def _in_type(desc):
    import numpy
    from cupyx.jit import _cuda_types
    if desc[0] == "carray":
        _, dtype, ndim, c_contiguous, index_32_bits = desc
        return _cuda_types.CArray(numpy.dtype(dtype), ndim, c_contiguous, index_32_bits)
    return _cuda_types.Scalar(numpy.dtype(desc[1]))


def handle(request: dict) -> dict:
    """Transpile one kernel for the given argument types."""
    try:
        _prepare_cupy()
        from cupyx.jit import _compile, _cuda_types
        func = _build(request["func"])
        in_types = tuple(_in_type(t) for t in request["in_types"])
        result = _compile.transpile(func, ['extern "C"', "__global__"], request["mode"],
                                    in_types, _cuda_types.void)
        return {"ok": True, "code": result.code, "func_name": result.func_name,
                "options": list(result.options), "backend": result.backend,
                "jitify": bool(result.jitify),
                "enable_cooperative_groups": bool(result.enable_cooperative_groups)}
    except Exception as exc:
        return {"ok": False, "error_type": type(exc).__name__, "message": str(exc)}


def main() -> None:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything CuPy prints goes to stderr, never into the answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = handle(json.loads(line))
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
