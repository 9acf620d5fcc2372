"""Record the kernels a submission builds and launches on real CuPy, for the report.

Installed into the `cupy` module before the submission is imported, so `cp.RawKernel` and
`from cupy import RawKernel` both get the recording subclasses. Resource usage comes from the
loaded kernel's attributes when a GPU is present, else from the NVRTC report.
"""
from __future__ import annotations

from ... import kernel_log


def device_arch(cp) -> str:
    """`sm_XY` of the current device; sm_90 when no device answers."""
    try:
        return f"sm_{cp.cuda.Device().compute_capability}"
    except Exception:
        return "sm_90"


def _note_attributes(record, kernel) -> None:
    if record.extra.get("attributes_read"):
        return
    record.extra["attributes_read"] = True
    try:
        attrs = kernel.attributes
    except Exception:
        return
    usage = dict(record.usage or {"name": record.name})
    usage.update(registers=int(attrs.get("num_regs", 0)),
                 shared_bytes=int(attrs.get("shared_size_bytes", 0)),
                 stack_bytes=int(attrs.get("local_size_bytes", 0)))
    usage.setdefault("spill_stores", 0)
    usage.setdefault("spill_loads", 0)
    record.usage = usage


def _launch_args(args, kwargs):
    grid, block = args[0], args[1]
    return grid, block, int(kwargs.get("shared_mem", 0) or 0)


class _Recording:
    """A kernel or function that records its launches; every other attribute, read or set, is
    the wrapped one's (launch attributes such as max_dynamic_shared_size_bytes above 48 KiB must
    reach the real function: kept on the proxy, a 64 KiB launch fails with INVALID_VALUE)."""

    def __init__(self, wrapped, record):
        self._wrapped = wrapped
        self._record = record

    def __getattr__(self, item):
        return getattr(self._wrapped, item)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._wrapped, name, value)


class _FunctionProxy(_Recording):
    """A RawModule function that records its launches."""

    def __call__(self, *args, **kwargs):
        grid, block, smem = _launch_args(args, kwargs)
        kernel_log.record_launch(self._record, grid, block, smem)
        out = self._wrapped(*args, **kwargs)
        _note_attributes(self._record, self._wrapped)
        return out


def _compiler(backend):
    """CuPy's compiler for a kernel: NVRTC even where the submission asks for nvcc, which is a
    program and cannot start in the run sandbox. The gate and the cpu backend compile every
    kernel with NVRTC too, so both backends give the same verdict."""
    return "nvrtc" if backend == "nvcc" else backend


def install(cp) -> None:
    """Replace cupy's kernel classes and cupyx.jit.rawkernel with recording versions."""
    if getattr(cp, "_kp_wrapped", False):
        return
    base_raw, base_module = cp.RawKernel, cp.RawModule
    base_ew, base_red = cp.ElementwiseKernel, cp.ReductionKernel

    class RawKernel(base_raw):
        def __init__(self, code, name, options=(), backend="nvrtc", *args, **kwargs):
            super().__init__(code, name, options, _compiler(backend), *args, **kwargs)
            self._kp_record = kernel_log.record_kernel("RawKernel", name, code, tuple(options))

        def __call__(self, grid, block, args, **kwargs):
            kernel_log.record_launch(self._kp_record, grid, block, int(kwargs.get("shared_mem", 0) or 0))
            out = super().__call__(grid, block, args, **kwargs)
            _note_attributes(self._kp_record, self)
            return out

    class RawModule(base_module):
        def __init__(self, *args, **kwargs):
            if "backend" in kwargs:
                kwargs["backend"] = _compiler(kwargs["backend"])
            super().__init__(*args, **kwargs)
            self._kp_code = kwargs.get("code", args[0] if args else "") or ""
            self._kp_options = tuple(kwargs.get("options", ()) or ())
            self._kp_exprs = tuple(kwargs.get("name_expressions", ()) or ())

        def get_function(self, name):
            fn = super().get_function(name)
            record = kernel_log.record_kernel("RawModule", name, self._kp_code, self._kp_options,
                                              self._kp_exprs)
            return _FunctionProxy(fn, record)

    class ElementwiseKernel(base_ew):
        def __call__(self, *args, **kwargs):
            record = kernel_log.record_kernel("ElementwiseKernel", self.name, self.operation,
                                              gate=False)
            record.launches += 1
            return super().__call__(*args, **kwargs)

    class ReductionKernel(base_red):
        def __call__(self, *args, **kwargs):
            record = kernel_log.record_kernel("ReductionKernel", self.name,
                                              getattr(self, "reduce_expr", ""), gate=False)
            record.launches += 1
            return super().__call__(*args, **kwargs)

    cp.RawKernel, cp.RawModule = RawKernel, RawModule
    cp.ElementwiseKernel, cp.ReductionKernel = ElementwiseKernel, ReductionKernel
    _wrap_jit()
    cp._kp_wrapped = True


def _wrap_jit() -> None:
    try:
        from cupyx import jit
    except Exception:
        return
    base = jit.rawkernel

    def rawkernel(*dargs, **dkwargs):
        decorate = base(*dargs, **dkwargs)

        def wrapper(func):
            kernel = decorate(func)
            record = kernel_log.record_kernel("jit", getattr(func, "__name__", "jit_kernel"),
                                              getattr(func, "__qualname__", ""), gate=False)
            return _JitProxy(kernel, record)
        return wrapper

    jit.rawkernel = rawkernel


class _JitProxy(_Recording):
    """A cupyx.jit kernel that records its launches."""

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        kernel_log.record_launch(self._record, grid, block, shared_mem)
        return self._wrapped(grid, block, args, shared_mem=shared_mem, **kwargs)

    def __getitem__(self, item):
        launch = self._wrapped[item]
        grid, block = item[0], item[1]
        smem = item[2] if len(item) > 2 else 0

        def call(*args, **kwargs):
            kernel_log.record_launch(self._record, grid, block, smem)
            return launch(*args, **kwargs)
        return call
