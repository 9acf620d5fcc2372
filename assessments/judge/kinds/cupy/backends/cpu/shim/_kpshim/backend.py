"""Glue to the judge: the NVRTC gate and launch log (kernel_log) and the CUDA-C emulator.

Both are imported lazily. Without kernel_log (the shim used on its own) the gate is skipped;
without the emulator a launch raises, since nothing else can run CUDA C here.
"""
from __future__ import annotations

import sys

from . import errors, profiling

EMULATOR_MODULE = "assessments.judge.kinds.cupy.backends.cpu.emulator"
KERNEL_LOG_MODULE = "assessments.judge.kinds.cupy.kernel_log"

# EmulatorError.kind -> (verdict recorded as an incident, CUresult the candidate sees)
ERROR_MAP = {
    "race_detected": ("race_detected", errors.CUDA_ERROR_LAUNCH_FAILED),
    "memory_error": ("memory_error", errors.CUDA_ERROR_ILLEGAL_ADDRESS),
    "deadlock": ("runtime_error", errors.CUDA_ERROR_LAUNCH_FAILED),
    "timeout": ("time_limit_exceeded", errors.CUDA_ERROR_LAUNCH_TIMEOUT),
    "compile_error": ("compile_error", None),
    "launch_error": ("runtime_error", errors.CUDA_ERROR_LAUNCH_FAILED),
}

_cache: dict = {}


class _NullRecord:
    """Stands in for a KernelRecord when kernel_log is unavailable."""

    usage = None
    compiled = None

    def __init__(self, kind, name):
        self.kind, self.name = kind, name


class _NullLog:
    """kernel_log's interface, doing nothing (the shim imported outside the judge)."""

    class CompileFailed(Exception):
        log = ""

    @staticmethod
    def record_kernel(kind, name, source, options=(), name_expressions=()):
        return _NullRecord(kind, name)

    @staticmethod
    def record_launch(record, grid, block, shared_mem=0):
        return None

    @staticmethod
    def record_incident(verdict, message, kernel=None, **detail):
        return None


def kernel_log():
    if "log" not in _cache:
        try:
            __import__(KERNEL_LOG_MODULE)
            _cache["log"] = sys.modules[KERNEL_LOG_MODULE]
        except ImportError:
            _cache["log"] = _NullLog
    return _cache["log"]


def emulator():
    """The emulator package, or a CUDADriverError explaining that none is installed."""
    mod = _cache.get("emu")
    if mod is None:
        try:
            __import__(EMULATOR_MODULE)
        except ImportError as exc:
            raise errors.CUDADriverError(
                errors.CUDA_ERROR_LAUNCH_FAILED,
                f"the CPU emulator ({EMULATOR_MODULE}) is not available: {exc}") from None
        mod = _cache["emu"] = sys.modules[EMULATOR_MODULE]
    return mod


def emulator_or_none():
    try:
        return emulator()
    except errors.CUDADriverError:
        return None


def emulator_wants_guard_pages() -> bool:
    emu = emulator_or_none()
    want = getattr(emu, "WANTS_GUARD_PAGES", getattr(emu, "wants_guard_pages", False))
    return bool(want() if callable(want) else want)


def emulator_allocator():
    """The emulator's own guarded allocator `(shape, dtype) -> numpy array`, if it has one."""
    emu = emulator_or_none()
    for attr in ("guarded_empty", "alloc_guarded"):
        fn = getattr(emu, attr, None)
        if callable(fn):
            return fn
    return None


def checking() -> bool:
    """True while the child runs correctness tests (it sets cupy._kp_checking)."""
    mod = sys.modules.get("cupy")
    return bool(getattr(mod, "_kp_checking", False))


def timeout_s():
    mod = sys.modules.get("cupy")
    return getattr(mod, "_kp_timeout_s", None)


def gate(kind: str, name: str, source: str, options: tuple = (), name_expressions: tuple = (),
         build: tuple | None = None):
    """Run the NVRTC gate; a refusal becomes CuPy's CompileException. `build`: the emulator
    build that follows (compile_module's source, options and name expressions)."""
    log = kernel_log()
    try:
        return log.record_kernel(kind, name, source, tuple(options), tuple(name_expressions),
                                 build=build)
    except log.CompileFailed as exc:
        raise errors.CompileException(getattr(exc, "log", "") or str(exc), source, name,
                                      tuple(options)) from None


def compile_module(source: str, options: tuple = (), name_expressions: tuple = (), kernel=None):
    """Build a source on the emulator; its own compile failure is recorded like NVRTC's."""
    emu = emulator()
    key = (source, tuple(options), tuple(name_expressions))
    mod = _cache.get(("mod", key))
    if mod is not None:
        return mod
    try:
        # the variant this process launches (checked while it runs tests): the only one built
        mod = emu.compile_module(source, tuple(options), tuple(name_expressions), checking=checking())
    except emu.EmulatorError as exc:
        raise _translate(exc, kernel, source) from None
    _cache[("mod", key)] = mod
    return mod


def get_function(module, name: str, kernel=None):
    emu = emulator()
    try:
        return module.get_function(name)
    except emu.EmulatorError as exc:
        raise _translate(exc, kernel or name) from None
    except (KeyError, LookupError, AttributeError) as exc:
        raise errors.CUDADriverError(errors.CUDA_ERROR_NOT_FOUND, str(exc)) from None


def launch(record, function, name: str, grid: tuple, block: tuple, args: list,
           shared_mem: int = 0) -> None:
    """Record the launch and run it on the emulator; emulator failures become incidents."""
    kernel_log().record_launch(record, grid, block, shared_mem)
    _note_arguments(record, function, name, args)
    emu = emulator()
    try:
        if profiling.active() is not None:
            profiling.launch(record, function, name, grid, block, args, shared_mem, timeout_s())
            return
        function.launch(grid, block, args, shared_mem, checking=checking(), timeout_s=timeout_s())
    except emu.EmulatorError as exc:
        raise _translate(exc, name) from None


MAX_NOTES = 4


def _note_arguments(record, function, name: str, args) -> None:
    """Arguments that are legal but almost never meant: a Python float (or float64) given to a
    `float` parameter, which CuPy passes as an 8-byte double and the kernel reads half of. Kept
    on the kernel's record; the judge adds them to a wrong answer."""
    if not any(isinstance(a, float) for a in args):   # numpy.float64 too: the usual launch has none
        return
    try:
        params = function.params
    except Exception:   # no signature for this kernel: nothing to say
        return
    for a, p in zip(args, params):
        if p.is_pointer or not isinstance(a, float) or p.ctype.replace("const", "").strip() != "float":
            continue
        notes = record.extra.setdefault("notes", [])
        note = (f"kernel '{name}' got a {'Python float' if type(a) is float else type(a).__name__} "
                f"for its float parameter '{p.name}': CuPy passes it as an 8-byte double, of "
                f"which the kernel reads 4 bytes; pass numpy.float32({p.name}) instead")
        if note not in notes and len(notes) < MAX_NOTES:
            notes.append(note)


def _translate(exc, kernel, source: str = ""):
    kind = getattr(exc, "kind", "launch_error")
    detail = getattr(exc, "detail", "") or str(exc)
    name = getattr(exc, "kernel", None) or kernel
    verdict, status = ERROR_MAP.get(kind, ("runtime_error", errors.CUDA_ERROR_LAUNCH_FAILED))
    # A compile error's message is the compiler's log: the judge names the kernel itself.
    message = f"{kind.replace('_', ' ')} in kernel {name}: {detail}" \
        if name and kind != "compile_error" else detail
    kernel_log().record_incident(verdict, message, kernel=name)
    if status is None:
        return errors.CompileException(detail, source, name or "")
    return errors.CUDADriverError(status, message)
