"""The `gray_counter` and `crc8` tasks: their checkers follow the statements edge by edge, the
reference designs pass every parameter set end to end (Verilator, then Yosys against themselves),
and each wrong design in tests/fixtures/rtl/<task>/ fails at a cycle, naming the signal and the
mistake."""
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
TASKS = ("gray_counter", "crc8")

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")

# What each wrong design must be caught on: the signal, and words the message must contain.
WRONG = {
    ("gray_counter", "gray_shift_left.v"): ("gray", "bin ^ (bin << 1)"),
    ("gray_counter", "fixed_width.v"): ("gray", "wider than W=2 bits"),
    ("gray_counter", "enable_ignored.v"): ("bin", "hold its value while en is low"),
    ("gray_counter", "gray_one_behind.v"): ("gray", "one increment behind bin"),
    ("gray_counter", "reset_to_one.v"): ("bin", "resets to 1"),
    ("gray_counter", "saturates.v"): ("bin", "it must wrap to 0"),
    ("crc8", "lsb_first.v"): ("crc", "LSB first"),
    ("crc8", "poly_0x31.v"): ("crc", "polynomial 8'h31"),
    ("crc8", "init_ignored_while_valid.v"): ("crc", "valid taking priority over init"),
    ("crc8", "seven_bits.v"): ("crc", "7 bits taken per byte"),
    ("crc8", "reset_to_ff.v"): ("crc", "starts at 8'hff"),
    ("crc8", "crc_looks_ahead.v"): ("crc", "already absorbed while valid is high"),
}

# The judge writes the parameters after "with"; crc8 has none.
MESSAGE = re.compile(r"cycle (\d+) (?:with \w+=\d+(?:, \w+=\d+)*|of test \w+): `(\w+)` is (\S+), expected (\S+): .{20,}")


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


# ---- the checkers against the statements, written out by hand ------------------------------------
def test_the_gray_checker_follows_the_statement_edge_by_edge():
    # the statement's example: W=3, en high after a reset, through the wrap; then en low holds
    grays = [0b000, 0b001, 0b011, 0b010, 0b110, 0b111, 0b101, 0b100, 0b000, 0b001, 0b001]
    bins = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 1]
    ens = [1] * 10 + [0]
    trace = [({"rst_n": 0, "en": 1}, {"bin": 0, "gray": 0})]
    trace += [({"rst_n": 1, "en": e}, {"bin": b, "gray": g}) for e, b, g in zip(ens[1:], bins[1:], grays[1:])]
    assert _replay("gray_counter", {"W": 3}, trace) is None
    assert all(bin(a ^ b).count("1") == 1 for a, b in zip(grays[:9], grays[1:9]))
    # gray one edge late: caught at the first increment, naming the lag
    late = [(i, dict(o, gray=grays[c - 1] if c else 0)) for c, (i, o) in enumerate(trace)]
    cycle, m = _replay("gray_counter", {"W": 3}, late)
    assert (cycle, m.signal, m.expected, m.actual) == (1, "gray", "3'b001", "3'b000")
    assert "one increment behind bin" in m.why
    # an output that follows en without an edge
    checker = CHECKERS["gray_counter"]({"W": 3})
    checker.after_edge(0, {"rst_n": 0, "en": 0}, {"bin": 0, "gray": 0})
    m = checker.before_edge(1, {"rst_n": 1, "en": 1}, {"bin": 1, "gray": 1})
    assert m.signal == "bin" and "with no clock edge" in m.why


def test_the_crc_checker_follows_the_statement_edge_by_edge():
    def row(data=0, valid=0, init=0, rst_n=1):
        return {"rst_n": rst_n, "init": init, "valid": valid, "data": data}

    # "123456789" gives 0xF4 with idle edges between the bytes, the data on them ignored
    inputs = [row(0x55, 1, rst_n=0)]
    for b in b"123456789":
        inputs += [row(b, 1), row(0xA5)]
    crcs = [0x00, 0x97, 0x97, 0x72, 0x72, 0xC0, 0xC0, 0xC2, 0xC2, 0xCB, 0xCB, 0xFD, 0xFD, 0x78, 0x78,
            0xC7, 0xC7, 0xF4, 0xF4]
    # init wins over valid and discards its byte; then the single byte 0x01 gives 0x07
    inputs += [row(0x31, 1, init=1), row(0x01, 1), row(0x01, 0, init=1)]
    crcs += [0x00, 0x07, 0x00]
    trace = [(i, {"crc": c}) for i, c in zip(inputs, crcs)]
    assert crcs[17] == 0xF4 and _replay("crc8", {}, trace) is None
    # init ignored while valid: caught at that edge, naming the priority
    wrong = [(i, {"crc": 0x55 if c == 19 else o["crc"]}) for c, (i, o) in enumerate(trace)]
    cycle, m = _replay("crc8", {}, wrong)
    assert (cycle, m.signal, m.expected) == (19, "crc", "8'h00") and "init was high" in m.why
    assert "valid taking priority over init" in m.why
    # the check string's CRC, and the message, named when a byte of it is wrong
    short = [(i, {"crc": 0xF5 if c == 17 else o["crc"]}) for c, (i, o) in enumerate(trace)]
    cycle, m = _replay("crc8", {}, short)
    assert (cycle, m.expected, m.actual) == (17, "8'hf4", "8'hf5") and '"123456789", the check string' in m.why


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
            if task == "gray_counter" and params["W"] <= 12:   # one run of en through the wrap
                run = longest = 0
                for inputs in first:
                    run = run + 1 if inputs["rst_n"] and inputs["en"] else 0
                    longest = max(longest, run)
                assert longest > 1 << params["W"]
    if task == "crc8":   # the check string, back to back, from a fresh start
        seq = CHECKERS[task]({}).stimulus(random.Random(3), bank.cycles)
        taken = bytes(i["data"] for i in seq[4:13] if i["valid"])
        assert taken == b"123456789" and not seq[1]["rst_n"] and not seq[3]["valid"]


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
    m = MESSAGE.match(r.message)
    assert m, r.message
    cycle, signal = int(m.group(1)), m.group(2)
    want_signal, words = WRONG[task, name]
    assert signal == want_signal and m.group(3) != m.group(4), r.message
    assert words in r.message, r.message
    assert "Inputs at each edge" in r.details and signal in r.details.splitlines()[1]
    failed = [t for t in r.tests if t.passed is False]
    assert len(failed) == 1 and failed[0].message == r.message
    assert r.waveform["mismatch"]["cycle"] == cycle and r.waveform["mismatch"]["signal"] == signal
