"""Function submissions judged end to end in the sandbox (kinds python and cpp): the fixtures'
verdicts and messages, the starters, samples, performance figures, and the CLI's choice of kind
by the file's extension. The tasks' tests are shortened (function_helpers.SMALL); a C++ build is made
once per machine and then found in the build cache."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assessments.judge import judge
from tests.judge.functions.function_helpers import FIXTURES, judge_file, small

ROOT = FIXTURES.parents[2]

# fixture -> (verdict, words the message holds)
EXPECTED = {
    ("cache_sim", "accepted_lists.py"): ("accepted", "tests passed"),
    ("cache_sim", "accepted_ages.cpp"): ("accepted", "tests passed"),
    ("cache_sim", "lru_updated_on_fill_only.py"): ("wrong_answer", "FIFO replacement"),
    ("cache_sim", "writeback_on_every_eviction.py"): ("wrong_answer", "every eviction is counted as a writeback"),
    ("cache_sim", "final_flush_counted.py"): ("wrong_answer", "no final flush"),
    ("cache_sim", "signed_addresses.cpp"): ("wrong_answer", "expected"),
    ("cache_sim", "compile_error.cpp"): ("compile_error", "solution.cpp:8"),
    ("cache_sim", "mangled_name.cpp"): ("compile_error", 'extern "C"'),
    ("cache_sim", "raises.py"): ("runtime_error", "IndexError"),
    ("occupancy", "accepted_table.py"): ("accepted", "tests passed"),
    ("occupancy", "no_reservation.py"): ("wrong_answer", "reserved for every block"),
    ("occupancy", "per_thread_registers.py"): ("wrong_answer", "registers"),
    ("occupancy", "tie_order.py"): ("wrong_answer", "a tie goes to the first"),
}


@pytest.mark.parametrize("slug, name", sorted(EXPECTED))
def test_fixture_gets_its_verdict(slug, name):
    verdict, words = EXPECTED[(slug, name)]
    report = judge_file(slug, FIXTURES / slug / name)
    assert report.verdict.value == verdict, report.render_text()
    assert words in report.message, report.message
    if verdict == "wrong_answer":
        failed = [t for t in report.tests if t.passed is False]
        assert len(failed) == 1 and failed[0].message == report.message
        assert "Inputs:" in report.details and "Expected:" in report.details and "Got:" in report.details
    if verdict == "accepted":
        assert report.score == 60 and all(t.passed for t in report.tests)


def test_a_wrong_trace_is_shown_trimmed():
    report = judge_file("cache_sim", FIXTURES / "cache_sim" / "final_flush_counted.py")
    inputs = report.details.splitlines()[1]
    assert "accesses" in inputs and "more)" in inputs and len(inputs) < 600
    assert inputs.count("0x") == 8


def test_a_runtime_error_shows_the_submissions_frames_only():
    report = judge_file("cache_sim", FIXTURES / "cache_sim" / "raises.py")
    assert "(solution.py, line 3, in find)" in report.message
    assert 'File "solution.py", line 9, in simulate' in report.details
    assert "assessments" not in report.details and "child.py" not in report.details


def test_a_compile_error_carries_gpps_log():
    report = judge_file("cache_sim", FIXTURES / "cache_sim" / "compile_error.cpp")
    assert report.message.startswith("compile error: solution.cpp:8:") and "expected" in report.message
    assert "solution.cpp" in report.compile_log


@pytest.mark.parametrize("slug, language", [("cache_sim", "python"), ("cache_sim", "cpp"), ("occupancy", "python")])
def test_a_starter_runs_and_is_wrong(slug, language):
    task = small(slug)
    report = judge(task, task.starters[language], seed=2, language=language, timing=False)
    assert report.verdict.value == "wrong_answer", report.render_text()


def test_samples_are_judged_with_a_public_seed_and_not_scored():
    path = FIXTURES / "cache_sim" / "accepted_lists.py"
    report = judge_file("cache_sim", path, suite="samples", seed=None)
    assert report.verdict.value == "accepted" and report.seed == 0 and report.score == 0
    assert [t.name for t in report.tests] == ["sample_lru", "sample_fifo"] and report.measure is None


@pytest.mark.parametrize("name", ["accepted_lists.py", "accepted_ages.cpp"])
def test_an_accepted_function_is_timed_against_the_reference(name):
    report = judge_file("cache_sim", FIXTURES / "cache_sim" / name, timing=True)
    m = report.measure
    assert report.verdict.value == "accepted" and m["test"] == "large_lru"
    assert m["reference"] == ("cpp" if name.endswith(".cpp") else "python")
    assert m["seconds"] > 0 and m["reference_seconds"] > 0 and 0 <= m["fraction"] <= 1
    assert report.score_detail["measured"] and 60 <= report.score <= 100
    assert "Performance:" in report.render_text() and "reference" in report.render_text()


def test_a_task_in_one_language_refuses_another():
    with pytest.raises(ValueError, match="takes python"):
        judge(small("occupancy"), "int x;", language="cpp")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "assessments.judge", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_cli_tells_the_language_from_the_extension(tmp_path):
    src = tmp_path / "mine.cc"
    src.write_text((FIXTURES / "cache_sim" / "compile_error.cpp").read_text())
    r = _cli("--task", "cache_sim", "--json", "--no-timing", "--samples", str(src))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["verdict"] == "compile_error"
    wrong = tmp_path / "mine.cpp"
    wrong.write_text("int x;")
    r = _cli("--task", "occupancy", "--json", str(wrong))
    assert r.returncode == 2 and "occupancy takes a .py file, not" in r.stderr
    rules = tmp_path / "rules.yml"
    rules.write_text("groups: []\n")
    r = _cli("--task", "cache_sim", str(rules))
    assert r.returncode == 2 and ".py or .cpp or .cc" in r.stderr


def test_the_cpp_reference_agrees_with_the_python_reference():
    """The tests' answers come from the C++ reference: on every hidden test's knobs (shorter
    traces) and several seeds it answers as the Python reference does."""
    from types import SimpleNamespace

    import numpy as np

    from assessments.judge import Limits
    from assessments.judge.build_cache import BuildCache
    from assessments.judge.kinds.cpp.reference import CppReference
    from gpu_tasks.functions import TASKS, cache_sim

    task = TASKS["cache_sim"]
    run = SimpleNamespace(logic=cache_sim, task=task, cache=BuildCache(), limits=Limits(),
                          isolation="bubblewrap")
    cpp = CppReference(run)
    for i, case in enumerate(task.tests["cpu"] + task.samples):
        for seed in range(3):
            dims = {**case.dims, "n": min(case.dims["n"], 40_000)}
            args = cache_sim.generate(np.random.default_rng([seed, i]), dims)[0]
            assert cpp.answer(args) == cache_sim.reference(args), (case.name, seed)
