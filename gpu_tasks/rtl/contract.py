"""The fixed core of the hardware-design tasks (`../shared/TASKS-TRACKS.md`): their names, ports
and semantics are contracts."""
from __future__ import annotations

from .model import Port, RtlTask, cases

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
           Port("req", "input", "N"), Port("grant", "output", "N", "one-hot or zero")),
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


TASKS = (SYNC_FIFO, RR_ARBITER, SKID_BUFFER)
