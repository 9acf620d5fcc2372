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


# -- samples declared for the test, on either task bank ---------------------------------------

def _with_samples(slug: str, *specs):
    """The task with these sample tests (Task.samples)."""
    import dataclasses

    from gpu_tasks.base import cases
    return dataclasses.replace(gpu_tasks.get_task(slug), samples=cases(*specs))


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


def test_declared_samples_are_run_unscored_with_a_public_seed():
    import json

    from assessments.judge.report import JSON_VERSION
    task = _with_samples("vector_add", ("one", {"n": 1}), ("some", {"n": 257}))
    r = judge(task, gpu_tasks.reference_source("vector_add"), backend="cpu", suite="samples")
    assert r.verdict.value == "accepted", _describe(r)
    assert [t.name for t in r.tests] == ["one", "some"] and all(t.passed for t in r.tests)
    assert r.score == 0.0 and r.score_detail["counted"] is False and r.timing is None
    text = r.render_text()
    assert "(sample tests): ACCEPTED" in text and "Not scored" in text and "Score " not in text
    d = r.to_dict(candidate_view=True)
    assert d["suite"] == "samples" and d["seed"] == 0 and d["version"] == JSON_VERSION == 2
    json.dumps(d)


def test_sample_inputs_are_fixed_by_the_seed():
    task = _with_samples("vector_add", ("some", {"n": 257}))
    src = (FIX / "vector_add" / "all_zeros.py").read_text()
    a, b = (judge(task, src, suite="samples") for _ in range(2))
    c = judge(task, src, suite="samples", seed=5)
    first = [(m.index, m.expected) for m in a.tests[0].mismatches]
    assert first and first == [(m.index, m.expected) for m in b.tests[0].mismatches]
    assert first != [(m.index, m.expected) for m in c.tests[0].mismatches] and c.seed == 5


def test_compile_error_is_mapped_to_its_line():
    task = _with_samples("vector_add", ("some", {"n": 257}))
    r = judge(task, (FIX / "vector_add" / "compile_error.py").read_text(), suite="samples")
    assert r.verdict.value == "compile_error", _describe(r)
    assert "solution.py:7" in (r.compile_log or "") + r.message, _describe(r)


def test_samples_check_bounds():
    # A missing bounds check at n=31 with 256 threads: the emulator's bounds check must see it.
    task = _with_samples("vector_add", ("small", {"n": 31}))
    r = judge(task, (FIX / "vector_add" / "missing_bounds_check.py").read_text(), suite="samples")
    assert r.verdict.value == "memory_error", _describe(r)


def test_unknown_suite_is_a_caller_error():
    import pytest
    with pytest.raises(ValueError, match="suite"):
        judge("vector_add", "def solve(a, b, c, n): pass\n", suite="hidden")


def test_a_graded_report_hides_its_seed_from_the_candidate():
    r = judge("vector_add", gpu_tasks.reference_source("vector_add"), seed=3)
    assert r.suite == "tests" and r.score > 60.0 and r.score_detail["estimated"]
    assert "seed" not in r.to_dict(candidate_view=True) and r.to_dict()["seed"] == 3
