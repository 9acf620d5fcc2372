"""`occupancy`: blocks and warps resident per SM on an H100 (compute capability 9.0), as CUDA's
occupancy calculator computes them (the contract in TASKS-TRACKS.md). Python only."""
from __future__ import annotations

import math

import numpy as np

from .model import FunctionTask, cases, not_an_int

# Compute capability 9.0, as cuda_occupancy.h describes it.
WARP = 32
MAX_THREADS_PER_BLOCK = 1024
MAX_WARPS = 64
MAX_BLOCKS = 32
REGISTERS = 65536
SUB_PARTITIONS = 4
REGISTER_UNIT = 256                 # registers are allocated per warp in units of 256
MAX_REGISTERS_PER_THREAD = 255
SHARED_PER_SM = 228 * 1024
SHARED_PER_BLOCK = 227 * 1024       # the most a block may ask for
SHARED_RESERVED = 1024              # taken by the system for every block
SHARED_UNIT = 128
LIMITERS = ("warps", "blocks", "registers", "shared_memory")   # ties go to the first
FIELDS = ("blocks_per_sm", "warps_per_sm", "occupancy", "limiter")
ARGS = ("threads_per_block", "registers_per_thread", "shared_bytes_per_block")

STATEMENT = """Compute how many thread blocks of a kernel fit on one SM of an H100 (compute capability
9.0) at once, as CUDA's occupancy calculator does.

```python
def occupancy(threads_per_block, registers_per_thread, shared_bytes_per_block) -> dict:
    # returns {"blocks_per_sm": int, "warps_per_sm": int, "occupancy": float, "limiter": str}
```

An SM holds at most 64 warps and 32 blocks, 65,536 registers and 228 KiB (233,472 bytes) of
shared memory. Each of the four limits gives a number of blocks:

- `warps`: a block takes ceil(threads_per_block / 32) warps; a block over 1,024 threads cannot
  run at all.
- `blocks`: 32.
- `registers`: registers are allocated per warp, `registers_per_thread x 32` rounded up to a
  multiple of 256, from four sub-partitions of 16,384 registers each, so registers allow
  4 x floor(16384 / registers per warp) warps, and as many whole blocks as fit in those warps.
- `shared_memory`: a block may ask for at most 227 KiB (232,448 bytes); the system reserves
  1 KiB more for every block, and a block's share (its request plus the reserved KiB) is
  allocated in units of 128 bytes.

`blocks_per_sm` is the smallest of the four, `warps_per_sm` = blocks_per_sm x warps per block,
`occupancy` = warps_per_sm / 64, and `limiter` is the name of the smallest limit (`"warps"`,
`"blocks"`, `"registers"` or `"shared_memory"`; on a tie the first in that order). A launch
that cannot run gives 0 blocks, 0 warps, 0.0 and the limiter that forbids it. Inputs:
`threads_per_block` from 1 to 2,048, `registers_per_thread` from 1 to 255,
`shared_bytes_per_block` from 0 to 240,000. CUDA's `cuda_occupancy.h` for compute capability
9.0 is the authority where this page is silent.

Example: 256 threads, 32 registers, no shared memory: 8 blocks, 64 warps, occupancy 1.0,
limited by `warps` (registers allow 8 blocks too; `warps` comes first).

**Scoring.** 60 points when every hidden launch is right. Up to 40 more for speed:
40 x min(1, 1.1 x reference time / your time) over the largest hidden batch (4,000 launches, one
call each), both timed in the same judging (best of several runs): the judge's Python reference,
a few integer divisions per call, takes about 10 ms for the batch on the judge's 2-core machine."""

PYTHON_STARTER = '''def occupancy(threads_per_block, registers_per_thread, shared_bytes_per_block):
    """Blocks and warps resident per SM on an H100 (compute capability 9.0)."""
    warps_per_block = (threads_per_block + 31) // 32
    blocks = 64 // warps_per_block   # TODO: the blocks, registers and shared memory limits
    return {"blocks_per_sm": blocks, "warps_per_sm": blocks * warps_per_block,
            "occupancy": blocks * warps_per_block / 64, "limiter": "warps"}
'''

TASK = FunctionTask(
    slug="occupancy", title="Occupancy calculator for the H100", difficulty="easy",
    track="architecture_modeling",
    skills=("occupancy", "gpu_architecture", "performance_modeling", "python"),
    summary="Blocks and warps per SM and what limits them, as CUDA's occupancy calculator gives them for CC 9.0.",
    statement=STATEMENT, function="occupancy",
    python_signature="def occupancy(threads_per_block, registers_per_thread, shared_bytes_per_block) -> dict",
    cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("known_launches", {"calls": 0, "focus": "known"}),
        ("registers", {"calls": 300, "focus": "registers"}),
        ("shared_memory", {"calls": 300, "focus": "shared"}),
        ("small_blocks", {"calls": 200, "focus": "small"}),
        ("cannot_run", {"calls": 100, "focus": "cannot_run"}),
        ("mixed", {"calls": 4000, "focus": "mixed"}),
    )},
    samples=cases(("sample_launches", {"calls": 0, "focus": "sample"})),
    starters={"python": PYTHON_STARTER},
)

# (threads, registers, shared bytes): launches whose answers were worked out by hand from the rules
KNOWN = ((256, 32, 0), (128, 64, 0), (1024, 32, 0), (32, 16, 0), (256, 40, 0), (256, 33, 0),
         (192, 32, 49152), (128, 32, 232448), (128, 32, 232449), (1025, 32, 0), (1024, 72, 0),
         (1024, 64, 0), (96, 255, 0), (64, 32, 46080), (256, 32, 28672), (32, 16, 7000),
         (100, 24, 1000), (2048, 16, 0), (512, 128, 0), (33, 8, 0))
SAMPLES = ((256, 32, 0), (128, 64, 0), (32, 16, 0), (192, 32, 49152), (1025, 32, 0))


# ---- inputs -------------------------------------------------------------------------------------
def _call(t: int, r: int, s: int) -> dict:
    return {"threads_per_block": int(t), "registers_per_thread": int(r), "shared_bytes_per_block": int(s)}


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    focus, n = dims["focus"], int(dims["calls"])
    if focus == "known":
        return [_call(*k) for k in KNOWN]
    if focus == "sample":
        return [_call(*k) for k in SAMPLES]
    out = []
    for _ in range(n):
        threads = int(rng.choice([32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024])) \
            if rng.random() < 0.6 else int(rng.integers(1, 1025))
        regs = int(rng.integers(1, 256))
        shared = 0
        if focus == "registers":
            regs = int(rng.integers(16, 256))
        elif focus == "shared":
            regs = int(rng.integers(8, 64))
            unit = int(rng.choice([1, 4, 128, 1024]))
            shared = min(int(rng.integers(0, SHARED_PER_BLOCK // unit + 1)) * unit, SHARED_PER_BLOCK)
            shared += int(rng.choice([0, 0, 1, -1])) if shared else 0
        elif focus == "small":
            threads, regs = int(rng.integers(1, 97)), int(rng.integers(1, 64))
            shared = int(rng.choice([0, int(rng.integers(0, 8192))]))
        elif focus == "cannot_run":
            way = int(rng.integers(3))
            if way == 0:
                threads = int(rng.integers(1025, 2049))
            elif way == 1:
                shared = int(rng.integers(SHARED_PER_BLOCK + 1, 240_001))
            else:
                threads, regs = int(rng.integers(513, 1025)), int(rng.integers(129, 256))
        else:   # mixed
            shared = int(rng.choice([0, int(rng.integers(0, 240_001)), int(rng.integers(0, 65_536))]))
        out.append(_call(threads, regs, max(shared, 0)))
    return out


# ---- the reference ------------------------------------------------------------------------------
def _limits(threads: int, regs: int, shared: int, *, reserved: int = SHARED_RESERVED,
            shared_unit: int = SHARED_UNIT, register_unit: int = REGISTER_UNIT,
            sub_partitions: int = SUB_PARTITIONS) -> dict:
    """Blocks per SM by each limit; the keyword arguments replay likely mistakes."""
    warps_per_block = -(-threads // WARP)
    by_warps = 0 if threads > MAX_THREADS_PER_BLOCK else MAX_WARPS // warps_per_block
    per_warp = -(-regs * WARP // register_unit) * register_unit
    if regs > MAX_REGISTERS_PER_THREAD:
        by_registers = 0
    elif per_warp == 0:
        by_registers = MAX_BLOCKS
    else:
        warps = sub_partitions * ((REGISTERS // sub_partitions) // per_warp)
        by_registers = warps // warps_per_block
    if shared > SHARED_PER_BLOCK:
        by_shared = 0
    else:
        share = -(-(shared + reserved) // shared_unit) * shared_unit
        by_shared = SHARED_PER_SM // share if share else MAX_BLOCKS
    return {"warps": by_warps, "blocks": MAX_BLOCKS, "registers": by_registers, "shared_memory": by_shared}


def _answer(threads: int, limits: dict, order: tuple[str, ...] = LIMITERS) -> dict:
    limiter = min(order, key=lambda k: (limits[k], order.index(k)))
    blocks = limits[limiter]
    warps = blocks * -(-threads // WARP)
    return {"blocks_per_sm": blocks, "warps_per_sm": warps, "occupancy": warps / MAX_WARPS, "limiter": limiter}


def reference(args: dict) -> dict:
    t, r, s = (args[k] for k in ARGS)
    return _answer(t, _limits(t, r, s))


# ---- checking -----------------------------------------------------------------------------------
# Likely mistakes, each replayed on the launch to say which one the answer looks like.
MISTAKES = (
    ({"reserved": 0}, "the 1 KiB of shared memory reserved for every block is left out"),
    ({"shared_unit": 1}, "a block's shared memory is not rounded up to the 128-byte allocation unit"),
    ({"register_unit": WARP}, "registers are not rounded up to the 256-register allocation unit per warp"),
    ({"sub_partitions": 1}, "registers are pooled over the SM; they come from four sub-partitions of 16,384 "
                            "(4 x floor(16384 / registers per warp) warps)"),
)


def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return f"occupancy returned {type(actual).__name__}, expected a dict with {', '.join(FIELDS)}"
    missing = [k for k in FIELDS if k not in actual]
    if missing:
        return f"the result has no {', '.join(repr(k) for k in missing)} (it needs {', '.join(FIELDS)})"
    for k in ("blocks_per_sm", "warps_per_sm"):
        refused = not_an_int(k, actual[k], expected[k])
        if refused:
            return refused
    occ = actual["occupancy"]
    if isinstance(occ, bool) or not isinstance(occ, (int, float)) or not math.isfinite(occ):
        return f"`occupancy` is {occ!r}, expected a float ({expected['occupancy']})"
    wrong = [k for k in FIELDS if (abs(occ - expected[k]) > 1e-9 if k == "occupancy" else actual[k] != expected[k])]
    if not wrong:
        return None
    k = wrong[0]
    said = (f"`{k}` is {actual[k]!r}, expected {expected[k]!r} (limited by {expected['limiter']}: "
            f"{_limits_text(args)})")
    return f"{said}: {_why(args, expected, actual, k)}"


def _limits_text(args: dict) -> str:
    limits = _limits(*(args[k] for k in ARGS))
    return ", ".join(f"{k} {v}" for k, v in limits.items())


def _why(args: dict, expected: dict, actual: dict, field: str) -> str:
    t, r, s = (args[k] for k in ARGS)
    if field == "limiter" and actual["blocks_per_sm"] == expected["blocks_per_sm"]:
        limits = _limits(t, r, s)
        tied = [k for k in LIMITERS if limits[k] == expected["blocks_per_sm"]]
        if actual["limiter"] in tied:
            return f"{', '.join(tied)} tie; a tie goes to the first of warps, blocks, registers, shared_memory"
        return f"{actual['limiter']} allows {limits.get(actual['limiter'], '?')} blocks, not the fewest"
    if field == "warps_per_sm" and actual["blocks_per_sm"] == expected["blocks_per_sm"]:
        return f"warps_per_sm is blocks_per_sm x ceil({t} / 32) warps per block"
    if field == "occupancy":
        return "occupancy is warps_per_sm / 64"
    for change, why in MISTAKES:
        if _answer(t, _limits(t, r, s, **change))["blocks_per_sm"] == actual.get("blocks_per_sm"):
            return why
    if t > MAX_THREADS_PER_BLOCK:
        return "a block of more than 1,024 threads cannot run (0 blocks, limited by warps)"
    if s > SHARED_PER_BLOCK:
        return "a block may ask for at most 227 KiB of shared memory (0 blocks, limited by shared_memory)"
    return "check each of the four limits against the statement's rules"


def show(args: dict) -> str:
    return ", ".join(f"{k}={args[k]}" for k in ARGS)
