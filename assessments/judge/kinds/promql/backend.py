"""Where a rule file is tested: the run sandbox, as a small child that starts promtool's unit
tests (the only backend of this kind; a `--backend` name is ignored)."""
from __future__ import annotations

import functools
import shutil
import subprocess

from ...sandbox import GiB, MiB, Limits
from ..child_backend import ChildBackend

CHILD_FILES = ("assessments/judge/kinds/__init__.py", "assessments/judge/kinds/promql/__init__.py",
               "assessments/judge/kinds/promql/child.py", "assessments/judge/kinds/promql/exec_once.py")


class ToolMissing(RuntimeError):
    """promtool is not installed where the judge runs."""


@functools.lru_cache(maxsize=1)
def promtool() -> tuple[str, str]:
    """promtool's path and its version line (part of the check cache's key)."""
    path = shutil.which("promtool", path="/usr/bin:/bin:/usr/local/bin")
    if not path:
        raise ToolMissing("promtool is not installed (Debian's `prometheus` package: `make system-deps`)")
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolMissing(f"cannot run promtool: {exc}") from None
    return path, (out.stdout + out.stderr).strip().splitlines()[0] if (out.stdout + out.stderr).strip() else ""


class RulesBackend(ChildBackend):
    name = "cpu"
    description = "promtool"
    # A test evaluates about 500 series for two hours of minutes in well under a second; 20 s of
    # CPU is a rule that explodes (a subquery at one-second steps over days), 1.5 GiB one that
    # holds too much at once.
    limits = Limits(cpu_s=60, wall_s=120.0, op_wall_s=30.0, memory=int(1.5 * GiB), address_space=4 * GiB,
                    processes=32, file_size=64 * MiB, scratch_size=64 * MiB)
    test_cpu_s = 20
    child_module = "assessments.judge.kinds.promql.child"
    child_files = CHILD_FILES


BACKEND = RulesBackend()
