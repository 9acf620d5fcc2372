"""CUDA C on the CPU: the candidate's kernels compiled with g++ against a small CUDA runtime.

    mod = compile_module(source, options=(), name_expressions=())
    k = mod.get_function("kernel_name")           # or a name expression such as "k<float, 256>"
    k.launch(grid, block, args, shared_mem=0, checking=False, timeout_s=None)

One fiber per CUDA thread where a kernel synchronises (barriers, warp collectives), a plain loop
where it does not; blocks run one after another. checking=True adds bounds and race checks.
"""
from __future__ import annotations

from .errors import KINDS, EmulatorError
from .launch import Kernel, Module, Param

# The CPU stand-in for cupy may place arrays against guard pages: a stray access then faults,
# and the emulator reports the fault as a memory_error.
WANTS_GUARD_PAGES = True

__all__ = ["compile_module", "EmulatorError", "KINDS", "Module", "Kernel", "Param", "WANTS_GUARD_PAGES"]


def compile_module(source: str, options: tuple = (), name_expressions: tuple = ()) -> Module:
    """Build `source` (CUDA C that NVRTC accepted) with g++; cached by content hash."""
    return Module(source, tuple(options), tuple(name_expressions))
