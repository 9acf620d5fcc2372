"""bench/judge.py measures an earlier commit's judge in the same run: the baseline tree is taken
from git and really judges, and the style table prints before, cold and warm side by side."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _load_bench():
    spec = importlib.util.spec_from_file_location("kp_bench_judge_before", ROOT / "bench" / "judge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _has_commit(rev: str) -> bool:
    return subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"],
                          capture_output=True).returncode == 0


def test_an_unknown_revision_is_reported_not_raised():
    bench = _load_bench()
    runs, why = bench._judged_by_tree("0" * 40, [])
    assert runs == [] and why


@pytest.mark.slow
def test_the_baseline_judge_really_judges():
    bench = _load_bench()
    if not _has_commit(bench.BASELINE):
        pytest.skip(f"this clone lacks {bench.BASELINE} (shallow history)")
    source = (ROOT / "tests" / "fixtures" / "submissions" / "vector_add" / "array.py").read_text()
    wrong = (ROOT / "tests" / "fixtures" / "submissions" / "vector_add" / "partial_half.py").read_text()
    runs, why = bench._judged_by_tree(bench.BASELINE, [
        {"key": "right", "task": "vector_add", "source": source, "repeats": 2, "warmup": 0,
         "listings": False},
        {"key": "wrong", "task": "vector_add", "source": wrong, "repeats": 1, "warmup": 0,
         "listings": False}])
    assert why == ""
    assert [(r["key"], r["verdict"]) for r in runs] == [
        ("right", "accepted"), ("right", "accepted"), ("wrong", "wrong_answer")]
    assert all(r["seconds"] > 0 for r in runs)
