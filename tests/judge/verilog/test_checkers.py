"""The hardware-design tasks' checkers against designs: every reference passes at every parameter
set, and every wrong design (tests/fixtures/rtl/<task>/, first line `// bug: ...`) fails with a
mismatch that names the wrong output and says why.

The designs run in Icarus Verilog under a generated testbench that follows the judge's cycle
protocol (checkers.py): it reads one operation per line from a file (apply inputs with clk low,
or raise clk) and prints all outputs after each one."""
from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from assessments.judge.kinds.verilog.checkers import CHECKERS, Mismatch
from gpu_tasks.rtl import TASKS

# the task bank's parameter sets: the hidden tests' and the samples'
# A second simulator's view of the contract tasks (`../shared/TASKS-TRACKS.md`); the bank's other
# tasks are judged end to end in their own test files.
CONTRACT = ("sync_fifo", "rr_arbiter", "skid_buffer")
PARAMETER_SETS = {slug: [dict(c.dims) for c in (*TASKS[slug].tests['sim'], *TASKS[slug].samples)]
                  for slug in CONTRACT}

pytestmark = pytest.mark.skipif(not (shutil.which("iverilog") and shutil.which("vvp")),
                                reason="Icarus Verilog (iverilog, vvp) is not installed")

RTL = Path(__file__).resolve().parents[2] / "fixtures" / "rtl"
REFERENCE = RTL.parents[2] / "gpu_tasks" / "rtl" / "reference"   # the bank's reference designs
CYCLES = 2000

# What each wrong design must be caught on: the output named, and words its `why` must contain.
WRONG = {
    ("sync_fifo", "full_late.v"): ("full", "full should be high with all"),
    ("sync_fifo", "wrap_off_by_one.v"): ("dout", "oldest entry"),
    ("sync_fifo", "count_both_enables.v"): ("empty", "a write and a read while empty (ignored)"),
    ("sync_fifo", "dout_registered.v"): ("dout", "registered a cycle late"),
    ("sync_fifo", "read_while_empty.v"): ("dout", "read while empty"),
    ("sync_fifo", "write_full_with_read.v"): ("full", "a write while full (ignored) and a read"),
    ("rr_arbiter", "ptr_to_granted.v"): ("grant", "round-robin order from the pointer"),
    ("rr_arbiter", "ptr_moves_without_grant.v"): ("grant", "must not move it"),
    ("rr_arbiter", "skips_pointer.v"): ("grant", "round-robin order from the pointer"),
    ("rr_arbiter", "grant_registered.v"): ("grant", "with req="),
    ("rr_arbiter", "fixed_priority.v"): ("grant", "round-robin order from the pointer"),
    ("skid_buffer", "comb_ready.v"): ("s_ready", "no combinational path"),
    ("skid_buffer", "drop_on_stall.v"): ("m_data", "dropped"),
    ("skid_buffer", "data_changes_on_stall.v"): ("m_data", "changed at an edge where m_ready was low"),
    ("skid_buffer", "half_rate.v"): ("s_ready", "one word should pass every cycle"),
    ("skid_buffer", "ready_low_after_reset.v"): ("s_ready", "after a reset edge"),
}


def ports(task: str, p: dict[str, int]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(inputs, outputs) as (name, width), clk left out, in the contract's order."""
    if task == "sync_fifo":
        w = p["WIDTH"]
        return ([("rst_n", 1), ("wr_en", 1), ("din", w), ("rd_en", 1)],
                [("dout", w), ("full", 1), ("empty", 1), ("count", (p["DEPTH"] - 1).bit_length() + 1)])
    if task == "rr_arbiter":
        return [("rst_n", 1), ("req", p["N"])], [("grant", p["N"])]
    w = p["WIDTH"]
    return ([("rst_n", 1), ("s_valid", 1), ("s_data", w), ("m_ready", 1)],
            [("s_ready", 1), ("m_valid", 1), ("m_data", w)])


def make_testbench(task: str, params: dict[str, int], stim_path: Path) -> str:
    ins, outs = ports(task, params)
    decl = "".join(f"    reg  [{w - 1}:0] {n};\n" for n, w in ins) + \
           "".join(f"    wire [{w - 1}:0] {n};\n" for n, w in outs)
    conns = ", ".join(f".{n}({n})" for n, _ in [("clk", 1)] + ins + outs)
    pars = ", ".join(f".{k}({v})" for k, v in params.items())
    apply = "".join(f'                r = $fscanf(fd, "%h", v); {n} = v;\n' for n, _ in ins)
    show = ", ".join(n for n, _ in outs)
    return f"""module tb;
    reg clk = 1'b0;
{decl}    integer fd, op, r;
    reg [63:0] v;
    {task} #({pars}) dut ({conns});
    initial begin
        fd = $fopen("{stim_path}", "r");
        while ($fscanf(fd, "%d", op) == 1) begin
            if (op == 0) begin      // inputs, clock low
                clk = 1'b0;
{apply}                #1;
            end else begin          // the rising edge
                clk = 1'b1;
                #1;
            end
            $display("@{' %h' * len(outs)}", {show});
        end
        $finish;
    end
endmodule
"""


def simulate(task, design: Path, params, cycles, probes, tmp: Path) -> list[dict]:
    """Rows like the judge's driver: {"before", "probed" (if probed), "after"} outputs per cycle."""
    ins, outs = ports(task, params)
    lines = []
    for c, inputs in enumerate(cycles):
        lines.append("0 " + " ".join(f"{inputs[n]:x}" for n, _ in ins))
        current = dict(inputs)
        for variation in probes.get(c, ()):     # applied on top of what is there, no clock
            current.update(variation)
            lines.append("0 " + " ".join(f"{current[n]:x}" for n, _ in ins))
        if c in probes:                          # back to the cycle's own inputs
            lines.append("0 " + " ".join(f"{inputs[n]:x}" for n, _ in ins))
        lines.append("1")
    (tmp / "stim.txt").write_text("\n".join(lines) + "\n")
    (tmp / "tb.v").write_text(make_testbench(task, params, tmp / "stim.txt"))
    subprocess.run(["iverilog", "-g2005", "-o", str(tmp / "sim.vvp"), str(tmp / "tb.v"), str(design)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run(["vvp", "-n", str(tmp / "sim.vvp")], check=True, capture_output=True, text=True)
    # x and z read as 0, as in a two-state simulator.
    reads = iter({n: int(x.translate(str.maketrans("xXzZ", "0000")), 16) for (n, _), x in zip(outs, line.split()[1:])}
                 for line in run.stdout.splitlines() if line.startswith("@"))
    rows = []
    for c in range(len(cycles)):
        row = {"before": next(reads)}
        if c in probes:
            row["probed"] = [next(reads) for _ in probes[c]]
            next(reads)
        row["after"] = next(reads)
        rows.append(row)
    return rows


def judge(task, design: Path, params, tmp: Path) -> tuple[int, Mismatch] | None:
    """The first mismatch (cycle, Mismatch) of `design` at `params`, or None."""
    checker = CHECKERS[task](params)
    cycles = checker.stimulus(random.Random(f"{task}:{sorted(params.items())}"), CYCLES)
    probes = {c: v for c in range(len(cycles)) if (v := checker.probe(c))}
    for c, (inputs, row) in enumerate(zip(cycles, simulate(task, design, params, cycles, probes, tmp))):
        found = checker.before_edge(c, inputs, row["before"])
        if found is None and c in probes:
            found = checker.probed(c, list(zip(probes[c], row["probed"])))
        found = found or checker.after_edge(c, inputs, row["after"])
        if found:
            return c, found
    return None


def _name(params):
    return ",".join(f"{k}={v}" for k, v in params.items())


@pytest.mark.parametrize("task,params", [(t, p) for t, sets in PARAMETER_SETS.items() for p in sets],
                         ids=[f"{t}[{_name(p)}]" for t, sets in PARAMETER_SETS.items() for p in sets])
def test_reference_passes(task, params, tmp_path):
    assert judge(task, REFERENCE / f"{task}.v", params, tmp_path) is None


@pytest.mark.parametrize("task,design", sorted(WRONG), ids=[f"{t}/{d}" for t, d in sorted(WRONG)])
def test_wrong_design_fails_with_a_useful_reason(task, design, tmp_path):
    path = RTL / task / design
    assert path.read_text().startswith("// bug: ")
    signal, words = WRONG[task, design]
    for params in PARAMETER_SETS[task]:       # the first parameter set that catches it
        result = judge(task, path, params, tmp_path)
        if result:
            break
    assert result, f"{design} passed every parameter set"
    cycle, mismatch = result
    report = f"{design} at {_name(params)}, cycle {cycle}: {mismatch}"
    assert mismatch.signal == signal, report
    assert words in mismatch.why and mismatch.expected != mismatch.actual, report


def test_every_wrong_design_is_listed():
    on_disk = {(t, p.name) for t in CONTRACT for p in (RTL / t).glob("*.v") if p.name != "reference.v"}
    assert on_disk == set(WRONG)
    for task in CONTRACT:
        assert (REFERENCE / f"{task}.v").exists()
        assert sum(t == task for t, _ in WRONG) >= 3


@pytest.mark.parametrize("task", sorted(t for t in CHECKERS if not TASKS[t].domains))   # one clock (two: test_async_fifo.py)
def test_stimulus_is_deterministic_and_resets_twice(task):
    bank = TASKS[task]
    params = dict(bank.tests["sim"][0].dims)
    first = CHECKERS[task](params).stimulus(random.Random(7), CYCLES)
    assert first == CHECKERS[task](params).stimulus(random.Random(7), CYCLES)
    assert len(first) == CYCLES
    names = {p.name for p in bank.ports if p.direction == "input" and p.name != bank.clock}
    assert all(set(inputs) == names for inputs in first)
    resets = [c for c, inputs in enumerate(first) if not inputs["rst_n"]]
    assert resets[0] == 0 and any(c > 10 for c in resets)
