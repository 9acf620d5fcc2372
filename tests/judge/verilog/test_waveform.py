"""The cycles around a mismatch as a waveform: the report's window, its VCD and its SVG."""
from __future__ import annotations

import re

from assessments.judge.kinds.verilog import waveform

PORTS = [{"name": "clk", "direction": "input", "width": 1}, {"name": "en", "direction": "input", "width": 1},
         {"name": "q", "direction": "output", "width": 4}]


def _window(cycles: int = 20, miss: int = 18) -> dict:
    stimulus = [{"en": c % 3 != 0} for c in range(cycles)]
    rows = [{"after": {"q": c % 16}} for c in range(cycles)]
    return waveform.window(PORTS, "clk", stimulus, rows, miss, "q", "4'h3")


def test_the_window_ends_at_the_mismatch_and_leaves_the_clock_out():
    w = _window()
    assert w["first_cycle"] == 18 - waveform.WINDOW + 1
    assert [s["name"] for s in w["signals"]] == ["en", "q"]
    q = w["signals"][1]["values"]
    assert len(q) == waveform.WINDOW and q[-1] == 18 % 16
    assert w["mismatch"] == {"cycle": 18, "signal": "q", "expected": "4'h3"}


def test_the_vcd_declares_every_signal_and_moves_forward_in_time():
    vcd = waveform.to_vcd(_window())
    assert "$var wire 1 ! clk $end" in vcd and re.search(r"\$var wire 4 \S+ q \$end", vcd)
    times = [int(t) for t in re.findall(r"^#(\d+)$", vcd, re.M)]
    assert times == sorted(times) and len(times) == 2 * waveform.WINDOW + 1
    assert re.search(r"^b1111 ", vcd, re.M)          # q = 15 at some edge, as a vector


def test_the_svg_labels_signals_and_marks_the_wrong_one():
    svg = waveform.to_svg(_window())
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert 'class="sig bad">q<' in svg and 'class="miss"' in svg
    assert "q is wrong at cycle 18" in svg
