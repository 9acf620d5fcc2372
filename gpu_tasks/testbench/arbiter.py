"""`arbiter_tb`: a testbench for the RTL bank's `rr_arbiter` that finds its bugs."""
from __future__ import annotations

from .model import TbTask

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

The top level is `rr_arbiter` (your tests get it as `dut`); the simulator is Icarus Verilog with
a time unit of 1 ns and a precision of 1 ps. The judge does not start the clock: your testbench
starts it (`Clock(dut.clk, 10, unit="ns").start()`) and resets the design itself; inputs start
undriven.

The judge runs your tests against the correct design, then against hidden mutants of it: the
same design with one realistic bug each, with the same ports and internal signals. Your
testbench is accepted when every test passes on the correct design; its performance points are
the share of mutants for which at least one of your tests fails (or that make it run past its
time). Test what the contract says at its edges: every pointer position, the wrap from 4 to 0,
requests above and below the pointer, edges without requests, reset while requests are granted,
and that a grant is one-hot.

Two mutants are public, and "Run on samples" runs your tests against the correct design and
these two:

- The pointer never moves: a fixed-priority arbiter where the lowest requester always wins.
- The scan does not wrap: a requester below the pointer gets nothing while none at or above it asks.

Each design gets one simulation, limited to 20 s (and a mutant to about twice the CPU time the
correct design took); a testbench may import cocotb and the Python standard library's pure
modules (`random`, `collections`, `itertools`, `math`, `dataclasses`...), not `os`, `sys` or
anything that reaches files, processes or the network.""",
    design="rr_arbiter", params={"N": 5},
)

TASKS = (ARBITER_TB,)
