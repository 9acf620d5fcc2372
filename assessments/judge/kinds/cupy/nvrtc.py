"""NVRTC compile gate and ptxas resource report, with no GPU and without importing `cupy`.

Where it runs: in the judge, in the parent's compile sandbox (`python -m assessments.judge.kinds.cupy.nvrtc`:
one job of programs on stdin, their results with PTX and cubin on stdout; gate.py), asked by the
child's kernel_log, which may not compile anything itself; elsewhere (the shim on its own,
tests) in-process. Its diagnostics are mapped back to solution.py lines by diagnostics.py,
which the parent shares.
"""
from __future__ import annotations

import base64
import ctypes
import importlib.util
import os
import re
import sys
import threading
from dataclasses import dataclass, field

from .diagnostics import PROGRAM_NAME

DEFAULT_ARCH = "sm_90"

# Options a candidate may pass through RawKernel/RawModule: anything naming files (-I, --include-path,
# -include) or the target (-arch) is the judge's business.
_ALLOWED_OPTION = re.compile(
    r"^(?:-D\S+|-U\S+|--?std=c\+\+\d\d|--?use_fast_math|--?fmad=(?:true|false)|--?ftz=(?:true|false)"
    r"|--?prec-div=(?:true|false)|--?prec-sqrt=(?:true|false)|--?maxrregcount=\d+|-lineinfo|--generate-line-info"
    r"|--?device-as-default-execution-space|--?default-device|--?extra-device-vectorization"
    r"|--?restrict|-w|--disable-warnings|--?dopt=(?:on|off)|--?diag-suppress=[\d,]+)$"
)


@dataclass(frozen=True)
class ResourceUsage:
    """What ptxas reported for one kernel."""

    name: str
    registers: int = 0
    shared_bytes: int = 0
    stack_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class CompileResult:
    """Outcome of one NVRTC compile: ok, the log, and per-kernel resource usage."""

    ok: bool
    log: str
    kernels: list[ResourceUsage] = field(default_factory=list)
    lowered_names: dict[str, str] = field(default_factory=dict)
    ptx: str | None = None       # the program's PTX, kept for the report's listings
    cubin: bytes | None = None   # its machine code for the target (an ELF for nvdisasm)

    def usage(self, name: str) -> ResourceUsage | None:
        """Usage of a kernel by its source name, name expression or mangled name."""
        wanted = {name, self.lowered_names.get(name, name)}
        for k in self.kernels:
            if k.name in wanted:
                return k
        return None

    def to_dict(self) -> dict:
        """What the gate's answer carries (the cubin travels apart, as bytes)."""
        return {"ok": self.ok, "log": self.log, "kernels": [k.to_dict() for k in self.kernels],
                "lowered_names": dict(self.lowered_names), "ptx": self.ptx}

    @classmethod
    def from_dict(cls, d: dict) -> "CompileResult":
        fields = set(ResourceUsage.__dataclass_fields__)
        kernels = [ResourceUsage(**{k: v for k, v in u.items() if k in fields})
                   for u in d.get("kernels") or [] if isinstance(u, dict) and "name" in u]
        lowered = d.get("lowered_names") if isinstance(d.get("lowered_names"), dict) else {}
        return cls(bool(d.get("ok")), str(d.get("log", "")), kernels,
                   {str(k): str(v) for k, v in lowered.items()},
                   ptx=d.get("ptx") if isinstance(d.get("ptx"), str) else None)


class NvrtcUnavailable(RuntimeError):
    """libnvrtc could not be found or loaded: a judge installation problem, not the candidate's."""


# ---------------------------------------------------------------------------------------------
# Locating NVRTC and headers without importing cupy (inside the child `cupy` is the CPU stand-in).

def site_dirs() -> list[str]:
    dirs: list[str] = []
    spec = importlib.util.find_spec("nvidia")
    if spec is not None and spec.submodule_search_locations:
        dirs += [os.path.dirname(p) for p in spec.submodule_search_locations]
    dirs += [p for p in sys.path if p and p.endswith("site-packages")]
    seen, out = set(), []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def _find_libnvrtc() -> str:
    for site in site_dirs():
        cand = os.path.join(site, "nvidia", "cu13", "lib", "libnvrtc.so.13")
        if os.path.exists(cand):
            return cand
    return "libnvrtc.so.13"  # a system CUDA toolkit on the loader path (GPU hosts)


def include_dirs() -> list[str]:
    """-I directories: CUDA headers, CuPy's headers and its bundled CCCL (libcudacxx, CUB and
    Thrust), as CuPy itself passes them to NVRTC."""
    out = []
    cccl = ("cupy", "_core", "include", "cupy", "_cccl")
    for site in site_dirs():
        for parts in (("nvidia", "cu13", "include"), ("cupy", "_core", "include"),
                      (*cccl, "libcudacxx"), (*cccl, "cub"), (*cccl, "thrust")):
            path = os.path.join(site, *parts)
            if os.path.isdir(path) and path not in out:
                out.append(path)
    return out


_lib = None
_lib_lock = threading.Lock()


def _nvrtc():
    global _lib
    with _lib_lock:
        if _lib is None:
            path = _find_libnvrtc()
            try:
                lib = ctypes.CDLL(path)
            except OSError as exc:
                raise NvrtcUnavailable(f"cannot load NVRTC ({path}): {exc}") from exc
            lib.nvrtcGetErrorString.restype = ctypes.c_char_p
            lib.nvrtcCreateProgram.argtypes = [
                ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                ctypes.c_void_p, ctypes.c_void_p]
            lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                                ctypes.POINTER(ctypes.c_char_p)]
            lib.nvrtcAddNameExpression.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            lib.nvrtcGetLoweredName.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_char_p)]
            lib.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
            lib.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
            for what in ("PTX", "CUBIN"):
                if hasattr(lib, f"nvrtcGet{what}Size"):
                    getattr(lib, f"nvrtcGet{what}Size").argtypes = [
                        ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
                    getattr(lib, f"nvrtcGet{what}").argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            _lib = lib
        return _lib


def available() -> bool:
    """True when NVRTC loads."""
    try:
        _nvrtc()
        return True
    except NvrtcUnavailable:
        return False


def build_options(arch: str, options: tuple | list = ()) -> list[str]:
    """NVRTC options: the candidate's allowed ones, then target, report and include paths."""
    kept = [o for o in (str(x) for x in options) if _ALLOWED_OPTION.match(o)]
    opts = kept + [f"-arch={arch}", "-Xptxas", "-v"]
    if not any("std=" in o for o in kept):
        opts.append("-std=c++17")
    opts += [f"-I{d}" for d in include_dirs()]
    return opts


def nvrtc_compile(source: str, *, arch: str = DEFAULT_ARCH, options: tuple = (),
                  name_expressions: tuple = ()) -> CompileResult:
    """Compile CUDA C with NVRTC to a cubin for `arch`, keep its PTX and cubin, and parse ptxas'
    resource report."""
    refused = refused_include(source)
    if refused:
        return CompileResult(False, f"{PROGRAM_NAME}(1): error: {refused}")
    lib = _nvrtc()
    prog = ctypes.c_void_p()
    err = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), PROGRAM_NAME.encode(), 0,
                                 None, None)
    if err:
        return CompileResult(False, f"nvrtc: {lib.nvrtcGetErrorString(err).decode()}")
    try:
        for expr in name_expressions:
            lib.nvrtcAddNameExpression(prog, str(expr).encode())
        opts = [o.encode() for o in build_options(arch, options)]
        err = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(max(size.value, 1))
        lib.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")
        if err:
            if not log.strip():
                log = f"nvrtc: {lib.nvrtcGetErrorString(err).decode()}"
            return CompileResult(False, log)
        lowered = {}
        for expr in name_expressions:
            out = ctypes.c_char_p()
            if lib.nvrtcGetLoweredName(prog, str(expr).encode(), ctypes.byref(out)) == 0 and out.value:
                lowered[str(expr)] = out.value.decode()
        ptx = _output(lib, prog, "PTX")
        return CompileResult(True, log, parse_ptxas_report(log, lowered), lowered,
                             ptx=ptx.rstrip(b"\0").decode(errors="replace") if ptx else None,
                             cubin=_output(lib, prog, "CUBIN"))
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _output(lib, prog, what: str) -> bytes | None:
    """NVRTC's PTX or cubin of a compiled program; None where this NVRTC cannot give it."""
    if not hasattr(lib, f"nvrtcGet{what}Size"):
        return None
    size = ctypes.c_size_t()
    if getattr(lib, f"nvrtcGet{what}Size")(prog, ctypes.byref(size)) or not size.value:
        return None
    buf = ctypes.create_string_buffer(size.value)
    if getattr(lib, f"nvrtcGet{what}")(prog, buf):
        return None
    return buf.raw


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]*)[>"]', re.M)


def refused_include(source: str) -> str | None:
    """Why an #include is refused: NVRTC would read any file it names and echo it in errors."""
    for m in _INCLUDE.finditer(source):
        path = m.group(1)
        if path.startswith(("/", "~")) or ".." in path.split("/"):
            return f'#include "{path}" is not allowed (only library headers such as <cuda_fp16.h>)'
    return None


# ---------------------------------------------------------------------------------------------
# ptxas report

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas_report(log: str, lowered_names: dict[str, str] | None = None) -> list[ResourceUsage]:
    """Per-kernel usage from `-Xptxas -v` output; mangled names shown by their name expression."""
    demangle = {v: k for k, v in (lowered_names or {}).items()}
    found: dict[str, dict] = {}
    current = None
    for line in log.splitlines():
        m = _ENTRY.search(line) or _PROPS.search(line)
        if m:
            current = m.group(1)
            found.setdefault(current, {})
            continue
        if current is None:
            continue
        m = _STACK.search(line)
        if m:
            found[current].update(stack_bytes=int(m.group(1)), spill_stores=int(m.group(2)),
                                  spill_loads=int(m.group(3)))
            continue
        m = _USED.search(line)
        if m:
            info = found[current]
            info["registers"] = int(m.group(1))
            b = _BARRIERS.search(line)
            s = _SMEM.search(line)
            info["barriers"] = int(b.group(1)) if b else 0
            info["shared_bytes"] = int(s.group(1)) if s else 0
    return [ResourceUsage(name=demangle.get(n, n), **info) for n, info in found.items()]


# ---------------------------------------------------------------------------------------------
# The compile sandbox's job: {"programs": [{source, options, name_expressions}], "arch"}
# -> {"results": [CompileResult.to_dict() + {"cubin": base64 | None} | {"unavailable", "log"}]}

def run(job: dict) -> dict:
    results = []
    for p in job.get("programs", []):
        try:
            res = nvrtc_compile(p["source"], arch=str(job.get("arch", DEFAULT_ARCH)),
                                options=tuple(p.get("options", ())),
                                name_expressions=tuple(p.get("name_expressions", ())))
        except NvrtcUnavailable as exc:
            results.append({"unavailable": True, "log": str(exc)})
            continue
        cubin = base64.b64encode(res.cubin).decode("ascii") if res.cubin else None
        results.append({**res.to_dict(), "cubin": cubin})
    return {"results": results}


def main() -> int:
    from assessments.judge.protocol import answer_job

    return answer_job(run)


if __name__ == "__main__":
    sys.exit(main())
