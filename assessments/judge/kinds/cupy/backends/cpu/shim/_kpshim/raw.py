"""RawKernel and RawModule: the candidate's CUDA C, gated by NVRTC and run on the emulator."""
from __future__ import annotations

from . import backend, errors, kargs, launchcfg

_ATTRIBUTE_KEYS = ("max_threads_per_block", "shared_size_bytes", "const_size_bytes",
                   "local_size_bytes", "num_regs", "ptx_version", "binary_version",
                   "cache_mode_ca", "max_dynamic_shared_size_bytes",
                   "preferred_shared_memory_carveout")


def _require(value, typ, what: str):
    if not isinstance(value, typ):
        raise TypeError(f"Argument '{what}' has incorrect type (expected {typ.__name__}, got "
                        f"{type(value).__name__})")


class RawKernel:
    """cupy.RawKernel: compiled on first use; launches run on the CPU emulator."""

    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        _require(code, str, "code")
        _require(name, str, "name")
        _require(options, tuple, "options")
        _require(backend, str, "backend")
        self.code = code
        self.name = name
        self.__name__ = name
        self.options = options
        self.backend = backend
        self.translate_cucomplex = bool(translate_cucomplex)
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        self.jitify = bool(jitify)
        self.file_path = None
        self.name_expressions = None
        self._kind = "RawKernel"
        self._record = None
        self._function = None
        self._max_dynamic_shared = None
        self._carveout = -1

    # -- compile -------------------------------------------------------------------------
    def _gate(self):
        if self._record is None:
            self._record = backend.gate(self._kind, self.name, self.code, self.options,
                                        self.name_expressions or (),
                                        build=(self.code, self.options, self.name_expressions or ()))
        return self._record

    def _emulated(self):
        if self._function is None:
            self._gate()
            module = backend.compile_module(self.code, self.options, self.name_expressions or (),
                                            kernel=self.name)
            self._function = backend.get_function(module, self.name, kernel=self.name)
        return self._function

    def compile(self, log_stream=None):
        """Compile now (CuPy compiles on first call); the log goes to `log_stream` if given."""
        rec = self._gate()
        if log_stream is not None:
            log_stream.write(getattr(rec, "extra", {}).get("log", "") if rec else "")

    @property
    def kernel(self):
        self._gate()
        return _Function(self)

    # -- launch --------------------------------------------------------------------------
    def __call__(self, grid, block, args, **kwargs):
        shared_mem = kwargs.pop("shared_mem", 0)
        kwargs.pop("stream", None)
        kwargs.pop("enable_cooperative_groups", None)
        if kwargs:
            raise TypeError(f"__call__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        self._launch(grid, block, args, shared_mem)

    def _launch(self, grid, block, args, shared_mem=0):
        record = self._gate()
        grid = launchcfg.dim3(grid, "grid")
        block = launchcfg.dim3(block, "block")
        shared_mem = launchcfg.shared_bytes(shared_mem)
        converted = kargs.convert(args)
        launchcfg.check(grid, block, shared_mem, getattr(record, "usage", None),
                        self._max_dynamic_shared)
        function = self._emulated()
        if self._max_dynamic_shared is not None:
            function.max_dynamic_shared_size_bytes = self._max_dynamic_shared
        backend.launch(record, function, self.name, grid, block, converted, shared_mem)

    # -- attributes ----------------------------------------------------------------------
    def _usage(self) -> dict:
        return getattr(self._gate(), "usage", None) or {}

    @property
    def attributes(self) -> dict:
        return {k: getattr(self, k) for k in _ATTRIBUTE_KEYS}

    @property
    def max_threads_per_block(self) -> int:
        return launchcfg.max_threads_per_block(int(self._usage().get("registers") or 0))

    @property
    def shared_size_bytes(self) -> int:
        return int(self._usage().get("shared_bytes") or 0)

    @property
    def const_size_bytes(self) -> int:
        self._gate()
        return 0

    @property
    def local_size_bytes(self) -> int:
        return int(self._usage().get("stack_bytes") or 0)

    @property
    def num_regs(self) -> int:
        return int(self._usage().get("registers") or 0)

    @property
    def ptx_version(self) -> int:
        self._gate()
        return 90

    @property
    def binary_version(self) -> int:
        self._gate()
        return 90

    @property
    def cache_mode_ca(self) -> int:
        self._gate()
        return 0

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        if self._max_dynamic_shared is not None:
            return self._max_dynamic_shared
        return launchcfg.DEFAULT_SHARED_LIMIT - self.shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes):
        nbytes = int(nbytes)
        if nbytes < 0 or nbytes + self.shared_size_bytes > launchcfg.MAX_SHARED_OPTIN:
            raise errors.CUDADriverError(errors.CUDA_ERROR_INVALID_VALUE)
        self._max_dynamic_shared = nbytes

    @property
    def preferred_shared_memory_carveout(self) -> int:
        self._gate()
        return self._carveout

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, fraction):
        fraction = int(fraction)
        if not -1 <= fraction <= 100:
            raise errors.CUDADriverError(errors.CUDA_ERROR_INVALID_VALUE)
        self._carveout = fraction

    def __repr__(self):
        return f"<cupy.RawKernel {self.name}>"


class _Function:
    """cupy.cuda.Function as returned by RawKernel.kernel."""

    def __init__(self, owner: RawKernel):
        self._owner = owner
        self.ptr = id(owner)

    def __call__(self, grid, block, args, shared_mem=0, stream=None,
                 enable_cooperative_groups=False):
        self._owner._launch(grid, block, args, shared_mem)

    def linear_launch(self, size, args, shared_mem=0, block_max_size=128, stream=None,
                      enable_cooperative_groups=False):
        size = int(size)
        grid = min(0x7FFFFFFF, (size + block_max_size - 1) // block_max_size)
        self._owner._launch((grid,), (min(block_max_size, size),), args, shared_mem)


class RawModule:
    """cupy.RawModule built from source; get_function returns RawKernels sharing it."""

    def __init__(self, *, code=None, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False):
        if code is not None:
            _require(code, str, "code")
        _require(options, tuple, "options")
        if (code is None) == (path is None):
            raise TypeError("Exactly one of `code` and `path` keyword arguments must be given.")
        if name_expressions is not None:
            if code is None:
                raise ValueError("need CUDA C++ code for the requested kernels")
            if backend != "nvrtc":
                raise ValueError("only nvrtc supports retrieving the mangled names for the given "
                                 "name expressions")
            name_expressions = tuple(name_expressions)
        self.code = code
        self.cubin_path = path
        self.options = options
        self.backend = backend
        self.translate_cucomplex = bool(translate_cucomplex)
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        self.name_expressions = name_expressions
        self.jitify = bool(jitify)
        self._kernels: dict[str, RawKernel] = {}

    def get_function(self, name):
        """The kernel `name` (a plain extern "C" name or one of the name expressions)."""
        if self.code is None:
            raise NotImplementedError("loading cubin/ptx files is not supported on the CPU backend")
        kernel = self._kernels.get(name)
        if kernel is None:
            if "<" in name and name not in (self.name_expressions or ()):
                raise errors.CUDADriverError(
                    errors.CUDA_ERROR_NOT_FOUND,
                    f"{name!r} is a template instance not listed in name_expressions")
            kernel = RawKernel(self.code, name, self.options, self.backend,
                               translate_cucomplex=self.translate_cucomplex,
                               enable_cooperative_groups=self.enable_cooperative_groups,
                               jitify=self.jitify)
            kernel._kind = "RawModule"
            kernel.name_expressions = self.name_expressions
            kernel._gate()
            if backend.emulator_or_none() is not None:
                kernel._emulated()
            self._kernels[name] = kernel
        return kernel

    def compile(self, log_stream=None):
        """Compile now; kernels are otherwise compiled when first retrieved."""
        names = self.name_expressions or ("module",)
        for name in names:
            rec = backend.gate("RawModule", name, self.code, self.options,
                               self.name_expressions or ())
            if log_stream is not None:
                log_stream.write(getattr(rec, "extra", {}).get("log", ""))

    def get_global_var(self, name):
        raise NotImplementedError("RawModule.get_global_var is not supported on the CPU backend")

    def get_texref(self, name):
        raise NotImplementedError("texture references are not supported on the CPU backend")


RawKernel.__module__ = "cupy"
RawModule.__module__ = "cupy"
