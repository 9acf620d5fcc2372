"""`fifo_tb` (`../shared/TASKS-TRACKS.md`, "Kind `cocotb`"): a testbench for the RTL bank's
`sync_fifo` that finds its bugs."""
from __future__ import annotations

from .model import TbTask, how_judged

FIFO_TB = TbTask(
    slug="fifo_tb", title="Verify a synchronous FIFO", difficulty="medium",
    skills=("design_verification", "testbench_development", "cocotb", "python"),
    summary="A cocotb testbench that passes on a correct FIFO and catches as many buggy ones as it can.",
    statement="""Write a cocotb testbench (cocotb 2: `@cocotb.test()` coroutines in one Python file)
for `sync_fifo` with `WIDTH = 8` and `DEPTH = 8`.

The design under test is the FIFO of the `sync_fifo` task: at each rising edge of `clk`, if
`!rst_n` it becomes empty (a synchronous, active-low reset); otherwise a write happens iff
`wr_en && !full` and a read iff `rd_en && !empty` (both may happen at the same edge; a write
while full or a read while empty is ignored). `full`, `empty`, `count` (entries stored, 4 bits
here) and `dout` describe the state after the last edge; `dout` is the oldest entry
(first-word fall-through: it shows without a read), any value while empty.

""" + how_judged(
        "sync_fifo",
        "an empty and a full FIFO, reads and writes at\n"
        "the same edge, reset in the middle of traffic, the order and value of the data",
        ("`full` rises with DEPTH-1 entries stored, one entry early.",
         "On an edge with both a read and a write, `count` goes up by one instead of staying the same.")),
    design="sync_fifo", params={"WIDTH": 8, "DEPTH": 8},
)

TASKS = (FIFO_TB,)
