"""The `async_fifo` task, a design with two clocks: edges of both clocks in time order at ratios
from 1:7 to 7:1, the checker following the statement edge by edge, the crossing rules read from
Yosys's netlist, the metastability model (a bit that changed at the source's latest edge seen one
destination cycle late, or on time), and end to end: correct designs pass every parameter set,
each wrong design in tests/fixtures/rtl/async_fifo/ fails naming the edge, the signal and the
mistake, and binary pointers fail whatever the seed."""
from __future__ import annotations

import dataclasses
import itertools
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge
from assessments.judge.kinds.verilog import cdc, netlist, waveform
from assessments.judge.kinds.verilog.checkers import CHECKERS
from assessments.judge.kinds.verilog.checkers.async_fifo import LATE
from assessments.judge.kinds.verilog.checkers.clocks import MAX_RATIO, Edge, timeline
from assessments.judge.kinds.verilog.metastability import Metastability
from gpu_tasks.rtl import TASKS as BANK

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "rtl" / "async_fifo"
TASK = BANK["async_fifo"]
REFERENCE = TASK.reference_path.read_text()
DOMAINS = [{"clock": d.clock, "reset": d.reset, "inputs": list(d.inputs), "outputs": list(d.outputs),
            "data": list(d.data)} for d in TASK.domains]

needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="Yosys is not installed")
needs_tools = pytest.mark.skipif(not (shutil.which("verilator") and shutil.which("yosys")),
                                 reason="Verilator and Yosys are needed")


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


# ---- the clocks and the stimulus -----------------------------------------------------------------
def test_each_test_meets_both_clocks_faster_and_close_ratios_never_rising_together():
    for seed in range(5):
        edges = list(itertools.islice(timeline(random.Random(seed), ("wclk", "rclk"), 300), 900))
        times = [t for t, _ in edges]
        assert times == sorted(times) and len(set(times)) == len(times)
        ratios = []
        for k in range(3):                  # a segment: each clock at one period
            seg = edges[300 * k:300 * (k + 1)]
            periods = {c: {b - a for a, b in zip(ts, ts[1:])}
                       for c in ("wclk", "rclk") for ts in [[t for t, n in seg if n == c]]}
            assert all(len(p) == 1 for p in periods.values()), periods
            ratios.append(periods["rclk"].pop() / periods["wclk"].pop())
        assert all(1 / MAX_RATIO <= r <= MAX_RATIO for r in ratios), ratios
        assert any(r >= 1.5 for r in ratios) and any(r <= 1 / 1.5 for r in ratios)
        assert any(0.8 <= r <= 1.25 for r in ratios)


@pytest.mark.parametrize("case", [*TASK.tests["sim"], *TASK.samples], ids=lambda c: c.name)
def test_stimulus_is_deterministic_and_each_side_drives_only_its_own_inputs(case):
    params = dict(case.dims)
    cycles = TASK.cycles // (10 if case in TASK.samples else 1)
    edges = CHECKERS["async_fifo"](params).stimulus(random.Random(3), cycles)
    assert edges == CHECKERS["async_fifo"](params).stimulus(random.Random(3), cycles)
    assert len(edges) >= cycles and all(isinstance(e, Edge) for e in edges)
    assert [e.cycle for e in edges if e.clock == "wclk"] == list(range(sum(e.clock == "wclk" for e in edges)))
    own = {"winc": "wclk", "wdata": "wclk", "rinc": "rclk"}
    asserted, held = [], {"wclk": 0, "rclk": 0}
    for prev, e in zip(edges, edges[1:]):
        for name, clock in own.items():
            assert e.inputs[name] == prev.inputs[name] or e.clock == clock, (e, name)
        for reset, clock in (("wrst_n", "wclk"), ("rrst_n", "rclk")):
            if prev.inputs[reset] and not e.inputs[reset]:
                asserted.append(e.time)                       # asserted at any edge...
            if not prev.inputs[reset] and e.inputs[reset]:
                assert e.clock == clock and held[clock] >= 3  # ...released just before its own edge
        held = {c: (held[c] + (e.clock == c) if not (e.inputs["wrst_n"] and e.inputs["rrst_n"]) else 0) for c in held}
    assert not edges[0].inputs["wrst_n"] and not edges[0].inputs["rrst_n"]
    assert len(set(asserted)) * 2 == len(asserted) and len(asserted) >= 2     # both together, and again later
    depth, run = 1 << params["ADDR_W"], 0                # the fill: writes past full with no read
    longest = 0
    for e in edges:
        if e.clock == "wclk":
            run = run + 1 if e.inputs["winc"] and not e.inputs["rinc"] and e.inputs["wrst_n"] else 0
            longest = max(longest, run)
    assert longest >= depth + LATE


# ---- the checker against the statement, by hand --------------------------------------------------
def _trace(*steps):
    """Edges from (clock, inputs) with the resets released unless given, times 10 ns apart."""
    count, edges = {"wclk": 0, "rclk": 0}, []
    for t, (clock, inputs) in enumerate(steps):
        full = {"wrst_n": 1, "rrst_n": 1, "winc": 0, "wdata": 0, "rinc": 0, **inputs}
        edges.append(Edge(clock, count[clock], 10 * t, full))
        count[clock] += 1
    return edges


def _replay(params, edges, outputs):
    """The first (edge index, Mismatch) of outputs read just before each edge, or None."""
    checker = CHECKERS["async_fifo"](params)
    checker.edges = edges
    for c, (e, out) in enumerate(zip(edges, outputs)):
        found = checker.before_edge(c, e.inputs, out) or checker.after_edge(c, e.inputs, out)
        if found:
            return c, found
    return None


RESET = [("wclk", {"wrst_n": 0, "rrst_n": 0}), ("rclk", {"wrst_n": 0, "rrst_n": 0})]


def test_rempty_may_stay_high_six_read_edges_after_a_write_and_never_low_while_empty():
    p = {"WIDTH": 8, "ADDR_W": 1}
    edges = _trace(*RESET, ("wclk", {"winc": 1, "wdata": 0xA5}), *[("rclk", {"rinc": 1})] * 8)
    idle = {"wfull": 0, "rdata": 0, "rempty": 1}
    c, m = _replay(p, edges, [idle] * len(edges))          # never shown: caught at the 7th read edge
    assert (edges[c].clock, edges[c].cycle, m.signal, m.expected, m.actual) == ("rclk", LATE + 1, "rempty", "0", "1")
    assert f"waited {LATE + 1} rclk edges" in m.why and "word #1 (8'ha5)" in m.why
    shown = {"wfull": 0, "rdata": 0xA5, "rempty": 0}       # shown at the 6th and read there: then empty
    c, m = _replay(p, edges, [idle] * (2 + LATE) + [shown] * 3)
    assert (edges[c].cycle, m.signal, m.expected, m.actual) == (LATE + 1, "rempty", "1", "0")
    assert "the FIFO is empty" in m.why and f"word #1, at rclk cycle {LATE}" in m.why


def test_wfull_is_never_low_while_full_a_write_while_full_is_ignored_and_rdata_is_the_oldest_word():
    p = {"WIDTH": 8, "ADDR_W": 1}                         # two words
    edges = _trace(*RESET, *[("wclk", {"winc": 1, "wdata": 0x10 + k}) for k in range(3)],
                   ("rclk", {"rinc": 1}), ("rclk", {}), *[("wclk", {})] * (LATE + 1))
    empty, full = {"wfull": 0, "rdata": 0, "rempty": 1}, {"wfull": 1, "rdata": 0x10, "rempty": 0}
    c, m = _replay(p, edges, [empty] * 5)                 # wfull still low with two words: the third overwrites
    assert (c, m.signal, m.expected, m.actual) == (4, "wfull", "1", "0") and "holds all 2 words" in m.why
    # the third word was offered while full (ignored); once word #1 is read, rdata must be word #2
    stale = {**full, "rdata": 0x10}
    c, m = _replay(p, edges, [empty] * 4 + [full, full, stale])
    assert (edges[c].clock, m.signal, m.expected, m.actual) == ("rclk", "rdata", "8'h11", "8'h10")
    assert "registered one read late" in m.why
    # room since word #1 was read: wfull may stay high for six write edges, not seven
    after = {**full, "rdata": 0x11}
    c, m = _replay(p, edges, [empty] * 4 + [full, full] + [after] * (LATE + 2))
    assert (edges[c].clock, edges[c].cycle, m.signal, m.expected, m.actual) == ("wclk", 4 + LATE, "wfull", "0", "1")
    assert f"{LATE + 1} wclk edges ago" in m.why and "word #1 was read at rclk cycle 1" in m.why
    assert _replay(p, edges[:-1], [empty] * 4 + [full, full] + [after] * (LATE + 1)) is None


# ---- the metastability model ---------------------------------------------------------------------
CROSSING = {"bits": [{"register": "wgray", "index": i, "from": "wclk", "to": "rclk"} for i in range(2)],
            "ports": {"late": ["kp_late0"], "now": ["kp_now0"], "was": ["kp_was0"]}}


def test_a_bit_is_late_only_at_the_first_read_edge_after_a_write_edge():
    pattern = [("wclk", {}), ("rclk", {}), ("rclk", {}), ("wclk", {"wrst_n": 0}), ("rclk", {})]
    edges = _trace(*pattern * 200)
    model = Metastability(CROSSING, TASK.domains, random.Random(1))
    late = model.plan(edges)
    assert len(late) == len(edges) and set(late[0]) == {"kp_late0"}
    fresh = [late[i]["kp_late0"] for i in range(1, len(edges), 5)]
    assert {v & 1 for v in fresh} == {0, 1} and {v >> 1 for v in fresh} == {0, 1}   # a coin per bit
    assert all(late[i]["kp_late0"] == 0 for i in range(2, len(edges), 5))   # no write edge since the last read edge
    assert all(late[i]["kp_late0"] == 0 for i in range(4, len(edges), 5))   # the write side's reset came after it
    assert all(late[i]["kp_late0"] == 0 for i in range(0, len(edges), 5))   # a write edge: nothing crosses into wclk


def test_a_capture_mixing_old_and_new_bits_of_a_register_is_a_tear():
    edges = _trace(("wclk", {}), ("rclk", {}))
    model = Metastability(CROSSING, TASK.domains, random.Random(1))
    model.plan(edges)
    outputs = {"kp_now0": 0b10, "kp_was0": 0b01}       # wgray went 01 -> 10 at the write edge
    for late, torn in ((0b00, False), (0b11, False), (0b01, True), (0b10, True)):
        model.late[1] = late
        m = model.tear(1, edges[1], outputs)
        assert bool(m) == torn
    m = model.tear(1, edges[1], outputs)
    assert (m.signal, m.expected, m.actual) == ("wgray", "2'b01 or 2'b10", "2'b00") and "never held" in m.why
    model.late[1] = 0b01
    assert model.tear(1, edges[1], {"kp_now0": 0b11, "kp_was0": 0b01}) is None   # one bit changed: on time or late


# ---- the crossing rules, read from Yosys's netlist -----------------------------------------------
def _module(body: str, ports: str = "output wire wfull, output wire [7:0] rdata, output wire rempty") -> str:
    return (f"module async_fifo (input wire wclk, input wire wrst_n, input wire winc, input wire [7:0] wdata,\n"
            f"    input wire rclk, input wire rrst_n, input wire rinc, {ports});\n{body}\nendmodule\n")


OUTS = "assign wfull = 1'b0; assign rdata = 8'd0;\n"
CROSSINGS = {
    "two stages": (OUTS + "reg [1:0] w; reg [1:0] s1, s2; always @(posedge wclk) w <= w + winc;\n"
                   "always @(posedge rclk) begin s1 <= w; s2 <= s1; end assign rempty = s2[0] ^ s2[1];", None),
    "first stage used in logic": (OUTS + "reg w, s1, s2, r; always @(posedge wclk) w <= winc;\n"
                                  "always @(posedge rclk) begin s1 <= w; s2 <= s1; r <= rinc & s1; end\n"
                                  "assign rempty = r ^ s2;", "also feeds logic"),
    "no second stage": (OUTS + "reg w, s1; always @(posedge wclk) w <= winc; always @(posedge rclk) s1 <= w;\n"
                        "assign rempty = s1;", "no second flip-flop"),
    "logic before the first stage": (OUTS + "reg w, v, s1, s2; always @(posedge wclk) begin w <= winc; v <= wdata[0]; end\n"
                                     "always @(posedge rclk) begin s1 <= w & v; s2 <= s1; end assign rempty = s2;",
                                     "reaches the `rclk` flip-flop `s1` through logic"),
    "an input of the other side": (OUTS + "reg s1, s2; always @(posedge rclk) begin s1 <= winc; s2 <= s1; end\n"
                                   "assign rempty = s2;", "the input `winc` of the `wclk` side"),
    "a derived clock": (OUTS + "reg w; wire g = wclk & winc; always @(posedge g) w <= wdata[0]; assign rempty = w;",
                        "clocked by `g`"),
    "words in flip-flops read across": ("reg [15:0] store; reg [1:0] wa; reg ra;\n"
                                        "always @(posedge wclk) begin store[wa*8 +: 8] <= wdata; wa <= wa + winc; end\n"
                                        "always @(posedge rclk) ra <= ra + rinc;\n"
                                        "assign rdata = store[ra*8 +: 8]; assign wfull = 1'b0; assign rempty = 1'b0;", None),
    "a pointer read across": ("reg [1:0] wa; reg ra; always @(posedge wclk) wa <= wa + winc;\n"
                              "always @(posedge rclk) ra <= ra + rinc;\n"
                              "assign rdata = {6'd0, wa}; assign wfull = 1'b0; assign rempty = ra;",
                              "the output `rdata` of the `rclk` side depends on `wa`, clocked by `wclk`,"),
    "a memory read across": ("reg [7:0] mem [0:3]; reg [1:0] wa, ra; reg [7:0] q;\n"
                             "always @(posedge wclk) begin mem[wa] <= wdata; wa <= wa + 1'b1; end\n"
                             "always @(posedge rclk) begin ra <= ra + rinc; q <= mem[ra]; end\n"
                             "assign rdata = q; assign wfull = 1'b0; assign rempty = 1'b0;", None),
}


@needs_yosys
@pytest.mark.parametrize("name", sorted(CROSSINGS))
def test_crossings_read_from_the_netlist(name):
    body, problem = CROSSINGS[name]
    with tempfile.TemporaryDirectory() as tmp:
        net = netlist.Netlist(netlist.flatten(tmp, _module(body), "async_fifo", {}))
    crossings, problems = cdc.analyze(net, DOMAINS)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) >= 1 and problem in problems[0], problems


@needs_yosys
def test_the_reference_crosses_its_gray_pointers_through_synchronizers_and_gets_the_model():
    with tempfile.TemporaryDirectory() as tmp:
        text, model = cdc.model_source(tmp, REFERENCE, "async_fifo", {"WIDTH": 8, "ADDR_W": 2}, DOMAINS)
    assert model["problems"] == []
    crossing = {(b["register"], b["from"], b["to"]) for b in model["bits"]}
    assert crossing == {("wgray", "wclk", "rclk"), ("rgray", "rclk", "wclk")} and len(model["bits"]) == 6
    assert set(model["ports"]) == {"late", "now", "was"}
    header = text[text.index("module async_fifo("):text.index(");")]
    assert all(p in header for names in model["ports"].values() for p in names)


# ---- the waveform with two clocks ----------------------------------------------------------------
def _window():
    edges = _trace(*RESET, *[("wclk", {"winc": 1, "wdata": k}) if k % 3 else ("rclk", {"rinc": 1}) for k in range(24)])
    rows = [{"after": {"wfull": 0, "rdata": k % 256, "rempty": k % 2}} for k in range(len(edges))]
    ports = [{"name": n, "direction": d, "width": w} for n, d, w in (
        ("wclk", "input", 1), ("wrst_n", "input", 1), ("winc", "input", 1), ("wdata", "input", 8),
        ("wfull", "output", 1), ("rclk", "input", 1), ("rrst_n", "input", 1), ("rinc", "input", 1),
        ("rdata", "output", 8), ("rempty", "output", 1), ("kp_cdc_late0", "input", 4))]
    return edges, waveform.edges_window(ports, edges, rows, len(edges) - 2, "rempty", "1", {"kp_cdc_late0"})


def test_the_waveform_draws_both_clocks_at_their_own_times():
    edges, w = _window()
    assert [c["name"] for c in w["clocks"]] == ["wclk", "rclk"]
    assert "kp_cdc_late0" not in [s["name"] for s in w["signals"]] and "wclk" not in [s["name"] for s in w["signals"]]
    shown = edges[w["first_cycle"]:w["mismatch"]["cycle"] + 1]
    assert len(shown) == waveform.WINDOW and w["mismatch"]["clock"] == edges[-2].clock
    for clock in w["clocks"]:
        own = [e.time for e in shown if e.clock == clock["name"]]
        assert set(own) <= set(clock["rises"]) and all(r < f for r, f in zip(clock["rises"], clock["falls"]))
    vcd = waveform.to_vcd(w)
    ids = dict(re.findall(r"\$var wire 1 (\S+) (wclk|rclk) \$end", vcd))
    assert set(ids.values()) == {"wclk", "rclk"}
    times = [int(t) for t in re.findall(r"^#(\d+)$", vcd, re.M)]
    assert times == sorted(times)
    svg = waveform.to_svg(w)
    assert svg.startswith("<svg") and ">wclk<" in svg and ">rclk<" in svg and 'class="miss"' in svg
    assert f"rempty is wrong at {edges[-2].clock} cycle {edges[-2].cycle}" in svg


# ---- end to end ----------------------------------------------------------------------------------
@needs_tools
@pytest.mark.parametrize("source", [REFERENCE, (FIXTURES / "three_stage_sync.sv").read_text()],
                         ids=["reference", "three_stage_sync"])
def test_a_correct_design_passes_every_parameter_set(source):
    r = judge("async_fifo", source, seed=7)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert len(r.tests) == len(TASK.tests["sim"]) and all(t.passed for t in r.tests)
    assert {t.sizes["ADDR_W"] for t in r.tests} == set(range(1, 7))
    assert r.synthesis["params"] == TASK.synth_params and r.synthesis["cells"] > 0


# (file, the signal named, words the message must contain); no_synchronizer fails in the netlist
WRONG = {
    "binary_pointers.v": (("wbin", "rbin"), "a value `"),
    "full_top_bit_only.v": (("wfull",), "must be high"),
    "full_one_write_late.v": (("wfull",), "overwrite a word not yet read"),
    "short_pointers.v": (("wfull",), "as if full came one word early"),
    "rdata_one_read_late.v": (("rdata",), "registered one read late"),
}
EDGE = re.compile(r"(wclk|rclk) cycle (\d+) \(t=(\d+) ns\) with WIDTH=8, ADDR_W=4: `(\w+)` is (\S+), expected (.+?): .{20,}")
FIRST_SET = dataclasses.replace(TASK, tests={"sim": TASK.tests["sim"][:1]})   # each fails there already


def test_every_fixture_is_listed_and_says_what_it_is():
    on_disk = {p.name for p in FIXTURES.iterdir()}
    assert on_disk == {*WRONG, "no_synchronizer.v", "three_stage_sync.sv"}
    assert all((FIXTURES / n).read_text().startswith("// bug: ") for n in (*WRONG, "no_synchronizer.v"))


@needs_tools
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_design_fails_naming_the_edge_the_signal_and_the_mistake(name):
    r = judge(FIRST_SET, (FIXTURES / name).read_text(), seed=7)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    m = EDGE.match(r.message)
    assert m, r.message
    clock, cycle, time, signal = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    signals, words = WRONG[name]
    assert signal in signals and words in r.message, r.message
    assert m.group(5) not in m.group(6).split(" or "), r.message
    lines = r.details.splitlines()
    assert lines[1].split()[:2] == ["t", "(ns)"] and lines[-1].split()[:3] == [str(time), clock, str(cycle)]
    w = r.waveform
    assert [c["name"] for c in w["clocks"]] == ["wclk", "rclk"] and w["mismatch"]["time"] == time
    assert [t.passed for t in r.tests] == [False]


@needs_tools
def test_a_crossing_without_a_synchronizer_fails_before_any_edge_naming_it():
    r = judge(FIRST_SET, (FIXTURES / "no_synchronizer.v").read_text(), seed=7)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.startswith("clock-domain crossing with WIDTH=8, ADDR_W=4: ")
    assert "`wgray`, clocked by `wclk`," in r.message and "no synchronizer" in r.message
    assert "`rgray`, clocked by `rclk`," in r.details and r.waveform is None


@needs_tools
def test_binary_pointers_fail_whatever_the_seed_and_the_reference_never_does():
    binary = (FIXTURES / "binary_pointers.v").read_text()
    for seed in [*range(10), None, None]:     # None: a hidden seed, as a submission gets
        r = judge("async_fifo", binary, seed=seed, suite="samples")
        assert r.verdict is Verdict.WRONG_ANSWER and "never held" in r.message, (seed, _describe(r))
    for seed in range(8):
        r = judge("async_fifo", REFERENCE, seed=seed, suite="samples")
        assert r.verdict is Verdict.ACCEPTED, (seed, _describe(r))


@needs_tools
def test_a_design_yosys_cannot_read_is_not_synthesizable():
    # Verilator reads this function; Yosys 0.23 does not (a variable declared in its body)
    source = (FIXTURES / "three_stage_sync.sv").read_text()
    start, end = source.index("    function automatic"), source.index("endfunction") + len("endfunction")
    source = source[:start] + """    function automatic logic [P-1:0] gray_to_bin(input logic [P-1:0] g);
        logic [P-1:0] b;
        b = g;
        for (int i = 1; i < P; i++) b = b ^ (g >> i);
        return b;
    endfunction""" + source[end:]
    r = judge(FIRST_SET, source, seed=1)
    assert r.verdict is Verdict.NOT_SYNTHESIZABLE, _describe(r)
    assert r.message.startswith("not synthesizable: Yosys: design.sv:") and r.compile_log


@needs_tools
def test_an_empty_module_says_so():
    header = REFERENCE[:REFERENCE.index(");") + 2]
    r = judge(FIRST_SET, header + "\nendmodule\n", seed=1)
    assert r.verdict is Verdict.NOT_SYNTHESIZABLE and "`async_fifo` has nothing in it yet" in r.message, _describe(r)
