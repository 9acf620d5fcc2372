"""CUDA C on the CPU: the candidate's kernels compiled with g++ against a small CUDA runtime.

    mod = compile_module(source, options=(), name_expressions=(), checking=False)
    k = mod.get_function("kernel_name")           # or a name expression such as "k<float, 256>"
    k.launch(grid, block, args, shared_mem=0, checking=False, timeout_s=None)

One fiber per CUDA thread where a kernel synchronises (barriers, warp collectives), a plain loop
where it does not; blocks run one after another. checking=True adds bounds and race checks.
The loader (launch.py, numpy) is imported on first use, so that the compile sandbox's entry
point (compile_job.py) starts without it.
"""
from __future__ import annotations

from .errors import KINDS, EmulatorError

# The CPU stand-in for cupy may place arrays against guard pages: a stray access then faults,
# and the emulator reports the fault as a memory_error.
WANTS_GUARD_PAGES = True

__all__ = ["compile_module", "EmulatorError", "KINDS", "Module", "Kernel", "Param", "WANTS_GUARD_PAGES"]


def compile_module(source: str, options: tuple = (), name_expressions: tuple = (), checking: bool = False):
    """Build `source` (CUDA C that NVRTC accepted) with g++; cached by content hash. `checking`:
    the variant built now (the one most launches will use); the other is built when first used."""
    from .launch import Module
    return Module(source, tuple(options), tuple(name_expressions), checking)


def __getattr__(name: str):
    if name in ("Module", "Kernel", "Param"):
        from . import launch
        return getattr(launch, name)
    raise AttributeError(name)
