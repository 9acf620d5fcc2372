"""Helpers for judging on the fake GPU (tests/judge/timing/fakegpu): a small vector_add task,
a wrapper that starts the real child with the fake `cupy`, and fixed peaks for its roofline."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from assessments.judge.kinds.cupy.timing import crosscheck
from assessments.judge.kinds.cupy.timing.peaks import Peaks

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FAKE_ENTRY = HERE / "fakegpu" / "child_entry.py"
FIXTURES = ROOT / "tests" / "fixtures" / "timing"

# The fake device moves 10 GB/s; peaks a little above it put an honest kernel over the floor.
FAKE_PEAKS = Peaks("Fake GPU", bandwidth_bytes_s=12e9, flops_s=1e12, measured=True,
                           tensor_flops_s=8e12, source="test")

# Flags a busy host can raise on an honest run (the wall cross-check, the GPU's idle wait):
# end-to-end tests tolerate them; test_timing_crosscheck.py asserts exact consistency.
HOST_LOAD_FLAGS = frozenset({crosscheck.WALL_MISMATCH, crosscheck.GPU_BUSY})


def small_vector_add(n: int = 1 << 16):
    """vector_add with a few small GPU tests and a benchmark the fake device runs in ~0.15 ms."""
    from gpu_tasks import get_task
    from gpu_tasks.base import cases
    task = get_task("vector_add")
    return dataclasses.replace(
        task, bench={"cuda": {"n": n}},
        tests={**task.tests, "cuda": cases(("tiny", {"n": 1}), ("prime", {"n": 1021}),
                                           ("odd", {"n": 4097}))})


def fake_wrapper(mode: str = "honest"):
    def wrap(spec, argv):
        return [sys.executable, "-s", "-B", str(FAKE_ENTRY), "--fake-mode", mode] + \
            argv[argv.index("--backend"):]
    return wrap
