"""CLI contract: exit codes, stderr on usage errors, JSON keys."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "assessments.judge", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_unknown_task_exits_2(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("def solve(a):\n    pass\n")
    p = _cli("--task", "no_such_task", "--backend", "cpu", f)
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "no_such_task" in p.stderr


def test_missing_file_exits_2(tmp_path):
    p = _cli("--task", "vector_add", "--backend", "cpu", tmp_path / "missing.py")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "cannot read" in p.stderr


def test_verdicts_exit_0_with_json(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("import os\ndef solve(a, b, c, n):\n    pass\n")
    p = _cli("--task", "vector_add", "--backend", "cpu", "--json", f)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("task", "backend", "verdict", "message", "tests", "kernels", "timing", "score"):
        assert key in d
    assert d["verdict"] == "security_violation" and d["timing"] is None and d["score"] == 0


def test_text_report(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("def solve(a, b, c):\n    pass\n")
    p = _cli("--task", "vector_add", "--backend", "cpu", f)
    assert p.returncode == 0
    assert "RUNTIME ERROR" in p.stdout and "solve(a, b, c, n)" in p.stdout


def test_judge_is_importable_without_the_web_stack():
    code = ("import sys\n"
            "for m in ('flask', 'sqlalchemy', 'spacy', 'flask_sqlalchemy', 'celery'):\n"
            "    sys.modules[m] = None\n"
            "from assessments.judge import judge, Verdict\n"
            "import assessments.judge.__main__\n"
            "r = judge('vector_add', 'import os\\ndef solve(a, b, c, n):\\n    pass\\n')\n"
            "assert r.verdict is Verdict.SECURITY_VIOLATION\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def test_child_imports_no_task_bank_or_comparators():
    code = ("import sys, assessments.judge.kinds.cupy.child\n"
            "bad = [m for m in sys.modules if m.startswith(('gpu_tasks', 'assessments.judge.kinds.cupy.comparators',\n"
            "       'assessments.judge.kinds.cupy.compare', 'assessments.judge.engine', 'assessments.judge.kinds.cupy.timing',\n"
            "       'assessments.judge.kinds.cupy.backends.base', 'cupy'))]\n"
            "assert not bad, bad\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
