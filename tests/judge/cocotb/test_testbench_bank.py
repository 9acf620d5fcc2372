"""The design-verification bank (gpu_tasks/testbench): its tasks, mutants, starter and reference
testbench, and where the judge finds them."""
from __future__ import annotations

import re
import shutil
import tomllib

import pytest

from assessments.judge import Verdict, judge, kinds
from assessments.judge.kinds.cocotb import static
from tb_stage import HAVE_TOOLS, ROOT
from gpu_tasks.rtl import TASKS as RTL_TASKS
from gpu_tasks.testbench import TASKS, MutantError, TbTask

TASK = TASKS["fifo_tb"]
DECLARED = re.compile(r"\b(?:reg|wire|integer|genvar|localparam|parameter|input|output)\b\s*(?:\[[^\]]*\]\s*)?(\w+)")
SCOPES = re.compile(r"\b(module|function|task|generate)\b|\bbegin\s*:")


def test_the_bank_holds_fifo_tb_as_the_contract_writes_it():
    assert isinstance(TASK, TbTask) and TASK.kind == "cocotb" and TASK.track == "hardware design"
    assert TASK.design == "sync_fifo" and TASK.params == {"WIDTH": 8, "DEPTH": 8}
    assert TASK.module == "sync_fifo" and TASK.clock == "clk"
    assert [p.name for p in TASK.ports] == [p.name for p in RTL_TASKS["sync_fifo"].ports]
    taxonomy = tomllib.loads((ROOT / "skillmap" / "data" / "taxonomy.toml").read_text())
    known = {s["id"] for s in taxonomy["skill"]}
    assert set(TASK.skills) <= known and {"design_verification", "testbench_development", "cocotb"} <= set(TASK.skills)


def test_each_kind_finds_only_its_own_tasks():
    assert kinds.find_task("fifo_tb") is TASK and kinds.kind_of(TASK).name == "cocotb"
    assert kinds.get_kind("verilog").find_task("fifo_tb") is None
    assert kinds.get_kind("cocotb").find_task("sync_fifo") is None
    assert "fifo_tb" in kinds.task_slugs()


def test_at_least_ten_mutants_each_a_sentence_and_two_public_in_the_statement():
    assert len(TASK.mutants) >= 10
    descriptions = [m.description for m in TASK.mutants]
    assert len(set(descriptions)) == len(descriptions)
    for d in descriptions:
        assert d.endswith(".") and "\n" not in d and 20 < len(d) < 160, d
    public = [m for m in TASK.mutants if m.public]
    assert len(public) == 2 and all(m.description in TASK.statement for m in public)
    assert [c.name for c in TASK.sample_cases] == ["correct design"] + [m.name for m in public]
    assert [c.name for c in TASK.tests["sim"]] == ["correct design"] + [m.name for m in TASK.mutants]


def test_mutants_are_small_edits_that_keep_every_name_and_line():
    correct = TASK.design_source()
    reference = RTL_TASKS["sync_fifo"].reference_path.read_text()
    assert correct.startswith(reference.rsplit("endmodule", 1)[0])   # the reference, plus the shadow lines
    sources = {TASK.mutant_source(m) for m in TASK.mutants}
    assert len(sources) == len(TASK.mutants) and correct not in sources
    for m in TASK.mutants:
        text = TASK.mutant_source(m)
        assert len(text.splitlines()) == len(correct.splitlines()), m.name
        changed = [a for a, b in zip(correct.splitlines(), text.splitlines()) if a != b]
        assert 1 <= len(changed) <= 2, m.name
        for old, new in m.edits:   # a declaration may change its value, never its name
            assert "\n" not in new and DECLARED.findall(old) == DECLARED.findall(new), (m.name, new)
            assert not SCOPES.search(new), (m.name, new)


def test_an_edit_that_does_not_apply_exactly_once_is_refused(tmp_path):
    folder = tmp_path / "fifo_tb"
    folder.mkdir()
    (folder / "mutants.toml").write_text('[[mutant]]\ndescription = "x."\nreplace = [["no such text", "y"]]\n')
    task = TbTask(slug="fifo_tb", title="", difficulty="", skills=(), summary="", statement="",
                  design="sync_fifo", params={"WIDTH": 8, "DEPTH": 8}, mutants_dir=tmp_path)
    with pytest.raises(MutantError):
        task.mutant_source(task.mutants[0])


def test_the_starter_and_the_reference_pass_the_static_screen_and_differ():
    for text in (TASK.starter, TASK.reference_testbench_path.read_text()):
        static.screen(text)
    assert "Clock(dut.clk" in TASK.starter and "@cocotb.test()" in TASK.starter
    assert len(TASK.starter.splitlines()) < 40
    assert "FifoModel" not in TASK.starter


@pytest.mark.skipif(not HAVE_TOOLS, reason="Icarus Verilog or cocotb is not installed")
def test_the_starter_runs_on_the_samples():
    r = judge("fifo_tb", TASK.starter, suite="samples")
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)


@pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")
def test_the_correct_design_as_simulated_is_a_correct_sync_fifo():
    r = judge("sync_fifo", TASK.design_source(), seed=3)
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)
