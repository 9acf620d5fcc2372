"""Sample runs: the task's visible samples only, a public seed, never timed or scored."""
from pathlib import Path

import gpu_tasks
from assessments.judge import judge
from assessments.judge.__main__ import main

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures" / "submissions"


def test_samples_accept_a_correct_solution_without_score():
    report = judge("vector_add", gpu_tasks.reference_source("vector_add"), suite="samples")
    assert report.verdict.value == "accepted" and report.suite == "samples"
    assert [t.name for t in report.tests] == [c.name for c in gpu_tasks.TASKS["vector_add"].sample_cases]
    assert report.score == 0 and report.score_detail["samples"] is True
    assert report.timing is None and report.seed == 0
    assert "sample tests" in report.render_text()


def test_samples_show_wrong_answers_with_indices():
    report = judge("vector_add", (FIX / "vector_add" / "partial_half.py").read_text(), suite="samples")
    assert report.verdict.value == "wrong_answer"
    failing = next(t for t in report.tests if t.passed is False)
    assert failing.mismatches and failing.mismatches[0].index


def test_samples_keep_the_checking_build_and_compile_errors_mapped():
    race = judge("reduce_sum", (FIX / "reduce_sum" / "missing_syncthreads.py").read_text(), suite="samples")
    assert race.verdict.value == "race_detected"
    broken = judge("vector_add", (FIX / "vector_add" / "compile_error.py").read_text(), suite="samples")
    assert broken.verdict.value == "compile_error" and "solution.py" in (broken.compile_log or "")


def test_the_full_suite_is_the_default(capsys, tmp_path):
    source = tmp_path / "add.py"
    source.write_text("def solve(a, b, c, n):\n    c[...] = a + b\n")
    assert main(["--task", "vector_add", "--samples", str(source)]) == 0
    assert "(sample tests): ACCEPTED" in capsys.readouterr().out
    full = judge("vector_add", source.read_text())
    assert full.suite == "tests" and len(full.tests) == len(gpu_tasks.TASKS["vector_add"].tests["cpu"])
