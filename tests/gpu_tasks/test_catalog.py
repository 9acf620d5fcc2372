"""What the task catalog serves: summaries, argument shapes, visible samples, skills, sources."""
import ast
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

import gpu_tasks
from gpu_tasks import STYLES, reference_source, starter, starters

ROOT = Path(gpu_tasks.__file__).resolve().parent
TAXONOMY = ROOT.parent / "skillmap" / "data" / "taxonomy.toml"
ALL = [t.slug for t in gpu_tasks.all_tasks()]
# gpu_tasks is loaded by the judge's parent and the web service alike: numpy and the stdlib only.
FORBIDDEN_IMPORTS = {"assessments", "skillmap", "flask", "flask_smorest", "sqlalchemy", "web", "accounts",
                     "jobdata", "cupy", "cupyx"}


def _elements(task, dims) -> int:
    return task.cost(dims)[0] // 4


def _dims_and_scalars(task, dims, inputs) -> dict:
    return {**dims, **{a.name: inputs[a.name] for a in task.scalars}}


def test_styles_and_lookup_errors():
    assert STYLES == ("raw", "elementwise", "reduction", "jit", "array")
    with pytest.raises(KeyError, match="vector_add"):
        starter("no_such_task", "raw")
    with pytest.raises(KeyError, match="elementwise"):
        starter("vector_add", "cuda")
    with pytest.raises(KeyError, match="vector_add"):
        reference_source("no_such_task")


def test_every_style_folder_holds_exactly_one_starter_per_task():
    for style in STYLES:
        assert sorted(p.stem for p in (ROOT / "starters" / style).glob("*.py")) == sorted(ALL), style
    assert sorted(p.name for p in (ROOT / "starters").iterdir() if not p.name.startswith("__")) == sorted(STYLES)


@pytest.mark.parametrize("slug", ALL)
def test_starters_and_reference_source_are_the_files(slug):
    assert starters(slug) == {s: (ROOT / "starters" / s / f"{slug}.py").read_text() for s in STYLES}
    assert list(starters(slug)) == list(STYLES)
    assert reference_source(slug) == (ROOT / "solutions" / f"{slug}.py").read_text()


@pytest.mark.parametrize("slug", ALL)
def test_summary_is_one_short_plain_line(slug):
    summary = gpu_tasks.get_task(slug).summary
    assert summary and len(summary) < 120 and "\n" not in summary
    assert summary[0].isupper() and summary.endswith(".") and "`" not in summary


@pytest.mark.parametrize("slug", ALL)
def test_argument_shapes_follow_the_statement_and_the_generator(slug):
    task = gpu_tasks.get_task(slug)
    for arg in task.args:
        if arg.role == "scalar":
            assert arg.shape == "", arg
        else:
            assert arg.shape.startswith("(") and arg.shape.endswith(")"), arg
            assert f"`{arg.shape}`" in task.statement, arg  # the statement's table says the same
    for case in task.sample_cases + task.cases("cpu")[:3]:
        inputs = task.generate(np.random.default_rng(0), case.dims)
        names = _dims_and_scalars(task, case.dims, inputs)
        for arg in task.inputs + task.outputs:
            want = eval(arg.shape, {"__builtins__": {}}, names)  # noqa: S307 (our own literals)
            assert inputs[arg.name].shape == want, (case.name, arg)


@pytest.mark.parametrize("slug", ALL)
def test_two_or_three_small_samples(slug):
    task = gpu_tasks.get_task(slug)
    samples = task.samples
    assert 2 <= len(samples) <= 3 and task.sample_cases == samples
    assert len({c.name for c in samples}) == len(samples)
    largest_cpu = max(_elements(task, c.dims) for c in task.cases("cpu"))
    for case in samples:
        assert set(case.dims) == set(task.bench["cpu"]), case
        assert _elements(task, case.dims) <= min(4096, largest_cpu - 1), case
        inputs = task.generate(np.random.default_rng(1), case.dims)
        ref = task.reference(inputs)
        assert all(np.isfinite(v).all() for v in ref.values())
    # More than a single element, and one size off the powers of two, as the real tests are.
    sizes = [v for c in samples for v in c.dims.values()]
    assert any(v > 2 and v & (v - 1) for v in sizes)
    assert all(math.prod(c.dims.values()) > 1 for c in samples)


def test_every_skill_is_in_the_taxonomy():
    with TAXONOMY.open("rb") as f:
        ids = {s["id"] for s in tomllib.load(f)["skill"]}
    unknown = {t.slug: sorted(set(t.skills) - ids) for t in gpu_tasks.all_tasks() if set(t.skills) - ids}
    assert not unknown


def test_task_modules_import_only_numpy_and_the_stdlib():
    for path in sorted(ROOT.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                tops = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not tops & FORBIDDEN_IMPORTS, (path.name, tops)
