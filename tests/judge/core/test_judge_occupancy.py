"""Theoretical occupancy on sm_90 for known cases (worked by hand from the calculator's rules)."""
import pytest

from assessments.judge.kinds.cupy.occupancy import limits_for, theoretical


@pytest.mark.parametrize("regs,threads,smem,blocks,occ,limiter", [
    (32, 256, 0, 8, 1.0, "warps"),              # 1024 regs/warp: 64 warps fit
    (128, 256, 0, 2, 0.25, "registers"),        # 4096 regs/warp: 16 warps -> 2 blocks of 8
    (64, 1024, 0, 1, 0.5, "registers"),         # 2048 regs/warp: 32 warps = 1 block of 32
    (255, 1024, 0, 0, 0.0, "registers"),        # 8192 regs/warp x 32 warps > 64K per block
    (40, 128, 0, 12, 0.75, "registers"),        # 1280 regs/warp: 12 per sub-partition -> 48 warps
    (72, 256, 0, 3, 0.375, "registers"),        # 2304 regs/warp: 7 per sub-partition -> 28 warps
    (32, 256, 48 * 1024, 4, 0.5, "shared_memory"),   # 49152 + 1024 reserved -> 4 per 228 KiB
    (16, 64, 0, 32, 1.0, "warps"),              # 2 warps per block: 32 blocks hit both limits
    (16, 32, 0, 32, 0.5, "blocks"),             # 1 warp per block: the 32-block limit binds
    (32, 96, 0, 21, 0.9844, "warps"),           # 3 warps per block: 21 blocks = 63 warps
    (0, 256, 0, 8, 1.0, "warps"),
    (32, 256, 228 * 1024, 0, 0.0, "shared_memory"),  # over the 227 KiB per-block maximum
])
def test_known_cases(regs, threads, smem, blocks, occ, limiter):
    o = theoretical(regs, threads, smem, "sm_90")
    assert o.blocks_per_sm == blocks
    assert o.occupancy == pytest.approx(occ, abs=1e-4)
    assert o.limited_by == limiter


def test_invalid_block_size():
    assert theoretical(32, 2048).limited_by == "invalid"
    assert theoretical(32, 0).occupancy == 0.0


def test_other_arch_and_fallback():
    o = theoretical(32, 256, 0, "sm_86")   # 48 warps per SM on GA10x
    assert o.warps_per_sm == 48 and o.occupancy == 1.0
    assert limits_for("sm_999").arch == "sm_90"
