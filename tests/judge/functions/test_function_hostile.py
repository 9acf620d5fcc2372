"""Hostile function submissions on the real sandbox, each with the static screen on and off:
reading the task's module and the project, writing outside the scratch, starting programs
(os.system, subprocess, os.execv, system(), a constructor at load), the network, an endless
loop, a memory bomb, a fork bomb. Each attack would spoil its answer had it worked; with the
screen off the sandbox alone must contain it. Nothing may appear outside, no secret of the
judge's environment may reach the report, and no process of the run may be left."""
from __future__ import annotations

import dataclasses

import os
import secrets
import tempfile
from pathlib import Path

import pytest

from assessments.judge import Limits
from tests.judge.functions.function_helpers import FIXTURES, judge_file

HOSTILE = FIXTURES / "hostile"
MARKERS = [Path("/tmp") / name for name in ("kp-hostile-function-marker", "kp-hostile-function-system",
                                            "kp-hostile-cpp-system", "kp-hostile-cpp-marker",
                                            "kp-hostile-cpp-ctor")]
# Short limits: an endless loop or a bomb is stopped in seconds.
LIMITS = Limits(cpu_s=20, wall_s=40.0, op_wall_s=2.5, memory=1024 ** 3, address_space=1024 ** 3,
                processes=32)
# A memory bomb must meet the memory cap, not the clock: on a busy machine filling 1 GiB can take
# longer than an endless loop is given.
BOMB_LIMITS = dataclasses.replace(LIMITS, op_wall_s=30.0)

# fixture -> (task, verdict with the screen on, verdict with it off); the C++ screen checks only
# the size and the function's name, so C++ attacks meet the sandbox either way.
CASES = {
    "read_task_module.py": ("occupancy", "security_violation", "accepted"),
    "escape_python.py": ("occupancy", "security_violation", "accepted"),
    "endless_loop.py": ("occupancy", "time_limit_exceeded", "time_limit_exceeded"),
    "memory_bomb.py": ("occupancy", "memory_limit_exceeded", "memory_limit_exceeded"),
    "system_call.cpp": ("cache_sim", "wrong_answer", "wrong_answer"),
    "load_constructor.cpp": ("cache_sim", "wrong_answer", "wrong_answer"),
    "fork_bomb.cpp": ("cache_sim", "runtime_error", "runtime_error"),
    "endless_loop.cpp": ("cache_sim", "time_limit_exceeded", "time_limit_exceeded"),
    "memory_bomb.cpp": ("cache_sim", "memory_limit_exceeded", "memory_limit_exceeded"),
}


@pytest.fixture
def secret_env(monkeypatch, tmp_path):
    token = secrets.token_hex(8)
    monkeypatch.setenv("KERNELPATH_SECRET_KEY", f"sk-{token}")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # the run's scratch lands here
    for m in MARKERS:
        m.unlink(missing_ok=True)
    yield token
    for m in MARKERS:
        m.unlink(missing_ok=True)


def _processes_of(tmp_path: Path) -> list[int]:
    """Processes whose command line names this test's scratch (the sandbox's child)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if str(tmp_path).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(int(pid))
        except OSError:
            pass
    return out


@pytest.mark.parametrize("static", [True, False], ids=["screen", "sandbox_only"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission_is_contained(name, static, secret_env, tmp_path):
    slug, on, off = CASES[name]
    limits = BOMB_LIMITS if name.startswith("memory_bomb") else LIMITS
    report = judge_file(slug, HOSTILE / name, static_checks=static, limits=limits)
    want = on if static else off
    assert report.verdict.value == want, report.render_text()
    text = report.to_json()
    assert secret_env not in text
    assert not [m for m in MARKERS if m.exists()], "a marker was written outside the scratch"
    assert not _processes_of(tmp_path)
    if name == "load_constructor.cpp":
        # the library loaded (its constructor ran) and every attempt failed: the answer's
        # first count is 0, wrong only because the function counts nothing
        assert "`hits` is 0" in report.message
        assert "PYTHONPATH" in report.stderr and "KERNELPATH_SECRET_KEY" not in report.stderr
    if name == "system_call.cpp":
        assert "`hits` is 0" in report.message
