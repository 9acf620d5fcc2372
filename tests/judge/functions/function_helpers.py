"""Shared pieces of the function kinds' tests, imported by their module path (two folders'
`conftest` modules would shadow each other): the fixtures' folder, smaller copies of the tasks
(the same generators, references and checkers on shorter traces and batches), and judging."""
from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import numpy as np

from assessments.judge import judge
from gpu_tasks.base import TestCase
from gpu_tasks.functions import TASKS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "functions"

# The hidden tests' knobs at a size that judges in about a second.
SMALL = {"cache_sim": ("n", 6000), "occupancy": ("calls", 150)}


def fixtures_of(slug: str) -> Path:
    """The folder of a task's fixtures (first line `# bug: ...` or `# correct: ...`)."""
    return FIXTURES / slug


def hidden_calls(task, logic, seed: int, per_case: int) -> tuple:
    """The first `per_case` calls the generator makes for each of the task's hidden tests, seeded."""
    return tuple(a for i, c in enumerate(task.tests["cpu"])
                 for a in logic.generate(np.random.default_rng([seed, i]), c.dims)[:per_case])


def small(slug: str):
    task = TASKS[slug]
    return shorter(task, *SMALL[slug]) if slug in SMALL else task


def language_of(path: Path) -> str:
    return "cpp" if path.suffix in (".cpp", ".cc") else "python"


def judge_file(slug: str, path: Path, **options):
    options.setdefault("seed", 11)
    options.setdefault("timing", False)
    return judge(small(slug), path.read_text(), language=language_of(path), **options)


def fixture_function(path: Path, name: str):
    """The function `name` of a Python fixture, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"fixture_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def first_failure(logic, calls, answer) -> str | None:
    """The checker's message on the first call whose answer (`answer(args)`) it refuses."""
    for args in calls:
        message = logic.check(args, logic.reference(args), answer(args))
        if message:
            return message
    return None


def shorter(task, knob: str, most: int, cases=None):
    """The task with its hidden tests' `knob` at most `most` (all tests, or those named)."""
    tests = tuple(TestCase(c.name, {**c.dims, knob: min(c.dims[knob], most)}) for c in task.tests["cpu"]
                  if cases is None or c.name in cases)
    return dataclasses.replace(task, tests={"cpu": tests})


def assert_fixtures_say_what_they_are(folder: Path, wrong, openings=("# bug:", "# correct:")) -> None:
    """Each fixture's first line says whether it is right or which bug it holds; every wrong
    submission a test names is there."""
    for path in folder.glob("*.py"):
        assert path.read_text().startswith(openings), path.name
    assert set(wrong) <= {p.name for p in folder.glob("*.py")}
