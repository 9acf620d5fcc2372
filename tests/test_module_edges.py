"""Edges between modules that keep layers apart: the refusals every layer raises import nothing
of the project, and predicting a track never depends on the code that trains the model."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("accounts", "assessments", "candidates", "jobdata", "skillmap", "web", "gpu_tasks", "app",
           "extensions", "settings")


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
    return names


def test_the_refusals_import_nothing_of_the_project_and_live_outside_skillmap():
    assert not {n for n in _imported(ROOT / "refusals.py") if n.split(".")[0] in PROJECT}
    assert not (ROOT / "skillmap" / "errors.py").exists()
    # tests/fixtures holds candidates' files (some broken on purpose), not the project's code
    users = [p for p in ROOT.rglob("*.py") if not {".venv", "node_modules", "fixtures"} & set(p.parts)
             and any(n == "skillmap.errors" or n == ".errors" for n in _imported(p))
             and "judge" not in p.parts]
    assert users == [], users


def test_the_track_model_predicts_without_the_training_code():
    assert not {n for n in _imported(ROOT / "skillmap" / "track_model.py")
                if "classify" in n or "shipped_model" in n or n.startswith("sklearn")}
    code = ("import sys, skillmap.track_model; "
            "print(sorted(m for m in ('sklearn', 'skillmap.classify', 'skillmap.shipped_model') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _project_files(top: str):
    return [p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts]


def test_the_candidates_path_sits_above_assessments_and_nothing_below_imports_it():
    # candidates/ builds on assessments (verified skills come from graded work), jobdata and
    # skillmap; only the application factory registers it.
    below = ("accounts", "assessments", "jobdata", "skillmap", "web", "gpu_tasks")
    for top in below:
        for path in _project_files(top):
            assert not any(n.split(".")[0] == "candidates" for n in _imported(path)), path
    allowed = {"accounts", "assessments", "jobdata", "skillmap", "web", "gpu_tasks", "refusals",
               "extensions", "settings"}
    for path in _project_files("candidates"):
        project = {n.split(".")[0] for n in _imported(path) if n.split(".")[0] in PROJECT}
        assert project <= allowed, (path, project - allowed)
    assert any(n.startswith("candidates") for n in _imported(ROOT / "app.py"))
