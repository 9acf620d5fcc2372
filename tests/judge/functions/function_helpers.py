"""Shared pieces of the function kinds' tests, imported by their module path (two folders'
`conftest` modules would shadow each other): the fixtures' folder, smaller copies of the tasks
(the same generators, references and checkers on shorter traces and batches), and judging."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from assessments.judge import judge
from gpu_tasks.base import TestCase
from gpu_tasks.functions import TASKS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "functions"

# The hidden tests' knobs at a size that judges in about a second.
SMALL = {
    "cache_sim": tuple(TestCase(c.name, {**c.dims, "n": min(c.dims["n"], 6000)})
                       for c in TASKS["cache_sim"].tests["cpu"]),
    "occupancy": tuple(TestCase(c.name, {**c.dims, "calls": min(c.dims["calls"], 150)})
                       for c in TASKS["occupancy"].tests["cpu"]),
}


def small(slug: str):
    task = TASKS[slug]
    return dataclasses.replace(task, tests={"cpu": SMALL.get(slug, task.tests["cpu"])})


def language_of(path: Path) -> str:
    return "cpp" if path.suffix in (".cpp", ".cc") else "python"


def judge_file(slug: str, path: Path, **options):
    options.setdefault("seed", 11)
    options.setdefault("timing", False)
    return judge(small(slug), path.read_text(), language=language_of(path), **options)
