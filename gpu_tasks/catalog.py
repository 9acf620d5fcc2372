"""Source texts behind the task catalog: starter code per style and the reference solutions."""
from __future__ import annotations

from pathlib import Path

from gpu_tasks.registry import get_task

_ROOT = Path(__file__).resolve().parent

# The ways a submission may write its kernels; each task has one starter per style.
STYLES = ("raw", "elementwise", "reduction", "jit", "array")


def _known(slug: str) -> str:
    return get_task(slug).slug  # KeyError naming the known tasks


def starter(slug: str, style: str) -> str:
    """The starter file of a task in one style (a skeleton to complete, never a solution)."""
    _known(slug)
    if style not in STYLES:
        raise KeyError(f"unknown style {style!r}; known styles: {', '.join(STYLES)}")
    return (_ROOT / "starters" / style / f"{slug}.py").read_text(encoding="utf-8")


def starters(slug: str) -> dict[str, str]:
    """Every style's starter of a task, in STYLES order."""
    return {style: starter(slug, style) for style in STYLES}


def reference_source(slug: str) -> str:
    """The reference solution's text, for similarity checks on submissions; never served."""
    _known(slug)
    return (_ROOT / "solutions" / f"{slug}.py").read_text(encoding="utf-8")
