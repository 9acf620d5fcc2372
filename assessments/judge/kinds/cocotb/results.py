"""What one simulation's testbench reported: cocotb's results file (JUnit-style XML) and boot.py's
status, both written in the sandbox's scratch and so read as untrusted: capped, no DOCTYPE, and
whatever they claim is only ever the testbench's own word about its own tests."""
from __future__ import annotations

import json
import os
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass

MAX_RESULTS = 4 * 1024 * 1024
MAX_STATUS = 64 * 1024
MAX_TESTS = 500
MESSAGE_CHARS = 400
DETAILS_CHARS = 4000


@dataclass
class TestResult:
    """One cocotb test: passed, or the failure's type, message and traceback."""

    __test__ = False  # not a pytest class despite the name

    name: str
    passed: bool
    kind: str = ""        # the exception's type, e.g. AssertionError
    message: str = ""     # its message (an assertion's text), trimmed
    details: str = ""     # the traceback cocotb recorded, trimmed

    @property
    def summary(self) -> str:
        """'test `x` fails: AssertionError: count is 3, expected 2'"""
        said = f"{self.kind}: {self.message}" if self.kind and self.message else (self.kind or self.message)
        return f"test `{self.name}` fails" + (f": {said}" if said else "")


def read_file(folder: str | os.PathLike, name: str, cap: int) -> bytes | None:
    """A regular file of the scratch, at most `cap` bytes of it; None if absent or not a file."""
    try:
        fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], cap
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def boot_status(folder) -> dict | None:
    """boot.py's status: {"importing": true} until the import ends, then {"tests": n} or
    {"error": {...}}; None when boot.py never ran."""
    data = read_file(folder, "boot.json", MAX_STATUS)
    if data is None:
        return None
    try:
        status = json.loads(data)
    except ValueError:
        return {"unreadable": True}
    return status if isinstance(status, dict) else {"unreadable": True}


def _trim(text: str | None, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def parse(data: bytes | None) -> list[TestResult] | None:
    """The tests in cocotb's results file, in order; None when there is no readable file."""
    if not data or b"<!DOCTYPE" in data.upper() or b"<!ENTITY" in data.upper():
        return None
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return None
    out = []
    for case in root.iter("testcase"):
        if len(out) >= MAX_TESTS:
            break
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        name = _trim(case.get("name"), 200) or "?"
        if failure is None:
            out.append(TestResult(name, True))
            continue
        lines = [ln.strip() for ln in (failure.get("message") or "").splitlines() if ln.strip()]
        out.append(TestResult(name, False, _trim(failure.get("type"), 100),
                              _trim(" / ".join(lines), MESSAGE_CHARS), _trim(failure.text, DETAILS_CHARS)))
    return out
