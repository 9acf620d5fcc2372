"""Testbenches judged end to end (kind `cocotb`): Icarus Verilog compiles the correct design and
its mutants in the compile sandbox, each runs the testbench in a sandbox of its own; a testbench
is accepted when it passes on the correct design and earns points for the mutants it catches."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from assessments.judge import Verdict, judge
from tb_stage import FIXTURES, HAVE_TOOLS, REFERENCE, ROOT, fixture, judged
from gpu_tasks.testbench import TASKS

pytestmark = pytest.mark.skipif(not HAVE_TOOLS, reason="Icarus Verilog or cocotb is not installed")
TASK = TASKS["fifo_tb"]


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}\n{r.stderr[-2000:]}"


def test_the_reference_testbench_catches_every_mutant(reference_report):
    r = reference_report
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert r.sandbox == "bubblewrap"
    assert [t.name for t in r.tests] == ["correct design"] + [f"mutant {i}" for i in range(1, 13)]
    assert all(t.passed for t in r.tests)
    assert len(r.mutants) == len(TASK.mutants) >= 10
    assert all(m["caught"] and m["test"] for m in r.mutants), r.mutants
    assert [m["description"] for m in r.mutants] == [m.description for m in TASK.mutants]
    assert r.score == 100 and r.score_detail["mutants_caught"] == 12
    assert "12 of 12 mutants caught" in r.message


def test_the_report_describes_mutants_in_words_never_their_code(reference_report):
    shown = reference_report.to_json(candidate_view=True) + reference_report.render_text()
    for m in TASK.mutants:
        for _, new in m.edits:
            assert new.strip() not in shown, new
    for word in ("assign ", "always @", "dout_q", "mutants.toml", str(ROOT)):
        assert word not in shown, word
    text = reference_report.render_text()
    assert "Mutants: 12 of 12 caught" in text and "caught  mutant 7" in text
    assert "test `fill_past_full_then_drain_past_empty`" in text


def test_a_testbench_that_only_checks_reset_catches_little(reset_only_report):
    r = reset_only_report
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    caught = [m for m in r.mutants if m["caught"]]
    assert len(caught) <= 2
    assert r.score == pytest.approx(60 + 40 * len(caught) / 12, abs=0.01)
    assert r.score_detail["performance"] == pytest.approx(40 * len(caught) / 12, abs=0.01)
    missed = [t for t in r.tests[1:] if t.message.startswith("not caught")]
    assert len(missed) == 12 - len(caught)
    assert "missed  mutant" in r.render_text()


def test_a_wrong_expectation_fails_on_the_correct_design_naming_test_and_assertion():
    r = judged(fixture("wrong_expectation.py"))
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.startswith("on the correct design, test `full_after_seven_writes` fails: AssertionError: "
                                "full should be high with 7 entries stored")
    assert "wrong_expectation" not in r.message and "testbench.py" in (r.details or "")
    assert r.tests[0].passed is False and r.tests[0].message == r.message
    assert all(t.passed is None for t in r.tests[1:])   # no mutant runs against a wrong testbench
    assert r.mutants is None and r.score == 0


@pytest.mark.parametrize("name,line,verdict_words", [
    ("syntax_error.py", 5, "line 5: expected ':'"),
    ("import_error.py", 3, "the testbench does not import: line 3: ImportError: cannot import name "
                           "'EdgeThatDoesNotExist'"),
    ("no_tests.py", None, "the testbench defines no test"),
])
def test_a_testbench_that_does_not_load_is_a_compile_error_with_the_line(name, line, verdict_words):
    r = judged(fixture(name))
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert r.message.startswith(verdict_words), r.message
    assert r.score == 0 and r.mutants is None


def test_a_syntax_error_is_found_with_the_static_checks_off_too():
    r = judged(fixture("syntax_error.py"), static_checks=False)
    assert r.verdict is Verdict.COMPILE_ERROR and r.message.startswith("line 5:")
    assert r.sandbox is None   # refused before any simulation


def test_samples_run_the_correct_design_and_the_two_public_mutants():
    r = judged(REFERENCE.read_text(), suite="samples")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert [t.name for t in r.tests] == ["correct design", "mutant 1", "mutant 2"]
    assert [m["public"] for m in r.mutants] == [True, True] and all(m["caught"] for m in r.mutants)
    for m in r.mutants:
        assert m["description"] in TASK.statement
    assert r.score == 0 and r.score_detail["samples"] is True
    assert "submit to be judged against every hidden mutant" in r.message


def test_a_testbench_that_hangs_only_on_a_mutant_catches_it_within_its_time():
    r = judged(fixture("hang_on_mutant.py"), suite="samples")
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    first, second = r.mutants
    assert first["caught"] and first["test"] is None and "ran past its time" in first["how"]
    assert not second["caught"]


def test_cocotb_random_seed_comes_from_the_judging_seed_without_telling_it():
    r = judged(fixture("reset_only.py"), suite="samples", seed=918273645546372819)
    seed = re.search(r"Seeding Python random module with (\d+)", r.stdout)
    assert seed and int(seed.group(1)) != r.seed
    assert str(r.seed) not in r.stdout + r.stderr


def test_the_cli_judges_a_testbench_by_the_task_and_writes_json(tmp_path):
    out = tmp_path / "out.json"
    tb = tmp_path / "tb.py"
    tb.write_text(fixture("reset_only.py"))
    done = subprocess.run([sys.executable, "-m", "assessments.judge", "--task", "fifo_tb", "--samples",
                           "--json", str(out), str(tb)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["verdict"] == "accepted" and report["task"] == "fifo_tb" and len(report["mutants"]) == 2
    wrong = subprocess.run([sys.executable, "-m", "assessments.judge", "--task", "fifo_tb",
                            str(FIXTURES / "syntax_error.py").replace(".py", ".v")], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "fifo_tb takes a .py file" in wrong.stderr


def test_a_bare_assert_fails_with_the_values_it_compared():
    r = judged(fixture("bare_assert.py"), suite="samples")
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert "test `one_write_counts_two` fails: AssertionError: assert 1 == 2" in r.message


def test_a_simulation_that_ends_before_its_test_is_a_wrong_answer_saying_so():
    r = judged(fixture("no_clock.py"), suite="samples")
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert "test `waits_for_a_clock_nobody_started` fails: SimFailure" in r.message
    assert "the simulation ended prematurely" in r.message


def test_the_correct_designs_log_reaches_the_report_to_its_last_line(reference_report):
    # The simulator ends without the interpreter's teardown once the results are written: what
    # was printed until then is flushed first.
    assert "TESTS=4 PASS=4 FAIL=0 SKIP=0" in reference_report.stdout


def test_the_arbiters_reference_testbench_catches_every_mutant_and_a_starter_catches_few():
    task = TASKS["arbiter_tb"]
    r = judge("arbiter_tb", task.reference_testbench_path.read_text(), seed=5)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert len(r.mutants) == len(task.mutants) and all(m["caught"] for m in r.mutants), r.mutants
    assert r.score == 100
    starter = judge("arbiter_tb", task.starter, seed=5)
    assert starter.verdict is Verdict.ACCEPTED and starter.score < 80, starter.mutants
