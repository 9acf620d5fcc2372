"""The fixed core of the hardware-design tasks (`../shared/TASKS-TRACKS.md`): their names, ports
and semantics are contracts."""
from __future__ import annotations

from .model import Domain, Port, RtlTask, cases

SYNC_FIFO = RtlTask(
    slug="sync_fifo", title="Synchronous FIFO", difficulty="easy",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic", "logic_synthesis"),
    summary="A first-word-fall-through FIFO with full, empty and count flags.",
    statement="""Write `sync_fifo`, a synchronous FIFO with first-word fall-through.

At each rising edge of `clk`: if `!rst_n` the FIFO becomes empty; otherwise a write happens iff
`wr_en && !full` and a read iff `rd_en && !empty` (both may happen at the same edge; a write while
full or a read while empty is ignored). `full`, `empty`, `count` and `dout` describe the state
after the last edge; `dout` is the oldest entry (any value while empty).

`DEPTH` is a power of two from 2 to 1024, `WIDTH` from 1 to 64. The judge compares the outputs
after every clock edge with directed and random traffic for several parameter sets.""",
    module="sync_fifo", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("wr_en", "input", "1"), Port("din", "input", "WIDTH"), Port("rd_en", "input", "1"),
           Port("dout", "output", "WIDTH", "the oldest entry"), Port("full", "output", "1"),
           Port("empty", "output", "1"), Port("count", "output", "$clog2(DEPTH)+1", "entries stored")),
    defaults={"WIDTH": 8, "DEPTH": 16},
    tests={"sim": cases({"WIDTH": 8, "DEPTH": 16}, {"WIDTH": 1, "DEPTH": 2}, {"WIDTH": 64, "DEPTH": 2},
                         {"WIDTH": 5, "DEPTH": 4}, {"WIDTH": 16, "DEPTH": 64}, {"WIDTH": 64, "DEPTH": 1024})},
    samples=cases({"WIDTH": 8, "DEPTH": 4}),
    synth_params={"WIDTH": 8, "DEPTH": 16},
)

RR_ARBITER = RtlTask(
    slug="rr_arbiter", title="Round-robin arbiter", difficulty="medium",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic", "microarchitecture"),
    summary="A fair arbiter: one-hot grants from a rotating priority pointer.",
    statement="""Write `rr_arbiter`, a round-robin arbiter for `N` requesters.

A pointer p (0 after reset) names the requester with the highest priority: `grant` selects the
first i among p, p+1, ..., p+N-1 (mod N) with `req[i]` set; it is one-hot, or zero when `req` is
zero, and combinational from `req` and the state. At each rising edge with `rst_n` high and
`grant` nonzero, p becomes (granted index + 1) mod N. `N` from 2 to 32.""",
    module="rr_arbiter", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("req", "input", "N", "one bit per requester"), Port("grant", "output", "N", "one-hot or zero")),
    defaults={"N": 4},
    tests={"sim": cases({"N": 4}, {"N": 2}, {"N": 3}, {"N": 5}, {"N": 8}, {"N": 32})},
    samples=cases({"N": 4}),
    synth_params={"N": 8},
)

SKID_BUFFER = RtlTask(
    slug="skid_buffer", title="Skid buffer", difficulty="medium",
    skills=("verilog", "systemverilog", "rtl_design", "amba_axi", "pipelining", "timing_closure"),
    summary="A registered valid/ready stage that breaks every combinational path at full throughput.",
    statement="""Write `skid_buffer`, a pipeline stage between two AXI-Stream style interfaces.

A word moves on an edge where valid and ready are both high on that side. Every accepted input
word leaves exactly once and in order; once `m_valid` is high it stays high, with `m_data`
unchanged, until the word is taken; `s_ready` and `m_valid` come straight from flip-flops (no
combinational path from `m_ready` or `s_valid`); with `s_valid` and `m_ready` held high, one
word passes per cycle; at most two words are held. After reset `m_valid` is low and `s_ready`
high.""",
    module="skid_buffer", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("s_valid", "input", "1"), Port("s_ready", "output", "1", "from a flip-flop"),
           Port("s_data", "input", "WIDTH"), Port("m_valid", "output", "1", "from a flip-flop"),
           Port("m_ready", "input", "1"), Port("m_data", "output", "WIDTH")),
    defaults={"WIDTH": 32},
    tests={"sim": cases({"WIDTH": 32}, {"WIDTH": 1}, {"WIDTH": 8}, {"WIDTH": 64}, {"WIDTH": 9})},
    samples=cases({"WIDTH": 8}),
    synth_params={"WIDTH": 32},
)

ASYNC_FIFO = RtlTask(
    slug="async_fifo", title="Asynchronous FIFO", difficulty="hard",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic", "clock_domain_crossing"),
    summary="A FIFO between two unrelated clocks: Gray-coded pointers, synchronizers, flags late but never wrong.",
    statement="""Write `async_fifo`, a FIFO of 2**`ADDR_W` words between two clock domains: words are
written at rising edges of `wclk` and read at rising edges of `rclk`, two clocks with no known
relation.

A write happens at a `wclk` edge with `winc && !wfull`, a read at an `rclk` edge with
`rinc && !rempty` (`wfull` and `rempty` as they are just before that edge). Every word written is
read exactly once, in order. While `rempty` is low, `rdata` is the oldest word not yet read,
without a read to fetch it (first-word fall-through); while it is high, any value.

The flags may be late but never wrong: `wfull` is never low while the FIFO holds 2**`ADDR_W`
words and `rempty` never low while it holds none. Each may stay high for at most 6 edges of its
own clock after the other side changed the count: a word written at a `wclk` edge must show as
`rempty` low by the 7th `rclk` edge after it, and room made by a read as `wfull` low by the 7th
`wclk` edge after it (edges counted once both resets are released). That allows two or three
synchronizer stages and registered flags.

`wrst_n` and `rrst_n` are active low and asserted asynchronously (they act without a clock edge:
`always @(posedge wclk or negedge wrst_n)`). The judge asserts both at once, holds them for at
least 3 edges of each clock and releases each just before an edge of its own clock; the FIFO is
then empty. Each side may work as soon as its own reset is released.

Clock-domain crossing. Every flip-flop is clocked by `wclk` or `rclk` straight from its port. A
signal of one side reaches a flip-flop or an output of the other only through a synchronizer: a
flip-flop of the destination clock fed by the source flip-flop alone (no logic between), followed
by at least one more flip-flop of the destination clock; only the synchronizer's last stage may
feed logic. The stored words (a memory array or flip-flops loaded from `wdata`) may be read on the
read side directly: the pointers keep them still. The judge reads these rules from
the design's netlist (Yosys) and fails a design that breaks one, naming the signal, where it
comes from and which clock it crosses into; a design that samples a crossing signal without a
synchronizer fails there.

Metastability. The judge models it this way: a bit that crosses into the other domain and changed
at the source's most recent edge before a destination edge may be seen one destination cycle
late, independently per bit (bits that changed earlier are seen as they are). So a value of
several bits that crosses must change by one bit per edge (Gray code): when a synchronizer
captures a mix of old and new bits of one register, a value that register never held, the design
fails, with the value captured. Binary pointers passed through synchronizers fail this way.

`WIDTH` from 1 to 32, `ADDR_W` from 1 to 6. Each test drives the edges of both clocks in time
order at random ratios from 1:7 to 7:1 and random phases, changing a few times per test, with
directed and random traffic (filling to full, draining to empty, both at once, a reset with words
stored), for several parameter sets. The outputs are checked just before every edge of their own
clock.""",
    module="async_fifo", clock="wclk",
    ports=(Port("wclk", "input", "1", "the write side's clock"),
           Port("wrst_n", "input", "1", "asynchronous reset, active low, write side"),
           Port("winc", "input", "1", "write `wdata` unless full"), Port("wdata", "input", "WIDTH"),
           Port("wfull", "output", "1", "no room (may be late high, never late low)"),
           Port("rclk", "input", "1", "the read side's clock (rising edge)"),
           Port("rrst_n", "input", "1", "asynchronous reset, active low, read side"),
           Port("rinc", "input", "1", "read (take `rdata`) unless empty"),
           Port("rdata", "output", "WIDTH", "the oldest word while !rempty"),
           Port("rempty", "output", "1", "nothing to read (may be late high, never late low)")),
    defaults={"WIDTH": 8, "ADDR_W": 4},
    tests={"sim": cases({"WIDTH": 8, "ADDR_W": 4}, {"WIDTH": 1, "ADDR_W": 1}, {"WIDTH": 32, "ADDR_W": 2},
                         {"WIDTH": 5, "ADDR_W": 3}, {"WIDTH": 16, "ADDR_W": 5}, {"WIDTH": 12, "ADDR_W": 6})},
    samples=cases({"WIDTH": 8, "ADDR_W": 2}),
    cycles=6000,     # edges of both clocks together
    synth_params={"WIDTH": 8, "ADDR_W": 4},
    domains=(Domain("wclk", "wrst_n", ("winc", "wdata"), ("wfull",), data=("wdata",)),
             Domain("rclk", "rrst_n", ("rinc",), ("rdata", "rempty"))),
)


TASKS = (SYNC_FIFO, RR_ARBITER, SKID_BUFFER, ASYNC_FIFO)
