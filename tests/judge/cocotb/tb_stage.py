"""What the testbench tests share: the fixtures' paths, limits that end hostile runs quickly, and
judging fifo_tb (a judging simulates every design: the correct one and twelve mutants)."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from assessments.judge import Limits, judge

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "cocotb"
REFERENCE = ROOT / "gpu_tasks" / "testbench" / "reference" / "fifo_tb.py"
GiB, MiB = 1024 ** 3, 1024 ** 2
# A correct-design simulation past 8 s is over (a busy 2-core machine takes 2 s to start one);
# the memory cap well under the machine's.
FAST = Limits(cpu_s=30, wall_s=60.0, op_wall_s=8.0, memory=1 * GiB, processes=32,
              file_size=64 * MiB, scratch_size=128 * MiB)

HAVE_TOOLS = shutil.which("iverilog") is not None and shutil.which("vvp") is not None \
    and importlib.util.find_spec("cocotb") is not None


def judged(source: str, **kwargs):
    kwargs.setdefault("seed", 7)
    return judge("fifo_tb", source, **kwargs)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()
