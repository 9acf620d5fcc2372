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


ALL = pytest.mark.parametrize("task", list(TASKS.values()), ids=list(TASKS))


def test_the_bank_holds_fifo_tb_as_the_contract_writes_it():
    assert TASK.design == "sync_fifo" and TASK.params == {"WIDTH": 8, "DEPTH": 8}
    assert {"fifo_tb", "arbiter_tb"} <= set(TASKS)


@ALL
def test_each_task_tests_a_design_of_the_rtl_bank_with_its_ports_and_skills(task):
    assert isinstance(task, TbTask) and task.kind == "cocotb" and task.track == "hardware design"
    rtl = RTL_TASKS[task.design]
    assert task.module == rtl.module and task.clock == "clk"
    assert [p.name for p in task.ports] == [p.name for p in rtl.ports]
    taxonomy = tomllib.loads((ROOT / "skillmap" / "data" / "taxonomy.toml").read_text())
    known = {s["id"] for s in taxonomy["skill"]}
    assert set(task.skills) <= known and {"design_verification", "testbench_development", "cocotb"} <= set(task.skills)


def test_each_kind_finds_only_its_own_tasks():
    assert kinds.find_task("fifo_tb") is TASK and kinds.kind_of(TASK).name == "cocotb"
    assert kinds.get_kind("verilog").find_task("fifo_tb") is None
    assert kinds.get_kind("cocotb").find_task("sync_fifo") is None
    assert "fifo_tb" in kinds.task_slugs()


@ALL
def test_at_least_ten_mutants_each_a_sentence_and_two_public_in_the_statement(task):
    assert len(task.mutants) >= 10
    descriptions = [m.description for m in task.mutants]
    assert len(set(descriptions)) == len(descriptions)
    for d in descriptions:
        assert d.endswith(".") and "\n" not in d and 20 < len(d) < 160, d
    public = [m for m in task.mutants if m.public]
    assert len(public) == 2 and all(m.description in task.statement for m in public)
    assert [c.name for c in task.sample_cases] == ["correct design"] + [m.name for m in public]
    assert [c.name for c in task.tests["sim"]] == ["correct design"] + [m.name for m in task.mutants]


@ALL
def test_mutants_are_small_edits_that_keep_every_name_and_line(task):
    correct = task.design_source()
    reference = RTL_TASKS[task.design].reference_path.read_text()
    assert correct.startswith(reference.rsplit("endmodule", 1)[0])   # the reference, plus any shadow lines
    sources = {task.mutant_source(m) for m in task.mutants}
    assert len(sources) == len(task.mutants) and correct not in sources
    for m in task.mutants:
        text = task.mutant_source(m)
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


@ALL
def test_the_starter_and_the_reference_pass_the_static_screen_and_differ(task):
    for text in (task.starter, task.reference_testbench_path.read_text()):
        static.screen(text)
    assert "Clock(dut.clk" in task.starter and "@cocotb.test()" in task.starter
    assert len(task.starter.splitlines()) < 40
    assert len(task.reference_testbench_path.read_text()) > 2 * len(task.starter)


@ALL
@pytest.mark.skipif(not HAVE_TOOLS, reason="Icarus Verilog or cocotb is not installed")
def test_the_starter_runs_on_the_samples(task):
    r = judge(task.slug, task.starter, suite="samples")
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)


@ALL
@pytest.mark.skipif(shutil.which("verilator") is None, reason="Verilator is not installed")
def test_the_correct_design_as_simulated_passes_its_rtl_task(task):
    r = judge(task.design, task.design_source(), seed=3)
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)
