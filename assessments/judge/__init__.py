"""The KernelPath judge: `judge(task_slug, source, backend="cpu", seed=None) -> Report`.

Importing this package is cheap and pulls in nothing: the child process imports its own modules
from here and must not load the task bank or the comparators, so the public names resolve lazily.
"""
from __future__ import annotations

__all__ = ["judge", "Report", "Verdict", "UnknownTask", "Limits"]

_LAZY = {
    "judge": ("engine", "judge"),
    "UnknownTask": ("engine", "UnknownTask"),
    "Report": ("report", "Report"),
    "Verdict": ("verdicts", "Verdict"),
    "Limits": ("sandbox", "Limits"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
