"""Every task of every kind, by slug: CuPy kernels (registry.py), hardware designs (rtl/) and
testbenches (testbench/). Pages, the API, matching and roadmaps read the bank through here; the
judge finds each kind's tasks through that kind."""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module

# Each package gives TASKS (slug -> task); a task's `kind` says how it is judged (default cupy).
_PACKAGES = ("gpu_tasks.registry", "gpu_tasks.rtl", "gpu_tasks.testbench", "gpu_tasks.functions",
             "gpu_tasks.alerts")
KIND_LABELS = {"cupy": "CuPy kernel", "verilog": "Verilog design", "cocotb": "cocotb testbench",
               "python": "Function", "promql": "Prometheus rules"}
# How a submission of each kind is judged, as its report page says it.
HOW_JUDGED = {"verilog": "simulated (Verilator) and synthesized (Yosys)",
              "cocotb": "simulated (Icarus Verilog) against the design and its mutants",
              "python": "called on hidden inputs in the sandbox",
              "promql": "unit-tested by promtool on hidden series"}
# What the editor highlights, per kind (a task taking several languages lists its own).
LANGUAGES = {"cupy": "python", "verilog": "verilog", "cocotb": "python", "python": "python",
             "promql": "yaml"}


@lru_cache(maxsize=1)
def tasks() -> dict:
    found: dict = {}
    for name in _PACKAGES:
        try:
            module = import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:    # a package that exists but fails to import is a bug
                raise
            continue
        for slug, task in module.TASKS.items():
            if slug in found:
                raise ValueError(f"two tasks are called {slug!r}")
            found[slug] = task
    return found


def all_tasks() -> list:
    return list(tasks().values())


def find(slug: str):
    """The task called `slug`, or None."""
    return tasks().get(slug)


# The taxonomy's tracks (tests/gpu_tasks/test_bank.py holds them equal): the bank imports only
# numpy and the standard library.
TRACKS = ("infrastructure", "hardware_design", "architecture_modeling", "software_optimization")
DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}   # easiest first where tasks are listed


def track_of(task) -> str:
    """The track a task is written for: its own `track`, or software optimization (CuPy)."""
    declared = (getattr(task, "track", None) or "software_optimization").replace(" ", "_")
    return declared if declared in TRACKS else "software_optimization"


def kind_of(task) -> str:
    return getattr(task, "kind", None) or "cupy"


def languages_of(task) -> tuple[str, ...]:
    """What a submission of this task may be written in, the default first."""
    return tuple(getattr(task, "languages", None) or (LANGUAGES.get(kind_of(task), "python"),))


def starters_of(task) -> dict[str, str]:
    """The files a candidate starts from, by style (CuPy) or by the kind's one language."""
    kind = kind_of(task)
    if kind == "cupy":
        from gpu_tasks.catalog import starters
        return starters(task.slug)
    if kind == "verilog":
        from gpu_tasks.rtl.starter import module_skeleton
        return {"verilog": module_skeleton(task)}
    if kind == "cocotb":
        return {kind: task.starter}
    return dict(task.starters)     # per language (python, cpp) or format (yaml)
