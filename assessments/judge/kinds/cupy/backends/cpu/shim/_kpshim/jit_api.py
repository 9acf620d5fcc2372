"""The objects behind the stand-in `cupyx.jit`: the kernel decorator and the device built-ins."""
from __future__ import annotations

import builtins
import functools
import types
import warnings

from . import backend, jit_bridge, launchcfg
from .generated import GeneratedKernel


class JitBuiltin:
    """A cupyx.jit built-in (threadIdx, syncthreads, atomic_add ...): meaningful only in a kernel.

    `_kp_real` names the real CuPy object the transpiler substitutes for it.
    """

    def __init__(self, module: str, name: str):
        self._kp_real = (module, name)
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._kp_real[0]}.{self.__name__} can only be used inside a "
                           "cupyx.jit kernel")

    def __repr__(self):
        return f"<cupyx.jit built-in {self._kp_real[0]}.{self.__name__}>"


def builtin_module(name: str, doc: str = "") -> types.ModuleType:
    """A module whose every public attribute is the built-in of the same name in `name`."""
    mod = types.ModuleType(name, doc)

    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = JitBuiltin(name, attr)
        setattr(mod, attr, value)
        return value

    mod.__getattr__ = __getattr__
    return mod


def _raise_like(exc: jit_bridge.TranspileError):
    cls = getattr(builtins, exc.error_type, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = RuntimeError
    return cls(str(exc))


class JitRawKernel:
    """What @cupyx.jit.rawkernel() returns: launch with kernel[grid, block](args) or kernel(...)."""

    _kp_jit_kernel = True     # how jit_bridge recognises one without importing this module

    def __init__(self, func, mode: str, device: bool):
        self._func = func
        self._mode = mode
        self._device = device
        self._cache: dict = {}
        self._cached_codes: dict = {}
        functools.update_wrapper(self, func)

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        if self._device:
            raise TypeError(f"{self._func.__name__} is a device function; call it from a kernel")
        described = [jit_bridge.in_type(a, self._mode) for a in args]
        in_types = tuple(d for d, _ in described)
        values = [v for _, v in described]
        kernel = self._kernel(in_types)
        grid = launchcfg.dim3(grid, "grid")
        block = launchcfg.dim3(block, "block")
        shared_mem = launchcfg.shared_bytes(shared_mem)
        kernel.launch(grid, block, values, shared_mem, check=True)

    def _kernel(self, in_types: tuple) -> GeneratedKernel:
        kernel = self._cache.get(in_types)
        if kernel is None:
            try:
                result = jit_bridge.transpile(self._func, self._mode, in_types)
            except jit_bridge.TranspileError as exc:
                backend.kernel_log().record_incident(
                    "compile_error", f"cupyx.jit could not compile {self._func.__name__}: {exc}",
                    kernel=self._func.__name__)
                raise _raise_like(exc) from None
            kernel = GeneratedKernel("jit", result["func_name"], result["code"],
                                     tuple(result["options"]))
            self._cache[in_types] = kernel
            self._cached_codes[in_types] = result["code"]
        return kernel

    def __getitem__(self, grid_and_block):
        grid, block = grid_and_block
        if not isinstance(grid, tuple):
            grid = (grid, 1, 1)
        if not isinstance(block, tuple):
            block = (block, 1, 1)
        return lambda *args, **kwargs: self(grid, block, args, **kwargs)

    @property
    def cached_codes(self) -> dict:
        if not self._cached_codes:
            warnings.warn("No codes are cached because compilation is deferred until the first "
                          "function call.")
        return dict(self._cached_codes)

    @property
    def cached_code(self) -> str:
        codes = self.cached_codes
        if len(codes) > 1:
            warnings.warn("The input types of the kernel could not be inferred. Please use "
                          "`.cached_codes` instead.")
        return next(iter(codes.values()))


def rawkernel(*, mode: str = "cuda", device: bool = False):
    """cupyx.jit.rawkernel: compile a Python function into a CUDA kernel."""
    warnings.warn("cupyx.jit.rawkernel is experimental. The interface can change in the future.",
                  FutureWarning, stacklevel=2)

    def wrapper(func):
        return JitRawKernel(func, mode, device)
    return wrapper
