"""The task catalog as candidates see it: the task bank without its references or hidden tests."""
from __future__ import annotations

from functools import lru_cache

import gpu_tasks
from gpu_tasks import bank
from skillmap.taxonomy import TRACKS, load_taxonomy


class UnknownTask(LookupError):
    def __init__(self, slug: str):
        super().__init__(f"no task named {slug!r}")
        self.slug = slug


def task_or_error(slug: str):
    task = bank.find(slug)
    if task is None:
        raise UnknownTask(slug)
    return task


def runs_on_gpu(task) -> bool:
    """Whether the task's submissions run where a backend's GPU (or its emulator) is: CuPy tasks.
    Designs and testbenches simulate on any grading worker (the cpu queue)."""
    return bank.kind_of(task) == "cupy"


def _skill(skill_id: str) -> dict:
    tax = load_taxonomy()
    skill = tax.skills.get(skill_id)
    return {"id": skill_id, "name": skill.name if skill else skill_id,
            "category": skill.category if skill else None}


track_of = bank.track_of


def _tracks(task) -> list[str]:
    """The tracks a task is evidence for: its own first, then those its skills weigh at 0.5 or
    more, strongest first."""
    tax = load_taxonomy()
    totals = dict.fromkeys(TRACKS, 0.0)
    for sid in task.skills:
        if sid in tax.skills:
            for track, weight in tax.skills[sid].weights.items():
                totals[track] = max(totals[track], weight)
    own = track_of(task)
    return [own] + [t for t in sorted(TRACKS, key=lambda t: -totals[t]) if totals[t] >= 0.5 and t != own]


def _dims(dims: dict) -> dict:
    return {k: int(v) if isinstance(v, int) else v for k, v in dims.items()}


def summary(task) -> dict:
    return {
        "slug": task.slug,
        "title": task.title,
        "difficulty": task.difficulty,
        "summary": getattr(task, "summary", "") or task.title,
        "skills": [_skill(s) for s in task.skills],
        "tracks": _tracks(task),
        "kind": bank.kind_of(task),
        "kind_label": bank.KIND_LABELS.get(bank.kind_of(task), bank.kind_of(task)),
        "judged": bank.HOW_JUDGED.get(bank.kind_of(task), "in the sandbox"),
        "language": bank.languages_of(task)[0],
        "languages": list(bank.languages_of(task)),
    }


@lru_cache(maxsize=None)
def _starters(slug: str) -> dict:
    return bank.starters_of(bank.find(slug))


def _ports(task) -> list[dict]:
    from gpu_tasks.rtl.starter import range_of
    return [{"name": p.name, "direction": p.direction, "width": p.width, "range": range_of(p.width),
             "note": p.note} for p in task.ports]


def _common(task, check: str) -> dict:
    """What every kind's detail has: the summary, statement, cases and starters."""
    starters = dict(_starters(task.slug))
    return {
        **summary(task),
        "statement": task.statement,
        "args": [], "check": check, "tolerance": {}, "benchmark": {},
        "samples": [{"name": c.name, "sizes": _dims(c.dims)} for c in task.sample_cases],
        "tests": {backend: len(cases) for backend, cases in task.tests.items()},
        "styles": list(starters),
        "starters": starters,
    }


def _module(design) -> dict:
    """A design's module: its header, name, clock and ports."""
    from gpu_tasks.rtl.starter import module_header
    return {"signature": module_header(design), "module": design.module, "clock": design.clock,
            "ports": _ports(design)}


def _design_detail(task) -> dict:
    """A hardware-design task: its module's header, ports and parameters, simulated cases."""
    return {**_common(task, "cycle-accurate simulation against a reference model, then synthesis"),
            **_module(task), "parameters": dict(task.defaults),
            "synthesized": dict(task.synth_params)}


def _testbench_detail(task) -> dict:
    """A verification task: the design under test's header and ports (never its code)."""
    return {**_common(task, "your tests run against the correct design and hidden mutants"),
            **_module(task.rtl), "parameters": dict(task.params)}


def _function_detail(task) -> dict:
    """A function task (Python, some in C++ too): its signatures per language."""
    signatures = {lang: task.signature(lang) for lang in task.languages}
    return {**_common(task, "hidden randomized inputs against a reference"),
            "signature": task.python_signature, "signatures": signatures, "function": task.function}


def _rules_detail(task) -> dict:
    """A rules task: a Prometheus rule file checked by promtool on hidden series."""
    return {**_common(task, "promtool test rules against hidden series"),
            "signature": "a Prometheus rule file (YAML)"}


DETAILS = {"verilog": _design_detail, "cocotb": _testbench_detail, "python": _function_detail,
           "promql": _rules_detail}


def detail(task) -> dict:
    """Everything a candidate needs to solve the task; never the reference or the hidden seeds."""
    other = DETAILS.get(bank.kind_of(task))
    if other is not None:
        return other(task)
    return {   # a CuPy task
        **_common(task, task.check),
        "signature": task.signature,
        "args": [{"name": a.name, "role": a.role, "dtype": a.dtype,
                  "shape": getattr(a, "shape", "") or None} for a in task.args],
        "tolerance": dict(task.tolerance),
        "benchmark": _dims(task.bench.get("cuda") or {}),
        "styles": list(gpu_tasks.STYLES),
    }


def all_summaries() -> list[dict]:
    return [summary(t) for t in bank.all_tasks()]


def tasks_noun(slugs) -> str:
    """"3 GPU coding tasks", "1 Verilog design task", or "2 hands-on tasks" for a mix of kinds."""
    kinds = {bank.kind_of(t) for t in map(bank.find, slugs) if t is not None}
    noun = {frozenset({"cupy"}): "GPU coding task", frozenset({"verilog"}): "Verilog design task",
            frozenset({"cocotb"}): "testbench task"}.get(frozenset(kinds), "hands-on task")
    return f"{len(slugs)} {noun}{'s' if len(slugs) != 1 else ''}"


def tasks_for_skills(skill_ids: list[str], limit: int = 3, track: str | None = None) -> list[str]:
    """Up to `limit` tasks: a greedy cover of the wanted skills (the task adding the most
    uncovered skills, harder first on ties), among the tasks written for `track` first (a
    cluster-operations job is not assessed with a Verilog task because both ask for Python),
    then among the rest."""
    every = bank.all_tasks()
    if track is None:
        return _cover(skill_ids, every, limit)
    chosen = _cover(skill_ids, [t for t in every if track_of(t) == track], limit)
    rest = [t for t in every if t.slug not in chosen and track_of(t) != track]
    covered = {s for t in chosen for s in bank.find(t).skills}
    return chosen + _cover([s for s in skill_ids if s not in covered], rest, limit - len(chosen))


def _cover(skill_ids: list[str], pool: list, limit: int) -> list[str]:
    wanted = set(skill_ids)
    uncovered, chosen = set(wanted), []
    pool = list(pool)
    while pool and len(chosen) < limit:
        best = max(pool, key=lambda t: (len(uncovered & set(t.skills)), len(wanted & set(t.skills)),
                                        bank.DIFFICULTY_ORDER.get(t.difficulty, 0)))
        if not wanted & set(best.skills):
            break
        chosen.append(best.slug)
        uncovered -= set(best.skills)
        pool.remove(best)
    return chosen
