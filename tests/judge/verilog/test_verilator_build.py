"""Verilator builds of a design (ports as elaborated, a loadable model, the tool's refusals) and
the cycle driver the sandboxed child uses."""
from __future__ import annotations

import shutil

import pytest

from assessments.judge.kinds.verilog import driver
from assessments.judge.kinds.verilog import verilator_build as vb

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")

COUNTER = r'''
module counter #(parameter W = 4) (
    input  wire         clk,
    input  wire         rst_n,
    input  wire         en,
    output reg  [W-1:0] q,
    output wire         wrap
);
    always @(posedge clk) begin
        if (!rst_n) q <= 0;
        else if (en) q <= q + 1'b1;
    end
    assign wrap = en && (q == {W{1'b1}});   // combinational from en
endmodule
'''


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    return vb.build_runtime(str(tmp_path_factory.mktemp("runtime")))


def test_ports_follow_the_parameters(tmp_path):
    ports, _ = vb.elaborate(str(tmp_path), COUNTER, "counter", {"W": 7})
    assert [(p.name, p.direction, p.width) for p in ports] == [
        ("clk", "input", 1), ("rst_n", "input", 1), ("en", "input", 1), ("q", "output", 7),
        ("wrap", "output", 1)]


def test_a_model_counts_wraps_and_shows_combinational_outputs_before_the_edge(tmp_path, runtime):
    meta = vb.build(str(tmp_path), COUNTER, "counter", {"W": 3}, runtime)
    model = driver.Model(str(tmp_path / "model.so"), meta["ports"])
    try:
        cycles = [{"rst_n": 0, "en": 0}] + [{"rst_n": 1, "en": 1}] * 9
        rows = driver.simulate(model, "clk", cycles, probes={8: [{"en": 0}]})
    finally:
        model.close()
    assert [r["after"]["q"] for r in rows] == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]
    assert rows[8]["before"] == {"q": 7, "wrap": 1}      # q = 7 with en high: wraps at this edge
    assert rows[8]["probed"] == [{"q": 7, "wrap": 0}]    # and not with en low (no clock)


@pytest.mark.parametrize("source,top,message", [
    (COUNTER, "fifo", "no module named `fifo` in the file"),
    (COUNTER.replace("endmodule", ""), "counter", "design.sv"),
    (COUNTER.replace("assign wrap", 'import "DPI-C" function int leak(); assign wrap'),
     "counter", "DPI"),
])
def test_refusals_name_the_problem(tmp_path, runtime, source, top, message):
    with pytest.raises(vb.BuildError) as refused:
        vb.build(str(tmp_path), source, top, {}, runtime)
    assert message in refused.value.log
    assert str(tmp_path) not in refused.value.log
