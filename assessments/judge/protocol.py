"""Parent <-> child messages: one JSON object per line on dedicated pipe fds.

Requests (parent -> child), each answered by one line carrying "ok":
  {"op": "load", "file": "solution.py", "arity": 4, "checking": true}
      -> {"ok": true, "arch": "sm_90", "kernels": [...], "incidents": [...]}
  {"op": "run", "inputs": "t0.in.npz", "output": "t0.out.npz", "checking": true,
   "args": [{"array": "a"}, ..., {"scalar": 7}]}
      -> {"ok": true, "elapsed_s": 0.01, "returned": null, "kernels": [...], "incidents": [...]}
  Timing (cuda; backends/cuda/timing.py in the child, timing/session.py in the parent):
  {"op": "time_setup", "variants": [{"inputs": "bench.v0.in.npz", "args": [...]}, ...],
   "slots": 8, "pool_bytes": 8589934592}
      -> {"ok": true, "device": "NVIDIA H100 80GB HBM3", "slots": 8, "flush_bytes": ..., ...}
  {"op": "time_batch", "plan": [[slot, variant], ...], "empty": false}
      -> {"ok": true, "events_ms": [...], "child_wall_s": 0.1}
  {"op": "time_fetch", "slot": 3, "output": "bench.fetch.npz"} -> {"ok": true}
  {"op": "listings"}
      -> {"ok": true, "programs": [{"source", "options", "name_expressions"}],
          "listed": {kernel key: program index}, "unlisted": {kernel key: why}}
          (listing.py; the parent lists them in its compile sandbox)
  {"op": "exit"} -> {"ok": true}
A failed request answers {"ok": false, "error": {"type", "kind", "message", "where", "traceback",
"log"?}} where kind is the child's classification (memory, compile, illegal_address, emulator kind,
exception). Before its answer the child may send {"event": "incident", ...} lines as incidents happen,
and requests of its own, which the parent answers on the request pipe before anything else:
  {"event": "gate", "source": "...", "options": [...], "name_expressions": [...], "arch": "sm_90"}
      <- {"reply": "gate", "ok": true, "log": "...", "kernels": [usage], "lowered_names": {...}}
       | {"reply": "gate", "ok": false, "log": "NVRTC's refusal"} | {..., "unavailable": true}
  {"event": "build", "source": "...", "options": [...], "name_expressions": [...], "checking": true}
      <- {"reply": "build", "ok": true, "file": "<key>.so", "meta": {...}}   (in the run's view)
       | {"reply": "build", "ok": false, "log": "g++'s refusal, or why nothing was built"}
Arrays never travel on the pipe: .npy/.npz files in the scratch dir the parent owns.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from types import SimpleNamespace

MAX_LINE = 8 * 1024 * 1024


def answer_job(run) -> int:
    """A compile-sandbox entry point's main: one JSON job on stdin, run(job)'s JSON on stdout."""
    import sys

    sys.stdout.write(json.dumps(run(json.loads(sys.stdin.buffer.read()))))
    sys.stdout.flush()
    return 0


def encode(message: dict) -> bytes:
    """One message as a JSON line."""
    return (json.dumps(message, separators=(",", ":"), allow_nan=True) + "\n").encode()


class ProtocolError(Exception):
    """The channel carried something that is not a message."""


class LineBuffer:
    """Splits a byte stream into JSON messages, refusing oversized lines."""

    def __init__(self, max_line: int = MAX_LINE):
        self._buf = b""
        self._max = max_line

    def feed(self, data: bytes) -> list[dict]:
        self._buf += data
        out = []
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError as exc:
                raise ProtocolError(f"not JSON: {line[:80]!r}") from exc
            if not isinstance(msg, dict):
                raise ProtocolError("not an object")
            out.append(msg)
        if len(self._buf) > self._max:
            raise ProtocolError("line too long")
        return out


def child_arguments(argv: list[str]) -> SimpleNamespace:
    """What every child is started with (sandbox.child_command): `--backend NAME --scratch DIR
    --request-fd N --answer-fd M`. Read by hand, not argparse: a testbench's child starts once per
    simulation."""
    words = dict(zip(argv[::2], argv[1::2]))
    return SimpleNamespace(backend=words["--backend"], scratch=words["--scratch"],
                           request_fd=int(words["--request-fd"]), answer_fd=int(words["--answer-fd"]))


def requests(fd: int) -> Iterator[dict]:
    """The parent's requests on `fd`, one message each, until it closes the pipe."""
    lines = LineBuffer()
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        yield from lines.feed(chunk)


def write_answer(fd: int, message: dict) -> None:
    """One answer on `fd`, whole however large."""
    view = memoryview(encode(message))
    while view:
        view = view[os.write(fd, view):]


def serve(request_fd: int, answer_fd: int, handle: Callable[[dict], dict]) -> int:
    """A child's life: each request answered with `handle(request)`, until `exit` (answered, then
    the child ends at once, so the parent need not wait for its pipe to close) or the pipe closes.
    Returns the exit status."""
    for msg in requests(request_fd):
        if msg.get("op") == "exit":
            write_answer(answer_fd, {"ok": True, "bye": True})
            return 0
        write_answer(answer_fd, handle(msg))
    return 0
