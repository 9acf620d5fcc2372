"""Runs inside the simulator's Python, as one of cocotb's start-up entry points (PYGPI_USERS):
after cocotb's own set-up and the exec ban (`assessments.judge.exec_ban:install`, the entry
before this one), before cocotb's regression.

It closes the design's memory file (the simulator has read it), then imports the testbench with
pytest's assertion rewriting and writes what happened to `boot.json` in the scratch: first
`{"importing": true}`, then the number of tests or the import's error with its line in the
testbench (the parent makes that a compile_error). cocotb's regression then finds the module
already imported. No boot.json at all means the judge's side of the start-up failed.

Once the regression has written its results, the process ends without the interpreter's
teardown, which frees every module and object one by one: a fifth of a simulation's CPU time.
"""
from __future__ import annotations

import ast
import ctypes
import importlib.util
import json
import logging
import os
import sys
import traceback

MODULE = "testbench"
FILE = f"{MODULE}.py"
STATUS = "boot.json"
DESIGN_LINK = "/memfd:design"


def _close_design() -> None:
    """Empty the design's memory file (the sandbox's init holds it too, as its standard input,
    where /proc/1/fd/0 would show it) and close every descriptor of it here: the simulator's
    standard input, which gets /dev/null instead, and any the simulator left open."""
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith(DESIGN_LINK):
                fd = int(name)
                try:
                    os.ftruncate(fd, 0)
                except OSError:
                    pass        # a read-only descriptor: the writable one empties the file
                if fd <= 2:
                    null = os.open(os.devnull, os.O_RDONLY)
                    os.dup2(null, fd)
                    os.close(null)
                else:
                    os.close(fd)
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
    from cocotb import _shutdown
    from cocotb.regression import Test, TestGenerator

    _shutdown.register(_end_when_done)
    sys.path.insert(0, "")   # the scratch, where the testbench is (cocotb's regression does the same)
    _write({"importing": True})
    try:
        module = _import_testbench()
    except BaseException as exc:
        _write({"error": {"type": type(exc).__name__, "message": str(exc)[:2000], "line": _where(exc)}})
        raise
    _write({"tests": sum(1 for value in vars(module).values() if isinstance(value, (Test, TestGenerator)))})


def _import_testbench():
    """The testbench module, its asserts rewritten by pytest's rewriter (a failing `assert a == b`
    says what a and b were): what pytest's import hook does to a test file, done to this one file
    without the pytest configuration the hook needs (about 20 ms of every simulation; the
    backend's empty COCOTB_REWRITE_ASSERTION_FILES keeps cocotb from making one)."""
    from _pytest.assertion.rewrite import rewrite_asserts

    path = os.path.abspath(FILE)
    with open(path, "rb") as fh:
        source = fh.read()
    tree = ast.parse(source, filename=path)
    rewrite_asserts(tree, source, path, None)
    code = compile(tree, path, "exec", dont_inherit=True)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(MODULE, path))
    sys.modules[MODULE] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[MODULE]
        raise
    return module


def _end_when_done() -> None:
    """At cocotb's shutdown: once the regression has written its results, flush what was printed
    and end. A simulation that ended before the regression did goes on: cocotb records the tests
    left as failed and writes the results itself."""
    if not os.path.exists(os.environ.get("COCOTB_RESULTS_FILE", "results.xml")):
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    ctypes.CDLL(None).fflush(None)      # the simulator's own buffered output
    os._exit(0)


def _write(status: dict) -> None:
    with open(STATUS, "w") as fh:
        json.dump(status, fh)
