"""Designs judged end to end (kind `verilog`): Verilator builds each parameter set's model in the
compile sandbox, the run sandbox's child drives it, the parent checks every cycle. Correct designs
pass every parameter set; the bugs interviewers see fail with the cycle, the signal and why;
hostile designs are contained."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge

ROOT = Path(__file__).resolve().parents[3]
RTL = ROOT / "tests" / "fixtures" / "rtl"
REFERENCE = ROOT / "gpu_tasks" / "rtl" / "reference"
TASKS = ("sync_fifo", "rr_arbiter", "skid_buffer")

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


@pytest.mark.parametrize("task", TASKS)
def test_the_reference_design_passes_every_parameter_set(task):
    r = judge(task, (REFERENCE / f"{task}.v").read_text(), seed=7)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert len(r.tests) >= 4 and all(t.passed for t in r.tests)
    assert r.sandbox == "bubblewrap"
    sy = r.synthesis   # the reference against itself: every performance point
    assert (sy["cells"], sy["depth"]) == (sy["reference_cells"], sy["reference_depth"]) and sy["cells"] > 0
    assert r.score == 100 and r.score_detail["synthesized"]


def test_a_design_that_simulates_but_infers_a_latch_is_not_synthesizable():
    latch = (REFERENCE / "rr_arbiter.v").read_text().replace("endmodule", """
    reg held;
    always @* if (req[0]) held = 1'b1;   // nothing assigned when req[0] is low: a latch
endmodule""")
    r = judge("rr_arbiter", latch, seed=2)
    assert r.verdict is Verdict.NOT_SYNTHESIZABLE, _describe(r)
    assert "a latch is inferred for `held`" in r.message and r.score == 0


WRONG = [(task, path.name) for task in TASKS for path in sorted((RTL / task).glob("*.v"))]


@pytest.mark.parametrize("task,name", WRONG)
def test_a_wrong_design_fails_at_a_cycle_naming_the_signal(task, name):
    r = judge(task, (RTL / task / name).read_text(), seed=7)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    m = re.match(r"cycle (\d+) with (\w+=\d+(?:, \w+=\d+)*): `(\w+)` is (\S+), expected (\S+): .{20,}", r.message)
    assert m, r.message
    cycle, signal = int(m.group(1)), m.group(3)
    assert f"{cycle:>5}" in r.details or str(cycle) in r.details     # the cycles before it, tabled
    assert "Inputs at each edge" in r.details and signal in r.details.splitlines()[1]
    failed = [t for t in r.tests if t.passed is False]
    assert len(failed) == 1 and failed[0].message == r.message
    w = r.waveform    # the window up to the mismatch, for the page's timing diagram and a VCD
    assert w["mismatch"]["cycle"] == cycle and w["mismatch"]["signal"] == signal
    assert w["first_cycle"] + len(w["signals"][0]["values"]) - 1 == cycle


def _renamed(task: str, old: str, new: str) -> str:
    return re.sub(rf"\b{old}\b", new, (REFERENCE / f"{task}.v").read_text())


@pytest.mark.parametrize("source,message", [
    (_renamed("sync_fifo", "count", "level"), "module `sync_fifo` has no port `count`"),
    ((REFERENCE / "sync_fifo.v").read_text().replace("module sync_fifo", "module fifo", 1),
     "no module named `sync_fifo` in the file"),
    ((REFERENCE / "sync_fifo.v").read_text().replace("endmodule", "", 1), "design.sv:"),
])
def test_a_design_that_does_not_match_the_statement_is_a_compile_error_saying_why(source, message):
    r = judge("sync_fifo", source, seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert message in r.message + (r.compile_log or "")


HOSTILE = sorted((RTL / "hostile").glob("*.v"))


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
@pytest.mark.parametrize("static", [True, False], ids=["static", "sandbox-only"])
def test_hostile_designs_are_contained(path, static, tmp_path):
    marks = [Path("/tmp/kp-rtl-pwned"), Path("/tmp/kp-rtl-written")]
    for m in marks:
        m.unlink(missing_ok=True)
    expect = re.match(r"// expect: ([^(\n]+)", path.read_text()).group(1)   # "a or b (why)"
    allowed = {v.strip() for v in expect.split(" or ")}
    r = judge("rr_arbiter", path.read_text(), seed=3, static_checks=static)
    assert r.verdict.value in allowed, _describe(r)
    assert not any(m.exists() for m in marks), "the design reached the host's /tmp"
    assert "root:" not in r.to_json()


def test_the_cli_tells_the_kind_from_the_file_name(tmp_path):
    wrong = tmp_path / "fifo.py"
    wrong.write_text((REFERENCE / "sync_fifo.v").read_text())
    out = subprocess.run([sys.executable, "-m", "assessments.judge", "--task", "sync_fifo", str(wrong)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "sync_fifo takes a .v or .sv file" in out.stderr


def test_every_task_names_taxonomy_skills_and_has_a_reference():
    from gpu_tasks.rtl import TASKS as BANK
    from skillmap.taxonomy import load_taxonomy
    known = load_taxonomy().skills
    for task in BANK.values():
        assert task.skills and set(task.skills) <= set(known), (task.slug, set(task.skills) - set(known))
        assert task.reference_path.exists() and task.kind == "verilog"
        assert task.difficulty in ("easy", "medium", "hard") and task.tests["sim"] and task.samples
