"""Hardware-design tasks on counting and checksums: a Gray-code counter and a byte-wide CRC-8.
Their names, ports and semantics are contracts."""
from __future__ import annotations

from ..base import TestCase
from .model import Port, RtlTask, cases

GRAY_COUNTER = RtlTask(
    slug="gray_counter", title="Gray-code counter", difficulty="easy",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic"),
    summary="A wrapping binary counter with an enable, and its binary-reflected Gray code.",
    statement="""Write `gray_counter`, a W-bit counter that shows its count in binary and in Gray code.

`bin` is the count. At each rising edge of `clk`: if `!rst_n` it becomes 0; otherwise, if `en` is
high, it increments by one, wrapping from 2^W-1 to 0; otherwise it keeps its value. `gray` is the
binary-reflected Gray code of the same count, `bin ^ (bin >> 1)`, so exactly one bit of `gray`
changes at each increment, the wrap included. For example, with W = 3 and `en` high at every edge
after a reset, `bin` goes 0, 1, 2, ..., 7, 0 and `gray` 000, 001, 011, 010, 110, 111, 101, 100, 000.

Both outputs come from the state: they change only at rising edges of `clk` and depend on no input
combinationally (each is a register, or decoded from registers).

`W` from 2 to 16. The judge compares `bin` and `gray` after every clock edge, and before it, with
directed and random traffic (long runs of `en` through the wrap, gaps in `en`, a reset in the
middle) for several W.""",
    module="gray_counter", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("en", "input", "1", "count at this edge"),
           Port("gray", "output", "W", "bin ^ (bin >> 1)"), Port("bin", "output", "W", "the count, 0 after reset")),
    defaults={"W": 4},
    # The directed phases run one wrap whole up to W=12 (4,099 edges of `en`, past `cycles`); W=16
    # checks that the design elaborates and counts at the top of the range, without a wrap, which
    # would take 65,536 edges.
    tests={"sim": cases({"W": 4}, {"W": 2}, {"W": 3}, {"W": 5}, {"W": 8}, {"W": 12}, {"W": 16})},
    samples=cases({"W": 3}),
    synth_params={"W": 8},
)

# The module has no parameters: the hidden tests differ only in their random traffic.
CRC8 = RtlTask(
    slug="crc8", title="CRC-8 generator", difficulty="medium",
    skills=("verilog", "systemverilog", "rtl_design", "digital_logic", "datapath_design"),
    summary="A CRC-8/SMBUS register that absorbs one byte per edge, with a synchronous restart.",
    statement="""Write `crc8`, a CRC-8 generator that absorbs one byte per clock edge, with the
CRC-8/SMBUS parameters: polynomial x^8 + x^2 + x + 1 (0x07), initial value 0x00, no reflection
(each byte is taken most significant bit first) and no final XOR. The CRC of the ASCII string
"123456789" is 0xF4.

`crc` is an 8-bit register. At each rising edge of `clk`:
  - if `!rst_n` or `init`, it becomes 0x00; with `init` high, the byte on `data` at that edge is
    discarded, whatever `valid`;
  - otherwise, if `valid`, it absorbs the whole byte `data` at this edge, `data[7]` first: for
    each bit b from `data[7]` down to `data[0]`, with f = crc[7] ^ b, crc becomes
    (crc << 1) ^ (f ? 0x07 : 0x00), kept to 8 bits;
  - otherwise it keeps its value, and `data` is ignored.
So `crc` is the CRC of the bytes taken with `valid` since the last reset or `init`. For example,
after `init` and the bytes 0x31, 0x32, ..., 0x39 ("123456789"), one per edge with `valid` high,
with or without idle edges between them, `crc` is 0xF4; after `init` and the single byte 0x01, it
is 0x07.

`crc` changes only at rising edges of `clk` and depends on no input combinationally.

The judge compares `crc` after every clock edge, and before it, with directed and random traffic
(the check string, `init` in the middle of a message and together with `valid`, gaps in `valid`,
resets).""",
    module="crc8", clock="clk",
    ports=(Port("clk", "input", "1"), Port("rst_n", "input", "1", "synchronous reset, active low"),
           Port("init", "input", "1", "restart at 0x00, over valid"),
           Port("valid", "input", "1", "absorb `data` at this edge"),
           Port("data", "input", "8", "taken data[7] first"),
           Port("crc", "output", "8", "the CRC register")),
    defaults={},
    tests={"sim": tuple(TestCase(f"stream{i}", {}) for i in range(1, 5))},
    samples=(TestCase("stream", {}),),
    synth_params={},
)


TASKS = (GRAY_COUNTER, CRC8)
