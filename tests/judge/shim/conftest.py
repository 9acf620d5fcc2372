"""Run snippets against the CPU stand-in for `cupy` in a fresh interpreter.

The stand-in is imported the way the judge's child imports it (its directory first on
sys.path), never in the test process, whose `cupy` (if any) is the real package.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SHIM = os.path.join(REPO, "assessments", "judge", "kinds", "cupy", "backends", "cpu", "shim")
MARK = "@@SHIM-RESULT@@"

PROLOGUE = f"""
import json, os, sys, warnings
sys.path.insert(0, {SHIM!r})
sys.path.insert(1, {REPO!r})
warnings.simplefilter("ignore", FutureWarning)
if os.environ.get("KP_SHIM_TEST_EMULATOR"):
    import importlib
    import _kpshim.backend
    _kpshim.backend._cache["emu"] = importlib.import_module(os.environ["KP_SHIM_TEST_EMULATOR"])
import numpy as np
import cupy as cp
from assessments.judge.kinds.cupy import kernel_log
kernel_log.configure(gate=GATE)
R = {{}}
"""


def emulator_available() -> bool:
    """True when the project's emulator (or a test stand-in named in the env) can be used."""
    if os.environ.get("KP_SHIM_TEST_EMULATOR"):
        return True
    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    try:
        spec = importlib.util.find_spec("assessments.judge.kinds.cupy.backends.cpu.emulator")
    except ImportError:
        return False
    if spec is None:
        return False
    try:
        mod = importlib.import_module("assessments.judge.kinds.cupy.backends.cpu.emulator")
    except Exception:
        return False
    return callable(getattr(mod, "compile_module", None))


@pytest.fixture
def needs_emulator():
    """Skip a test that runs kernels when no emulator is installed yet."""
    if not emulator_available():
        pytest.skip("the CPU emulator is not available")


def run_snippet(*parts: str, gate: bool = False, timeout: float = 120) -> dict:
    """Execute the code parts with the stand-in as `cupy`; they fill the dict `R`, returned."""
    code = "\n".join(textwrap.dedent(p) for p in parts)
    script = PROLOGUE.replace("GATE", repr(gate)) + code + \
        f"\nprint({MARK!r} + json.dumps(R, default=str))\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "snippet.py")  # a file: cupyx.jit reads kernels' source
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        proc = subprocess.run([sys.executable, path], capture_output=True, text=True,
                              timeout=timeout, cwd=REPO)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise AssertionError(f"snippet failed (rc={proc.returncode}):\n{proc.stdout[-3000:]}\n"
                         f"{proc.stderr[-6000:]}")


@pytest.fixture
def shim_run():
    return run_snippet
