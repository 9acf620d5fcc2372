"""fifo_tb's reference testbench (never served): a model of the contract checked after every edge,
driven by directed sequences at the FIFO's edges and by random traffic. It catches every mutant."""
import random
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

WIDTH, DEPTH = 8, 8


class FifoModel:
    """The contract: at an edge, reset empties; else a write iff wr_en and not full, a read iff
    rd_en and not empty, both judged on the state before the edge."""

    def __init__(self):
        self.words = deque()

    def edge(self, rst_n, wr_en, din, rd_en):
        if not rst_n:
            self.words.clear()
            return
        write = wr_en and len(self.words) < DEPTH
        read = rd_en and len(self.words) > 0
        if read:
            self.words.popleft()
        if write:
            self.words.append(din)


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.model = FifoModel()
        self.edges = 0

    async def start(self):
        Clock(self.dut.clk, 10, unit="ns").start()
        await self.edge(rst_n=0)
        await self.edge(rst_n=0)

    async def edge(self, rst_n=1, wr_en=0, din=0, rd_en=0):
        """Drive the inputs away from the rising edge, take the edge, check the outputs after it."""
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rst_n.value, dut.wr_en.value, dut.din.value, dut.rd_en.value = rst_n, wr_en, din, rd_en
        await RisingEdge(dut.clk)
        self.model.edge(rst_n, wr_en, din, rd_en)
        self.edges += 1
        await ReadOnly()
        self.check(f"after edge {self.edges} (rst_n={rst_n} wr_en={wr_en} din={din:#04x} rd_en={rd_en})")

    def check(self, when):
        dut, words = self.dut, self.model.words
        n = len(words)
        assert dut.count.value.is_resolvable and int(dut.count.value) == n, \
            f"count is {dut.count.value}, expected {n} {when}"
        assert str(dut.empty.value) == str(int(n == 0)), f"empty is {dut.empty.value} with {n} stored {when}"
        assert str(dut.full.value) == str(int(n == DEPTH)), f"full is {dut.full.value} with {n} stored {when}"
        if words:
            assert dut.dout.value.is_resolvable and int(dut.dout.value) == words[0], \
                f"dout is {dut.dout.value}, expected the oldest entry {words[0]:#04x} {when}"

    async def write(self, din, rd_en=0):
        await self.edge(wr_en=1, din=din, rd_en=rd_en)

    async def read(self):
        await self.edge(rd_en=1)


@cocotb.test()
async def fill_past_full_then_drain_past_empty(dut):
    tb = Bench(dut)
    await tb.start()
    for i in range(DEPTH + 2):            # the last two writes find it full
        await tb.write(0xA0 + i)
    for _ in range(DEPTH + 2):            # the last two reads find it empty
        await tb.read()
    for i in range(3):                    # and it still works afterwards
        await tb.write(0x50 + i)
    for _ in range(3):
        await tb.read()


@cocotb.test()
async def read_and_write_at_the_same_edge_at_every_level(dut):
    tb = Bench(dut)
    await tb.start()
    for level in range(DEPTH + 1):
        await tb.edge(rst_n=0)
        for i in range(level):
            await tb.write(0x10 * level + i)
        await tb.write(0xEE, rd_en=1)     # empty: only the write; full: only the read
        await tb.write(0xDD, rd_en=1)


@cocotb.test()
async def reset_in_the_middle_of_traffic(dut):
    tb = Bench(dut)
    await tb.start()
    for i in range(5):
        await tb.write(0x30 + i)
    for _ in range(3):
        await tb.read()
    await tb.edge(rst_n=0, wr_en=1, din=0x99, rd_en=1)   # reset wins over both
    for i in range(DEPTH):
        await tb.write(0x60 + i)
    for _ in range(DEPTH):
        await tb.read()


@cocotb.test()
async def random_traffic(dut):
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(2024)
    for phase in range(6):
        p_write = (0.8, 0.2, 0.5)[phase % 3]   # filling, draining, balanced
        for _ in range(60):
            rst_n = 0 if rng.random() < 0.01 else 1
            await tb.edge(rst_n=rst_n, wr_en=int(rng.random() < p_write), din=rng.randrange(1 << WIDTH),
                          rd_en=int(rng.random() < 1 - p_write))
