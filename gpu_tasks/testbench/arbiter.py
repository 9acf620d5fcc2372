"""`arbiter_tb`: a testbench for the RTL bank's `rr_arbiter` that finds its bugs."""
from __future__ import annotations

from .model import TbTask, how_judged

ARBITER_TB = TbTask(
    slug="arbiter_tb", title="Verify a round-robin arbiter", difficulty="medium",
    skills=("design_verification", "testbench_development", "cocotb", "python"),
    summary="A cocotb testbench that passes on a correct round-robin arbiter and catches as many buggy ones "
            "as it can.",
    statement="""Write a cocotb testbench (cocotb 2: `@cocotb.test()` coroutines in one Python file)
for `rr_arbiter` with `N = 5`.

The design under test is the arbiter of the `rr_arbiter` task. A pointer p, 0 after reset, names
the requester with the highest priority: `grant` (combinational from `req` and the pointer) is
one-hot and selects the first i among p, p+1, ..., p+4 (mod 5) with `req[i]` set, or is zero
when `req` is zero. At each rising edge of `clk`: if `!rst_n`, p becomes 0 (a synchronous,
active-low reset); otherwise, if `grant` is nonzero, p becomes the granted index plus one, mod 5.
So a requester that keeps asking is served within 5 grants.

""" + how_judged(
        "rr_arbiter",
        "every pointer position, the wrap from 4 to 0,\n"
        "requests above and below the pointer, edges without requests, reset while requests are granted,\n"
        "and that a grant is one-hot",
        ("The pointer never moves: a fixed-priority arbiter where the lowest requester always wins.",
         "The scan does not wrap: a requester below the pointer gets nothing while none at or above it asks.")),
    design="rr_arbiter", params={"N": 5},
)

TASKS = (ARBITER_TB,)
