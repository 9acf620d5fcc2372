"""Kernels whose CUDA C the shim produces (ElementwiseKernel, ReductionKernel, cupyx.jit).

The NVRTC gate compiles them as CuPy would, after CuPy's own headers; the emulator gets the
CPU rewrite from cpu_source.
"""
from __future__ import annotations

from . import backend, cpu_source, launchcfg

# What CuPy's compile_with_cache prepends (cupy/complex.cuh only when the code uses complex
# numbers: it needs CCCL's thrust headers).
CUPY_HEADERS = ("cupy/carray.cuh", "cupy/atomics.cuh", "cupy/math_constants.h")


def cupy_prelude(source: str) -> str:
    headers = CUPY_HEADERS
    if "complex" in source:
        headers = ("cupy/complex.cuh",) + headers
    return "".join(f"#include <{h}>\n" for h in headers)


def emulator_options(options) -> tuple:
    """Macro definitions carry over to the emulator; target and language options do not."""
    return tuple(o for o in options if isinstance(o, str) and o.startswith(("-D", "-U")))


class GeneratedKernel:
    """One generated source with one kernel: gated, built for the emulator, launchable."""

    def __init__(self, kind: str, name: str, source: str, options: tuple = (),
                 gate_source: str | None = None):
        self.kind = kind
        self.name = name
        self.source = source
        self.options = tuple(options)
        self.gate_source = gate_source if gate_source is not None else cupy_prelude(source) + source
        self.record = None
        self.function = None
        self.plan = None

    def build(self):
        emulated = None
        if self.function is None:
            try:
                emulated = cpu_source.for_emulator(self.source, [self.name])
            except Exception:   # noqa: BLE001 - the gate speaks first; the build below says why
                emulated = None
        if self.record is None:
            hint = None if emulated is None else (emulated[0], emulator_options(self.options), ())
            self.record = backend.gate(self.kind, self.name, self.gate_source, self.options, build=hint)
        if self.function is None:
            emu_source, plans = emulated or cpu_source.for_emulator(self.source, [self.name])
            module = backend.compile_module(emu_source, emulator_options(self.options),
                                            kernel=self.name)
            self.function = backend.get_function(module, self.name, kernel=self.name)
            self.plan = plans[self.name]
        return self

    def launch(self, grid: tuple, block: tuple, args: list, shared_mem: int = 0,
               check: bool = False, max_dynamic_shared: int | None = None) -> None:
        self.build()
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        if check:
            launchcfg.check(grid, block, shared_mem, getattr(self.record, "usage", None),
                            max_dynamic_shared)
        expanded = cpu_source.expand_args(self.plan, args)
        backend.launch(self.record, self.function, self.name, grid, block, expanded, shared_mem)
