"""Launch configuration checks as CuPy and the CUDA driver do them on an H100 (sm_90)."""
from __future__ import annotations

import operator

from . import errors

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
DEFAULT_SHARED_LIMIT = 48 * 1024          # without raising the kernel attribute
MAX_SHARED_OPTIN = 227 * 1024             # per block, with the attribute raised
REGISTERS_PER_SM = 65536
REGISTER_UNIT = 256                       # registers are allocated per warp in these units
WARP = 32


def dim3(value, what: str) -> tuple:
    """CuPy's Function.__call__: a tuple padded with 1s, each entry at least 1."""
    if not isinstance(value, tuple):
        raise TypeError(f"Argument '{what}' has incorrect type (expected tuple, got "
                        f"{type(value).__name__})")
    padded = (value + (1, 1))[:3]
    if len(padded) < 3:
        raise IndexError("tuple index out of range")
    return tuple(max(1, operator.index(v)) for v in padded)


def shared_bytes(value) -> int:
    """shared_mem is a size_t in CuPy: ints only, never negative."""
    value = operator.index(value)
    if value < 0:
        raise OverflowError("can't convert negative value to size_t")
    return value


def check(grid: tuple, block: tuple, shared_mem: int, usage: dict | None,
          max_dynamic_shared: int | None) -> None:
    """Raise CUDADriverError where cuLaunchKernel would refuse this configuration."""
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK or any(b > m for b, m in zip(block, MAX_BLOCK_DIM)):
        raise errors.CUDADriverError(errors.CUDA_ERROR_INVALID_VALUE)
    if any(g > m for g, m in zip(grid, MAX_GRID_DIM)):
        raise errors.CUDADriverError(errors.CUDA_ERROR_INVALID_VALUE)
    static = int((usage or {}).get("shared_bytes") or 0)
    limit = max_dynamic_shared if max_dynamic_shared is not None else DEFAULT_SHARED_LIMIT - static
    if shared_mem > limit or static + shared_mem > MAX_SHARED_OPTIN:
        raise errors.CUDADriverError(errors.CUDA_ERROR_INVALID_VALUE)
    regs = int((usage or {}).get("registers") or 0)
    if regs and register_demand(regs, threads) > REGISTERS_PER_SM:
        raise errors.CUDADriverError(errors.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)


def register_demand(regs_per_thread: int, threads: int) -> int:
    per_warp = -(-regs_per_thread * WARP // REGISTER_UNIT) * REGISTER_UNIT
    return per_warp * -(-threads // WARP)


def max_threads_per_block(regs_per_thread: int) -> int:
    """The kernel attribute: the largest block (a multiple of 32) the registers allow."""
    if not regs_per_thread:
        return MAX_THREADS_PER_BLOCK
    best = 0
    for threads in range(WARP, MAX_THREADS_PER_BLOCK + 1, WARP):
        if register_demand(regs_per_thread, threads) <= REGISTERS_PER_SM:
            best = threads
    return best
