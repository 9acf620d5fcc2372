"""The untrusted side: imports the submission and runs `solve` on arrays the parent prepared.

Run as `python -m assessments.judge.kinds.cupy.child`. It must stay lean and must never import the task bank,
the comparators or anything holding seeds or references: it only sees the inputs of the test at
hand. What differs by backend is the backend's child side, backends/<name>/child.py.
"""
from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path

from ... import exec_ban
from ...protocol import encode
from . import kernel_log

MODULE_NAME = "solution"
_EMULATOR_KINDS = {"compile_error", "race_detected", "memory_error", "deadlock", "timeout",
                   "launch_error"}


class SetupError(Exception):
    """The judge's side failed (no GPU, stand-in missing): never the candidate's fault."""


def _cpu_side():
    from .backends.cpu.child import CpuSide
    return CpuSide()


def _cuda_side():
    from .backends.cuda.child import CudaSide
    return CudaSide()


# Each backend's child side, imported only when chosen: the other backend is not in the sandbox.
SIDES = {"cpu": _cpu_side, "cuda": _cuda_side}


class Channel:
    """The child's ends of the pipes: requests in; answers, events and its own requests out."""

    def __init__(self, requests, answers):
        self._in, self._out = requests, answers
        self._buf = b""
        self._write = threading.Lock()
        self._ask = threading.Lock()

    def send(self, message: dict) -> None:
        with self._write:
            self._out.write(encode(message))
            self._out.flush()

    def receive(self) -> dict | None:
        """The next message from the parent; None once it closed the pipe."""
        while True:
            while b"\n" not in self._buf:
                chunk = self._in.read(65536)
                if not chunk:
                    return None
                self._buf += chunk
            line, self._buf = self._buf.split(b"\n", 1)
            if line.strip():
                return json.loads(line)

    def ask(self, message: dict) -> dict:
        """Send a request of the child's own (an `event`) and wait for the parent's reply, which
        comes on the request pipe before any further request."""
        with self._ask:
            self.send(message)
            reply = self.receive()
        if reply is None:
            raise ConnectionError("the judge closed the channel")
        return reply


class Child:
    """State of one child: the channel, the backend's `cupy`, the candidate's solve."""

    def __init__(self, backend: str, scratch: Path, channel: Channel):
        self.backend = backend
        self.side = SIDES[backend]()
        self.scratch = scratch
        self.channel = channel
        self.cp = None
        self.solve = None
        self.solution_path: str | None = None
        self.harness = None    # the timing harness, once time_setup succeeded

    def send(self, message: dict) -> None:
        self.channel.send(message)

    # -- ops ---------------------------------------------------------------------------------
    def handle(self, msg: dict) -> dict:
        op = msg.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        if handler is None:
            return {"ok": False, "error": {"type": "ProtocolError", "kind": "protocol",
                                           "message": f"unknown op {op!r}"}}
        try:
            answer = handler(msg)
        except BaseException as exc:  # the candidate's code may raise anything, SystemExit included
            answer = {"ok": False, "error": self.describe(exc)}
        answer.update(kernel_log.snapshot())
        return answer

    def op_load(self, msg: dict) -> dict:
        began = time.perf_counter()
        self.cp = self._import_cupy(bool(msg.get("checking", False)))
        imported = time.perf_counter() - began
        try:
            exec_ban.install()   # from here on no program starts: the submission runs next
        except OSError as exc:
            raise SetupError(f"the sandbox cannot refuse starting programs: {exc}") from exc
        path = str(self.scratch / msg["file"])
        self.solution_path = path
        spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[MODULE_NAME] = module
        spec.loader.exec_module(module)
        solve = getattr(module, "solve", None)
        if not callable(solve):
            return {"ok": False, "error": {"type": "NoSolve", "kind": "no_solve",
                                           "message": "the file defines no callable solve"}}
        arity = msg.get("arity")
        if arity is not None:
            import inspect
            try:
                inspect.signature(solve).bind(*range(int(arity)))
            except TypeError as exc:
                return {"ok": False, "error": {"type": "TypeError", "kind": "arity",
                                               "message": f"solve cannot take {arity} arguments: {exc}"}}
            except ValueError:
                pass  # builtins and some callables have no signature: the call will tell
        self.solve = solve
        return {"ok": True, "arch": self.side.arch, "import_s": imported}

    def op_run(self, msg: dict) -> dict:
        self._require_solve()
        self.side.set_checking(self.cp, bool(msg.get("checking", False)))
        self.side.set_kernel_timeout(self.cp, msg.get("kernel_timeout_s"))
        args, arrays = self._arguments(msg)
        start = time.perf_counter()
        returned = self.solve(*args)
        self._synchronize()
        elapsed = time.perf_counter() - start
        import numpy as np
        out = {name: np.asarray(self.cp.asnumpy(arr)) for name, arr in arrays.items()}
        np.savez(str(self.scratch / msg["output"]), **out)
        return {"ok": True, "elapsed_s": elapsed,
                "returned": None if returned is None else type(returned).__name__}

    def op_profile(self, msg: dict) -> dict:
        """Call solve once at the benchmark size with the stand-in counting (cpu backend)."""
        self._require_solve()
        recorder = self.side.profiler()
        if recorder is None:
            return {"ok": False, "error": {"type": "Unsupported", "kind": "protocol",
                                           "message": "profiling needs the cpu backend"}}
        self.side.set_checking(self.cp, False)
        self.side.set_kernel_timeout(self.cp, msg.get("kernel_timeout_s"))
        args = self._mapped_arguments(msg)
        start = time.perf_counter()
        with recorder:
            self.solve(*args)
        return {"ok": True, "elapsed_s": time.perf_counter() - start, "profile": recorder.result()}

    def op_time_setup(self, msg: dict) -> dict:
        """Place the benchmark's input variants and the buffer pool (see backends/cuda/timing.py)."""
        self._require_solve()
        harness = self.side.harness(self.solve)
        if harness is None:
            return {"ok": False, "error": {"type": "Unsupported", "kind": "protocol",
                                           "message": "timing needs the cuda backend"}}
        import numpy as np
        variants = []
        for v in msg["variants"]:
            with np.load(str(self.scratch / v["inputs"]), allow_pickle=False) as data:
                variants.append(({k: data[k] for k in data.files}, v["args"]))
        self.harness = harness
        info = self.harness.setup(variants, int(msg.get("slots", 8)), int(msg.get("pool_bytes", 1 << 33)))
        return {"ok": True, **info}

    def op_time_batch(self, msg: dict) -> dict:
        """One batch of repeats; the parent's clock around this request is the wall time."""
        if self.harness is None:
            raise RuntimeError("time_setup did not succeed")
        plan = [(int(s), int(v)) for s, v in msg["plan"]]
        return {"ok": True, **self.harness.batch(plan, empty=bool(msg.get("empty", False)))}

    def op_time_fetch(self, msg: dict) -> dict:
        """Write one slot's arrays to a file in scratch for the parent to check."""
        if self.harness is None:
            raise RuntimeError("time_setup did not succeed")
        import numpy as np
        np.savez(str(self.scratch / msg["output"]), **self.harness.fetch(int(msg["slot"])))
        return {"ok": True}

    def op_listings(self, msg: dict) -> dict:
        """The sources of the programs the gate compiled; the parent lists them (listing.py)."""
        from . import listing
        return {"ok": True, **listing.programs(kernel_log.kernels())}

    def op_exit(self, msg: dict) -> dict:
        return {"ok": True, "bye": True}

    # -- helpers -----------------------------------------------------------------------------
    def _require_solve(self) -> None:
        if self.solve is None:
            raise RuntimeError("load did not succeed")

    def _import_cupy(self, checking: bool):
        try:
            cupy = self.side.import_cupy()
        except Exception as exc:
            raise SetupError(f"{self.backend} backend unavailable: {type(exc).__name__}: {exc}") from exc
        self.cp = cupy
        self.side.set_checking(cupy, checking)
        return cupy

    def _arguments(self, msg: dict):
        import numpy as np
        data = np.load(str(self.scratch / msg["inputs"]), allow_pickle=False)
        args, arrays = [], {}
        for spec in msg["args"]:
            if "array" in spec:
                try:
                    arr = self.cp.asarray(data[spec["array"]])
                except MemoryError:
                    raise
                except Exception as exc:
                    raise SetupError(f"cannot place input '{spec['array']}': {exc}") from exc
                arrays[spec["array"]] = arr
                args.append(arr)
            else:
                args.append(spec["scalar"])
        return args, arrays

    def _mapped_arguments(self, msg: dict) -> list:
        """solve's arguments with each array mapped copy-on-write from `<inputs_dir>/<name>.npy`
        (read-only files; what solve writes stays private to this process)."""
        import numpy as np
        args = []
        for spec in msg["args"]:
            if "array" in spec:
                name = str(spec["array"])
                if "/" in name or name.startswith("."):
                    raise SetupError(f"bad input name {name!r}")
                mapped = np.load(os.path.join(msg["inputs_dir"], name + ".npy"), mmap_mode="c")
                args.append(mapped.view(np.ndarray).view(self.cp.ndarray))
            else:
                args.append(spec["scalar"])
        return args

    def _synchronize(self) -> None:
        try:
            self.cp.cuda.Device().synchronize()
        except AttributeError:
            pass  # a stand-in without a device model has nothing in flight

    def describe(self, exc: BaseException) -> dict:
        """Type, classification, one-line message, candidate frames only."""
        kind, extra = classify(exc)
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if self.solution_path and f.filename == self.solution_path]
        where = f"solution.py:{frames[-1].lineno}" if frames else None
        tb = "".join(traceback.format_list(frames)).replace(self.solution_path or "\0", "solution.py")
        message = str(exc).strip()
        return {"type": type(exc).__name__, "kind": kind, "message": message[:2000],
                "where": where, "function": frames[-1].name if frames else None,
                "traceback": tb[-4000:], **extra}


def classify(exc: BaseException) -> tuple[str, dict]:
    """What kind of failure this is, judged by type and message (CuPy need not be importable)."""
    name = type(exc).__name__
    text = str(exc)
    if isinstance(exc, SetupError):
        return "setup", {}
    if isinstance(exc, kernel_log.CompileFailed):
        return "compile", {"log": exc.log[:16000], "kernel": exc.kernel, "source": exc.source[:64000]}
    if name == "EmulatorError" and getattr(exc, "kind", None) in _EMULATOR_KINDS:
        return f"emulator:{exc.kind}", {"kernel": str(getattr(exc, "kernel", "") or ""),
                                        "detail": str(getattr(exc, "detail", ""))[:4000]}
    if isinstance(exc, MemoryError) or name == "OutOfMemoryError":
        return "memory", {}
    if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        return "memory", {}
    if name == "CompileException":
        source = getattr(exc, "source", "") or ""
        return "compile", {"log": text[:16000], "source": str(source)[:64000]}
    if name in ("CUDARuntimeError", "CUDADriverError"):
        upper = text.upper()
        if "ILLEGAL_ADDRESS" in upper or "ILLEGAL ADDRESS" in upper or "MISALIGNED" in upper:
            return "illegal_address", {}
        if "LAUNCH_TIMEOUT" in upper or "TIMEOUT" in upper:
            return "timeout", {}
        return "cuda", {}
    if isinstance(exc, RecursionError):
        return "recursion", {}
    return "exception", {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="assessments.judge.kinds.cupy.child")
    parser.add_argument("--backend", choices=tuple(SIDES), required=True)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--request-fd", type=int, required=True)
    parser.add_argument("--answer-fd", type=int, required=True)
    args = parser.parse_args(argv)
    scratch = Path(args.scratch)
    os.chdir(scratch)
    channel = Channel(os.fdopen(args.request_fd, "rb", buffering=0),
                      os.fdopen(args.answer_fd, "wb", buffering=0))
    child = Child(args.backend, scratch, channel)
    kernel_log.configure(sink=channel.send, ask=channel.ask)
    while True:
        msg = channel.receive()
        if msg is None:
            return 0
        child.send(child.handle(msg))
        if msg.get("op") == "exit":
            return 0


if __name__ == "__main__":
    sys.exit(main())
