"""The `uart_tx` and `mac_pipe` tasks: their checkers follow the statements' timing to the edge,
the reference designs pass every parameter set end to end (Verilator, then Yosys against
themselves), and each wrong design in tests/fixtures/rtl/<task>/ fails at a cycle, naming the
signal and the mistake."""
from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge
from assessments.judge.kinds.verilog.checkers import CHECKERS
from gpu_tasks.rtl import TASKS as BANK

ROOT = Path(__file__).resolve().parents[3]
RTL = ROOT / "tests" / "fixtures" / "rtl"
TASKS = ("uart_tx", "mac_pipe")

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")

# What each wrong design must be caught on: the signal, and words the message must contain.
WRONG = {
    ("uart_tx", "msb_first.v"): ("tx", "MSB first"),
    ("uart_tx", "stop_bit_short.v"): ("busy", "stop bit one cycle short"),
    ("uart_tx", "bit_too_long.v"): ("tx", "bits that last 17 cycles"),
    ("uart_tx", "restart_while_busy.v"): ("tx", "start must be ignored"),
    ("uart_tx", "busy_low_in_stop.v"): ("busy", "busy must stay high through the stop bit"),
    ("uart_tx", "no_back_to_back.v"): ("tx", "this edge ends the stop bit"),
    ("mac_pipe", "unsigned_multiply.v"): ("acc", "multiplied as unsigned"),
    ("mac_pipe", "latency_one.v"): ("acc", "one stage short"),
    ("mac_pipe", "clear_late.v"): ("acc", "clear acting one edge late"),
    ("mac_pipe", "narrow_accumulator.v"): ("acc", "accumulator of 16 bits"),
    ("mac_pipe", "valid_not_pipelined.v"): ("out_valid", "registered straight from in_valid"),
}


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


def _replay(task: str, params: dict, trace: list[tuple[dict, dict]]):
    """The checker over (inputs, outputs after the edge) per cycle, outputs unchanged before it:
    the first (cycle, Mismatch), or None."""
    checker = CHECKERS[task](params)
    before = None
    for c, (inputs, after) in enumerate(trace):
        found = (before is not None and checker.before_edge(c, inputs, before)) or checker.after_edge(c, inputs, after)
        if found:
            return c, found
        before = after
    return None


# ---- the checkers against the statements' timing, written out by hand ----------------------------
def _uart_trace(n: int, byte: int, start_at: int, length: int, chain: int | None = None):
    """Reset at cycle 0, start high at `start_at` (and at `chain`), each output from the statement:
    bit i after edges k+i*n .. k+i*n+n-1, busy after edges k .. k+10n-1."""
    frames = [(start_at, byte)] + ([(chain, 0x80)] if chain is not None else [])
    trace = []
    for c in range(length):
        inputs = {"rst_n": int(c > 0), "start": int(c in (start_at, chain)), "data": byte if c == start_at else 0x80}
        tx, busy = 1, 0
        for k, data in frames:
            t = c - k
            if 0 <= t < 10 * n:
                bits = [0] + [data >> i & 1 for i in range(8)] + [1]
                tx, busy = bits[t // n], 1
        trace.append((inputs, {"tx": tx, "busy": busy}))
    return trace


def test_the_uart_checker_follows_the_statement_edge_by_edge():
    trace = _uart_trace(2, 0xB4, start_at=3, length=30)
    assert _replay("uart_tx", {"CLKS_PER_BIT": 2}, trace) is None
    # the next byte accepted at the edge that ends the stop bit: busy never falls between frames
    chained = _uart_trace(3, 0x0F, start_at=2, length=70, chain=32)
    assert [o["busy"] for _, o in chained[2:62]] == [1] * 60
    assert _replay("uart_tx", {"CLKS_PER_BIT": 3}, chained) is None
    # the stop bit one cycle short: caught at the edge before the one that ends it
    short = [(i, dict(o, busy=0)) if c == 22 else (i, o) for c, (i, o) in enumerate(trace)]
    cycle, m = _replay("uart_tx", {"CLKS_PER_BIT": 2}, short)
    assert (cycle, m.signal, m.expected, m.actual) == (22, "busy", "1", "0")
    assert "cycle 23" in m.why


def test_the_mac_checker_follows_the_statement_edge_by_edge():
    w = 4
    rows = [  # (rst_n, in_valid, clear, a, b)
        (0, 1, 1, 7, 7), (1, 1, 0, 3, -2), (1, 0, 0, 5, 5), (1, 1, 0, -8, -8), (1, 1, 1, 2, 7),
        (1, 0, 1, 1, 1), (1, 1, 0, -1, 7), (1, 1, 0, 7, 7), (0, 1, 0, 7, 7), (1, 1, 0, 1, 1),
        (1, 0, 0, 0, 0), (1, 0, 0, 0, 0), (1, 0, 0, 0, 0)]
    # acc and out_valid after each edge, from the statement: edge k's input lands after edge k+2,
    # and a reset empties the pipeline
    acc = [0, 0, 0, -6, -6, 58, 14, 0, 0, 0, 0, 1, 1]
    valid = [0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0]
    mask = (1 << (2 * w + 8)) - 1
    trace = [({"rst_n": r, "in_valid": v, "clear": c, "a": a & 15, "b": b & 15},
              {"acc": s & mask, "out_valid": o}) for (r, v, c, a, b), s, o in zip(rows, acc, valid)]
    assert _replay("mac_pipe", {"W": w}, trace) is None
    late = list(trace)   # acc still holding 14 (the clear not yet applied) one edge too long
    late[7] = (late[7][0], {"acc": 14, "out_valid": 0})
    cycle, m = _replay("mac_pipe", {"W": w}, late)
    assert (cycle, m.signal) == (7, "acc") and "clear was high at cycle 5" in m.why


@pytest.mark.parametrize("task", TASKS)
def test_stimulus_is_deterministic_resets_twice_and_runs_the_directed_phases_whole(task):
    bank = BANK[task]
    for case in (*bank.tests["sim"], *bank.samples):
        params = dict(case.dims)
        for cycles in (bank.cycles, bank.cycles // 10):
            first = CHECKERS[task](params).stimulus(random.Random(3), cycles)
            assert first == CHECKERS[task](params).stimulus(random.Random(3), cycles)
            assert len(first) >= cycles
            resets = [c for c, inputs in enumerate(first) if not inputs["rst_n"]]
            assert resets[0] == 0 and any(c > 10 for c in resets)
    n = max(dict(c.dims)["CLKS_PER_BIT"] for c in BANK["uart_tx"].tests["sim"]) if task == "uart_tx" else 0
    if n:   # the largest N runs every directed frame, and still stays small enough to simulate
        seq = CHECKERS[task]({"CLKS_PER_BIT": n}).stimulus(random.Random(3), bank.cycles)
        assert 10 * 10 * n <= len(seq) <= 50_000


# ---- end to end ----------------------------------------------------------------------------------
@needs_verilator
@pytest.mark.parametrize("task", TASKS)
def test_the_reference_design_passes_every_parameter_set(task):
    bank = BANK[task]
    r = judge(task, bank.reference_path.read_text(), seed=7)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert len(r.tests) == len(bank.tests["sim"]) and all(t.passed for t in r.tests)
    sy = r.synthesis   # the reference against itself: every performance point
    assert sy["params"] == bank.synth_params
    assert (sy["cells"], sy["depth"]) == (sy["reference_cells"], sy["reference_depth"]) and sy["cells"] > 0
    assert r.score == 100 and r.score_detail["synthesized"]


@needs_verilator
@pytest.mark.parametrize("task", TASKS)
def test_the_reference_design_passes_the_samples(task):
    r = judge(task, BANK[task].reference_path.read_text(), seed=1, suite="samples")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)


def test_every_wrong_design_is_listed_and_says_its_bug():
    on_disk = {(t, p.name) for t in TASKS for p in (RTL / t).glob("*.v")}
    assert on_disk == set(WRONG)
    for task, name in on_disk:
        assert (RTL / task / name).read_text().startswith("// bug: ")
    for task in TASKS:
        assert sum(t == task for t, _ in WRONG) >= 3


@needs_verilator
@pytest.mark.parametrize("task,name", sorted(WRONG), ids=[f"{t}/{n}" for t, n in sorted(WRONG)])
def test_a_wrong_design_fails_at_a_cycle_naming_the_signal_and_the_mistake(task, name):
    r = judge(task, (RTL / task / name).read_text(), seed=7)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    m = re.match(r"cycle (\d+) with (\w+=\d+(?:, \w+=\d+)*): `(\w+)` is (\S+), expected (\S+): .{20,}", r.message)
    assert m, r.message
    cycle, signal = int(m.group(1)), m.group(3)
    want_signal, words = WRONG[task, name]
    assert signal == want_signal and m.group(4) != m.group(5), r.message
    assert words in r.message, r.message
    assert "Inputs at each edge" in r.details and signal in r.details.splitlines()[1]
    failed = [t for t in r.tests if t.passed is False]
    assert len(failed) == 1 and failed[0].message == r.message
    assert r.waveform["mismatch"]["cycle"] == cycle and r.waveform["mismatch"]["signal"] == signal
