"""Hardware-design tasks on a serial line and a datapath: a UART transmitter and a pipelined
multiply-accumulate. Their names, ports and timing are contracts."""
from __future__ import annotations

from .model import Port, RtlTask, cases

UART_TX = RtlTask(
    slug="uart_tx", title="UART transmitter", difficulty="medium",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic", "fpga"),
    summary="An 8N1 serial transmitter with a cycle-exact frame and back-to-back bytes.",
    statement="""Write `uart_tx`, a UART transmitter sending 8N1 frames: a start bit (0), the 8 data
bits LSB first, and a stop bit (1), each held on `tx` for exactly N = `CLKS_PER_BIT` cycles.

Everything happens at rising edges of `clk`; `tx` and `busy` change only there and depend on no
input combinationally. At an edge with `rst_n` low the transmitter becomes idle. While idle, `tx`
is 1 and `busy` 0.

A byte is accepted at an edge where `rst_n` and `start` are high and the transmitter is free: it
is idle (`busy` low), or this edge ends a stop bit (below). `data` is sampled at that edge only.
For a byte accepted at edge k, bit i of the frame (i = 0 the start bit, 1 to 8 `data[0]` to
`data[7]`, 9 the stop bit) is on `tx` after each of the edges k+i*N to k+i*N+N-1, so the start
bit begins right after edge k. `busy` is 1 after each of the edges k to k+10*N-1. Edge k+10*N ends
the stop bit: if `start` is high at it, the next byte is accepted there (frames back to back,
`busy` stays 1); otherwise the transmitter is idle after it. At every other edge while a frame is
being sent, `start` is ignored. For example, with N = 2 and a byte accepted at edge 10, `tx` is 0
after edges 10 and 11, `data[0]` after 12 and 13, ..., `data[7]` after 26 and 27, and 1 after 28
and 29; `busy` is 1 after edges 10 to 29, and edge 30 ends the stop bit.

`CLKS_PER_BIT` from 2 to 256 (size the bit counter for 256). The judge compares `tx` and `busy` after every clock edge, and
before it, with directed and random traffic for several values of `CLKS_PER_BIT`.""",
    module="uart_tx", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("start", "input", "1", "send `data` if free"), Port("data", "input", "8", "sampled when accepted"),
           Port("tx", "output", "1", "the serial line, 1 when idle"),
           Port("busy", "output", "1", "a frame is being sent")),
    defaults={"CLKS_PER_BIT": 16},
    # A frame is 10*N cycles and the directed phases about 11.5 frames: at N=100 they nearly fill
    # `cycles`, at N=256 they run whole past it (about 29k cycles); smaller N get long random
    # traffic. The statement stops at 256: N=1024 would need about 117k cycles, several times the
    # others' simulation time.
    tests={"sim": cases({"CLKS_PER_BIT": 16}, {"CLKS_PER_BIT": 2}, {"CLKS_PER_BIT": 3},
                         {"CLKS_PER_BIT": 7}, {"CLKS_PER_BIT": 100}, {"CLKS_PER_BIT": 256})},
    samples=cases({"CLKS_PER_BIT": 4}),
    cycles=12000,
    synth_params={"CLKS_PER_BIT": 16},
)

MAC_PIPE = RtlTask(
    slug="mac_pipe", title="Pipelined multiply-accumulate", difficulty="medium",
    skills=("verilog", "systemverilog", "rtl_design", "datapath_design", "pipelining", "logic_synthesis"),
    summary="A signed multiply-accumulate with a two-edge pipeline, clear and valid aligned to the data.",
    statement="""Write `mac_pipe`, a pipelined signed multiply-accumulate: `acc` sums the products
`a * b` of valid inputs, `a` and `b` in W-bit two's complement, `acc` in 2W+8 bits.

Everything happens at rising edges of `clk`; `acc` and `out_valid` change only there and depend on
no input combinationally. For an edge k with `rst_n` high, let P(k) be the signed product of `a`
and `b` at edge k if `in_valid` is high at edge k, and 0 otherwise. Edge k's input reaches the
outputs two edges later: after edge k+2,
  - `out_valid` equals `in_valid` at edge k;
  - `acc` equals P(k) if `clear` is high at edge k (with or without `in_valid`), and otherwise
    `acc`'s value after edge k+1 plus P(k), wrapping modulo 2^(2W+8).
So after edge j, `acc` is the sum of P(m) to P(j-2), m being the last edge up to j-2 with `clear`
high (or the first edge after the last reset); it is kept while no valid input arrives. For
example, with valid inputs (a, b) = (3, -2) at edge 5, with `clear`, and (-1, 4) at edge 6,
`acc` is -6 after edge 7 and -10 after edge 8, with `out_valid` 1 after both.

At an edge r with `rst_n` low, the pipeline is emptied: `acc` and `out_valid` are 0 after edge r
and stay 0 after edges r+1 and r+2, as the inputs at edges before r, and at r itself, are
discarded; the first input counted is at edge r+1, its product reaching `acc` after edge r+3.

`W` from 2 to 16. The judge compares `acc` and `out_valid` after every clock edge, and before it,
with directed and random traffic (overflow, bursts of clears, gaps in `in_valid`) for several W.""",
    module="mac_pipe", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("in_valid", "input", "1"), Port("clear", "input", "1", "restart the sum with this input"),
           Port("a", "input", "W", "signed"), Port("b", "input", "W", "signed"),
           Port("out_valid", "output", "1", "in_valid, two edges later"),
           Port("acc", "output", "2*W+8", "signed running sum")),
    defaults={"W": 8},
    tests={"sim": cases({"W": 8}, {"W": 2}, {"W": 3}, {"W": 5}, {"W": 12}, {"W": 16})},
    samples=cases({"W": 4}),
    cycles=4000,
    synth_params={"W": 8},
)


TASKS = (UART_TX, MAC_PIPE)
