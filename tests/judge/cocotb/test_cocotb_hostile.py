"""Hostile testbenches against the real judge and real bubblewrap, each with the static checks and
with them off (`static_checks=False`), where the sandbox alone must contain it: reading the
judge's files, starting programs, writing outside, the network, an endless loop, a memory bomb,
and telling the designs apart other than by their behaviour. Whatever the verdict, nothing
secret reaches the report, nothing is written outside, the listener hears nothing, no process of
the run is left and a contained attack catches no mutant."""
from __future__ import annotations

import os
import re
import secrets
import socket
import tempfile
import threading
from pathlib import Path

import pytest

from assessments.judge import sandbox
from tb_stage import FAST, FIXTURES, HAVE_TOOLS, ROOT, judged

pytestmark = pytest.mark.skipif(not HAVE_TOOLS, reason="Icarus Verilog or cocotb is not installed")
HOSTILE = FIXTURES / "hostile"
SV, AC, TLE, MLE = "security_violation", "accepted", "time_limit_exceeded", "memory_limit_exceeded"
# name: (verdict with the static checks, verdicts the sandbox alone may end with)
CASES = {
    "read_files": (SV, {AC}),
    "run_programs": (SV, {AC}),
    "write_files": (SV, {AC}),
    "network": (SV, {AC}),
    "endless_loop": (TLE, {TLE}),
    "memory_bomb": (MLE, {MLE}),
    "fingerprint": (SV, {AC}),
}


class Listener:
    """A TCP listener that records whatever reaches it."""

    def __init__(self):
        self.received: list[bytes] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    self.received.append(conn.recv(4096) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.server.close()


@pytest.fixture
def stage(tmp_path, monkeypatch):
    token = secrets.token_hex(8)
    secret = f"kp-canary-{token}"
    (ROOT / "instance").mkdir(exist_ok=True)
    canaries = [ROOT / "instance" / f"tb-canary-{token}.txt", Path("/tmp") / f"kp-tb-canary-{token}.txt"]
    for c in canaries:
        c.write_text(secret)
    cache = Path(sandbox.emulator_cache_dir())
    reads = [str(p) for p in canaries] + [
        str(ROOT / "gpu_tasks" / "rtl" / "reference" / "sync_fifo.v"),
        str(ROOT / "gpu_tasks" / "testbench" / "mutants" / "fifo_tb" / "mutants.toml"),
        str(ROOT / "gpu_tasks" / "testbench" / "reference" / "fifo_tb.py"),
        str(cache), str(cache / "builds"), str(ROOT / "gpu_tasks" / "testbench" / "mutants")]
    writes = [ROOT / "instance" / f"tb-written-{token}", ROOT / f"tb-written-{token}",
              Path("/tmp") / f"kp-tb-written-{token}", cache / f"planted-{token}",
              Path.home() / f"tb-written-{token}"]
    listener = Listener()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # the runs' scratch dirs land here
    values = {"@READ_PATHS@": repr(reads), "@WRITE_PATHS@": repr([str(p) for p in writes]),
              "@PORT@": str(listener.port)}

    def fill(name: str, **more) -> str:
        text = (HOSTILE / f"{name}.py").read_text()
        for k, v in {**values, **more}.items():
            text = text.replace(k, v)
        return text

    yield {"fill": fill, "secret": secret, "canaries": canaries, "writes": writes, "listener": listener,
           "tmp": tmp_path}
    listener.close()
    for p in canaries + writes:
        if p.exists():
            p.unlink()


def _contained(report, st) -> None:
    shown = report.to_json() + report.render_text() + report.to_json(candidate_view=True)
    assert st["secret"] not in shown, "a canary leaked into the report"
    assert "endmodule" not in shown and "dout_q" not in shown, "a design's source leaked"
    for p in st["writes"]:
        assert not p.exists(), f"the testbench wrote {p}"
    for c in st["canaries"]:
        assert c.read_text() == st["secret"]
    assert st["listener"].received == [], st["listener"].received
    assert report.verdict.value != "internal_error", report.message
    assert report.sandbox in (None, sandbox.BUBBLEWRAP)
    marker = str(st["tmp"]).encode()
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    alive += [entry] if marker in fh.read() else []
            except OSError:
                pass
    assert alive == [], f"processes of the run are still alive: {alive}"
    assert not list(st["tmp"].glob("kp-tb-*")), "a run's scratch was left behind"


@pytest.mark.parametrize("name", list(CASES))
def test_static_checks_refuse_or_limits_hold(name, stage):
    report = judged(stage["fill"](name), suite="samples", limits=FAST)
    assert report.verdict.value == CASES[name][0], (report.message, report.details)
    _contained(report, stage)


@pytest.mark.parametrize("name", list(CASES))
def test_sandbox_alone_contains(name, stage):
    report = judged(stage["fill"](name), suite="samples", limits=FAST, static_checks=False)
    assert report.verdict.value in CASES[name][1], (report.message, report.details, report.stdout[-3000:])
    assert report.sandbox == sandbox.BUBBLEWRAP
    _contained(report, stage)
    if report.verdict.value == AC:
        assert not any(m["caught"] for m in report.mutants), report.mutants
        assert report.tests[0].message == "its one test passes"


def test_no_design_can_be_told_apart_but_by_its_behaviour(stage):
    """The attack in two submissions: a sample run shows the correct design's fingerprint, a graded
    run fails wherever the fingerprint differs. Every mutant must look the same."""
    seed = 31337
    first = judged(stage["fill"]("fingerprint"), suite="samples", static_checks=False, seed=seed)
    found = re.search(r"FINGERPRINT ([0-9a-f]{32})", first.stdout)
    assert first.verdict.value == AC and found, (first.message, first.stdout[-2000:])
    second = judged(stage["fill"]("fingerprint", **{"@DIGEST@": found.group(1)}), static_checks=False, seed=seed)
    assert second.verdict.value == AC, (second.message, second.details)
    assert [m["name"] for m in second.mutants if m["caught"]] == [], second.mutants
    _contained(second, stage)
