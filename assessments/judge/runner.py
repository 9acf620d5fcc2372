"""Parent side of the child: start it under its limits, exchange messages, notice how it died."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .protocol import LineBuffer, ProtocolError, encode
from .sandbox import SandboxSpec, build_command, child_env, preexec


@dataclass
class ChildDied(Exception):
    """The child ended or was ended before answering."""

    reason: str                 # "wall" | "exit" | "signal" | "channel"
    returncode: int | None = None
    signal: int | None = None
    detail: str = ""
    events: list = field(default_factory=list)

    def __str__(self) -> str:
        return f"child {self.reason} (rc={self.returncode}, signal={self.signal}) {self.detail}"


@dataclass
class Answer:
    """One answer and the events that preceded it."""

    message: dict
    events: list
    elapsed_s: float


class ChildProcess:
    """One child: request/answer on pipes, output captured to files in scratch."""

    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        self.proc: subprocess.Popen | None = None
        self._req_w = self._ans_r = None
        self._buf = LineBuffer()
        self._pending: list[dict] = []
        self.started = 0.0
        self.killed_for_wall = False
        self.stdout_path = spec.scratch / "stdout.txt"
        self.stderr_path = spec.scratch / "stderr.txt"

    def start(self) -> None:
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        cmd = build_command(self.spec, req_r, ans_w)
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            try:
                self.proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, pass_fds=(req_r, ans_w),
                    cwd=str(self.spec.scratch), env=child_env(self.spec),
                    preexec_fn=preexec(self.spec.limits), start_new_session=True, close_fds=True)
            finally:
                os.close(req_r)
                os.close(ans_w)
        self._req_w, self._ans_r = req_w, ans_r
        self.started = time.monotonic()

    def remaining_wall(self) -> float:
        return self.spec.limits.wall_s - (time.monotonic() - self.started)

    def request(self, message: dict, timeout_s: float | None = None) -> Answer:
        """Send one request and wait for its answer, collecting events; ChildDied on failure."""
        assert self.proc is not None
        limit = self.spec.limits.op_wall_s if timeout_s is None else timeout_s
        limit = min(limit, max(self.remaining_wall(), 0.0))
        began = time.monotonic()
        events: list[dict] = []
        try:
            os.write(self._req_w, encode(message))
        except BrokenPipeError:
            raise self._died(events)
        while True:
            for msg in self._take():
                if "ok" in msg:
                    return Answer(msg, events, time.monotonic() - began)
                events.append(msg)
            left = limit - (time.monotonic() - began)
            if left <= 0:
                self.kill()
                self.killed_for_wall = True
                raise ChildDied("wall", *self._status(), detail=f"no answer within {limit:.0f} s",
                                events=events)
            ready, _, _ = select.select([self._ans_r], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None:
                    # drain what it wrote before dying
                    ready = [self._ans_r]
                else:
                    continue
            try:
                data = os.read(self._ans_r, 1 << 20)
            except OSError:
                data = b""
            if not data:
                for msg in self._take():
                    if "ok" in msg:
                        return Answer(msg, events, time.monotonic() - began)
                    events.append(msg)
                raise self._died(events)
            try:
                self._pending.extend(self._buf.feed(data))
            except ProtocolError as exc:
                self.kill()
                raise ChildDied("channel", *self._status(), detail=str(exc), events=events)

    def _take(self) -> list[dict]:
        out, self._pending = self._pending, []
        return out

    def _status(self) -> tuple[int | None, int | None]:
        if self.proc is None:
            return None, None
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None, None
        return rc, (-rc if rc < 0 else None)

    def _died(self, events) -> ChildDied:
        rc, sig = self._status()
        if rc is None:
            self.kill()
            rc, sig = self._status()
        reason = "signal" if sig else "exit"
        return ChildDied(reason, rc, sig, events=events)

    def kill(self) -> None:
        """End the child's process group while its leader is unreaped (so the id is still ours)."""
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def close(self) -> None:
        """Ask the child to exit, then end its group (stragglers included) and close our pipe ends."""
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.write(self._req_w, encode({"op": "exit"}))
                deadline = time.monotonic() + 2.0
                while time.monotonic() < deadline:
                    ready, _, _ = select.select([self._ans_r], [], [], 0.1)
                    if ready and not os.read(self._ans_r, 1 << 16):
                        break  # EOF: the child is gone or going
            except OSError:
                pass
        self.kill()
        for fd in (self._req_w, self._ans_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._req_w = self._ans_r = None

    def captured(self, which: str, limit: int) -> tuple[str, int]:
        """First `limit` bytes of the candidate's stdout or stderr, and its full size."""
        path: Path = self.stdout_path if which == "stdout" else self.stderr_path
        try:
            size = path.stat().st_size
            with open(path, "rb") as fh:
                head = fh.read(limit)
        except OSError:
            return "", 0
        return head.decode(errors="replace"), size

    def __enter__(self) -> "ChildProcess":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()
