"""Theoretical occupancy from registers, shared memory and block size, as NVIDIA's calculator does."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuLimits:
    """Per-SM limits of one architecture that bound how many blocks can be resident."""

    arch: str
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    max_regs_per_thread: int = 255
    reg_granularity: int = 256          # registers are allocated per warp in units of this
    sub_partitions: int = 4             # the register file is split across the SM's schedulers
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32
    max_warps_per_sm: int = 64
    smem_per_sm: int = 228 * 1024
    smem_per_block: int = 227 * 1024    # opt-in maximum for one block
    smem_reserved_per_block: int = 1024  # the driver keeps this much per resident block
    smem_granularity: int = 128
    warp_size: int = 32
    max_threads_per_block: int = 1024


GPUS = {
    "sm_80": GpuLimits("sm_80", smem_per_sm=164 * 1024, smem_per_block=163 * 1024),
    "sm_86": GpuLimits("sm_86", max_threads_per_sm=1536, max_blocks_per_sm=16, max_warps_per_sm=48,
                       smem_per_sm=100 * 1024, smem_per_block=99 * 1024),
    "sm_89": GpuLimits("sm_89", max_threads_per_sm=1536, max_blocks_per_sm=24, max_warps_per_sm=48,
                       smem_per_sm=100 * 1024, smem_per_block=99 * 1024),
    "sm_90": GpuLimits("sm_90"),
}


def limits_for(arch: str) -> GpuLimits:
    """Limits for `sm_XY`; unknown architectures fall back to sm_90's."""
    return GPUS.get(arch, GPUS["sm_90"])


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps per SM, the fraction of the SM's warp slots, and what limits it."""

    block_size: int
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float
    limited_by: str      # "warps" | "blocks" | "registers" | "shared_memory" | "invalid"

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def theoretical(registers: int, block_size: int, shared_bytes: int = 0,
                gpu: GpuLimits | str = "sm_90") -> Occupancy:
    """Occupancy of a kernel using `registers` per thread and `shared_bytes` (static + dynamic) per block."""
    g = limits_for(gpu) if isinstance(gpu, str) else gpu
    if block_size <= 0 or block_size > g.max_threads_per_block:
        return Occupancy(block_size, 0, 0, 0.0, "invalid")
    warps_per_block = _ceil_div(block_size, g.warp_size)

    by_warps = g.max_warps_per_sm // warps_per_block
    by_blocks = g.max_blocks_per_sm

    regs = max(int(registers), 0)
    if regs > g.max_regs_per_thread:
        by_regs = 0
    elif regs == 0:
        by_regs = by_blocks
    else:
        regs_per_warp = _ceil_div(regs * g.warp_size, g.reg_granularity) * g.reg_granularity
        # The hardware checks a block against the per-block limit as if its warps filled every
        # sub-partition evenly.
        assumed = regs_per_warp * _ceil_div(warps_per_block, g.sub_partitions) * g.sub_partitions
        if assumed > g.regs_per_block:
            by_regs = 0
        else:
            warps_per_part = (g.regs_per_sm // g.sub_partitions) // regs_per_warp
            by_regs = (warps_per_part * g.sub_partitions) // warps_per_block

    smem = max(int(shared_bytes), 0)
    if smem > g.smem_per_block:
        by_smem = 0
    else:
        per_block = _ceil_div(smem + g.smem_reserved_per_block, g.smem_granularity) * g.smem_granularity
        by_smem = g.smem_per_sm // per_block

    limits = [("warps", by_warps), ("blocks", by_blocks), ("registers", by_regs),
              ("shared_memory", by_smem)]
    blocks = min(v for _, v in limits)
    limiter = next(name for name, value in limits if value == blocks)
    warps = blocks * warps_per_block
    return Occupancy(block_size, blocks, warps, round(warps / g.max_warps_per_sm, 4), limiter)
