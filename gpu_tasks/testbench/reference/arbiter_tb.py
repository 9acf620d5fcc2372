"""arbiter_tb's reference testbench (never served): a model of the contract checked before every
edge, driven by directed sequences (every pointer position, the wrap, idle edges, reset while
granting) and by random requests. It catches every mutant."""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

N = 5


def expected_grant(req, ptr):
    """The contract: the first i among ptr, ptr+1, ... (mod N) with req[i] set, one-hot."""
    for k in range(N):
        i = (ptr + k) % N
        if req >> i & 1:
            return 1 << i
    return 0


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.ptr = 0
        self.edges = 0

    async def start(self):
        Clock(self.dut.clk, 10, unit="ns").start()
        await self.edge(req=0, rst_n=0)
        await self.edge(req=0, rst_n=0)

    async def edge(self, req, rst_n=1):
        """Apply the inputs, check grant before the edge, then take the edge in the model."""
        self.dut.req.value = req
        self.dut.rst_n.value = rst_n
        await ReadOnly()
        want = expected_grant(req, self.ptr)
        got = int(self.dut.grant.value)
        where = f"edge {self.edges}: req={req:05b} rst_n={rst_n}, pointer {self.ptr}"
        assert got == want, f"grant is {got:05b}, expected {want:05b} ({where})"
        if not rst_n:
            self.ptr = 0
        elif want:
            self.ptr = (want.bit_length() - 1 + 1) % N
        await RisingEdge(self.dut.clk)
        await FallingEdge(self.dut.clk)
        self.edges += 1

    async def point_at(self, p):
        """Move the pointer to p: grant requester p-1 alone (or reset for 0)."""
        if p == 0:
            await self.edge(req=0, rst_n=0)
        else:
            await self.edge(req=1 << (p - 1))


@cocotb.test()
async def every_pointer_position_with_every_request(dut):
    bench = Bench(dut)
    await bench.start()
    for p in range(N):
        for req in range(1, 1 << N):
            await bench.point_at(p)
            await bench.edge(req)


@cocotb.test()
async def a_requester_that_keeps_asking_is_served_within_n_grants(dut):
    bench = Bench(dut)
    await bench.start()
    for _ in range(3 * N):
        await bench.edge((1 << N) - 1)
    for keep in range(N):
        await bench.point_at((keep + 1) % N)
        for _ in range(2 * N):
            await bench.edge(1 << keep | 1 << ((keep + 2) % N))


@cocotb.test()
async def idle_edges_and_reset_while_granting(dut):
    bench = Bench(dut)
    await bench.start()
    for p in range(N):
        await bench.point_at(p)
        await bench.edge(0)
        await bench.edge(0)
        await bench.edge(1)
        await bench.edge(0b11111, rst_n=0)
        await bench.edge(0b11111)


@cocotb.test()
async def random_requests(dut):
    bench = Bench(dut)
    await bench.start()
    rng = random.Random(7)
    for _ in range(400):
        rst_n = 0 if rng.random() < 0.03 else 1
        await bench.edge(rng.choice([0, rng.randrange(1 << N), 1 << rng.randrange(N)]), rst_n)
