"""The run sandbox's child for function tasks (kinds `python` and `cpp`): loads the submission,
calls its function on the arguments the parent sends, answers the results and the seconds the
calls took. It never sees the task's generator, reference, checker or the seed.

    {"op": "load", "language": "python", "file": "solution.py", "function": "simulate", "arity": 6}
    {"op": "load", "language": "cpp", "library": "<file in the view>", "function": "simulate",
     "params": [{"name", "type"}, ...], "returns": "void"}
        -> {"ok": true}
    {"op": "call", "calls": [call, ...], "repeat": 1}
        python: a call is the positional arguments, each {"npy": "<file in scratch>"} or {"value": v}
        cpp: a call is {parameter name: {"npy": ...} | {"value": v}} (lengths and outputs are made here)
        -> {"ok": true, "results": [...], "seconds": the best of `repeat` runs of the whole batch}
    {"op": "exit"} -> {"ok": true}
A failure answers {"ok": false, "error": {"kind", "type", "message", "where", "traceback"}}; kind
is exception, memory, recursion, no_function, arity or protocol.
"""
from __future__ import annotations

import ctypes
import importlib.util
import inspect
import json
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from ... import exec_ban, protocol
from . import native

MODULE_NAME = "solution"
MAX_RESULT = 6 * 1024 * 1024     # bytes of JSON: under the protocol's line limit
MAX_ITEMS = 1 << 20


class Failure(Exception):
    """A request that cannot be served, with the error to answer."""

    def __init__(self, kind: str, message: str, type_: str = "Error"):
        super().__init__(message)
        self.error = {"kind": kind, "type": type_, "message": message}


def plain(value, depth: int = 0):
    """The result as JSON: numpy numbers and arrays as Python ones, tuples as lists; anything
    else as a short description the parent's checker will refuse."""
    if depth > 32:
        raise Failure("exception", "the result is nested more than 32 levels deep", "ValueError")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        if value.size > MAX_ITEMS:
            raise Failure("exception", f"the result holds an array of {value.size} elements", "ValueError")
        return plain(value.tolist(), depth + 1)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(plain(k, depth + 1)): plain(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_ITEMS:
            raise Failure("exception", f"the result holds a list of {len(value)} items", "ValueError")
        return [plain(v, depth + 1) for v in value]
    return f"<{type(value).__name__} object>"


class Child:
    def __init__(self, scratch: Path, builds: str):
        self.scratch = scratch
        self.builds = builds
        self.language = None
        self.function = None
        self.params = None
        self.solution = ""

    # -- ops -------------------------------------------------------------------------------------
    def handle(self, msg: dict) -> dict:
        op = msg.get("op")
        try:
            if op == "load":
                return self.load(msg)
            if op == "call":
                return self.call(msg)
            raise Failure("protocol", f"unknown op {op!r}")
        except Failure as failure:
            return {"ok": False, "error": failure.error}
        except BaseException as exc:   # the submission may raise anything, SystemExit included
            return {"ok": False, "error": self.describe(exc)}

    def load(self, msg: dict) -> dict:
        self.language = msg.get("language")
        name = str(msg["function"])
        exec_ban.install()   # from here on no program starts: the submission's code runs next
        if self.language == "python":
            self.solution = str(self.scratch / str(msg["file"]))
            spec = importlib.util.spec_from_file_location(MODULE_NAME, self.solution)
            module = importlib.util.module_from_spec(spec)
            sys.modules[MODULE_NAME] = module
            spec.loader.exec_module(module)
            function = getattr(module, name, None)
            if not callable(function):
                raise Failure("no_function", f"the file defines no function `{name}`")
            arity = int(msg.get("arity", 0))
            try:
                inspect.signature(function).bind(*range(arity))
            except TypeError as exc:
                raise Failure("arity", f"`{name}` cannot take the task's {arity} arguments: {exc}") from None
            except ValueError:
                pass   # no signature to read (a builtin): the call will tell
            self.function = function
        elif self.language == "cpp":
            library = str(msg["library"])
            if "/" in library or library.startswith("."):
                raise Failure("protocol", "bad library name")
            self.params = native.parse(msg["params"])
            lib = ctypes.CDLL(os.path.join(self.builds, library), mode=os.RTLD_NOW | os.RTLD_LOCAL)
            try:
                self.function = native.bind(getattr(lib, name), self.params, str(msg.get("returns", "void")))
            except AttributeError:
                raise Failure("no_function", f'the library defines no extern "C" function `{name}`') from None
        else:
            raise Failure("protocol", f"unknown language {self.language!r}")
        return {"ok": True}

    def _value(self, arg: dict):
        if "npy" in arg:
            name = str(arg["npy"])
            if "/" in name or name.startswith("."):
                raise Failure("protocol", "bad file name")
            return np.load(self.scratch / name, allow_pickle=False)
        return arg.get("value")

    def call(self, msg: dict) -> dict:
        if self.function is None:
            raise Failure("protocol", "nothing loaded")
        repeat = max(1, int(msg.get("repeat", 1)))
        results, best = [], float("inf")
        if self.language == "python":
            calls = [[self._value(a) for a in call] for call in msg["calls"]]
            function = self.function
            for r in range(repeat):
                # fresh arguments for each run after the first: the function may change them
                args = calls if r == 0 else [[a.copy() if isinstance(a, np.ndarray) else a for a in c] for c in calls]
                began = time.perf_counter()
                out = [function(*a) for a in args]
                best = min(best, time.perf_counter() - began)
                if r == 0:
                    results = out
            results = [plain(x) for x in results]
        else:
            prepared = [native.arguments(self.params, {k: self._value(v) for k, v in call.items()})
                        for call in msg["calls"]]
            function = self.function
            for r in range(repeat):
                began = time.perf_counter()
                returned = [function(*args) for args, _, _ in prepared]
                best = min(best, time.perf_counter() - began)
                if r == 0:
                    results = [{"outs": {k: v.tolist() for k, v in outs.items()},
                                "returned": plain(ret)} for (_, outs, _), ret in zip(prepared, returned)]
        answer = {"ok": True, "results": results, "seconds": best}
        if len(json.dumps(results)) > MAX_RESULT:
            raise Failure("exception", f"the results are over {MAX_RESULT >> 20} MiB of JSON", "ValueError")
        return answer

    # -- errors ------------------------------------------------------------------------------------
    def describe(self, exc: BaseException) -> dict:
        """The error with the traceback's frames in the submission's own file only."""
        kind = "exception"
        if isinstance(exc, MemoryError):
            kind = "memory"
        elif isinstance(exc, RecursionError):
            kind = "recursion"
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == self.solution]
        where = f"solution.py, line {frames[-1].lineno}, in {frames[-1].name}" if frames else None
        lines = [f'  File "solution.py", line {f.lineno}, in {f.name}\n    {(f.line or "").strip()}'
                 for f in frames[-5:]]
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        tb = ("Traceback (the submission's frames, most recent call last):\n" + "\n".join(lines) + "\n"
              + text) if lines else text
        try:
            message = str(exc)
        except Exception:   # noqa: BLE001 - an exception whose str() raises
            message = ""
        return {"kind": kind, "type": type(exc).__name__, "message": message[:2000], "where": where,
                "traceback": tb[-4000:]}


def main(argv: list[str] | None = None) -> int:
    args = protocol.child_arguments(sys.argv[1:] if argv is None else argv)
    os.chdir(Path(args.scratch))
    child = Child(Path(args.scratch), os.environ.get("KERNELPATH_EMULATOR_BUILDS", ""))
    return protocol.serve(args.request_fd, args.answer_fd, child.handle)


if __name__ == "__main__":
    sys.exit(main())
