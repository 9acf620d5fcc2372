"""Starting real servers in tests: a free local port, and waiting until one answers HTTP."""
from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    """A local port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answering(url: str, proc: subprocess.Popen, timeout_s: float = 120.0,
                         log: Path | None = None) -> None:
    """Poll `url` until the server answers it successfully (an error status may be a server
    still warming up: it is asked again). Fails the test, with the end of
    the server's `log` file (where its output goes: a pipe nobody reads would fill up and stall
    the server), as soon as the process exits or after `timeout_s` (generous: a loaded machine
    starts a server slowly)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited with {proc.returncode} before answering: {_tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:                         # refused, timed out, or an HTTP error status
            time.sleep(0.1)
    proc.kill()
    pytest.fail(f"the server did not answer {url} within {timeout_s:g} s: {_tail(log)}")


def _tail(log: Path | None) -> str:
    if log is None:
        return "(its output is not kept)"
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError as exc:
        return f"(its log could not be read: {exc})"
