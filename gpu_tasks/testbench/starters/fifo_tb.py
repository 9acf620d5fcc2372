"""A cocotb testbench for sync_fifo (WIDTH=8, DEPTH=8): add tests that find its bugs."""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge


async def start_and_reset(dut):
    """Start the clock, drive every input, and hold reset low for two rising edges."""
    Clock(dut.clk, 10, unit="ns").start()
    dut.rst_n.value = 0
    dut.wr_en.value = 0
    dut.rd_en.value = 0
    dut.din.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)      # change inputs away from the rising edge
    dut.rst_n.value = 1


@cocotb.test()
async def empty_after_reset(dut):
    await start_and_reset(dut)
    await RisingEdge(dut.clk)
    await ReadOnly()                # the outputs after the edge
    assert dut.empty.value == 1, "empty should be high after reset"
    assert dut.count.value == 0, f"count is {int(dut.count.value)} after reset, expected 0"
