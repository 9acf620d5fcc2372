"""The compute-sanitizer pass of the cuda backend, on the fake GPU with a stand-in front-end
(fakegpu/compute_sanitizer.py) that prints what the real tool prints: the small tests run again
under each tool, in a child the front-end starts, and a finding decides the verdict."""
from __future__ import annotations

import sys

import pytest
from timing_helpers import FAKE_ENTRY, small_vector_add

from assessments.judge import Verdict, judge
from assessments.judge.kinds.cupy import sanitizer
from assessments.judge.sandbox import SandboxSpec

FAKE_SANITIZER = FAKE_ENTRY.parent / "compute_sanitizer.py"


FILTERS: list[bytes | None] = []   # the seccomp program each launcher run's sandbox would get


def _wrapper(spec: SandboxSpec, argv: list[str]) -> list[str]:
    """The fake GPU's child, behind whatever launcher the judge put in front of it."""
    launcher = list(argv[:len(spec.launcher)])
    if launcher:
        FILTERS.append(spec.syscall_filter)
    if launcher:
        launcher = [sys.executable, str(FAKE_SANITIZER)] + launcher[1:]
    return launcher + [sys.executable, "-s", "-B", str(FAKE_ENTRY), "--fake-mode", "honest"] + \
        argv[argv.index("--backend"):]


@pytest.fixture
def fake_sanitizer(fake_gpu, monkeypatch):
    # The front-end's path must exist and be executable; the wrapper swaps in the stand-in.
    monkeypatch.setenv(sanitizer.PROGRAM_ENV, sys.executable)
    monkeypatch.delenv(sanitizer.TOOLS_ENV, raising=False)
    return fake_gpu


def _judge(fixtures, extra: str = "", **kwargs):
    source = (fixtures / "honest.py").read_text() + extra
    return judge(small_vector_add(), source, backend="cuda", seed=3, wrapper=_wrapper,
                 timing=False, **kwargs)


def test_a_clean_kernel_passes_every_tool_and_the_report_says_so(fake_sanitizer):
    r = _judge(fake_sanitizer)
    assert r.verdict is Verdict.ACCEPTED, (r.message, r.details)
    s = r.sanitizer
    assert s["ran"] and [t["tool"] for t in s["tools"]] == ["memcheck", "racecheck", "synccheck"]
    assert all(t["errors"] == 0 for t in s["tools"]) and s["seconds"] > 0
    assert s["cases"] == [c.name for c in small_vector_add().sample_cases]
    assert "compute-sanitizer on" in r.render_text() and "memcheck 0 error(s)" in r.render_text()
    # Each tool's sandbox lets the front-end trace its child (test_judge_sandbox.py)
    assert FILTERS[-3:] == [sanitizer.syscall_filter()] * 3


@pytest.mark.parametrize("tool, verdict", [("memcheck", Verdict.MEMORY_ERROR),
                                           ("racecheck", Verdict.RACE_DETECTED),
                                           ("synccheck", Verdict.RUNTIME_ERROR)])
def test_a_finding_decides_the_verdict_and_names_the_first_error(fake_sanitizer, tool, verdict):
    r = _judge(fake_sanitizer, f"\n# fake-sanitizer: {tool}\n")
    assert r.verdict is verdict, (r.message, r.details)
    assert r.message.startswith(f"compute-sanitizer {tool} found"), r.message
    assert ("Race reported" if tool == "racecheck" else "Invalid __global__ write") in r.message
    assert r.score == 0
    assert r.sanitizer["tools"][-1]["tool"] == tool     # the tools after it did not run


def test_a_tool_that_cannot_watch_the_device_leaves_the_verdict(fake_sanitizer):
    r = _judge(fake_sanitizer, "\n# fake-sanitizer: unsupported\n")
    assert r.verdict is Verdict.ACCEPTED, r.message
    assert all(t["errors"] is None and "not supported" in t["note"] for t in r.sanitizer["tools"])


def test_tools_can_be_chosen_or_turned_off(fake_sanitizer, monkeypatch):
    monkeypatch.setenv(sanitizer.TOOLS_ENV, "racecheck")
    r = _judge(fake_sanitizer)
    assert [t["tool"] for t in r.sanitizer["tools"]] == ["racecheck"]
    monkeypatch.setenv(sanitizer.TOOLS_ENV, "none")
    assert _judge(fake_sanitizer).sanitizer is None


def test_without_the_program_the_report_says_it_did_not_run(fake_gpu, monkeypatch):
    monkeypatch.setenv(sanitizer.PROGRAM_ENV, "/nonexistent/compute-sanitizer")
    r = _judge(fake_gpu)
    assert r.verdict is Verdict.ACCEPTED
    assert r.sanitizer == {"ran": False, "note": "compute-sanitizer is not installed here"}


def test_the_program_cannot_forge_a_clean_summary():
    prefix = sanitizer.new_prefix()
    out = "\n".join([f"{prefix} Invalid __global__ read of size 4 bytes", f"{prefix}     at k+0x10",
                     "ERROR SUMMARY: 0 errors",          # printed by the program: no prefix
                     f"{prefix} ERROR SUMMARY: 1 error"])
    f = sanitizer.read("memcheck", out, prefix, sanitizer.ERROR_EXIT)
    assert f.found and f.errors == 1 and f.first.startswith("Invalid __global__ read")


def test_a_tool_that_stops_early_says_why_in_its_own_words():
    prefix = sanitizer.new_prefix()
    out = (f"{prefix} COMPUTE-SANITIZER\n{prefix} Error: cannot open the communication channel\n"
           "program output\n")
    f = sanitizer.read("memcheck", out, prefix, 13)
    assert f.errors is None and not f.found
    assert f.note == ("the tool printed no summary; its last words: Error: cannot open the "
                      "communication channel (exit status 13)")
    assert sanitizer.read("memcheck", f"{prefix} COMPUTE-SANITIZER\n", prefix, 0).note == \
        "the tool printed no summary"
