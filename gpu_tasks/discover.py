"""How a task package finds its tasks: each of its modules (but the helpers it names) gives
`TASK`, one task named like the module, or `TASKS`, several."""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def tasks_in(package: str, path, helpers: set[str] = frozenset()) -> dict:
    """Slug -> task, over the modules of `package` (its `__name__` and `__path__`)."""
    found: dict = {}
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.name in helpers or info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        one = getattr(module, "TASK", None)
        if one is not None and one.slug != info.name:
            raise ValueError(f"{package}.{info.name} holds task {one.slug!r}: a task's module is "
                             "named by its slug")
        for task in ((one,) if one is not None else getattr(module, "TASKS", ())):
            if task.slug in found:
                raise ValueError(f"two tasks are called {task.slug!r} in {package}")
            found[task.slug] = task
    return found


def logic_of(package: str, tasks: dict, slug: str) -> ModuleType:
    """A task's trusted module (its generator, reference, checks): never served."""
    if slug not in tasks:
        raise KeyError(slug)
    return importlib.import_module(f"{package}.{slug}")
