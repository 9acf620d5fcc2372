"""Runs inside the simulator's Python, as one of cocotb's start-up entry points (PYGPI_USERS):
after cocotb's own set-up and the exec ban (`assessments.judge.exec_ban:install`, the entry
before this one), before cocotb's regression.

It closes the design's memory file (the simulator has read it), then imports the testbench with
cocotb's assertion rewriting and writes what happened to `boot.json` in the scratch: first
`{"importing": true}`, then the number of tests or the import's error with its line in the
testbench (the parent makes that a compile_error). cocotb's regression then finds the module
already imported. No boot.json at all means the judge's side of the start-up failed.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

MODULE = "testbench"
FILE = f"{MODULE}.py"
STATUS = "boot.json"
DESIGN_LINK = "/memfd:design"


def _close_design() -> None:
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith(DESIGN_LINK):
                os.close(int(name))
        except OSError:
            continue


def _where(exc: BaseException) -> int | None:
    """The testbench's line the error comes from (a syntax error's own line)."""
    if isinstance(exc, SyntaxError) and (exc.filename or "").endswith(FILE):
        return exc.lineno
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename.endswith(FILE):
            line = lineno
    return line


def prepare() -> None:
    _close_design()
    from cocotb.regression import RegressionManager, Test, TestGenerator

    RegressionManager.setup_pytest_assertion_rewriting()
    sys.path.insert(0, "")   # the scratch, where the testbench is (cocotb's regression does the same)
    _write({"importing": True})
    try:
        module = importlib.import_module(MODULE)
    except BaseException as exc:
        _write({"error": {"type": type(exc).__name__, "message": str(exc)[:2000], "line": _where(exc)}})
        raise
    _write({"tests": sum(1 for value in vars(module).values() if isinstance(value, (Test, TestGenerator)))})


def _write(status: dict) -> None:
    with open(STATUS, "w") as fh:
        json.dump(status, fh)
